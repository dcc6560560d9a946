"""ops-nn's norm/, matmul/ and quant/ families: one line each for the slowest member measured, large calls
through the C ABI in this process against PyTorch CPU (norms), the GEMM floor (the cube forms: NumPy's matmul
of the same operands) or dequantise+GEMM (the quantised forms: NumPy widening the weight and multiplying), and
the host cost of tiny two-phase calls (from ctypes, phase 1 + phase 2 + sync)."""
import ctypes
import ml_dtypes
import numpy as np
import torch

from aclnn_ops import Acl
from common import best_of, median_seconds, row
from opemu.core import dtypes

TINY_US = 20


class Tensors(Acl):
    """Acl with tensors of any dtype code and strides."""

    def typed(self, array, code=None, shape=None, strides=None):
        array = np.ascontiguousarray(array)
        address = ctypes.c_void_p()
        assert self.lib.aclrtMalloc(ctypes.byref(address), ctypes.c_size_t(max(array.nbytes, 1)), 0) == 0
        assert self.lib.aclrtMemcpy(address, ctypes.c_size_t(array.nbytes), ctypes.c_void_p(array.ctypes.data),
                                    ctypes.c_size_t(array.nbytes), 1) == 0
        shape = tuple(array.shape if shape is None else shape)
        dims = (ctypes.c_int64 * len(shape))(*shape)
        stride_arg = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        storage = (ctypes.c_int64 * 1)(array.size)
        code = dtypes.ACL_OF[array.dtype] if code is None else code
        return ctypes.c_void_p(self.lib.aclCreateTensor(dims, ctypes.c_uint64(len(shape)), code, stride_arg,
                                                        ctypes.c_int64(0), 2, storage, ctypes.c_uint64(1), address))

    def bools(self, values):
        self.lib.aclCreateBoolArray.restype = ctypes.c_void_p
        raw = (ctypes.c_bool * len(values))(*values)
        return ctypes.c_void_p(self.lib.aclCreateBoolArray(raw, ctypes.c_uint64(len(values))))


