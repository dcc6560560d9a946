"""MX quantisation: aclnnDynamicMxQuant / V2 / V3 and aclnnAntiMxQuant (quant/dynamic_mx_quant and
quant/anti_mx_quant; the 950 line), on common/mx."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q

X_TYPES = P.codes("FLOAT16 BF16 FLOAT")
MX_OUT = (Q.FLOAT4_E2M1, Q.FLOAT4_E1M2, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2)
ROUND_MODES = ("rint", "round", "floor")


def check_round_mode(mode, target):
    allowed = ("rint",) if target in (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2) else ROUND_MODES
    if mode not in allowed:
        raise status.param_invalid("roundMode %s is not supported for %s, it should be in %s."
                                   % (mode, dtypes.serial_name(target), list(allowed)))


class DynamicMxQuantV3(AclnnOp):
    name = "aclnnDynamicMxQuantV3"
    inputs = ("x",)
    outputs = ("yOut", "mxscaleOut")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": X_TYPES, "yOut": MX_OUT, "mxscaleOut": [Q.FLOAT8_E8M0]}

    def extras(self, a):
        """(dstTypeMax, maxLowBound) of this form."""
        return float(a.dstTypeMax), float(a.maxLowBound)

    def check(self, a):
        checks.not_null(a, "x", "yOut", "mxscaleOut")
        checks.dtype_in("x", a.x, X_TYPES)
        checks.dtype_in("yOut", a.yOut, MX_OUT)
        checks.dtype_match("mxscaleOut", a.mxscaleOut, Q.FLOAT8_E8M0)
        if a.yOut.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s."
                                       % (a.dstType, dtypes.serial_name(a.yOut.dtype)))
        a.mode = a.roundModeOptional or "rint"
        check_round_mode(a.mode, a.dstType)
        if not 1 <= a.x.ndim <= 7:
            raise status.param_invalid("The dim of x should be in [1, 7], but got %d." % a.x.ndim)
        if not -a.x.ndim <= a.axis < a.x.ndim:
            raise status.param_invalid("axis %d is out of the range of x's dims." % a.axis)
        if a.blocksize <= 0 or a.blocksize % 32:
            raise status.param_invalid("blocksize should be a positive multiple of 32, but got %d." % a.blocksize)
        if a.scaleAlg not in (0, 1, 2):
            raise status.param_invalid("scaleAlg should be 0, 1 or 2, but got %d." % a.scaleAlg)
        if a.dstType in (Q.FLOAT4_E2M1, Q.FLOAT4_E1M2) and a.x.shape[-1] % 2:
            raise status.param_invalid("The last dim of x must be even when dstType is FLOAT4.")
        checks.same_shape("x", a.x, "yOut", a.yOut)
        expected = mx.scale_shape(a.x.shape, a.axis, a.blocksize)
        checks.shape_is("mxscaleOut", a.mxscaleOut, expected, checks.shape_text(expected))
        a.dst_max, a.low_bound = self.extras(a)
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        elements, codes = mx.quantize(Q.widen(v["x"]), a.axis, a.blocksize, a.yOut.dtype, a.mode, a.scaleAlg,
                                      a.dst_max, a.low_bound)
        mx.store_elements(v["yOut"], a.yOut, elements)
        v["mxscaleOut"][...] = codes.view(v["mxscaleOut"].dtype).reshape(v["mxscaleOut"].shape)


class DynamicMxQuantV2(DynamicMxQuantV3):
    name = "aclnnDynamicMxQuantV2"

    def extras(self, a):
        return float(a.dstTypeMax), 0.0


class DynamicMxQuant(DynamicMxQuantV3):
    name = "aclnnDynamicMxQuant"

    def extras(self, a):
        return 0.0, 0.0


class AntiMxQuant(AclnnOp):
    """y = x · 2^(mxscale - 127) per block of 32 along `axis`, into dstType (FLOAT16 / BF16)."""
    name = "aclnnAntiMxQuant"
    inputs = ("x", "mxscale")
    outputs = ("y",)
    products = _products.describe(("950",))
    BLOCK = 32

    def dtype_table(self):
        return {"x": MX_OUT, "mxscale": [Q.FLOAT8_E8M0], "y": P.codes("FLOAT16 BF16")}

    def check(self, a):
        checks.not_null(a, "x", "mxscale", "y")
        checks.dtype_in("x", a.x, MX_OUT)
        checks.dtype_match("mxscale", a.mxscale, Q.FLOAT8_E8M0)
        checks.dtype_in("y", a.y, P.codes("FLOAT16 BF16"))
        if a.y.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of y %s." % (a.dstType,
                                                                                  dtypes.serial_name(a.y.dtype)))
        if not -a.x.ndim <= a.axis < a.x.ndim:
            raise status.param_invalid("axis %d is out of the range of x's dims." % a.axis)
        checks.same_shape("x", a.x, "y", a.y)
        expected = mx.scale_shape(a.x.shape, a.axis, self.BLOCK)
        checks.shape_is("mxscale", a.mxscale, expected, checks.shape_text(expected))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        values = Q.decode(v["x"], a.x)
        codes = v["mxscale"].view(np.uint8)
        P.store(v["y"], mx.dequantize(values, codes, a.axis, self.BLOCK))
