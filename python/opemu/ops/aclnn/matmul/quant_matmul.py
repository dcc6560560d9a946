"""Quantised matmuls: aclnnQuantMatmul / V2 (matmul/quant_matmul op_api), aclnnQuantMatmulV3 / V4 /
aclnnQuantMatmulWeightNz (quant_batch_matmul_v3), aclnnQuantMatmulV5 (quant_batch_matmul_v4) and
aclnnBatchMatmulQuant (batch_matmul_quant).

INT8 (INT4, and on the 950 float8 / hif8 / float4) operands multiply with int32 (fp32) sums; the epilogue
dequantises in fp32 as each doc's formulas say (common/quant_matmul.epilogue):
    no bias:           out = x1@x2 · scale (· pertokenScale) + offset
    INT32 bias:        out = (x1@x2 + bias) · scale (· pertokenScale) + offset
    float bias:        out = x1@x2 · scale (· pertokenScale) + bias
and rounds once into out (INT8 out: nearest even, saturated). transposeX1/X2 name operands given as (k, m) /
(n, k). x2 may be FRACTAL_NZ (the WeightNz forms, or any NZ tensor)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quant_matmul as QM
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.common import weights as W

UINT64, INT64 = dtypes.acl("UINT64"), dtypes.acl("INT64")
LINES = ("A2", "A3", "950", "310P")
FLOAT_OPERANDS = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8, Q.FLOAT4_E2M1, Q.FLOAT4_E1M2)


def _operand_types():
    line = _products.line()
    return (Q.INT8, Q.INT4, Q.INT32) + (FLOAT_OPERANDS if line == "950" else ())


def _out_types():
    return (Q.INT8, P.FLOAT16, P.BF16, Q.INT32, P.FLOAT)


def logical(view, layout, transposed):
    """An operand's (…, rows, cols) values (int8 for integers, fp32 for floats), transposed back when the
    op's flag says its view is (k, m) / (n, k)."""
    values = W.matrix(view, layout)
    if layout.dtype == Q.INT32 and values.dtype == np.int32:
        values = W.int4_from_int32(values)
    return np.swapaxes(values, -1, -2) if transposed else values


