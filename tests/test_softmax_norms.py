"""aclnnSoftmax / LogSoftmax / RmsNorm / LayerNorm through the C ABI against PyTorch CPU, with
their documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, int_array, random, result, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID, RUNTIME_ERROR, TILING_ERROR = 161001, 161002, 361001, 561002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]


def close(actual, expected, dtype, scale=2):
    np.testing.assert_allclose(actual.astype(np.float64), from_torch(expected).astype(np.float64),
                               rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["aclnnSoftmax", "aclnnLogSoftmax"])
def test_softmax_like_torch(op, dtype, dim):
    x = random((4, 6, 5), dtype, np.random.default_rng(0))
    do = DeviceTensor(np.zeros_like(x))
    assert call(op, DeviceTensor(x), ctypes.c_int64(dim), do) == (0, 0, 0), recent_error()
    fn = torch.softmax if op == "aclnnSoftmax" else torch.log_softmax
    close(result(do), fn(to_torch(x).float(), dim).to(to_torch(x).dtype), dtype, scale=4)


def test_softmax_into_a_wider_out_rounds_through_self_dtype():
    x = random((3, 7), np.float16, np.random.default_rng(1))
    do = DeviceTensor(np.zeros((3, 7), np.float32))
    assert call("aclnnSoftmax", DeviceTensor(x), ctypes.c_int64(1), do) == (0, 0, 0), recent_error()
    expected = torch.softmax(to_torch(x).float(), 1).half().float()
    np.testing.assert_allclose(result(do), expected.numpy(), rtol=1e-3, atol=1e-3)
    assert np.all(result(do) == result(do).astype(np.float16))  # values are fp16 ones


def test_softmax_on_a_strided_view():
    storage = random((40,), np.float32, np.random.default_rng(2))
    dx = DeviceTensor(storage, shape=(4, 5), strides=(1, 8))
    do = DeviceTensor(np.zeros((4, 5), np.float32))
    assert call("aclnnSoftmax", dx, ctypes.c_int64(1), do) == (0, 0, 0), recent_error()
    view = np.lib.stride_tricks.as_strided(storage, (4, 5), (4, 32))
    close(result(do), torch.softmax(to_torch(np.ascontiguousarray(view)), 1), np.float32)


def test_softmax_dim_out_of_range():
    d = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnSoftmax", d, ctypes.c_int64(2), d)[0] == PARAM_INVALID
    assert "provided dim 2 not in the range of input size 2." in recent_error()


def test_softmax_empty_self_succeeds_before_dtype_checks():
    d = DeviceTensor(np.zeros((0, 3), np.int32))
    assert call("aclnnSoftmax", d, ctypes.c_int64(5), d) == (0, 0, 0), recent_error()


def test_softmax_dtype_and_shape_checks():
    d, i = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((2, 3), np.int32))
    assert call("aclnnSoftmax", i, ctypes.c_int64(0), d)[0] == PARAM_INVALID
    assert "Tensor self not implemented for DT_INT32" in recent_error()
    assert call("aclnnSoftmax", d, ctypes.c_int64(0), DeviceTensor(np.zeros((3, 2), np.float32)))[0] == PARAM_INVALID


RMS_CASES = [(np.float32, np.float32), (np.float16, np.float16), (np.float16, np.float32), (BF16, BF16),
             (BF16, np.float32)]


@pytest.mark.parametrize("x_dtype,gamma_dtype", RMS_CASES, ids=str)
def test_rms_norm_like_torch(x_dtype, gamma_dtype):
    rng = np.random.default_rng(3)
    x, gamma = random((3, 4, 16), x_dtype, rng), random((16,), gamma_dtype, rng)
    dy, dr = DeviceTensor(np.zeros_like(x)), DeviceTensor(np.zeros((3, 4, 1), np.float32))
    assert call("aclnnRmsNorm", DeviceTensor(x), DeviceTensor(gamma), ctypes.c_double(1e-6), dy, dr) == (0, 0, 0), \
        recent_error()
    xt = to_torch(x).float()
    rstd = torch.rsqrt(xt.pow(2).mean(-1, keepdim=True) + 1e-6)
    close(result(dr), rstd, np.float32, scale=4)
    close(result(dy), (xt * rstd * to_torch(gamma).float()).to(to_torch(x).dtype), x_dtype, scale=4)


def test_rms_norm_over_two_trailing_dims():
    rng = np.random.default_rng(4)
    x, gamma = random((2, 3, 4, 8), np.float32, rng), random((4, 8), np.float32, rng)
    dy, dr = DeviceTensor(np.zeros_like(x)), DeviceTensor(np.zeros((2, 3, 1, 1), np.float32))
    assert call("aclnnRmsNorm", DeviceTensor(x), DeviceTensor(gamma), ctypes.c_double(1e-5), dy, dr) == (0, 0, 0), \
        recent_error()
    expected = torch.nn.functional.rms_norm(to_torch(x), (4, 8), to_torch(gamma), eps=1e-5)
    close(result(dy), expected, np.float32, scale=4)


def test_rms_norm_rstd_axes_are_one_or_xs_whatever_the_rank():
    """The tiling asks each rstd axis to be 1 or x's; llama.cpp passes rstd with x's rank - 1."""
    rng = np.random.default_rng(5)
    x, gamma = random((3, 4, 16), np.float32, rng), random((16,), np.float32, rng)
    dr = DeviceTensor(np.zeros((3, 4), np.float32))
    assert call("aclnnRmsNorm", DeviceTensor(x), DeviceTensor(gamma), ctypes.c_double(1e-6),
                DeviceTensor(np.zeros_like(x)), dr) == (0, 0, 0), recent_error()
    close(result(dr), torch.rsqrt(to_torch(x).pow(2).mean(-1) + 1e-6), np.float32, scale=4)
    wrong = DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnRmsNorm", DeviceTensor(x), DeviceTensor(gamma), ctypes.c_double(1e-6),
                DeviceTensor(np.zeros_like(x)), wrong)[0] == TILING_ERROR


def test_rms_norm_dtype_combination():
    x, g = DeviceTensor(np.zeros((2, 4), np.float32)), DeviceTensor(np.zeros(4, np.float16))
    assert call("aclnnRmsNorm", x, g, ctypes.c_double(1e-6), x, DeviceTensor(np.zeros((2, 1), np.float32)))[0] \
        == PARAM_INVALID


def test_rms_norm_gamma_shape_is_a_tiling_error():
    x, g = DeviceTensor(np.zeros((2, 4), np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnRmsNorm", x, g, ctypes.c_double(1e-6), x, DeviceTensor(np.zeros((2, 1), np.float32)))[0] \
        == TILING_ERROR


def test_rms_norm_is_not_supported_on_the_910(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    x, g = DeviceTensor(np.zeros((2, 4), np.float32)), DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnRmsNorm", x, g, ctypes.c_double(1e-6), x, DeviceTensor(np.zeros((2, 1), np.float32)))[0] \
        == RUNTIME_ERROR


def test_rms_norm_null_gamma():
    x = DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnRmsNorm", x, None, ctypes.c_double(1e-6), x, x)[0] == PARAM_NULLPTR


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_layer_norm_like_torch(dtype, affine):
    rng = np.random.default_rng(5)
    x = random((3, 5, 12), dtype, rng)
    w, b = (random((12,), dtype, rng), random((12,), dtype, rng)) if affine else (None, None)
    do = DeviceTensor(np.zeros_like(x))
    dm, dr = DeviceTensor(np.zeros((3, 5, 1), dtype)), DeviceTensor(np.zeros((3, 5, 1), dtype))
    assert call("aclnnLayerNorm", DeviceTensor(x), int_array([12]), DeviceTensor(w) if affine else None,
                DeviceTensor(b) if affine else None, ctypes.c_double(1e-5), do, dm, dr) == (0, 0, 0), recent_error()
    xt = to_torch(x).float()
    expected = torch.nn.functional.layer_norm(xt, (12,), to_torch(w).float() if affine else None,
                                              to_torch(b).float() if affine else None, 1e-5)
    close(result(do), expected.to(to_torch(x).dtype), dtype, scale=6)
    close(result(dm), xt.mean(-1, keepdim=True).to(to_torch(x).dtype), dtype, scale=4)
    close(result(dr), torch.rsqrt(xt.var(-1, unbiased=False, keepdim=True) + 1e-5).to(to_torch(x).dtype), dtype,
          scale=8)


def test_layer_norm_normalized_shape_mismatch():
    x = DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnLayerNorm", x, int_array([3]), None, None, ctypes.c_double(1e-5), x, None, None)[0] \
        == PARAM_INVALID
    assert "Expected normalized index [0] shape [3] be equal to input index [1] shape [4], but failed." \
        in recent_error()


def test_layer_norm_weight_dtype_must_match_input_unless_float():
    x, w = DeviceTensor(np.zeros((2, 4), np.float16)), DeviceTensor(np.zeros(4, BF16))
    assert call("aclnnLayerNorm", x, int_array([4]), w, None, ctypes.c_double(1e-5), x, None, None)[0] \
        == PARAM_INVALID
    assert "Expected both tensors to have same dtype" in recent_error()


def test_layer_norm_empty_normalized_shape():
    x = DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnLayerNorm", x, int_array([]), None, None, ctypes.c_double(1e-5), x, None, None)[0] \
        == PARAM_INVALID


def test_layer_norm_null_normalized_shape():
    x = DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnLayerNorm", x, None, None, None, ctypes.c_double(1e-5), x, None, None)[0] == PARAM_NULLPTR
