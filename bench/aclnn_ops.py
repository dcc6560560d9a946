"""The common aclnn operators: the host cost of tiny two-phase calls from C, and large
calls through the C ABI in this process against the NumPy ufunc / PyTorch CPU / NumPy matmul doing
the same work, timed in alternating blocks (common.best_of) so both sides meet the same load."""
import ctypes
import tempfile
from pathlib import Path

import numpy as np
import torch

import opemu
from calls import TINY_ACLNN_US  # one target for every implemented op's tiny call
from common import HERE, best_of, build, row, run
from opemu.core import dtypes

ELEMENTS = 16 * 1024 * 1024
ROWS = COLS = 4096
GEMM = 2048


class Acl:
    """The vendor C ABI in this process (ctypes): device tensors and one two-phase call."""

    def __init__(self):
        self.lib = ctypes.CDLL(str(Path(opemu.prefix()) / "lib64" / "libascendcl.so"), mode=ctypes.RTLD_GLOBAL)
        self.lib.aclCreateTensor.restype = ctypes.c_void_p
        self.lib.aclCreateScalar.restype = ctypes.c_void_p
        self.lib.aclCreateIntArray.restype = ctypes.c_void_p
        self.lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        assert self.lib.aclrtSetDevice(0) == 0

    def tensor(self, array):
        array = np.ascontiguousarray(array)
        address = ctypes.c_void_p()
        assert self.lib.aclrtMalloc(ctypes.byref(address), ctypes.c_size_t(array.nbytes), 0) == 0
        assert self.lib.aclrtMemcpy(address, ctypes.c_size_t(array.nbytes), ctypes.c_void_p(array.ctypes.data),
                                    ctypes.c_size_t(array.nbytes), 1) == 0
        shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        return ctypes.c_void_p(self.lib.aclCreateTensor(shape, ctypes.c_uint64(array.ndim), dtypes.ACL_OF[array.dtype],
                                                        None, ctypes.c_int64(0), 2, shape,
                                                        ctypes.c_uint64(array.ndim), address))

    def scalar(self, value):
        raw = np.asarray(value, np.float32)
        return ctypes.c_void_p(self.lib.aclCreateScalar(ctypes.c_void_p(raw.ctypes.data), dtypes.acl("FLOAT")))

    def int_array(self, values):
        raw = (ctypes.c_int64 * len(values))(*values)
        return ctypes.c_void_p(self.lib.aclCreateIntArray(raw, ctypes.c_uint64(len(values))))

    def call(self, op, *arguments):
        """A callable running op's two phases and a sync (the workspace is allocated once)."""
        size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        phase1, phase2 = getattr(self.lib, op + "GetWorkspaceSize"), getattr(self.lib, op)
        assert phase1(*arguments, ctypes.byref(size), ctypes.byref(executor)) == 0, self.lib.aclGetRecentErrMsg()
        workspace = ctypes.c_void_p()
        if size.value:
            assert self.lib.aclrtMalloc(ctypes.byref(workspace), ctypes.c_size_t(size.value), 0) == 0
        self.lib.aclDestroyAclOpExecutor(executor)

        def once():
            phase1(*arguments, ctypes.byref(size), ctypes.byref(executor))
            assert phase2(workspace, size, executor, None) == 0, self.lib.aclGetRecentErrMsg()
            assert self.lib.aclrtSynchronizeStream(None) == 0
        return once


