"""Collectives as stream tasks: the caller never waits for its peers, events recorded after a
collective fire when it completes, deferred streams run it at their synchronisation, and a peer
that never comes ends it with the vendor's error after the execution timeout."""
import ctypes
import threading
import time

import numpy as np
import pytest

import acl
import hccl
from hccl import SUCCESS, call, u64

ACL_EVENT_STATUS_COMPLETE, ACL_EVENT_STATUS_NOT_READY = 0, 1
ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_SUSPECT_REMOTE_ERROR = 507046, 507057


def event(device):
    acl.lib().aclrtSetDevice(device)
    handle = ctypes.c_void_p()
    assert acl.lib().aclrtCreateEvent(ctypes.byref(handle)) == 0
    return handle


def query(handle):
    status = ctypes.c_int(-1)
    assert acl.lib().aclrtQueryEvent(handle, ctypes.byref(status)) == 0
    return status.value


def async_error(comm):
    error = ctypes.c_int(-1)
    assert call("HcclGetCommAsyncError", comm, ctypes.byref(error)) == SUCCESS
    return error.value


def allreduce(w, r, send, recv, count=4, dtype=hccl.FP32):
    return call("HcclAllReduce", send.address, recv.address, u64(count), dtype, hccl.SUM, w.comms[r], w.streams[r])


def test_one_thread_queues_interleaved_collectives_for_eight_ranks_without_deadlock():
    with hccl.World(8) as w:
        data = [np.full(16, r + 1, np.float32) for r in range(8)]
        sends = [w.buffer(r, data[r]) for r in range(8)]
        sums = [w.buffer(r, nbytes=64) for r in range(8)]
        gathers = [w.buffer(r, nbytes=64 * 8) for r in range(8)]
        for r in range(8):  # each rank's two collectives before the next rank's first
            assert allreduce(w, r, sends[r], sums[r], 16) == SUCCESS
            assert call("HcclAllGather", sends[r].address, gathers[r].address, u64(16), hccl.FP32, w.comms[r],
                        w.streams[r]) == SUCCESS
        assert w.sync() == [0] * 8
        assert all((s.read(np.float32) == 36).all() for s in sums)
        assert all((g.read(np.float32) == np.repeat(np.arange(1, 9), 16)).all() for g in gathers)


def test_a_hundred_operations_queue_back_to_back_on_one_stream():
    with hccl.World(2) as w:
        bufs = [w.buffer(r, np.ones(8, np.int32)) for r in range(2)]
        for r in range(2):
            for _ in range(100):
                assert allreduce(w, r, bufs[r], bufs[r], 8, hccl.INT32) == SUCCESS
        assert w.sync() == [0, 0]
        assert all((b.read(np.int32) == 2 ** 100 % 2 ** 32).all() for b in bufs)  # doubles each time, wraps


def test_an_event_recorded_after_a_collective_fires_when_the_last_rank_arrives():
    with hccl.World(2) as w:
        bufs = [w.buffer(r, np.ones(4, np.float32)) for r in range(2)]
        events = [event(r) for r in range(2)]
        assert allreduce(w, 0, bufs[0], bufs[0]) == SUCCESS
        assert acl.lib().aclrtRecordEvent(events[0], w.streams[0]) == 0
        assert query(events[0]) == ACL_EVENT_STATUS_NOT_READY
        status = ctypes.c_int(-1)
        assert acl.lib().aclrtStreamQuery(w.streams[0], ctypes.byref(status)) == 0 and status.value == 1
        assert allreduce(w, 1, bufs[1], bufs[1]) == SUCCESS
        assert query(events[0]) == ACL_EVENT_STATUS_COMPLETE  # no synchronisation needed
        assert (bufs[0].read(np.float32) == 2).all()


def test_a_stream_waiting_on_an_unfinished_collectives_event_does_not_block_the_caller():
    with hccl.World(2) as w:
        bufs = [w.buffer(r, np.ones(4, np.float32)) for r in range(2)]
        events = [event(r) for r in range(2)]
        compute = [hccl.stream(r) for r in range(2)]
        for r in range(2):  # torch's pattern: collective, end event, the compute stream waits on it
            assert allreduce(w, r, bufs[r], bufs[r]) == SUCCESS
            assert acl.lib().aclrtRecordEvent(events[r], w.streams[r]) == 0
            assert acl.lib().aclrtStreamWaitEvent(compute[r], events[r]) == 0
        assert [hccl.sync(c) for c in compute] == [0, 0]
        assert all((b.read(np.float32) == 2).all() for b in bufs)
        for c in compute:
            acl.lib().aclrtDestroyStream(c)


