"""Static quantisation and dequantisation: aclnnAscendQuant / aclnnAscendQuantV3 (quant/ascend_quant_v2
op_api), aclnnAscendAntiQuant, aclnnQuantize, aclnnGroupQuant, aclnnQuantMax, aclnnGroupedQuantMax,
aclnnDequantBias, aclnnTransQuantParamV2 / V3 and the fake quantisers (their op_api files).

The kernels widen x, scale and offset to fp32, multiply (twice in sqrtMode), add the offset and cast with the
round mode (common/quantize: rint for "round", saturating, NaN to 0). An INT32 output holds eight INT4 values
per word (the last axis an eighth of x's)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q

FLOATS, B16_FLOATS = P.codes("FLOAT FLOAT16"), P.codes("FLOAT FLOAT16 BF16")
INT_OUT = (Q.INT8, Q.INT32, Q.INT4)
FP_OUT = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)


def _x_types():
    return FLOATS if _products.line() == "310P" else B16_FLOATS


def _out_types():
    line = _products.line()
    return (Q.INT8,) if line == "310P" else INT_OUT + FP_OUT if line == "950" else INT_OUT


def _along(values, x_shape, axis):
    """A scale/offset vector shaped to broadcast along x's `axis` (a single value broadcasts everywhere)."""
    values = values.astype(np.float32).reshape(-1)
    if values.size == 1:
        return values[0]
    shape = [1] * len(x_shape)
    shape[axis] = values.size
    return values.reshape(shape)


