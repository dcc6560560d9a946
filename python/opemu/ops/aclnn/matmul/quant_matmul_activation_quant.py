"""aclnnQuantMatmulActivationQuantWeightNz (matmul/quant_matmul_activation_quant op_api; the 950 line): an MX
matmul of FLOAT8 x1 and a FRACTAL_NZ FLOAT8 weight, GELU, then MX quantisation of the result.

matmulOut = Σ over K groups of 32 (x1_g @ x2_g) · x1Scale[m, g] · x2Scale[g, n] (+ bias) in fp32 (common/
quant_matmul), activationOut = gelu_tanh or gelu_erf of it, yOut / yScaleOut its MX quantisation along n in
blocks of 32 (common/mx: scaleAlg 0 the element type's emax, 1 S = amax / max rounded up; roundMode)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import fractal_nz, mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quant_matmul as QM
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.common import weights as W
from opemu.ops.aclnn.matmul.quant_matmul import expand_groups, logical
from opemu.ops.aclnn.matmul.quant_matmul_fused import gelu

FP8 = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2)
GROUP = 32
NAME = "aclnnQuantMatmulActivationQuantWeightNzGetWorkspaceSize"


def _invalid(what, value, reason):
    """The op_api's OP_LOGE_FOR_INVALID_*_WITH_REASON line."""
    return status.param_invalid("%s: %s is %s, %s" % (NAME, what, value, reason))


