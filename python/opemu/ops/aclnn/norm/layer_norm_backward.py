"""LayerNorm-shaped backward operators: aclnnAddLayerNormGrad and aclnnDeepNormGrad (opbuild operators: their
docs) and aclnnAdaLayerNormBackward (norm/ada_layer_norm_grad op_api).

From the saved mean and rstd, in fp32, each output rounded once: x̂ = (x - mean) · rstd, g = dy · γ,
dx = rstd · (g - mean(g) - x̂ · mean(g · x̂)), dγ = Σ_rows dy · x̂, dβ = Σ_rows dy."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.norm import rms_common as R
from opemu.ops.aclnn.norm.norm_backward import normalized_backward

NORMAL = P.codes("FLOAT FLOAT16 BF16")


def layer_backward(x, dy, mean, rstd, gamma):
    """(dx, dγ, dβ) of fp32 rows (rows, n) given per-row mean and rstd (rows,)."""
    xhat = (x - mean[:, None]) * rstd[:, None]
    g = dy * gamma if gamma is not None else dy
    dx = normalized_backward(g, xhat, rstd[:, None], 1)
    return dx, np.add.reduce(dy * xhat, axis=0, dtype=np.float32), np.add.reduce(dy, axis=0, dtype=np.float32)


def _row_stat(v, name, rows):
    return v[name].astype(np.float32).reshape(rows)


def _check_stats(a, x_name, names, n_axes):
    x = getattr(a, x_name)
    rows = x.numel() // max(1, int(np.prod(x.shape[x.ndim - n_axes:])))
    for name in names:
        if getattr(a, name).numel() != rows:
            raise status.param_invalid("Expected %s to hold one value per normalised row (%d), but got %s."
                                       % (name, rows, checks.shape_text(getattr(a, name).shape)))


class AddLayerNormGrad(AclnnOp):
    """x = x1 + x2; dxOut = LayerNorm's input gradient (+ dsumOptional), the gradient of both x1 and x2."""
    name = "aclnnAddLayerNormGrad"
    inputs = ("dy", "x1", "x2", "rstd", "mean", "gamma", "dsumOptional")
    outputs = ("dxOut", "dgammaOut", "dbetaOut")

    def dtype_table(self):
        return {n: NORMAL for n in ("dy", "x1", "x2", "gamma", "dsumOptional", "dxOut")} | \
            {n: [P.FLOAT] for n in ("rstd", "mean", "dgammaOut", "dbetaOut")}

    def check(self, a):
        checks.not_null(a, "dy", "x1", "x2", "rstd", "mean", "gamma", "dxOut", "dgammaOut", "dbetaOut")
        checks.dtype_in("x1", a.x1, NORMAL)
        for name in ("dy", "x2", "dsumOptional", "dxOut"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.x1.dtype)
        if a.gamma.dtype not in (a.x1.dtype, P.FLOAT):
            checks.dtype_match("gamma", a.gamma, a.x1.dtype)
        for name in ("rstd", "mean", "dgammaOut", "dbetaOut"):
            checks.dtype_match(name, getattr(a, name), P.FLOAT)
        for name in ("x1", "x2", "dxOut") + (("dsumOptional",) if a.dsumOptional is not None else ()):
            checks.same_shape("dy", a.dy, name, getattr(a, name))
        R.check_gamma_tail(a, "x1")
        for name in ("dgammaOut", "dbetaOut"):
            checks.same_shape(name, getattr(a, name), "gamma", a.gamma)
        _check_stats(a, "x1", ("rstd", "mean"), a.gamma.ndim)

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n = R.gamma_cols(a, "x1")
        x = R.flat_rows(v["x1"], n) + R.flat_rows(v["x2"], n)
        rows = x.shape[0]
        dx, dgamma, dbeta = layer_backward(x, R.flat_rows(v["dy"], n), _row_stat(v, "mean", rows),
                                           _row_stat(v, "rstd", rows), R.flat_rows(v["gamma"], n))
        if "dsumOptional" in v:
            dx = dx + R.flat_rows(v["dsumOptional"], n)
        R.store_rows(v["dxOut"], dx)
        R.store_rows(v["dgammaOut"], dgamma)
        R.store_rows(v["dbetaOut"], dbeta)