class AscendQuantV3(AclnnOp):
    name = "aclnnAscendQuantV3"
    inputs = ("x", "scale", "offset")
    outputs = ("y",)

    def dtype_table(self):
        return {"x": _x_types(), "scale": _x_types(), "offset": _x_types(), "y": _out_types()}

    def check(self, a):
        checks.not_null(a, "x", "scale", "y")
        if a.x.ndim == 0:
            raise status.param_invalid("input x not support scalar.")
        checks.dtype_in("x", a.x, _x_types())
        checks.dtype_in("y", a.y, _out_types())
        checks.dtype_in("scale", a.scale, _x_types())
        if a.offset is not None:
            checks.dtype_in("offset", a.offset, _x_types())
            checks.same_dtype("scale", a.scale, "offset", a.offset)
        if a.x.dtype != P.FLOAT and a.scale.dtype != a.x.dtype:
            raise status.param_invalid("dtype of input x:%s is not compatible with scale:%s."
                                       % (dtypes.serial_name(a.x.dtype), dtypes.serial_name(a.scale.dtype)))
        if a.y.dtype != a.dstType:
            raise status.param_invalid("dstType:%d(%s) must be able to represent the y dtype[%s]."
                                       % (a.dstType, dtypes.serial_name(a.dstType), dtypes.serial_name(a.y.dtype)))
        axis, ndim = self.axis(a), a.x.ndim
        if _products.line() == "310P" and axis not in (-1, ndim - 1):
            raise status.param_invalid("axis only support the last dimension in 310P")
        if axis >= ndim or axis < -ndim:
            raise status.param_invalid("invalid axis: %d, axis can't exceed the dimension of x: %d" % (axis, ndim))
        if ndim > 2 and (axis < -2 or 0 <= axis < ndim - 2):
            raise status.param_invalid("invalid axis: %d, axis must be one of last two dimensions of x" % axis)
        self.check_shape(a, axis)
        self.check_round_mode(a)
        a.axis_index = axis % ndim

    def axis(self, a):
        return a.axis

    def check_shape(self, a, axis):
        if a.y.dtype != Q.INT32:
            checks.same_shape("y", a.y, "x", a.x)
        else:
            if a.x.shape[-1] != a.y.shape[-1] * 8:
                raise status.param_invalid("if y dtype is int32, the y last dim must be 1/8 of x last dim, x last dim "
                                           "is (%d), y last dim is (%d)" % (a.x.shape[-1], a.y.shape[-1]))
            for i in range(a.x.ndim - 1):
                if a.x.shape[i] != a.y.shape[i]:
                    raise status.param_invalid("the dim(%d) of x must be same with y, x is (%d), y is (%d)."
                                               % (i, a.x.shape[i], a.y.shape[i]))
        if a.y.dtype == Q.INT4 and a.x.shape[-1] % 2:
            raise status.param_invalid("if y dtype is int4, x last dim must be divisible by 2, last dim is (%d)."
                                       % a.x.shape[-1])
        checks.max_dim("x", a.x)
        if a.offset is not None:
            checks.same_shape("scale", a.scale, "offset", a.offset)
        s = a.scale
        if s.ndim == 0:
            raise status.param_invalid("scale and offset not support scalar.")
        if s.ndim not in (1, a.x.ndim):
            raise status.param_invalid("scale dimNum must be same as x dimNum or 1.")
        x_axis = axis % a.x.ndim
        scale_axis = 0 if s.ndim == 1 else x_axis
        if s.shape[scale_axis] not in (a.x.shape[x_axis], 1):
            raise status.param_invalid("scale dim(%d)'s value(%d) is invalid, should be same as x dim(%d)'s value(%d) "
                                       "or 1" % (scale_axis, s.shape[scale_axis], x_axis, a.x.shape[x_axis]))
        if s.numel() != s.shape[scale_axis]:
            raise status.param_invalid("If scale is not 1-dimensional tensor, all dimensions except the dimension "
                                       "specified by axis should be 1")

    def check_round_mode(self, a):
        mode = a.roundMode
        if mode is None:
            raise status.param_invalid("roundMode cannot be empty")
        if a.dstType == Q.HIFLOAT8:
            if mode not in ("round", "hybrid"):
                raise status.param_invalid("check roundMode failed, roundMode[%s] not in ['round','hybrid'] for "
                                           "hifloat8." % mode)
        elif a.dstType in (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2):
            if mode != "round":
                raise status.param_invalid("check roundMode failed, roundMode[%s] not in ['round'] for "
                                           "float8_e5m2/float8_e4m3fn." % mode)
        elif mode not in ("round", "floor", "ceil", "trunc"):
            raise status.param_invalid("check roundMode failed, roundMode[%s] not in ['round','floor','ceil','trunc'] "
                                       "for int8/int4/int32." % mode)

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        scale = _along(v["scale"], x.shape, a.axis_index)
        values = x * scale
        if a.sqrtMode:
            values = values * scale
        if "offset" in v:
            values = values + _along(v["offset"], x.shape, a.axis_index)
        target = Q.INT4 if a.y.dtype == Q.INT32 else a.y.dtype
        Q.store(v["y"], a.y, Q.quantize(values, target, a.roundMode))


class AscendQuant(AscendQuantV3):
    """AscendQuantV3 along the last axis."""
    name = "aclnnAscendQuant"

    def axis(self, a):
        return -1


