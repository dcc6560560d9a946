"""What the mcDNN convolution tests share: the mode, math, format and algorithm codes, the filter and convolution
descriptors, the PyTorch reference, workspaces and the geometries every routine is checked on."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

from mc import (BFLOAT16, DOUBLE, FLOAT, HALF, INT8, Desc, DeviceTensor, c_int, c_void_p, ints, lib, nhwc_strides,
                recent_error, rounded)


ALLOC_FAILED = 2
CONVOLUTION, CROSS_CORRELATION = 0, 1
DEFAULT_MATH, ALLOW_CONVERSION = 0, 2
NCHW, NHWC = 0, 1
FWD_IMPLICIT, FWD_PRECOMP, FWD_GEMM, FWD_DIRECT, FWD_FFT = 0, 1, 2, 3, 4
# rounding of the stored result only: products and sums are fp32 (fp64 for double)
TOLERANCE = {FLOAT: 1e-5, DOUBLE: 1e-12, HALF: 1e-3, BFLOAT16: 8e-3}


class PerfFwd(ctypes.Structure):
    _fields_ = [("algo", c_int), ("status", c_int), ("time", ctypes.c_float), ("memory", ctypes.c_size_t),
                ("determinism", c_int), ("mathType", c_int), ("reserved", c_int * 3)]


class Filter:
    def __init__(self, code, dims, fmt=NCHW):
        self.code, self.dims, self.format = code, tuple(dims), fmt
        self.handle = c_void_p()
        assert lib().mcdnnCreateFilterDescriptor(ctypes.byref(self.handle)) == 0
        assert lib().mcdnnSetFilterNdDescriptor(self.handle, code, fmt, len(dims), ints(dims)) == 0, recent_error()
        # the filter's storage as a tensor view: NHWC is K, spatial…, C
        self.strides = nhwc_strides(dims) if fmt == NHWC else Desc(code, dims).strides
        self.span = int(np.prod(dims))

    def __del__(self):
        lib().mcdnnDestroyFilterDescriptor(self.handle)


class Conv:
    def __init__(self, pad, stride, dilation, mode=CROSS_CORRELATION, compute=FLOAT, groups=1, math=DEFAULT_MATH):
        self.handle = c_void_p()
        assert lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(self.handle)) == 0
        assert lib().mcdnnSetConvolutionNdDescriptor(self.handle, len(pad), ints(pad), ints(stride), ints(dilation),
                                                     mode, compute) == 0, recent_error()
        assert lib().mcdnnSetConvolutionGroupCount(self.handle, groups) == 0
        assert lib().mcdnnSetConvolutionMathType(self.handle, math) == 0

    def __del__(self):
        lib().mcdnnDestroyConvolutionDescriptor(self.handle)


def device_filter(f, values):
    return DeviceTensor(f, values)


def out_dims(x_desc, f, conv):
    dims = ints([0] * len(x_desc.dims))
    assert lib().mcdnnGetConvolutionNdForwardOutputDim(conv.handle, x_desc.handle, f.handle, len(x_desc.dims),
                                                       dims) == 0, recent_error()
    return tuple(dims[:len(x_desc.dims)])


def torch_conv(x, w, pad, stride, dilation, groups, mode):
    conv = F.conv2d if x.ndim == 4 else F.conv3d
    if mode == CONVOLUTION:
        w = np.flip(w, axis=tuple(range(2, w.ndim))).copy()
    return conv(torch.from_numpy(x), torch.from_numpy(w), stride=stride, padding=pad, dilation=dilation,
                groups=groups).numpy()


def workspace(size):
    return DeviceTensor(Desc(INT8, (1, 1, max(size, 1))), fill=0) if size else None


def ws_size(name, handle, descs, algo):
    size = ctypes.c_size_t()
    rc = getattr(lib(), name)(handle, *descs, algo, ctypes.byref(size))
    return rc, size.value


CASES = [  # x dims, k, window, pad, stride, dilation, groups
    ((2, 4, 9, 8), 6, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 4, 9, 8), 6, (3, 2), (0, 1), (2, 1), (1, 2), 2),
    ((1, 6, 7, 7), 6, (3, 3), (1, 1), (1, 1), (1, 1), 6),       # depthwise
    ((2, 4, 11, 10), 8, (3, 3), (2, 2), (2, 3), (2, 2), 4),
    ((2, 3, 5, 6, 5), 4, (3, 2, 3), (1, 0, 1), (1, 2, 1), (1, 1, 2), 1),   # 3-D
    ((3, 4, 9, 8), 6, (3, 2), (2, 0), (1, 1), (2, 3), 2),       # unit stride: the grid layout
    ((2, 3, 5, 6, 5), 4, (3, 2, 3), (1, 0, 1), (1, 1, 1), (1, 2, 1), 1),
    ((2, 4, 5, 6), 8, (1, 1), (0, 0), (1, 1), (1, 1), 1),
    ((2, 2, 4, 7), 4, (1, 3), (0, 2), (1, 1), (1, 1), 1),       # one outer window position
]
CASE_IDS = ["3x3", "strided-dilated-groups", "depthwise", "all", "3d", "unit-stride-dilated-groups",
            "3d-unit-stride", "1x1", "1x3"]


def make(code, case, mode, fmt=NCHW, seed=0):
    xdims, k, window, pad, stride, dilation, groups = case
    rng = np.random.default_rng(seed)
    wdims = (k, xdims[1] // groups) + window
    x = rounded(rng.standard_normal(xdims), code)
    w = rounded(rng.standard_normal(wdims), code)
    xs = nhwc_strides(xdims) if fmt == NHWC else None
    x_desc = Desc(code, xdims, xs)
    f = Filter(code, wdims, fmt)
    conv = Conv(pad, stride, dilation, mode, DOUBLE if code == DOUBLE else FLOAT, groups)
    ydims = out_dims(x_desc, f, conv)
    y_desc = Desc(code, ydims, nhwc_strides(ydims) if fmt == NHWC else None)
    return x, w, x_desc, f, conv, y_desc
