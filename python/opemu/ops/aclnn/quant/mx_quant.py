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


class DynamicMxQuantWithDualAxis(AclnnOp):
    """Two MX quantisations of x: along the last axis (y1Out, mxscale1Out) and along the second-last (y2Out,
    mxscale2Out, pairs of scale rows interleaved), blocks of 32; the axes before -2 merge into one."""
    name = "aclnnDynamicMxQuantWithDualAxis"
    inputs = ("x",)
    outputs = ("y1Out", "mxscale1Out", "y2Out", "mxscale2Out")
    products = _products.describe(("950",))
    BLOCK = 32

    def dtype_table(self):
        return {"x": P.codes("FLOAT16 BF16"), "y1Out": MX_OUT, "y2Out": MX_OUT, "mxscale1Out": [Q.FLOAT8_E8M0],
                "mxscale2Out": [Q.FLOAT8_E8M0]}

    def dst_max(self, a):
        return 0.0

    def check(self, a):
        checks.not_null(a, *(("x",) + self.outputs))
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        for name in ("y1Out", "y2Out"):
            checks.dtype_in(name, getattr(a, name), MX_OUT)
            if getattr(a, name).dtype != a.dstType:
                raise status.param_invalid("dstType %d must be the dtype of %s." % (a.dstType, name))
            checks.same_shape("x", a.x, name, getattr(a, name))
        for name in ("mxscale1Out", "mxscale2Out"):
            checks.dtype_match(name, getattr(a, name), Q.FLOAT8_E8M0)
        a.mode = a.roundModeOptional or "rint"
        check_round_mode(a.mode, a.dstType)
        if a.x.ndim < 2:
            raise status.param_invalid("x should be at least 2-D, but got %s." % checks.shape_text(a.x.shape))
        merged = (int(np.prod(a.x.shape[:-2])),) + tuple(a.x.shape[-2:])
        for name, axis in (("mxscale1Out", -1), ("mxscale2Out", -2)):
            expected = mx.scale_shape(merged, axis, self.BLOCK)
            if int(np.prod(getattr(a, name).shape)) != int(np.prod(expected)):
                raise status.param_invalid("The shape of %s should hold %s, but got %s."
                                           % (name, checks.shape_text(expected),
                                              checks.shape_text(getattr(a, name).shape)))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        x = x.reshape((-1,) + x.shape[-2:])
        for y, scale, axis in (("y1Out", "mxscale1Out", -1), ("y2Out", "mxscale2Out", -2)):
            elements, codes = mx.quantize(x, axis, self.BLOCK, a.dstType, a.mode, a.scaleAlg, self.dst_max(a))
            mx.store_elements(v[y], getattr(a, y), elements.reshape(a.x.shape))
            v[scale][...] = codes.view(v[scale].dtype).reshape(v[scale].shape)


class DynamicMxQuantWithDualAxisV2(DynamicMxQuantWithDualAxis):
    name = "aclnnDynamicMxQuantWithDualAxisV2"

    def dst_max(self, a):
        return float(a.dstTypeMax)


