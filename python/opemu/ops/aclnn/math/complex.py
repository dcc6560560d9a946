"""Complex numbers and masks (ops-math math/complex, polar, real, angle_v2, masked_scale): one row each
(opemu.ops.aclnn.common.elementwise says how a row becomes operators).

Complex pairs real and imag of one dtype into the complex dtype twice as wide; Polar builds abs·e^(i·angle)
in fp32; Real keeps the real part (a real input passes through); AngleV2 (an opbuild operator: its dtype
pairs are angle_v2_def.cpp's) gives the argument of a complex value and π or 0 for a real one by its sign
(NaN stays NaN). COMPLEX32 has no host type: a COMPLEX32 tensor is refused as a layout no kernel takes.
MaskedScale (the 950 line; elsewhere its op_api's lists are empty) computes self · mask · scale in fp32."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import Row, generate, into
from opemu.ops.aclnn.common.promotion import codes, per_line

COMPLEX_PARTS = lambda: codes("FLOAT16 FLOAT DOUBLE")
COMPLEX_OF = {"FLOAT16": "COMPLEX32", "FLOAT": "COMPLEX64", "DOUBLE": "COMPLEX128"}
REAL_IN = per_line("COMPLEX64 COMPLEX128", "FLOAT FLOAT16 COMPLEX32 COMPLEX64 COMPLEX128",
                   regbase="FLOAT FLOAT16 COMPLEX32 COMPLEX64")
REAL_OF = {"COMPLEX64": "FLOAT", "COMPLEX32": "FLOAT16", "COMPLEX128": "DOUBLE", "FLOAT16": "FLOAT16",
           "FLOAT": "FLOAT"}
ANGLE_IN = per_line("FLOAT16 FLOAT COMPLEX64 BOOL UINT8 INT8 INT16 INT32 INT64",
                    "FLOAT16 FLOAT COMPLEX64 BOOL UINT8 INT8 INT16 INT32 INT64 BF16")
MASKED_SCALE_X = per_line("", regbase="FLOAT FLOAT16 BF16")
MASKED_SCALE_MASK = per_line("", regbase="FLOAT FLOAT16 UINT8 INT8")


def _name(code):
    return dtypes.serial_name(code)[len("DT_"):]


def _complex(real, imag, out=None):
    return np.add(real, np.multiply(imag, 1j), out=out)


def _polar(magnitude, angle, out=None):
    return np.multiply(magnitude, np.cos(angle) + 1j * np.sin(angle), out=out)


def _real(x, out=None):
    return into(np.real(x), out)


def _angle(x, out=None):
    if x.dtype.kind == "c":
        return into(np.angle(x), out)
    result = np.multiply(x < 0, x.dtype.type(np.pi), dtype=x.dtype)
    np.copyto(result, x, where=np.isnan(x))
    return into(result, out)


def _masked_scale(x, mask, scale, out=None):
    return np.multiply(np.multiply(x, mask), np.float32(scale), out=out)


def _complex_pair(a):
    checks.dtype_in("real", a.real, COMPLEX_PARTS())
    checks.dtype_in("imag", a.imag, COMPLEX_PARTS())
    checks.dtype_in("out", a.out, codes("COMPLEX32 COMPLEX64 COMPLEX128"))
    checks.same_dtype("real", a.real, "imag", a.imag)
    if _name(a.out.dtype) != COMPLEX_OF[_name(a.real.dtype)]:
        raise status.param_invalid("Input dtype and out dtype must be paired. Current dtype is %s and %s."
                                   % (dtypes.serial_name(a.real.dtype), dtypes.serial_name(a.out.dtype)))


def _complex_dtype(a, promoted):
    return dtypes.acl(COMPLEX_OF[_name(promoted)])


def _polar_dtypes(a):
    checks.dtype_in("input", a.input, (P.FLOAT,))
    checks.dtype_in("out", a.out, (P.COMPLEX64,))
    checks.dtype_in("angle", a.angle, (P.FLOAT,))


def _real_pair(a):
    checks.dtype_in("self", a.self, REAL_IN())
    if REAL_OF.get(_name(a.self.dtype)) != _name(a.out.dtype):
        raise status.param_invalid("when dtype of input is [%s] output is [%s],the param is invalid."
                                   % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.out.dtype)))


def _angle_pairs(a):
    """angle_v2_def.cpp: FLOAT16 → FLOAT16, BF16 → BF16, every other input → FLOAT."""
    expected = a.x.dtype if a.x.dtype in (P.FLOAT16, P.BF16) else P.FLOAT
    if a.x.dtype not in ANGLE_IN() or a.out.dtype != expected:
        raise status.param_invalid("The dtypes of x %s and out %s are not a supported combination."
                                   % (dtypes.serial_name(a.x.dtype), dtypes.serial_name(a.out.dtype)))


def _angle_dtype(a, promoted):
    return promoted if P.category(promoted) >= 2 else P.FLOAT


def _masked_scale_dtypes(a):
    checks.same_dtype("self", a.self, "out", a.out)
    checks.dtype_in("self", a.self, MASKED_SCALE_X())
    checks.dtype_in("mask", a.mask, MASKED_SCALE_MASK())
    checks.same_shape("self", a.self, "out", a.out)
    checks.same_shape("mask", a.mask, "out", a.out)


def _self_dtype(a, promoted):
    return a.self.dtype


ROWS = (
    Row("Complex", _complex, COMPLEX_PARTS, result=_complex_dtype, check=_complex_pair),
    Row("Polar", _polar, lambda: (P.FLOAT,), result=lambda a, promoted: P.FLOAT, check=_polar_dtypes),
    Row("Real", _real, REAL_IN, check=_real_pair, castable=False),
    Row("AngleV2", _angle, ANGLE_IN, result=_angle_dtype, check=_angle_pairs, castable=False,
        lines=("910", "A2", "A3", "950")),
    Row("MaskedScale", _masked_scale, lambda: codes("FLOAT FLOAT16 BF16 UINT8 INT8"), result=_self_dtype,
        check=_masked_scale_dtypes),
)
generate(__name__, ROWS)
