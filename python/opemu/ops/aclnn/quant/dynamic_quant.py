"""Dynamic quantisation: aclnnDynamicQuant, V2, V3, V4 (quant/dynamic_quant op_api), aclnnQuantMax and
aclnnGroupedQuantMax (their op_api files), aclnnFakeQuantPerTensorAffineCachemask and
aclnnFakeQuantPerChannelAffineCachemask.

DynamicQuant, as the kernel: x (smoothed by smoothScales, per expert row group when groupIndex is given) in
fp32; symmetric: s = qmax / max|x| per token (row), per channel (column of the last two axes) or per tensor,
scale = 1 / s, y = rint(x · s); asymmetric: scale = max((max - min) / 255, 1e-12), offset = 127 - max / scale,
y = rint(x / scale + offset) (15 and 7 for int4). INT32 outputs hold eight INT4 each."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q

B16 = P.codes("FLOAT16 BF16")


def _x_types():
    return P.codes("FLOAT16") if _products.line() in ("910", "310P") else B16


def _y_types():
    line = _products.line()
    if line in ("910", "310P"):
        return (Q.INT8,)
    return (Q.INT4, Q.INT8, Q.INT32) + ((Q.HIFLOAT8, Q.FLOAT8_E5M2, Q.FLOAT8_E4M3FN) if line == "950" else ())


def group_rows(group_index, rows):
    """Each row's group from cumulative end rows (rows past the last end take the last group)."""
    ends = np.asarray(group_index, np.int64).reshape(-1)
    return np.minimum(np.searchsorted(ends, np.arange(rows), side="right"), max(len(ends) - 1, 0))


