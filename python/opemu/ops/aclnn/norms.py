"""aclnnRmsNorm (ops-nn norm/rms_norm, an opbuild operator: its checks are the op definition's
dtype combinations and the tiling's shape rules) and aclnnLayerNorm (norm/layer_norm_v4 op_api).

Both normalise over trailing axes in fp32 (fp16/bf16 widened) and round once into each output.
rstd = 1 / sqrt(mean(x²) + eps) (RmsNorm) or 1 / sqrt(var(x) + eps) (LayerNorm, biased variance)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn import _products
from opemu.ops.aclnn import _promotion as P

# (x, gamma, y) dtype combinations of rms_norm_def.cpp; rstd is always FLOAT
RMS_COMBINATIONS = (("FLOAT16", "FLOAT", "FLOAT16"), ("BF16", "FLOAT", "BF16"), ("FLOAT16", "FLOAT16", "FLOAT16"),
                    ("FLOAT", "FLOAT", "FLOAT"), ("BF16", "BF16", "BF16"))
RMS_LINES = ("A2", "A3", "950", "310P")
LAYER_NORM = P.per_product("FLOAT16 FLOAT", "BF16")


def _rms_combinations():
    combos = [tuple(dtypes.acl(n) for n in c) for c in RMS_COMBINATIONS]
    return [c for c in combos if _products.line() != "310P" or P.BF16 not in c]


def _widen(x):
    return x if x.dtype == np.float32 else x.astype(np.float32)


class RmsNorm(AclnnOp):
    name = "aclnnRmsNorm"
    inputs = ("x", "gamma")
    outputs = ("yOut", "rstdOut")
    products = _products.describe(RMS_LINES)

    def dtype_table(self):
        combos = _rms_combinations()
        return {"x": sorted({c[0] for c in combos}), "gamma": sorted({c[1] for c in combos}),
                "yOut": sorted({c[2] for c in combos}), "rstdOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "gamma", "yOut", "rstdOut")
        _products.check_supported(self.name, RMS_LINES)
        combo = (a.x.dtype, a.gamma.dtype, a.yOut.dtype)
        if combo not in _rms_combinations() or a.rstdOut.dtype != P.FLOAT:
            raise status.param_invalid(
                "The dtypes of x %s, gamma %s, yOut %s and rstdOut %s are not a supported combination."
                % tuple(dtypes.serial_name(t.dtype) for t in (a.x, a.gamma, a.yOut, a.rstdOut)))
        tiling = status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"]
        n = a.gamma.ndim
        if not 1 <= a.x.ndim <= 8 or not 1 <= n <= a.x.ndim or a.gamma.is_empty():
            raise status.VendorError(tiling, "RmsNorm tiling: x rank %d and gamma rank %d are not supported "
                                     "(1 <= gamma rank <= x rank <= 8, gamma not empty)." % (a.x.ndim, n))
        if tuple(a.x.shape[a.x.ndim - n:]) != tuple(a.gamma.shape):
            raise status.VendorError(tiling, "RmsNorm tiling: gamma shape %s must equal the last dims of x %s."
                                     % (checks.shape_text(a.gamma.shape), checks.shape_text(a.x.shape)))
        if a.yOut.shape != a.x.shape:
            raise status.VendorError(tiling, "RmsNorm tiling: yOut shape %s must equal x shape %s."
                                     % (checks.shape_text(a.yOut.shape), checks.shape_text(a.x.shape)))
        rstd_shape = tuple(a.x.shape[:a.x.ndim - n]) + (1,) * n
        if a.rstdOut.shape != rstd_shape:
            raise status.VendorError(tiling, "RmsNorm tiling: rstdOut shape %s must be %s."
                                     % (checks.shape_text(a.rstdOut.shape), checks.shape_text(rstd_shape)))
        a.axes = tuple(range(a.x.ndim - n, a.x.ndim))

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        x = _widen(v["x"])
        squares = np.square(x)
        mean = np.mean(squares, axis=a.axes, keepdims=True, dtype=np.float32)
        rstd = np.divide(1, np.sqrt(mean + np.float32(a.epsilon)), dtype=np.float32)
        P.store(v["rstdOut"], rstd)
        y = np.multiply(x, rstd, out=squares)
        y *= _widen(v["gamma"])
        P.store(v["yOut"], y)


class LayerNorm(AclnnOp):
    name = "aclnnLayerNorm"
    inputs = ("input", "weightOptional", "biasOptional")
    outputs = ("out", "meanOutOptional", "rstdOutOptional")

    def dtype_table(self):
        return {name: LAYER_NORM() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "input", "normalizedShape", "out")
        allowed = LAYER_NORM()
        checks.dtype_in("input", a.input, allowed)
        for name in ("weightOptional", "biasOptional"):
            t = getattr(a, name)
            if t is not None:
                checks.dtype_in(name, t, allowed)
                if t.dtype != P.FLOAT:
                    checks.same_dtype(name, t, "input", a.input)
        if a.weightOptional is not None and a.biasOptional is not None:
            checks.same_dtype("weightOptional", a.weightOptional, "biasOptional", a.biasOptional)
        for name in ("out", "meanOutOptional", "rstdOutOptional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.max_dim(name, getattr(a, name))
        shape = tuple(a.normalizedShape)
        if len(shape) > 8:
            raise status.param_invalid("Expected aclnnLayerNorm normalizedShape dim [%d] to not be greater than [8] "
                                       "but check failed." % len(shape))
        if len(shape) < 1:
            raise status.param_invalid("Expected aclnnLayerNorm normalizedShape len [0] to be greater than [1] but "
                                       "check failed.")
        if a.input.ndim < len(shape):
            raise status.param_invalid("The input tensor must have at least %d dimensions." % len(shape))
        for name in ("weightOptional", "biasOptional"):
            if getattr(a, name) is not None:
                checks.dim_is(name, getattr(a, name), len(shape))
        begin = a.input.ndim - len(shape)
        for i, d in enumerate(shape):
            if d != a.input.shape[begin + i]:
                raise status.param_invalid("Expected normalized index [%d] shape [%d] be equal to input index [%d] "
                                           "shape [%d], but failed." % (i, d, begin + i, a.input.shape[begin + i]))
            for name, word in (("weightOptional", "weight"), ("biasOptional", "bias")):
                t = getattr(a, name)
                if t is not None and t.shape[i] != d:
                    raise status.param_invalid("Expected normalized index [%d] shape [%d] be equal to %s index [%d] "
                                               "shape [%d], but failed." % (i, d, word, i, t.shape[i]))
        checks.same_shape("input", a.input, "out", a.out)
        stats = a.input.numel() // max(int(np.prod(shape)), 1) if shape else 0
        for name in ("meanOutOptional", "rstdOutOptional"):
            t = getattr(a, name)
            if t is not None and not t.is_empty() and t.numel() != stats:
                raise status.param_invalid("Expected %s to hold one value per normalized row (%d), but its shape is %s."
                                           % (name, stats, checks.shape_text(t.shape)))
        a.axes = tuple(range(begin, a.input.ndim))

    def compute(self, a, v, workspace):
        if a.input.is_empty():
            return
        x = _widen(v["input"])
        mean = np.mean(x, axis=a.axes, keepdims=True, dtype=np.float32)
        centred = np.subtract(x, mean)
        variance = np.mean(np.square(centred), axis=a.axes, keepdims=True, dtype=np.float32)
        rstd = np.divide(1, np.sqrt(variance + np.float32(a.eps)), dtype=np.float32)
        y = np.multiply(centred, rstd, out=centred)
        if a.weightOptional is not None:
            y *= _widen(v["weightOptional"])
        if a.biasOptional is not None:
            y += _widen(v["biasOptional"])
        P.store(v["out"], y)
        for name, value in (("meanOutOptional", mean), ("rstdOutOptional", rstd)):
            if name in v and v[name].size:
                P.store(v[name], value.reshape(v[name].shape))
