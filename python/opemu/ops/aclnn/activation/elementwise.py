"""Elementwise activations (ops-nn activation/relu, sigmoid, swish (Silu), gelu, gelu_v2): one row each
(opemu.ops.aclnn.common.elementwise says how a row becomes operators).

Dtype lists are the op_api sources' (hicann/ops-nn@e5c3fa93): the base list on every product, BF16
added on Atlas A2/A3 and the 950 line. aclnnGelu is the tanh approximation (its documented formula);
aclnnGeluV2 takes `approximate` (0 none = erf, 1 tanh)."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import HALF_FLOAT, MATH_IN, MATH_OUT, per_product

RELU = per_product("FLOAT FLOAT16 INT8 INT32 UINT8 INT64", "BF16")


def _relu(x, out=None):
    return np.maximum(x, x.dtype.type(0), out=out)


def _sigmoid(x, out=None):
    return np.divide(1, 1 + np.exp(-x), out=out)


def _silu(x, out=None):
    return np.divide(x, 1 + np.exp(-x), out=out)


def _gelu_tanh(x, out=None):
    inner = np.tanh(np.sqrt(2 / np.pi).astype(x.dtype) * (x + x.dtype.type(0.044715) * x * x * x))
    return np.multiply(x * x.dtype.type(0.5), 1 + inner, out=out)


def _gelu_erf(x, out=None):
    from scipy.special import erf
    return np.multiply(x * x.dtype.type(0.5), 1 + erf(x / np.sqrt(2).astype(x.dtype)), out=out)


def _gelu_v2(x, approximate, out=None):
    return (_gelu_tanh if approximate == 1 else _gelu_erf)(x, out=out)


def _check_approximate(a):
    if a.approximate not in (0, 1):
        raise status.param_invalid("approximate should be 0 (none) or 1 (tanh), but got %d." % a.approximate)


ROWS = (
    Row("Relu", _relu, RELU, same_dtype=True),
    Row("Sigmoid", _sigmoid, MATH_IN, out=MATH_OUT, result="float"),
    Row("Silu", _silu, HALF_FLOAT),
    Row("Gelu", _gelu_tanh, HALF_FLOAT, same_dtype=True),
    Row("GeluV2", _gelu_v2, HALF_FLOAT, same_dtype=True, check=_check_approximate),
)
generate(__name__, ROWS)
