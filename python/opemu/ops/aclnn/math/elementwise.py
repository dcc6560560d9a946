"""Elementwise arithmetic and math functions (ops-math math/add (Add, AddV3), sub (Sub, Rsub), mul, div,
maximum, minimum, pow (with PowScalarTensor), exp, log, sqrt, rsqrt, sin, cos, tanh, abs, neg): one row each
(opemu.ops.aclnn.common.elementwise says how a row becomes operators). AddV3 adds a scalar self to
alpha·other and writes other in place in its Inplace form; Rsub is other - alpha·self.

Dtype lists are the op_api sources' (hicann/ops-math@c4193324): the base list on every product, BF16
(and a few more) added on Atlas A2/A3 and the 950 line. Integral inputs of the transcendental
functions are computed in FLOAT (their op_api casts them first).

Decisions where the op_api varies by path we do not model: a bf16/fp16 Add with alpha != 1 runs
Mul then Add on the hardware (two roundings); here alpha*other + self is computed in fp32 and
rounded once, inside the tests' tolerance of one extra rounding."""
import numpy as np

from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import HALF_FLOAT, MATH_IN, MATH_OUT, codes, per_product

ARITHMETIC = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL COMPLEX64 COMPLEX128", "BF16")
MINMAX = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL", "BF16")
POW = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 COMPLEX64 COMPLEX128", "BF16")
EXP_IN = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128 BOOL INT64", "BF16")
TANH_IN = per_product("FLOAT FLOAT16 BOOL UINT8 INT8 INT16 INT32 INT64", "BF16")
ABS = per_product("DOUBLE FLOAT FLOAT16 INT64 INT32 INT16 INT8 UINT8 BOOL", "BF16 COMPLEX64")
RSUB = per_product("FLOAT FLOAT16 INT64 INT32 INT8 UINT8 INT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")
ADD_V3 = lambda: codes("FLOAT INT32 FLOAT16 BF16 INT8")
NEG = per_product("FLOAT FLOAT16 INT32 INT64 INT8 DOUBLE COMPLEX64 COMPLEX128", "BF16")


def _with_alpha(ufunc):
    """x (op) alpha * y, skipping the multiply when alpha is 1 (Add, Sub and their variants)."""
    def kernel(x, y, alpha, out=None):
        return ufunc(x, y if alpha == 1 else np.multiply(y, alpha), out=out)
    return kernel


_add, _sub = _with_alpha(np.add), _with_alpha(np.subtract)


def _rsub(x, y, alpha, out=None):
    """Rsub: other - alpha * self."""
    return np.subtract(y, x if alpha == 1 else np.multiply(x, alpha), out=out)


def _add_v3_dtype(a, promoted):
    """aclnn_add_v3.cpp's PromoteTypeScalar: a floating tensor computes in FLOAT whatever its width; a
    DOUBLE scalar into a FLOAT out computes in FLOAT."""
    if P.category(a.other.dtype) == 2:
        return P.FLOAT
    if a.self.dtype == P.DOUBLE and a.out.dtype == P.FLOAT:
        return P.FLOAT
    return promoted


def _rsqrt(x, out=None):
    return np.divide(1, np.sqrt(x), out=out)


def _pow(x, y, out=None):
    return np.power(x, y, out=out)


ROWS = (
    Row("Add", _add, ARITHMETIC, forms="Add Adds", alpha="alpha"),
    Row("Sub", _sub, ARITHMETIC, forms="Sub Subs", alpha="alpha"),
    Row("Rsub", _rsub, RSUB, forms="Rsub Rsubs", alpha="alpha"),
    Row("AddV3", _add, ADD_V3, alpha="alpha", result=_add_v3_dtype),
    Row("Mul", np.multiply, ARITHMETIC, forms="Mul Muls"),
    Row("Div", np.true_divide, ARITHMETIC, forms="Div Divs", result="float"),
    Row("Maximum", np.maximum, MINMAX),
    Row("Minimum", np.minimum, MINMAX),
    Row("Pow", _pow, POW, forms="PowTensorTensor PowTensorScalar PowScalarTensor"),
    Row("Exp", np.exp, EXP_IN, result="float"),
    Row("Log", np.log, MATH_IN, out=MATH_OUT, result="float"),
    Row("Sqrt", np.sqrt, MATH_IN, out=MATH_OUT, result="float"),
    Row("Rsqrt", _rsqrt, MATH_IN, out=MATH_OUT, result="float"),
    Row("Sin", np.sin, MATH_IN, out=MATH_OUT, result="float"),
    Row("Cos", np.cos, MATH_IN, out=MATH_OUT, result="float"),
    Row("Tanh", np.tanh, TANH_IN, out=HALF_FLOAT, result="float"),
    Row("Abs", np.abs, ABS),
    Row("Neg", np.negative, NEG),
)
generate(__name__, ROWS)