def norm_pairs(acl, rng):
    f = np.float32
    x = rng.standard_normal((4096, 4096)).astype(f)
    x2 = rng.standard_normal((4096, 4096)).astype(f)
    gamma = rng.standard_normal(4096).astype(f)
    t, t2, tg = torch.from_numpy(x), torch.from_numpy(x2), torch.from_numpy(gamma)
    dx, dx2, dg, dy, dsum = acl.tensor(x), acl.tensor(x2), acl.tensor(gamma), acl.tensor(x), acl.tensor(x)
    drstd, dmean = acl.tensor(np.zeros((4096, 1), f)), acl.tensor(np.zeros((4096, 1), f))
    g4 = rng.standard_normal((16, 256, 64, 64)).astype(f)
    gg, gb = rng.standard_normal(256).astype(f), rng.standard_normal(256).astype(f)
    dg4, dgg, dgb, dgo = acl.tensor(g4), acl.tensor(gg), acl.tensor(gb), acl.tensor(g4)
    dgm, dgr = acl.tensor(np.zeros((16, 32), f)), acl.tensor(np.zeros((16, 32), f))
    tg4, tgg, tgb = torch.from_numpy(g4), torch.from_numpy(gg), torch.from_numpy(gb)
    rm, rv = np.zeros(256, f), np.ones(256, f)
    drm, drv, dsm, dsi = acl.tensor(rm), acl.tensor(rv), acl.tensor(rm), acl.tensor(rv)
    trm, trv = torch.zeros(256), torch.ones(256)
    size, grid = "4096x4096 fp32", "16x256x64x64 fp32"
    mean, rstd = t.mean(1, keepdim=True), torch.rsqrt(t.var(1, unbiased=False, keepdim=True) + 1e-5)
    dlm, dlr, dgw, dgb2 = acl.tensor(mean.numpy()), acl.tensor(rstd.numpy()), acl.tensor(gamma), acl.tensor(gamma)
    bmean = tg4.mean((0, 2, 3))
    binv = torch.rsqrt(tg4.var((0, 2, 3), unbiased=False) + 1e-5)
    dbm, dbi, dgw4, dgb4 = acl.tensor(bmean.numpy()), acl.tensor(binv.numpy()), acl.tensor(gg), acl.tensor(gb)
    three = acl.bools([True, True, True])
    return [
        ("AddRmsNorm", size, acl.call("aclnnAddRmsNorm", dx, dx2, dg, ctypes.c_double(1e-6), dy, drstd, dsum),
         lambda: torch.nn.functional.rms_norm(t + t2, (4096,), tg, 1e-6)),
        ("AddLayerNorm", size, acl.call("aclnnAddLayerNorm", dx, dx2, dg, dg, None, ctypes.c_double(1e-5),
                                        ctypes.c_bool(True), dy, dmean, drstd, dsum),
         lambda: torch.nn.functional.layer_norm(t + t2, (4096,), tg, tg, 1e-5)),
        ("GroupNorm", grid, acl.call("aclnnGroupNorm", dg4, dgg, dgb, ctypes.c_int64(16), ctypes.c_int64(256),
                                     ctypes.c_int64(4096), ctypes.c_int64(32), ctypes.c_double(1e-5), dgo, dgm, dgr),
         lambda: torch.nn.functional.group_norm(tg4, 32, tgg, tgb, 1e-5)),
        ("BatchNorm training", grid, acl.call("aclnnBatchNorm", dg4, dgg, dgb, drm, drv, ctypes.c_bool(True),
                                              ctypes.c_double(0.1), ctypes.c_double(1e-5), dgo, dsm, dsi),
         lambda: torch.nn.functional.batch_norm(tg4, trm, trv, tgg, tgb, True, 0.1, 1e-5)),
        ("LayerNormBackward", size, acl.call("aclnnLayerNormBackward", dx2, dx, acl.int_array([4096]), dlm, dlr, dg,
                                             None, three, dy, dgw, dgb2),
         lambda: torch.ops.aten.native_layer_norm_backward(t2, t, (4096,), mean, rstd, tg, tg, [True, True, True])),
        ("BatchNormBackward", grid, acl.call("aclnnBatchNormBackward", dg4, dg4, dgg, None, None, dbm, dbi,
                                             ctypes.c_bool(True), ctypes.c_double(1e-5), three, dgo, dgw4, dgb4),
         lambda: torch.ops.aten.native_batch_norm_backward(tg4, tg4, tgg, None, None, bmean, binv, True, 1e-5,
                                                            [True, True, True])),
    ]


def matmul_pairs(acl, rng):
    f, h = np.float32, np.float16
    b1 = rng.standard_normal((8, 512, 512)).astype(f)
    b2 = rng.standard_normal((8, 512, 512)).astype(f)
    s = rng.standard_normal((8, 512, 512)).astype(f)
    out = np.empty_like(s)
    one = acl.scalar(1.0)
    d1, d2, ds, do = acl.tensor(b1), acl.tensor(b2), acl.tensor(s), acl.tensor(out)
    m, k, n = 256, 4096, 4096
    x = rng.standard_normal((m, k)).astype(h)
    w = rng.integers(-128, 128, (k, n)).astype(np.int8)
    scale = rng.uniform(0.001, 0.01, n).astype(h)
    y = np.empty((m, n), h)
    dxq, dw, dscale, dyq = acl.tensor(x), acl.tensor(w), acl.tensor(scale), acl.tensor(y)
    x32 = x.astype(f)

    def dequantise_gemm():
        return np.matmul(x32, w.astype(f) * scale.astype(f))
    x1 = rng.integers(-128, 128, (1024, k)).astype(np.int8)
    qscale, token = rng.uniform(1e-4, 1e-3, n).astype(f), rng.uniform(0.5, 2, 1024).astype(f)
    out_q = np.empty((1024, n), ml_dtypes.bfloat16)
    dx1, dqs, dtok, doq = acl.tensor(x1), acl.tensor(qscale), acl.tensor(token), acl.tensor(out_q)

    def int_gemm_floor():
        return np.matmul(x1.astype(f), w.astype(f))
    return [
        ("Baddbmm", "8x512^3 fp32", acl.call("aclnnBaddbmm", ds, d1, d2, one, one, do, ctypes.c_int8(0)),
         lambda: np.matmul(b1, b2, out=out), "GEMM floor", 1.1),
        ("WeightQuantBatchMatmulV2", "int8 256x4096x4096 fp16",
         acl.call("aclnnWeightQuantBatchMatmulV2", dxq, dw, dscale, None, None, None, None, ctypes.c_int(0), dyq),
         dequantise_gemm, "dequantise+GEMM", 1.5),
        ("QuantMatmulV4", "int8 1024x4096x4096 bf16",
         acl.call("aclnnQuantMatmulV4", dx1, dw, dqs, None, dtok, None, ctypes.c_bool(False), ctypes.c_bool(False),
                  doq), int_gemm_floor, "dequantise+GEMM", 1.5),
    ]


