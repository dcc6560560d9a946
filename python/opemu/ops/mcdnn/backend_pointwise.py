"""The pointwise and reduction operations of backend graphs, on NumPy arrays of the math type.

Pointwise: y = op(alpha1 x, alpha2 b) (b, and the selector t of BINARY_SELECT, broadcast over x's dims
where theirs are 1); the backward modes give dx = dy * f'(x) for the forward function f at x. RELU_FWD
clips below at RELU_LOWER_CLIP (slope RELU_LOWER_CLIP_SLOPE there) and above at RELU_UPPER_CLIP; ELU uses
ELU_ALPHA, SOFTPLUS log(1 + exp(beta x)) / beta, SWISH x sigmoid(beta x), GELU the erf form and
GELU_APPROX_TANH the tanh form; comparisons and logical operations give 1 or 0; GEN_INDEX the index along
AXIS. Reductions: y's dims are x's or 1, the dims of 1 are reduced (ADD, MUL, MIN, MAX, AMAX, AVG, NORM1,
NORM2, MUL_NO_ZEROS)."""
import math

import numpy as np

from opemu.core import mcdnn
from opemu.core.headers import enum
from opemu.ops.mcdnn.backend_store import POINTWISE as P

REDUCE = enum("mcdnn/mcdnn_ops_infer.h", "mcdnnReduceTensorOp_t")
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _erf(x):
    import scipy.special   # on first use: importing it costs a process's first call ~170 ms
    return scipy.special.erf(x)


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * x))


def _gelu(x):
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _gelu_grad(x):
    return 0.5 * (1 + _erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


def _gelu_tanh_grad(x):
    t = np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x ** 3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)


def _relu(x, p):
    lower, upper, slope = p["RELU_LOWER_CLIP"], p["RELU_UPPER_CLIP"], p["RELU_LOWER_CLIP_SLOPE"]
    below = lower + slope * (x - lower) if slope else np.full_like(x, lower)
    return np.minimum(np.where(x > lower, x, below), upper)


def _relu_grad(x, p):
    lower, upper, slope = p["RELU_LOWER_CLIP"], p["RELU_UPPER_CLIP"], p["RELU_LOWER_CLIP_SLOPE"]
    return np.where(x > lower, np.where(x < upper, 1.0, 0.0), slope).astype(x.dtype)


def _elu(x, p):
    return np.where(x > 0, x, p["ELU_ALPHA"] * np.expm1(np.minimum(x, 0)))


def _softplus(x, p):
    beta = p["SOFTPLUS_BETA"]
    return np.logaddexp(0, beta * x) / beta


def _swish(x, p):
    return x * _sigmoid(p["SWISH_BETA"] * x)


def _swish_grad(x, p):
    s = _sigmoid(p["SWISH_BETA"] * x)
    return s + p["SWISH_BETA"] * x * s * (1 - s)


