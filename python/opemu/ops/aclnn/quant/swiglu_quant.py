"""SwiGLU with quantisation: aclnnSwiGluQuant / V2 and aclnnDequantSwigluQuant (their docs), aclnnSwigluGroupGrad
(quant/swiglu_group_grad op_api); block quantisation: aclnnDynamicBlockQuant / V2.

SwiGLU of x [..., 2H] (fp32): A, B = the halves; act = swish(A) · B (activateLeft) or A · swish(B)
(activateLeft false: the vendor's kernels swish the right half). Row groups for MoE: groupIndex holds the
cumulative (V2 groupListType 0) or per-group (1) row counts; a row past the groups is left unwritten.
Dynamic: y = act · smooth[g], scale = max|y| / 127, y = rint(y · 127 / max); static: y = act · scale[g] + offset[g]."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q

X_TYPES = P.codes("FLOAT16 BF16 FLOAT")


def swiglu(x, activate_left=True):
    h = x.shape[-1] // 2
    first, second = x[..., :h], x[..., h:]
    with np.errstate(over="ignore"):
        if activate_left:
            return first / (np.float32(1) + np.exp(-first)) * second
        return first * (second / (np.float32(1) + np.exp(-second)))


def swiglu_variant(x, mode, activate_left, clamp_limit, glu_alpha, glu_bias):
    """The SwiGLU variants of swigluMode: 0 swish(A) · B; 1 x_glu / x_linear the even / odd elements, x_glu
    clamped above and x_linear to ±clampLimit, x_glu · sigmoid(gluAlpha · x_glu) · (x_linear + gluBias); 2 the
    same on the halves; 3 silu(gate) clamped above, up clamped to ±clampLimit, their product."""
    if mode == 0:
        return swiglu(x, activate_left)
    limit, h = np.float32(clamp_limit), x.shape[-1] // 2
    first, second = (x[..., 0::2], x[..., 1::2]) if mode == 1 else (x[..., :h], x[..., h:])
    with np.errstate(over="ignore"):
        if mode == 3:
            gate = np.minimum(first / (np.float32(1) + np.exp(-first)), limit)
            return gate * np.clip(second, -limit, limit)
        glu, linear = np.minimum(first, limit), np.clip(second, -limit, limit)
        out_glu = glu / (np.float32(1) + np.exp(-np.float32(glu_alpha) * glu))
        return out_glu * (linear + np.float32(glu_bias))


def row_groups(group_index, rows, counts):
    """Each row's group and the number of rows the groups cover."""
    values = np.asarray(group_index, np.int64).reshape(-1)
    ends = np.cumsum(values) if counts else values
    covered = int(min(ends[-1], rows)) if ends.size else rows
    return np.minimum(np.searchsorted(ends, np.arange(rows), side="right"), max(ends.size - 1, 0)), covered


