"""The vectorised int8 layout NCHW_VECT_C (INT8x4, UINT8x4, INT8x32) and the integer convolutions: descriptors
and their size queries, TransformTensor(Ex) between NCHW/NHWC INT8 and NCHW_VECT_C, the int8 configurations of
mcdnnConvolutionForward and mcdnnConvolutionBiasActivationForward against PyTorch's float64 convolution
(exact integer sums, then cuDNN's round-to-nearest and saturation), and the statuses of the refused ones."""
import ctypes

import numpy as np
import pytest
import torch

from conftest import opemu_only
from mc import (BAD_PARAM, FLOAT, INT32, INT8, NOT_SUPPORTED, SUCCESS, UINT8, Desc, INT8x32, INT8x4, UINT8x4, c_void_p,
                handle, ints, lib, nhwc_strides, recent_error, scale)

pytestmark = [opemu_only]
assert handle
NCHW, NHWC, VECT_C = 0, 1, 2
IMPLICIT_GEMM, PRECOMP_GEMM, GEMM = 0, 1, 2
CROSS_CORRELATION = 1
VECTOR = {INT8x4: 4, UINT8x4: 4, INT8x32: 32}


def tensor_desc(code, dims, fmt=VECT_C):
    d = c_void_p()
    assert lib().mcdnnCreateTensorDescriptor(ctypes.byref(d)) == 0
    status = lib().mcdnnSetTensorNdDescriptorEx(d, fmt, code, len(dims), ints(dims))
    assert status == SUCCESS, recent_error()
    return d


def filter_desc(code, dims, fmt=VECT_C):
    d = c_void_p()
    assert lib().mcdnnCreateFilterDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetFilterNdDescriptor(d, code, fmt, len(dims), ints(dims)) == SUCCESS, recent_error()
    return d


def conv_desc(pad=1, stride=1, compute=INT32):
    d = c_void_p()
    assert lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetConvolution2dDescriptor(d, pad, pad, stride, stride, 1, 1, CROSS_CORRELATION, compute) == 0
    return d


class Buffer:
    """Device memory holding a host array's bytes."""

    def __init__(self, array):
        self.host = np.ascontiguousarray(array)
        self.address = c_void_p()
        assert lib().mcMalloc(ctypes.byref(self.address), max(self.host.nbytes, 1)) == 0
        assert lib().mcMemcpy(self.address, self.host.ctypes.data, self.host.nbytes, 1) == 0

    def read(self):
        out = np.empty_like(self.host)
        assert lib().mcDeviceSynchronize() == 0
        assert lib().mcMemcpy(out.ctypes.data, self.address, out.nbytes, 2) == 0
        return out

    def __del__(self):
        lib().mcFree(self.address)


