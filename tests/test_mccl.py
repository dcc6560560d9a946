"""MCCL (MACA's NCCL-style collectives) on the collective core: NCCL's numbering and statuses, MACA
streams, communicators made from one thread inside a group, and the same rank-order results."""
import ctypes

import numpy as np
import pytest

import hccl
import mc

SUCCESS, INVALID_ARGUMENT, INVALID_USAGE = 0, 4, 5
INT8, UINT8, INT32, UINT32, INT64, UINT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16 = range(10)
SUM, PROD, MAX, MIN, AVG = range(5)
HCCL_OF = {INT8: hccl.INT8, INT32: hccl.INT32, INT64: hccl.INT64, UINT64: hccl.UINT64, FLOAT16: hccl.FP16,
           FLOAT32: hccl.FP32, FLOAT64: hccl.FP64, BFLOAT16: hccl.BF16}
MEMCPY_H2D, MEMCPY_D2H = 1, 2


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


_lib = None


def lib():
    global _lib
    if _lib is None:
        mc.lib()
        _lib = ctypes.CDLL(str(hccl.acl.conftest.toolkit() / "lib64" / "libmccl.so"), mode=ctypes.RTLD_GLOBAL)
        _lib.mcclGetErrorString.restype = ctypes.c_char_p
        _lib.mcclGetLastError.restype = ctypes.c_char_p
    return _lib


def call(name, *args):
    return getattr(lib(), name)(*args)


class Device:
    """A rank's device memory and stream (MACA runtime)."""

    def __init__(self, device):
        self.device = device
        self.stream = ctypes.c_void_p()
        mc.lib().mcSetDevice(device)
        assert mc.lib().mcStreamCreate(ctypes.byref(self.stream)) == 0

    def upload(self, array):
        mc.lib().mcSetDevice(self.device)
        address = ctypes.c_void_p()
        assert mc.lib().mcMalloc(ctypes.byref(address), max(array.nbytes, 1)) == 0
        assert mc.lib().mcMemcpy(address, array.ctypes.data, array.nbytes, MEMCPY_H2D) == 0
        return address

    def download(self, address, like):
        out = np.empty_like(like)
        assert mc.lib().mcMemcpy(out.ctypes.data, address, out.nbytes, MEMCPY_D2H) == 0
        return out

    def sync(self):
        return mc.lib().mcStreamSynchronize(self.stream)


@pytest.fixture
def clique():
    comms = (ctypes.c_void_p * 3)()
    assert call("mcclCommInitAll", comms, 3, None) == SUCCESS
    ranks = [ctypes.c_void_p(c) for c in comms]
    yield ranks, [Device(r) for r in range(3)]
    for c in ranks:
        assert call("mcclCommDestroy", c) == SUCCESS


def test_version_and_error_strings():
    version = ctypes.c_int()
    assert call("mcclGetVersion", ctypes.byref(version)) == SUCCESS and version.value == 21605
    assert call("mcclGetErrorString", INVALID_ARGUMENT) == b"invalid argument"


@pytest.mark.parametrize("dtype", [INT8, INT32, INT64, UINT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16])
@pytest.mark.parametrize("op", [SUM, PROD, MAX, MIN])
def test_allreduce_matches_the_rank_order_reference(clique, dtype, op):
    comms, devices = clique
    inputs = [hccl.sample(HCCL_OF[dtype], 11, seed=r) for r in range(3)]
    sends = [d.upload(inputs[r]) for r, d in enumerate(devices)]
    recvs = [d.upload(np.zeros_like(inputs[r])) for r, d in enumerate(devices)]
    for r in range(3):
        assert call("mcclAllReduce", sends[r], recvs[r], ctypes.c_size_t(11), dtype, op, comms[r],
                    devices[r].stream) == SUCCESS
    expected = hccl.bits(hccl.reference(inputs, op)).tobytes()
    for r, d in enumerate(devices):
        assert d.sync() == 0
        assert hccl.bits(d.download(recvs[r], inputs[r])).tobytes() == expected


def test_average_divides_the_rank_order_sum_by_the_number_of_ranks(clique):
    comms, devices = clique
    inputs = [np.array([1, -7, 8, -4 - (r == 2)], np.int32) * np.array([r + 1, r + 1, r + 1, 1], np.int32)
              for r in range(3)]  # sums 6, -42, 48 and -13 (truncated to -4, not floored to -5)
    floats = [np.array([1.0, 2.5, -3.0], np.float32) * (r + 1) for r in range(3)]
    ints = [d.upload(inputs[r]) for r, d in enumerate(devices)]
    fl = [d.upload(floats[r]) for r, d in enumerate(devices)]
    for r in range(3):
        assert call("mcclAllReduce", ints[r], ints[r], ctypes.c_size_t(4), INT32, AVG, comms[r],
                    devices[r].stream) == SUCCESS
        assert call("mcclAllReduce", fl[r], fl[r], ctypes.c_size_t(3), FLOAT32, AVG, comms[r],
                    devices[r].stream) == SUCCESS
    for r, d in enumerate(devices):
        d.sync()
        assert (d.download(ints[r], inputs[r]) == [2, -14, 16, -4]).all()
        assert (d.download(fl[r], floats[r]) == np.float32([2.0, 5.0, -6.0])).all()