class QuantMatmulActivationQuantWeightNz(AclnnOp):
    name = "aclnnQuantMatmulActivationQuantWeightNz"
    inputs = ("x1", "x2", "x1ScaleOptional", "x2Scale", "biasOptional")
    outputs = ("yOut", "yScaleOut")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x1": FP8, "x2": FP8, "x1ScaleOptional": [Q.FLOAT8_E8M0], "x2Scale": [Q.FLOAT8_E8M0],
                "biasOptional": [P.FLOAT], "yOut": FP8, "yScaleOut": [Q.FLOAT8_E8M0]}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "x1ScaleOptional", "x2Scale", "yOut", "yScaleOut")
        self.check_formats(a)
        self.check_dtypes(a)
        self.check_attributes(a)
        self.check_shapes(a)
        _products.check_supported(self.name, ("950",))
        W.narrow_desc(a, "x1")
        W.narrow_desc(a, "x2")

    def check_formats(self, a):
        nd = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
        for name in ("x1", "x1ScaleOptional", "x2Scale", "biasOptional"):
            t = getattr(a, name)
            if t is not None and t.format != nd:
                raise _invalid("the format of %s" % name, t.format, "it should be ND.")
        if not fractal_nz.is_nz(a.x2):
            raise _invalid("the format of x2", a.x2.format, "it should be FRACTAL_NZ.")

    def check_dtypes(self, a):
        for name in ("x1", "x2", "yOut"):
            t = getattr(a, name)
            if t.dtype not in FP8:
                raise _invalid("the dtype of %s" % name, dtypes.serial_name(t.dtype),
                               "it should be FLOAT8_E4M3FN or FLOAT8_E5M2.")
        for name in ("x1ScaleOptional", "x2Scale", "yScaleOut"):
            t = getattr(a, name)
            if t.dtype != Q.FLOAT8_E8M0:
                raise _invalid("the dtype of %s" % name, dtypes.serial_name(t.dtype), "it should be FLOAT8_E8M0.")
        if a.biasOptional is not None and a.biasOptional.dtype != P.FLOAT:
            raise _invalid("the dtype of bias", dtypes.serial_name(a.biasOptional.dtype), "it should be FLOAT.")

    def check_attributes(self, a):
        if a.activationType is None or a.quantMode is None or a.roundMode is None:
            raise status.param_nullptr("activationType, quantMode and roundMode must not be null.")
        if a.activationType not in ("gelu_tanh", "gelu_erf"):
            raise _invalid("activationType", a.activationType, "it should be gelu_tanh or gelu_erf.")
        if a.quantMode != "mx":
            raise _invalid("quantMode", a.quantMode, "it should be mx.")
        if a.roundMode not in ("rint", "floor", "round"):
            raise _invalid("roundMode", a.roundMode, "it should be rint, floor or round.")
        if a.scaleAlg not in (0, 1):
            raise _invalid("scaleAlg", a.scaleAlg, "it should be 0 or 1.")
        if a.roundMode != "rint":
            raise _invalid("roundMode", a.roundMode, "it should be rint when y is FLOAT8.")

    def check_shapes(self, a):
        if not 2 <= a.x1.ndim <= 6:
            raise _invalid("the dim of x1", a.x1.ndim, "it should be in [2, 6].")
        if not 2 <= a.x2.ndim <= 6:
            raise _invalid("the dim of x2", a.x2.ndim, "it should be in [2, 6].")
        m, k = (a.x1.shape[-1], a.x1.shape[-2]) if a.transposeX1 else a.x1.shape[-2:]
        k2, n = (a.x2.shape[-1], a.x2.shape[-2]) if a.transposeX2 else a.x2.shape[-2:]
        if k != k2:
            raise _invalid("x1 K, x2 K", "%d, %d" % (k, k2), "they should be equal.")
        for what, value in (("x1 M", m), ("K", k), ("x2 N", n)):
            if value <= 0:
                raise _invalid(what, value, "it should be positive.")
        try:
            batch = tuple(P.broadcast("x1", a.x1.shape[:-2], "x2", a.x2.shape[:-2]))
        except status.VendorError:
            raise _invalid("the batch dims of x1 and x2", "%s, %s" % (checks.shape_text(a.x1.shape[:-2]),
                                                                     checks.shape_text(a.x2.shape[:-2])),
                           "they should broadcast.")
        groups = -(-k // GROUP)
        pairs = -(-groups // 2)
        s1 = (pairs, m, 2) if a.transposeX1 else (m, pairs, 2)
        s2 = (n, pairs, 2) if a.transposeX2 else (pairs, n, 2)
        for name, expected in (("x1ScaleOptional", a.x1.shape[:-2] + s1), ("x2Scale", a.x2.shape[:-2] + s2)):
            if tuple(getattr(a, name).shape) != tuple(expected):
                raise _invalid("the shape of %s" % name, checks.shape_text(getattr(a, name).shape),
                               "it should be %s." % checks.shape_text(expected))
        if a.biasOptional is not None and tuple(a.biasOptional.shape) not in ((n,), batch + (1, n), batch + (n,)):
            raise _invalid("the shape of bias", checks.shape_text(a.biasOptional.shape), "it should be [%d]." % n)
        y_shape = batch + (m, n)
        if tuple(a.yOut.shape) != y_shape:
            raise _invalid("the shape of y", checks.shape_text(a.yOut.shape), "it should be %s."
                           % checks.shape_text(y_shape))
        scale_shape = mx.scale_shape(y_shape, -1, GROUP)
        if tuple(a.yScaleOut.shape) != scale_shape:
            raise _invalid("the shape of yScale", checks.shape_text(a.yScaleOut.shape), "it should be %s."
                           % checks.shape_text(scale_shape))
        a.m, a.k, a.n = m, k, n

    def compute(self, a, v, workspace):
        x1 = logical(v["x1"], a.x1_layout, a.transposeX1)
        x2 = logical(v["x2"], a.x2_layout, a.transposeX2)
        groups = -(-a.k // GROUP)
        s1 = QM.scale_values(v["x1ScaleOptional"], a.x1ScaleOptional)[0]
        if a.transposeX1:   # (…, K pairs, m, 2) as (…, m, K pairs, 2)
            s1 = np.swapaxes(s1, -3, -2)
        s1 = expand_groups(s1, a.m, groups, rows_first=True)
        s2 = QM.scale_values(v["x2Scale"], a.x2Scale)[0]
        if not a.transposeX2:   # (…, K pairs, n, 2) as (…, n, K pairs, 2)
            s2 = np.swapaxes(s2, -3, -2)
        s2 = expand_groups(s2, a.n, groups, rows_first=False, transposed=True)
        values = QM.grouped_matmul(x1, x2, s1, s2, GROUP, False)
        if "biasOptional" in v:
            bias = Q.widen(v["biasOptional"])
            values = values + (bias.reshape(bias.shape[:-1] + (1, a.n)) if bias.ndim > 1 else bias)
        with np.errstate(over="ignore", invalid="ignore"):
            activated = gelu(values.astype(np.float32), a.activationType)
        elements, codes = mx.quantize(activated, -1, GROUP, a.yOut.dtype, a.roundMode, a.scaleAlg,
                                      float(a.dstTypeMax))
        mx.store_elements(v["yOut"], a.yOut, elements.reshape(v["yOut"].shape))
        v["yScaleOut"].view(np.uint8)[...] = codes.reshape(v["yScaleOut"].shape)
