"""mcDNN batch normalization, dropout and spatial transformer at N=32, C=64, H=W=56 fp32 against their PyTorch
CPU equivalents. Targets: BN forward training + backward <= 0.8x torch (native_batch_norm and its
backward), every backward routine <= 1.2x torch (BN backward, sampler backward vs grid_sampler_2d_backward). Driven through the real C ABI in-process (ctypes) on
the default stream, each call followed by mcStreamSynchronize; the rest is printed for information."""
import ctypes

import numpy as np
import torch

from common import best_of, row
from mcdnn import check, descriptor, device, lib

N, C, H, W = 32, 64, 56, 56
BN_TARGET, BACKWARD_TARGET = 0.8, 1.2


def compare(name, ours, theirs, target=None):
    mine, peer = best_of(ours, theirs)
    row(name, mine, "ms", reference=peer, reference_name="torch", ratio=target)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32) * 2 + 0.5
    dy = rng.standard_normal((N, C, H, W)).astype(np.float32)
    xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
    h = ctypes.c_void_p()
    check(lib().mcdnnCreate(ctypes.byref(h)), "mcdnnCreate")
    sync = lib().mcStreamSynchronize
    sync.argtypes = [ctypes.c_void_p]
    one, zero = ctypes.byref(ctypes.c_float(1)), ctypes.byref(ctypes.c_float(0))
    d = descriptor((N, C, H, W))
    p = descriptor((1, C, 1, 1))
    X, DY, Y, DX = device(x), device(dy), device(x), device(np.zeros_like(x))
    weight, bias = np.ones(C, np.float32) * 1.5, np.full(C, 0.25, np.float32)
    S, B, RM, RV, SM, SI, DS, DB = (device(v) for v in (weight, bias, np.zeros(C), np.ones(C), np.zeros(C),
                                                        np.zeros(C), np.zeros(C), np.zeros(C)))
    eps, factor = ctypes.c_double(1e-5), ctypes.c_double(0.1)
    print("BN forward training + backward target <= %.1f, backward routines <= %.1f (torch on %d threads)"
          % (BN_TARGET, BACKWARD_TARGET, torch.get_num_threads()), flush=True)

    def bn_forward():
        check(lib().mcdnnBatchNormalizationForwardTraining(h, 1, one, zero, d, X, d, Y, p, S, B, factor, RM, RV, eps,
                                                           SM, SI), "BatchNormalizationForwardTraining")
        sync(None)

    def bn_backward():
        check(lib().mcdnnBatchNormalizationBackward(h, 1, one, zero, one, zero, d, X, d, DY, d, DX, p, S, DS, DB, eps,
                                                    SM, SI), "BatchNormalizationBackward")
        sync(None)

    wt, bt = torch.from_numpy(weight), torch.from_numpy(bias)
    rmt, rvt = torch.zeros(C), torch.ones(C)
    saved = {}

    def torch_forward():
        saved["out"] = torch.ops.aten.native_batch_norm(xt, wt, bt, rmt, rvt, True, 0.1, 1e-5)

    def torch_backward():
        _, mean, invstd = saved["out"]
        torch.ops.aten.native_batch_norm_backward(dyt, xt, wt, rmt, rvt, mean, invstd, True, 1e-5,
                                                  [True, True, True])

    compare("BN forward training + backward (spatial)", lambda: (bn_forward(), bn_backward()),
            lambda: (torch_forward(), torch_backward()), BN_TARGET)
    compare("  of which mcdnnBatchNormalizationForwardTraining", bn_forward, torch_forward)
    compare("  of which mcdnnBatchNormalizationBackward", bn_backward, torch_backward, BACKWARD_TARGET)

    def bn_inference():
        check(lib().mcdnnBatchNormalizationForwardInference(h, 1, one, zero, d, X, d, Y, p, S, B, RM, RV, eps),
              "BatchNormalizationForwardInference")
        sync(None)
    compare("mcdnnBatchNormalizationForwardInference", bn_inference,
            lambda: torch.ops.aten.native_batch_norm(xt, wt, bt, rmt, rvt, False, 0.1, 1e-5))

    # the backward on channels-innermost (NHWC) tensors, against torch's on channels_last ones
    nhwc = ctypes.c_void_p()
    check(lib().mcdnnCreateTensorDescriptor(ctypes.byref(nhwc)), "mcdnnCreateTensorDescriptor")
    check(lib().mcdnnSetTensor4dDescriptor(nhwc, 1, 0, N, C, H, W), "mcdnnSetTensor4dDescriptor NHWC")
    xl, dyl = (np.ascontiguousarray(a.transpose(0, 2, 3, 1)) for a in (x, dy))
    XL, DYL, DXL = device(xl), device(dyl), device(np.zeros_like(xl))

    def bn_backward_nhwc():
        check(lib().mcdnnBatchNormalizationBackward(h, 1, one, zero, one, zero, nhwc, XL, nhwc, DYL, nhwc, DXL, p, S, DS,
                                                    DB, eps, SM, SI), "BatchNormalizationBackward NHWC")
        sync(None)

    xtl, dytl = (torch.from_numpy(a).permute(0, 3, 1, 2) for a in (xl, dyl))

    def torch_backward_nhwc():
        _, mean, invstd = saved["out"]
        torch.ops.aten.native_batch_norm_backward(dytl, xtl, wt, rmt, rvt, mean, invstd, True, 1e-5,
                                                  [True, True, True])
    compare("mcdnnBatchNormalizationBackward NHWC", bn_backward_nhwc, torch_backward_nhwc, BACKWARD_TARGET)

    # dropout p = 0.5
    dropout = ctypes.c_void_p()
    check(lib().mcdnnCreateDropoutDescriptor(ctypes.byref(dropout)), "create dropout")
    size = ctypes.c_size_t()
    check(lib().mcdnnDropoutGetStatesSize(h, ctypes.byref(size)), "states size")
    states = device(np.zeros(size.value // 4 + 1, np.float32))
    lib().mcdnnSetDropoutDescriptor.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_void_p,
                                                ctypes.c_size_t, ctypes.c_ulonglong]
    check(lib().mcdnnSetDropoutDescriptor(dropout, h, 0.5, states, size.value, 1), "set dropout")
    check(lib().mcdnnDropoutGetReserveSpaceSize(d, ctypes.byref(size)), "reserve size")
    reserve, reserve_bytes = device(np.zeros(size.value // 4 + 1, np.float32)), ctypes.c_size_t(size.value)

    def dropout_forward():
        check(lib().mcdnnDropoutForward(h, dropout, d, X, d, Y, reserve, reserve_bytes), "DropoutForward")
        sync(None)
    compare("mcdnnDropoutForward p=0.5", dropout_forward, lambda: torch.ops.aten.native_dropout(xt, 0.5, True))
    _, mask = torch.ops.aten.native_dropout(xt, 0.5, True)

    def dropout_backward():
        check(lib().mcdnnDropoutBackward(h, dropout, d, DY, d, DX, reserve, reserve_bytes), "DropoutBackward")
        sync(None)
    compare("mcdnnDropoutBackward p=0.5", dropout_backward,
            lambda: torch.ops.aten.native_dropout_backward(dyt, mask, 2.0), BACKWARD_TARGET)

    # spatial transformer: output N x C x H x W sampled from the input, an affine jitter around identity
    st = ctypes.c_void_p()
    check(lib().mcdnnCreateSpatialTransformerDescriptor(ctypes.byref(st)), "create spatial transformer")
    check(lib().mcdnnSetSpatialTransformerNdDescriptor(st, 0, 0, 4, (ctypes.c_int * 4)(N, C, H, W)), "set st")
    theta = (rng.standard_normal((N, 2, 3)) * 0.1 + np.array([[1, 0, 0], [0, 1, 0]])).astype(np.float32)
    TH, G, DG = device(theta), device(np.zeros((N, H, W, 2))), device(np.zeros((N, H, W, 2)))
    check(lib().mcdnnSpatialTfGridGeneratorForward(h, st, TH, G), "GridGeneratorForward")
    grid = torch.nn.functional.affine_grid(torch.from_numpy(theta), (N, C, H, W), align_corners=True)

    def sampler_backward():
        check(lib().mcdnnSpatialTfSamplerBackward(h, st, one, d, X, zero, d, DX, one, d, DY, G, zero, DG),
              "SpatialTfSamplerBackward")
        sync(None)
    compare("mcdnnSpatialTfSamplerBackward (dx and dgrid)", sampler_backward,
            lambda: torch.ops.aten.grid_sampler_2d_backward(dyt, xt, grid, 0, 0, True, [True, True]),
            BACKWARD_TARGET)

    def sampler_forward():
        check(lib().mcdnnSpatialTfSamplerForward(h, st, one, d, X, G, zero, d, Y), "SpatialTfSamplerForward")
        sync(None)
    compare("mcdnnSpatialTfSamplerForward", sampler_forward,
            lambda: torch.ops.aten.grid_sampler_2d(xt, grid, 0, 0, True))
    lib().mcdnnDestroy(h)


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
