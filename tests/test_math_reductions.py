"""ops-math's reductions beyond ReduceSum/Mean/ArgMax (Amax, Amin …) through the C ABI against PyTorch CPU,
with their documented checks (status and message)."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, int_array, random, result, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
EXTREMA = {"Amax": torch.amax, "Amin": torch.amin}


@pytest.mark.parametrize("dims,keep", [((1,), False), ((0, 2), True), ((-1,), True), ((), False)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int64, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(EXTREMA))
def test_extremum_like_torch(op, dtype, dims, keep):
    x = random((3, 4, 5), dtype, np.random.default_rng(0))
    expected = EXTREMA[op](to_torch(x), dim=list(dims), keepdim=keep)
    do = DeviceTensor(np.zeros(tuple(expected.shape), dtype), shape=tuple(expected.shape))
    assert call("aclnn" + op, DeviceTensor(x), int_array(list(dims)), ctypes.c_bool(keep), do) == (0, 0, 0), \
        recent_error()
    np.testing.assert_array_equal(result(do), from_torch(expected))


def test_amax_propagates_nan():
    x = np.array([[1.0, np.nan], [2.0, 3.0]], np.float32)
    do = DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAmax", DeviceTensor(x), int_array([1]), ctypes.c_bool(False), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [np.nan, 3.0])


def test_amax_of_a_0d_tensor_is_itself():
    do = DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnAmin", DeviceTensor(np.array(4.5, np.float32), shape=()), int_array([0]), ctypes.c_bool(False),
                do) == (0, 0, 0), recent_error()
    assert float(result(do, ())) == 4.5


def test_amax_null_dim():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnAmax", dx, None, ctypes.c_bool(False), dx)[0] == PARAM_NULLPTR


def test_amax_out_of_self_dtype():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float16))
    assert call("aclnnAmax", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Tensor out expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()


def test_amin_dim_out_of_range():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAmin", dx, int_array([2]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Provided dim 2 must be in the range of [-2, 1]." in recent_error()


def test_amax_dim_of_zero_size():
    dx, do = DeviceTensor(np.zeros((2, 0), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAmax", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Expected reducution dim 1 to have non-zero size." in recent_error()


def test_amax_dim_twice():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnAmax", dx, int_array([1, -1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Dim 1 appears multiple times in the list of dims." in recent_error()


def test_amax_out_shape():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnAmax", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Expected tensor for out to have same size as [2], but got [3]." in recent_error()

