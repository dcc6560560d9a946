"""Backward activations whose formula is elementwise (ops-nn activation/*_grad): one row each, taking the
header's gradOutput and the forward's input or result (opemu.ops.aclnn.common.elementwise says how a row
becomes operators). Kernels compute fp16/bf16 in fp32 and round once into gradInput.

Dtype lists are the op_api sources' (hicann/ops-nn@e5c3fa93). GeluBackward's GeluGrad kernel is the
derivative of the tanh approximation (aclnnGelu's formula; its golden's constants √(2/π) and 3·0.044715·√(2/π)/2),
although its doc page prints the erf form; the code wins. GeluBackwardV2 takes approximate "none" (erf) or
"tanh"."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import HALF_FLOAT, per_product

SQRT_2_OVER_PI = np.sqrt(2 / np.pi)
GELU_TANH_C = 0.044715


def gelu_tanh_grad(grad, x, out=None):
    """d/dx of 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³)))."""
    t = np.tanh(x.dtype.type(SQRT_2_OVER_PI) * (x + x.dtype.type(GELU_TANH_C) * x * x * x))
    inner = x.dtype.type(SQRT_2_OVER_PI) * (1 + x.dtype.type(3 * GELU_TANH_C) * x * x)
    return np.multiply(grad, 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * inner, out=out)


def gelu_erf_grad(grad, x, out=None):
    """d/dx of x·Φ(x) = Φ(x) + x·φ(x)."""
    from scipy.special import ndtr
    density = np.exp(x * x * x.dtype.type(-0.5)) * x.dtype.type(1 / np.sqrt(2 * np.pi))
    return np.multiply(grad, ndtr(x) + x * density, out=out)


def _gelu_grad_v2(grad, x, approximate, out=None):
    return (gelu_tanh_grad if approximate == "tanh" else gelu_erf_grad)(grad, x, out=out)


def _check_approximate_text(a):
    if a.approximate is None:
        raise status.param_nullptr("Expected a proper Tensor but got null for argument approximate.")
    if a.approximate not in ("none", "tanh"):
        raise status.param_invalid("approximate only supports to set none or tanh, but got %s." % a.approximate)


def silu_grad(grad, x, out=None):
    """d/dx of x·σ(x) = σ(x)·(1 + x·(1 − σ(x)))."""
    s = 1 / (1 + np.exp(-x))
    return np.multiply(grad, s * (1 + x * (1 - s)), out=out)


def _swish_grad(grad, x, beta, out=None):
    beta = 1.0 if beta is None else beta
    s = 1 / (1 + np.exp(-(x * beta)))
    return np.multiply(grad, s * (1 + x * beta * (1 - s)), out=out)


def _sigmoid_grad(grad, y, out=None):
    slope = y * (1 - y)
    return np.multiply(grad, np.conj(slope) if np.iscomplexobj(slope) else slope, out=out)


def _fast_gelu_grad(grad, x, out=None):
    """d/dx of x·σ(1.702x) = σ(1.702x)·(1 + 1.702x·(1 − σ(1.702x)))."""
    s = 1 / (1 + np.exp(x * x.dtype.type(-1.702)))
    return np.multiply(grad, s * (1 + x * x.dtype.type(1.702) * (1 - s)), out=out)


def _where(condition, yes, no, out):
    result = np.where(condition, yes, no)
    if out is None:
        return result
    np.copyto(out, result, casting="unsafe")
    return out


def _elu_grad(grad, alpha, scale, input_scale, is_result, x, out=None):
    if is_result:   # x is the forward's result: its negative side is scale·alpha·(exp(x·inputScale) − 1)
        negative = grad * input_scale * (x + alpha * scale)
    else:
        negative = grad * input_scale * alpha * scale * np.exp(np.minimum(x, 0) * input_scale)
    return _where(x > 0, grad * scale, negative, out)


def _hardshrink_grad(grad, x, lambd, out=None):
    return _where(np.abs(x) > lambd, grad, grad.dtype.type(0), out)


def _softshrink_grad(grad, x, lambd, out=None):
    return _where(np.abs(x) > lambd, grad, grad.dtype.type(0), out)


def _hardsigmoid_grad(grad, x, out=None):
    return _where((x > -3) & (x < 3), grad / grad.dtype.type(6), grad.dtype.type(0), out)


def _hardswish_grad(grad, x, out=None):
    """0 below −3, x/3 + 1/2 on [−3, 3], 1 above (its doc page: both ends inclusive in the middle)."""
    return _where(x < -3, grad.dtype.type(0), np.where(x <= 3, grad * (x / 3 + 0.5), grad), out)


def _hardswish_grad_v2(grad, x, out=None):
    """0 up to −3, x/3 + 1/2 strictly inside, 1 from 3 (PyTorch's hardswish_backward)."""
    return _where(x <= -3, grad.dtype.type(0), np.where(x < 3, grad * (x / 3 + 0.5), grad), out)


def _hardtanh_grad(grad, x, low, high, out=None):
    return _where((x > low) & (x < high), grad, grad.dtype.type(0), out)


def _leaky_relu_grad(grad, x, slope, self_is_result, out=None):
    return _where(x > 0, grad, grad * slope, out)


def _log_sigmoid_grad(grad, x, buffer, out=None):
    """d/dx of −log(1 + exp(−x)) = 1 − σ(x) = 1 / (1 + exp(x)); the buffer the forward saved is not needed."""
    return np.divide(grad, 1 + np.exp(x), out=out)


def _mish_grad(grad, x, out=None):
    t = np.tanh(np.logaddexp(x.dtype.type(0), x))
    return np.multiply(grad, t + x * (1 - t * t) / (1 + np.exp(-x)), out=out)


def _selu_grad(grad, result, out=None):
    from opemu.ops.aclnn.activation.elementwise import SELU_ALPHA, SELU_SCALE
    return _where(result > 0, grad * grad.dtype.type(SELU_SCALE),
                  grad * (result + grad.dtype.type(SELU_ALPHA * SELU_SCALE)), out)


def _softplus_grad(grad, x, beta, threshold, out=None):
    scaled = x * beta
    return _where(scaled > threshold, grad, grad / (1 + np.exp(-np.minimum(scaled, threshold))), out)


WITH_DOUBLE = per_product("FLOAT FLOAT16 DOUBLE", "BF16")
SELU = per_product("FLOAT FLOAT16 INT32 INT8", "BF16")
SIGMOID_GRAD = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")

ROWS = (
    Row("GeluBackward", gelu_tanh_grad, HALF_FLOAT),
    Row("GeluBackwardV2", _gelu_grad_v2, HALF_FLOAT, check=_check_approximate_text),
    Row("SiluBackward", silu_grad, HALF_FLOAT, out=HALF_FLOAT, same_dtype=True),
    Row("SwishBackward", _swish_grad, HALF_FLOAT, optional=("betaOptional",)),
    Row("SigmoidBackward", _sigmoid_grad, SIGMOID_GRAD),
    Row("FastGeluBackward", _fast_gelu_grad, HALF_FLOAT),
    Row("EluBackward", _elu_grad, HALF_FLOAT),
    Row("HardshrinkBackward", _hardshrink_grad, HALF_FLOAT),
    Row("SoftshrinkBackward", _softshrink_grad, HALF_FLOAT),
    Row("HardsigmoidBackward", _hardsigmoid_grad, HALF_FLOAT),
    Row("HardswishBackward", _hardswish_grad, HALF_FLOAT),
    Row("HardswishBackwardV2", _hardswish_grad_v2, HALF_FLOAT),
    Row("HardtanhBackward", _hardtanh_grad, HALF_FLOAT),
    Row("LeakyReluBackward", _leaky_relu_grad, WITH_DOUBLE),
    Row("LogSigmoidBackward", _log_sigmoid_grad, HALF_FLOAT),
    Row("MishBackward", _mish_grad, HALF_FLOAT),
    Row("SeluBackward", _selu_grad, SELU),
    Row("SoftplusBackward", _softplus_grad, WITH_DOUBLE),
)
generate(__name__, ROWS)