class QuantMatmulV4(AclnnOp):
    name = "aclnnQuantMatmulV4"
    inputs = ("x1", "x2", "scale", "offset", "pertokenScaleOptional", "bias")
    outputs = ("out",)
    products = _products.describe(LINES)
    x2_nz = False
    flags = ("transposeX1", "transposeX2")

    def dtype_table(self):
        return {"x1": _operand_types(), "x2": _operand_types(), "scale": (UINT64, INT64, P.FLOAT, P.BF16),
                "offset": [P.FLOAT], "pertokenScaleOptional": [P.FLOAT], "bias": P.codes("INT32 FLOAT BF16 FLOAT16"),
                "out": _out_types()}

    def names(self):
        """(scale, offset, token scale, bias) parameter names of this form."""
        return "scale", "offset", "pertokenScaleOptional", "bias"

    def transposes(self, a):
        """(x1 transposed, x2 transposed); forms without the flags multiply as given."""
        flags = tuple(bool(getattr(a, f, False)) for f in self.flags)
        return flags + (False,) * (2 - len(flags))

    def check(self, a):
        scale, offset, token, bias = self.names()
        checks.not_null(a, "x1", "x2", *((scale,) if scale else ()), "out")
        allowed = _operand_types()
        checks.dtype_in("x1", a.x1, allowed)
        checks.dtype_in("x2", a.x2, allowed)
        integer = a.x1.dtype in (Q.INT8, Q.INT4, Q.INT32)
        if integer != (a.x2.dtype in (Q.INT8, Q.INT4, Q.INT32)):
            raise status.param_invalid("x1 %s and x2 %s must be both integer or both float types."
                                       % (dtypes.serial_name(a.x1.dtype), dtypes.serial_name(a.x2.dtype)))
        if scale and getattr(a, scale) is not None:
            checks.dtype_in(scale, getattr(a, scale), (UINT64, INT64, P.FLOAT, P.BF16, Q.FLOAT8_E8M0))
        for name in (offset, token):
            if name and getattr(a, name, None) is not None:
                checks.dtype_in(name, getattr(a, name), (P.FLOAT, P.FLOAT16, P.BF16, Q.FLOAT8_E8M0))
        if bias and getattr(a, bias, None) is not None:
            checks.dtype_in(bias, getattr(a, bias), P.codes("INT32 FLOAT BF16 FLOAT16"))
        checks.dtype_in("out", a.out, _out_types())
        if offset and getattr(a, offset, None) is not None and a.out.dtype != Q.INT8:
            raise status.param_invalid("offset only exists when out's dtype is INT8, but out is %s."
                                       % dtypes.serial_name(a.out.dtype))
        if self.x2_nz and not fractal_nz.is_nz(a.x2):
            raise status.param_invalid("Format of x2 must be FRACTAL_NZ, actual is %d." % a.x2.format)
        for name in ("x1", "x2"):
            t = getattr(a, name)
            if not 2 <= t.ndim <= 6:
                raise status.param_invalid("%s's dim should be in [2, 6], but got %d." % (name, t.ndim))
        t1, t2 = self.transposes(a)
        pack1 = 8 if a.x1.dtype == Q.INT32 else 1
        pack2 = 8 if a.x2.dtype == Q.INT32 else 1
        m, k1 = (a.x1.shape[-1] * pack1, a.x1.shape[-2]) if t1 else (a.x1.shape[-2], a.x1.shape[-1] * pack1)
        k2, n = (a.x2.shape[-1] * pack2, a.x2.shape[-2]) if t2 else (a.x2.shape[-2], a.x2.shape[-1] * pack2)
        if k1 != k2:
            raise status.param_invalid("The k dim of x1 [%d] and x2 [%d] should be equal." % (k1, k2))
        try:
            batch = P.broadcast("x1", a.x1.shape[:-2], "x2", a.x2.shape[:-2])
        except status.VendorError:
            raise status.param_invalid("Broadcast %s and %s failed." % (checks.shape_text(a.x1.shape),
                                                                        checks.shape_text(a.x2.shape)))
        pack_out = 8 if a.out.dtype == Q.INT32 and integer and self.int4_out(a) else 1
        expected = tuple(batch) + (m, n // pack_out)
        if tuple(a.out.shape) != expected:
            raise status.param_invalid("The shape of out should be %s, but got %s."
                                       % (checks.shape_text(expected), checks.shape_text(a.out.shape)))
        a.m, a.k, a.n = m, k1, n
        self.check_params(a, m, k1, n)
        _products.check_supported(self.name, LINES)
        W.narrow_desc(a, "x1")
        W.narrow_desc(a, "x2")

    def int4_out(self, a):
        return False

    def check_params(self, a, m, k, n):
        scale, offset, token, bias = self.names()
        for name, sizes in ((scale, (1, n)), (offset, (1, n)), (token, (1, m)), (bias, (n,))):
            t = getattr(a, name, None) if name else None
            padded = t is not None and t.dtype in (UINT64, INT64) and t.numel() >= n and t.numel() % 16 == 0
            if t is not None and t.numel() not in sizes and not padded and not self.grouped(a):
                raise status.param_invalid("The shape of %s %s does not match n = %d (or m = %d for the token scale)."
                                           % (name, checks.shape_text(t.shape), n, m))

    def grouped(self, a):
        return False

    def compute(self, a, v, workspace):
        out = v["out"]
        if not out.size:
            return
        t1, t2 = self.transposes(a)
        x1 = logical(v["x1"], a.x1_layout, t1)
        x2 = logical(v["x2"], a.x2_layout, t2)
        integer = a.x1_layout.dtype in (Q.INT8, Q.INT4, Q.INT32)
        scale_name, offset_name, token_name, bias_name = self.names()
        scale = offset = None
        if scale_name and scale_name in v:
            scale, offset = QM.scale_values(v[scale_name], getattr(a, scale_name))
            scale = scale.reshape(-1)
            if scale.size > a.n:   # TransQuantParam words padded to a multiple of 16 channels
                scale, offset = scale[:a.n], None if offset is None else offset.reshape(-1)[:a.n]
        if offset_name and offset_name in v:
            offset = Q.widen(v[offset_name]).reshape(-1)
        token = Q.widen(v[token_name]).reshape(-1, 1) if token_name and token_name in v else None
        bias = v[bias_name].reshape(-1) if bias_name and bias_name in v else None
        bias_int = bias is not None and getattr(a, bias_name).dtype == Q.INT32
        acc = QM.integer_matmul(x1, x2) if integer else QM.float_matmul(x1, x2)
        result = QM.epilogue(acc, scale, token, bias, bias_int, offset if a.out.dtype == Q.INT8 else None,
                             a.out.dtype if a.out.dtype in (Q.INT8, Q.INT32) else None)
        if a.out.dtype == Q.INT32:
            out[...] = result.reshape(out.shape).astype(np.int64).astype(np.int32)
        elif a.out.dtype == Q.INT8:
            out[...] = result.reshape(out.shape)
        else:
            P.store(out, result.reshape(out.shape))


class QuantMatmulV3(QuantMatmulV4):
    name = "aclnnQuantMatmulV3"
    inputs = ("x1", "x2", "scale", "offset", "bias")

    def names(self):
        return "scale", "offset", None, "bias"


class QuantMatmulV2(QuantMatmulV4):
    """out = (x1@x2 + bias) · deqScale (TransQuantParam words), adjX1/adjX2 transposing."""
    name = "aclnnQuantMatmulV2"
    inputs = ("x1", "x2", "bias", "deqScale")
    flags = ("adjX1", "adjX2")

    def names(self):
        return "deqScale", None, None, "bias"


class QuantMatmul(QuantMatmulV4):
    """out = (x1@x2 + bias) · deqScale, deqScale one float."""
    name = "aclnnQuantMatmul"
    inputs = ("x1", "x2", "bias")
    flags = ()

    def names(self):
        return None, None, None, "bias"

    def compute(self, a, v, workspace):
        out = np.empty(v["out"].shape, np.float32)
        super().compute(a, dict(v, out=out), workspace)
        P.store(v["out"], out * np.float32(a.deqScale))


class QuantMatmulV5(QuantMatmulV4):
    """The general form: x1Scale (per token, or per K group), x2Scale (per tensor/channel, or per K group: the
    per-block and MX modes, groupSize = groupM << 32 | groupN << 16 | groupK), yScale, offsets and bias."""
    name = "aclnnQuantMatmulV5"
    inputs = ("x1", "x2", "x1Scale", "x2Scale", "yScale", "x1Offset", "x2Offset", "yOffset", "bias")

    def dtype_table(self):
        scales = (UINT64, INT64, P.FLOAT, P.BF16, Q.FLOAT8_E8M0)
        return {"x1": _operand_types(), "x2": _operand_types(), "x1Scale": scales, "x2Scale": scales,
                "yScale": scales, "x1Offset": [P.FLOAT], "x2Offset": [P.FLOAT], "yOffset": [P.FLOAT],
                "bias": P.codes("INT32 FLOAT BF16 FLOAT16"), "out": _out_types()}

    def names(self):
        return "x2Scale", "x2Offset", "x1Scale", "bias"

    def grouped(self, a):
        return (a.groupSize & 0xFFFF) > 0 or (a.x2Scale is not None and a.x2Scale.dtype == Q.FLOAT8_E8M0)

    def group_k(self, a):
        gk = a.groupSize & 0xFFFF
        return gk if gk > 0 else 32

    def compute(self, a, v, workspace):
        if not self.grouped(a):
            super().compute(a, v, workspace)
            if "yScale" in v and a.out.dtype not in (Q.INT8, Q.INT32):
                y_scale = QM.scale_values(v["yScale"], a.yScale)[0].reshape(-1)
                P.store(v["out"], Q.widen(v["out"]) * y_scale)
            return
        t1, t2 = self.transposes(a)
        x1 = logical(v["x1"], a.x1_layout, t1)
        x2 = logical(v["x2"], a.x2_layout, t2)
        gk = self.group_k(a)
        groups = -(-a.k // gk)
        s1 = QM.scale_values(v["x1Scale"], a.x1Scale)[0] if "x1Scale" in v else np.ones((a.m, groups), np.float32)
        s2 = QM.scale_values(v["x2Scale"], a.x2Scale)[0]
        s1 = expand_groups(s1, a.m, groups, rows_first=True)
        s2 = expand_groups(s2, a.n, groups, rows_first=False, transposed=t2)
        integer = a.x1_layout.dtype in (Q.INT8, Q.INT4, Q.INT32)
        result = QM.grouped_matmul(x1, x2, s1, s2, gk, integer)
        if "x2Offset" in v:     # the weight's per-group offset: x1_g @ (x2_g + o_g) adds rowsum(x1_g) · o_g
            offset = expand_groups(Q.widen(v["x2Offset"]), a.n, groups, rows_first=False, transposed=t2)
            sums = np.stack([x1[..., lo:lo + gk].astype(np.float32).sum(-1) for lo in range(0, a.k, gk)], -1)
            result = result + np.matmul(sums * s1, offset * s2)
        if "bias" in v:
            result = result + Q.widen(v["bias"]).reshape(-1)
        P.store(v["out"], result.reshape(v["out"].shape))


def expand_groups(scale, count, groups, rows_first, transposed=False):
    """A per-block scale as (count, groups) for x1 (rows_first) or (groups, count) for x2: block scales that
    cover several rows/columns (groupM, groupN) are repeated; MX scales (…, groups/2, 2) are flattened."""
    scale = np.asarray(scale, np.float32)
    if scale.ndim >= 3 and scale.shape[-1] == 2:      # MX layout: the K groups in pairs
        scale = scale.reshape(scale.shape[:-2] + (-1,))
    if not rows_first:
        scale = np.swapaxes(scale, -1, -2) if (transposed or scale.shape[-2] == count) and scale.shape[-1] != count \
            else scale
        if scale.shape[-1] != count:
            scale = np.repeat(scale, -(-count // scale.shape[-1]), axis=-1)[..., :count]
        return scale[..., :groups, :]
    if scale.ndim == 1:
        scale = scale.reshape(-1, 1)
    if scale.shape[-2] != count:
        scale = np.repeat(scale, -(-count // scale.shape[-2]), axis=-2)[..., :count, :]
    if scale.shape[-1] != groups:
        scale = np.broadcast_to(scale[..., :1], scale.shape[:-1] + (groups,))
    return scale[..., :groups]


class QuantMatmulWeightNz(QuantMatmulV5):
    name = "aclnnQuantMatmulWeightNz"
    x2_nz = True


class BatchMatmulQuant(QuantMatmulV4):
    """x1 and x2 fp16, quantised per tensor by the vendor's fused op: out = int8 of (x1@x2 + bias) · quantParam
    words (TransQuantParam); an INT8 output with fp16 inputs."""
    name = "aclnnBatchMatmulQuant"
    inputs = ("x1", "x2", "quantParam", "bias")

    def dtype_table(self):
        return {"x1": P.codes("FLOAT16"), "x2": P.codes("FLOAT16"), "quantParam": (UINT64,), "bias": P.codes(
            "FLOAT16"), "out": (Q.INT8,)}

    def names(self):
        return "quantParam", None, None, "bias"

    def check(self, a):
        checks.not_null(a, "x1", "x2", "quantParam", "out")
        for name in ("x1", "x2"):
            checks.dtype_in(name, getattr(a, name), P.codes("FLOAT16"))
        checks.dtype_in("quantParam", a.quantParam, (UINT64,))
        if a.bias is not None:
            checks.dtype_in("bias", a.bias, P.codes("FLOAT16"))
        checks.dtype_in("out", a.out, (Q.INT8,))
        t1, t2 = a.transposeX1, a.transposeX2
        m, k = (a.x1.shape[-1], a.x1.shape[-2]) if t1 else (a.x1.shape[-2], a.x1.shape[-1])
        k2, n = (a.x2.shape[-1], a.x2.shape[-2]) if t2 else (a.x2.shape[-2], a.x2.shape[-1])
        if k != k2:
            raise status.param_invalid("The k dim of x1 [%d] and x2 [%d] should be equal." % (k, k2))
        batch = P.broadcast("x1", a.x1.shape[:-2], "x2", a.x2.shape[:-2])
        P.out_shape_is(a.out, tuple(batch) + (m, n))
        _products.check_supported(self.name, ("310P", "A2", "A3"))
        W.narrow_desc(a, "x1")
        W.narrow_desc(a, "x2")

    def compute(self, a, v, workspace):
        x1 = np.swapaxes(Q.widen(v["x1"]), -1, -2) if a.transposeX1 else Q.widen(v["x1"])
        x2 = np.swapaxes(Q.widen(v["x2"]), -1, -2) if a.transposeX2 else Q.widen(v["x2"])
        product = np.matmul(x1, x2).astype(np.float16).astype(np.float32)
        if "bias" in v:
            product = product + Q.widen(v["bias"]).reshape(-1)
        scale, offset = Q.quant_param_scale(v["quantParam"].reshape(-1))
        n = product.shape[-1]   # aclnnTransQuantParam pads the channels to a multiple of 16
        scale, offset = (t[:n] if t.size >= n else t[:1] for t in (scale, offset))
        v["out"][...] = Q.quantize(product * scale + offset, Q.INT8).reshape(v["out"].shape)