class AscendAntiQuant(AclnnOp):
    """y = (x + offset) · scale (· scale in sqrtMode), cast to dstType (FLOAT16 or BF16)."""
    name = "aclnnAscendAntiQuant"
    inputs = ("x", "scale", "offset")
    outputs = ("y",)
    X_TYPES = (Q.INT8, Q.INT4, Q.INT32, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)

    def dtype_table(self):
        return {"x": self.X_TYPES, "scale": B16_FLOATS, "offset": B16_FLOATS, "y": P.codes("FLOAT16 BF16")}

    def check(self, a):
        checks.not_null(a, "x", "scale", "y")
        checks.dtype_in("x", a.x, self.X_TYPES if _products.line() == "950" else (Q.INT8, Q.INT4, Q.INT32))
        checks.dtype_in("scale", a.scale, B16_FLOATS)
        if a.offset is not None:
            checks.dtype_match("offset", a.offset, a.scale.dtype)
        checks.dtype_in("y", a.y, P.codes("FLOAT16 BF16"))
        if a.y.dtype != a.dstType:
            raise status.param_invalid("dstType:%d must be the dtype of y[%s]." % (a.dstType,
                                                                                   dtypes.serial_name(a.y.dtype)))
        checks.max_dim("x", a.x)
        if a.x.dtype == Q.INT32:
            if a.y.shape[:-1] != a.x.shape[:-1] or a.y.shape[-1] != a.x.shape[-1] * 8:
                raise status.param_invalid("if x dtype is int32, the y last dim must be 8 times x last dim.")
        else:
            checks.same_shape("x", a.x, "y", a.y)
        n = a.y.shape[-1] if a.y.ndim else 1
        for name in ("scale", "offset"):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] not in (1, n)):
                raise status.param_invalid("The shape of %s must be [1] or [%d], but got %s."
                                           % (name, n, checks.shape_text(t.shape)))

    def compute(self, a, v, workspace):
        if a.y.is_empty():
            return
        x = Q.integer_codes(v["x"], a.x).astype(np.float32) if a.x.dtype in (Q.INT4, Q.INT32) else \
            Q.decode(v["x"], a.x)
        if "offset" in v:
            x = x + v["offset"].astype(np.float32).reshape(-1)
        scale = v["scale"].astype(np.float32).reshape(-1)
        y = x * scale
        if a.sqrtMode:
            y = y * scale
        P.store(v["y"], y.reshape(v["y"].shape))


class Quantize(AclnnOp):
    """out = round(x / scales + zeroPoints) along `axis` into `dtype` (INT8, UINT8, INT32; float8 and hif8 on
    the 950)."""
    name = "aclnnQuantize"
    inputs = ("x", "scales", "zeroPoints")
    outputs = ("out",)
    OUT = P.codes("INT8 UINT8 INT32")

    def out_types(self):
        return self.OUT + FP_OUT if _products.line() == "950" else self.OUT

    def dtype_table(self):
        return {"x": B16_FLOATS, "scales": B16_FLOATS, "zeroPoints": P.codes("INT8 UINT8 INT32 BF16 FLOAT"),
                "out": self.out_types()}

    def check(self, a):
        checks.not_null(a, "x", "scales", "out")
        checks.dtype_in("x", a.x, B16_FLOATS)
        checks.dtype_in("scales", a.scales, B16_FLOATS)
        if a.zeroPoints is not None:
            checks.dtype_in("zeroPoints", a.zeroPoints, P.codes("INT8 UINT8 INT32 BF16 FLOAT"))
        checks.dtype_in("out", a.out, self.out_types())
        if a.dtype != a.out.dtype:
            raise status.param_invalid("dtype %s must be the dtype of out %s."
                                       % (dtypes.serial_name(a.dtype), dtypes.serial_name(a.out.dtype)))
        checks.max_dim("x", a.x)
        checks.same_shape("x", a.x, "out", a.out)
        ndim = max(a.x.ndim, 1)
        if not -ndim <= a.axis < ndim:
            raise status.param_invalid("axis %d is out of the range of x's dims [%d, %d]." % (a.axis, -ndim, ndim - 1))
        a.axis_index = a.axis % ndim
        n = a.x.shape[a.axis_index] if a.x.ndim else 1
        for name in ("scales", "zeroPoints"):
            t = getattr(a, name)
            if t is not None and t.numel() not in (1, n):
                raise status.param_invalid("The size of %s must be 1 or %d, but got %s."
                                           % (name, n, checks.shape_text(t.shape)))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            values = x / _along(v["scales"], x.shape, a.axis_index)
            if "zeroPoints" in v:
                values = values + _along(v["zeroPoints"], x.shape, a.axis_index)
        if a.out.dtype in (P.codes("UINT8")[0], Q.INT32):
            info = np.iinfo(dtypes.numpy_dtype(a.out.dtype))
            P.store(v["out"], np.clip(np.nan_to_num(np.rint(values)), info.min, info.max))
        else:
            Q.store(v["out"], a.out, Q.quantize(values, a.out.dtype))


