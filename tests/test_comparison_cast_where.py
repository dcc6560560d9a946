"""Comparisons, Cast, Clamp and SWhere through the C ABI against PyTorch CPU, with their checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
COMPARE = {"Eq": torch.eq, "Ne": torch.ne, "Gt": torch.gt, "Lt": torch.lt, "Ge": torch.ge, "Le": torch.le}
DTYPES = [np.float32, np.float16, BF16, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(COMPARE))
def test_comparisons_broadcast_like_torch(op, dtype):
    rng = np.random.default_rng(0)
    x, y = random((2, 1, 3), dtype, rng, 0, 2), random((4, 3), dtype, rng, 0, 2)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros((2, 4, 3), np.bool_))
    assert call("aclnn%sTensor" % op, dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), COMPARE[op](to_torch(x), to_torch(y)).numpy())


def test_comparison_into_a_float_out_and_mixed_inputs():
    x, y = np.array([1, 2, 3], np.int32), np.array([1.0, 2.5, 3.0], np.float16)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnEqTensor", dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [1, 0, 1])


def test_eq_scalar_with_its_own_dtype():
    x = np.array([1.0, 2.0, 2.5], np.float32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.bool_))
    assert call("aclnnEqScalar", dx, scalar(2, np.int64), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [False, True, False])


@pytest.mark.parametrize("op", ["Gt", "Le"])
def test_inplace_comparison_writes_one_and_zero(op):
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([2.0], np.float32)
    d, dy = DeviceTensor(x), DeviceTensor(y)
    assert call("aclnnInplace%sTensor" % op, d, dy) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(d), COMPARE[op](to_torch(x), to_torch(y)).float().numpy())


@pytest.mark.parametrize("target", [np.float16, BF16, np.int32, np.bool_, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("source", [np.float32, np.int64, BF16], ids=lambda d: np.dtype(d).name)
def test_cast_like_torch(source, target):
    x = np.array([-2.7, -0.5, 0, 0.3, 1.5, 65504 * 2, 1 / 3], np.float64).astype(source)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(x.shape, target))
    code = DeviceTensor(np.zeros(1, target)).code
    assert call("aclnnCast", dx, ctypes.c_int(code), do) == (0, 0, 0), recent_error()
    expected = from_torch(to_torch(x).to(to_torch(np.zeros(1, target)).dtype))
    if np.dtype(target).kind in "iu" and np.dtype(source).kind == "f":
        finite = np.abs(x.astype(np.float64)) < 2 ** 31
        np.testing.assert_array_equal(result(do)[finite], expected[finite])
    else:
        np.testing.assert_array_equal(result(do), expected)


def test_cast_dtype_must_match_out():
    dx, do = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.float16))
    assert call("aclnnCast", dx, ctypes.c_int(0), do)[0] == PARAM_INVALID
    assert "should be the same as out's dtype DT_FLOAT16" in recent_error()


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (None, 0.5), (-0.5, None)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_clamp_like_torch(dtype, bounds):
    x = random((5, 4), dtype, np.random.default_rng(1))
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros_like(x))
    low, high = [None if b is None else scalar(b, np.float32) for b in bounds]
    assert call("aclnnClamp", dx, low, high, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), from_torch(torch.clamp(to_torch(x), *bounds)))


def test_clamp_needs_one_bound():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnClamp", dx, None, None, dx)[0] == PARAM_NULLPTR
    assert "clamp: At least one of 'min' or 'max' must not be None." in recent_error()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=lambda d: np.dtype(d).name)
def test_swhere_broadcasts_like_torch(dtype):
    rng = np.random.default_rng(2)
    cond = rng.integers(0, 2, (3, 1)).astype(np.bool_)
    x, y = random((3, 4), dtype, rng), random((4,), dtype, rng)
    dc, dx, dy, do = DeviceTensor(cond), DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros((3, 4), dtype))
    assert call("aclnnSWhere", dc, dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), torch.where(to_torch(cond), to_torch(x), to_torch(y)).numpy())


def test_swhere_condition_must_be_bool():
    d = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnSWhere", d, d, d, d)[0] == PARAM_INVALID
    assert "Tensor condition not implemented for DT_FLOAT" in recent_error()
