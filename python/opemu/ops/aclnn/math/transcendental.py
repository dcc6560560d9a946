"""Transcendental and special functions (ops-math math/acos, acosh, asin, asinh, atan, atanh, atan2, cosh,
sinh, tan, erf, erfc, expm1, log1p, log (Log2, Log10), pow (Exp2), reciprocal, sinc, digamma, lgamma,
log_add_exp, xlogy, xlog1py, tanh_grad): one row each (opemu.ops.aclnn.common.elementwise says how a row
becomes operators).

Dtype lists are the op_api sources' (hicann/ops-math@c4193324): the base list on every product, BF16 added
on Atlas A2/A3 and the 950 line; an in-place form checks its SELFREF list. Integral and bool inputs compute
in FLOAT (the op_api casts them first); fp16/bf16 compute in fp32 and round once into their own dtype
(then the op_api's Cast into out). Special functions are scipy.special's.

Decisions: Log1p casts an integral input to out's dtype rather than FLOAT (here FLOAT, then rounded into
out: at most one fp16 rounding apart). LogAddExp and LogAddExp2 compute in out's dtype as their op_api
casts both inputs to it. Xlog1py exists on the 950 line only (its kernel's one binary)."""
import numpy as np

from opemu.core import checks, status
from opemu.ops.aclnn.common.elementwise import Row, generate, into
from opemu.ops.aclnn.common.promotion import FLOAT, codes, per_product

INTEGRAL_FLOAT = "FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 BOOL UINT8"
REAL_IN = per_product(INTEGRAL_FLOAT, "BF16")
REAL_OUT = lambda: codes("FLOAT FLOAT16 DOUBLE BF16")
REAL_SELFREF = per_product("FLOAT FLOAT16 DOUBLE", "BF16")
COMPLEX_IN = per_product(INTEGRAL_FLOAT + " COMPLEX64 COMPLEX128", "BF16")
COMPLEX_OUT = lambda: codes("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128 BF16")
COMPLEX_SELFREF = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")
ERF_IN = per_product("DOUBLE FLOAT FLOAT16 BOOL INT64", "BF16")
EXPM1_IN = per_product("FLOAT FLOAT16 INT64 BOOL", "BF16")
HALF_SELFREF = per_product("FLOAT FLOAT16", "BF16")
LOG10_IN = lambda: codes("BOOL UINT8 INT8 INT16 INT32 INT64 BF16 FLOAT16 FLOAT DOUBLE COMPLEX64 COMPLEX128")
RECIPROCAL_IN = per_product(INTEGRAL_FLOAT + " COMPLEX64 COMPLEX128", "BF16")
GAMMA = lambda: codes("DOUBLE FLOAT FLOAT16")
LOGADDEXP_IN = per_product("FLOAT FLOAT16 DOUBLE INT8 UINT8 INT16 UINT16 INT32 UINT32 INT64 UINT64 BOOL", "BF16")
LOGADDEXP_OUT = per_product("FLOAT16 FLOAT", "BF16")
XLOGY = per_product("FLOAT INT32 INT64 FLOAT16 INT8 UINT8 BOOL INT16", "BF16")
XLOG1PY = lambda: codes("FLOAT FLOAT16 BF16")
TANH_GRAD = per_product("FLOAT FLOAT16 DOUBLE", "BF16")
ATAN2_COMPUTE = per_product("FLOAT FLOAT16 DOUBLE", "BF16")


def _special(name):
    """scipy.special's ufunc `name`, imported on first use (the import costs a process ~100 ms)."""
    def kernel(*operands, out=None):
        from scipy import special
        return getattr(special, name)(*operands, out=out)
    return kernel


def _reciprocal(x, out=None):
    return np.divide(1, x, out=out)


def _x_times(log):
    """x * log(y), 0 where x is 0 and y is not NaN (XLogY, Xlog1py)."""
    def kernel(x, y, out=None):
        result = np.multiply(x, log(y), out=out)
        np.copyto(result, 0, where=(np.asarray(x) == 0) & ~np.isnan(y))
        return result
    return kernel


def _sinc(x, out=None):
    return into(np.sinc(x), out)


def _tanh_grad(grad, y, out=None):
    """dy/dx of tanh through its output: grad * (1 - y²)."""
    return np.multiply(grad, 1 - y * y, out=out)


def _in_out_dtype(a, promoted):
    return a.out.dtype


def _floating_or_float(allowed):
    """The compute dtype of a function whose kernel takes `allowed`: the promoted dtype, else FLOAT."""
    return lambda a, promoted: promoted if promoted in allowed() else FLOAT


def _digamma_lgamma_check(a):
    """Digamma and Lgamma check that out has self's dtype before the dtype list (OP_CHECK_DTYPE_NOT_MATCH)."""
    checks.dtype_match("self", a.self, a.out.dtype)


