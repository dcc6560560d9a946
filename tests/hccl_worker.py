"""One rank of a multi-process HCCL test, started with subprocess (never fork a process that loaded
opemu). Usage: python hccl_worker.py SCENARIO RANK SIZE ROOTFILE; prints one JSON line.

The root info travels through ROOTFILE (rank 0 writes it), or through a torch TCPStore when
ROOTFILE is tcp://host:port, as torch_npu's ProcessGroupHCCL moves it (key "0", 4,108 bytes)."""
import ctypes
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import acl  # noqa: E402
import hccl  # noqa: E402
from hccl import SUCCESS, call, u64  # noqa: E402


def share_root_info(rank, where):
    info = hccl.RootInfo()
    if where.startswith("tcp://"):
        from torch.distributed import TCPStore
        host, port = where[len("tcp://"):].rsplit(":", 1)
        store = TCPStore(host, int(port), is_master=False, wait_for_workers=False)
        if rank == 0:
            assert call("HcclGetRootInfo", ctypes.byref(info)) == SUCCESS, acl.recent_error()
            store.set("0", bytes(info))
        else:
            data = store.get("0")
            assert len(data) == hccl.ROOT_INFO_BYTES
            ctypes.memmove(ctypes.byref(info), data, len(data))
        return info
    if rank == 0:
        assert call("HcclGetRootInfo", ctypes.byref(info)) == SUCCESS, acl.recent_error()
        with open(where + ".tmp", "wb") as f:
            f.write(bytes(info))
        os.rename(where + ".tmp", where)
        return info
    deadline = time.monotonic() + 60
    while not os.path.exists(where):
        assert time.monotonic() < deadline, "no root info"
        time.sleep(0.01)
    with open(where, "rb") as f:
        ctypes.memmove(ctypes.byref(info), f.read(), hccl.ROOT_INFO_BYTES)
    return info


def init(rank, size, where, device=None):
    """A communicator from the shared root info, or from a rank table (WHERE is ranktable:PATH)."""
    device = rank % 8 if device is None else device
    acl.lib().aclrtSetDevice(device)
    comm = ctypes.c_void_p()
    if where.startswith("ranktable:"):
        rc = call("HcclCommInitClusterInfo", where[len("ranktable:"):].encode(), rank, ctypes.byref(comm))
    else:
        info = share_root_info(rank, where)
        rc = call("HcclCommInitRootInfo", size, ctypes.byref(info), rank, ctypes.byref(comm))
    return rc, comm, hccl.stream(device), device


def check(name, got, expected, failures):
    if hccl.bits(got).tobytes() != hccl.bits(expected).tobytes():
        failures.append(name)


def scenario_ops(rank, size, comm, s, device):
    """Every reducing type and op through AllReduce, and one of each other collective."""
    failures = []
    count = 29
    for dtype in hccl.REDUCING:
        for op in hccl.OPS:
            if op == hccl.PROD and dtype in (hccl.INT16, hccl.BF16):
                continue
            inputs = [hccl.sample(dtype, count, seed=1000 * dtype + 10 * op + r) for r in range(size)]
            send, recv = hccl.Buffer(device, inputs[rank]), hccl.Buffer(device, np.zeros_like(inputs[rank]))
            assert call("HcclAllReduce", send.address, recv.address, u64(count), dtype, op, comm, s) == SUCCESS
            assert hccl.sync(s) == 0, acl.recent_error()
            check("allreduce %d/%d" % (dtype, op), recv.read(), hccl.reference(inputs, op), failures)
            send.free(), recv.free()
    blocks = [hccl.sample(hccl.FP16, 5, seed=r) for r in range(size)]
    send, gather = hccl.Buffer(device, blocks[rank]), hccl.Buffer(device, np.zeros(5 * size, np.float16))
    assert call("HcclAllGather", send.address, gather.address, u64(5), hccl.FP16, comm, s) == SUCCESS
    scatter = hccl.Buffer(device, np.zeros(5, np.float16))
    full = hccl.Buffer(device, np.concatenate(blocks))
    assert call("HcclReduceScatter", full.address, scatter.address, u64(5), hccl.FP16, hccl.MAX, comm, s) == SUCCESS
    bcast = hccl.Buffer(device, blocks[rank])
    assert call("HcclBroadcast", bcast.address, u64(5), hccl.FP16, size - 1, comm, s) == SUCCESS
    ring_in = hccl.Buffer(device, np.full(3, rank, np.int32))
    ring_out = hccl.Buffer(device, np.zeros(3, np.int32))
    items = (hccl.SendRecvItem * 2)(hccl.SendRecvItem(0, ring_in.address, 3, hccl.INT32, (rank + 1) % size),
                                    hccl.SendRecvItem(1, ring_out.address, 3, hccl.INT32, (rank - 1) % size))
    assert call("HcclBatchSendRecv", items, 2, comm, s) == SUCCESS
    big = np.arange(3 << 20, dtype=np.float32) * (rank + 1)  # larger than a slot: several rounds
    big_buf = hccl.Buffer(device, big)
    assert call("HcclAllReduce", big_buf.address, big_buf.address, u64(big.size), hccl.FP32, hccl.SUM, comm, s) == 0
    assert call("HcclBarrier", comm, s) == SUCCESS
    assert hccl.sync(s) == 0, acl.recent_error()
    check("allgather", gather.read(), np.concatenate(blocks), failures)
    every = [np.concatenate(blocks) for _ in range(size)]
    check("reducescatter", scatter.read(), hccl.reference(every, hccl.MAX)[5 * rank:5 * rank + 5], failures)
    check("broadcast", bcast.read(), blocks[size - 1], failures)
    check("batchsendrecv", ring_out.read(), np.full(3, (rank - 1) % size, np.int32), failures)
    total = sum(range(1, size + 1))
    check("allreduce rounds", big_buf.read(), (np.arange(3 << 20, dtype=np.float32) * total), failures)
    return {"failures": failures}


