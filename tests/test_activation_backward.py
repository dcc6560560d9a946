"""aclnnSoftmaxBackward, aclnnLogSoftmaxBackward and aclnnThresholdBackward through the C ABI against
PyTorch CPU's autograd formulas, with their documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]


def close(actual, expected, dtype, scale=4):
    np.testing.assert_allclose(actual.astype(np.float64), from_torch(expected).astype(np.float64),
                               rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["aclnnSoftmaxBackward", "aclnnLogSoftmaxBackward"])
def test_softmax_backward_is_torchs(op, dtype, dim):
    rng = np.random.default_rng(0)
    x, grad = random((4, 6, 5), dtype, rng), random((4, 6, 5), dtype, rng)
    forward = torch.softmax if op == "aclnnSoftmaxBackward" else torch.log_softmax
    output = forward(to_torch(x).float(), dim).to(to_torch(x).dtype)
    out = DeviceTensor(np.zeros_like(x))
    assert call(op, DeviceTensor(grad), DeviceTensor(from_torch(output)), ctypes.c_int64(dim), out) == (0, 0, 0), \
        recent_error()
    backward = torch._softmax_backward_data if op == "aclnnSoftmaxBackward" else torch._log_softmax_backward_data
    expected = backward(to_torch(grad).float(), output.float(), dim, torch.float32)
    close(result(out), expected.to(to_torch(x).dtype), dtype)


@pytest.mark.parametrize("op", ["aclnnSoftmaxBackward", "aclnnLogSoftmaxBackward"])
def test_softmax_backward_dim_out_of_range_is_param_invalid(op):
    t = np.ones((2, 3), np.float32)
    assert call(op, DeviceTensor(t), DeviceTensor(t), ctypes.c_int64(2), DeviceTensor(t))[0] == PARAM_INVALID
    assert "provided dim 2 not in the range of input size 2." in recent_error()


@pytest.mark.parametrize("op", ["aclnnSoftmaxBackward", "aclnnLogSoftmaxBackward"])
def test_softmax_backward_shapes_must_be_equal(op):
    a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    assert call(op, DeviceTensor(a), DeviceTensor(b), ctypes.c_int64(0), DeviceTensor(a))[0] == PARAM_INVALID


def test_log_softmax_backward_inputs_of_different_dtypes_are_param_invalid():
    a, b = np.ones((2, 3), np.float32), np.ones((2, 3), np.float16)
    assert call("aclnnLogSoftmaxBackward", DeviceTensor(a), DeviceTensor(b), ctypes.c_int64(0),
                DeviceTensor(a))[0] == PARAM_INVALID
    assert "Expected both tensors to have same dtype" in recent_error()


def test_softmax_backward_null_output_is_nullptr():
    a = np.ones((2, 3), np.float32)
    assert call("aclnnSoftmaxBackward", DeviceTensor(a), None, ctypes.c_int64(0), DeviceTensor(a))[0] == PARAM_NULLPTR


@pytest.mark.parametrize("threshold", [0.0, 0.5])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int32], ids=lambda d: np.dtype(d).name)
def test_threshold_backward_passes_the_gradient_above_the_threshold(dtype, threshold):
    rng = np.random.default_rng(2)
    x, grad = random((5, 7), dtype, rng), random((5, 7), dtype, rng)
    out = DeviceTensor(np.zeros_like(x))
    assert call("aclnnThresholdBackward", DeviceTensor(grad), DeviceTensor(x), scalar(threshold, np.float32), out) == (0, 0, 0), \
        recent_error()
    expected = torch.ops.aten.threshold_backward(to_torch(grad), to_torch(x), threshold)
    np.testing.assert_array_equal(result(out).astype(np.float64), from_torch(expected).astype(np.float64))


def test_threshold_backward_broadcasts_gradient_and_self():
    x, grad = np.array([[-1.0, 2.0, 0.0]], np.float32), np.array([[1.0], [3.0]], np.float32)
    out = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnThresholdBackward", DeviceTensor(grad), DeviceTensor(x), scalar(0.0, np.float32), out) == (0, 0, 0)
    np.testing.assert_array_equal(result(out), [[0, 1, 0], [0, 3, 0]])


def test_threshold_backward_out_of_another_dtype_is_param_invalid():
    x = np.ones((2, 2), np.float32)
    assert call("aclnnThresholdBackward", DeviceTensor(x), DeviceTensor(x), scalar(0.0, np.float32),
                DeviceTensor(np.ones((2, 2), np.float16)))[0] == PARAM_INVALID


def test_threshold_backward_out_of_the_wrong_shape_is_param_invalid():
    x = np.ones((2, 2), np.float32)
    assert call("aclnnThresholdBackward", DeviceTensor(x), DeviceTensor(x), scalar(0.0, np.float32),
                DeviceTensor(np.ones((2, 3), np.float32)))[0] == PARAM_INVALID
    assert "Shape of out should be [2, 2], but current is [2, 3]." in recent_error()


def test_threshold_backward_null_threshold_is_nullptr():
    x = np.ones((2, 2), np.float32)
    assert call("aclnnThresholdBackward", DeviceTensor(x), DeviceTensor(x), None, DeviceTensor(x))[0] == PARAM_NULLPTR
