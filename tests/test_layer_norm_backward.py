"""aclnnLayerNormBackward (ops-nn norm/layer_norm_grad_v3) through the C ABI: torch's autograd of layer_norm as
the oracle, and the op_api's checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, int_array, random, result, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
F = np.float32


def bools(values):
    from acl import lib
    create = lib().aclCreateBoolArray
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    return ctypes.c_void_p(create((ctypes.c_bool * len(values))(*values), len(values)))


def zeros(shape, dtype=F):
    return DeviceTensor(np.zeros(shape, dtype))


def statistics(x, n_axes, eps=1e-5):
    """torch's saved mean and rstd, shaped (A..., 1, ..., 1) as torch_npu hands them over."""
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    xt = to_torch(x).float()
    mean = xt.mean(axes, keepdim=True)
    rstd = torch.rsqrt(xt.var(axes, unbiased=False, keepdim=True) + eps)
    return mean.numpy(), rstd.numpy()


def backward(x, dy, normalized, weight, mask=(True, True, True), out_dtype=None):
    out_dtype = out_dtype or x.dtype
    mean, rstd = statistics(x, len(normalized))
    outs = (zeros(x.shape, out_dtype), zeros(normalized, out_dtype), zeros(normalized, out_dtype))
    got = call("aclnnLayerNormBackward", DeviceTensor(dy), DeviceTensor(x), int_array(list(normalized)),
               DeviceTensor(mean), DeviceTensor(rstd), DeviceTensor(weight) if weight is not None else None,
               DeviceTensor(np.zeros(normalized, x.dtype)), bools(list(mask)), *outs)
    assert got == (0, 0, 0), recent_error()
    return [result(o) for o in outs]


def torch_backward(x, dy, normalized, weight):
    xt = to_torch(x).float().requires_grad_()
    wt = to_torch(weight).float().requires_grad_() if weight is not None else torch.ones(normalized,
                                                                                        requires_grad=True)
    bt = torch.zeros(normalized, requires_grad=True)
    torch.nn.functional.layer_norm(xt, normalized, wt, bt, 1e-5).backward(to_torch(dy).float())
    return xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()


def close(actual, expected, dtype, scale=8):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


@pytest.mark.parametrize("dtype", [F, np.float16, ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("normalized", [(6,), (3, 6)], ids=["last axis", "last two axes"])
def test_layer_norm_backward_like_torch_autograd(dtype, normalized):
    rng = np.random.default_rng(31)
    x, dy, w = random((2, 3, 6), dtype, rng), random((2, 3, 6), dtype, rng), random(normalized, dtype, rng)
    for got, expected in zip(backward(x, dy, normalized, w), torch_backward(x, dy, normalized, w)):
        # dγ and dβ sum a column over the rows: their error grows with the values summed
        close(got, expected, dtype)


def test_layer_norm_backward_without_weight_uses_ones():
    rng = np.random.default_rng(32)
    x, dy = random((4, 8), F, rng), random((4, 8), F, rng)
    for got, expected in zip(backward(x, dy, (8,), None), torch_backward(x, dy, (8,), None)):
        close(got, expected, F)


def test_layer_norm_backward_fp32_weight_with_fp16_input():
    rng = np.random.default_rng(33)
    x, dy, w = random((4, 8), np.float16, rng), random((4, 8), np.float16, rng), random((8,), F, rng)
    for got, expected in zip(backward(x, dy, (8,), w), torch_backward(x, dy, (8,), w)):
        close(got, expected, np.float16)


def test_layer_norm_backward_writes_only_the_masked_outputs():
    rng = np.random.default_rng(34)
    x, dy, w = random((4, 8), F, rng), random((4, 8), F, rng), random((8,), F, rng)
    dx, dw, db = backward(x, dy, (8,), w, mask=(False, True, False))
    expected = torch_backward(x, dy, (8,), w)
    assert not dx.any() and not db.any()
    close(dw, expected[1], F)


def test_layer_norm_backward_of_no_rows_zeroes_weight_and_bias_gradients():
    mean, rstd = zeros((0, 1)), zeros((0, 1))
    dw, db = DeviceTensor(np.full((5,), 3, F)), DeviceTensor(np.full((5,), 3, F))
    assert call("aclnnLayerNormBackward", zeros((0, 5)), zeros((0, 5)), int_array([5]), mean, rstd, None, None,
                bools([True, True, True]), zeros((0, 5)), dw, db) == (0, 0, 0), recent_error()
    assert not result(dw).any() and not result(db).any()


def checked(x_shape=(2, 4), normalized=(4,), mean_shape=(2, 1), mask=(True, True, True), dy_dtype=F,
            outputs=True):
    outs = (zeros(x_shape), zeros(normalized), zeros(normalized)) if outputs else (None, None, None)
    status = call("aclnnLayerNormBackward", zeros(x_shape, dy_dtype), zeros(x_shape), int_array(list(normalized)),
                  zeros(mean_shape), zeros(mean_shape), None, None, bools(list(mask)), *outs)[0]
    return status, recent_error()


def test_output_mask_of_another_length_is_invalid():
    status, message = checked(mask=(True, True))
    assert status == PARAM_INVALID and "outputMask len to be 3, but got 2" in message


def test_a_requested_output_may_not_be_null():
    status, message = checked(outputs=False)
    assert status == PARAM_NULLPTR and "gradInputOut" in message


def test_unrequested_outputs_may_be_null():
    assert checked(mask=(False, False, False), outputs=False)[0] == 0


def test_grad_out_and_input_have_one_dtype():
    status, message = checked(dy_dtype=np.float16)
    assert status == PARAM_INVALID and "same dtype" in message


def test_mean_holds_one_value_per_row():
    status, message = checked(mean_shape=(3, 1))
    assert status == PARAM_INVALID and "mean shape size [3, 1] to be equal to 2" in message


def test_normalized_shape_may_not_be_empty():
    status, message = checked(normalized=())
    assert status == PARAM_INVALID and "normalizedShape len [0] to be greater than [1]" in message


def test_normalized_shape_is_the_tail_of_input():
    status, message = checked(x_shape=(2, 3, 4), normalized=(3, 5), mean_shape=(2, 1, 1))
    assert status == PARAM_INVALID and \
        "Expected normalized index [1] shape [5] be equal to tensor index [2] shape [4], but failed." in message


def test_input_axes_the_op_api_loop_skips_reach_the_gradient_size_check():
    # the op_api compares normalizedShape[i] with input's axis i + 1 from i = 1 on: axis 1 (3 against 5) passes
    status, message = checked(x_shape=(2, 3, 4), normalized=(5, 4), mean_shape=(2, 1, 1))
    assert status == PARAM_INVALID and "gradWeightOut shape size [[5, 4]] to be equal to [12]" in message