def tiny_calls(acl, rng):
    f, h = np.float32, np.float16
    x, g = acl.tensor(np.ones((4, 8), f)), acl.tensor(np.ones(8, f))
    y, r, xo = acl.tensor(np.ones((4, 8), f)), acl.tensor(np.ones((4, 1), f)), acl.tensor(np.ones((4, 8), f))
    xg, gg = acl.tensor(np.ones((2, 4, 4), f)), acl.tensor(np.ones(4, f))
    yg, mg, rg = acl.tensor(np.ones((2, 4, 4), f)), acl.tensor(np.ones((2, 2), f)), acl.tensor(np.ones((2, 2), f))
    xh, yq, sq = acl.tensor(np.ones((4, 8), h)), acl.tensor(np.ones((4, 8), np.int8)), acl.tensor(np.ones(4, f))
    w, ws, yw = acl.tensor(np.ones((8, 8), np.int8)), acl.tensor(np.ones(8, h)), acl.tensor(np.ones((4, 8), h))
    return [
        ("AddRmsNorm", acl.call("aclnnAddRmsNorm", x, x, g, ctypes.c_double(1e-6), y, r, xo)),
        ("GroupNorm", acl.call("aclnnGroupNorm", xg, gg, gg, ctypes.c_int64(2), ctypes.c_int64(4), ctypes.c_int64(4),
                               ctypes.c_int64(2), ctypes.c_double(1e-5), yg, mg, rg)),
        ("DynamicQuant", acl.call("aclnnDynamicQuant", xh, None, yq, sq)),
        ("WeightQuantBatchMatmulV2", acl.call("aclnnWeightQuantBatchMatmulV2", xh, w, ws, None, None, None, None,
                                              ctypes.c_int(0), yw)),
    ]


def main():
    acl, rng = Tensors(), np.random.default_rng(0)
    for name, call in tiny_calls(acl, rng):
        row("tiny aclnn%s from ctypes, phase 1+2+sync (median)" % name, median_seconds(call, 400, 20) * 1e6, "us",
            target=TINY_US)
    for name, size, ours, theirs in norm_pairs(acl, rng):
        ours_ms, theirs_ms = best_of(ours, theirs, rounds=3, calls=2)
        row("aclnn%s %s (best of 6)" % (name, size), ours_ms, "ms", reference=theirs_ms,
            reference_name="PyTorch CPU", ratio=1.2)
    for name, size, ours, theirs, peer, ratio in matmul_pairs(acl, rng):
        ours_ms, theirs_ms = best_of(ours, theirs, rounds=3, calls=2)
        row("aclnn%s %s (best of 6)" % (name, size), ours_ms, "ms", reference=theirs_ms, reference_name=peer,
            ratio=ratio)


if __name__ == "__main__":
    main()