class SwiGluQuant(AclnnOp):
    name = "aclnnSwiGluQuant"
    inputs = ("x", "smoothScalesOptional", "offsetsOptional", "groupIndexOptional")
    outputs = ("yOut", "scaleOut")

    def dtype_table(self):
        return {"x": X_TYPES, "smoothScalesOptional": [P.FLOAT], "offsetsOptional": [P.FLOAT],
                "groupIndexOptional": P.codes("INT32 INT64"), "yOut": (Q.INT8, Q.INT4, Q.FLOAT8_E4M3FN,
                                                                       Q.FLOAT8_E5M2, Q.HIFLOAT8),
                "scaleOut": [P.FLOAT]}

    def list_type(self, a):
        return 0

    def check(self, a):
        checks.not_null(a, "x", "yOut", "scaleOut")
        table = self.dtype_table()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), table[name])
        mode = a.quantModeOptional or "dynamic"
        if mode not in ("dynamic", "static"):
            raise status.param_invalid("quantModeOptional only supports dynamic and static, but got %s." % mode)
        if mode == "static" and (a.smoothScalesOptional is None or a.offsetsOptional is None):
            raise status.param_invalid("static quantisation needs smoothScalesOptional and offsetsOptional.")
        if a.x.ndim < 2 or a.x.shape[-1] % 2:
            raise status.param_invalid("The last dim of x must be even and x at least 2-D, but x is %s."
                                       % checks.shape_text(a.x.shape))
        expected = tuple(a.x.shape[:-1]) + (a.x.shape[-1] // 2,)
        checks.shape_is("yOut", a.yOut, expected, checks.shape_text(expected))
        if a.scaleOut.numel() != int(np.prod(a.x.shape[:-1])) and mode == "dynamic":
            raise status.param_invalid("scaleOut must hold one value per row, but got %s."
                                       % checks.shape_text(a.scaleOut.shape))
        if self.list_type(a) not in (0, 1):
            raise status.param_invalid("groupListType only supports 0 and 1.")
        a.mode = mode

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"]).reshape(-1, a.x.shape[-1])
        act = swiglu(x, a.activateLeft)
        rows, h = act.shape
        if "groupIndexOptional" in v:
            group, covered = row_groups(v["groupIndexOptional"], rows, self.list_type(a) == 1)
        else:
            group, covered = np.zeros(rows, np.int64), rows
        act, group = act[:covered], group[:covered]
        target = a.yOut.dtype
        y_rows = v["yOut"].reshape(rows, -1)
        if a.mode == "dynamic":
            if "smoothScalesOptional" in v:
                smooth = v["smoothScalesOptional"].astype(np.float32).reshape(-1, h)
                act = act * smooth[np.minimum(group, smooth.shape[0] - 1)]
            q, scale = Q.dynamic_rows(act, target)
            Q.store(y_rows[:covered], _rows_desc(a.yOut, covered, h), q)
            v["scaleOut"].reshape(-1)[:covered] = scale
        else:
            scale = v["smoothScalesOptional"].astype(np.float32).reshape(-1, h if v["smoothScalesOptional"].size
                                                                         % h == 0 else 1)
            offset = v["offsetsOptional"].astype(np.float32).reshape(scale.shape[0], -1)
            pick = np.minimum(group, scale.shape[0] - 1)
            q = Q.quantize(act * scale[pick] + offset[pick], target)
            Q.store(y_rows[:covered], _rows_desc(a.yOut, covered, h), q)


def _rows_desc(desc, rows, h):
    from opemu.core.tensor import TensorDesc
    return TensorDesc(desc.dtype, (rows, h), (h, 1))


class SwiGluQuantV2(SwiGluQuant):
    name = "aclnnSwiGluQuantV2"

    def list_type(self, a):
        return a.groupListType

    def check(self, a):
        super().check(a)
        if a.dstType != a.yOut.dtype:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s." % (a.dstType,
                                                                                     dtypes.serial_name(a.yOut.dtype)))


