"""HCCL seen from a test: ctypes on the installed libhccl.so, device buffers, communicators, and an
independent reference for the reductions.

The reference is written apart from the implementation (python/opemu/collectives/reduce.py): each
element is combined in rank order in a wider type and rounded to the data type after every step
(float64 for fp16, bf16 and fp32 — more than twice their precision plus two bits, so the rounding is
the correctly rounded step's), Python integers wrapped to the type's width, NaN carried by max/min."""
import ctypes
import math

import ml_dtypes
import numpy as np

import acl

SUCCESS, E_PARA, E_PTR, E_NOT_SUPPORT, E_TIMEOUT, E_TCP_CONNECT, E_REMOTE = 0, 1, 2, 5, 9, 11, 21
SUM, PROD, MAX, MIN = 0, 1, 2, 3
INT8, INT16, INT32, FP16, FP32, INT64, UINT64, UINT8, UINT16, UINT32, FP64, BF16, INT128 = range(13)
HIF8, FP8E4M3, FP8E5M2, FP8E8M0 = 14, 15, 16, 17
NUMPY = {INT8: np.int8, INT16: np.int16, INT32: np.int32, FP16: np.float16, FP32: np.float32, INT64: np.int64,
         UINT64: np.uint64, UINT8: np.uint8, UINT16: np.uint16, UINT32: np.uint32, FP64: np.float64,
         BF16: ml_dtypes.bfloat16, HIF8: np.uint8, FP8E4M3: ml_dtypes.float8_e4m3fn,
         FP8E5M2: ml_dtypes.float8_e5m2, FP8E8M0: np.uint8}
REDUCING = [INT8, INT16, INT32, INT64, UINT64, FP16, FP32, FP64, BF16]
MOVING = [INT8, INT16, INT32, FP16, FP32, INT64, UINT64, UINT8, UINT16, UINT32, FP64, BF16, HIF8, FP8E4M3,
          FP8E5M2, FP8E8M0]
OPS = [SUM, PROD, MAX, MIN]
ROOT_INFO_BYTES = 4108


class SendRecvItem(ctypes.Structure):
    _fields_ = [("sendRecvType", ctypes.c_int), ("buf", ctypes.c_void_p), ("count", ctypes.c_uint64),
                ("dataType", ctypes.c_int), ("remoteRank", ctypes.c_uint32)]


class RootInfo(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * ROOT_INFO_BYTES)]


_lib = None


def lib():
    """libhccl.so (its HCCL functions), with the runtime loaded beside it (acl.lib())."""
    global _lib
    if _lib is None:
        acl.lib()
        _lib = ctypes.CDLL(str(acl.conftest.toolkit() / "lib64" / "libhccl.so"), mode=ctypes.RTLD_GLOBAL)
        _lib.HcclGetErrorString.restype = ctypes.c_char_p
        for name in ("HcclAllReduce", "HcclReduce", "HcclReduceScatter", "HcclReduceScatterV", "HcclAllGather",
                     "HcclAllGatherV", "HcclBroadcast", "HcclScatter", "HcclAlltoAll", "HcclAlltoAllV",
                     "HcclAlltoAllVC", "HcclSend", "HcclRecv", "HcclBatchSendRecv", "HcclBarrier"):
            getattr(_lib, name).argtypes = None
    return _lib


def call(name, *args):
    return getattr(lib(), name)(*args)


def u64(value):
    return ctypes.c_uint64(value)


def ptr(value):
    return ctypes.c_void_p(value)


