"""Elementwise activations (ops-nn activation/): one row each, with their in-place twins where the vendor
declares them (opemu.ops.aclnn.common.elementwise says how a row becomes operators).

Dtype lists are the op_api sources' (hicann/ops-nn@e5c3fa93): the base list on every product, BF16
added on Atlas A2/A3 and the 950 line. aclnnGelu is the tanh approximation (its documented formula);
aclnnGeluV2 takes `approximate` (0 none = erf, 1 tanh). FastGelu is x / (1 + exp(-1.702 x)), written as
its kernel does to stay finite for large |x|."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import HALF_FLOAT, MATH_IN, MATH_OUT, per_product

RELU = per_product("FLOAT FLOAT16 INT8 INT32 UINT8 INT64", "BF16")
ADD_RELU = per_product("FLOAT FLOAT16 INT8 UINT8 INT16 INT32 INT64", "BF16")
WITH_DOUBLE = per_product("FLOAT FLOAT16 DOUBLE", "BF16")
ERFINV_IN = per_product("FLOAT FLOAT16 BOOL INT8 INT16 INT32 INT64 UINT8", "BF16")
HARDSIGMOID = per_product("FLOAT FLOAT16 INT32", "BF16")
SELU = per_product("FLOAT FLOAT16 INT32 INT8", "BF16")
THRESHOLD = per_product("FLOAT INT32 FLOAT16 INT8 UINT8 INT16 INT64", "BF16")
FLOAT_HALF = per_product("FLOAT FLOAT16")
FLOATING = per_product("FLOAT FLOAT16 BF16")
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _out(result, out):
    """A kernel's result through `out` when given (for kernels that are not one ufunc)."""
    if out is None:
        return result
    np.copyto(out, result, casting="unsafe")
    return out


def _relu(x, out=None):
    return np.maximum(x, x.dtype.type(0), out=out)


def _add_relu(x, y, alpha, out=None):
    return _relu(np.add(x, y if alpha == 1 else y * alpha), out=out)


def _sigmoid(x, out=None):
    return np.divide(1, 1 + np.exp(-x), out=out)


def _silu(x, out=None):
    return np.divide(x, 1 + np.exp(-x), out=out)


def gelu_tanh(x, out=None):
    inner = np.tanh(np.sqrt(2 / np.pi).astype(x.dtype) * (x + x.dtype.type(0.044715) * x * x * x))
    return np.multiply(x * x.dtype.type(0.5), 1 + inner, out=out)


def gelu_erf(x, out=None):
    from scipy.special import erf
    return np.multiply(x * x.dtype.type(0.5), 1 + erf(x / np.sqrt(2).astype(x.dtype)), out=out)


def _gelu_v2(x, approximate, out=None):
    return (gelu_tanh if approximate == 1 else gelu_erf)(x, out=out)


def _check_approximate(a):
    if a.approximate not in (0, 1):
        raise status.param_invalid("approximate should be 0 (none) or 1 (tanh), but got %d." % a.approximate)


def _fast_gelu(x, out=None):
    # x·exp(0.851(x − |x|)) / (1 + exp(−1.702|x|)) = x / (1 + exp(−1.702x)) without overflow
    return np.divide(x * np.exp(x.dtype.type(0.851) * (x - np.abs(x))), 1 + np.exp(x.dtype.type(-1.702) * np.abs(x)),
                     out=out)


def _elu(x, alpha, scale, input_scale, out=None):
    negative = np.expm1(np.minimum(x, 0) * input_scale) * alpha
    return _out(np.where(x > 0, x, negative) * scale, out)


def _celu(x, alpha, out=None):
    return _out(np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha)), out)


def _selu(x, out=None):
    negative = x.dtype.type(SELU_ALPHA) * np.expm1(np.minimum(x, 0))
    return _out(x.dtype.type(SELU_SCALE) * np.where(x > 0, x, negative), out)


def _leaky_relu(x, slope, out=None):
    return _out(np.where(x > 0, x, x * slope), out)


def _hardshrink(x, lambd, out=None):
    return _out(np.where(np.abs(x) > lambd, x, x.dtype.type(0)), out)


def _softshrink(x, lambd, out=None):
    return _out(np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x.dtype.type(0))), out)


def _shrink(x, lambd, bias, out=None):
    return _out(np.where(x > lambd, x - bias, np.where(x < -lambd, x + bias, x.dtype.type(0))), out)


def _hardsigmoid(x, out=None):
    return np.clip(x / x.dtype.type(6) + x.dtype.type(0.5), 0, 1, out=out)


def _hardswish(x, out=None):
    return np.multiply(x, np.clip(x + x.dtype.type(3), 0, 6) / x.dtype.type(6), out=out)


def _log_sigmoid(x, out=None):
    return np.negative(np.logaddexp(x.dtype.type(0), -x), out=out)


def _mish(x, out=None):
    return np.multiply(x, np.tanh(np.logaddexp(x.dtype.type(0), x)), out=out)


def _softplus(x, beta, threshold, out=None):
    scaled = x * beta
    return _out(np.where(scaled > threshold, x, np.logaddexp(x.dtype.type(0), scaled) / beta), out)


def _swish(x, beta, out=None):
    beta = 1.0 if beta is None else beta
    return np.divide(x, 1 + np.exp(-(x * beta)), out=out)


def _threshold(x, threshold, value, out=None):
    return _out(np.where(x > threshold, x, value), out)


def _heaviside(x, values, out=None):
    return _out(np.where(x == 0, values, (x > 0).astype(x.dtype)), out)


def _squared_relu(x, out=None):
    relu = np.maximum(x, x.dtype.type(0))
    return np.multiply(relu, relu, out=out)


def _erfinv(x, out=None):
    from scipy.special import erfinv
    return erfinv(x, out=out) if out is not None else erfinv(x)


ROWS = (
    Row("Relu", _relu, RELU, same_dtype=True),
    Row("AddRelu", _add_relu, ADD_RELU, alpha="alpha"),
    Row("Sigmoid", _sigmoid, MATH_IN, out=MATH_OUT, result="float"),
    Row("Silu", _silu, HALF_FLOAT),
    Row("Gelu", gelu_tanh, HALF_FLOAT, same_dtype=True),
    Row("GeluV2", _gelu_v2, HALF_FLOAT, same_dtype=True, check=_check_approximate),
    Row("FastGelu", _fast_gelu, FLOATING, same_dtype=True),
    Row("Elu", _elu, WITH_DOUBLE),
    Row("Celu", _celu, HALF_FLOAT),
    Row("Selu", _selu, SELU, result="float"),
    Row("LeakyRelu", _leaky_relu, WITH_DOUBLE),
    Row("Hardshrink", _hardshrink, HALF_FLOAT),
    Row("Softshrink", _softshrink, FLOATING),
    Row("Shrink", _shrink, FLOAT_HALF),
    Row("Hardsigmoid", _hardsigmoid, HARDSIGMOID),
    Row("Hardswish", _hardswish, HALF_FLOAT),
    Row("LogSigmoid", _log_sigmoid, HALF_FLOAT),
    Row("Mish", _mish, HALF_FLOAT),
    Row("Softplus", _softplus, HALF_FLOAT),
    Row("Swish", _swish, HALF_FLOAT, optional=("betaOptional",)),
    Row("Threshold", _threshold, THRESHOLD),
    Row("Heaviside", _heaviside, FLOATING),
    Row("SquaredRelu", _squared_relu, FLOATING, same_dtype=True),
    Row("Erfinv", _erfinv, ERFINV_IN, out=FLOATING, result="float"),
)
generate(__name__, ROWS)
