"""Quantised matmuls fused with what surrounds them: aclnnFusedQuantMatmul / WeightNz (gelu after the
dequantisation), aclnnQuantMatmulDequant (dynamic or static quantisation of x, then QuantMatmul),
aclnnQuantMatmulReduceSumWeightNz (the batch's products summed), aclnnQuantBatchMatmulInplaceAdd
(y += the product), aclnnMatmulEmuSplitWeight (fp32 weights as two bf16 halves) and aclnnConvertWeightToINT4Pack
(the INT4 packing of an INT32 weight). Their docs' formulas; the arithmetic is quant_matmul's."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quant_matmul as QM
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.common import weights as W
from opemu.ops.aclnn.matmul.quant_matmul import QuantMatmulV5, logical

UINT64, INT64 = dtypes.acl("UINT64"), dtypes.acl("INT64")


def gelu(values, kind):
    if kind == "gelu_erf":
        from scipy.special import erf   # imported at first use: scipy.special costs ~0.5 s to import
        return (values * np.float32(0.5) * (1 + erf(values / np.float32(np.sqrt(2))))).astype(np.float32)
    inner = np.float32(np.sqrt(2 / np.pi)) * (values + np.float32(0.044715) * values ** 3)
    return (np.float32(0.5) * values * (1 + np.tanh(inner))).astype(np.float32)


class FusedQuantMatmul(QuantMatmulV5):
    """qbmmout = x1@x2 · x2Scale · x1Scale (+ bias), then fusedOpType ("gelu_tanh", "gelu_erf", or "" none)."""
    name = "aclnnFusedQuantMatmul"
    inputs = ("x1", "x2", "x1Scale", "x2Scale", "yScaleOptional", "x1OffsetOptional", "x2OffsetOptional",
              "yOffsetOptional", "biasOptional", "x3Optional")
    flags = ()

    def names(self):
        return "x2Scale", "x2OffsetOptional", "x1Scale", "biasOptional"

    def grouped(self, a):
        return False

    def check(self, a):
        if (a.fusedOpType or "") not in ("", "gelu_tanh", "gelu_erf"):
            raise status.param_invalid("fusedOpType only supports gelu_tanh and gelu_erf, but got %s."
                                       % a.fusedOpType)
        super().check(a)

    def compute(self, a, v, workspace):
        out = np.empty(v["out"].shape, np.float32)
        view = v["out"]
        super().compute(a, dict(v, out=out), workspace)
        if a.fusedOpType:
            out = gelu(out, a.fusedOpType)
        P.store(view, out)


class FusedQuantMatmulWeightNz(FusedQuantMatmul):
    name = "aclnnFusedQuantMatmulWeightNz"
    x2_nz = True


class QuantMatmulReduceSumWeightNz(QuantMatmulV5):
    """out = Σ_b (x1_b @ x2_b) · x1Scale_b · x2Scale over the batch axis (dims = [0])."""
    name = "aclnnQuantMatmulReduceSumWeightNz"
    x2_nz = True

    def check(self, a):
        if list(a.dims or ()) != [0]:
            raise status.param_invalid("dims only supports [0], but got %s." % list(a.dims or ()))
        wanted = a.out
        batch = a.x1.shape[:-2] if a.x1 is not None else ()
        from opemu.core.tensor import TensorDesc
        a.out = TensorDesc(wanted.dtype, tuple(batch) + tuple(wanted.shape[-2:]), (0,) * (len(batch) + 2))
        super().check(a)
        a.out = wanted

    def check_params(self, a, m, k, n):
        batch = a.x1.shape[0] if a.x1.ndim == 3 else 1
        if a.x1Scale is not None and a.x1Scale.numel() != batch * m:
            raise status.param_invalid("The shape of x1Scale %s should be [%d, %d]."
                                       % (checks.shape_text(a.x1Scale.shape), batch, m))
        if a.x2Scale is not None and a.x2Scale.numel() not in (1, n):
            raise status.param_invalid("The shape of x2Scale %s should be [%d]." % (checks.shape_text(a.x2Scale.shape),
                                                                                     n))

    def compute(self, a, v, workspace):
        x1 = logical(v["x1"], a.x1_layout, a.transposeX1)
        x2 = logical(v["x2"], a.x2_layout, a.transposeX2)
        acc = QM.integer_matmul(x1, x2).astype(np.float32)
        s1 = Q.widen(v["x1Scale"]).reshape(acc.shape[:-1] + (1,))
        s2 = QM.scale_values(v["x2Scale"], a.x2Scale)[0].reshape(-1)
        P.store(v["out"], (acc * s1 * s2).sum(axis=0, dtype=np.float32).reshape(v["out"].shape))


class QuantBatchMatmulInplaceAdd(QuantMatmulV5):
    """yRef += x1@x2 dequantised (MX: per 32-K group scales; T-T: two scalar scales), in fp32."""
    name = "aclnnQuantBatchMatmulInplaceAdd"
    inputs = ("x1", "x2", "x1ScaleOptional", "x2Scale", "yRef")
    outputs = ("yRef",)

    def names(self):
        return "x2Scale", None, "x1ScaleOptional", None

    def dtype_table(self):
        table = super().dtype_table()
        return {n: table.get(n, [P.FLOAT]) for n in ("x1", "x2", "x2Scale")} | {
            "x1ScaleOptional": (P.FLOAT, Q.FLOAT8_E8M0), "yRef": [P.FLOAT]}

    def grouped(self, a):
        return a.x2Scale is not None and a.x2Scale.dtype == Q.FLOAT8_E8M0

    def check(self, a):
        a.out, a.x1Scale, a.bias = a.yRef, a.x1ScaleOptional, None
        super().check(a)

    def compute(self, a, v, workspace):
        y = v["yRef"]
        before = y.astype(np.float32)
        product = np.empty(y.shape, np.float32)
        views = dict(v, out=product, x1Scale=v.get("x1ScaleOptional"))
        if views["x1Scale"] is None:
            views.pop("x1Scale")
        super().compute(a, views, workspace)
        P.store(y, before + product)


class QuantMatmulDequant(AclnnOp):
    """x (· smoothScale) quantised to INT8 (xQuantMode "pertoken" dynamic, or static with xScale/xOffset), then
    out = (xq @ weight + bias) · weightScale · xScale (weightScale INT64: already the product of both scales)."""
    name = "aclnnQuantMatmulDequant"
    inputs = ("x", "weight", "weightScale", "biasOptional", "xScaleOptional", "xOffsetOptional",
              "smoothScaleOptional")
    outputs = ("out",)

    def dtype_table(self):
        return {"x": P.codes("FLOAT16"), "weight": (Q.INT8,), "weightScale": (P.FLOAT, INT64),
                "biasOptional": P.codes("INT32"), "xScaleOptional": P.codes("FLOAT FLOAT16"),
                "xOffsetOptional": P.codes("FLOAT FLOAT16"), "smoothScaleOptional": P.codes("FLOAT16"),
                "out": P.codes("FLOAT16")}

    def check(self, a):
        checks.not_null(a, "x", "weight", "weightScale", "out")
        table = self.dtype_table()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), table[name])
        if a.xQuantMode not in ("pertoken", "pertensor"):
            raise status.param_invalid("xQuantMode only supports pertoken and pertensor, but got %s." % a.xQuantMode)
        checks.dim_is("x", a.x, 2)
        checks.dim_is("weight", a.weight, 2)
        n, k = a.weight.shape if a.transposeWeight else a.weight.shape[::-1]
        if a.x.shape[1] != k:
            raise status.param_invalid("The k of x [%d] and weight [%d] should be equal." % (a.x.shape[1], k))
        P.out_shape_is(a.out, (a.x.shape[0], n))
        W.narrow_desc(a, "weight")

    def compute(self, a, v, workspace):
        if not v["out"].size:
            return
        x = Q.widen(v["x"])
        if "smoothScaleOptional" in v:
            x = x * Q.widen(v["smoothScaleOptional"]).reshape(-1)
        if "xScaleOptional" in v:
            x_scale = Q.widen(v["xScaleOptional"]).reshape(-1)
            offset = Q.widen(v["xOffsetOptional"]).reshape(-1) if "xOffsetOptional" in v else None
            xq = Q.static_quantize(x, x_scale, offset, Q.INT8, divide=True)
            x_scale = x_scale.reshape(-1, 1) if x_scale.size > 1 else x_scale
        else:
            xq, x_scale = Q.dynamic_rows(x, Q.INT8)
            x_scale = x_scale.reshape(-1, 1)
        weight = W.matrix(v["weight"], a.weight_layout)
        weight = weight.T if a.transposeWeight else weight
        acc = QM.integer_matmul(xq, weight)
        if "biasOptional" in v:
            acc = acc + v["biasOptional"].astype(np.int64).reshape(-1)
        if a.weightScale.dtype == INT64:
            scale = v["weightScale"].astype(np.int32).view(np.float32).reshape(-1)
            result = acc.astype(np.float32) * scale
        else:
            result = acc.astype(np.float32) * Q.widen(v["weightScale"]).reshape(-1) * x_scale
        P.store(v["out"], result)


class MatmulEmuSplitWeight(AclnnOp):
    """y = x @ wHigh + wLowScale · (x @ wLow) with bf16 operands and fp32 sums, y in yDtype (FLOAT or BF16)."""
    name = "aclnnMatmulEmuSplitWeight"
    inputs = ("x", "wHigh", "wLow")
    outputs = ("y",)

    def dtype_table(self):
        return {"x": P.codes("BF16"), "wHigh": P.codes("BF16"), "wLow": P.codes("BF16"), "y": P.codes("FLOAT BF16")}

    def check(self, a):
        checks.not_null(a, "x", "wHigh", "wLow", "y")
        for name in ("x", "wHigh", "wLow"):
            checks.dtype_in(name, getattr(a, name), P.codes("BF16"))
        checks.dtype_in("y", a.y, P.codes("FLOAT BF16"))
        if a.yDtype != a.y.dtype:
            raise status.param_invalid("yDtype %d must be the dtype of y %s." % (a.yDtype,
                                                                                 dtypes.serial_name(a.y.dtype)))
        checks.dim_is("x", a.x, 2)
        checks.dim_is("wHigh", a.wHigh, 2)
        checks.same_shape("wHigh", a.wHigh, "wLow", a.wLow)
        if a.x.shape[1] != a.wHigh.shape[0]:
            raise status.param_invalid("The k of x [%d] and wHigh [%d] should be equal."
                                       % (a.x.shape[1], a.wHigh.shape[0]))
        P.out_shape_is(a.y, (a.x.shape[0], a.wHigh.shape[1]))

    def compute(self, a, v, workspace):
        x = Q.widen(v["x"])
        high = np.matmul(x, Q.widen(v["wHigh"]))
        low = np.matmul(x, Q.widen(v["wLow"]))
        P.store(v["y"], high + np.float32(a.wLowScale) * low)


class ConvertWeightToINT4Pack(AclnnOp):
    """INT32 weight values (each an int4 in [-8, 7]) packed two per byte into weightInt4Pack (INT4, or INT32
    words of eight); FLOAT weights to FLOAT4_E2M1 on the 950; an NZ output gets the FRACTAL_NZ layout."""
    name = "aclnnConvertWeightToINT4Pack"
    inputs = ("weight",)
    outputs = ("weightInt4Pack",)

    def dtype_table(self):
        return {"weight": P.codes("INT32 FLOAT"), "weightInt4Pack": (Q.INT4, Q.INT32, Q.FLOAT4_E2M1)}

    def check(self, a):
        checks.not_null(a, "weight", "weightInt4Pack")
        checks.dtype_in("weight", a.weight, P.codes("INT32 FLOAT"))
        out = a.weightInt4Pack
        allowed = (Q.INT4, Q.INT32) if a.weight.dtype == Q.INT32 else (Q.FLOAT4_E2M1,)
        checks.dtype_in("weightInt4Pack", out, allowed)
        if a.weight.ndim not in (2, 3):
            raise status.param_invalid("weight's dim should be 2 or 3, but got %d." % a.weight.ndim)
        pack = 8 if out.dtype == Q.INT32 else 1
        expected = tuple(a.weight.shape[:-1]) + (a.weight.shape[-1] // pack,)
        if a.weight.shape[-1] % (8 if pack == 8 else 2):
            raise status.param_invalid("The last dim of weight must be a multiple of %d." % (8 if pack == 8 else 2))
        if tuple(out.shape) != expected:
            raise status.param_invalid("The shape of weightInt4Pack should be %s, but got %s."
                                       % (checks.shape_text(expected), checks.shape_text(out.shape)))
        a.nz = fractal_nz.is_nz(out)
        W.narrow_desc(a, "weightInt4Pack")

    def compute(self, a, v, workspace):
        values = v["weight"]
        desc = a.weightInt4Pack_layout
        if a.weight.dtype == Q.INT32:
            codes = values.astype(np.int64).astype(np.int8)
        else:
            codes = Q.quantize(Q.widen(values), Q.FLOAT4_E2M1)
        if a.nz and desc.dtype != Q.INT32:
            flat = fractal_nz.to_nz(codes.view(np.uint8) & 0x0F, fractal_nz.c0_of(desc.dtype))
            from opemu.core import packed
            from opemu.core.tensor import TensorDesc
            packed.store(v["weightInt4Pack"], TensorDesc(desc.dtype, flat.shape, (1,), desc.offset), flat)
            return
        Q.store(v["weightInt4Pack"], desc, codes)
