"""Division with rounding and remainders (ops-math math/div (DivMod), floor_div, floor_mod (Remainder), mod
(Fmod), gcd): one row each (opemu.ops.aclnn.common.elementwise says how a row becomes operators).

DivMod's mode: 0 true division (integral operands give FLOAT), 1 truncation toward zero, 2 floor; a mode
outside 0..2 is refused after the other checks, and complex operands have no rounded division. Floating
floor division is floor(a / b) (the kernel divides, then floors); integral division is exact in the
integers: floor (FloorDiv's kernel), toward zero (TruncateDiv), remainders with the divisor's sign
(Remainder, FloorMod) or the dividend's (Fmod). An integer divided by zero is not documented: 0 here, as
NumPy gives (the device's vector unit has no trap). bool operands of FloorDivide compute in FLOAT."""
import numpy as np

from opemu.core import dtypes, status
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import codes, per_line, per_product

DIVISIBLE = per_product("FLOAT16 FLOAT INT64 INT32 INT16 INT8 UINT8 DOUBLE BOOL COMPLEX64 COMPLEX128", "BF16")
FLOOR_DIVISIBLE = per_product("FLOAT16 FLOAT INT64 INT32 INT16 INT8 UINT8 DOUBLE BOOL", "BF16")
REMAINDER = per_product("INT32 INT64 FLOAT16 FLOAT DOUBLE", "BF16")
FMOD = per_product("FLOAT INT32 INT8 FLOAT16 UINT8 DOUBLE INT64", "BF16")
GCD_ANY = lambda: codes("BOOL INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 FLOAT16 BF16 FLOAT DOUBLE "
                        "COMPLEX64 COMPLEX128")
GCD = per_line("INT32", "INT32 INT16 INT64", regbase="UINT8 INT8 INT16 INT32 INT64")
REAL_DIV, TRUNC_DIV, FLOOR_DIV = 0, 1, 2


def _floor_divide(x, y, out=None):
    if x.dtype.kind in "fc":
        return np.floor(np.true_divide(x, y), out=out)
    return np.floor_divide(x, y, out=out)


def _trunc_divide(x, y, out=None):
    if x.dtype.kind in "fc":
        return np.trunc(np.true_divide(x, y), out=out)
    quotient = np.floor_divide(x, y)
    inexact = (np.remainder(x, y) != 0) & ((x < 0) != (y < 0))
    return np.add(quotient, inexact.astype(quotient.dtype), out=out)


_BY_MODE = {REAL_DIV: np.true_divide, TRUNC_DIV: _trunc_divide, FLOOR_DIV: _floor_divide}


def _div_mode(x, y, mode, out=None):
    return _BY_MODE[mode](x, y, out=out)


def _div_mode_dtype(a, promoted):
    if a.mode == REAL_DIV or (a.mode == FLOOR_DIV and promoted == P.BOOL):
        return P.FLOAT if P.category(promoted) < 2 else promoted
    return promoted


def _div_mode_check(a):
    """aclnn_div.cpp checks the mode after the operands (here: after the nulls, before the dtypes, which only
    decides which of two refusals a call with both faults gets)."""
    if not REAL_DIV <= a.mode <= FLOOR_DIV:
        raise status.param_invalid("mode should be between 0 and 2, but current is %d" % a.mode)
    if a.mode != REAL_DIV:
        operands = [getattr(a, n, None) for n in ("self", "selfRef", "other")]   # the in-place form's selfRef
        kinds = [t.dtype for t in operands if t is not None]
        if any(P.category(k) == 3 for k in kinds):
            raise status.param_invalid("promoteType do not support DT_COMPLEX128 or DT_COMPLEX64.")


def _float_for_bool(a, promoted):
    return P.FLOAT if promoted == P.BOOL else promoted


def _gcd_check(a):
    if a.self.dtype == P.BOOL and a.other.dtype == P.BOOL:
        raise status.param_invalid("gcd not implemented for %s" % dtypes.serial_name(a.self.dtype))
    if P.category(a.out.dtype) != 1:
        raise status.param_invalid("Out type should be integral but got %s." % dtypes.serial_name(a.out.dtype))
    promoted = P.promote(a.self.dtype, a.other.dtype)
    if promoted is None:
        raise status.param_invalid("Self dtype %s and other dtype %s can not be promoted."
                                   % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.other.dtype)))
    if promoted not in GCD():
        raise status.param_invalid("Self dtype %s and other dtype %s get promoteType dtype %s should be in dtype "
                                   "support list %s." % (dtypes.serial_name(a.self.dtype),
                                                         dtypes.serial_name(a.other.dtype),
                                                         dtypes.serial_name(promoted), dtypes.serial_list(GCD())))


ROWS = (
    Row("DivMod", _div_mode, DIVISIBLE, forms="DivMod DivMods", result=_div_mode_dtype, check=_div_mode_check),
    Row("FloorDivide", _floor_divide, FLOOR_DIVISIBLE, forms="FloorDivide FloorDivides", result=_float_for_bool,
        scalar_checked=True),
    Row("Remainder", np.remainder, REMAINDER,
        forms="RemainderTensorTensor RemainderTensorScalar RemainderScalarTensor"),
    Row("Fmod", np.fmod, FMOD, out=FMOD, forms="FmodTensor FmodScalar", scalar_checked=True),
    Row("Gcd", np.gcd, GCD_ANY, check=_gcd_check),
)
generate(__name__, ROWS)