class GroupQuant(AclnnOp):
    """y = round(x · scale[g] + offset) with row groups ending at groupIndex[g] (cumulative row counts)."""
    name = "aclnnGroupQuant"
    inputs = ("x", "scale", "groupIndex", "offsetOptional")
    outputs = ("y",)

    def dtype_table(self):
        return {"x": B16_FLOATS, "scale": B16_FLOATS, "groupIndex": P.codes("INT32 INT64"),
                "offsetOptional": B16_FLOATS, "y": (Q.INT8, Q.INT4)}

    def check(self, a):
        checks.not_null(a, "x", "scale", "groupIndex", "y")
        checks.dtype_in("x", a.x, B16_FLOATS)
        checks.dtype_in("scale", a.scale, B16_FLOATS)
        checks.dtype_in("groupIndex", a.groupIndex, P.codes("INT32 INT64"))
        if a.offsetOptional is not None:
            checks.dtype_match("offsetOptional", a.offsetOptional, a.scale.dtype)
        checks.dtype_in("y", a.y, (Q.INT8, Q.INT4))
        if a.y.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of y %s." % (a.dstType,
                                                                                  dtypes.serial_name(a.y.dtype)))
        checks.dim_is("x", a.x, 2)
        checks.dim_is("scale", a.scale, 2)
        checks.dim_is("groupIndex", a.groupIndex, 1)
        if a.scale.shape[1] != a.x.shape[1] or a.groupIndex.shape[0] != a.scale.shape[0]:
            raise status.param_invalid("scale %s must be [E, H] with H of x %s and E of groupIndex %s."
                                       % tuple(checks.shape_text(t.shape) for t in (a.scale, a.x, a.groupIndex)))
        if a.offsetOptional is not None and a.offsetOptional.numel() != 1:
            raise status.param_invalid("offsetOptional must hold one value, but got %s."
                                       % checks.shape_text(a.offsetOptional.shape))
        checks.same_shape("x", a.x, "y", a.y)

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        ends = np.clip(v["groupIndex"].astype(np.int64), 0, x.shape[0])
        group = np.searchsorted(ends, np.arange(x.shape[0]), side="right")
        scale = v["scale"].astype(np.float32)[np.minimum(group, len(ends) - 1)]
        values = x * scale
        if "offsetOptional" in v:
            values = values + v["offsetOptional"].astype(np.float32).reshape(-1)[0]
        Q.store(v["y"], a.y, Q.quantize(values, a.y.dtype))


class DequantBias(AclnnOp):
    """out = A · weightScale · activateScale with bias: INT32 bias added to A first, a float bias last."""
    name = "aclnnDequantBias"
    inputs = ("x", "weightScale", "activateScaleOptional", "biasOptional")
    outputs = ("out",)

    def dtype_table(self):
        return {"x": P.codes("INT32"), "weightScale": P.codes("FLOAT BF16"), "activateScaleOptional": [P.FLOAT],
                "biasOptional": P.codes("INT32 FLOAT FLOAT16 BF16"), "out": P.codes("FLOAT16 BF16")}

    def check(self, a):
        checks.not_null(a, "x", "weightScale", "out")
        checks.dtype_in("x", a.x, P.codes("INT32"))
        checks.dtype_in("weightScale", a.weightScale, P.codes("FLOAT BF16"))
        if a.activateScaleOptional is not None:
            checks.dtype_match("activateScaleOptional", a.activateScaleOptional, P.FLOAT)
        if a.biasOptional is not None:
            checks.dtype_in("biasOptional", a.biasOptional, P.codes("INT32 FLOAT FLOAT16 BF16"))
        checks.dtype_in("out", a.out, P.codes("FLOAT16 BF16"))
        if a.outputDtype != a.out.dtype:
            raise status.param_invalid("outputDtype %d must be the dtype of out %s."
                                       % (a.outputDtype, dtypes.serial_name(a.out.dtype)))
        checks.dim_is("x", a.x, 2)
        m, n = a.x.shape
        for name, size in (("weightScale", n), ("activateScaleOptional", m), ("biasOptional", n)):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != size):
                raise status.param_invalid("The shape of %s must be [%d], but got %s."
                                           % (name, size, checks.shape_text(t.shape)))
        checks.same_shape("x", a.x, "out", a.out)

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        values = v["x"].astype(np.float32)
        bias = v.get("biasOptional")
        if bias is not None and a.biasOptional.dtype == Q.INT32:
            values = (v["x"].astype(np.int64) + bias.astype(np.int64)).astype(np.float32)
        values = values * v["weightScale"].astype(np.float32)
        if "activateScaleOptional" in v:
            values = values * v["activateScaleOptional"].astype(np.float32)[:, None]
        if bias is not None and a.biasOptional.dtype != Q.INT32:
            values = values + bias.astype(np.float32)
        P.store(v["out"], values)