class DynamicQuantV3(AclnnOp):
    name = "aclnnDynamicQuantV3"
    inputs = ("x", "smoothScalesOptional", "groupIndexOptional")
    outputs = ("yOut", "scaleOut", "offsetOut")
    only_950 = True

    def dtype_table(self):
        return {"x": _x_types(), "smoothScalesOptional": _x_types(), "groupIndexOptional": P.codes("INT32 INT64"),
                "yOut": _y_types(), "scaleOut": [P.FLOAT], "offsetOut": [P.FLOAT]}

    def params(self, a):
        """(dstType, isSymmetrical, quantMode, dstTypeMax) of this form."""
        return a.dstType, a.isSymmetrical, a.quantMode, 0.0

    def check(self, a):
        if self.only_950 and _products.line() != "950":
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER"], "%s only support socVersion Ascend950"
                                     % self.name)
        a.dst, a.symmetric, a.mode, a.dst_max = self.params(a)
        if a.x is None or a.yOut is None or a.scaleOut is None:
            raise status.param_nullptr("%s must not be nullptr." % ("x" if a.x is None else "y" if a.yOut is None
                                                                    else "scale"))
        if a.symmetric and a.offsetOut is not None:
            raise status.param_invalid("If isSymmetrical is True, offset must be nullptr.")
        if not a.symmetric and a.offsetOut is None:
            raise status.param_invalid("If isSymmetrical is False, offset can't be nullptr.")
        if a.mode not in ("pertensor", "pertoken", "perchannel"):
            raise status.param_invalid("quantMode only support pertensor, pertoken and perchannel.")
        if a.mode == "perchannel" and a.groupIndexOptional is not None:
            raise status.param_invalid("If quantMode is perchannel, groupIndexOptional must be nullptr.")
        allowed = _x_types()
        checks.dtype_in("x", a.x, allowed)
        smooth, group = a.smoothScalesOptional, a.groupIndexOptional
        if smooth is not None:
            checks.dtype_in("smoothScalesOptional", smooth, allowed)
            if smooth.dtype != a.x.dtype:
                raise status.param_invalid("The dtypes of x and smooth_scales are not equal.")
            if group is not None:
                checks.dtype_in("groupIndexOptional", group, P.codes("INT32 INT64"))
        checks.dtype_in("yOut", a.yOut, _y_types())
        checks.dtype_match("scaleOut", a.scaleOut, P.FLOAT)
        if a.offsetOut is not None:
            checks.dtype_match("offsetOut", a.offsetOut, P.FLOAT)
        self.check_shape(a)

    def check_shape(self, a):
        x, y, scale = a.x, a.yOut, a.scaleOut
        if x.ndim <= 1:
            raise status.param_invalid("The dimNum[%d] of x should be greater than 1" % x.ndim)
        if x.ndim >= 9:
            raise status.param_invalid("The dimNum[%d] of x should be less than 9" % x.ndim)
        smooth, group = a.smoothScalesOptional, a.groupIndexOptional
        if smooth is not None:
            if group is not None:
                if group.ndim != 1:
                    raise status.param_invalid("The dimNum[%d] of group_indexs should be equal to one." % group.ndim)
            else:
                if smooth.ndim != 1:
                    raise status.param_invalid("The dimNum[%d] of smooth_scales should be equal to one." % smooth.ndim)
                want = x.shape[-2] if a.mode == "perchannel" else x.shape[-1]
                if smooth.shape[-1] != want:
                    raise status.param_invalid("The last dim[%d] of x and the dim[%d] of smooth_scales shoule be "
                                               "equal." % (want, smooth.shape[-1]))
        if y.dtype != Q.INT32:
            if tuple(x.shape) != tuple(y.shape):
                raise status.param_invalid("The shapes of x and y are inconsistent.")
        elif x.ndim != y.ndim or x.shape[-1] != y.shape[-1] * 8 or x.shape[:-1] != y.shape[:-1]:
            raise status.param_invalid("If output dtype is int32, the last dimension of output must be 1/8 of the last "
                                       "dimension of input, the last dim of input is (%d), the last dim of output is "
                                       "(%d)." % (x.shape[-1], y.shape[-1] if y.ndim else 0))
        if y.dtype == Q.INT4 and x.shape[-1] % 2:
            raise status.param_invalid("If y dtype is int4, the last dim of x must be divisible by 2, but the last dim "
                                       "is (%d)." % x.shape[-1])
        if a.mode == "pertoken":
            if tuple(scale.shape) != tuple(x.shape[:-1]):
                raise status.param_invalid("The shapes of x and scale should be consistent except for the last "
                                           "dimension of x.")
        elif a.mode == "pertensor":
            if tuple(scale.shape) != (1,):
                raise status.param_invalid("If quantMode is pertensor, the shape of scale must be (1,).")
        elif tuple(scale.shape[:-1]) != tuple(x.shape[:-2]) or scale.shape[-1] != x.shape[-1]:
            raise status.param_invalid("If quantMode is perchannel, the last dim of scale must be equal to the last "
                                       "dim of x.")
        if a.offsetOut is not None:
            checks.same_shape("offset", a.offsetOut, "scale", scale)

    def compute(self, a, v, workspace):
        if a.x.is_empty() or a.yOut.is_empty() or a.scaleOut.is_empty():
            return
        x = Q.widen(v["x"])
        h = x.shape[-1]
        if "smoothScalesOptional" in v:
            smooth = v["smoothScalesOptional"].astype(np.float32)
            if "groupIndexOptional" in v:
                rows = x.reshape(-1, h)
                rows = rows * smooth.reshape(-1, h)[group_rows(v["groupIndexOptional"], rows.shape[0])]
                x = rows.reshape(x.shape)
            elif a.mode == "perchannel":
                x = x * smooth.reshape(-1, 1)
            else:
                x = x * smooth.reshape(-1)
        target = Q.INT4 if a.yOut.dtype == Q.INT32 else a.yOut.dtype
        qmax = a.dst_max if a.dst_max and target not in Q.INTEGER_RANGE else Q.target_max(target)
        axis = {"pertoken": (-1,), "perchannel": (-2,), "pertensor": tuple(range(x.ndim))}[a.mode]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if a.symmetric:
                amax = np.max(np.abs(x), axis=axis, keepdims=True)
                inverse, scale = Q.symmetric_scale(amax, qmax)
                q = Q.quantize(x * inverse, target)
            else:
                scale, offset = Q.asymmetric_scale(np.max(x, axis=axis, keepdims=True),
                                                   np.min(x, axis=axis, keepdims=True), target)
                q = Q.quantize(x * (np.float32(1) / scale) + offset, target)
                P.store(v["offsetOut"], offset.reshape(v["offsetOut"].shape))
        Q.store(v["yOut"], a.yOut, q)
        P.store(v["scaleOut"], scale.reshape(v["scaleOut"].shape))


