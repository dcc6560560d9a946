"""Rounding and sign functions (ops-math math/ceil, floor, trunc, round, sub (Frac), sign, signbit, square,
nan_to_num): one row each (opemu.ops.aclnn.common.elementwise says how a row becomes operators). Each
writes self's dtype into an out of the same dtype.

Round and RoundDecimals round half to even (the kernel's RoundDecimals; torch.round's rule);
RoundDecimals scales by 10^decimals in the compute dtype first. Integral inputs pass through floor, trunc
and round unchanged; Frac of an integer is 0 (the op_api's ZerosLike). Sign of a complex value is
x / |x| (0 at 0). NanToNum replaces in fp32 and rounds into self's dtype (a replacement past fp16's range
becomes inf there); integral inputs have nothing to replace."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common.elementwise import Row, generate, into
from opemu.ops.aclnn.common.promotion import codes, per_line, per_product

CEIL = per_product("DOUBLE FLOAT FLOAT16", "BF16")
FLOOR = per_product("INT64 INT32 INT16 INT8 UINT64 UINT32 UINT16 UINT8 DOUBLE FLOAT FLOAT16", "BF16")
TRUNC = per_line("FLOAT FLOAT16", "FLOAT FLOAT16 BF16", regbase="FLOAT FLOAT16 BF16 INT8 UINT8 INT32")
ROUND = per_product("FLOAT FLOAT16 DOUBLE INT32 INT64", "BF16")
FRAC = per_product("FLOAT FLOAT16 INT8 INT16 INT32 INT64 UINT8", "BF16")
SIGN = lambda: codes("DOUBLE FLOAT FLOAT16 INT32 INT64 COMPLEX64 COMPLEX128 BOOL")
SIGN_ANY = per_product("DOUBLE FLOAT FLOAT16 INT32 INT64 COMPLEX64 COMPLEX128 BOOL", "BF16")
SIGNBIT = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE UINT32 UINT64 BOOL UINT16", "BF16")
SQUARE = lambda: codes("INT64 FLOAT FLOAT16 INT32 BF16")
NAN_TO_NUM = lambda: codes("FLOAT16 FLOAT BF16 INT8 INT16 INT32 INT64 UINT8 BOOL")


def _floating_only(ufunc):
    """`ufunc` on floating data; integral data passes unchanged."""
    return lambda x, out=None: ufunc(x, out=out) if x.dtype.kind in "fc" else into(x, out)


def _round_decimals(x, decimals, out=None):
    if x.dtype.kind not in "fc":
        return into(x, out)
    if decimals == 0:
        return np.rint(x, out=out)
    return np.round(x, int(decimals), out=out)


def _frac(x, out=None):
    if x.dtype.kind not in "fc":
        return into(np.zeros_like(x), out)
    return np.subtract(x, np.trunc(x), out=out)


def _sign(x, out=None):
    if x.dtype.kind == "c":
        magnitude = np.abs(x)
        return np.divide(x, np.where(magnitude == 0, 1, magnitude), out=out)
    if x.dtype.kind == "b":
        return into(x, out)
    return np.sign(x, out=out)


def _signbit(x, out=None):
    return np.signbit(x, out=out) if x.dtype.kind == "f" else np.less(x, 0, out=out)


def _square(x, out=None):
    return np.multiply(x, x, out=out)


def _nan_to_num(x, nan, posinf, neginf, out=None):
    result = into(x, out) if out is not None else x.copy()
    if x.dtype.kind == "f":
        kind = x.dtype.type
        for value, where in ((nan, np.isnan(x)), (posinf, x == np.inf), (neginf, x == -np.inf)):
            np.copyto(result, kind(value), where=where)
    return result


def _sign_dtypes(a):
    """aclnn_sign.cpp: a dtype outside the list is refused (BF16 passes on A2/A3/950, then no same-dtype rule);
    one inside it must be result's dtype too."""
    dtype = a.self.dtype
    if dtype not in SIGN():
        if dtype not in SIGN_ANY():
            checks.dtype_in("self", a.self, SIGN_ANY())
    elif dtype != a.result.dtype:
        raise status.param_invalid("Self dtype should be same as result dtype. self [%s], result [%s]"
                                   % tuple(dtypes.serial_name(t.dtype) for t in (a.self, a.result)))


def _square_on_950(a):
    if not _products.is_regbase():
        raise status.param_invalid("not implemented for %s" % soc())


def _nan_to_num_products(a):
    if _products.line() not in ("A2", "A3", "950"):
        raise status.param_invalid("NanToNum is not supported on this device.")


ROWS = (
    Row("Ceil", np.ceil, CEIL, same_dtype=True),
    Row("Floor", _floating_only(np.floor), FLOOR, same_dtype=True),
    Row("Trunc", _floating_only(np.trunc), TRUNC, out=TRUNC, same_dtype=True),
    Row("Round", _floating_only(np.rint), ROUND, out=ROUND, same_dtype=True),
    Row("RoundDecimals", _round_decimals, ROUND, out=ROUND, same_dtype=True),
    Row("Frac", _frac, FRAC, same_dtype=True),
    Row("Sign", _sign, SIGN_ANY, check=_sign_dtypes, castable=False),
    Row("Signbit", _signbit, SIGNBIT, out=SIGNBIT, result="bool"),
    Row("Square", _square, SQUARE, same_dtype=True, check=_square_on_950),
    Row("NanToNum", _nan_to_num, NAN_TO_NUM, same_dtype=True, check=_nan_to_num_products),
)
generate(__name__, ROWS)
