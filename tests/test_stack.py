"""aclnnStack (ops-math conversion/pack) through the C ABI against torch.stack, with its documented
checks in the op_api's order."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, tensor_list, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002


def stack(tensors, dim, out):
    return call("aclnnStack", tensor_list([DeviceTensor(t) for t in tensors]), ctypes.c_int64(dim), out)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.int64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_stack_joins_along_a_new_axis_as_torch(dtype, dim):
    rng = np.random.default_rng(5)
    parts = [random((2, 3), dtype, rng) for _ in range(3)]
    expected = from_torch(torch.stack([to_torch(p) for p in parts], dim))
    out = DeviceTensor(np.zeros(expected.shape, expected.dtype))
    assert stack(parts, dim, out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), expected)


def test_mixed_dtypes_go_through_the_promoted_dtype_into_out():
    ints, halves = np.array([1, 2049], np.int32), np.array([0.5, 1.5], np.float16)
    out = DeviceTensor(np.zeros((2, 2), np.float32))
    assert stack([ints, halves], 0, out) == (0, 0, 0), recent_error()
    # int32 and float16 promote to float16: 2049 rounds to 2048 before out's float32
    np.testing.assert_array_equal(result(out), [[1, 2048], [0.5, 1.5]])


def test_empty_tensors_succeed_and_write_nothing():
    out = DeviceTensor(np.full((2, 0), 7, np.float32))
    assert stack([np.zeros(0, np.float32)] * 2, 0, out) == (0, 0, 0), recent_error()


def test_null_list_is_nullptr():
    out = DeviceTensor(np.zeros((1, 2), np.float32))
    assert call("aclnnStack", None, ctypes.c_int64(0), out)[0] == PARAM_NULLPTR
    assert "Input of aclnnStack should not be null." in recent_error()


def test_unsupported_dtype_names_the_tensor():
    from opemu.core import dtypes
    int4 = dtypes.acl("INT4")
    parts = tensor_list([DeviceTensor(np.zeros(2, np.float32)), DeviceTensor(np.zeros(1, np.uint8), shape=(2,),
                                                                               dtype=int4)])
    out = DeviceTensor(np.zeros((2, 2), np.float32))
    assert call("aclnnStack", parts, ctypes.c_int64(0), out)[0] == PARAM_INVALID
    assert "tensor 1 not implemented for DT_INT4, should be in dtype support list" in recent_error()


def test_promoted_dtype_not_castable_to_out_is_param_invalid():
    out = DeviceTensor(np.zeros((2, 2), np.int32))
    assert stack([np.zeros(2, np.float32)] * 2, 0, out)[0] == PARAM_INVALID
    assert "Result type DT_FLOAT can't be cast to the desired output type DT_INT32." in recent_error()


def test_dim_out_of_range_is_param_invalid():
    out = DeviceTensor(np.zeros((2, 2), np.float32))
    assert stack([np.zeros(2, np.float32)] * 2, 2, out)[0] == PARAM_INVALID
    assert "dimnum 2 exceed the dim range of the [-2, 1]." in recent_error()


def test_tensors_of_other_sizes_are_param_invalid():
    out = DeviceTensor(np.zeros((2, 2), np.float32))
    assert stack([np.zeros(2, np.float32), np.zeros(3, np.float32)], 0, out)[0] == PARAM_INVALID
    assert "dim 0 of tensor 1 is [3], should be equal to tensor 0 [2]." in recent_error()


def test_out_of_another_shape_is_param_invalid():
    out = DeviceTensor(np.zeros((4,), np.float32))
    assert stack([np.zeros(2, np.float32)] * 2, 0, out)[0] == PARAM_INVALID
    assert "The tensor's shape[2,2] is not equal with shape[4]." in recent_error()