FORWARD = {
    P["MCDNN_POINTWISE_ABS"]: lambda x, p: np.abs(x), P["MCDNN_POINTWISE_CEIL"]: lambda x, p: np.ceil(x),
    P["MCDNN_POINTWISE_COS"]: lambda x, p: np.cos(x), P["MCDNN_POINTWISE_EXP"]: lambda x, p: np.exp(x),
    P["MCDNN_POINTWISE_FLOOR"]: lambda x, p: np.floor(x), P["MCDNN_POINTWISE_LOG"]: lambda x, p: np.log(x),
    P["MCDNN_POINTWISE_NEG"]: lambda x, p: -x, P["MCDNN_POINTWISE_RSQRT"]: lambda x, p: 1 / np.sqrt(x),
    P["MCDNN_POINTWISE_SIN"]: lambda x, p: np.sin(x), P["MCDNN_POINTWISE_SQRT"]: lambda x, p: np.sqrt(x),
    P["MCDNN_POINTWISE_TAN"]: lambda x, p: np.tan(x), P["MCDNN_POINTWISE_ERF"]: lambda x, p: _erf(x),
    P["MCDNN_POINTWISE_IDENTITY"]: lambda x, p: x, P["MCDNN_POINTWISE_RECIPROCAL"]: lambda x, p: 1 / x,
    P["MCDNN_POINTWISE_LOGICAL_NOT"]: lambda x, p: (x == 0).astype(x.dtype),
    P["MCDNN_POINTWISE_RELU_FWD"]: _relu, P["MCDNN_POINTWISE_TANH_FWD"]: lambda x, p: np.tanh(x),
    P["MCDNN_POINTWISE_SIGMOID_FWD"]: lambda x, p: _sigmoid(x), P["MCDNN_POINTWISE_ELU_FWD"]: _elu,
    P["MCDNN_POINTWISE_GELU_FWD"]: lambda x, p: _gelu(x), P["MCDNN_POINTWISE_SOFTPLUS_FWD"]: _softplus,
    P["MCDNN_POINTWISE_SWISH_FWD"]: _swish, P["MCDNN_POINTWISE_GELU_APPROX_TANH_FWD"]: lambda x, p: _gelu_tanh(x),
}
BINARY = {
    P["MCDNN_POINTWISE_ADD"]: np.add, P["MCDNN_POINTWISE_SUB"]: np.subtract, P["MCDNN_POINTWISE_MUL"]: np.multiply,
    P["MCDNN_POINTWISE_DIV"]: np.divide, P["MCDNN_POINTWISE_MAX"]: np.maximum, P["MCDNN_POINTWISE_MIN"]: np.minimum,
    P["MCDNN_POINTWISE_POW"]: np.power, P["MCDNN_POINTWISE_MOD"]: np.fmod,
    P["MCDNN_POINTWISE_ADD_SQUARE"]: lambda x, b: x + b * b,
    P["MCDNN_POINTWISE_CMP_EQ"]: np.equal, P["MCDNN_POINTWISE_CMP_NEQ"]: np.not_equal,
    P["MCDNN_POINTWISE_CMP_GT"]: np.greater, P["MCDNN_POINTWISE_CMP_GE"]: np.greater_equal,
    P["MCDNN_POINTWISE_CMP_LT"]: np.less, P["MCDNN_POINTWISE_CMP_LE"]: np.less_equal,
    P["MCDNN_POINTWISE_LOGICAL_AND"]: lambda x, b: (x != 0) & (b != 0),
    P["MCDNN_POINTWISE_LOGICAL_OR"]: lambda x, b: (x != 0) | (b != 0),
}
DERIVATIVE = {
    P["MCDNN_POINTWISE_RELU_BWD"]: _relu_grad,
    P["MCDNN_POINTWISE_TANH_BWD"]: lambda x, p: 1 - np.tanh(x) ** 2,
    P["MCDNN_POINTWISE_SIGMOID_BWD"]: lambda x, p: _sigmoid(x) * (1 - _sigmoid(x)),
    P["MCDNN_POINTWISE_ELU_BWD"]: lambda x, p: np.where(x > 0, 1.0, p["ELU_ALPHA"] * np.exp(np.minimum(x, 0))),
    P["MCDNN_POINTWISE_GELU_BWD"]: lambda x, p: _gelu_grad(x),
    P["MCDNN_POINTWISE_SOFTPLUS_BWD"]: lambda x, p: _sigmoid(p["SOFTPLUS_BETA"] * x),
    P["MCDNN_POINTWISE_SWISH_BWD"]: _swish_grad,
    P["MCDNN_POINTWISE_GELU_APPROX_TANH_BWD"]: lambda x, p: _gelu_tanh_grad(x),
}
SUPPORTED = set(FORWARD) | set(BINARY) | set(DERIVATIVE) | {P["MCDNN_POINTWISE_BINARY_SELECT"],
                                                               P["MCDNN_POINTWISE_GEN_INDEX"]}


def pointwise(node, values, ct):
    """The output of a pointwise node, of the math type ct, from its inputs' arrays."""
    mode, p = node.mode, node.params
    with np.errstate(all="ignore"):
        if mode in DERIVATIVE:
            x, dy = (values[node.inputs[r].uid].astype(ct) for r in ("x", "dy"))
            return (dy * DERIVATIVE[mode](x, p)).astype(ct)
        x = values[node.inputs["x"].uid].astype(ct) * ct.type(node.alpha1)
        if mode == P["MCDNN_POINTWISE_GEN_INDEX"]:
            axis = int(p["AXIS"])
            shape = [1] * x.ndim
            shape[axis] = x.shape[axis]
            return np.broadcast_to(np.arange(x.shape[axis]).reshape(shape), x.shape).astype(ct)
        if mode in FORWARD:
            return np.asarray(FORWARD[mode](x, p), ct)
        b = values[node.inputs["b"].uid].astype(ct) * ct.type(node.alpha2)
        if mode == P["MCDNN_POINTWISE_BINARY_SELECT"]:
            t = values[node.inputs["t"].uid]
            return np.where(t != 0, x, b).astype(ct)
        return np.asarray(BINARY[mode](x, b), ct)


def reduction(node, values, ct):
    x = values[node.inputs["x"].uid].astype(ct)
    out_shape = node.outputs["y"].shape
    axes = tuple(i for i, (d, o) in enumerate(zip(x.shape, out_shape)) if o == 1 and d > 1)
    op = node.operator
    with np.errstate(all="ignore"):
        if op == REDUCE["MCDNN_REDUCE_TENSOR_ADD"]:
            return x.sum(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_MUL"]:
            return x.prod(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_MUL_NO_ZEROS"]:
            return np.where(x == 0, ct.type(1), x).prod(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_MIN"]:
            return x.min(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_MAX"]:
            return x.max(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_AMAX"]:
            return np.abs(x).max(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_AVG"]:
            return x.mean(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_NORM1"]:
            return np.abs(x).sum(axis=axes, keepdims=True)
        if op == REDUCE["MCDNN_REDUCE_TENSOR_NORM2"]:
            return np.sqrt((x * x).sum(axis=axes, keepdims=True))
    raise mcdnn.not_supported("reduction operator %d is not emulated" % op)