class DequantSwigluQuant(AclnnOp):
    """x (INT32 from a quantised matmul, or float) dequantised by weightScale (per column) and activationScale
    (per row), + bias; SwiGLU; quantised per row dynamically (scaleOut) or statically (quantScale, quantOffset)."""
    name = "aclnnDequantSwigluQuant"
    inputs = ("x", "weightScaleOptional", "activationScaleOptional", "biasOptional", "quantScaleOptional",
              "quantOffsetOptional", "groupIndexOptional")
    outputs = ("yOut", "scaleOut")

    def dtype_table(self):
        return {"x": P.codes("INT32 FLOAT16 BF16"), "weightScaleOptional": [P.FLOAT],
                "activationScaleOptional": [P.FLOAT], "biasOptional": P.codes("INT32 FLOAT FLOAT16 BF16"),
                "quantScaleOptional": P.codes("FLOAT FLOAT16"), "quantOffsetOptional": [P.FLOAT],
                "groupIndexOptional": P.codes("INT32 INT64"), "yOut": (Q.INT8, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2,
                                                                       Q.HIFLOAT8, Q.INT4), "scaleOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "yOut", "scaleOut")
        table = self.dtype_table()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), table[name])
        if a.x.dtype == Q.INT32 and a.weightScaleOptional is None:
            raise status.param_nullptr("Expected a proper Tensor but got null for argument weightScaleOptional.")
        mode = a.quantModeOptional or "static"
        if mode not in ("static", "dynamic"):
            raise status.param_invalid("quantModeOptional only supports static and dynamic, but got %s." % mode)
        dim = getattr(a, "activateDim", -1)
        if a.x.ndim < 2 or dim not in (-1, a.x.ndim - 1) or a.x.shape[-1] % 2:
            raise status.param_invalid("The last dim of x must be even and x at least 2-D, but x is %s."
                                       % checks.shape_text(a.x.shape))
        expected = tuple(a.x.shape[:-1]) + (a.x.shape[-1] // 2,)
        checks.shape_is("yOut", a.yOut, expected, checks.shape_text(expected))
        a.mode = mode

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = v["x"].astype(np.float32).reshape(-1, a.x.shape[-1])
        if "biasOptional" in v and a.biasOptional.dtype == Q.INT32:
            x = (v["x"].reshape(x.shape).astype(np.int64) + v["biasOptional"].astype(np.int64).reshape(-1)).astype(
                np.float32)
        if "weightScaleOptional" in v:
            x = x * v["weightScaleOptional"].astype(np.float32).reshape(-1, x.shape[-1])[0]
        if "activationScaleOptional" in v:
            x = x * v["activationScaleOptional"].astype(np.float32).reshape(-1, 1)
        if "biasOptional" in v and a.biasOptional.dtype != Q.INT32:
            x = x + Q.widen(v["biasOptional"]).reshape(-1)
        act = self.activation(a, x)
        rows, h = act.shape
        y_rows = v["yOut"].reshape(rows, -1)
        if a.mode == "dynamic":
            if "quantScaleOptional" in v:
                act = act * Q.widen(v["quantScaleOptional"]).reshape(-1, h)[0]
            q, scale = Q.dynamic_rows(act, a.yOut.dtype)
            v["scaleOut"].reshape(-1)[:rows] = scale
        else:
            scale = Q.widen(v["quantScaleOptional"]).reshape(-1) if "quantScaleOptional" in v else np.float32(1)
            offset = Q.widen(v["quantOffsetOptional"]).reshape(-1) if "quantOffsetOptional" in v else None
            q = Q.static_quantize(act, scale, offset, a.yOut.dtype, divide=True)
        Q.store(y_rows, _rows_desc(a.yOut, rows, h), q)


    def activation(self, a, x):
        return swiglu(x, a.activateLeft)


class DequantSwigluQuantV2(DequantSwigluQuant):
    """DequantSwigluQuant with dstType, the round mode and the SwiGLU variants of swigluMode (swiglu_variant)."""
    name = "aclnnDequantSwigluQuantV2"

    def check(self, a):
        super().check(a)
        if a.swigluMode not in (0, 1, 2, 3):
            raise status.param_invalid("swigluMode only supports 0, 1, 2 and 3, but got %d." % a.swigluMode)
        if a.dstType != a.yOut.dtype:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s." % (a.dstType,
                                                                                     dtypes.serial_name(a.yOut.dtype)))

    def activation(self, a, x):
        return swiglu_variant(x, a.swigluMode, a.activateLeft, a.clampLimit, a.gluAlpha, a.gluBias)