class DeepNormGrad(AclnnOp):
    """x' = α·x + gx: dgx = LayerNorm's input gradient, dx = α · dgx."""
    name = "aclnnDeepNormGrad"
    inputs = ("dy", "x", "gx", "gamma", "mean", "rstd")
    outputs = ("dxOut", "dgxOut", "dbetaOut", "dgammaOut")

    def dtype_table(self):
        return {n: NORMAL for n in ("dy", "x", "gx", "gamma", "dxOut", "dgxOut")} | \
            {n: [P.FLOAT] for n in ("mean", "rstd", "dbetaOut", "dgammaOut")}

    def check(self, a):
        checks.not_null(a, *(self.inputs + self.outputs))
        checks.dtype_in("x", a.x, NORMAL)
        for name in ("dy", "gx", "dxOut", "dgxOut"):
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        if a.gamma.dtype not in (a.x.dtype, P.FLOAT):
            checks.dtype_match("gamma", a.gamma, a.x.dtype)
        for name in ("mean", "rstd", "dbetaOut", "dgammaOut"):
            checks.dtype_match(name, getattr(a, name), P.FLOAT)
        for name in ("x", "gx", "dxOut", "dgxOut"):
            checks.same_shape("dy", a.dy, name, getattr(a, name))
        R.check_gamma_tail(a)
        for name in ("dbetaOut", "dgammaOut"):
            checks.same_shape(name, getattr(a, name), "gamma", a.gamma)
        _check_stats(a, "x", ("mean", "rstd"), a.gamma.ndim)

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n = R.gamma_cols(a)
        x = R.flat_rows(v["x"], n) * np.float32(a.alpha) + R.flat_rows(v["gx"], n)
        rows = x.shape[0]
        dgx, dgamma, dbeta = layer_backward(x, R.flat_rows(v["dy"], n), _row_stat(v, "mean", rows),
                                            _row_stat(v, "rstd", rows), R.flat_rows(v["gamma"], n))
        R.store_rows(v["dgxOut"], dgx)
        R.store_rows(v["dxOut"], dgx * np.float32(a.alpha))
        R.store_rows(v["dgammaOut"], dgamma)
        R.store_rows(v["dbetaOut"], dbeta)


class AdaLayerNormBackward(AclnnOp):
    """out = LN(x)·(1 + scale) + shift with LN(x) = x̂·w + b: gradShift = Σ_S dy, gradScale = Σ_S dy·LN(x),
    then LayerNorm's gradients of dy·(1 + scale)."""
    name = "aclnnAdaLayerNormBackward"
    inputs = ("gradOut", "input", "rstd", "mean", "scale", "shift", "weightOptional", "biasOptional")
    outputs = ("gradInputOut", "gradScaleOut", "gradShiftOut", "gradWeightOut", "gradBiasOut")

    def dtype_table(self):
        return {n: NORMAL for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "gradOut", "input", "normalizedShape", "rstd", "mean", "scale", "shift", *self.outputs)
        checks.dtype_in("input", a.input, NORMAL)
        for name in ("gradOut", "scale", "shift", "gradInputOut", "gradScaleOut", "gradShiftOut"):
            checks.dtype_match(name, getattr(a, name), a.input.dtype)
        for name in ("rstd", "mean", "weightOptional", "biasOptional", "gradWeightOut", "gradBiasOut"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), NORMAL)
        shape = tuple(a.normalizedShape)
        if len(shape) != 1 or a.input.ndim < 2 or a.input.shape[-1] != shape[0]:
            raise status.param_invalid("normalizedShape %s must be the last dim of input %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.input.shape)))
        checks.same_shape("gradOut", a.gradOut, "input", a.input)
        checks.same_shape("gradInputOut", a.gradInputOut, "input", a.input)
        b, h = tuple(a.input.shape[:-2]), a.input.shape[-1]
        for name in ("scale", "shift", "gradScaleOut", "gradShiftOut"):
            if tuple(getattr(a, name).shape) not in (b + (h,), b + (1, h)):
                raise status.param_invalid("The shape of %s should be %s or %s, but got %s."
                                           % (name, checks.shape_text(b + (h,)), checks.shape_text(b + (1, h)),
                                              checks.shape_text(getattr(a, name).shape)))
        for name in ("weightOptional", "biasOptional", "gradWeightOut", "gradBiasOut"):
            t = getattr(a, name)
            if t is not None and tuple(t.shape) != (h,):
                raise status.param_invalid("The shape of %s should be [%d], but got %s."
                                           % (name, h, checks.shape_text(t.shape)))
        _check_stats(a, "input", ("rstd", "mean"), 1)

    def compute(self, a, v, workspace):
        if a.input.is_empty():
            return
        shape, h = a.input.shape, a.input.shape[-1]
        modulation = tuple(shape[:-2]) + (1, h)
        x = R.flat_rows(v["input"], h)
        rows = x.shape[0]
        mean, rstd = _row_stat(v, "mean", rows), _row_stat(v, "rstd", rows)
        weight = R.flat_rows(v["weightOptional"], h) if "weightOptional" in v else None
        bias = R.flat_rows(v["biasOptional"], h) if "biasOptional" in v else np.float32(0)
        xhat = (x - mean[:, None]) * rstd[:, None]
        normed = (xhat * weight if weight is not None else xhat) + bias
        dy = v["gradOut"].astype(np.float32)
        batch_axis = len(shape) - 2
        scale = v["scale"].astype(np.float32).reshape(modulation)
        P.store(v["gradShiftOut"], dy.sum(axis=batch_axis, keepdims=True, dtype=np.float32)
                .reshape(v["gradShiftOut"].shape))
        P.store(v["gradScaleOut"], (dy * normed.reshape(shape)).sum(axis=batch_axis, keepdims=True, dtype=np.float32)
                .reshape(v["gradScaleOut"].shape))
        dln = (dy * (np.float32(1) + scale)).reshape(rows, h)
        dx, dweight, dbias = layer_backward(x, dln, mean, rstd, weight)
        R.store_rows(v["gradInputOut"], dx)
        R.store_rows(v["gradWeightOut"], dweight)
        R.store_rows(v["gradBiasOut"], dbias)