def to_vect(values, v):
    """(N, C, H, W) -> the NCHW_VECT_C bytes (N, C/v, H, W, v)."""
    n, c = values.shape[:2]
    return np.ascontiguousarray(np.moveaxis(values.reshape((n, c // v, v) + values.shape[2:]), 2, -1))


def from_vect(stored, v):
    n, groups = stored.shape[:2]
    return np.moveaxis(stored, -1, 2).reshape((n, groups * v) + stored.shape[2:-1])


def saturate(values, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.rint(values), info.min, info.max).astype(dtype)


# ---- descriptors ----

@pytest.mark.parametrize("code", [INT8x4, UINT8x4, INT8x32])
def test_vect_c_descriptor_strides_count_vectors_and_size_counts_bytes(code):
    v = VECTOR[code]
    n, c, h, w = 2, 2 * v, 3, 5
    d = c_void_p()
    assert lib().mcdnnCreateTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetTensor4dDescriptor(d, VECT_C, code, n, c, h, w) == SUCCESS, recent_error()
    out = [ctypes.c_int() for _ in range(9)]
    assert lib().mcdnnGetTensor4dDescriptor(d, *[ctypes.byref(o) for o in out]) == SUCCESS
    assert [o.value for o in out] == [code, n, c, h, w, (c // v) * h * w, h * w, w, 1]
    size = ctypes.c_size_t()
    assert lib().mcdnnGetTensorSizeInBytes(d, ctypes.byref(size)) == SUCCESS
    assert size.value == n * c * h * w
    five = tensor_desc(code, [1, v, 2, 3, 4])
    assert lib().mcdnnGetTensorSizeInBytes(five, ctypes.byref(size)) == SUCCESS and size.value == v * 24


def test_vect_c_filter_size_counts_bytes():
    wd = filter_desc(INT8x32, [4, 64, 3, 3])
    size = ctypes.c_size_t()
    assert lib().mcdnnGetFilterSizeInBytes(wd, ctypes.byref(size)) == SUCCESS and size.value == 4 * 64 * 9


@pytest.mark.parametrize("code, fmt, c", [(FLOAT, VECT_C, 8), (INT8, VECT_C, 8), (INT8x4, NCHW, 8),
                                          (INT8x4, NHWC, 8), (INT8x4, VECT_C, 6), (INT8x32, VECT_C, 16)])
def test_vect_c_and_vector_types_go_together_with_whole_vectors_else_bad_param(code, fmt, c):
    d = c_void_p()
    assert lib().mcdnnCreateTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetTensor4dDescriptor(d, fmt, code, 1, c, 2, 2) == BAD_PARAM
    assert lib().mcdnnSetTensorNdDescriptorEx(d, fmt, code, 4, ints([1, c, 2, 2])) == BAD_PARAM
    w = c_void_p()
    assert lib().mcdnnCreateFilterDescriptor(ctypes.byref(w)) == 0
    assert lib().mcdnnSetFilter4dDescriptor(w, code, fmt, 4, c, 3, 3) == BAD_PARAM


def test_explicit_strides_of_a_vector_type_need_whole_vectors():
    d = c_void_p()
    assert lib().mcdnnCreateTensorDescriptor(ctypes.byref(d)) == 0
    assert lib().mcdnnSetTensorNdDescriptor(d, INT8x4, 4, ints([1, 6, 2, 2]), ints([8, 4, 2, 1])) == BAD_PARAM
    assert lib().mcdnnSetTensorNdDescriptor(d, INT8x4, 4, ints([1, 8, 2, 2]), ints([8, 4, 2, 1])) == SUCCESS


# ---- transforms ----

@pytest.mark.parametrize("code, source_format", [(INT8x4, NCHW), (INT8x32, NCHW), (INT8x4, NHWC)])
def test_transform_tensor_to_vect_c_and_back(handle, code, source_format):
    v = VECTOR[code]
    rng = np.random.default_rng(v)
    values = rng.integers(-128, 128, (2, 2 * v, 3, 4), dtype=np.int8)
    dims = list(values.shape)
    plain = tensor_desc(INT8, dims, source_format)
    host = np.ascontiguousarray(values.transpose(0, 2, 3, 1)) if source_format == NHWC else values
    src, vect = Buffer(host), Buffer(np.zeros(values.size, np.int8))
    vd = tensor_desc(code, dims)
    one, zero = scale(1.0, FLOAT), scale(0.0, FLOAT)
    assert lib().mcdnnTransformTensor(handle, one, plain, src.address, zero, vd, vect.address) == SUCCESS, recent_error()
    np.testing.assert_array_equal(vect.read().reshape(to_vect(values, v).shape), to_vect(values, v))
    back = Buffer(np.zeros_like(host))
    assert lib().mcdnnTransformTensor(handle, one, vd, vect.address, zero, plain, back.address) == SUCCESS
    np.testing.assert_array_equal(back.read(), host)


def test_transform_tensor_rounds_and_saturates_the_scaled_values(handle):
    values = np.arange(-64, 64, dtype=np.int8).reshape(2, 8, 2, 4)
    prior = np.full(values.shape, 3, np.int8)
    src, dst = Buffer(values), Buffer(to_vect(prior, 4))
    status = lib().mcdnnTransformTensor(handle, scale(2.5, FLOAT), tensor_desc(INT8, list(values.shape), NCHW),
                                        src.address, scale(0.5, FLOAT), tensor_desc(INT8x4, list(values.shape)),
                                        dst.address)
    assert status == SUCCESS, recent_error()
    expected = saturate(2.5 * values.astype(np.float64) + 0.5 * prior, np.int8)
    np.testing.assert_array_equal(from_vect(dst.read(), 4), expected)


def test_transform_tensor_between_families_is_bad_param(handle):
    dims = [1, 4, 2, 2]
    a, b = Buffer(np.zeros(16, np.uint8)), Buffer(np.zeros(16, np.int8))
    assert lib().mcdnnTransformTensor(handle, scale(1.0, FLOAT), tensor_desc(UINT8, dims, NCHW), a.address,
                                      scale(0.0, FLOAT), tensor_desc(INT8x4, dims), b.address) == BAD_PARAM
    f = Buffer(np.zeros(16, np.float32))
    assert lib().mcdnnTransformTensor(handle, scale(1.0, FLOAT), tensor_desc(FLOAT, dims, NCHW), f.address,
                                      scale(0.0, FLOAT), tensor_desc(INT8x4, dims), b.address) == BAD_PARAM


def test_transform_tensor_ex_pads_the_channels_to_whole_vectors(handle):
    values = np.arange(1, 2 * 3 * 2 * 2 + 1, dtype=np.int8).reshape(2, 3, 2, 2)
    t = c_void_p()
    assert lib().mcdnnCreateTensorTransformDescriptor(ctypes.byref(t)) == 0
    before, after = (ctypes.c_int32 * 4)(0, 0, 0, 0), (ctypes.c_int32 * 4)(0, 1, 0, 0)
    fold = (ctypes.c_uint32 * 4)(1, 1, 1, 1)
    assert lib().mcdnnSetTensorTransformDescriptor(t, 4, VECT_C, before, after, fold, 0) == SUCCESS, recent_error()
    src, dst = Buffer(values), Buffer(np.full(2 * 4 * 4, 99, np.int8))
    status = lib().mcdnnTransformTensorEx(handle, t, scale(1.0, FLOAT), tensor_desc(INT8, [2, 3, 2, 2], NCHW),
                                          src.address, scale(0.0, FLOAT), tensor_desc(INT8x4, [2, 4, 2, 2]),
                                          dst.address)
    assert status == SUCCESS, recent_error()
    padded = np.concatenate([values, np.zeros((2, 1, 2, 2), np.int8)], axis=1)
    np.testing.assert_array_equal(from_vect(dst.read().reshape(2, 1, 2, 2, 4), 4), padded)


# ---- convolutions ----

def torch_conv(x, w, pad=1, stride=1):
    return torch.nn.functional.conv2d(torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64),
                                      padding=pad, stride=stride).numpy()


def int8_operands(seed, n, c, k, h, w, x_dtype=np.int8):
    rng = np.random.default_rng(seed)
    low = 0 if x_dtype == np.uint8 else -128
    return (rng.integers(low, low + 256, (n, c, h, w)).astype(x_dtype),
            rng.integers(-128, 128, (k, c, 3, 3)).astype(np.int8))


def forward(handle, xd, x, wd, w, cd, yd, y, algo=PRECOMP_GEMM, alpha=1.0, beta=0.0):
    return lib().mcdnnConvolutionForward(handle, scale(alpha, FLOAT), xd, x.address, wd, w.address, cd, algo, None,
                                         ctypes.c_size_t(0), scale(beta, FLOAT), yd, y.address)


@pytest.mark.parametrize("code, y_code", [(INT8x4, INT8x4), (INT8x4, FLOAT), (UINT8x4, UINT8x4), (INT8x32, INT8x32)])
def test_vect_c_convolution_forward_matches_torch(handle, code, y_code):
    v = VECTOR[code]
    xv, wv = int8_operands(v, 2, 2 * v, v, 5, 6, np.uint8 if code == UINT8x4 else np.int8)
    exact = torch_conv(xv, wv)
    alpha = 1.0 / 64 if y_code != FLOAT else 0.5
    x, w = Buffer(to_vect(xv, v)), Buffer(to_vect(wv, v))
    ydims = list(exact.shape)
    if y_code == FLOAT:
        y, yd = Buffer(np.zeros(exact.shape, np.float32)), tensor_desc(FLOAT, ydims, NCHW)
    else:
        y, yd = Buffer(np.zeros(exact.size, np.uint8 if code == UINT8x4 else np.int8)), tensor_desc(y_code, ydims)
    status = forward(handle, tensor_desc(code, list(xv.shape)), x, filter_desc(INT8x4 if code == UINT8x4 else code,
                     list(wv.shape)), w, conv_desc(), yd, y, alpha=alpha)
    assert status == SUCCESS, recent_error()
    if y_code == FLOAT:
        np.testing.assert_allclose(y.read(), (alpha * exact).astype(np.float32), rtol=1e-6)
    else:
        got = from_vect(y.read().reshape((ydims[0], ydims[1] // v) + tuple(ydims[2:]) + (v,)), v)
        np.testing.assert_array_equal(got, saturate(np.float32(alpha) * exact.astype(np.float32),
                                                    np.uint8 if code == UINT8x4 else np.int8))


@pytest.mark.parametrize("y_code", [INT8, FLOAT])
def test_nhwc_int8_convolution_forward_matches_torch(handle, y_code):
    xv, wv = int8_operands(3, 2, 8, 4, 5, 5)
    exact = torch_conv(xv, wv)
    xd = Desc(INT8, list(xv.shape), nhwc_strides(list(xv.shape)))
    x, w = Buffer(xv.transpose(0, 2, 3, 1)), Buffer(wv.transpose(0, 2, 3, 1))
    y_dtype = np.int8 if y_code == INT8 else np.float32
    y, yd = Buffer(np.full(exact.shape, 7, y_dtype)), Desc(y_code, list(exact.shape))
    status = forward(handle, xd.handle, x, filter_desc(INT8, list(wv.shape), NHWC), w, conv_desc(), yd.handle, y,
                     algo=IMPLICIT_GEMM, alpha=0.01, beta=1.0)
    assert status == SUCCESS, recent_error()
    expected = np.float32(0.01) * exact.astype(np.float32) + 7
    if y_code == INT8:
        np.testing.assert_array_equal(y.read(), saturate(expected, np.int8))
    else:
        np.testing.assert_allclose(y.read(), expected, rtol=1e-6)


def test_bias_activation_forward_int8x4(handle):
    xv, wv = int8_operands(5, 1, 8, 8, 4, 4)
    exact = torch_conv(xv, wv)
    zv = np.random.default_rng(6).integers(-128, 128, exact.shape).astype(np.int8)
    bias = np.linspace(-40, 40, 8).astype(np.float32)
    x, w, z, b = Buffer(to_vect(xv, 4)), Buffer(to_vect(wv, 4)), Buffer(to_vect(zv, 4)), Buffer(bias)
    y = Buffer(np.zeros(exact.size, np.int8))
    act = c_void_p()
    assert lib().mcdnnCreateActivationDescriptor(ctypes.byref(act)) == 0
    assert lib().mcdnnSetActivationDescriptor(act, 1, 0, ctypes.c_double(0.0)) == 0   # RELU
    yd = tensor_desc(INT8x4, list(exact.shape))
    status = lib().mcdnnConvolutionBiasActivationForward(
        handle, scale(1 / 100, FLOAT), tensor_desc(INT8x4, list(xv.shape)), x.address,
        filter_desc(INT8x4, list(wv.shape)), w.address, conv_desc(), PRECOMP_GEMM, None, ctypes.c_size_t(0),
        scale(0.5, FLOAT), yd, z.address, tensor_desc(FLOAT, [1, 8, 1, 1], NCHW), b.address, act, yd, y.address)
    assert status == SUCCESS, recent_error()
    total = (np.float32(0.01) * exact.astype(np.float32) + np.float32(0.5) * zv + bias.reshape(1, -1, 1, 1))
    np.testing.assert_array_equal(from_vect(y.read().reshape(1, 2, 4, 4, 4), 4), saturate(np.maximum(total, 0), np.int8))


def test_refused_integer_convolutions(handle):
    xv, wv = int8_operands(7, 1, 32, 32, 4, 4)
    x, w, y = Buffer(to_vect(xv, 32)), Buffer(to_vect(wv, 32)), Buffer(np.zeros(32 * 16, np.int8))
    xd, wd, yd = tensor_desc(INT8x32, [1, 32, 4, 4]), filter_desc(INT8x32, [32, 32, 3, 3]), tensor_desc(INT8x32, [1, 32, 4, 4])
    assert forward(handle, xd, x, wd, w, conv_desc(), yd, y, algo=IMPLICIT_GEMM) == NOT_SUPPORTED   # INT8x32: PRECOMP only
    assert "integer configuration" in recent_error()
    assert forward(handle, xd, x, wd, w, conv_desc(), yd, y, algo=GEMM) == NOT_SUPPORTED
    assert forward(handle, xd, x, wd, w, conv_desc(compute=FLOAT), yd, y) == NOT_SUPPORTED        # compute INT32 only
    yf = tensor_desc(FLOAT, [1, 32, 4, 4], NCHW)
    assert forward(handle, xd, x, wd, w, conv_desc(), yf, y) == NOT_SUPPORTED                     # no INT8x32 -> FLOAT
    nchw = tensor_desc(INT8, [1, 32, 4, 4], NCHW)
    assert forward(handle, nchw, x, filter_desc(INT8, [32, 32, 3, 3], NHWC), w, conv_desc(), nchw, y) == NOT_SUPPORTED
    assert "NHWC" in recent_error()
    dx = Buffer(np.zeros(32 * 16, np.int8))
    assert lib().mcdnnConvolutionBackwardData(handle, scale(1.0, FLOAT), wd, w.address, yd, y.address, conv_desc(), 0,
                                              None, ctypes.c_size_t(0), scale(0.0, FLOAT), xd,
                                              dx.address) == NOT_SUPPORTED


class FwdPerf(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_int), ("status", ctypes.c_int), ("time", ctypes.c_float), ("memory", ctypes.c_size_t),
                ("determinism", ctypes.c_int), ("mathType", ctypes.c_int), ("reserved", ctypes.c_int * 3)]


def test_heuristics_and_workspace_of_an_integer_configuration(handle):
    xd, wd, yd = tensor_desc(INT8x32, [1, 32, 4, 4]), filter_desc(INT8x32, [32, 32, 3, 3]), tensor_desc(INT8x32, [1, 32, 4, 4])
    perf, count = (FwdPerf * 8)(), ctypes.c_int()
    assert lib().mcdnnGetConvolutionForwardAlgorithm_v7(handle, xd, wd, conv_desc(), yd, 8, ctypes.byref(count),
                                                        perf) == SUCCESS, recent_error()
    assert (perf[0].algo, perf[0].status) == (PRECOMP_GEMM, SUCCESS)
    assert all(p.status == NOT_SUPPORTED for p in perf[1:count.value])
    size = ctypes.c_size_t(1)
    assert lib().mcdnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, conv_desc(), yd, PRECOMP_GEMM,
                                                         ctypes.byref(size)) == SUCCESS and size.value == 0
    assert lib().mcdnnGetConvolutionForwardWorkspaceSize(handle, xd, wd, conv_desc(), yd, IMPLICIT_GEMM,
                                                         ctypes.byref(size)) == NOT_SUPPORTED