class DynamicQuant(DynamicQuantV3):
    """Symmetric per-token INT8 (the first form)."""
    name = "aclnnDynamicQuant"
    inputs = ("x", "smoothScalesOptional")
    outputs = ("yOut", "scaleOut")
    only_950 = False

    def dtype_table(self):
        table = super().dtype_table()
        return {n: table[n] for n in self.inputs + self.outputs}

    def params(self, a):
        a.offsetOut, a.groupIndexOptional = None, None
        return Q.INT8, True, "pertoken", 0.0


class DynamicQuantV2(DynamicQuantV3):
    """Per token, into dstType; asymmetric when offsetOut is given."""
    name = "aclnnDynamicQuantV2"
    only_950 = False

    def params(self, a):
        return a.dstType, a.offsetOut is None, "pertoken", 0.0


class DynamicQuantV4(DynamicQuantV3):
    name = "aclnnDynamicQuantV4"

    def params(self, a):
        return a.dstType, a.isSymmetrical, a.quantMode, float(a.dstTypeMax)


FP8_OUT = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)


class QuantMax(AclnnOp):
    """y = cast(x · scale, dstType, roundMode) (float8 / hif8), amax = max|x| over the whole tensor (950)."""
    name = "aclnnQuantMax"
    inputs = ("x", "scale")
    outputs = ("y", "amax")
    grouped = False

    def dtype_table(self):
        return {"x": P.codes("FLOAT FLOAT16 BF16"), "scale": [P.FLOAT], "y": FP8_OUT,
                "amax": P.codes("FLOAT FLOAT16 BF16")}

    def check(self, a):
        checks.not_null(a, "x", "scale", "y", "amax", *(("groupList",) if self.grouped else ()))
        checks.dtype_in("x", a.x, P.codes("FLOAT FLOAT16 BF16"))
        checks.dtype_match("scale", a.scale, P.FLOAT)
        checks.dtype_in("y", a.y, FP8_OUT)
        if a.y.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of y %s." % (a.dstType,
                                                                                  dtypes.serial_name(a.y.dtype)))
        checks.dtype_match("amax", a.amax, a.x.dtype)
        allowed = ("round", "hybrid") if a.dstType == Q.HIFLOAT8 else ("rint", "round")
        if a.roundMode not in allowed:
            raise status.param_invalid("roundMode %s is not in %s for dstType %s."
                                       % (a.roundMode, list(allowed), dtypes.serial_name(a.dstType)))
        checks.max_dim("x", a.x)
        checks.same_shape("x", a.x, "y", a.y)
        groups = a.groupList.numel() if self.grouped else 1
        if a.scale.numel() != groups or a.amax.numel() != groups:
            raise status.param_invalid("scale and amax must hold %d value(s), but got %s and %s."
                                       % (groups, checks.shape_text(a.scale.shape), checks.shape_text(a.amax.shape)))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        x = Q.widen(v["x"])
        if self.grouped:
            rows = x.reshape(x.shape[0], -1) if x.ndim else x.reshape(1, 1)
            group = group_rows(np.cumsum(v["groupList"].astype(np.int64)), rows.shape[0])
            scale = v["scale"].astype(np.float32).reshape(-1)[group][:, None]
            amax = np.zeros(v["amax"].size, np.float32)
            if rows.size:
                np.maximum.at(amax, group, np.max(np.abs(rows), axis=1))
            values = (rows * scale).reshape(x.shape)
        else:
            values = x * v["scale"].astype(np.float32).reshape(-1)[0]
            amax = np.max(np.abs(x)) if x.size else np.float32(0)
        Q.store(v["y"], a.y, Q.quantize(values, a.y.dtype, a.roundMode))
        P.store(v["amax"], np.asarray(amax, np.float32).reshape(v["amax"].shape))


