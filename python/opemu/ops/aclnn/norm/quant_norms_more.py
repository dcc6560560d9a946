"""More norms fused with quantisation: aclnnAddLayerNormQuant / V2, aclnnAdaLayerNormQuant,
aclnnGroupNormSiluQuant and aclnnRmsNormGradQuant (their op_api files and docs); the arithmetic is
quant_norms' (the unfused norm in fp32, then common/quantize)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.norm import group_norm as G
from opemu.ops.aclnn.norm import rms_common as R
from opemu.ops.aclnn.norm.add_rms_norm import RmsNormGrad
from opemu.ops.aclnn.norm.layer_norm_family import AdaLayerNorm, layer_rows
from opemu.ops.aclnn.norm.quant_norms import (NORMAL, OFFSET_TYPES, QUANT_OUT, SCALE_TYPES, _check_params,
                                              _store_quantized, _vector)

DYNAMIC_OUT = QUANT_OUT + (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)


class AddLayerNormQuant(AclnnOp):
    """x = x1 + x2 (+ bias); y = LayerNorm(x)·γ + β; "static": y1/y2 = round(y ÷ or · scales + zeroPoints);
    "dynamic": per-row symmetric quantisation of y · scales (outScales1/2Out)."""
    name = "aclnnAddLayerNormQuant"
    inputs = ("x1", "x2", "gamma", "beta", "biasOptional", "scales1Optional", "scales2Optional",
              "zeroPoints1Optional", "zeroPoints2Optional")
    outputs = ("y1Out", "y2Out", "xOut", "outScales1Out", "outScales2Out")

    def dtype_table(self):
        table = {n: NORMAL for n in ("x1", "x2", "gamma", "beta", "biasOptional", "xOut")}
        table.update((n, SCALE_TYPES) for n in ("scales1Optional", "scales2Optional"))
        table.update((n, OFFSET_TYPES) for n in ("zeroPoints1Optional", "zeroPoints2Optional"))
        table.update((n, QUANT_OUT) for n in ("y1Out", "y2Out"))
        table.update((n, [P.FLOAT]) for n in ("outScales1Out", "outScales2Out"))
        return table

    def check(self, a):
        checks.not_null(a, "x1", "x2", "gamma", "beta", "y1Out", "y2Out", "xOut", "outScales1Out", "outScales2Out")
        checks.dtype_in("x1", a.x1, NORMAL)
        for name in ("x2", "biasOptional", "xOut") + getattr(self, "extra_same", ()):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.x1.dtype)
        for name in ("gamma", "beta"):
            checks.dtype_in(name, getattr(a, name), NORMAL)
        for name in ("scales1Optional", "scales2Optional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), SCALE_TYPES)
        for name in ("zeroPoints1Optional", "zeroPoints2Optional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), OFFSET_TYPES)
        if a.quantMode not in ("static", "dynamic"):
            raise status.param_invalid("quantMode only supports static and dynamic, but got %s." % a.quantMode)
        allowed = QUANT_OUT if a.quantMode == "static" else DYNAMIC_OUT
        for name in ("y1Out", "y2Out"):
            checks.dtype_in(name, getattr(a, name), allowed)
        for name in ("outScales1Out", "outScales2Out"):
            checks.dtype_match(name, getattr(a, name), P.FLOAT)
        if a.quantMode == "static" and a.scales1Optional is None:
            raise status.param_nullptr("Expected a proper Tensor but got null for argument scales1Optional.")
        for name in ("x2", "y1Out", "y2Out", "xOut"):
            checks.same_shape("x1", a.x1, name, getattr(a, name))
        R.check_gamma_tail(a, "x1")
        checks.same_shape("gamma", a.gamma, "beta", a.beta)
        _check_params(a, ("scales1Optional", "scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional"),
                      R.gamma_cols(a, "x1"))

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n = R.gamma_cols(a, "x1")
        x = R.flat_rows(v["x1"], n) + R.flat_rows(v["x2"], n)
        if "biasOptional" in v:
            x = x + R.flat_rows(v["biasOptional"], n)
        y, _, _ = layer_rows(x, a.epsilon, R.flat_rows(v["gamma"], n), R.flat_rows(v["beta"], n))
        y = R.round_to(y, a.x1.dtype)
        if a.additionalOutput:
            R.store_rows(v["xOut"], x)
        if "layernormRes" in v:
            R.store_rows(v["layernormRes"], y)
        pairs = (("y1Out", "scales1Optional", "zeroPoints1Optional", "outScales1Out"),
                 ("y2Out", "scales2Optional", "zeroPoints2Optional", "outScales2Out"))
        for index, (out, scale, zero, scale_out) in enumerate(pairs):
            desc = getattr(a, out)
            if a.quantMode == "static":
                if scale in v:
                    _store_quantized(v, out, desc, Q.static_quantize(y, _vector(v, scale, n), _vector(v, zero, n),
                                                                     desc.dtype, bool(a.divMode)))
            elif index == 0 or scale in v:
                values = y * _vector(v, scale, n) if scale in v else y
                q, row_scale = Q.dynamic_rows(values, desc.dtype)
                _store_quantized(v, out, desc, q)
                if v[scale_out].size == row_scale.size:
                    P.store(v[scale_out], row_scale.reshape(v[scale_out].shape))


class AddLayerNormQuantV2(AddLayerNormQuant):
    """AddLayerNormQuant that also writes the LayerNorm result (layernormRes)."""
    name = "aclnnAddLayerNormQuantV2"
    outputs = ("y1Out", "y2Out", "xOut", "layernormRes", "outScales1Out", "outScales2Out")
    extra_same = ("layernormRes",)


class AdaLayerNormQuant(AdaLayerNorm):
    """y = AdaLayerNorm(x) (· smoothScales), quantised per row: quantScale = max|y| / the target's max."""
    name = "aclnnAdaLayerNormQuant"
    inputs = ("x", "scale", "shift", "weightOptional", "biasOptional", "smoothScalesOptional")
    outputs = ("out", "quantScale", "quantOffsetOptional")

    def dtype_table(self):
        return {n: NORMAL for n in ("x", "scale", "shift", "weightOptional", "biasOptional",
                                    "smoothScalesOptional")} | {"out": DYNAMIC_OUT, "quantScale": [P.FLOAT],
                                                                "quantOffsetOptional": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "scale", "shift", "out", "quantScale")
        quantized = a.out
        a.out = a.x                       # the norm's checks see an out of x's dtype and shape
        super().check(a)
        a.out = quantized
        checks.dtype_in("out", a.out, DYNAMIC_OUT)
        checks.same_shape("x", a.x, "out", a.out)
        checks.dtype_match("quantScale", a.quantScale, P.FLOAT)
        if a.quantMode != "dynamic":
            raise status.param_invalid("quantMode only supports dynamic, but got %s." % a.quantMode)
        if a.smoothScalesOptional is not None:
            checks.dtype_match("smoothScalesOptional", a.smoothScalesOptional, a.x.dtype)
            if a.smoothScalesOptional.numel() != a.x.shape[-1]:
                raise status.param_invalid("smoothScalesOptional must hold H = %d elements." % a.x.shape[-1])
        if a.quantScale.numel() != a.x.numel() // max(a.x.shape[-1], 1):
            raise status.param_invalid("quantScale must hold one value per row, but got %s."
                                       % checks.shape_text(a.quantScale.shape))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        normed = np.empty(a.x.shape, np.float32)
        super().compute(a, dict(v, out=normed), workspace)
        h = a.x.shape[-1]
        y = R.round_to(normed.reshape(-1, h), a.x.dtype)
        if "smoothScalesOptional" in v:
            y = y * R.flat_rows(v["smoothScalesOptional"], h)
        q, scale = Q.dynamic_rows(y, a.out.dtype)
        _store_quantized(v, "out", a.out, q)
        P.store(v["quantScale"], scale.reshape(v["quantScale"].shape))


