"""Comparisons (ops-math math/equal, not_equal, greater, less, greater_equal, less_equal), their aclScalar
forms, the logical functions (logical_and, logical_or, logical_not, not_equal's LogicalXor), the value
tests (is_finite, is_inf, is_pos_inf, is_neg_inf) and IsClose: one row each, whose in-place forms write
1/0 into selfRef's own dtype (opemu.ops.aclnn.common.elementwise says how a row becomes operators).

The tensor forms promote (op::PromoteType) and compare in the promoted dtype (fp16/bf16 widen to fp32
exactly); the bool result is cast into `out`, which may have any dtype bool can reach. The scalar forms
(GtScalar, GeScalar, LtScalar, LeScalar, EqScalar, NeScalar) have op_api files of their own: their own
dtype lists (the scalar's dtype checked against the input list), a promotion of tensor and scalar by
op::PromoteType (not the scalar-category rule), bool comparing as INT8, and a float-epsilon rule: a
DOUBLE scalar next to a floating tensor keeps the tensor's dtype when the scalar converted to it is
within FLT_EPSILON of the double; the scalar is converted to the compare dtype before comparing. On the
950 line the scalar joins by category (CombineCategoriesWithComplex).
The logical functions read each operand as bool (nonzero, NaN included, is true). IsInf is an opbuild
operator: its dtype pairs are is_inf_def.cpp's (161002 otherwise)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.scalar import Scalar
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import Elementwise, Row, generate, into
from opemu.ops.aclnn.common.promotion import codes, per_line, per_product

COMPARABLE = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL UINT64", "BF16")
FLT_EPSILON = float(np.finfo(np.float32).eps)

_ORDERED = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE UINT64 UINT16 UINT32 BOOL"
_ORDERED_OUT = _ORDERED + " COMPLEX64 COMPLEX128"
GT_SCALAR = (per_product(_ORDERED, "BF16"), per_product(_ORDERED_OUT, "BF16"))
LT_SCALAR = GT_SCALAR
_GE = "FLOAT INT32 FLOAT16 INT8 DOUBLE INT16 INT64 UINT64 UINT32 UINT16 UINT8"
GE_SCALAR = (per_line(_GE, _GE + " BF16", regbase=_GE + " BOOL BF16"), lambda: codes(_GE + " COMPLEX128 COMPLEX64 BOOL BF16"))
_LE = "INT8 UINT8 INT16 UINT16 INT32 INT64 FLOAT16 FLOAT DOUBLE BOOL"
LE_SCALAR = (per_line(_LE, _LE + " BF16", regbase=_LE + " BF16 UINT64"),
             per_line(_ORDERED_OUT, _ORDERED_OUT, regbase=_ORDERED_OUT + " BF16"))
_EQ = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL DOUBLE COMPLEX64 COMPLEX128"
_EQ_OUT_950 = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE UINT32 UINT64 BOOL UINT16 COMPLEX64 COMPLEX128 BF16"
EQ_SCALAR = (per_line(_EQ + " UINT64 UINT32", _EQ + " BF16", regbase=_EQ + " BF16 UINT64"),
             per_line(_EQ + " UINT64 UINT32", _EQ + " BF16", regbase=_EQ_OUT_950))
NE_SCALAR = (per_product(_EQ, "BF16"), per_line(_EQ, _EQ + " BF16", regbase=_EQ_OUT_950))

LOGICAL = lambda: codes("FLOAT FLOAT16 INT32 DOUBLE BF16 INT8 UINT8 INT16 INT64 BOOL COMPLEX64 COMPLEX128")
LOGICAL_OUT = lambda: codes("INT64 UINT64 INT32 UINT32 INT16 UINT16 INT8 UINT8 DOUBLE FLOAT FLOAT16 BF16 BOOL "
                            "COMPLEX128 COMPLEX64")
LOGICAL_NOT = lambda: codes("UINT8 INT8 INT16 INT32 INT64 FLOAT16 FLOAT DOUBLE BOOL BF16")
LOGICAL_XOR = per_product("FLOAT16 FLOAT DOUBLE INT8 UINT8 INT16 INT32 INT64 BOOL COMPLEX64 COMPLEX128", "BF16")
IS_FINITE = per_product("FLOAT FLOAT16 DOUBLE INT32 INT64 INT16 INT8 UINT8 BOOL", "BF16")
IS_SIGNED_INF = per_line("FLOAT FLOAT16 BOOL INT32 INT64 INT16 INT8 UINT8", "FLOAT FLOAT16 BF16 BOOL INT32 INT64 INT16 "
                         "INT8 UINT8")
IS_INF = per_product("FLOAT16 FLOAT", "BF16")
IS_CLOSE = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL", "BF16")


class ScalarComparison(Elementwise):
    """A comparison of a tensor with an aclScalar, as aclnn_gt_scalar.cpp and its siblings check it."""
    result = "bool"
    out_lists = None   # (input list, out list) callables

    def check(self, a):
        tensor, scalar = (name for name, kind in self.params if kind != "v")
        checks.not_null(a, *([tensor, scalar] + ([] if self.inplace else [self.target])), scalars=[scalar])
        allowed, out_allowed = self.out_lists
        checks.dtype_in(tensor, getattr(a, tensor), allowed())
        checks.dtype_in(scalar, getattr(a, scalar), allowed())
        target = getattr(a, self.target)
        checks.dtype_in(self.target if not self.inplace else tensor, target, out_allowed())
        a.result_dtype = _scalar_compare_dtype(getattr(a, tensor), getattr(a, scalar))
        value = getattr(a, scalar)
        setattr(a, scalar, Scalar(a.result_dtype, np.asarray(value.value).astype(dtypes.numpy_dtype(a.result_dtype))
                                  if value.dtype != a.result_dtype else value.value))
        checks.max_dim(tensor, getattr(a, tensor))
        if not self.inplace:
            checks.max_dim(self.target, target)
            checks.same_shape(self.target, target, tensor, getattr(a, tensor))
        a.rounding = None
        a.empty = target.is_empty()
        a.once = None


def _scalar_compare_dtype(tensor, scalar):
    if _products.is_regbase():
        promoted = P.promote_with_scalar(tensor.dtype, scalar.dtype)
    else:
        promoted = P.promote(tensor.dtype, scalar.dtype)
        if scalar.dtype == P.DOUBLE and tensor.dtype in P.FLOATS and promoted is not None:
            converted = float(np.asarray(scalar.value).astype(dtypes.numpy_dtype(tensor.dtype)))
            if abs(converted - float(scalar.value)) <= FLT_EPSILON:
                promoted = tensor.dtype
    if promoted is None:
        raise status.param_invalid("Self dtype %s and other dtype %s can not promote dtype."
                                   % (dtypes.serial_name(tensor.dtype), dtypes.serial_name(scalar.dtype)))
    return dtypes.acl("INT8") if promoted == P.BOOL else promoted


def _scalar_row(name, ufunc, lists):
    return Row(name, ufunc, lists[0], forms=name, result="bool",
               base=type("ScalarComparison" + name, (ScalarComparison,), {"out_lists": lists}))


def _as_bool(a, promoted):
    return P.BOOL


def _logical(ufunc):
    """A logical function: each operand read as bool."""
    return lambda *xs, out=None: ufunc(*(x.astype(bool, copy=False) for x in xs), out=out)


def _value_test(test, integral):
    """A test of floating values; every integral or bool value answers `integral`."""
    def kernel(x, out=None):
        if x.dtype.kind in "fc":
            return test(x, out=out)
        return into(np.full(x.shape, integral), out)
    return kernel


def _is_close(x, y, rtol, atol, equal_nan, out=None):
    """|x - y| <= atol + rtol·|y|, equal values (infinities too) always close, NaNs close when `equal_nan`."""
    close = np.less_equal(np.abs(x - y), atol + rtol * np.abs(y))
    close |= x == y
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return into(close, out)


def _bool_out(allowed):
    """Checks of IsFinite/IsPosInf/IsNegInf after the nulls: self in `allowed`, out of dtype BOOL."""
    def check(a):
        checks.dtype_in("self", a.self, allowed())
        checks.dtype_match("out", a.out, P.BOOL)
    return check


def _signed_inf_products(name):
    def check(a):
        if _products.line() not in ("A2", "A3", "950", "310P"):
            raise status.param_invalid("%s is not supported on this device." % name)
        _bool_out(IS_SIGNED_INF)(a)
    return check


def _is_inf_pairs(a):
    """is_inf_def.cpp: x FLOAT16/FLOAT (BF16 on A2/A3/950) with y BOOL."""
    if a.x.dtype not in IS_INF() or a.out.dtype != P.BOOL:
        raise status.param_invalid("The dtypes of x %s and out %s are not a supported combination."
                                   % (dtypes.serial_name(a.x.dtype), dtypes.serial_name(a.out.dtype)))


def _same_dtype(first, second):
    return lambda a: checks.dtype_match(first, getattr(a, first), getattr(a, second).dtype)


ROWS = (
    Row("Eq", np.equal, COMPARABLE, forms="EqTensor", result="bool"),
    Row("Ne", np.not_equal, COMPARABLE, forms="NeTensor", result="bool"),
    Row("Gt", np.greater, COMPARABLE, forms="GtTensor", result="bool"),
    Row("Lt", np.less, COMPARABLE, forms="LtTensor", result="bool"),
    Row("Ge", np.greater_equal, COMPARABLE, forms="GeTensor", result="bool"),
    Row("Le", np.less_equal, COMPARABLE, forms="LeTensor", result="bool"),
    _scalar_row("EqScalar", np.equal, EQ_SCALAR),
    _scalar_row("NeScalar", np.not_equal, NE_SCALAR),
    _scalar_row("GtScalar", np.greater, GT_SCALAR),
    _scalar_row("LtScalar", np.less, LT_SCALAR),
    _scalar_row("GeScalar", np.greater_equal, GE_SCALAR),
    _scalar_row("LeScalar", np.less_equal, LE_SCALAR),
    Row("LogicalAnd", _logical(np.logical_and), LOGICAL, result=_as_bool),
    Row("LogicalOr", _logical(np.logical_or), LOGICAL, out=LOGICAL_OUT, result=_as_bool),
    Row("LogicalXor", _logical(np.logical_xor), LOGICAL_XOR, out=LOGICAL_XOR, result=_as_bool),
    Row("LogicalNot", _logical(np.logical_not), LOGICAL_NOT, out=LOGICAL_NOT, result=_as_bool),
    Row("IsFinite", _value_test(np.isfinite, True), IS_FINITE, result="bool", check=_bool_out(IS_FINITE)),
    Row("IsPosInf", _value_test(np.isposinf, False), IS_SIGNED_INF, result="bool",
        check=_signed_inf_products("aclnnIsPosInf")),
    Row("IsNegInf", _value_test(np.isneginf, False), IS_SIGNED_INF, result="bool",
        check=_signed_inf_products("aclnnIsNegInf")),
    Row("IsInf", _value_test(np.isinf, False), IS_INF, result="bool", check=_is_inf_pairs,
        lines=("A2", "A3", "950", "310P")),
    Row("IsClose", _is_close, IS_CLOSE, result="bool", check=_same_dtype("self", "other")),
)
generate(__name__, ROWS)