class Buffer:
    """Device memory of `device` holding `array` (or `nbytes` of zeros)."""

    def __init__(self, device, array=None, nbytes=None, dtype=np.uint8):
        self.device = device
        self.dtype = np.dtype(array.dtype if array is not None else dtype)
        self.nbytes = array.nbytes if array is not None else nbytes
        self.address = ctypes.c_void_p()
        acl.lib().aclrtSetDevice(device)
        assert acl.lib().aclrtMalloc(ctypes.byref(self.address), max(self.nbytes, 1), 0) == 0
        data = np.zeros(self.nbytes, np.uint8) if array is None else np.ascontiguousarray(array)
        if self.nbytes:
            assert acl.lib().aclrtMemcpy(self.address, self.nbytes, data.ctypes.data, self.nbytes, 1) == 0

    def read(self, dtype=None, count=None):
        dtype = np.dtype(dtype or self.dtype)
        out = np.empty(self.nbytes // dtype.itemsize if count is None else count, dtype)
        if out.nbytes:
            assert acl.lib().aclrtMemcpy(out.ctypes.data, out.nbytes, self.address, out.nbytes, 2) == 0
        return out

    def at(self, elements):
        return ctypes.c_void_p(self.address.value + elements * self.dtype.itemsize)

    def free(self):
        acl.lib().aclrtSetDevice(self.device)
        acl.lib().aclrtFree(self.address)


def stream(device):
    acl.lib().aclrtSetDevice(device)
    handle = ctypes.c_void_p()
    assert acl.lib().aclrtCreateStream(ctypes.byref(handle)) == 0
    return handle


def sync(handle):
    return acl.lib().aclrtSynchronizeStream(handle)


class World:
    """`n` ranks in this process made by HcclCommInitAll (devices 0..n-1), a stream each."""

    def __init__(self, n):
        self.n = n
        comms = (ctypes.c_void_p * n)()
        devices = (ctypes.c_int32 * n)(*range(n))
        assert call("HcclCommInitAll", n, devices, comms) == SUCCESS, acl.recent_error()
        self.comms = [ctypes.c_void_p(c) for c in comms]
        self.streams = [stream(r) for r in range(n)]
        self.buffers = []

    def buffer(self, rank, array=None, nbytes=None, dtype=np.uint8):
        b = Buffer(rank, array, nbytes, dtype)
        self.buffers.append(b)
        return b

    def sync(self):
        return [sync(s) for s in self.streams]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for b in self.buffers:
            b.free()
        for r in range(self.n):
            acl.lib().aclrtSetDevice(r)
            acl.lib().aclrtDestroyStream(self.streams[r])
            assert call("HcclCommDestroy", self.comms[r]) == SUCCESS
        acl.lib().aclrtSetDevice(0)


# ---- data and the reference ----

def sample(dtype, shape, seed):
    """Values of the type that exercise it: mixed signs, wide magnitudes, ties for the rounding."""
    rng = np.random.default_rng(seed)
    numpy = np.dtype(NUMPY[dtype])
    if dtype in (FP16, BF16, FP32, FP64):
        values = rng.standard_normal(shape) * np.exp2(rng.integers(-4, 5, shape))
        return values.astype(numpy)
    if dtype in (FP8E4M3, FP8E5M2):
        return (rng.standard_normal(shape) * 4).astype(numpy)
    info = np.iinfo(numpy)
    return rng.integers(info.min, info.max, shape, dtype=numpy, endpoint=True)


def _step_float(a, b, op):
    if op == SUM:
        return a + b
    if op == PROD:
        return a * b
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return max(a, b) if op == MAX else min(a, b)


def reference(inputs, op):
    """Rank-order reduction, element by element, rounded to the type after each step."""
    dtype = inputs[0].dtype
    out = np.empty(inputs[0].shape, dtype)
    flat = [x.reshape(-1) for x in inputs]
    if np.issubdtype(dtype, np.integer):
        bits, signed = dtype.itemsize * 8, np.issubdtype(dtype, np.signedinteger)
        for i in range(out.size):
            acc = int(flat[0][i])
            for x in flat[1:]:
                v = int(x[i])
                acc = acc + v if op == SUM else acc * v if op == PROD else max(acc, v) if op == MAX else min(acc, v)
                acc &= (1 << bits) - 1
                if signed and acc >= 1 << (bits - 1):
                    acc -= 1 << bits
            out.reshape(-1)[i] = acc
        return out
    wide = dtype != np.float64
    for i in range(out.size):
        acc = float(flat[0][i])
        for x in flat[1:]:
            with np.errstate(all="ignore"):
                step = _step_float(acc, float(x[i]), op) if wide else float(_np_step(acc, float(x[i]), op))
                acc = float(np.array(step, np.float64).astype(dtype)) if wide else step
        out.reshape(-1)[i] = acc
    return out


def _np_step(a, b, op):
    a, b = np.float64(a), np.float64(b)
    with np.errstate(all="ignore"):
        return a + b if op == SUM else a * b if op == PROD else _step_float(float(a), float(b), op)


def bits(array):
    """The bytes of an array, for bitwise comparison (NaN payloads included)."""
    return np.ascontiguousarray(array).view(np.uint8)