class TransQuantParamV2(AclnnOp):
    """The fixpipe's 64-bit quantisation words from fp32 scale (and offset): common/quantize.quant_param_words."""
    name = "aclnnTransQuantParamV2"
    inputs = ("scale", "offset")
    outputs = ("out",)

    def dtype_table(self):
        return {"scale": [P.FLOAT], "offset": [P.FLOAT], "out": P.codes("UINT64 INT64")}

    def check(self, a):
        checks.not_null(a, "scale", "out")
        checks.dtype_in("scale", a.scale, [P.FLOAT])
        if a.offset is not None:
            checks.dtype_match("offset", a.offset, P.FLOAT)
        checks.dtype_in("out", a.out, P.codes("UINT64 INT64"))
        nd = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
        if any(t is not None and t.format != nd for t in (a.scale, a.offset, a.out)):
            raise status.param_invalid("The format of scale, offset and out should be ND.")
        s = a.scale
        vector = s.ndim == 1 and s.shape[0] > 0
        if _products.line() == "950":
            if not (vector or (s.ndim == 2 and s.shape[0] > 0 and s.shape[1] > 0)):
                raise status.param_invalid("Dim value of scale should be greater than 0, but current is %s"
                                           % checks.shape_text(s.shape))
        elif not (vector or (s.ndim == 2 and s.shape[0] == 1 and s.shape[1] > 0)):
            raise status.param_invalid("shape of scale only support (n, ) and (1, n), but current is %s"
                                       % checks.shape_text(s.shape))
        o = a.offset
        if o is not None:
            if not ((o.ndim == 1 and o.shape[0] > 0) or (o.ndim == 2 and o.shape[0] == 1 and o.shape[1] > 0)):
                raise status.param_invalid("shape of offset only support (n, ) and (1, n), but current is %s"
                                           % checks.shape_text(o.shape))
            if o.ndim == 1 and s.shape[0] > 1 and o.shape[0] > 1 and s.shape[0] != o.shape[0]:
                raise status.param_invalid("scale and offset should be same when both greater than 1, but scale is "
                                           "%d, offset is %d" % (s.shape[0], o.shape[0]))
        mode = self.round_mode(a)
        if mode not in (0, 1):
            raise status.param_invalid("roundMode only support 0 and 1, but current is %d" % mode)
        count = max(s.numel(), o.numel() if o is not None else 0)
        if a.out.numel() != count:
            raise status.param_invalid("out must hold %d elements, but its shape is %s."
                                       % (count, checks.shape_text(a.out.shape)))

    def round_mode(self, a):
        return 0

    def compute(self, a, v, workspace):
        count = v["out"].size
        scale = np.broadcast_to(v["scale"].reshape(-1), (count,)) if v["scale"].size == 1 else v["scale"].reshape(-1)
        offset = None
        if "offset" in v:
            offset = v["offset"].reshape(-1)
            offset = np.broadcast_to(offset, (count,)) if offset.size == 1 else offset
        words = Q.quant_param_words(np.broadcast_to(scale, (count,)), offset, self.round_mode(a))
        v["out"][...] = words.view(v["out"].dtype).reshape(v["out"].shape)


class TransQuantParamV3(TransQuantParamV2):
    name = "aclnnTransQuantParamV3"

    def round_mode(self, a):
        return a.roundMode