def test_gather_scatter_and_alltoall(clique):
    comms, devices = clique
    blocks = [np.full(2, r, np.float32) for r in range(3)]
    sends = [d.upload(blocks[r]) for r, d in enumerate(devices)]
    gathered = devices[1].upload(np.zeros(6, np.float32))
    for r in range(3):
        assert call("mcclGather", sends[r], gathered if r == 1 else None, ctypes.c_size_t(2), FLOAT32, 1, comms[r],
                    devices[r].stream) == SUCCESS
    devices[1].sync()
    assert (devices[1].download(gathered, np.zeros(6, np.float32)) == [0, 0, 1, 1, 2, 2]).all()
    matrix = [np.arange(3, dtype=np.int64) + 10 * r for r in range(3)]
    a = [d.upload(matrix[r]) for r, d in enumerate(devices)]
    b = [d.upload(np.zeros(3, np.int64)) for d in devices]
    for r in range(3):
        assert call("mcclAllToAll", a[r], b[r], ctypes.c_size_t(1), INT64, comms[r], devices[r].stream) == SUCCESS
    for r, d in enumerate(devices):
        d.sync()
        assert (d.download(b[r], matrix[r]) == [r, 10 + r, 20 + r]).all()


def test_one_thread_creates_every_rank_inside_a_group():
    uid = UniqueId()
    assert call("mcclGetUniqueId", ctypes.byref(uid)) == SUCCESS
    comms = [ctypes.c_void_p() for _ in range(2)]
    assert call("mcclGroupStart") == SUCCESS
    for r in range(2):
        mc.lib().mcSetDevice(r)
        assert call("mcclCommInitRank", ctypes.byref(comms[r]), 2, uid, r) == SUCCESS
    assert call("mcclGroupEnd") == SUCCESS
    devices = [Device(r) for r in range(2)]
    bufs = [d.upload(np.full(4, r + 1, np.float64)) for r, d in enumerate(devices)]
    assert call("mcclGroupStart") == SUCCESS
    for r in range(2):
        assert call("mcclAllReduce", bufs[r], bufs[r], ctypes.c_size_t(4), FLOAT64, SUM, comms[r],
                    devices[r].stream) == SUCCESS
    assert call("mcclGroupEnd") == SUCCESS
    for r, d in enumerate(devices):
        assert d.sync() == 0
        assert (d.download(bufs[r], np.zeros(4)) == 3).all()
        count, rank, device = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        assert call("mcclCommCount", comms[r], ctypes.byref(count)) == SUCCESS and count.value == 2
        assert call("mcclCommUserRank", comms[r], ctypes.byref(rank)) == SUCCESS and rank.value == r
        assert call("mcclCommMcDevice", comms[r], ctypes.byref(device)) == SUCCESS and device.value == r
    for c in comms:
        assert call("mcclCommDestroy", c) == SUCCESS


def test_bad_arguments_are_mccl_invalid_argument(clique):
    comms, devices = clique
    buf = devices[0].upload(np.zeros(4, np.float32))
    assert call("mcclAllReduce", buf, buf, ctypes.c_size_t(4), 10, SUM, comms[0], devices[0].stream) == INVALID_ARGUMENT
    assert call("mcclAllReduce", buf, buf, ctypes.c_size_t(4), FLOAT32, 5, comms[0], devices[0].stream) == \
        INVALID_ARGUMENT
    assert b"mcclRedOpCreatePreMulSum" in call("mcclGetLastError", None)
    assert call("mcclAllReduce", None, buf, ctypes.c_size_t(4), FLOAT32, SUM, comms[0], devices[0].stream) == \
        INVALID_ARGUMENT
    assert call("mcclSend", buf, ctypes.c_size_t(4), FLOAT32, 0, comms[0], devices[0].stream) == INVALID_ARGUMENT
    bogus = ctypes.c_void_p(12345)
    assert call("mcclAllReduce", buf, buf, ctypes.c_size_t(4), FLOAT32, SUM, bogus, None) == INVALID_ARGUMENT
    assert call("mcclRedOpCreatePreMulSum", None, None, FLOAT32, 0, comms[0]) == INVALID_USAGE  # not emulated