class SwigluMxQuant(AclnnOp):
    """MX quantisation of a SwiGLU (quant/swiglu_quant's swiglu_variant on the halves of activateDim, the last
    axis) along `axis`, blocks of 32 (950); rows past Σ groupIndex (groupMode 0: cumulative, 1: counts) are left
    unwritten."""
    name = "aclnnSwigluMxQuant"
    inputs = ("x", "groupIndexOptional")
    outputs = ("yOut", "mxscaleOut")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": P.codes("FLOAT16 BF16"), "groupIndexOptional": P.codes("INT32 INT64"), "yOut": MX_OUT,
                "mxscaleOut": [Q.FLOAT8_E8M0]}

    def check(self, a):
        checks.not_null(a, "x", "yOut", "mxscaleOut")
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        checks.dtype_in("yOut", a.yOut, MX_OUT)
        checks.dtype_match("mxscaleOut", a.mxscaleOut, Q.FLOAT8_E8M0)
        if a.yOut.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s."
                                       % (a.dstType, dtypes.serial_name(a.yOut.dtype)))
        a.mode = a.roundModeOptional or "rint"
        check_round_mode(a.mode, a.dstType)
        if a.x.ndim < 2 or a.activateDim not in (-1, a.x.ndim - 1) or a.x.shape[-1] % 2:
            raise status.param_invalid("activateDim must be the last axis of even length, x is %s."
                                       % checks.shape_text(a.x.shape))
        if a.swigluMode not in (0, 1):
            raise status.param_invalid("swigluMode only supports 0 and 1, but got %d." % a.swigluMode)
        expected = tuple(a.x.shape[:-1]) + (a.x.shape[-1] // 2,)
        checks.shape_is("yOut", a.yOut, expected, checks.shape_text(expected))
        if not -len(expected) <= a.axis < len(expected):
            raise status.param_invalid("axis %d is out of the range of yOut's dims." % a.axis)
        scale = mx.scale_shape(expected, a.axis, 32)
        checks.shape_is("mxscaleOut", a.mxscaleOut, scale, checks.shape_text(scale))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        from opemu.ops.aclnn.quant.swiglu_quant import row_groups, swiglu_variant
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        act = swiglu_variant(x, a.swigluMode, a.activateLeft, a.clampLimit, a.gluAlpha, a.gluBias)
        if "groupIndexOptional" in v:
            rows = act.reshape(-1, act.shape[-1])
            _, covered = row_groups(v["groupIndexOptional"], rows.shape[0], a.groupMode == 1)
            rows[covered:] = 0
        elements, codes = mx.quantize(act, a.axis, 32, a.yOut.dtype, a.mode, a.scaleAlg, float(a.maxDtypeValue))
        mx.store_elements(v["yOut"], a.yOut, elements)
        v["mxscaleOut"][...] = codes.view(v["mxscaleOut"].dtype).reshape(v["mxscaleOut"].shape)


class SituMxQuant(AclnnOp):
    """Situ (quant/swiglu_quant.situ) of x, MX-quantised along `axis` in blocks of 32 (the OCP scale)."""
    name = "aclnnSituMxQuant"
    inputs = ("x",)
    outputs = ("yOut", "yScaleOut")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": P.codes("FLOAT16 BF16"), "yOut": MX_OUT, "yScaleOut": [Q.FLOAT8_E8M0]}

    def check(self, a):
        checks.not_null(a, "x", "yOut", "yScaleOut")
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        checks.dtype_in("yOut", a.yOut, MX_OUT)
        checks.dtype_match("yScaleOut", a.yScaleOut, Q.FLOAT8_E8M0)
        if a.yOut.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s."
                                       % (a.dstType, dtypes.serial_name(a.yOut.dtype)))
        a.mode = a.roundModeOptional or "rint"
        check_round_mode(a.mode, a.dstType)
        if a.x.ndim < 1 or a.x.shape[-1] % 2:
            raise status.param_invalid("The last dim of x must be even, x is %s." % checks.shape_text(a.x.shape))
        expected = tuple(a.x.shape[:-1]) + (a.x.shape[-1] // 2,)
        checks.shape_is("yOut", a.yOut, expected, checks.shape_text(expected))
        if not -len(expected) <= a.axis < len(expected):
            raise status.param_invalid("axis %d is out of the range of yOut's dims." % a.axis)
        scale = mx.scale_shape(expected, a.axis, 32)
        checks.shape_is("yScaleOut", a.yScaleOut, scale, checks.shape_text(scale))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        from opemu.ops.aclnn.quant.swiglu_quant import situ
        if a.x.is_empty():
            return
        act = situ(Q.widen(v["x"]), a.beta, a.linearBeta, a.activateLeft)
        elements, codes = mx.quantize(act, a.axis, 32, a.yOut.dtype, a.mode)
        mx.store_elements(v["yOut"], a.yOut, elements)
        v["yScaleOut"][...] = codes.view(v["yScaleOut"].dtype).reshape(v["yScaleOut"].shape)