def _xlog1py_dtypes(a):
    checks.dtype_match("x", a.x, a.y.dtype)
    checks.dtype_match("z", a.z, a.x.dtype)
    if a.x.dtype not in XLOG1PY():
        raise status.param_invalid("Dtype not supported: dtype=%d. Supported: FLOAT, FLOAT16, BF16." % a.x.dtype)


def _tanh_grad_dtypes(a):
    for name in ("gradOutput", "output", "gradInput"):
        checks.dtype_in(name, getattr(a, name), TANH_GRAD())
    checks.dtype_match("gradOutput", a.gradOutput, a.output.dtype)
    checks.dtype_match("gradOutput", a.gradOutput, a.gradInput.dtype)


ROWS = (
    Row("Acos", np.arccos, REAL_IN, out=REAL_OUT, result="float", inplace_dtypes=REAL_SELFREF, castable=False),
    Row("Asin", np.arcsin, REAL_IN, out=per_product("FLOAT FLOAT16 DOUBLE", "BF16"), result="float",
        inplace_dtypes=REAL_SELFREF, castable=False),
    Row("Atan", np.arctan, REAL_IN, out=REAL_OUT, result="float", inplace_dtypes=REAL_SELFREF, castable=False),
    Row("Acosh", np.arccosh, COMPLEX_IN, out=COMPLEX_OUT, result="float", inplace_dtypes=COMPLEX_SELFREF),
    Row("Asinh", np.arcsinh, COMPLEX_IN, out=COMPLEX_OUT, result="float", inplace_dtypes=COMPLEX_SELFREF,
        castable=False),
    Row("Atanh", np.arctanh, COMPLEX_IN, out=COMPLEX_OUT, result="float", inplace_dtypes=COMPLEX_SELFREF,
        castable=False),
    Row("Cosh", np.cosh, COMPLEX_IN, out=COMPLEX_OUT, result="float", inplace_dtypes=COMPLEX_SELFREF,
        castable=False),
    Row("Sinh", np.sinh, COMPLEX_IN, out=per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16"),
        result="float", inplace_dtypes=COMPLEX_SELFREF, castable=False),
    Row("Tan", np.tan, COMPLEX_IN, result="float"),
    Row("Erf", _special("erf"), ERF_IN, result="float", inplace_dtypes=per_product("DOUBLE FLOAT FLOAT16", "BF16")),
    Row("Erfc", _special("erfc"), ERF_IN, result="float", inplace_dtypes=per_product("DOUBLE FLOAT FLOAT16", "BF16")),
    Row("Expm1", np.expm1, EXPM1_IN, result="float", inplace_dtypes=HALF_SELFREF),
    Row("Log1p", np.log1p, REAL_IN, out=per_product("FLOAT FLOAT16 DOUBLE", "BF16"), result="float",
        inplace_dtypes=REAL_SELFREF, castable=False),
    Row("Log2", np.log2, COMPLEX_IN, out=per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16"),
        result="float", inplace_dtypes=COMPLEX_SELFREF),
    Row("Log10", np.log10, LOG10_IN, result="float", inplace_dtypes=COMPLEX_SELFREF),
    Row("Exp2", np.exp2, per_product("FLOAT INT32 INT64 FLOAT16 INT8 UINT8 DOUBLE INT16 BOOL", "BF16"), result="float",
        inplace_dtypes=REAL_SELFREF),
    Row("Reciprocal", _reciprocal, RECIPROCAL_IN, out=per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16"),
        result="float", inplace_dtypes=COMPLEX_SELFREF, castable=False),
    Row("Sinc", _sinc, REAL_IN, out=per_product("FLOAT FLOAT16 DOUBLE", "BF16"), result="float", castable=False),
    Row("Digamma", _special("digamma"), GAMMA, check=_digamma_lgamma_check),
    Row("Lgamma", _special("gammaln"), GAMMA, check=_digamma_lgamma_check),
    Row("Atan2", np.arctan2, REAL_IN, result=_floating_or_float(ATAN2_COMPUTE), castable=False),
    Row("LogAddExp", np.logaddexp, LOGADDEXP_IN, out=LOGADDEXP_OUT, result=_in_out_dtype),
    Row("LogAddExp2", np.logaddexp2, LOGADDEXP_IN, out=LOGADDEXP_OUT, result=_in_out_dtype),
    Row("XLogY", _x_times(np.log), XLOGY, forms="XLogYTensor XLogYScalarOther XLogYScalarSelf", result="float"),
    Row("Xlog1py", _x_times(np.log1p), XLOG1PY, check=_xlog1py_dtypes, lines=("950",)),
    Row("TanhBackward", _tanh_grad, TANH_GRAD, check=_tanh_grad_dtypes),
)
generate(__name__, ROWS)
