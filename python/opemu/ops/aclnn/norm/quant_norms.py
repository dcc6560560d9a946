"""Norms fused with the quantisation after them: aclnnRmsNormQuant / V3, aclnnAddRmsNormQuant / V2,
aclnnRmsNormDynamicQuant, aclnnAddRmsNormDynamicQuant / V2, aclnnLayerNormQuant, aclnnAddLayerNormQuant / V2,
aclnnAdaLayerNormQuant, aclnnGroupNormSiluQuant and aclnnRmsNormGradQuant (their op_api files and docs).

The norm is the unfused operator's (rms_common, layer_norm_family, group_norm), its result y kept in fp32
(rounded to the data type first where the unfused kernel's output would be, so a fused call equals the norm
then the quantisation). Static quantisation: round(y / scale + offset) (divMode) or round(y · scale + offset);
dynamic: per row, scale = max|y · smooth| / 127 and round(y · smooth · 127 / max) (common/quantize)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.norm import group_norm as G
from opemu.ops.aclnn.norm import rms_common as R
from opemu.ops.aclnn.norm.add_rms_norm import _sum
from opemu.ops.aclnn.norm.layer_norm_family import layer_rows

B16 = P.codes("FLOAT16 BF16")
NORMAL = P.codes("FLOAT FLOAT16 BF16")
QUANT_OUT = P.codes("INT8")
SCALE_TYPES = P.codes("FLOAT FLOAT16 BF16")
OFFSET_TYPES = P.codes("INT8 INT32 FLOAT FLOAT16 BF16")


def _vector(v, name, n):
    """An optional per-channel (or per-tensor) parameter as fp32 broadcastable over rows of n."""
    if name not in v:
        return None
    values = v[name].astype(np.float32).reshape(-1)
    return values if values.size == n else values[:1]


def _check_params(a, names, n):
    """Per-tensor ([1]) or per-channel (n elements) quantisation parameters."""
    for name in names:
        t = getattr(a, name)
        if t is not None and t.numel() not in (1, n):
            raise status.param_invalid("The shape of %s %s must hold 1 or %d elements."
                                       % (name, checks.shape_text(t.shape), n))


def _check_quant_out(a, names, allowed=QUANT_OUT):
    for name in names:
        if getattr(a, name) is not None:
            checks.dtype_in(name, getattr(a, name), allowed)


def _store_quantized(v, name, desc, values):
    if name in v:
        Q.store(v[name], desc, values.reshape(desc.shape) if desc.dtype != Q.INT32 else values)


class _RmsQuant(AclnnOp):
    """y = rms(x)·γ (+ β), static quantisation into y."""
    x_names = ("x",)
    divide_default = True

    def norm(self, a, v):
        n = R.gamma_cols(a, self.x_names[0])
        if len(self.x_names) == 2:
            total, stored = _sum(R.flat_rows(v["x1"], n), R.flat_rows(v["x2"], n), a.x1.dtype)
        else:
            total = stored = R.flat_rows(v["x"], n)
        rstd = R.rstd_of(total, a.epsilon)
        y = R.scaled(total, rstd, R.flat_rows(v["gamma"], n), getattr(a, self.x_names[0]).dtype)
        beta = self.beta_name(a)
        if beta in v:
            y = y + R.flat_rows(v[beta], n)
        return n, y, rstd, stored

    def beta_name(self, a):
        return "beta"

    def check_norm_inputs(self, a, beta):
        first = self.x_names[0]
        checks.dtype_in(first, getattr(a, first), B16 if self.b16_only else NORMAL)
        for name in self.x_names[1:] + ("gamma",) + ((beta,) if getattr(a, beta, None) is not None else ()):
            checks.dtype_match(name, getattr(a, name), getattr(a, first).dtype)
        for name in self.x_names[1:]:
            checks.same_shape(first, getattr(a, first), name, getattr(a, name))
        R.check_gamma_tail(a, first)
        if getattr(a, beta, None) is not None:
            checks.same_shape("gamma", a.gamma, beta, getattr(a, beta))

    b16_only = False


class RmsNormQuant(_RmsQuant):
    """y = round((rms(x)·γ + β) / scale + offset)."""
    name = "aclnnRmsNormQuant"
    inputs = ("x", "gamma", "beta", "scale", "offset")
    outputs = ("y",)

    def dtype_table(self):
        return {"x": NORMAL, "gamma": NORMAL, "beta": NORMAL, "scale": SCALE_TYPES, "offset": OFFSET_TYPES,
                "y": QUANT_OUT + (Q.INT4,)}

    def check(self, a):
        checks.not_null(a, "x", "gamma", "beta", "scale", "offset", "y")
        for name in ("gamma", "beta"):   # the op_api reshapes a 2-D gamma / beta to its second dim
            t = getattr(a, name)
            if t is not None and t.ndim == 2:
                setattr(a, name, TensorDesc(t.dtype, (t.shape[1],), (t.strides[1],), t.offset, t.format))
        self.check_norm_inputs(a, "beta")
        checks.dtype_in("scale", a.scale, SCALE_TYPES)
        checks.dtype_in("offset", a.offset, OFFSET_TYPES)
        _check_quant_out(a, ("y",), QUANT_OUT + (Q.INT4, Q.INT32))
        n = R.gamma_cols(a)
        _check_params(a, ("scale", "offset"), n)
        if a.y.dtype != Q.INT32:
            checks.same_shape("x", a.x, "y", a.y)
        a.divide = self.divide(a)

    def divide(self, a):
        return True

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n, y, rstd, _ = self.norm(a, v)
        target = Q.INT4 if a.y.dtype == Q.INT32 else a.y.dtype
        q = Q.static_quantize(y, _vector(v, "scale", n), _vector(v, "offset", n), target, a.divide)
        _store_quantized(v, "y", a.y, q)
        if "rstd" in v:
            R.store_rows(v["rstd"], rstd)


class RmsNormQuantV3(RmsNormQuant):
    name = "aclnnRmsNormQuantV3"
    outputs = ("y", "rstd")

    def check(self, a):
        super().check(a)
        if a.outputRstd:
            checks.not_null(a, "rstd")
            checks.dtype_match("rstd", a.rstd, P.FLOAT)
            R.check_rstd(a, "rstd")

    def divide(self, a):
        return bool(a.divMode)


class AddRmsNormQuant(_RmsQuant):
    """x = x1 + x2 (xOut); y1Out/y2Out = static quantisations of rms(x)·γ with scales1/2, zeroPoints1/2."""
    name = "aclnnAddRmsNormQuant"
    inputs = ("x1", "x2", "gamma", "scales1", "scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional")
    outputs = ("y1Out", "y2Out", "xOut")
    x_names = ("x1", "x2")

    def dtype_table(self):
        return {"x1": NORMAL, "x2": NORMAL, "gamma": NORMAL, "scales1": SCALE_TYPES, "scales2Optional": SCALE_TYPES,
                "zeroPoints1Optional": OFFSET_TYPES, "zeroPoints2Optional": OFFSET_TYPES, "y1Out": QUANT_OUT,
                "y2Out": QUANT_OUT, "xOut": NORMAL}

    def beta_name(self, a):
        return "betaOptional"

    def check(self, a):
        checks.not_null(a, "x1", "x2", "gamma", "scales1", "y1Out", "y2Out", "xOut")
        self.check_norm_inputs(a, "betaOptional")
        for name in ("scales1", "scales2Optional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), SCALE_TYPES)
        for name in ("zeroPoints1Optional", "zeroPoints2Optional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), OFFSET_TYPES)
        _check_quant_out(a, ("y1Out", "y2Out"), QUANT_OUT + (Q.INT4,))
        checks.dtype_match("xOut", a.xOut, a.x1.dtype)
        n = R.gamma_cols(a, "x1")
        _check_params(a, ("scales1", "scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional"), n)
        for name in ("y1Out", "y2Out", "xOut"):
            checks.same_shape("x1", a.x1, name, getattr(a, name))

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n, y, _, stored = self.norm(a, v)
        R.store_rows(v["xOut"], stored)
        if "rmsNormOut" in v:
            R.store_rows(v["rmsNormOut"], y)
        for out, scale, offset in (("y1Out", "scales1", "zeroPoints1Optional"),
                                   ("y2Out", "scales2Optional", "zeroPoints2Optional")):
            if scale in v:
                q = Q.static_quantize(y, _vector(v, scale, n), _vector(v, offset, n), getattr(a, out).dtype,
                                      bool(a.divMode))
                _store_quantized(v, out, getattr(a, out), q)


class AddRmsNormQuantV2(AddRmsNormQuant):
    name = "aclnnAddRmsNormQuantV2"
    inputs = AddRmsNormQuant.inputs + ("betaOptional",)
    outputs = ("y1Out", "y2Out", "xOut", "rmsNormOut")

    def check(self, a):
        super().check(a)
        if a.rmsNormOut is not None:
            checks.dtype_match("rmsNormOut", a.rmsNormOut, a.x1.dtype)
            checks.same_shape("x1", a.x1, "rmsNormOut", a.rmsNormOut)


class RmsNormDynamicQuant(_RmsQuant):
    """y = rms(x)·γ (+ β) (· smooth), quantised per row: scaleOut = max|y| / qmax of dstType."""
    name = "aclnnRmsNormDynamicQuant"
    inputs = ("x", "gamma", "smoothScalesOptional", "betaOptional")
    outputs = ("yOut", "scaleOut")
    b16_only = True

    def dtype_table(self):
        return {"x": B16, "gamma": B16, "smoothScalesOptional": B16, "betaOptional": B16,
                "yOut": QUANT_OUT + (Q.INT4,), "scaleOut": [P.FLOAT]}

    def beta_name(self, a):
        return "betaOptional"

    def check(self, a):
        checks.not_null(a, "x", "gamma", "yOut", "scaleOut")
        self.check_norm_inputs(a, "betaOptional")
        if a.smoothScalesOptional is not None:
            checks.dtype_match("smoothScalesOptional", a.smoothScalesOptional, a.x.dtype)
            checks.same_shape("gamma", a.gamma, "smoothScalesOptional", a.smoothScalesOptional)
        outputs = QUANT_OUT + (Q.INT4, Q.INT32, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)
        checks.dtype_in("yOut", a.yOut, outputs)
        if a.yOut.dtype != a.dstType and not (a.yOut.dtype == Q.INT32 and a.dstType == Q.INT4):
            raise status.param_invalid("dstType %d must be the dtype of yOut %s." % (a.dstType, P.dtypes.serial_name(
                a.yOut.dtype)))
        checks.dtype_match("scaleOut", a.scaleOut, P.FLOAT)
        if a.yOut.dtype != Q.INT32:
            checks.same_shape("x", a.x, "yOut", a.yOut)
        rows = a.x.numel() // max(1, R.gamma_cols(a))
        if a.scaleOut.numel() != rows:
            raise status.param_invalid("scaleOut must hold one value per row (%d), but got %s."
                                       % (rows, checks.shape_text(a.scaleOut.shape)))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n, y, _, _ = self.norm(a, v)
        y = R.round_to(y, a.x.dtype)
        if "smoothScalesOptional" in v:
            y = y * R.flat_rows(v["smoothScalesOptional"], n)
        target = Q.INT4 if a.yOut.dtype == Q.INT32 else a.yOut.dtype
        q, scale = Q.dynamic_rows(y, target)
        _store_quantized(v, "yOut", a.yOut, q)
        P.store(v["scaleOut"], scale.reshape(v["scaleOut"].shape))


class AddRmsNormDynamicQuant(_RmsQuant):
    """x = x1 + x2 (xOut); y1Out/scale1Out from rms(x)·γ·smooth1 (or without smoothing), y2Out/scale2Out from
    smooth2 when both smoothings are given."""
    name = "aclnnAddRmsNormDynamicQuant"
    inputs = ("x1", "x2", "gamma", "smoothScale1Optional", "smoothScale2Optional")
    outputs = ("y1Out", "y2Out", "xOut", "scale1Out", "scale2Out")
    x_names = ("x1", "x2")
    b16_only = True

    def dtype_table(self):
        return {"x1": B16, "x2": B16, "gamma": B16, "smoothScale1Optional": B16, "smoothScale2Optional": B16,
                "betaOptional": B16, "y1Out": QUANT_OUT + (Q.INT4,), "y2Out": QUANT_OUT + (Q.INT4,), "xOut": B16,
                "scale1Out": [P.FLOAT], "scale2Out": [P.FLOAT]}

    def beta_name(self, a):
        return "betaOptional"

    def check(self, a):
        checks.not_null(a, "x1", "x2", "gamma", "y1Out", "y2Out", "xOut", "scale1Out", "scale2Out")
        self.check_norm_inputs(a, "betaOptional")
        for name in ("smoothScale1Optional", "smoothScale2Optional"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.x1.dtype)
                checks.same_shape("gamma", a.gamma, name, getattr(a, name))
        if a.smoothScale2Optional is not None and a.smoothScale1Optional is None:
            raise status.param_invalid("smoothScale2Optional needs smoothScale1Optional.")
        _check_quant_out(a, ("y1Out", "y2Out"), QUANT_OUT + (Q.INT4, Q.INT32, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2,
                                                              Q.HIFLOAT8))
        checks.dtype_match("xOut", a.xOut, a.x1.dtype)
        for name in ("scale1Out", "scale2Out"):
            checks.dtype_match(name, getattr(a, name), P.FLOAT)
        for name in ("xOut",) + tuple(n for n in ("y1Out", "y2Out") if getattr(a, n).dtype != Q.INT32):
            checks.same_shape("x1", a.x1, name, getattr(a, name))

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n, y, _, stored = self.norm(a, v)
        y = R.round_to(y, a.x1.dtype)
        R.store_rows(v["xOut"], stored)
        mask = list(getattr(a, "outputMask", None) or [True, True])
        pairs = [("y1Out", "scale1Out", "smoothScale1Optional"), ("y2Out", "scale2Out", "smoothScale2Optional")]
        for (out, scale_out, smooth), wanted in zip(pairs, mask):
            if not wanted or (out == "y2Out" and smooth not in v):
                continue
            values = y * R.flat_rows(v[smooth], n) if smooth in v else y
            desc = getattr(a, out)
            q, scale = Q.dynamic_rows(values, Q.INT4 if desc.dtype == Q.INT32 else desc.dtype)
            _store_quantized(v, out, desc, q)
            P.store(v[scale_out], scale.reshape(v[scale_out].shape))


class AddRmsNormDynamicQuantV2(AddRmsNormDynamicQuant):
    """AddRmsNormDynamicQuant with betaOptional and outputMask (which of y1/y2 to produce)."""
    name = "aclnnAddRmsNormDynamicQuantV2"
    inputs = ("x1", "x2", "gamma", "smoothScale1Optional", "smoothScale2Optional", "betaOptional")

    def check(self, a):
        if a.outputMask is not None and len(a.outputMask) != 2:
            raise status.param_invalid("The size of outputMask must be 2, but got %d." % len(a.outputMask))
        super().check(a)


class LayerNormQuant(AclnnOp):
    """y = LayerNorm(x)·γ + β; quantMode 0: res = round(y / scale + zeroPoints); 1: dynamic per row with
    smoothing `scale` (scaleOut = max|y·scale| / 127)."""
    name = "aclnnLayerNormQuant"
    inputs = ("x", "gammma", "beta", "scale", "zeroPointsOptional")
    outputs = ("res", "scaleOut")

    def dtype_table(self):
        return {"x": NORMAL, "gammma": NORMAL, "beta": NORMAL, "scale": SCALE_TYPES,
                "zeroPointsOptional": OFFSET_TYPES, "res": QUANT_OUT, "scaleOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "gammma", "beta", "scale", "res", "scaleOut")
        checks.dtype_in("x", a.x, NORMAL)
        for name in ("gammma", "beta"):
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        checks.dtype_in("scale", a.scale, SCALE_TYPES)
        if a.zeroPointsOptional is not None:
            checks.dtype_in("zeroPointsOptional", a.zeroPointsOptional, OFFSET_TYPES)
        checks.dtype_in("res", a.res, QUANT_OUT)
        checks.dtype_match("scaleOut", a.scaleOut, P.FLOAT)
        if a.quantMode not in (0, 1):
            raise status.param_invalid("quantMode only supports 0 (static) and 1 (dynamic), but got %d." % a.quantMode)
        R.check_gamma_tail(a, "x", "gammma")
        checks.same_shape("gammma", a.gammma, "beta", a.beta)
        checks.same_shape("x", a.x, "res", a.res)
        _check_params(a, ("scale", "zeroPointsOptional"), R.gamma_cols(a, "x", "gammma"))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n = R.gamma_cols(a, "x", "gammma")
        y, _, _ = layer_rows(R.flat_rows(v["x"], n), a.epsilon, R.flat_rows(v["gammma"], n), R.flat_rows(v["beta"], n))
        y = R.round_to(y, a.x.dtype)
        if a.quantMode == 0:
            q = Q.static_quantize(y, _vector(v, "scale", n), _vector(v, "zeroPointsOptional", n), a.res.dtype, True)
        else:
            q, scale = Q.dynamic_rows(y * _vector(v, "scale", n), a.res.dtype)
            if v["scaleOut"].size == scale.size:
                P.store(v["scaleOut"], scale.reshape(v["scaleOut"].shape))
        _store_quantized(v, "res", a.res, q)
