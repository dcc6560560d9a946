"""aclnnGeluQuant (ops-nn activation/gelu_quant, the 950 line only): gelu (approximate "none" or "tanh"), then
quantisation into y of dstType (INT8, FLOAT8_E4M3FN, FLOAT8_E5M2; HIFLOAT8 has no host codec here and is
refused as not supported):

    static   y = round(gelu(x)·inputScale + inputOffset)                  (scale, offset per last-dim channel)
    dynamic  g = gelu(x)·inputScale;  outScale = max|g| per row / maxValue;  y = round(g / outScale)

maxValue is 127, 448 or 57344; INT8 rounds half to even (roundMode "rint", the only one the op_api takes for
these types) and saturates; the fp8 types round to nearest even through ml_dtypes with saturation to
±maxValue. Computed in fp32. Phase 1 as its op_api (hicann/ops-nn@e5c3fa93): product → nulls → quantMode →
the optional tensors' combination → dtypes (approximate, dstType equal to y's) → shapes → roundMode → no
empty tensor."""
import ml_dtypes
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.activation.elementwise import gelu_erf, gelu_tanh
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

SELF = P.codes("FLOAT16 BF16 FLOAT")
Y = P.codes("INT8 FLOAT8_E4M3FN FLOAT8_E5M2")
F32 = np.dtype(np.float32)
MAX_VALUE = {dtypes.acl("INT8"): 127.0, dtypes.acl("FLOAT8_E4M3FN"): 448.0, dtypes.acl("FLOAT8_E5M2"): 57344.0}


def quantize(values, code):
    """fp32 values into the dtype `code` with the hardware's rounding and saturation."""
    limit = np.float32(MAX_VALUE[code])
    clipped = np.clip(values, -limit, limit)
    if code == dtypes.acl("INT8"):
        return np.rint(clipped).astype(np.int8)
    target = ml_dtypes.float8_e4m3fn if code == dtypes.acl("FLOAT8_E4M3FN") else ml_dtypes.float8_e5m2
    return np.where(np.isnan(values), values, clipped).astype(target)


class GeluQuant(AclnnOp):
    name = "aclnnGeluQuant"
    inputs = ("self", "inputScaleOptional", "inputOffsetOptional")
    outputs = ("y", "outScaleOptional")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"self": SELF, "inputScaleOptional": SELF, "inputOffsetOptional": SELF, "y": Y,
                "outScaleOptional": P.codes("FLOAT")}

    def check(self, a):
        if not _products.is_regbase():
            raise status.param_invalid("Support for %s is not implemented." % _products.line())
        checks.not_null(a, "self")
        dynamic = (a.quantMode or "").startswith("dynamic")
        if not dynamic:
            checks.not_null(a, "inputScaleOptional")
        for name in ("approximate", "roundMode"):
            if getattr(a, name) is None:
                raise status.param_nullptr("Expected a proper value but got null for argument %s." % name)
        checks.not_null(a, "y")
        if dynamic:
            checks.not_null(a, "outScaleOptional")
        if a.quantMode is None or not (a.quantMode.startswith("dynamic") or a.quantMode.startswith("static")):
            raise status.param_invalid('Got quantMode neither "dynamic" nor "static".')
        if dynamic and a.inputOffsetOptional is not None and a.inputScaleOptional is None:
            raise status.param_invalid("inputOffsetOptional needs inputScaleOptional in dynamic quantMode.")
        checks.dtype_in("self", a.self, SELF)
        if a.y.dtype == dtypes.acl("HIFLOAT8"):
            raise status.param_invalid("aclnnGeluQuant to HIFLOAT8 is not supported by opemu.")
        checks.dtype_in("y", a.y, Y)
        for name in ("inputScaleOptional", "inputOffsetOptional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), SELF)
        if a.outScaleOptional is not None:
            checks.dtype_match("outScaleOptional", a.outScaleOptional, P.FLOAT)
        if a.approximate not in ("none", "tanh"):
            raise status.param_invalid("expected approximate equals 'none' or 'tanh', get: %s" % a.approximate)
        if a.dstType != a.y.dtype:
            raise status.param_invalid("dstType:%d(%s) is must be the same as y dtype[%s]."
                                       % (a.dstType, dtypes.serial_name(a.dstType), dtypes.serial_name(a.y.dtype)))
        if dynamic:
            if not 2 <= a.self.ndim <= 8:
                raise status.param_invalid("input self Dims is %d, should be 2-8D." % a.self.ndim)
            if tuple(a.outScaleOptional.shape) != tuple(a.self.shape[:-1]):
                raise status.param_invalid("The shape of outScaleOptional matches the shape of self across all "
                                           "dimensions except for the last dimension.")
        else:
            checks.max_dim("self", a.self)
        for name in ("inputScaleOptional", "inputOffsetOptional"):
            tensor = getattr(a, name)
            if tensor is not None and tensor.ndim != 1:
                raise status.param_invalid("%s Dims is %d, only supported 1D." % (name, tensor.ndim))
        checks.same_shape("self", a.self, "y", a.y)
        if a.roundMode != "rint":
            raise status.param_invalid("check roundMode failed, roundMode[%s] not in ['rint'] for "
                                       "float8_e5m2/float8_e4m3fn/int8." % a.roundMode)
        present = [getattr(a, n) for n in self.inputs + self.outputs if getattr(a, n) is not None]
        if any(t.is_empty() for t in present):
            raise status.param_invalid("Geluquant does not support empty tensor.")
        a.dynamic = dynamic

    def compute(self, a, v, workspace):
        x = P.as_compute(v["self"], F32)
        with np.errstate(all="ignore"):
            g = (gelu_tanh if a.approximate == "tanh" else gelu_erf)(x)
            if a.inputScaleOptional is not None:
                g = g * P.as_compute(v["inputScaleOptional"], F32)
            if not a.dynamic:
                if a.inputOffsetOptional is not None:
                    g = g + P.as_compute(v["inputOffsetOptional"], F32)
                v["y"][...] = quantize(g, a.y.dtype)
                return
            scale = np.abs(g).max(axis=-1) / np.float32(MAX_VALUE[a.y.dtype])
            v["outScaleOptional"][...] = scale
            v["y"][...] = quantize(g / scale[..., None], a.y.dtype)
