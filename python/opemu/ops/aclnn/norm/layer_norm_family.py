"""LayerNorm's relatives: aclnnFastLayerNorm and aclnnLayerNormWithImplMode (LayerNorm's op_api,
norm/layer_norm_v4), aclnnAddLayerNorm, aclnnDeepNorm (opbuild operators: their docs), aclnnAdaLayerNorm
and aclnnAdaLayerNormV2 (norm/ada_layer_norm*, op_api).

Statistics and the normalised values are fp32 (fp16/bf16 widened): mean, biased variance, rstd =
1 / sqrt(var + eps); each output is rounded once into its dtype."""
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.norm import norms
from opemu.ops.aclnn.norm import rms_common as R

NORMAL = P.codes("FLOAT FLOAT16 BF16")
HIGH_PRECISION, HIGH_PERFORMANCE, KEEP_FP16 = 0, 1, 2


def statistics(x):
    """(mean, rstd-less centred rows, variance) of fp32 rows."""
    n = x.shape[1]
    mean = np.add.reduce(x, axis=1, dtype=np.float32) / np.float32(n)
    centred = x - mean[:, None]
    variance = np.add.reduce(centred * centred, axis=1, dtype=np.float32) / np.float32(n)
    return mean, centred, variance


def layer_rows(x, eps, gamma=None, beta=None):
    """(y, mean, rstd) of fp32 rows: (x - mean) · rstd [· γ] [+ β]."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mean, centred, variance = statistics(x)
        rstd = (np.float32(1) / np.sqrt(variance + np.float32(eps))).astype(np.float32)
        y = centred * rstd[:, None]
        if gamma is not None:
            y = y * gamma
        if beta is not None:
            y = y + beta
    return y, mean, rstd


class FastLayerNorm(norms.LayerNorm):
    """LayerNorm's contract and checks (the vendor declares it beside aclnnLayerNorm)."""
    name = "aclnnFastLayerNorm"


class LayerNormWithImplMode(norms.LayerNorm):
    name = "aclnnLayerNormWithImplMode"

    def check(self, a):
        super().check(a)
        if a.implMode not in (HIGH_PRECISION, HIGH_PERFORMANCE, KEEP_FP16):
            raise status.param_invalid("Expected implMode to be in [0, 1, 2], but now got [%d]." % a.implMode)
        if a.implMode == KEEP_FP16 and any(t is not None and t.dtype != P.FLOAT16
                                           for t in (a.input, a.weightOptional, a.biasOptional)):
            raise status.param_invalid("KEEP_FP16 only support all input dtype float16!")


def _check_stat(a, name, x, n_axes):
    """mean/rstd outputs: x's leading axes then 1s (or as many elements as rows)."""
    t = getattr(a, name)
    rows = math.prod(x.shape[:x.ndim - n_axes])
    if t is not None and math.prod(t.shape) != rows:
        raise status.param_invalid("Expected tensor for %s to have same size as %s, but got %s."
                                   % (name, checks.shape_text(tuple(x.shape[:x.ndim - n_axes]) + (1,) * n_axes),
                                      checks.shape_text(t.shape)))


