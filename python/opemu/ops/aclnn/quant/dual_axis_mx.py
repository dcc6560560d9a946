"""MX quantisation along both axes of a matrix, with row groups (950): aclnnGroupedDynamicMxQuantWithDualAxis,
aclnnSwigluMxQuantWithDualAxis and aclnnSwigluBackwardMxQuantWithDualAxis (their docs).

Values v [M, N] (x; SwiGLU(x); the SwiGLU gradient of yGrad): y1 / scale1 quantise along the last axis
(scale1 [M, ceil(N/64), 2]); y2 / scale2 along the rows, each group of rows (cumulative groupIndex) blocked on
its own and its scale rows following the previous group's (scale2 [floor(M/64) + G, N, 2]; without groups
[ceil(M/64), N, 2])."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.quant.grouped_quant import group_bounds
from opemu.ops.aclnn.quant.mx_quant import MX_OUT, check_round_mode
from opemu.ops.aclnn.quant.swiglu_quant import swiglu

BLOCK = 32


class GroupedDynamicMxQuantWithDualAxis(AclnnOp):
    name = "aclnnGroupedDynamicMxQuantWithDualAxis"
    inputs = ("x", "groupIndex")
    outputs = ("y1Out", "y1ScaleOut", "y2Out", "y2ScaleOut")
    products = _products.describe(("950",))
    group_name, dst_name = "groupIndex", "dstDtype"

    def names(self):
        """(y1, scale1, y2, scale2) parameter names."""
        return self.outputs

    def dtype_table(self):
        y1, s1, y2, s2 = self.names()
        return {"x": P.codes("FLOAT16 BF16"), self.group_name: P.codes("INT32 INT64"), y1: MX_OUT, y2: MX_OUT,
                s1: [Q.FLOAT8_E8M0], s2: [Q.FLOAT8_E8M0], **{n: P.codes("FLOAT16 BF16") for n in self.extra_inputs()}}

    def extra_inputs(self):
        return ()

    def values_shape(self, a):
        return tuple(a.x.shape)

    def values(self, a, v):
        return Q.widen(v["x"])

    def check(self, a):
        y1, s1, y2, s2 = self.names()
        required = ("x",) + self.extra_inputs() + ((self.group_name,) if self.group_name == "groupIndex" else ())
        checks.not_null(a, *required, y1, s1, y2, s2)
        checks.dtype_in("x", a.x, P.codes("FLOAT16 BF16"))
        for name in self.extra_inputs():
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        dst = getattr(a, self.dst_name)
        for name in (y1, y2):
            checks.dtype_in(name, getattr(a, name), MX_OUT)
            if getattr(a, name).dtype != dst:
                raise status.param_invalid("%s %d must be the dtype of %s %s."
                                           % (self.dst_name, dst, name, dtypes.serial_name(getattr(a, name).dtype)))
        for name in (s1, s2):
            checks.dtype_match(name, getattr(a, name), Q.FLOAT8_E8M0)
        a.mode = a.roundModeOptional or "rint"
        check_round_mode(a.mode, dst)
        if a.x.ndim != 2:
            raise status.param_invalid("x should be 2-D, but got %s." % checks.shape_text(a.x.shape))
        m, n = shape = self.values_shape(a)
        for name in (y1, y2):
            checks.shape_is(name, getattr(a, name), shape, checks.shape_text(shape))
        groups = getattr(a, self.group_name)
        expected1 = (m, -(-n // (2 * BLOCK)), 2)
        expected2 = (m // (2 * BLOCK) + groups.numel(), n, 2) if groups is not None else (-(-m // (2 * BLOCK)), n, 2)
        checks.shape_is(s1, getattr(a, s1), expected1, checks.shape_text(expected1))
        checks.shape_is(s2, getattr(a, s2), expected2, checks.shape_text(expected2))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        y1, s1, y2, s2 = self.names()
        values = self.values(a, v)
        dst, limit = getattr(a, self.dst_name), float(a.maxDtypeValue)
        elements, codes = mx.quantize(values, -1, BLOCK, dst, a.mode, a.scaleAlg, limit)
        mx.store_elements(v[y1], getattr(a, y1), elements)
        v[s1].view(np.uint8)[...] = codes.reshape(v[s1].shape)
        columns = np.zeros(values.shape, np.float32)
        scale2 = v[s2].view(np.uint8)
        scale2[...] = 0
        if self.group_name in v:
            bounds = group_bounds(v[self.group_name].astype(np.int64), values.shape[0], False)
        else:
            bounds = [(0, values.shape[0])]
        pair = 0
        for start, end in bounds:
            if end <= start:
                continue
            part, part_codes = mx.quantize(values[start:end], 0, BLOCK, dst, a.mode, a.scaleAlg, limit)
            columns[start:end] = part
            scale2[pair:pair + part_codes.shape[0]] = part_codes
            pair += part_codes.shape[0]
        mx.store_elements(v[y2], getattr(a, y2), columns)


class SwigluMxQuantWithDualAxis(GroupedDynamicMxQuantWithDualAxis):
    """Both-axis MX of SwiGLU(x), x [M, 2N]."""
    name = "aclnnSwigluMxQuantWithDualAxis"
    inputs = ("x", "groupIndexOptional")
    outputs = ("y1Out", "mxscale1Out", "y2Out", "mxscale2Out")
    group_name, dst_name = "groupIndexOptional", "dstType"

    def values_shape(self, a):
        if a.x.ndim != 2 or a.x.shape[1] % 2:
            raise status.param_invalid("x should be [M, 2N], but got %s." % checks.shape_text(a.x.shape))
        return a.x.shape[0], a.x.shape[1] // 2

    def values(self, a, v):
        return swiglu(Q.widen(v["x"]), a.activateLeft)


class SwigluBackwardMxQuantWithDualAxis(GroupedDynamicMxQuantWithDualAxis):
    """Both-axis MX of the SwiGLU gradient: grad_A = yGrad · B · σ(A) · (1 + A − A·σ(A)), grad_B = yGrad · A · σ(A),
    concatenated as x is (A the first half when activateLeft)."""
    name = "aclnnSwigluBackwardMxQuantWithDualAxis"
    inputs = ("x", "yGrad", "groupIndexOptional")
    outputs = ("y1Out", "mxscale1Out", "y2Out", "mxscale2Out")
    group_name, dst_name = "groupIndexOptional", "dstDtype"

    def extra_inputs(self):
        return ("yGrad",)

    def check(self, a):
        super().check(a)
        m, n2 = a.x.shape
        checks.shape_is("yGrad", a.yGrad, (m, n2 // 2), checks.shape_text((m, n2 // 2)))

    def values(self, a, v):
        x = Q.widen(v["x"])
        h = x.shape[1] // 2
        first, second = x[:, :h], x[:, h:]
        a_half, b_half = (first, second) if a.activateLeft else (second, first)
        grad = Q.widen(v["yGrad"])
        with np.errstate(over="ignore"):
            sigma = np.float32(1) / (np.float32(1) + np.exp(-a_half))
        grad_a = grad * b_half * sigma * (np.float32(1) + a_half - a_half * sigma)
        grad_b = grad * a_half * sigma
        return np.concatenate([grad_a, grad_b] if a.activateLeft else [grad_b, grad_a], axis=1)
