"""ops-nn activation/: the elementwise activations and their backward rows, the gated linear units, PReLU,
RReLU with noise, softmax cross-entropy and the log-sigmoid family through the C ABI, against PyTorch CPU
(forward functions and autograd), and the documented checks with their status and message."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]
ids = lambda d: np.dtype(d).name  # noqa: E731


def close(actual, expected, dtype, scale=2):
    expected = from_torch(expected) if isinstance(expected, torch.Tensor) else expected
    np.testing.assert_allclose(actual.astype(np.float64), np.asarray(expected, np.float64),
                               rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


def f64(array):
    return torch.from_numpy(array.astype(np.float64))


def rounded(tensor, dtype):
    """A float64 oracle result rounded once into `dtype`, as the kernels round."""
    return tensor.detach().numpy().astype(np.float32).astype(dtype)


# ---- forward rows: op → (header arguments after self, torch function of a float64 tensor)
def _s(value):
    return scalar(value, np.float64)


FORWARD = {
    "aclnnFastGelu": ((), lambda t: t * torch.sigmoid(1.702 * t)),
    "aclnnElu": ((_s(0.7), _s(1.2), _s(0.9)), lambda t: 1.2 * torch.where(t > 0, t, 0.7 * torch.expm1(0.9 * t))),
    "aclnnCelu": ((_s(0.8),), lambda t: F.celu(t, 0.8)),
    "aclnnSelu": ((), F.selu),
    "aclnnLeakyRelu": ((_s(0.1),), lambda t: F.leaky_relu(t, 0.1)),
    "aclnnHardshrink": ((_s(0.5),), lambda t: F.hardshrink(t, 0.5)),
    "aclnnSoftshrink": ((_s(0.5),), lambda t: F.softshrink(t, 0.5)),
    "aclnnShrink": ((_s(0.5), _s(0.25)), lambda t: torch.where(t > 0.5, t - 0.25, torch.where(t < -0.5, t + 0.25, 0))),
    "aclnnHardsigmoid": ((), F.hardsigmoid),
    "aclnnHardswish": ((), F.hardswish),
    "aclnnLogSigmoid": ((), F.logsigmoid),
    "aclnnMish": ((), F.mish),
    "aclnnSoftplus": ((_s(2.0), _s(3.0)), lambda t: F.softplus(t, 2.0, 3.0)),
    "aclnnSwish": ((_s(1.5),), lambda t: t * torch.sigmoid(1.5 * t)),
    "aclnnThreshold": ((_s(0.3), _s(-2.0)), lambda t: F.threshold(t, 0.3, -2.0)),
    "aclnnSquaredRelu": ((), lambda t: torch.relu(t) ** 2),
    "aclnnErfinv": ((), torch.erfinv),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=ids)
@pytest.mark.parametrize("op", sorted(FORWARD))
def test_forward_activation_computes_like_torch(op, dtype):
    if op == "aclnnShrink" and dtype == BF16:
        pytest.skip("Shrink takes FLOAT and FLOAT16 only")
    extra, oracle = FORWARD[op]
    low, high = (-0.95, 0.95) if op == "aclnnErfinv" else (-4, 4)
    x = random((3, 17), dtype, np.random.default_rng(0), low, high)
    out = DeviceTensor(np.zeros(x.shape, dtype))
    assert call(op, DeviceTensor(x), *extra, out) == (0, 0, 0), recent_error()
    close(result(out), rounded(oracle(f64(x)), dtype), dtype, scale=4 if op == "aclnnErfinv" else 2)


@pytest.mark.parametrize("op", ["aclnnInplaceElu", "aclnnInplaceCelu", "aclnnInplaceSelu", "aclnnInplaceLeakyRelu",
                                "aclnnInplaceHardsigmoid", "aclnnInplaceHardswish", "aclnnInplaceMish",
                                "aclnnInplaceThreshold", "aclnnInplaceErfinv"])
def test_inplace_activation_writes_self(op):
    forward = "aclnn" + op[len("aclnnInplace"):]
    extra, oracle = FORWARD[forward]
    x = random((4, 5), np.float32, np.random.default_rng(1), -0.9, 0.9)
    target = DeviceTensor(x)
    assert call(op, target, *extra) == (0, 0, 0), recent_error()
    close(result(target), rounded(oracle(f64(x)), np.float32), np.float32, scale=4)


def test_add_relu_is_relu_of_self_plus_alpha_other():
    rng = np.random.default_rng(2)
    x, y = random((2, 3), np.float32, rng), random((3,), np.float32, rng)
    out = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnAddRelu", DeviceTensor(x), DeviceTensor(y), _s(2.0), out) == (0, 0, 0), recent_error()
    close(result(out), torch.relu(f64(x) + 2 * f64(y)).numpy(), np.float32)


def test_heaviside_takes_values_where_input_is_zero():
    x = np.array([-1.5, 0.0, 2.0, 0.0], np.float32)
    values = np.array([0.5, 0.25, 0.5, 0.75], np.float32)
    out = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnHeaviside", DeviceTensor(x), DeviceTensor(values), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), torch.heaviside(to_torch(x), to_torch(values)).numpy())


# ---- backward rows: op → (arguments around (gradOutput, x): a function of the device tensors, forward function)
def _backward_args(before=(), after=()):
    return lambda grad, x: (grad, *before, x, *after)


BACKWARD = {
    "aclnnGeluBackward": (_backward_args(), lambda t: F.gelu(t, approximate="tanh")),
    "aclnnSiluBackward": (_backward_args(), F.silu),
    "aclnnFastGeluBackward": (_backward_args(), lambda t: t * torch.sigmoid(1.702 * t)),
    "aclnnSwishBackward": (_backward_args(after=(_s(1.5),)), lambda t: t * torch.sigmoid(1.5 * t)),
    "aclnnHardshrinkBackward": (_backward_args(after=(_s(0.5),)), lambda t: F.hardshrink(t, 0.5)),
    "aclnnSoftshrinkBackward": (_backward_args(after=(_s(0.5),)), lambda t: F.softshrink(t, 0.5)),
    "aclnnHardsigmoidBackward": (_backward_args(), F.hardsigmoid),
    "aclnnHardswishBackwardV2": (_backward_args(), F.hardswish),
    "aclnnHardtanhBackward": (_backward_args(after=(_s(-1.0), _s(2.0))), lambda t: F.hardtanh(t, -1.0, 2.0)),
    "aclnnLeakyReluBackward": (_backward_args(after=(_s(0.1), ctypes.c_bool(False))),
                               lambda t: F.leaky_relu(t, 0.1)),
    "aclnnMishBackward": (_backward_args(), F.mish),
    "aclnnSoftplusBackward": (_backward_args(after=(_s(2.0), _s(3.0))), lambda t: F.softplus(t, 2.0, 3.0)),
    "aclnnEluBackward": (_backward_args(before=(_s(0.7), _s(1.2), _s(0.9), ctypes.c_bool(False))),
                         lambda t: 1.2 * torch.where(t > 0, t, 0.7 * torch.expm1(0.9 * t))),
}


def autograd(function, x, grad):
    t = f64(x).requires_grad_()
    function(t).backward(f64(grad))
    return t.grad


@pytest.mark.parametrize("dtype", FLOATS, ids=ids)
@pytest.mark.parametrize("op", sorted(BACKWARD))
def test_backward_row_is_the_forward_derivative(op, dtype):
    arguments, forward = BACKWARD[op]
    rng = np.random.default_rng(3)
    x = random((4, 9), dtype, rng)
    x[np.abs(x.astype(np.float32)) % 0.5 < 0.02] = 0.26   # away from the kinks of the piecewise functions
    grad = random((4, 9), dtype, rng)
    out = DeviceTensor(np.zeros(x.shape, dtype))
    assert call(op, *arguments(DeviceTensor(grad), DeviceTensor(x)), out) == (0, 0, 0), recent_error()
    close(result(out), rounded(autograd(forward, x, grad), dtype), dtype, scale=4)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_v2_follows_approximate(approximate):
    rng = np.random.default_rng(4)
    x, grad = random((5, 6), np.float32, rng), random((5, 6), np.float32, rng)
    out = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnGeluBackwardV2", DeviceTensor(grad), DeviceTensor(x), ctypes.c_char_p(approximate.encode()),
                out) == (0, 0, 0), recent_error()
    close(result(out), autograd(lambda t: F.gelu(t, approximate=approximate), x, grad).numpy(), np.float32)


def test_gelu_backward_v2_refuses_another_approximate():
    x = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnGeluBackwardV2", x, x, ctypes.c_char_p(b"erf"), DeviceTensor(np.zeros(3, np.float32)))[0] \
        == PARAM_INVALID
    assert "approximate only supports to set none or tanh, but got erf." in recent_error()


def test_gelu_backward_broadcasts_gradoutput():
    rng = np.random.default_rng(5)
    x, grad = random((3, 4), np.float32, rng), random((4,), np.float32, rng)
    out = DeviceTensor(np.zeros((3, 4), np.float32))
    assert call("aclnnGeluBackward", DeviceTensor(grad), DeviceTensor(x), out) == (0, 0, 0), recent_error()
    expected = autograd(lambda t: F.gelu(t, approximate="tanh"), x, np.broadcast_to(grad, x.shape))
    close(result(out), expected.numpy(), np.float32)


def test_sigmoid_and_selu_backward_take_the_forward_result():
    rng = np.random.default_rng(6)
    x, grad = random((6,), np.float32, rng), random((6,), np.float32, rng)
    y = torch.sigmoid(f64(x)).numpy().astype(np.float32)
    out = DeviceTensor(np.zeros(6, np.float32))
    assert call("aclnnSigmoidBackward", DeviceTensor(grad), DeviceTensor(y), out) == (0, 0, 0), recent_error()
    close(result(out), autograd(torch.sigmoid, x, grad).numpy(), np.float32, scale=8)
    y = F.selu(f64(x)).numpy().astype(np.float32)
    assert call("aclnnSeluBackward", DeviceTensor(grad), DeviceTensor(y), out) == (0, 0, 0), recent_error()
    close(result(out), autograd(F.selu, x, grad).numpy(), np.float32, scale=8)


def test_silu_backward_refuses_a_gradinput_of_another_dtype():
    x = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnSiluBackward", x, x, DeviceTensor(np.zeros(3, np.float16)))[0] == PARAM_INVALID


def test_a_backward_row_refuses_an_integer_gradient():
    x = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnMishBackward", DeviceTensor(np.zeros(3, np.int32)), x, x)[0] == PARAM_INVALID
    assert "gradOutput" in recent_error()


# ---- gated linear units
def _halves(t, dim):
    return t.chunk(2, dim=dim)


@pytest.mark.parametrize("dtype", FLOATS, ids=ids)
def test_glu_and_its_backward_like_torch(dtype):
    rng = np.random.default_rng(7)
    x, grad = random((4, 6, 3), dtype, rng), random((4, 3, 3), dtype, rng)
    out = DeviceTensor(np.zeros((4, 3, 3), dtype))
    assert call("aclnnGlu", DeviceTensor(x), ctypes.c_int64(1), out) == (0, 0, 0), recent_error()
    close(result(out), rounded(F.glu(f64(x), 1), dtype), dtype)
    grad_in = DeviceTensor(np.zeros(x.shape, dtype))
    assert call("aclnnGluBackward", DeviceTensor(grad), DeviceTensor(x), ctypes.c_int64(1), grad_in) == (0, 0, 0)
    close(result(grad_in), rounded(autograd(lambda t: F.glu(t, 1), x, grad), dtype), dtype, scale=4)


def test_glu_refuses_an_odd_dimension():
    x = DeviceTensor(np.zeros((3, 5), np.float32))
    assert call("aclnnGlu", x, ctypes.c_int64(-1), DeviceTensor(np.zeros((3, 2), np.float32)))[0] == PARAM_INVALID
    assert "Split dimension must be even, but dimension -1 is size 5." in recent_error()


def test_swiglu_gates_the_first_half_with_silu():
    rng = np.random.default_rng(8)
    x, grad = random((2, 8), np.float32, rng), random((2, 4), np.float32, rng)
    swiglu = lambda t: F.silu(_halves(t, -1)[0]) * _halves(t, -1)[1]  # noqa: E731
    out = DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnSwiGlu", DeviceTensor(x), ctypes.c_int64(-1), out) == (0, 0, 0), recent_error()
    close(result(out), swiglu(f64(x)).numpy(), np.float32)
    grad_in = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnSwiGluGrad", DeviceTensor(grad), DeviceTensor(x), ctypes.c_int64(-1), grad_in) == (0, 0, 0)
    close(result(grad_in), autograd(swiglu, x, grad).numpy(), np.float32, scale=4)


@pytest.mark.parametrize("approximate", [0, 1])
def test_geglu_writes_the_gelu_half_too(approximate):
    rng = np.random.default_rng(9)
    x = random((3, 10), np.float32, rng)
    gelu = lambda t: F.gelu(t, approximate="tanh" if approximate else "none")  # noqa: E731
    out, out_gelu = DeviceTensor(np.zeros((3, 5), np.float32)), DeviceTensor(np.zeros((3, 5), np.float32))
    assert call("aclnnGeGlu", DeviceTensor(x), ctypes.c_int64(-1), ctypes.c_int64(approximate), out, out_gelu) \
        == (0, 0, 0), recent_error()
    a, b = _halves(f64(x), -1)
    close(result(out), (a * gelu(b)).numpy(), np.float32)
    close(result(out_gelu), gelu(b).numpy(), np.float32)


def test_geglu_v3_activates_the_left_half_when_asked():
    rng = np.random.default_rng(10)
    x, grad = random((2, 6), np.float32, rng), random((2, 3), np.float32, rng)
    out, out_gelu = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnGeGluV3", DeviceTensor(x), ctypes.c_int64(-1), ctypes.c_int64(0), ctypes.c_bool(True), out,
                out_gelu) == (0, 0, 0), recent_error()
    geglu = lambda t: F.gelu(_halves(t, -1)[0]) * _halves(t, -1)[1]  # noqa: E731
    close(result(out), geglu(f64(x)).numpy(), np.float32)
    grad_in = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnGeGluV3Backward", DeviceTensor(grad), DeviceTensor(x), out_gelu, ctypes.c_int64(-1),
                ctypes.c_int64(0), ctypes.c_bool(True), grad_in) == (0, 0, 0), recent_error()
    close(result(grad_in), autograd(geglu, x, grad).numpy(), np.float32, scale=4)


def test_gelu_mul_and_fatrelu_mul_cut_the_last_dimension():
    rng = np.random.default_rng(11)
    x = random((3, 8), np.float32, rng)
    a, b = _halves(f64(x), -1)
    out = DeviceTensor(np.zeros((3, 4), np.float32))
    assert call("aclnnGeluMul", DeviceTensor(x), ctypes.c_char_p(b"tanh"), out) == (0, 0, 0), recent_error()
    close(result(out), (F.gelu(a, approximate="tanh") * b).numpy(), np.float32)
    threshold = DeviceTensor(np.array([0.2], np.float32))
    assert call("aclnnFatreluMul", DeviceTensor(x), threshold, out) == (0, 0, 0), recent_error()
    close(result(out), (torch.where(a >= 0.2, a, 0) * b).numpy(), np.float32)


# ---- PReLU
@pytest.mark.parametrize("channels", [1, 4])
def test_prelu_and_its_backward_like_torch(channels):
    rng = np.random.default_rng(12)
    x, grad = random((2, 4, 3), np.float32, rng), random((2, 4, 3), np.float32, rng)
    w = random((channels,), np.float32, rng, 0, 1)
    out = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnPrelu", DeviceTensor(x), DeviceTensor(w), out) == (0, 0, 0), recent_error()
    close(result(out), F.prelu(f64(x), f64(w)).numpy(), np.float32)
    tx, tw = f64(x).requires_grad_(), f64(w).requires_grad_()
    F.prelu(tx, tw).backward(f64(grad))
    grad_in, grad_w = DeviceTensor(np.zeros(x.shape, np.float32)), DeviceTensor(np.zeros(w.shape, np.float32))
    assert call("aclnnPreluBackward", DeviceTensor(grad), DeviceTensor(x), DeviceTensor(w), grad_in, grad_w) \
        == (0, 0, 0), recent_error()
    close(result(grad_in), tx.grad.numpy(), np.float32)
    close(result(grad_w), tw.grad.numpy(), np.float32, scale=8)


def test_prelu_refuses_a_weight_of_another_size():
    x = DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnPrelu", x, DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros((2, 4), np.float32)))[0] \
        == PARAM_INVALID
    assert "expected weight tensor size equal input channels, but found 3 does not equal 4" in recent_error()


# ---- RReLU with noise, softmax cross-entropy, log-sigmoid forward, BCE-with-logits target backward
def test_rrelu_in_training_draws_slopes_within_bounds_and_writes_noise():
    x = np.linspace(-3, 3, 12, dtype=np.float32)
    noise, out = DeviceTensor(np.zeros(12, np.float32)), DeviceTensor(np.zeros(12, np.float32))
    args = (DeviceTensor(x), noise, _s(0.1), _s(0.3), ctypes.c_bool(True), ctypes.c_int64(7), ctypes.c_int64(0), out)
    assert call("aclnnRReluWithNoise", *args) == (0, 0, 0), recent_error()
    slopes = result(noise)
    assert (slopes[x >= 0] == 1).all() and ((slopes[x < 0] >= 0.1) & (slopes[x < 0] <= 0.3)).all()
    np.testing.assert_allclose(result(out), x * slopes, rtol=1e-6)
    first = result(out).copy()
    assert call("aclnnRReluWithNoise", *args) == (0, 0, 0)
    np.testing.assert_array_equal(result(out), first)   # the same seed and offset, the same draws


def test_rrelu_in_evaluation_uses_the_mean_slope():
    x = np.array([-2.0, 1.0], np.float32)
    out = DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnRReluWithNoise", DeviceTensor(x), DeviceTensor(np.zeros(2, np.float32)), _s(0.1), _s(0.3),
                ctypes.c_bool(False), ctypes.c_int64(0), ctypes.c_int64(0), out) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(out), [-0.4, 1.0], rtol=1e-6)


def test_softmax_cross_entropy_with_logits_gives_loss_and_backprop():
    rng = np.random.default_rng(13)
    x = random((3, 5), np.float32, rng)
    y = torch.softmax(f64(random((3, 5), np.float32, rng)), 1).numpy().astype(np.float32)
    loss, backprop = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros((3, 5), np.float32))
    assert call("aclnnSoftmaxCrossEntropyWithLogits", DeviceTensor(x), DeviceTensor(y), loss, backprop) == (0, 0, 0), \
        recent_error()
    close(result(loss), F.cross_entropy(f64(x), f64(y), reduction="none").numpy(), np.float32, scale=4)
    close(result(backprop), (torch.softmax(f64(x), 1) - f64(y)).numpy(), np.float32)


def test_log_sigmoid_forward_writes_out():
    x = random((7,), np.float32, np.random.default_rng(14))
    out, buffer = DeviceTensor(np.zeros(7, np.float32)), DeviceTensor(np.zeros(7, np.float32))
    assert call("aclnnLogSigmoidForward", DeviceTensor(x), out, buffer) == (0, 0, 0), recent_error()
    close(result(out), F.logsigmoid(f64(x)).numpy(), np.float32)


@pytest.mark.parametrize("reduction", [0, 1])
def test_bce_with_logits_target_backward_is_the_target_gradient(reduction):
    rng = np.random.default_rng(15)
    x, target = random((2, 3), np.float32, rng), random((2, 3), np.float32, rng, 0, 1)
    weight, pos = random((3,), np.float32, rng, 0, 2), random((3,), np.float32, rng, 0, 2)
    grad = random((2, 3) if reduction == 0 else (), np.float32, rng)
    tt = f64(target).requires_grad_()
    loss = F.binary_cross_entropy_with_logits(f64(x), tt, f64(weight), pos_weight=f64(pos),
                                              reduction="none" if reduction == 0 else "mean")
    loss.backward(f64(grad))
    out = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnBinaryCrossEntropyWithLogitsTargetBackward", DeviceTensor(grad), DeviceTensor(x),
                DeviceTensor(target), DeviceTensor(weight), DeviceTensor(pos), ctypes.c_int64(reduction), out) \
        == (0, 0, 0), recent_error()
    close(result(out), tt.grad.numpy(), np.float32, scale=4)