class SwigluGroupGrad(AclnnOp):
    """gradX of y = swish(x0') · x1' with x0' = min(x0, c), x1' = clamp(x1, ±c) (clampLimit c > 0), the
    incoming gradient times weight; rows past Σ groupIndex get a zero gradient; gradWeight = Σ_h grad · yOrigin."""
    name = "aclnnSwigluGroupGrad"
    inputs = ("gradY", "x", "weightOptional", "yOriginOptional", "groupIndexOptional")
    outputs = ("gradXOut", "gradWeightOutOptional")

    def dtype_table(self):
        return {"gradY": X_TYPES, "x": X_TYPES, "weightOptional": [P.FLOAT], "yOriginOptional": X_TYPES,
                "groupIndexOptional": P.codes("INT64"), "gradXOut": X_TYPES, "gradWeightOutOptional": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "gradY", "x", "gradXOut")
        checks.dtype_in("x", a.x, X_TYPES)
        for name in ("gradY", "gradXOut", "yOriginOptional"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.x.dtype)
        if a.x.ndim != 2 or a.x.shape[1] % 2:
            raise status.param_invalid("x must be 2-D with an even last dim, but got %s." % checks.shape_text(a.x.shape))
        t, h = a.x.shape[0], a.x.shape[1] // 2
        checks.shape_is("gradY", a.gradY, (t, h), checks.shape_text((t, h)))
        checks.same_shape("x", a.x, "gradXOut", a.gradXOut)
        if a.gradWeightOutOptional is not None:
            checks.not_null(a, "weightOptional", "yOriginOptional")

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        h = x.shape[1] // 2
        x0, x1 = x[:, :h], x[:, h:]
        limit = np.float32(a.clampLimit)
        if limit > 0:
            x0, x1 = np.minimum(x0, limit), np.clip(x1, -limit, limit)
        grad = Q.widen(v["gradY"])
        grad_y = grad * v["weightOptional"].astype(np.float32).reshape(-1, 1) if "weightOptional" in v else grad
        with np.errstate(over="ignore"):
            sigma = np.float32(1) / (np.float32(1) + np.exp(-x0))
        silu = x0 * sigma
        dx = np.concatenate([grad_y * x1 * sigma * (np.float32(1) + x0 * (np.float32(1) - sigma)), grad_y * silu],
                            axis=1)
        if "groupIndexOptional" in v:
            dx[int(v["groupIndexOptional"].astype(np.int64).sum()):] = 0
        P.store(v["gradXOut"], dx)
        if "gradWeightOutOptional" in v:
            P.store(v["gradWeightOutOptional"], np.sum(grad * Q.widen(v["yOriginOptional"]), axis=1,
                                                       dtype=np.float32).reshape(v["gradWeightOutOptional"].shape))


