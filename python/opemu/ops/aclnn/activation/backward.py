"""Backward activations whose formula is elementwise (ops-nn activation/*_grad): one row each, taking the
header's gradOutput and the forward's input or result (opemu.ops.aclnn.common.elementwise says how a row
becomes operators). Kernels compute fp16/bf16 in fp32 and round once into gradInput.

Dtype lists are the op_api sources' (hicann/ops-nn@e5c3fa93). GeluBackward's GeluGrad kernel is the
derivative of the tanh approximation (aclnnGelu's formula; its golden's constants √(2/π) and 3·0.044715·√(2/π)/2),
although its doc page prints the erf form; the code wins. GeluBackwardV2 takes approximate "none" (erf) or
"tanh"."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import soc_is_a2_a3
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import Elementwise, Row, generate, into
from opemu.ops.aclnn.common.promotion import HALF_FLOAT, per_product

SQRT_2_OVER_PI = np.sqrt(2 / np.pi)
GELU_TANH_C = 0.044715


def gelu_tanh_grad(grad, x, out=None):
    """d/dx of 0.5·x·(1 + tanh(z)), z = √(2/π)(x + 0.044715x³): 0.5(1 + t) + 0.5x(1 − t²)·z', t = tanh(z),
    in place on three temporaries (16M-element calls are bound by memory passes)."""
    c = x.dtype.type
    squared = x * x
    t = squared * c(SQRT_2_OVER_PI * GELU_TANH_C)
    t += c(SQRT_2_OVER_PI)
    t *= x
    np.tanh(t, out=t)
    slope = np.multiply(squared, c(3 * SQRT_2_OVER_PI * GELU_TANH_C), out=squared)
    slope += c(SQRT_2_OVER_PI)
    rest = np.multiply(t, t)
    np.subtract(c(1), rest, out=rest)
    rest *= x
    rest *= slope
    t += c(1)
    t += rest
    t *= c(0.5)
    return np.multiply(grad, t, out=out)


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


class PromotedGrad(Elementwise):
    """GeluBackward's and GeluBackwardV2's op_api (CheckPromoteTypeGeluBackward): nulls → gradOutput's and self's
    promoted dtype (not each input's) → bf16 only on Atlas A2/A3 and the 950 line → the promoted dtype in the list
    → ranks ≤ 8 → broadcast, gradInput of the broadcast shape → (V2) approximate. gradInput's dtype is not
    checked: the result is cast into it (the vendor's example passes an INT32 gradOutput with a FLOAT self)."""

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", self.target)
        promoted = P.promote(a.gradOutput.dtype, a.self.dtype)
        if promoted is None:
            raise status.param_invalid("GradOutput dtype %s and Self dtype %s can not be promoted."
                                       % (dtypes.serial_name(a.gradOutput.dtype), dtypes.serial_name(a.self.dtype)))
        if promoted == P.BF16 and not (soc_is_a2_a3() or _products.is_regbase()):
            raise status.param_invalid("Input dtype of gelu is not support bfloat16 in current socversion.")
        allowed = P.codes("FLOAT FLOAT16 BF16")
        if promoted not in allowed:
            raise status.param_invalid("promoteType dtype %s should be in dtype support list %s."
                                       % (dtypes.serial_name(promoted), dtypes.serial_list(allowed)))
        checks.max_dim("gradOutput", a.gradOutput)
        checks.max_dim("self", a.self)
        shape = P.broadcast("gradOutput", a.gradOutput.shape, "self", a.self.shape)
        target = getattr(a, self.target)
        if tuple(shape) != tuple(target.shape):
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(shape), checks.shape_text(target.shape)))
        self.check_attributes(a)
        a.result_dtype = promoted
        self.settle(a, target)


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
    return into(np.where(condition, yes, no), out)


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
    Row("GeluBackward", gelu_tanh_grad, HALF_FLOAT, base=PromotedGrad),
    Row("GeluBackwardV2", _gelu_grad_v2, HALF_FLOAT, check=_check_approximate_text, base=PromotedGrad),
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