class AddLayerNorm(AclnnOp):
    """x = x1 + x2 (+ bias) in fp32; xOut is x rounded when additionalOutput; y = LayerNorm(x)·γ + β."""
    name = "aclnnAddLayerNorm"
    inputs = ("x1", "x2", "gamma", "beta", "biasOptional")
    outputs = ("yOut", "meanOut", "rstdOut", "xOut")

    def dtype_table(self):
        return {n: NORMAL for n in ("x1", "x2", "gamma", "beta", "biasOptional", "yOut", "xOut")} | \
            {"meanOut": [P.FLOAT], "rstdOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "gamma", "beta", "yOut", "meanOut", "rstdOut", *(("xOut",) if a.additionalOutput
                                                                                        else ()))
        for name in ("x1", "x2", "gamma", "beta", "biasOptional", "yOut", "xOut"):
            t = getattr(a, name)
            if t is not None:
                checks.dtype_in(name, t, NORMAL)
        checks.same_dtype("x1", a.x1, "x2", a.x2)
        for name in ("gamma", "beta"):
            if getattr(a, name).dtype not in (a.x1.dtype, P.FLOAT):
                checks.same_dtype(name, getattr(a, name), "x1", a.x1)
        checks.same_dtype("gamma", a.gamma, "beta", a.beta)
        for name in ("biasOptional", "yOut", "xOut"):
            if getattr(a, name) is not None:
                checks.same_dtype(name, getattr(a, name), "x1", a.x1)
        for name in ("meanOut", "rstdOut"):
            checks.dtype_match(name, getattr(a, name), P.FLOAT)
        checks.max_dim("x1", a.x1)
        checks.same_shape("x1", a.x1, "x2", a.x2)
        checks.same_shape("x1", a.x1, "yOut", a.yOut)
        if a.xOut is not None:
            checks.same_shape("x1", a.x1, "xOut", a.xOut)
        R.check_gamma_tail(a, "x1")
        checks.same_shape("gamma", a.gamma, "beta", a.beta)
        if a.biasOptional is not None and a.biasOptional.shape not in (a.gamma.shape, a.x1.shape):
            raise status.param_invalid("The shape of biasOptional %s must be gamma's %s or x1's %s."
                                       % tuple(checks.shape_text(s) for s in (a.biasOptional.shape, a.gamma.shape,
                                                                              a.x1.shape)))
        for name in ("meanOut", "rstdOut"):
            _check_stat(a, name, a.x1, a.gamma.ndim)

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n = R.gamma_cols(a, "x1")
        if a.x1.dtype == P.FLOAT and "biasOptional" not in v:
            from opemu.ops.aclnn.norm.add_rms_norm import fp32_sum
            x = fp32_sum(v["x1"], v["x2"], v["xOut"] if a.additionalOutput and "xOut" in v else None, n)
            R.normalize_fp32(x, a.gamma.ndim, True, a.epsilon, v["gamma"].astype(np.float32),
                             v["beta"].astype(np.float32), v["yOut"], v["meanOut"], v["rstdOut"])
            return
        x = R.flat_rows(v["x1"], n) + R.flat_rows(v["x2"], n)
        if "biasOptional" in v:
            x = x + R.flat_rows(v["biasOptional"], n)
        y, mean, rstd = layer_rows(x, a.epsilon, R.flat_rows(v["gamma"], n), R.flat_rows(v["beta"], n))
        if a.additionalOutput and "xOut" in v:
            R.store_rows(v["xOut"], x)
        R.store_rows(v["meanOut"], mean)
        R.store_rows(v["rstdOut"], rstd)
        R.store_rows(v["yOut"], y)