class GroupNormSiluQuant(G.GroupNormSilu):
    """out = round(silu(GroupNorm(x)) / quantScale) into INT8 (quantScale per channel or per tensor)."""
    name = "aclnnGroupNormSiluQuant"
    inputs = ("self", "gamma", "beta", "quantScale")

    def dtype_table(self):
        return {n: G.supported() for n in ("self", "gamma", "beta", "meanOut", "rstdOut")} | \
            {"quantScale": [P.FLOAT], "out": QUANT_OUT}

    def check(self, a):
        checks.not_null(a, "quantScale")
        quantized = a.out
        a.out = a.self
        super().check(a)
        a.out = quantized
        checks.dtype_in("quantScale", a.quantScale, SCALE_TYPES)
        checks.dtype_in("out", a.out, QUANT_OUT)
        checks.same_shape("out", a.out, "self", a.self)
        if a.quantScale.numel() not in (1, a.self.shape[1]):
            raise status.param_invalid("quantScale must hold 1 or C = %d elements, but got %s."
                                       % (a.self.shape[1], checks.shape_text(a.quantScale.shape)))

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            G.fill_empty_statistics(v, "meanOut", "rstdOut")
            return
        n, c = a.self.shape[0], a.self.shape[1]
        x = v["self"].astype(np.float32).reshape(n, c, -1)
        y, mean, rstd = G.group_forward(x, n, c, a.groups, a.eps, G._optional_fp32(v, "gamma"),
                                        G._optional_fp32(v, "beta"), self.swish(a))
        scale = v["quantScale"].astype(np.float32).reshape(-1)
        scale = scale.reshape(1, c, 1) if scale.size == c else scale[0]
        Q.store(v["out"], a.out, Q.static_quantize(R.round_to(y, a.self.dtype), scale, None, a.out.dtype,
                                                   divide=True).reshape(a.out.shape))
        P.store(v["meanOut"], mean.reshape(v["meanOut"].shape))
        P.store(v["rstdOut"], rstd.reshape(v["rstdOut"].shape))