class GroupedQuantMax(QuantMax):
    """QuantMax per row group (groupList: rows per group), one scale and one amax per group."""
    name = "aclnnGroupedQuantMax"
    inputs = ("x", "scale", "groupList")
    grouped = True

    def dtype_table(self):
        return super().dtype_table() | {"groupList": P.codes("INT64")}


class FakeQuantPerTensorAffineCachemask(AclnnOp):
    """qval = rint(self / scale + zero_point); out = (clamp(qval, quantMin, quantMax) - zero_point) · scale;
    mask = quantMin <= qval <= quantMax (torch's fake_quantize_per_tensor_affine_cachemask)."""
    name = "aclnnFakeQuantPerTensorAffineCachemask"
    inputs = ("self", "scale", "zeroPoint")
    outputs = ("out", "mask")
    per_channel = False

    def dtype_table(self):
        return {"self": P.codes("FLOAT FLOAT16"), "scale": [P.FLOAT], "zeroPoint": P.codes("INT32 FLOAT FLOAT16"),
                "out": P.codes("FLOAT FLOAT16"), "mask": P.codes("BOOL")}

    def check(self, a):
        checks.not_null(a, "self", "scale", "zeroPoint", "out", "mask")
        checks.dtype_in("self", a.self, P.codes("FLOAT FLOAT16"))
        checks.dtype_in("scale", a.scale, P.codes("FLOAT FLOAT16") if self.per_channel else [P.FLOAT])
        checks.dtype_in("zeroPoint", a.zeroPoint, P.codes("INT32 FLOAT FLOAT16") if self.per_channel
                        else P.codes("INT32"))
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.dtype_match("mask", a.mask, P.codes("BOOL")[0])
        checks.max_dim("self", a.self)
        checks.same_shape("self", a.self, "out", a.out)
        checks.same_shape("self", a.self, "mask", a.mask)
        if a.quantMin > a.quantMax:
            raise status.param_invalid("`quant_min` should be less than or equal to `quant_max`.")
        if self.per_channel:
            ndim = max(a.self.ndim, 1)
            if not -ndim <= a.axis < ndim:
                raise status.param_invalid("`axis` must be between 0 and number of dimensions of input")
            a.axis_index = a.axis % ndim
            n = a.self.shape[a.axis_index] if a.self.ndim else 1
            for name in ("scale", "zeroPoint"):
                t = getattr(a, name)
                if t.ndim != 1 or t.shape[0] != n:
                    raise status.param_invalid("Expected %s to have the size of self's axis %d (%d), but got %s."
                                               % (name, a.axis_index, n, checks.shape_text(t.shape)))
        elif a.scale.numel() != 1 or a.zeroPoint.numel() != 1:
            raise status.param_invalid("scale and zeroPoint must hold one value each.")

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            return
        if self.per_channel:
            shape = [1] * x.ndim
            shape[a.axis_index] = -1
            scale = v["scale"].astype(np.float32).reshape(shape)
            zero = v["zeroPoint"].astype(np.float32).reshape(shape)
        else:
            enabled = getattr(a, "fakeQuantEnabled", 1.0)
            if not enabled:
                P.store(v["out"], x)
                v["mask"][...] = True
                return
            scale = np.float32(v["scale"].reshape(-1)[0])
            zero = np.float32(v["zeroPoint"].reshape(-1)[0])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if a.zeroPoint.dtype == Q.INT32:
                qval = np.rint(x.astype(np.float32) / scale) + zero
            else:
                qval = np.rint(x.astype(np.float32) / scale + zero)
            low, high = np.float32(a.quantMin), np.float32(a.quantMax)
            P.store(v["out"], (np.clip(qval, low, high) - zero) * scale)
        v["mask"][...] = (qval >= low) & (qval <= high)


class FakeQuantPerChannelAffineCachemask(FakeQuantPerTensorAffineCachemask):
    name = "aclnnFakeQuantPerChannelAffineCachemask"
    per_channel = True

    def dtype_table(self):
        return super().dtype_table() | {"scale": P.codes("FLOAT FLOAT16"), "zeroPoint": P.codes("INT32 FLOAT FLOAT16")}
