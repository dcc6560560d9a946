"""ops-math conversion/'s pads (constant, reflection, replication, circular and their backward), data movement
(roll, flatten, channel shuffle, slices, diag) and clamp forms, through the C ABI against PyTorch CPU, with their
documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, int_array, random, result, scalar, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
MODES = {"Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}


def padded_shape(shape, padding):
    shape = list(shape)
    for i in range(len(padding) // 2):
        shape[-1 - i] += padding[2 * i] + padding[2 * i + 1]
    return tuple(shape)


@pytest.mark.parametrize("op, shape, padding", [
    ("aclnnReflectionPad1d", (2, 3, 6), [2, 3]), ("aclnnReflectionPad2d", (1, 2, 4, 5), [1, 2, 3, 0]),
    ("aclnnReflectionPad3d", (1, 3, 4, 5), [1, 1, 2, 0, 1, 2]), ("aclnnReplicationPad1d", (3, 4), [3, 1]),
    ("aclnnReplicationPad2d", (2, 3, 3, 4), [2, 1, 0, 3]), ("aclnnReplicationPad3d", (1, 2, 3, 3, 2), [1, 2, 0, 1, 2, 1]),
    ("aclnnCircularPad2d", (2, 3, 4, 5), [2, 1, 4, 0]), ("aclnnCircularPad3d", (1, 2, 3, 4, 3), [1, 2, 1, 0, 3, 1]),
])
def test_mode_pad_matches_torch_pad(op, shape, padding):
    x = random(shape, np.float32, np.random.default_rng(1))
    out = DeviceTensor(np.zeros(padded_shape(shape, padding), np.float32))
    assert call(op, DeviceTensor(x), int_array(padding), out) == (0, 0, 0), recent_error()
    mode = MODES[op[5:op.index("Pad")]]
    reference = torch.nn.functional.pad(torch.from_numpy(x), padding, mode=mode)
    np.testing.assert_array_equal(result(out), reference.numpy())


@pytest.mark.parametrize("op, shape, padding", [
    ("aclnnReflectionPad1dBackward", (2, 3, 6), [2, 3]), ("aclnnReflectionPad2dBackward", (1, 2, 4, 5), [1, 2, 3, 0]),
    ("aclnnReplicationPad2dBackward", (2, 3, 3, 4), [2, 1, 0, 3]),
    ("aclnnReplicationPad3dBackward", (1, 2, 3, 3, 2), [1, 2, 0, 1, 2, 1]),
    ("aclnnCircularPad2dBackward", (2, 3, 4, 5), [2, 1, 4, 0]),
])
def test_mode_pad_backward_matches_torch_autograd(op, shape, padding):
    rng = np.random.default_rng(2)
    x = random(shape, np.float32, rng)
    grad = random(padded_shape(shape, padding), np.float32, rng)
    grad_input = DeviceTensor(np.zeros(shape, np.float32))
    assert call(op, DeviceTensor(grad), DeviceTensor(x), int_array(padding), grad_input) == (0, 0, 0), recent_error()
    leaf = torch.from_numpy(x).requires_grad_()
    torch.nn.functional.pad(leaf, padding, mode=MODES[op[5:op.index("Pad")]]).backward(torch.from_numpy(grad))
    np.testing.assert_allclose(result(grad_input), leaf.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_reflection_pad_as_wide_as_the_input_is_param_invalid():
    x = np.ones((1, 2, 3), np.float32)
    assert call("aclnnReflectionPad1d", DeviceTensor(x), int_array([3, 0]),
                DeviceTensor(np.zeros((1, 2, 6), np.float32)))[0] == PARAM_INVALID
    assert "padding size should be less than the corresponding self dimention." in recent_error()


def test_reflection_pad2d_short_padding_is_param_invalid():
    x = np.ones((1, 2, 3, 3), np.float32)
    assert call("aclnnReflectionPad2d", DeviceTensor(x), int_array([1, 1]), DeviceTensor(x))[0] == PARAM_INVALID
    assert "padding length should be 4, but got 2." in recent_error()


def test_replication_pad_wrong_out_shape_is_param_invalid():
    x = np.ones((2, 3), np.float32)
    assert call("aclnnReplicationPad1d", DeviceTensor(x), int_array([1, 1]), DeviceTensor(x))[0] == PARAM_INVALID
    assert "wrong out shape." in recent_error()


@pytest.mark.parametrize("pad", [[1, 2], [0, 1, 2, 0], [-1, 2, 1, -1]], ids=["last", "two", "negative"])
@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.int64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_constant_pad_nd_matches_torch(pad, dtype):
    x = random((2, 3, 4), dtype, np.random.default_rng(3))
    reference = torch.nn.functional.pad(to_torch(x), pad, value=1)
    out = DeviceTensor(np.zeros(tuple(reference.shape), dtype))
    assert call("aclnnConstantPadNd", DeviceTensor(x), int_array(pad), scalar(1, np.float32), out) == (0, 0, 0), \
        recent_error()
    np.testing.assert_array_equal(result(out), from_torch(reference))


def test_constant_pad_nd_odd_pad_is_param_invalid():
    x = np.ones((2, 3), np.float32)
    assert call("aclnnConstantPadNd", DeviceTensor(x), int_array([1]), scalar(0, np.float32),
                DeviceTensor(x))[0] == PARAM_INVALID
    assert "Pad len must be divisible by 2" in recent_error()


def test_constant_pad_nd_null_value_is_nullptr():
    x = np.ones((2, 3), np.float32)
    assert call("aclnnConstantPadNd", DeviceTensor(x), int_array([0, 0]), None, DeviceTensor(x))[0] == PARAM_NULLPTR


# ---- movement ----

@pytest.mark.parametrize("shifts, dims", [([2], [1]), ([1, -2], [0, 2]), ([5], [])], ids=["one", "two", "flat"])
def test_roll_matches_torch(shifts, dims):
    x = random((3, 4, 5), np.float16, np.random.default_rng(4))
    out = DeviceTensor(np.zeros_like(x))
    assert call("aclnnRoll", DeviceTensor(x), int_array(shifts), int_array(dims), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), torch.roll(torch.from_numpy(x), shifts, dims).numpy())


def test_roll_shifts_without_dims_must_be_one_is_param_invalid():
    x = np.ones((2, 2), np.float32)
    assert call("aclnnRoll", DeviceTensor(x), int_array([1, 1]), int_array([]), DeviceTensor(x))[0] == PARAM_INVALID
    assert "The size of shifts must be 1 if the size of dims is 0." in recent_error()


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_flatten_splits_at_axis(axis):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    a = axis % 3
    shape = (int(np.prod(x.shape[:a])), int(np.prod(x.shape[a:])))
    out = DeviceTensor(np.zeros(shape, np.int32))
    assert call("aclnnFlatten", DeviceTensor(x), ctypes.c_int64(axis), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), x.reshape(shape))


def test_channel_shuffle_matches_torch():
    x = np.arange(2 * 6 * 3, dtype=np.float32).reshape(2, 6, 3)
    out = DeviceTensor(np.zeros_like(x))
    assert call("aclnnChannelShuffle", DeviceTensor(x), ctypes.c_int64(3), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), torch.nn.functional.channel_shuffle(torch.from_numpy(x), 3).numpy())


@pytest.mark.parametrize("dim, start, end, step", [(1, 1, 7, 2), (0, -2, 100, 1), (-1, 0, -1, 3)])
def test_slice_matches_python_slices(dim, start, end, step):
    x = np.arange(4 * 8 * 5, dtype=np.float32).reshape(4, 8, 5)
    index = [slice(None)] * 3
    index[dim] = slice(start, end, step)
    expected = x[tuple(index)]
    out = DeviceTensor(np.zeros(expected.shape, np.float32))
    assert call("aclnnSlice", DeviceTensor(x), ctypes.c_int64(dim), ctypes.c_int64(start), ctypes.c_int64(end),
                ctypes.c_int64(step), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), expected)


def test_slice_step_zero_is_param_invalid():
    x = np.ones((4,), np.float32)
    assert call("aclnnSlice", DeviceTensor(x), ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(4),
                ctypes.c_int64(0), DeviceTensor(x))[0] == PARAM_INVALID
    assert "aclnnSlice step must be positive." in recent_error()


def test_slice_v2_cuts_several_axes():
    x = np.arange(6 * 7, dtype=np.int64).reshape(6, 7)
    expected = x[1:5:2, -3:7:1]
    out = DeviceTensor(np.zeros(expected.shape, np.int64))
    assert call("aclnnSliceV2", DeviceTensor(x), int_array([1, -3]), int_array([5, 7]), int_array([0, 1]),
                int_array([2, 1]), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), expected)


@pytest.mark.parametrize("shape, diagonal", [((4,), 0), ((3,), -2), ((3, 5), 1), ((4, 3), -1)])
def test_diag_matches_torch(shape, diagonal):
    x = random(shape, np.float32, np.random.default_rng(5))
    reference = torch.diag(torch.from_numpy(x), diagonal)
    out = DeviceTensor(np.zeros(tuple(reference.shape), np.float32))
    assert call("aclnnDiag", DeviceTensor(x), ctypes.c_int64(diagonal), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), reference.numpy())


def test_diag_flat_matches_torch():
    x = random((2, 2), np.int32, np.random.default_rng(6))
    reference = torch.diagflat(torch.from_numpy(x), 1)
    out = DeviceTensor(np.zeros(tuple(reference.shape), np.int32))
    assert call("aclnnDiagFlat", DeviceTensor(x), ctypes.c_int64(1), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), reference.numpy())


# ---- clamp forms ----

def test_clamp_min_and_max_match_torch():
    x = random((3, 4), np.float32, np.random.default_rng(7))
    for op, reference in (("aclnnClampMin", torch.clamp_min(torch.from_numpy(x), -0.5)),
                          ("aclnnClampMax", torch.clamp_max(torch.from_numpy(x), -0.5))):
        out = DeviceTensor(np.zeros_like(x))
        assert call(op, DeviceTensor(x), scalar(-0.5, np.float32), out) == (0, 0, 0), recent_error()
        np.testing.assert_array_equal(result(out), reference.numpy())


def test_clamp_tensor_broadcasts_its_bounds():
    x = random((3, 4), np.float32, np.random.default_rng(8))
    low, high = np.full((1, 4), -1, np.float32), np.array([[0.5], [1], [2]], np.float32)
    out = DeviceTensor(np.zeros_like(x))
    assert call("aclnnClampTensor", DeviceTensor(x), DeviceTensor(low), DeviceTensor(high), out) == (0, 0, 0), \
        recent_error()
    reference = torch.clamp(torch.from_numpy(x), torch.from_numpy(low), torch.from_numpy(high))
    np.testing.assert_array_equal(result(out), reference.numpy())


def test_inplace_clamp_max_tensor_rewrites_self():
    x = random((5,), np.float32, np.random.default_rng(9))
    high = np.zeros(5, np.float32)
    self_ref = DeviceTensor(x)
    assert call("aclnnInplaceClampMaxTensor", self_ref, DeviceTensor(high)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(self_ref), np.minimum(x, 0))


def test_hardtanh_matches_torch():
    x = random((4, 4), np.float16, np.random.default_rng(10))
    out = DeviceTensor(np.zeros_like(x))
    assert call("aclnnHardtanh", DeviceTensor(x), scalar(-1, np.float32), scalar(1, np.float32), out) == (0, 0, 0)
    np.testing.assert_array_equal(result(out), torch.nn.functional.hardtanh(torch.from_numpy(x)).numpy())
