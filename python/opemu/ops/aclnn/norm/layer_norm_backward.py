"""LayerNorm-shaped backward operators: aclnnLayerNormBackward (norm/layer_norm_grad_v3 op_api),
aclnnAddLayerNormGrad and aclnnDeepNormGrad (opbuild operators: their docs) and aclnnAdaLayerNormBackward
(norm/ada_layer_norm_grad op_api).

From the saved mean and rstd, in fp32, each output rounded once: x̂ = (x - mean) · rstd, g = dy · γ,
dx = rstd · (g - mean(g) - x̂ · mean(g · x̂)), dγ = Σ_rows dy · x̂, dβ = Σ_rows dy."""
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import rowwise as _rowwise
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


class LayerNormBackward(AclnnOp):
    """torch's native_layer_norm_backward: the three gradients, each written when its outputMask entry is
    set; a missing weight is ones. Mean and rstd are cast to fp32 (the LayerNormGradV3 path), every output
    cast from fp32 to its own dtype."""
    name = "aclnnLayerNormBackward"
    inputs = ("gradOut", "input", "mean", "rstd", "weightOptional", "biasOptional")
    outputs = ("gradInputOut", "gradWeightOut", "gradBiasOut")

    def dtype_table(self):
        return {n: NORMAL for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "gradOut", "input", "normalizedShape", "mean", "rstd", "outputMask")
        mask = [bool(m) for m in a.outputMask]
        if len(mask) != 3:
            raise status.param_invalid("Expected aclnnLayerNormBackward outputMask len to be 3, but got %d."
                                       % len(mask))
        for flag, name in zip(mask, self.outputs):
            if flag:
                checks.not_null(a, name)
        normalized = tuple(int(d) for d in a.normalizedShape)
        a.begin = max(a.input.ndim - len(normalized), 0)
        a.rows, a.cols = math.prod(a.input.shape[:a.begin]), math.prod(a.input.shape[a.begin:])
        self.check_dtypes(a)
        self.check_shapes(a, mask, normalized)
        a.mask = mask

    def check_dtypes(self, a):
        for name in ("gradOut", "input", "mean", "rstd"):
            checks.dtype_in(name, getattr(a, name), NORMAL)
        checks.same_dtype("gradOut", a.gradOut, "input", a.input)
        if a.weightOptional is not None:
            checks.dtype_in("weightOptional", a.weightOptional, NORMAL)
            if a.weightOptional.dtype != P.FLOAT:
                checks.same_dtype("weightOptional", a.weightOptional, "input", a.input)
        for name in ("biasOptional",) + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), NORMAL)

    def check_shapes(self, a, mask, normalized):
        for name in ("gradOut", "input", "mean", "rstd"):
            checks.max_dim(name, getattr(a, name))
        if len(normalized) > checks.MAX_DIM:
            raise status.param_invalid("Expected aclnnLayerNormBackward normalizedShape len [%d] to not be greater "
                                       "than [%d] but check failed." % (len(normalized), checks.MAX_DIM))
        for flag, name in zip(mask, self.outputs):
            if flag:
                checks.max_dim(name, getattr(a, name))
        if len(normalized) < 1:
            raise status.param_invalid("Expected aclnnLayerNormBackward normalizedShape len [0] to be greater than "
                                       "[1] but check failed.")
        checks.min_dim("input", a.input, len(normalized))
        _normalized_tail_equal(a.input, normalized)
        for name in ("weightOptional", "biasOptional"):
            t = getattr(a, name)
            if t is not None:
                checks.max_dim(name, t)
                checks.dim_is(name, t, len(normalized))
                _normalized_tail_equal(t, normalized)
        checks.same_shape("gradOut", a.gradOut, "input", a.input)
        checks.same_shape("mean", a.mean, "rstd", a.rstd)
        if a.mean.numel() != a.rows:
            raise status.param_invalid("Expected aclnnLayerNormBackward mean shape size %s to be equal to %d but "
                                       "check failed." % (checks.shape_text(a.mean.shape), a.rows))
        if mask[0]:
            checks.same_shape("gradInputOut", a.gradInputOut, "input", a.input)
        for flag, name in zip(mask[1:], self.outputs[1:]):
            if flag and getattr(a, name).numel() != a.cols:
                raise status.param_invalid("Expected aclnnLayerNormBackward %s shape size [%s] to be equal to [%d] "
                                           "but check failed." % (name, checks.shape_text(getattr(a, name).shape),
                                                                  a.cols))
        # the op_api compares only part of input's trailing axes with normalizedShape (its loop starts at the
        # rank difference), so a weight of another size passes it; the kernel could not read such a weight
        if a.weightOptional is not None and a.weightOptional.numel() != a.cols:
            raise status.param_invalid("Expected aclnnLayerNormBackward weightOptional to hold the %d elements of "
                                       "input's normalised axes, but got %s."
                                       % (a.cols, checks.shape_text(a.weightOptional.shape)))

    def compute(self, a, v, workspace):
        if not any(a.mask):
            return
        if a.rows == 0 or a.cols == 0:
            for flag, name in zip(a.mask[1:], self.outputs[1:]):
                if flag and a.rows == 0:
                    v[name][...] = 0
            return
        n, rows, trailing = a.cols, a.rows, a.input.ndim - a.begin
        weight = R.flat_rows(v["weightOptional"], n)[0] if "weightOptional" in v else None
        x, dy = _rowwise.rows_in(v["input"], trailing), _rowwise.rows_in(v["gradOut"], trailing)
        mean, rstd = _row_stat(v, "mean", rows), _row_stat(v, "rstd", rows)
        dx = _rowwise.RowsOut(v["gradInputOut"], trailing) if a.mask[0] else None
        partial = {}

        def block(lo, hi):
            """Rows lo:hi in cache: their dx, and their share of dγ and dβ (added in row order after)."""
            xb, dyb = _rowwise.in_fp32(x[lo:hi], 1), _rowwise.in_fp32(dy[lo:hi], 2)
            xhat = (xb - mean[lo:hi, None]) * rstd[lo:hi, None]
            if dx is not None:
                g = dyb * weight if weight is not None else dyb
                dx.rows[lo:hi] = normalized_backward(g, xhat, rstd[lo:hi, None], 1)
            partial[lo] = (np.add.reduce(dyb * xhat, axis=0, dtype=np.float32),
                           np.add.reduce(dyb, axis=0, dtype=np.float32))

        _rowwise.each_block(rows, n, block)
        if dx is not None:
            dx.finish()
        order = sorted(partial)
        for flag, name, which in zip(a.mask[1:], self.outputs[1:], (0, 1)):
            if flag:
                R.store_rows(v[name], np.add.reduce([partial[lo][which] for lo in order], axis=0,
                                                    dtype=np.float32))


def _normalized_tail_equal(t, normalized):
    """The op_api's CheckShapeEqual as written: normalizedShape[i] against t's axis i + (rank difference), for i
    from the rank difference on; a tensor of normalizedShape's rank is compared whole."""
    axis = t.ndim - len(normalized)
    for i in range(axis, len(normalized)):
        if normalized[i] != t.shape[i + axis]:
            raise status.param_invalid("Expected normalized index [%d] shape [%d] be equal to tensor index [%d] "
                                       "shape [%d], but failed." % (i, normalized[i], i + axis, t.shape[i + axis]))


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
