"""Communicators from rank tables (HcclCommInitClusterInfo) and from a parent
(HcclCreateSubCommConfig): where rank 0 serves the rendezvous, and the errors a table can have."""
import ctypes
import hashlib
import json
import threading

import numpy as np
import pytest

import acl
import hccl
from hccl import E_PARA, SUCCESS, call, u64


def table(ranks_per_server, host_ip=None, host_ports=None, status="completed"):
    servers, rank = [], 0
    for s, count in enumerate(ranks_per_server):
        devices = []
        for d in range(count):
            entry = {"device_id": str(rank), "device_ip": "192.168.1.%d" % rank, "rank_id": str(rank)}
            if host_ports:
                entry["host_port"] = str(host_ports[rank])
            devices.append(entry)
            rank += 1
        server = {"server_id": "node_%d" % s, "device": devices}
        if host_ip:
            server["host_ip"] = host_ip[s]
        servers.append(server)
    return {"status": status, "version": "1.0", "server_count": str(len(servers)), "server_list": servers}


@pytest.fixture(autouse=True)
def short_connect_timeout(monkeypatch):
    """A rank that fails to join leaves the others waiting for it only this long (the vendor's 140 s otherwise)."""
    monkeypatch.setenv("OPEMU_HCCL_CONNECT_TIMEOUT", "20")


def run_ranks(path, n):
    """Every rank in a thread of this process: init, AllReduce of rank+1, destroy; the sums."""
    results = [None] * n

    def rank(r):
        acl.lib().aclrtSetDevice(r)
        comm = ctypes.c_void_p()
        rc = call("HcclCommInitClusterInfo", str(path).encode(), r, ctypes.byref(comm))
        if rc:
            results[r] = ("init", rc, acl.recent_error())
            return
        s = hccl.stream(r)
        buf = hccl.Buffer(r, np.full(2, r + 1, np.int32))
        rc = call("HcclAllReduce", buf.address, buf.address, u64(2), hccl.INT32, hccl.SUM, comm, s) or hccl.sync(s)
        results[r] = rc or int(buf.read(np.int32)[0])
        buf.free()
        call("HcclCommDestroy", comm)

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_a_one_server_table_meets_on_the_loopback(tmp_path, monkeypatch, unused_port):
    path = tmp_path / "rank_table.json"
    path.write_text(json.dumps(table([3])))
    offset = hashlib.sha256(path.read_bytes()).digest()[8] % 32  # rank 0 listens at HCCL_IF_BASE_PORT + offset
    monkeypatch.setenv("HCCL_IF_BASE_PORT", str(unused_port - offset))
    assert run_ranks(path, 3) == [6, 6, 6]


def test_an_a3_table_names_rank_0s_host_ip_and_host_port(tmp_path, unused_port):
    path = tmp_path / "rank_table.json"
    path.write_text(json.dumps(table([1, 1], host_ip=["127.0.0.1", "127.0.0.1"], host_ports=[unused_port, 1])))
    assert run_ranks(path, 2) == [3, 3]


def test_a_table_over_several_servers_without_host_ip_is_refused(tmp_path):
    path = tmp_path / "rank_table.json"
    path.write_text(json.dumps(table([1, 1])))
    comm = ctypes.c_void_p()
    assert call("HcclCommInitClusterInfo", str(path).encode(), 0, ctypes.byref(comm)) == E_PARA
    assert "OPEMU_HCCL_RANKTABLE_ROOT" in acl.recent_error()


@pytest.mark.parametrize("problem, code", [("status", E_PARA), ("missing rank", E_PARA), ("json", E_PARA),
                                           ("file", 10)])
def test_a_broken_table_is_refused_with_a_message(tmp_path, problem, code):
    path = tmp_path / "rank_table.json"
    if problem == "status":
        path.write_text(json.dumps(table([2], status="initializing")))
    elif problem == "missing rank":
        path.write_text(json.dumps(table([2])).replace('"rank_id": "1"', '"rank_id": "5"'))
    elif problem == "json":
        path.write_text("{not json")
    comm = ctypes.c_void_p()
    assert call("HcclCommInitClusterInfo", str(path).encode(), 0, ctypes.byref(comm)) == code
    assert acl.recent_error()


def test_a_sub_communicator_of_an_in_process_parent():
    with hccl.World(4) as w:
        ids = (ctypes.c_uint32 * 2)(1, 3)
        subs = {}
        for r in (1, 3):
            sub = ctypes.c_void_p()
            cfg = (ctypes.c_char * 2240)()
            ctypes.c_uint64.from_buffer(cfg, 0).value = 2240
            ctypes.c_uint32.from_buffer(cfg, 8).value = 0xf0f0f0f0
            ctypes.c_int32.from_buffer(cfg, 316).value = -1
            parent = ctypes.c_void_p(w.comms[r].value)
            assert call("HcclCreateSubCommConfig", ctypes.byref(parent), 2, ids, u64(7), 0 if r == 1 else 1, cfg,
                        ctypes.byref(sub)) == SUCCESS, acl.recent_error()
            subs[r] = sub
        bufs = {r: w.buffer(r, np.full(3, r, np.int64)) for r in (1, 3)}
        for r in (1, 3):
            assert call("HcclAllReduce", bufs[r].address, bufs[r].address, u64(3), hccl.INT64, hccl.SUM, subs[r],
                        w.streams[r]) == SUCCESS
        assert [hccl.sync(w.streams[r]) for r in (1, 3)] == [0, 0]
        assert all((bufs[r].read(np.int64) == 4).all() for r in (1, 3))
        size = ctypes.c_uint32()
        assert call("HcclGetRankSize", subs[3], ctypes.byref(size)) == SUCCESS and size.value == 2
        for r in (1, 3):
            assert call("HcclCommDestroy", subs[r]) == SUCCESS


@pytest.fixture
def unused_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return port if port > 1100 else port + 1100