def pairs(acl):
    """(name, size, our call, the peer's call, peer name, target ratio)."""
    rng = np.random.default_rng(0)
    x, y, out = (rng.random(ELEMENTS, np.float32) for _ in range(3))
    grid, gamma = rng.random((ROWS, COLS), np.float32), rng.random(COLS, np.float32)
    t, tg = torch.from_numpy(grid), torch.from_numpy(gamma)
    a, b, c = (rng.random((GEMM, GEMM), np.float32) for _ in range(3))
    dx, dy, dout = acl.tensor(x), acl.tensor(y), acl.tensor(out)
    dgrid, dgamma, dgrid_out = acl.tensor(grid), acl.tensor(gamma), acl.tensor(grid)
    drow, drstd = acl.tensor(np.zeros((ROWS, 1), np.float32)), acl.tensor(np.zeros((ROWS, 1), np.float32))
    da, db, dc = acl.tensor(a), acl.tensor(b), acl.tensor(c)
    one, last = acl.scalar(1.0), acl.int_array([1])
    flat, grid_size, gemm = "16M fp32", "4096x4096 fp32", "fp32 2048^3"
    return [
        ("Add", flat, acl.call("aclnnAdd", dx, dy, one, dout), lambda: np.add(x, y, out=out), "NumPy", 1.2),
        ("Mul", flat, acl.call("aclnnMul", dx, dy, dout), lambda: np.multiply(x, y, out=out), "NumPy", 1.2),
        ("Muls", flat, acl.call("aclnnMuls", dx, one, dout), lambda: np.multiply(x, np.float32(1), out=out), "NumPy",
         1.2),
        ("Exp", flat, acl.call("aclnnExp", dx, dout), lambda: np.exp(x, out=out), "NumPy", 1.2),
        ("Relu", flat, acl.call("aclnnRelu", dx, dout), lambda: np.maximum(x, np.float32(0), out=out), "NumPy", 1.2),
        ("ReduceSum", grid_size, acl.call("aclnnReduceSum", dgrid, last, ctypes.c_bool(True), dtypes.acl("FLOAT"), drow),
         lambda: torch.sum(t, 1, keepdim=True), "PyTorch CPU", 1.2),
        ("Softmax", grid_size, acl.call("aclnnSoftmax", dgrid, ctypes.c_int64(-1), dgrid_out),
         lambda: torch.softmax(t, -1), "PyTorch CPU", 1.2),
        ("RmsNorm", grid_size, acl.call("aclnnRmsNorm", dgrid, dgamma, ctypes.c_double(1e-6), dgrid_out, drstd),
         lambda: torch.nn.functional.rms_norm(t, (COLS,), tg, 1e-6), "PyTorch CPU", 1.2),
        ("LayerNorm", grid_size, acl.call("aclnnLayerNorm", dgrid, acl.int_array([COLS]), dgamma, dgamma,
                                          ctypes.c_double(1e-5), dgrid_out, None, None),
         lambda: torch.nn.functional.layer_norm(t, (COLS,), tg, tg, 1e-5), "PyTorch CPU", 1.2),
        ("Matmul", gemm, acl.call("aclnnMatmul", da, db, dc, ctypes.c_int8(0)), lambda: np.matmul(a, b, out=c),
         "NumPy", 1.1),
    ] + math_pairs(acl, x, y, out, dx, dy, dout)


def math_pairs(acl, x, y, out, dx, dy, dout):
    """ops-math's elementwise families at 16M elements, one line each with its slowest member, against NumPy
    doing the same work (np.sinc and np.isclose are NumPy's own compositions of ufuncs)."""
    rng = np.random.default_rng(1)
    xi, yi, flags = rng.integers(-1000, 1000, ELEMENTS, np.int32), rng.integers(0, 31, ELEMENTS, np.int32), \
        np.zeros(ELEMENTS, np.bool_)
    outi = np.zeros(ELEMENTS, np.int32)
    dxi, dyi, douti, dflags = acl.tensor(xi), acl.tensor(yi), acl.tensor(outi), acl.tensor(flags)
    half, flat = acl.scalar(0.5), "16M"
    return [
        ("Sinc[transcendental]", flat + " fp32", acl.call("aclnnSinc", dx, dout), lambda: np.sinc(x), "NumPy", 1.2),
        ("Frac[rounding]", flat + " fp32", acl.call("aclnnFrac", dx, dout),
         lambda: np.subtract(x, np.trunc(x), out=out), "NumPy", 1.2),
        ("RemainderTensorTensor[division]", flat + " fp32", acl.call("aclnnRemainderTensorTensor", dx, dy, dout),
         lambda: np.remainder(x, y, out=out), "NumPy", 1.2),
        ("RightShift[bitwise]", flat + " int32", acl.call("aclnnRightShift", dxi, dyi, douti),
         lambda: np.right_shift(xi, yi, out=outi), "NumPy", 1.2),
        ("GtScalar[comparison]", flat + " fp32", acl.call("aclnnGtScalar", dx, half, dflags),
         lambda: np.greater(x, np.float32(0.5), out=flags), "NumPy", 1.2),
        ("IsClose[logical]", flat + " fp32", acl.call("aclnnIsClose", dx, dy, ctypes.c_double(1e-5),
                                                       ctypes.c_double(1e-8), ctypes.c_bool(False), dflags),
         lambda: np.isclose(x, y, 1e-5, 1e-8), "NumPy", 1.2),
    ]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(HERE / "c" / "aclnn_ops_speed.cpp", Path(tmp) / "aclnn_ops_speed")
        tiny = run(exe, "2000")
    for name, us in tiny.items():
        row("tiny aclnn %s, phase 1+2+sync (median)" % name, us, "us", target=TINY_ACLNN_US)
    for name, size, ours, theirs, peer, ratio in pairs(Acl()):
        ours_ms, theirs_ms = best_of(ours, theirs, rounds=3, calls=2)
        row("aclnn%s %s (best of 6)" % (name, size), ours_ms, "ms", target=ratio * theirs_ms, reference=theirs_ms,
            reference_name=peer)
