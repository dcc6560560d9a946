"""aclnnTriu / aclnnTril and their in-place forms, and aclnnInplaceMaskedFillScalar (a causal mask's two
steps), through the C ABI against torch.triu / tril / masked_fill, with their documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002


@pytest.mark.parametrize("diagonal", [-1, 0, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.int64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["aclnnTriu", "aclnnTril"])
def test_triangle_keeps_torchs_elements(op, dtype, diagonal):
    x = random((2, 4, 5), dtype, np.random.default_rng(3))
    out = DeviceTensor(np.zeros_like(x))
    assert call(op, DeviceTensor(x), ctypes.c_int64(diagonal), out) == (0, 0, 0), recent_error()
    reference = (torch.triu if op == "aclnnTriu" else torch.tril)(to_torch(x), diagonal)
    np.testing.assert_array_equal(result(out), from_torch(reference))


@pytest.mark.parametrize("op", ["aclnnInplaceTriu", "aclnnInplaceTril"])
def test_in_place_triangle_rewrites_self(op):
    x = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    self_ref = DeviceTensor(x)
    assert call(op, self_ref, ctypes.c_int64(1)) == (0, 0, 0), recent_error()
    reference = (torch.triu if op == "aclnnInplaceTriu" else torch.tril)(torch.from_numpy(x), 1)
    np.testing.assert_array_equal(result(self_ref), reference.numpy())


def test_triu_of_a_vector_is_param_invalid():
    x = np.ones(4, np.float32)
    assert call("aclnnTriu", DeviceTensor(x), ctypes.c_int64(0), DeviceTensor(x))[0] == PARAM_INVALID
    assert "The self tensor must have at least 2 dimensions." in recent_error()


def test_tril_of_a_vector_is_param_invalid():
    x = np.ones(4, np.float32)
    assert call("aclnnTril", DeviceTensor(x), ctypes.c_int64(0), DeviceTensor(x))[0] == PARAM_INVALID
    assert "Dim of self should be last 2 dims." in recent_error()


@pytest.mark.parametrize("op", ["aclnnTriu", "aclnnTril"])
def test_triangle_out_of_another_dtype_is_param_invalid(op):
    x = np.ones((2, 2), np.float32)
    assert call(op, DeviceTensor(x), ctypes.c_int64(0), DeviceTensor(x.astype(np.float16)))[0] == PARAM_INVALID


@pytest.mark.parametrize("op", ["aclnnTriu", "aclnnTril"])
def test_triangle_null_out_is_nullptr(op):
    assert call(op, DeviceTensor(np.ones((2, 2), np.float32)), ctypes.c_int64(0), None)[0] == PARAM_NULLPTR


# ---- aclnnInplaceMaskedFillScalar (the causal mask's fill) ----

@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.int64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_masked_fill_writes_the_value_where_the_broadcast_mask_is_true(dtype):
    rng = np.random.default_rng(4)
    x, mask = random((3, 4, 5), dtype, rng), rng.integers(0, 2, (4, 5)).astype(bool)
    self_ref = DeviceTensor(x)
    value = -np.inf if np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16 else 1
    assert call("aclnnInplaceMaskedFillScalar", self_ref, DeviceTensor(mask), scalar(value, np.float32)) == (0, 0, 0), \
        recent_error()
    reference = to_torch(x).masked_fill(torch.from_numpy(mask), value)
    np.testing.assert_array_equal(result(self_ref), from_torch(reference))


def test_masked_fill_mask_that_widens_self_is_param_invalid():
    x, mask = np.ones((1, 5), np.float32), np.ones((3, 5), bool)
    assert call("aclnnInplaceMaskedFillScalar", DeviceTensor(x), DeviceTensor(mask),
                scalar(0.0, np.float32))[0] == PARAM_INVALID
    assert "Shape of out should be [3, 5], but current is [1, 5]." in recent_error()


def test_masked_fill_mask_not_bool_is_param_invalid():
    x = np.ones((2, 5), np.float32)
    assert call("aclnnInplaceMaskedFillScalar", DeviceTensor(x), DeviceTensor(x),
                scalar(0.0, np.float32))[0] == PARAM_INVALID