class DeepNorm(AclnnOp):
    """x' = α·x + gx; y = LayerNorm(x')·γ + β."""
    name = "aclnnDeepNorm"
    inputs = ("x", "gx", "beta", "gamma")
    outputs = ("meanOut", "rstdOut", "yOut")

    def dtype_table(self):
        return {n: NORMAL for n in ("x", "gx", "beta", "gamma", "yOut")} | {"meanOut": [P.FLOAT],
                                                                            "rstdOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "gx", "beta", "gamma", "meanOut", "rstdOut", "yOut")
        checks.dtype_in("x", a.x, NORMAL)
        for name in ("gx", "yOut"):
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        for name in ("beta", "gamma"):
            if getattr(a, name).dtype not in (a.x.dtype, P.FLOAT):
                checks.dtype_match(name, getattr(a, name), a.x.dtype)
        for name in ("meanOut", "rstdOut"):
            checks.dtype_match(name, getattr(a, name), P.FLOAT)
        checks.max_dim("x", a.x)
        checks.same_shape("x", a.x, "gx", a.gx)
        checks.same_shape("x", a.x, "yOut", a.yOut)
        R.check_gamma_tail(a)
        checks.same_shape("gamma", a.gamma, "beta", a.beta)
        for name in ("meanOut", "rstdOut"):
            _check_stat(a, name, a.x, a.gamma.ndim)

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n = R.gamma_cols(a)
        x = R.flat_rows(v["x"], n) * np.float32(a.alpha) + R.flat_rows(v["gx"], n)
        y, mean, rstd = layer_rows(x, a.epsilon, R.flat_rows(v["gamma"], n), R.flat_rows(v["beta"], n))
        R.store_rows(v["meanOut"], mean)
        R.store_rows(v["rstdOut"], rstd)
        R.store_rows(v["yOut"], y)


class AdaLayerNorm(AclnnOp):
    """out = LayerNorm(x)[·w][+b] · (1 + scale) + shift over H; x [B…, S, H], scale/shift [B…, H] or
    [B…, 1, H] broadcast over S."""
    name = "aclnnAdaLayerNorm"
    inputs = ("x", "scale", "shift", "weightOptional", "biasOptional")
    outputs = ("out",)
    stats = ()

    def dtype_table(self):
        table = {n: NORMAL for n in self.inputs + ("out",)}
        table.update((n, NORMAL) for n in self.stats)
        return table

    def check(self, a):
        checks.not_null(a, "x", "scale", "shift", "out")
        checks.dtype_in("x", a.x, NORMAL)
        for name in ("scale", "shift", "weightOptional", "biasOptional", "out"):
            t = getattr(a, name)
            if t is not None:
                checks.dtype_in(name, t, NORMAL)
                if name in ("scale", "shift", "out") or t.dtype != P.FLOAT:
                    checks.dtype_match(name, t, a.x.dtype)
        for name in self.stats:
            t = getattr(a, name)
            if t is not None:
                checks.dtype_match(name, t, a.x.dtype)
        if not 2 <= a.x.ndim <= 8:
            raise status.param_invalid("The dim of x should be in [2, 8], but got %d." % a.x.ndim)
        b, h = tuple(a.x.shape[:-2]), a.x.shape[-1]
        for name in ("scale", "shift"):
            t = getattr(a, name)
            if tuple(t.shape) not in (b + (h,), b + (1, h)):
                raise status.param_invalid("The shape of %s should be %s or %s, but got %s."
                                           % (name, checks.shape_text(b + (h,)), checks.shape_text(b + (1, h)),
                                              checks.shape_text(t.shape)))
        for name in ("weightOptional", "biasOptional"):
            t = getattr(a, name)
            if t is not None and tuple(t.shape) != (h,):
                raise status.param_invalid("The shape of %s should be [%d], but got %s."
                                           % (name, h, checks.shape_text(t.shape)))
        checks.same_shape("x", a.x, "out", a.out)
        for name in self.stats:
            t = getattr(a, name)
            if t is not None and tuple(t.shape) != tuple(a.x.shape[:-1]) + (1,):
                raise status.param_invalid("The shape of %s should be %s, but got %s."
                                           % (name, checks.shape_text(tuple(a.x.shape[:-1]) + (1,)),
                                              checks.shape_text(t.shape)))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        shape, h = a.x.shape, a.x.shape[-1]
        weight, bias = (R.flat_rows(v[n], h) if n in v else None for n in ("weightOptional", "biasOptional"))
        y, mean, rstd = layer_rows(R.flat_rows(v["x"], h), a.epsilon, weight, bias)
        y = R.round_to(y, a.x.dtype).reshape(shape)
        modulation = tuple(shape[:-2]) + (1, h)
        scale = v["scale"].astype(np.float32).reshape(modulation)
        shift = v["shift"].astype(np.float32).reshape(modulation)
        P.store(v["out"], y * (np.float32(1) + scale) + shift)
        for name, value in zip(self.stats, (mean, rstd)):
            if name in v:
                R.store_rows(v[name], value)


class AdaLayerNormV2(AdaLayerNorm):
    name = "aclnnAdaLayerNormV2"
    outputs = ("out", "meanOutOptional", "rstdOutOptional")
    stats = ("meanOutOptional", "rstdOutOptional")