def scenario_sum(rank, size, comm, s, device):
    """One AllReduce of rank + 1: the sum every rank gets."""
    buf = hccl.Buffer(device, np.full(4, rank + 1, np.int32))
    assert call("HcclAllReduce", buf.address, buf.address, u64(4), hccl.INT32, hccl.SUM, comm, s) == SUCCESS
    assert hccl.sync(s) == 0, acl.recent_error()
    return {"sum": int(buf.read(np.int32)[0])}


def one_allreduce(comm, s, device):
    """An AllReduce whose outcome (status, time, message, async error) is reported."""
    buf = hccl.Buffer(device, np.ones(4, np.float32))
    start = time.monotonic()
    assert call("HcclAllReduce", buf.address, buf.address, u64(4), hccl.FP32, hccl.SUM, comm, s) == SUCCESS
    status = hccl.sync(s)
    error = ctypes.c_int(-1)
    call("HcclGetCommAsyncError", comm, ctypes.byref(error))
    return {"status": status, "seconds": time.monotonic() - start, "message": acl.recent_error(),
            "async": error.value}


def scenario_peer_killed(rank, size, comm, s, device):
    if rank == size - 1:
        os._exit(0)  # dies after joining, before the collective
    return one_allreduce(comm, s, device)


def scenario_silent_peer(rank, size, comm, s, device):
    if rank == size - 1:
        time.sleep(float(os.environ.get("SILENT_SECONDS", "4")))
        return {}
    return one_allreduce(comm, s, device)


def scenario_mismatch(rank, size, comm, s, device):
    count = 8 if rank == 0 else 4
    buf = hccl.Buffer(device, np.ones(count, np.float32))
    assert call("HcclAllReduce", buf.address, buf.address, u64(count), hccl.FP32, hccl.SUM, comm, s) == SUCCESS
    status = hccl.sync(s)
    error = ctypes.c_int(-1)
    call("HcclGetCommAsyncError", comm, ctypes.byref(error))
    return {"status": status, "message": acl.recent_error(), "async": error.value}


def scenario_subcomm(rank, size, comm, s, device):
    """Ranks 0 and size-1 make a sub-communicator through the parent's rendezvous and reduce in it."""
    members = [0, size - 1]
    if rank not in members:
        return {"sub": None}
    ids = (ctypes.c_uint32 * 2)(*members)
    cfg = (ctypes.c_char * 2240)()
    ctypes.c_uint64.from_buffer(cfg, 0).value = 2240
    ctypes.c_uint32.from_buffer(cfg, 8).value = 0xf0f0f0f0
    ctypes.c_int32.from_buffer(cfg, 316).value = -1
    sub, parent = ctypes.c_void_p(), ctypes.c_void_p(comm.value)
    rc = call("HcclCreateSubCommConfig", ctypes.byref(parent), 2, ids, u64(42), members.index(rank), cfg,
              ctypes.byref(sub))
    if rc != SUCCESS:
        return {"sub": rc, "message": acl.recent_error()}
    buf = hccl.Buffer(device, np.full(3, rank + 1, np.int32))
    assert call("HcclAllReduce", buf.address, buf.address, u64(3), hccl.INT32, hccl.SUM, sub, s) == SUCCESS
    status = hccl.sync(s)
    result = {"sub": 0, "status": status, "value": int(buf.read(np.int32)[0])}
    call("HcclCommDestroy", sub)
    return result


def main():
    scenario, rank, size, where = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rc, comm, s, device = init(rank, size, where)
    result = {"rank": rank, "init": rc,
              "shared_memory": "opemu-hccl-" in open("/proc/self/maps").read()}
    if rc != SUCCESS:
        result["message"] = acl.recent_error()
    else:
        result.update(globals()["scenario_" + scenario](rank, size, comm, s, device))
        if scenario != "peer_killed" or rank != size - 1:
            call("HcclCommDestroy", comm)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
