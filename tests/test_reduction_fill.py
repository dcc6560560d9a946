"""Reductions (ReduceSum, Mean, ArgMax, Norm) and fills (Zero, One, FillScalar, FillTensor, Copy,
Arange) through the C ABI against PyTorch CPU, with their checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, int_array, random, result, scalar, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]


def code(dtype):
    return ctypes.c_int(DeviceTensor(np.zeros(1, dtype)).code)


def close(actual, expected, dtype, scale=1):
    np.testing.assert_allclose(actual.astype(np.float64), from_torch(expected).astype(np.float64),
                               rtol=2 * tolerance(dtype) * scale, atol=2 * tolerance(dtype) * scale)


@pytest.mark.parametrize("dims,keep", [((1,), False), ((0, 2), True), ((-1,), False), ((), False)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=lambda d: np.dtype(d).name)
def test_reduce_sum_like_torch(dtype, dims, keep):
    x = random((4, 5, 6), dtype, np.random.default_rng(0))
    expected = torch.sum(to_torch(x), dim=list(dims) if dims else None, keepdim=keep) if dims else torch.sum(to_torch(x))
    if keep is False and not dims:
        expected = expected.reshape(())
    do = DeviceTensor(np.zeros(tuple(expected.shape), dtype), shape=tuple(expected.shape))
    assert call("aclnnReduceSum", DeviceTensor(x), int_array(list(dims)), ctypes.c_bool(keep), code(dtype), do) \
        == (0, 0, 0), recent_error()
    close(result(do), expected, dtype, scale=4)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_mean_like_torch(dtype):
    x = random((3, 8, 5), dtype, np.random.default_rng(1))
    do = DeviceTensor(np.zeros((3, 1, 5), dtype))
    assert call("aclnnMean", DeviceTensor(x), int_array([1]), ctypes.c_bool(True), code(dtype), do) == (0, 0, 0), \
        recent_error()
    close(result(do), torch.mean(to_torch(x).float(), dim=1, keepdim=True).to(to_torch(x).dtype), dtype)


def test_bf16_sum_accumulates_in_fp32():
    x = np.full(4096, 1.0, BF16)
    do = DeviceTensor(np.zeros((), BF16), shape=())
    assert call("aclnnReduceSum", DeviceTensor(x), int_array([0]), ctypes.c_bool(False), code(BF16), do) \
        == (0, 0, 0), recent_error()
    assert float(result(do, ())) == 4096.0


@pytest.mark.parametrize("dim,keep", [(0, False), (1, True), (-1, False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=lambda d: np.dtype(d).name)
def test_argmax_like_torch(dtype, dim, keep):
    x = random((6, 7), dtype, np.random.default_rng(2), -50, 50)
    expected = torch.argmax(to_torch(x), dim=dim, keepdim=keep)
    do = DeviceTensor(np.zeros(tuple(expected.shape), np.int64))
    assert call("aclnnArgMax", DeviceTensor(x), ctypes.c_int64(dim), ctypes.c_bool(keep), do) == (0, 0, 0), \
        recent_error()
    np.testing.assert_array_equal(result(do), expected.numpy())


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf")])
def test_norm_like_torch(p):
    x = random((4, 6), np.float32, np.random.default_rng(3))
    do = DeviceTensor(np.zeros((4,), np.float32))
    assert call("aclnnNorm", DeviceTensor(x), scalar(p, np.float32), int_array([1]), ctypes.c_bool(False), do) \
        == (0, 0, 0), recent_error()
    close(result(do), torch.linalg.vector_norm(to_torch(x), ord=p, dim=1), np.float32, scale=4)


def test_reduction_dim_out_of_range():
    dx = DeviceTensor(np.zeros((2, 3), np.float32))
    do = DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnReduceSum", dx, int_array([2]), ctypes.c_bool(False), code(np.float32), do)[0] == PARAM_INVALID
    assert "Dimension out of range (expected to be in range of [-2, 1], but got 2)." in recent_error()


def test_reduction_dims_repeated():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnReduceSum", dx, int_array([1, -1]), ctypes.c_bool(False), code(np.float32), do)[0] \
        == PARAM_INVALID
    assert "multiple times" in recent_error()


def test_reduction_out_shape():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnReduceSum", dx, int_array([1]), ctypes.c_bool(False), code(np.float32), do)[0] == PARAM_INVALID
    assert "Shape of out should be [2], but current is [3]." in recent_error()


def test_reduction_dtype_must_match_out():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnReduceSum", dx, int_array([1]), ctypes.c_bool(False), code(np.float16), do)[0] \
        == PARAM_INVALID


def test_reduction_null_dims():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnReduceSum", dx, None, ctypes.c_bool(False), code(np.float32), do)[0] == PARAM_NULLPTR


def test_argmax_of_an_empty_tensor():
    dx, do = DeviceTensor(np.zeros((0, 3), np.float32)), DeviceTensor(np.zeros(3, np.int64))
    assert call("aclnnArgMax", dx, ctypes.c_int64(0), ctypes.c_bool(False), do)[0] == PARAM_INVALID


# ---- fills ----

def strided_target(dtype):
    storage = np.full(2 + 3 * 4, 7, dtype)
    return storage, DeviceTensor(storage, shape=(3, 2), strides=(4, 2), offset=2)


def expected_storage(storage, value):
    expected = storage.copy()
    np.lib.stride_tricks.as_strided(expected[2:], (3, 2), (4 * storage.itemsize, 2 * storage.itemsize))[...] = value
    return expected


@pytest.mark.parametrize("dtype", [np.float32, BF16, np.int32], ids=lambda d: np.dtype(d).name)
def test_fills_write_through_the_view_only(dtype):
    storage, d = strided_target(dtype)
    assert call("aclnnInplaceZero", d) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(d.storage(), expected_storage(storage, 0))
    assert call("aclnnInplaceOne", d) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(d.storage(), expected_storage(storage, 1))
    assert call("aclnnInplaceFillScalar", d, scalar(2.75, np.float64)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(d.storage(), expected_storage(storage, np.asarray(2.75).astype(dtype)))
    assert call("aclnnInplaceFillTensor", d, DeviceTensor(np.array([5], np.int64))) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(d.storage(), expected_storage(storage, 5))


def test_fill_tensor_needs_one_element():
    d = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnInplaceFillTensor", d, DeviceTensor(np.zeros(2, np.float32)))[0] == PARAM_INVALID


def test_fill_scalar_null_value():
    assert call("aclnnInplaceFillScalar", DeviceTensor(np.zeros(3, np.float32)), None)[0] == PARAM_NULLPTR


@pytest.mark.parametrize("source", [np.float32, np.int64, BF16], ids=lambda d: np.dtype(d).name)
def test_inplace_copy_casts_and_broadcasts_like_torch(source):
    src = random((2,), source, np.random.default_rng(4))
    storage, d = strided_target(np.float16)
    assert call("aclnnInplaceCopy", d, DeviceTensor(src)) == (0, 0, 0), recent_error()
    value = from_torch(to_torch(src).to(torch.float16))
    np.testing.assert_array_equal(d.storage(), expected_storage(storage, value))


def test_inplace_copy_src_must_broadcast():
    d = DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnInplaceCopy", d, DeviceTensor(np.zeros(3, np.float32)))[0] == PARAM_INVALID


@pytest.mark.parametrize("start,end,step,dtype", [(0, 10, 3, np.int64), (1.5, -2.0, -0.5, np.float32),
                                                  (0, 1, 0.1, np.float32), (2, 20, 4, np.int32)], ids=str)
def test_arange_like_torch(start, end, step, dtype):
    expected = torch.arange(start, end, step, dtype=to_torch(np.zeros(1, dtype)).dtype)
    do = DeviceTensor(np.zeros(len(expected), dtype))
    kind = np.int64 if isinstance(start, int) and isinstance(step, int) else np.float64
    assert call("aclnnArange", scalar(start, kind), scalar(end, kind), scalar(step, kind), do) == (0, 0, 0), \
        recent_error()
    np.testing.assert_allclose(result(do), expected.numpy(), rtol=1e-6)


def test_arange_step_zero_and_wrong_sign():
    do = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnArange", scalar(0, np.int64), scalar(3, np.int64), scalar(0, np.int64), do)[0] == PARAM_INVALID
    assert "step must be nonzero" in recent_error()
    assert call("aclnnArange", scalar(0, np.int64), scalar(3, np.int64), scalar(-1, np.int64), do)[0] == PARAM_INVALID
    assert "inconsistent with step sign" in recent_error()


def test_arange_out_size():
    do = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnArange", scalar(0, np.int64), scalar(3, np.int64), scalar(1, np.int64), do)[0] == PARAM_INVALID