def test_deferred_streams_run_the_peers_up_to_the_collective_at_a_synchronisation(monkeypatch):
    monkeypatch.setenv("OPEMU_STREAM", "deferred")
    with hccl.World(4) as w:
        bufs = [w.buffer(r, np.full(4, r, np.float32)) for r in range(4)]
        for r in range(4):
            assert allreduce(w, r, bufs[r], bufs[r]) == SUCCESS
        assert (bufs[0].read(np.float32) == 0).all()  # nothing ran yet
        assert hccl.sync(w.streams[0]) == 0
        assert all((b.read(np.float32) == 6).all() for b in bufs)
        assert w.sync() == [0] * 4


def test_eight_threads_joining_one_root_info_each_waiting_on_its_stream_complete():
    info = hccl.RootInfo()
    acl.lib().aclrtSetDevice(0)
    assert call("HcclGetRootInfo", ctypes.byref(info)) == SUCCESS
    results = [None] * 8

    def rank(r):
        acl.lib().aclrtSetDevice(r)
        comm = ctypes.c_void_p()
        rc = call("HcclCommInitRootInfo", 8, ctypes.byref(info), r, ctypes.byref(comm))
        if rc != SUCCESS:
            results[r] = "init %d: %s" % (rc, acl.recent_error())
            return
        s = hccl.stream(r)
        buf = hccl.Buffer(r, np.full(3, r, np.int64))
        rc = call("HcclAllReduce", buf.address, buf.address, u64(3), hccl.INT64, hccl.SUM, comm, s)
        rc = rc or hccl.sync(s)
        results[r] = rc if rc else int(buf.read(np.int64)[0])
        buf.free()
        acl.lib().aclrtDestroyStream(s)
        call("HcclCommDestroy", comm)

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == [28] * 8


def test_a_rank_that_never_arrives_fails_the_collective_after_the_execution_timeout(monkeypatch):
    monkeypatch.setenv("OPEMU_HCCL_EXEC_TIMEOUT", "0.5")
    with hccl.World(2) as w:
        buf = w.buffer(0, np.ones(4, np.float32))
        start = time.monotonic()
        assert allreduce(w, 0, buf, buf) == SUCCESS
        assert hccl.sync(w.streams[0]) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        assert time.monotonic() - start < 5
        message = acl.recent_error()
        assert "Stuck Occurred" in message and "never arrived: [1]" in message
        assert async_error(w.comms[0]) == hccl.E_TIMEOUT


def test_ranks_issuing_different_counts_fail_with_a_message_naming_both():
    with hccl.World(2) as w:
        bufs = [w.buffer(r, np.ones(8, np.float32)) for r in range(2)]
        assert allreduce(w, 0, bufs[0], bufs[0], 8) == SUCCESS
        assert allreduce(w, 1, bufs[1], bufs[1], 4) == SUCCESS
        assert hccl.sync(w.streams[0]) == ACL_ERROR_RT_SUSPECT_REMOTE_ERROR
        message = acl.recent_error()
        assert "rank 0 issued #0 AllReduce(count=8" in message and "rank 1 issued #0 AllReduce(count=4" in message
        assert hccl.sync(w.streams[1]) == ACL_ERROR_RT_SUSPECT_REMOTE_ERROR
        assert async_error(w.comms[0]) == async_error(w.comms[1]) == hccl.E_PARA


def test_a_peer_destroying_its_communicator_fails_what_waits_for_it():
    w = hccl.World(2)
    buf = w.buffer(0, np.ones(4, np.float32))
    assert allreduce(w, 0, buf, buf) == SUCCESS
    assert call("HcclCommDestroy", w.comms[1]) == SUCCESS
    assert hccl.sync(w.streams[0]) == ACL_ERROR_RT_SUSPECT_REMOTE_ERROR
    assert "rank 1 destroyed its communicator" in acl.recent_error()
    assert call("HcclCommDestroy", w.comms[0]) == SUCCESS
    buf.free()
