"""Elementwise arithmetic and activations (ops-math math/*, ops-nn activation/*): one row each.

Dtype lists are the op_api sources' (hicann/ops-math@c4193324, hicann/ops-nn@e5c3fa93): the base
list on every product, BF16 (and a few more) added on Atlas A2/A3 and the 950 line. Integral
inputs of the transcendental functions are computed in FLOAT (their op_api casts them first).
aclnnGelu is the tanh approximation (its documented formula); aclnnGeluV2 takes `approximate`
(0 none = erf, 1 tanh).

Decisions where the op_api varies by path we do not model: a bf16/fp16 Add with alpha != 1 runs
Mul then Add on the hardware (two roundings); here alpha*other + self is computed in fp32 and
rounded once, inside the tests' tolerance of one extra rounding."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn._family import make
from opemu.ops.aclnn._promotion import per_product

ARITHMETIC = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL COMPLEX64 COMPLEX128", "BF16")
MINMAX = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL", "BF16")
POW = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 COMPLEX64 COMPLEX128", "BF16")
EXP_IN = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128 BOOL INT64", "BF16")
MATH_IN = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 BOOL UINT8 COMPLEX64 COMPLEX128", "BF16")
MATH_OUT = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")
TANH_IN = per_product("FLOAT FLOAT16 BOOL UINT8 INT8 INT16 INT32 INT64", "BF16")
HALF_FLOAT = per_product("FLOAT FLOAT16", "BF16")
ABS = per_product("DOUBLE FLOAT FLOAT16 INT64 INT32 INT16 INT8 UINT8 BOOL", "BF16 COMPLEX64")
NEG = per_product("FLOAT FLOAT16 INT32 INT64 INT8 DOUBLE COMPLEX64 COMPLEX128", "BF16")
RELU = per_product("FLOAT FLOAT16 INT8 INT32 UINT8 INT64", "BF16")


def _with_alpha(ufunc):
    """x (op) alpha * y, skipping the multiply when alpha is 1 (Add, Sub and their variants)."""
    def kernel(x, y, alpha, out=None):
        return ufunc(x, y if alpha == 1 else np.multiply(y, alpha), out=out)
    return kernel


_add, _sub = _with_alpha(np.add), _with_alpha(np.subtract)


def _rsqrt(x, out=None):
    return np.divide(1, np.sqrt(x), out=out)


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


def _relu(x, out=None):
    return np.maximum(x, x.dtype.type(0), out=out)


def _pow(x, y, out=None):
    return np.power(x, y, out=out)


# binary arithmetic: the tensor-tensor, tensor-scalar and in-place rows of each function
for prefix, first, target in (("", "self:T", "out"), ("Inplace", "selfRef:T", "selfRef")):
    make(prefix + "Add", first + " other:T alpha:S", _add, ARITHMETIC, target, alpha="alpha")
    make(prefix + "Adds", first + " other:S alpha:S", _add, ARITHMETIC, target, alpha="alpha")
    make(prefix + "Sub", first + " other:T alpha:S", _sub, ARITHMETIC, target, alpha="alpha")
    make(prefix + "Subs", first + " other:S alpha:S", _sub, ARITHMETIC, target, alpha="alpha")
    make(prefix + "Mul", first + " other:T", np.multiply, ARITHMETIC, target)
    make(prefix + "Muls", first + " other:S", np.multiply, ARITHMETIC, target)
    make(prefix + "Div", first + " other:T", np.true_divide, ARITHMETIC, target, result="float")
    make(prefix + "Divs", first + " other:S", np.true_divide, ARITHMETIC, target, result="float")

make("Maximum", "self:T other:T", np.maximum, MINMAX)
make("Minimum", "self:T other:T", np.minimum, MINMAX)
make("PowTensorTensor", "self:T exponent:T", _pow, POW)
make("PowTensorScalar", "self:T exponent:S", _pow, POW)
make("InplacePowTensorTensor", "self:T exponent:T", _pow, POW, "self")
make("InplacePowTensorScalar", "self:T exponent:S", _pow, POW, "self")

# unary: (name, input parameter, kernel, input dtypes, output dtypes, integral → FLOAT, out dtype must equal
# the input's, in-place parameter)
UNARY = (
    ("Exp", "self", np.exp, EXP_IN, None, True, False, "selfRef"),
    ("Log", "self", np.log, MATH_IN, MATH_OUT, True, False, "selfRef"),
    ("Sqrt", "self", np.sqrt, MATH_IN, MATH_OUT, True, False, "self"),
    ("Rsqrt", "self", _rsqrt, MATH_IN, MATH_OUT, True, False, "selfRef"),
    ("Sin", "self", np.sin, MATH_IN, MATH_OUT, True, False, "selfRef"),
    ("Cos", "input", np.cos, MATH_IN, MATH_OUT, True, False, "inputRef"),
    ("Tanh", "self", np.tanh, TANH_IN, HALF_FLOAT, True, False, "selfRef"),
    ("Abs", "self", np.abs, ABS, None, False, False, None),
    ("Neg", "self", np.negative, NEG, None, False, False, "selfRef"),
    ("Relu", "self", _relu, RELU, None, False, True, "selfRef"),
    ("Sigmoid", "self", _sigmoid, MATH_IN, MATH_OUT, True, False, "selfRef"),
    ("Silu", "self", _silu, HALF_FLOAT, None, False, False, None),
    ("Gelu", "self", _gelu_tanh, HALF_FLOAT, None, False, True, None),
)
for name, x, kernel, in_dtypes, out_dtypes, to_float, same, inplace in UNARY:
    result = "float" if to_float else "promote"
    make(name, x + ":T", kernel, in_dtypes, out_dtypes=out_dtypes, result=result, same_dtype=same)
    if inplace:
        make("Inplace" + name, inplace + ":T", kernel, out_dtypes or in_dtypes, inplace, result=result)

make("GeluV2", "x:T approximate:v", _gelu_v2, HALF_FLOAT, "y", check_attributes=_check_approximate, same_dtype=True)


def _clamp(x, low, high, out=None):
    return np.clip(x, low, high, out=out)


def _check_bounds(a):
    if a.clipValueMin is None and a.clipValueMax is None:
        raise status.param_nullptr("At least one of clipValueMin and clipValueMax must not be nullptr.")


make("Clamp", "self:T clipValueMin:S clipValueMax:S", _clamp, MINMAX, optional=("clipValueMin", "clipValueMax"),
     check_attributes=_check_bounds)
