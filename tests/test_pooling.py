"""ops-nn pooling/ through the C ABI: average, max (with indices, mask, argmax) and adaptive pooling and their
backward against PyTorch CPU, the tie and NaN rule of the indices, and the phase-1 checks of each op."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, int_array, to_torch

NULLPTR, INVALID = 161001, 161002
NCHW, ND, NCL, NCDHW = 0, 2, 47, 30
I64, B, I8 = ctypes.c_int64, ctypes.c_bool, ctypes.c_int8
BF16 = np.dtype(ml_dtypes.bfloat16)
OK = (0, 0, 0)
TOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float16): 1e-3, BF16: 8e-3}


@pytest.fixture
def soc950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")


def t(array, fmt=NCHW, **kw):
    return DeviceTensor(np.asarray(array), format=fmt, **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def ints(*values):
    return int_array(list(values))


def _close(actual, expected, dtype):
    tol = TOL[np.dtype(dtype)]
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=tol, atol=tol)


def _input(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ---- AvgPool2d / AvgPool3d -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("ceil,include,divisor", [(False, True, 0), (True, False, 0), (False, False, 3),
                                                  (True, True, 0)])
def test_avg_pool2d_matches_torch(dtype, ceil, include, divisor):
    x = _input((2, 3, 9, 10), dtype)
    expected = F.avg_pool2d(to_torch(x).float(), (3, 2), (2, 2), (1, 1), ceil, include, divisor or None)
    out = t(np.zeros(expected.shape, dtype))
    status = call("aclnnAvgPool2d", t(x), ints(3, 2), ints(2, 2), ints(1, 1), B(ceil), B(include), I64(divisor),
                  I8(0), out)
    assert status == OK, recent_error()
    _close(got(out), expected.numpy().astype(dtype), dtype)


def test_avg_pool2d_takes_a_3d_ncl_tensor_and_an_empty_stride():
    x = _input((3, 8, 8))
    out = t(np.zeros((3, 4, 4), np.float32), fmt=NCL)
    assert call("aclnnAvgPool2d", t(x, fmt=NCL), ints(2), ints(), ints(0), B(False), B(True), I64(0), I8(0),
                out) == OK, recent_error()
    _close(got(out), F.avg_pool2d(torch.from_numpy(x), 2).numpy(), np.float32)


def test_avg_pool2d_wants_nchw_format():
    x = _input((1, 1, 4, 4))
    status = call("aclnnAvgPool2d", t(x, fmt=ND), ints(2), ints(2), ints(0), B(False), B(True), I64(0), I8(0),
                  t(np.zeros((1, 1, 2, 2), np.float32)))
    assert status[0] == INVALID and "self format should be NCHW or NCL. Actual: self is [ND]." in recent_error()


def test_avg_pool2d_padding_at_most_half_the_kernel():
    x = _input((1, 1, 6, 6))
    status = call("aclnnAvgPool2d", t(x), ints(2), ints(2), ints(2), B(False), B(True), I64(0), I8(0),
                  t(np.zeros((1, 1, 5, 5), np.float32)))
    assert status[0] == INVALID and "value of paddingH should be at most half of kernelH" in recent_error()


def test_avg_pool2d_out_shape_is_checked():
    x = _input((1, 1, 6, 6))
    status = call("aclnnAvgPool2d", t(x), ints(2), ints(2), ints(0), B(False), B(True), I64(0), I8(0),
                  t(np.zeros((1, 1, 2, 2), np.float32)))
    assert status[0] == INVALID and "to have same size as [1, 1, 3, 3]" in recent_error()


def test_avg_pool2d_cube_math_type_out_of_range():
    x = _input((1, 1, 4, 4))
    status = call("aclnnAvgPool2d", t(x), ints(2), ints(2), ints(0), B(False), B(True), I64(0), I8(7),
                  t(np.zeros((1, 1, 2, 2), np.float32)))
    assert status[0] == INVALID and "The value of cubeMathType only support" in recent_error()


def test_avg_pool2d_null_kernel():
    x = _input((1, 1, 4, 4))
    status = call("aclnnAvgPool2d", t(x), ctypes.c_void_p(None), ints(2), ints(0), B(False), B(True), I64(0), I8(0),
                  t(np.zeros((1, 1, 2, 2), np.float32)))
    assert status[0] == NULLPTR and "List[int] for argument kernelSize" in recent_error()


@pytest.mark.parametrize("include,divisor", [(True, 0), (False, 0), (True, 5)])
def test_avg_pool2d_backward_matches_torch(include, divisor):
    x = torch.from_numpy(_input((2, 3, 7, 8))).requires_grad_()
    y = F.avg_pool2d(x, 3, 2, 1, False, include, divisor or None)
    dy = torch.from_numpy(_input(tuple(y.shape), seed=1))
    y.backward(dy)
    dx = t(np.zeros((2, 3, 7, 8), np.float32))
    status = call("aclnnAvgPool2dBackward", t(dy.numpy()), t(x.detach().numpy()), ints(3), ints(2), ints(1),
                  B(False), B(include), I64(divisor), I8(0), dx)
    assert status == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_avg_pool3d_and_backward_match_torch(dtype):
    x = torch.from_numpy(_input((1, 2, 5, 6, 7)).astype(np.float32)).requires_grad_()
    y = F.avg_pool3d(x, (2, 3, 3), (2, 2, 1), (1, 1, 0), True, False)
    out = t(np.zeros(tuple(y.shape), dtype), fmt=NCDHW)
    xs = t(x.detach().numpy().astype(dtype), fmt=NCDHW)
    status = call("aclnnAvgPool3d", xs, ints(2, 3, 3), ints(2, 2, 1), ints(1, 1, 0), B(True), B(False), I64(0), out)
    assert status == OK, recent_error()
    _close(got(out), y.detach().numpy().astype(dtype), dtype)
    dy = torch.from_numpy(_input(tuple(y.shape), seed=2))
    y.backward(dy)
    dx = t(np.zeros((1, 2, 5, 6, 7), dtype), fmt=NCDHW)
    status = call("aclnnAvgPool3dBackward", t(dy.numpy().astype(dtype), fmt=NCDHW), xs, ints(2, 3, 3),
                  ints(2, 2, 1), ints(1, 1, 0), B(True), B(False), I64(0), dx)
    assert status == OK, recent_error()
    _close(got(dx), x.grad.numpy().astype(dtype), dtype)


def test_avg_pool3d_kernel_larger_than_the_input():
    x = _input((1, 1, 2, 4, 4))
    status = call("aclnnAvgPool3d", t(x, fmt=NCDHW), ints(3), ints(1), ints(0), B(False), B(True), I64(0),
                  t(np.zeros((1, 1, 1, 2, 2), np.float32), fmt=NCDHW))
    assert status[0] == INVALID and "kernel value(3) is invaild, must be (0, 2]." in recent_error()


# ---- MaxPool (ONNX) ---------------------------------------------------------------------------------------------------

def test_max_pool_with_asymmetric_pads_matches_torch():
    x = _input((1, 2, 7, 7))
    expected = F.max_pool2d(F.pad(torch.from_numpy(x), (1, 0, 0, 1), value=-np.inf), 3, 2)
    out = t(np.zeros(tuple(expected.shape), np.float32))
    status = call("aclnnMaxPool", t(x), ints(3, 3), ints(2, 2), I64(0), ints(0, 1, 1, 0), ints(1, 1), I64(0), out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), expected.numpy())


def test_max_pool_auto_pad_must_be_notset():
    x = _input((1, 1, 4, 4))
    status = call("aclnnMaxPool", t(x), ints(2), ints(2), I64(1), ints(0), ints(1), I64(0),
                  t(np.zeros((1, 1, 2, 2), np.float32)))
    assert status[0] == INVALID and "value of autoPad must be zero" in recent_error()


def test_max_pool_dilation_only_one():
    x = _input((1, 1, 4, 4))
    status = call("aclnnMaxPool", t(x), ints(2), ints(2), I64(0), ints(0), ints(2), I64(0),
                  t(np.zeros((1, 1, 2, 2), np.float32)))
    assert status[0] == INVALID and "dilation value along each spatial axis only support 1, but got 2" in recent_error()


# ---- with indices / mask / argmax -------------------------------------------------------------------------------------

@pytest.mark.parametrize("ceil", [False, True])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_max_pool2d_with_indices_matches_torch(ceil, index_dtype):
    x = _input((2, 3, 9, 8))
    values, indices = F.max_pool2d(torch.from_numpy(x), 3, 2, 1, 1, ceil, True)
    out, idx = t(np.zeros(tuple(values.shape), np.float32)), t(np.zeros(tuple(values.shape), index_dtype))
    status = call("aclnnMaxPool2dWithIndices", t(x), ints(3), ints(2), ints(1), ints(1), B(ceil), out, idx)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), values.numpy())
    assert np.array_equal(got(idx), indices.numpy())


def test_max_pool2d_with_indices_ties_keep_the_first_and_nan_wins():
    x = np.zeros((1, 1, 2, 4), np.float32)
    x[0, 0, 1, 3] = np.nan
    out, idx = t(np.zeros((1, 1, 1, 2), np.float32)), t(np.zeros((1, 1, 1, 2), np.int64))
    assert call("aclnnMaxPool2dWithIndices", t(x), ints(2), ints(2), ints(0), ints(1), B(False), out, idx) == OK
    assert got(idx).reshape(-1).tolist() == [0, 7]
    assert np.isnan(got(out)[0, 0, 0, 1])


def test_max_pool2d_with_indices_dilation_on_the_950(soc950):
    x = _input((1, 2, 9, 9))
    values, indices = F.max_pool2d(torch.from_numpy(x), 3, 1, 1, 2, False, True)
    out, idx = t(np.zeros(tuple(values.shape), np.float32)), t(np.zeros(tuple(values.shape), np.int64))
    assert call("aclnnMaxPool2dWithIndices", t(x), ints(3), ints(1), ints(1), ints(2), B(False), out, idx) == OK, \
        recent_error()
    assert np.array_equal(got(idx), indices.numpy())


def test_max_pool2d_with_indices_dilation_is_one_off_the_950():
    x = _input((1, 2, 9, 9))
    status = call("aclnnMaxPool2dWithIndices", t(x), ints(3), ints(1), ints(1), ints(2), B(False),
                  t(np.zeros((1, 2, 5, 5), np.float32)), t(np.zeros((1, 2, 5, 5), np.int64)))
    assert status[0] == INVALID and "dilation only support 1" in recent_error()


def test_max_pool2d_with_indices_backward_matches_torch():
    x = torch.from_numpy(_input((2, 3, 8, 8))).requires_grad_()
    y, indices = F.max_pool2d(x, 3, 2, 1, 1, False, True)
    dy = torch.from_numpy(_input(tuple(y.shape), seed=3))
    y.backward(dy)
    dx = t(np.zeros((2, 3, 8, 8), np.float32))
    status = call("aclnnMaxPool2dWithIndicesBackward", t(dy.numpy()), t(x.detach().numpy()),
                  t(indices.numpy().astype(np.int32)), ints(3), ints(2), ints(1), ints(1), B(False), dx)
    assert status == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


def test_max_pool2d_with_indices_backward_takes_float_only_on_atlas_a2():
    x = _input((1, 1, 4, 4), np.float16)
    status = call("aclnnMaxPool2dWithIndicesBackward", t(np.zeros((1, 1, 2, 2), np.float16)), t(x),
                  t(np.zeros((1, 1, 2, 2), np.int32)), ints(2), ints(2), ints(0), ints(1), B(False),
                  t(np.zeros((1, 1, 4, 4), np.float16)))
    assert status[0] == INVALID and "Tensor self not implemented for DT_FLOAT16" in recent_error()


def test_max_pool2d_with_mask_round_trips_through_its_backward():
    x = torch.from_numpy(_input((1, 2, 6, 6))).requires_grad_()
    y, _ = F.max_pool2d(x, 2, 2, 0, 1, False, True)
    dy = torch.from_numpy(_input(tuple(y.shape), seed=4))
    y.backward(dy)
    mask = t(np.zeros((1, 2, 4, (-(-9 // 16) + 1) * 32), np.int8))
    out = t(np.zeros((1, 2, 3, 3), np.float32))
    assert call("aclnnMaxPool2dWithMask", t(x.detach().numpy()), ints(2), ints(2), ints(0), ints(1), B(False), out,
                mask) == OK, recent_error()
    assert np.array_equal(got(out), y.detach().numpy())
    dx = t(np.zeros((1, 2, 6, 6), np.float32))
    assert call("aclnnMaxPool2dWithMaskBackward", t(dy.numpy()), t(x.detach().numpy()), mask, ints(2), ints(2), ints(0),
                ints(1), B(False), dx) == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


def test_max_pool2d_with_mask_checks_the_mask_shape():
    x = _input((1, 2, 6, 6))
    status = call("aclnnMaxPool2dWithMask", t(x), ints(2), ints(2), ints(0), ints(1), B(False),
                  t(np.zeros((1, 2, 3, 3), np.float32)), t(np.zeros((1, 2, 4, 32), np.int8)))
    assert status[0] == INVALID and "to have same size as [1, 2, 4, 64]" in recent_error()


def test_max_pool2d_with_mask_is_deprecated_on_the_950(soc950):
    x = _input((1, 2, 6, 6))
    status = call("aclnnMaxPool2dWithMask", t(x), ints(2), ints(2), ints(0), ints(1), B(False),
                  t(np.zeros((1, 2, 3, 3), np.float32)), t(np.zeros((1, 2, 4, 64), np.int8)))
    assert status[0] == INVALID and "has been deprecated" in recent_error()


def test_max_pool3d_with_argmax_and_backward_match_torch():
    x = torch.from_numpy(_input((1, 2, 5, 6, 6))).requires_grad_()
    y, indices = F.max_pool3d(x, 2, 2, 1, 1, False, True)
    out, idx = t(np.zeros(tuple(y.shape), np.float32), fmt=NCDHW), t(np.zeros(tuple(y.shape), np.int32), fmt=NCDHW)
    status = call("aclnnMaxPool3dWithArgmax", t(x.detach().numpy(), fmt=NCDHW), ints(2), ints(2), ints(1), ints(1),
                  B(False), out, idx)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), y.detach().numpy())
    assert np.array_equal(got(idx), indices.numpy())
    dy = torch.from_numpy(_input(tuple(y.shape), seed=5))
    y.backward(dy)
    dx = t(np.zeros((1, 2, 5, 6, 6), np.float32), fmt=NCDHW)
    status = call("aclnnMaxPool3dWithArgmaxBackward", t(dy.numpy(), fmt=NCDHW), t(x.detach().numpy(), fmt=NCDHW), idx,
                  ints(2), ints(2), ints(1), ints(1), B(False), dx)
    assert status == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


def test_max_pool3d_with_argmax_padding_at_most_half_the_kernel():
    x = _input((1, 1, 4, 4, 4))
    status = call("aclnnMaxPool3dWithArgmax", t(x, fmt=NCDHW), ints(2), ints(2), ints(2), ints(1), B(False),
                  t(np.zeros((1, 1, 4, 4, 4), np.float32), fmt=NCDHW), t(np.zeros((1, 1, 4, 4, 4), np.int32), fmt=NCDHW))
    assert status[0] == INVALID and "Padding should be smaller than or equal to half of kernel size" in recent_error()


# ---- adaptive ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(3, 4), (4, 5)], ids=["regular", "irregular"])
def test_adaptive_avg_pool2d_and_backward_match_torch(size):
    x = torch.from_numpy(_input((2, 3, 12, 10))).requires_grad_()
    y = F.adaptive_avg_pool2d(x, size)
    out = t(np.zeros(tuple(y.shape), np.float32))
    assert call("aclnnAdaptiveAvgPool2d", t(x.detach().numpy()), ints(*size), out) == OK, recent_error()
    _close(got(out), y.detach().numpy(), np.float32)
    dy = torch.from_numpy(_input(tuple(y.shape), seed=6))
    y.backward(dy)
    dx = t(np.zeros((2, 3, 12, 10), np.float32))
    assert call("aclnnAdaptiveAvgPool2dBackward", t(dy.numpy()), t(x.detach().numpy()), dx) == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


def test_adaptive_avg_pool2d_output_size_must_match_out():
    x = _input((1, 2, 6, 6))
    status = call("aclnnAdaptiveAvgPool2d", t(x), ints(3, 3), t(np.zeros((1, 2, 2, 2), np.float32)))
    assert status[0] == INVALID and "outputSize value should match the outputShape value" in recent_error()


def test_adaptive_avg_pool3d_and_backward_match_torch():
    x = torch.from_numpy(_input((1, 2, 5, 6, 7))).requires_grad_()
    y = F.adaptive_avg_pool3d(x, (2, 3, 3))
    out = t(np.zeros(tuple(y.shape), np.float32), fmt=NCDHW)
    assert call("aclnnAdaptiveAvgPool3d", t(x.detach().numpy(), fmt=NCDHW), ints(2, 3, 3), out) == OK, recent_error()
    _close(got(out), y.detach().numpy(), np.float32)
    dy = torch.from_numpy(_input(tuple(y.shape), seed=7))
    y.backward(dy)
    dx = t(np.zeros((1, 2, 5, 6, 7), np.float32), fmt=NCDHW)
    assert call("aclnnAdaptiveAvgPool3dBackward", t(dy.numpy(), fmt=NCDHW), t(x.detach().numpy(), fmt=NCDHW),
                dx) == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


@pytest.mark.parametrize("size", [(3, 5), (4, 3)], ids=["regular", "irregular"])
def test_adaptive_max_pool2d_and_backward_match_torch(size):
    x = torch.from_numpy(_input((2, 3, 9, 10))).requires_grad_()
    y, indices = F.adaptive_max_pool2d(x, size, True)
    out, idx = t(np.zeros(tuple(y.shape), np.float32)), t(np.zeros(tuple(y.shape), np.int64))
    assert call("aclnnAdaptiveMaxPool2d", t(x.detach().numpy()), ints(*size), out, idx) == OK, recent_error()
    assert np.array_equal(got(out), y.detach().numpy())
    assert np.array_equal(got(idx), indices.numpy())
    dy = torch.from_numpy(_input(tuple(y.shape), seed=8))
    y.backward(dy)
    dx = t(np.zeros((2, 3, 9, 10), np.float32))
    assert call("aclnnAdaptiveMaxPool2dBackward", t(dy.numpy()), t(x.detach().numpy()), idx, dx) == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)


def test_adaptive_max_pool2d_indices_are_int64():
    x = _input((1, 2, 6, 6))
    status = call("aclnnAdaptiveMaxPool2d", t(x), ints(3, 3), t(np.zeros((1, 2, 3, 3), np.float32)),
                  t(np.zeros((1, 2, 3, 3), np.int32)))
    assert status[0] == INVALID and "Tensor indices expected dtype is DT_INT64 but found DT_INT32." in recent_error()


def test_adaptive_max_pool3d_and_backward_match_torch():
    x = torch.from_numpy(_input((1, 2, 5, 6, 6))).requires_grad_()
    y, indices = F.adaptive_max_pool3d(x, (2, 4, 3), True)
    out, idx = t(np.zeros(tuple(y.shape), np.float32), fmt=NCDHW), t(np.zeros(tuple(y.shape), np.int32), fmt=NCDHW)
    assert call("aclnnAdaptiveMaxPool3d", t(x.detach().numpy(), fmt=NCDHW), ints(2, 4, 3), out, idx) == OK, \
        recent_error()
    assert np.array_equal(got(idx), indices.numpy())
    dy = torch.from_numpy(_input(tuple(y.shape), seed=9))
    y.backward(dy)
    dx = t(np.zeros((1, 2, 5, 6, 6), np.float32), fmt=NCDHW)
    assert call("aclnnAdaptiveMaxPool3dBackward", t(dy.numpy(), fmt=NCDHW), t(x.detach().numpy(), fmt=NCDHW), idx,
                dx) == OK, recent_error()
    _close(got(dx), x.grad.numpy(), np.float32)