class RmsNormGradQuant(RmsNormGrad):
    """RmsNormGrad whose dx is quantised: round(dx ÷ or · scalesX + offsetX)."""
    name = "aclnnRmsNormGradQuant"
    inputs = ("dy", "x", "rstd", "gamma", "scalesX", "offsetXOptional")

    def dtype_table(self):
        table = super().dtype_table()
        return table | {"scalesX": SCALE_TYPES, "offsetXOptional": OFFSET_TYPES, "dxOut": QUANT_OUT}

    def check(self, a):
        checks.not_null(a, "scalesX")
        quantized = a.dxOut
        a.dxOut = a.x
        super().check(a)
        a.dxOut = quantized
        checks.dtype_in("scalesX", a.scalesX, SCALE_TYPES)
        if a.offsetXOptional is not None:
            checks.dtype_in("offsetXOptional", a.offsetXOptional, OFFSET_TYPES)
        checks.dtype_in("dxOut", a.dxOut, QUANT_OUT + (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8))
        checks.same_shape("x", a.x, "dxOut", a.dxOut)
        _check_params(a, ("scalesX", "offsetXOptional"), R.gamma_cols(a))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        dx = np.empty(a.x.shape, np.float32)
        super().compute(a, dict(v, dxOut=dx), workspace)
        n = R.gamma_cols(a)
        q = Q.static_quantize(R.round_to(dx.reshape(-1, n), a.x.dtype), _vector(v, "scalesX", n),
                              _vector(v, "offsetXOptional", n), a.dxOut.dtype, bool(a.divMode))
        _store_quantized(v, "dxOut", a.dxOut, q)