class DynamicBlockQuant(AclnnOp):
    """Per (rowBlockSize × colBlockSize) block of the last two axes: scale = min(max|block| / qmax, 1/minScale),
    y = cast(x / scale) (INT8 rint; float8 / hif8 with roundMode); scaleOut one value per block."""
    name = "aclnnDynamicBlockQuant"
    inputs = ("x",)
    outputs = ("yOut", "scaleOut")

    def dtype_table(self):
        return {"x": P.codes("FLOAT16 BF16"), "yOut": (Q.INT8, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8),
                "scaleOut": [P.FLOAT]}

    def dst_max(self, a):
        return 0.0

    def check(self, a):
        checks.not_null(a, "x", "yOut", "scaleOut")
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        checks.dtype_in("yOut", a.yOut, self.dtype_table()["yOut"])
        checks.dtype_match("scaleOut", a.scaleOut, P.FLOAT)
        if a.dstType != a.yOut.dtype:
            raise status.param_invalid("dstType %d must be the dtype of yOut %s." % (a.dstType,
                                                                                     dtypes.serial_name(a.yOut.dtype)))
        if a.rowBlockSize <= 0 or a.colBlockSize <= 0:
            raise status.param_invalid("rowBlockSize and colBlockSize must be positive, but got %d and %d."
                                       % (a.rowBlockSize, a.colBlockSize))
        if a.x.ndim not in (2, 3):
            raise status.param_invalid("x should be 2-D or 3-D, but got %s." % checks.shape_text(a.x.shape))
        checks.same_shape("x", a.x, "yOut", a.yOut)
        rows, cols = a.x.shape[-2:]
        expected = tuple(a.x.shape[:-2]) + (-(-rows // a.rowBlockSize), -(-cols // a.colBlockSize))
        checks.shape_is("scaleOut", a.scaleOut, expected, checks.shape_text(expected))
        a.mode = a.roundModeOptional or "rint"

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = Q.widen(v["x"])
        rb, cb = a.rowBlockSize, a.colBlockSize
        rows, cols = x.shape[-2:]
        pr, pc = -(-rows // rb) * rb, -(-cols // cb) * cb
        padded = np.zeros(x.shape[:-2] + (pr, pc), np.float32)
        padded[..., :rows, :cols] = x
        blocks = padded.reshape(x.shape[:-2] + (pr // rb, rb, pc // cb, cb))
        amax = np.max(np.abs(blocks), axis=(-3, -1))
        qmax = self.dst_max(a) or Q.target_max(a.yOut.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.minimum(amax / np.float32(qmax), np.float32(1 / a.minScale) if a.minScale else np.inf)
            values = blocks / scale[..., :, None, :, None]
        values = values.reshape(padded.shape)[..., :rows, :cols]
        Q.store(v["yOut"], a.yOut, Q.quantize(values, a.yOut.dtype, "round" if a.yOut.dtype == Q.HIFLOAT8 else "rint"))
        P.store(v["scaleOut"], scale.astype(np.float32))


class DynamicBlockQuantV2(DynamicBlockQuant):
    name = "aclnnDynamicBlockQuantV2"

    def dst_max(self, a):
        return float(a.dstTypeMax)


def situ(x, beta, linear_beta, activate_left):
    """Situ: β · tanh(gate / β) · sigmoid(gate) · up, up = linearBeta · tanh(up / linearBeta) when linearBeta > 0;
    gate the first half (activateLeft) or the second."""
    h = x.shape[-1] // 2
    gate, up = (x[..., :h], x[..., h:]) if activate_left else (x[..., h:], x[..., :h])
    beta, linear_beta = np.float32(beta), np.float32(linear_beta)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        activated = beta * np.tanh(gate / beta) / (np.float32(1) + np.exp(-gate))
        if linear_beta > 0:
            up = linear_beta * np.tanh(up / linear_beta)
    return activated * up


class DequantSituQuant(DequantSwigluQuant):
    """Dequantisation (INT8: · weightScale + bias; INT32: · weightScale · activationScale + bias; fp16/bf16 as is),
    Situ, then quantisation with truncation: static y = trunc(v / quantScale + quantOffset), dynamic per row
    scale = max|v| / 127, y = trunc(v / scale)."""
    name = "aclnnDequantSituQuant"
    outputs = ("yOut", "yScaleOut")

    def dtype_table(self):
        table = super().dtype_table()
        return {n: table.get(n, [P.FLOAT]) for n in self.inputs} | {"x": P.codes("INT8 INT32 FLOAT16 BF16"),
                                                                    "yOut": (Q.INT8,), "yScaleOut": [P.FLOAT]}

    def check(self, a):
        a.scaleOut, a.quantModeOptional = a.yScaleOut, a.quantTypeOptional or "static"
        checks.not_null(a, "x", "yOut", "yScaleOut")
        checks.dtype_in("x", a.x, P.codes("INT8 INT32 FLOAT16 BF16"))
        if a.x.dtype in (Q.INT8, Q.INT32):
            checks.not_null(a, "weightScaleOptional")
        if a.x.dtype == Q.INT8:
            self.check_shapes(a)
        else:
            super().check(a)

    def check_shapes(self, a):
        if a.quantModeOptional not in ("static", "dynamic"):
            raise status.param_invalid("quantTypeOptional only supports static and dynamic, but got %s."
                                       % a.quantModeOptional)
        if a.x.ndim < 2 or a.x.shape[-1] % 2:
            raise status.param_invalid("The last dim of x must be even and x at least 2-D, but x is %s."
                                       % checks.shape_text(a.x.shape))
        a.mode = a.quantModeOptional

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = v["x"].astype(np.float32).reshape(-1, a.x.shape[-1])
        if a.x.dtype in (Q.INT8, Q.INT32):
            x = x * v["weightScaleOptional"].astype(np.float32).reshape(-1, x.shape[-1])[0]
            if a.x.dtype == Q.INT32 and "activationScaleOptional" in v:
                x = x * v["activationScaleOptional"].astype(np.float32).reshape(-1, 1)
            if "biasOptional" in v:
                x = x + Q.widen(v["biasOptional"]).reshape(-1)
        act = situ(x, a.beta, a.linearBeta, a.activateLeft)
        rows, h = act.shape
        if a.mode == "dynamic":
            amax = np.max(np.abs(act), axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = (amax / np.float32(127)).astype(np.float32)
                q = Q.quantize(act / scale[:, None], Q.INT8, "trunc")
            v["yScaleOut"].reshape(-1)[:rows] = scale
        else:
            scale = Q.widen(v["quantScaleOptional"]).reshape(-1) if "quantScaleOptional" in v else np.float32(1)
            offset = Q.widen(v["quantOffsetOptional"]).reshape(-1) if "quantOffsetOptional" in v else None
            q = Q.static_quantize(act, scale, offset, Q.INT8, divide=True, mode="trunc")
        v["yOut"][...] = q.reshape(v["yOut"].shape)
