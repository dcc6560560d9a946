"""mcDNN convolutions at N=32, C=K=64, H=W=56 fp32 against PyTorch CPU: forward, backward data and
backward filter of a 3x3 convolution (target: each <= 1.5x torch), and the same for 1x1 and a 3x3
depthwise convolution (listed). Driven through the real C ABI in-process (ctypes) with each direction's
GEMM algorithm and its workspace, on the default stream."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

from common import best_of, row
from mcdnn import check, descriptor, device, lib

N, C, H, W = 32, 64, 56, 56
TARGET = 1.5
CONFIGS = [("3x3", 3, 1, 1), ("1x1", 1, 0, 1), ("3x3 depthwise", 3, 1, C)]   # name, window, pad, groups


def ints(values):
    return (ctypes.c_int * len(values))(*values)


def filter_descriptor(dims):
    f = ctypes.c_void_p()
    check(lib().mcdnnCreateFilterDescriptor(ctypes.byref(f)), "mcdnnCreateFilterDescriptor")
    check(lib().mcdnnSetFilter4dDescriptor(f, 0, 0, *dims), "mcdnnSetFilter4dDescriptor")
    return f


def convolution_descriptor(pad, groups):
    c = ctypes.c_void_p()
    check(lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(c)), "mcdnnCreateConvolutionDescriptor")
    check(lib().mcdnnSetConvolution2dDescriptor(c, pad, pad, 1, 1, 1, 1, 1, 0), "mcdnnSetConvolution2dDescriptor")
    check(lib().mcdnnSetConvolutionGroupCount(c, groups), "mcdnnSetConvolutionGroupCount")
    return c


def workspace(query, *args):
    size = ctypes.c_size_t()
    check(query(*args, ctypes.byref(size)), "workspace size")
    p = ctypes.c_void_p()
    if size.value:
        check(lib().mcMalloc(ctypes.byref(p), size.value), "mcMalloc")
    return p, ctypes.c_size_t(size.value)


def main():
    rng = np.random.default_rng(0)
    h = ctypes.c_void_p()
    check(lib().mcdnnCreate(ctypes.byref(h)), "mcdnnCreate")
    one, zero = ctypes.byref(ctypes.c_float(1)), ctypes.byref(ctypes.c_float(0))
    sync = lib().mcStreamSynchronize
    sync.argtypes = [ctypes.c_void_p]
    print("target: 3x3 ratios <= %.1f (torch on %d threads)" % (TARGET, torch.get_num_threads()), flush=True)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    dy = rng.standard_normal((N, C, H, W)).astype(np.float32)
    xd = descriptor((N, C, H, W))
    X, DY, Y, DX = device(x), device(dy), device(np.zeros_like(x)), device(np.zeros_like(x))
    xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
    for name, r, pad, groups in CONFIGS:
        w = rng.standard_normal((C, C // groups, r, r)).astype(np.float32)
        wt = torch.from_numpy(w)
        fd, cd = filter_descriptor((C, C // groups, r, r)), convolution_descriptor(pad, groups)
        Wd, DW = device(w), device(np.zeros_like(w))
        fws = workspace(lib().mcdnnGetConvolutionForwardWorkspaceSize, h, xd, fd, cd, xd, 2)
        dws = workspace(lib().mcdnnGetConvolutionBackwardDataWorkspaceSize, h, fd, xd, cd, xd, 1)
        wws = workspace(lib().mcdnnGetConvolutionBackwardFilterWorkspaceSize, h, xd, xd, cd, fd, 1)

        def forward():
            check(lib().mcdnnConvolutionForward(h, one, xd, X, fd, Wd, cd, 2, *fws, zero, xd, Y), "forward")
            sync(None)

        def backward_data():
            check(lib().mcdnnConvolutionBackwardData(h, one, fd, Wd, xd, DY, cd, 1, *dws, zero, xd, DX), "bwd data")
            sync(None)

        def backward_filter():
            check(lib().mcdnnConvolutionBackwardFilter(h, one, xd, X, xd, DY, cd, 1, *wws, zero, fd, DW), "bwd filter")
            sync(None)

        peers = (lambda: F.conv2d(xt, wt, padding=pad, groups=groups),
                 lambda: torch.ops.aten.convolution_backward(dyt, xt, wt, None, [1, 1], [pad, pad], [1, 1], False,
                                                             [0, 0], groups, [True, False, False]),
                 lambda: torch.ops.aten.convolution_backward(dyt, xt, wt, None, [1, 1], [pad, pad], [1, 1], False,
                                                             [0, 0], groups, [False, True, False]))
        for direction, ours, theirs in zip(("forward", "backward data", "backward filter"),
                                           (forward, backward_data, backward_filter), peers):
            mine, peer = best_of(ours, theirs, rounds=2, calls=3)
            row("conv %s %s" % (name, direction), mine, "ms", reference=peer, reference_name="torch",
                ratio=TARGET if name == "3x3" else None)