class RmsNormDynamicMxQuant(AclnnOp):
    """y = rms(x)·γ (+ β), MX-quantised along the last axis in blocks of 32 (mxscaleOut); rstd when asked (950)."""
    name = "aclnnRmsNormDynamicMxQuant"
    inputs = ("x", "gamma", "beta")
    outputs = ("yOut", "mxscaleOut", "rstdOut")
    x_names = ("x",)

    def dtype_table(self):
        from opemu.ops.aclnn.quant.mx_quant import MX_OUT
        table = {"x": P.codes("FLOAT16 BF16"), "gamma": P.codes("FLOAT16 BF16 FLOAT"),
                 "beta": P.codes("FLOAT16 BF16 FLOAT"), "yOut": MX_OUT, "mxscaleOut": [Q.FLOAT8_E8M0],
                "rstdOut": [P.FLOAT], "x1": P.codes("FLOAT16 BF16"), "x2": P.codes("FLOAT16 BF16"),
                "xOut": P.codes("FLOAT16 BF16")}
        return {n: t for n, t in table.items() if n in self.inputs + self.outputs}

    def check(self, a):
        from opemu.ops.aclnn.common import mx
        from opemu.ops.aclnn.common import products as _products
        from opemu.ops.aclnn.quant.mx_quant import MX_OUT, check_round_mode
        first = self.x_names[0]
        checks.not_null(a, *self.x_names, "gamma", "yOut", "mxscaleOut", *(("xOut",) if first == "x1" else ()))
        x = getattr(a, first)
        checks.dtype_in(first, x, P.codes("FLOAT16 BF16"))
        for name in self.x_names[1:] + (("xOut",) if first == "x1" else ()):
            checks.dtype_match(name, getattr(a, name), x.dtype)
            checks.same_shape(first, x, name, getattr(a, name))
        checks.dtype_in("yOut", a.yOut, MX_OUT)
        if a.yOut.dtype != a.dstType:
            raise status.param_invalid("dstType %d must be the dtype of yOut." % a.dstType)
        checks.dtype_match("mxscaleOut", a.mxscaleOut, Q.FLOAT8_E8M0)
        a.mode = a.roundMode or "rint"
        check_round_mode(a.mode, a.dstType)
        R.check_gamma_tail(a, first)
        checks.same_shape(first, x, "yOut", a.yOut)
        expected = mx.scale_shape(x.shape, -1, 32)
        checks.shape_is("mxscaleOut", a.mxscaleOut, expected, checks.shape_text(expected))
        if a.outputRstd:
            checks.not_null(a, "rstdOut")
            R.check_rstd(a, "rstdOut", first)
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        from opemu.ops.aclnn.common import mx
        first = self.x_names[0]
        x_desc = getattr(a, first)
        if x_desc.is_empty():
            return
        n = R.gamma_cols(a, first)
        if first == "x1":
            from opemu.ops.aclnn.norm.add_rms_norm import _sum
            total, stored = _sum(R.flat_rows(v["x1"], n), R.flat_rows(v["x2"], n), x_desc.dtype)
            R.store_rows(v["xOut"], stored)
        else:
            total = R.flat_rows(v["x"], n)
        rstd = R.rstd_of(total, a.epsilon)
        y = R.scaled(total, rstd, R.flat_rows(v["gamma"], n), x_desc.dtype)
        if "beta" in v:
            y = y + R.flat_rows(v["beta"], n)
        y = R.round_to(y, x_desc.dtype).reshape(x_desc.shape)
        elements, codes = mx.quantize(y, -1, 32, a.yOut.dtype, a.mode, a.scaleAlg)
        mx.store_elements(v["yOut"], a.yOut, elements)
        v["mxscaleOut"][...] = codes.view(v["mxscaleOut"].dtype).reshape(v["mxscaleOut"].shape)
        if a.outputRstd and "rstdOut" in v:
            R.store_rows(v["rstdOut"], rstd)


class AddRmsNormDynamicMxQuant(RmsNormDynamicMxQuant):
    """x = x1 + x2 (xOut), then RmsNormDynamicMxQuant's arithmetic."""
    name = "aclnnAddRmsNormDynamicMxQuant"
    inputs = ("x1", "x2", "gamma", "beta")
    outputs = ("yOut", "xOut", "mxscaleOut", "rstdOut")
    x_names = ("x1", "x2")
