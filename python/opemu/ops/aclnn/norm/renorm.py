"""aclnnRenorm / aclnnInplaceRenorm and aclnnEmbeddingRenorm (norm/renorm op_api), aclnnLinalgVectorNorm
(norm/lp_norm_v2, a row of the reduction family beside aclnnNorm), aclnnQuantizedBatchNorm and
aclnnMaskedSoftmaxWithRelPosBias (their docs).

Renorm: each slice along `dim` whose p-norm exceeds maxNorm is scaled by maxNorm / (norm + 1e-7) (torch's
renorm); the norm is fp32. EmbeddingRenorm applies the same to the rows `indices` names (each row once)."""
import numpy as np

from opemu.core import checks, status, stray
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.reduction import wrap_dim
from opemu.ops.aclnn.norm.batch_norm import invstd_of, per_channel
from opemu.ops.aclnn.norm.lp_norm import NORMABLE, Norm

RENORMABLE = P.per_product("FLOAT FLOAT16", "BF16")


def p_norm(values, p, axis):
    """The p-norm of fp32 values over `axis` (a tuple), as aclnnNorm computes it."""
    a = np.abs(values)
    if p == np.inf:
        return np.max(a, axis=axis, initial=0)
    if p == -np.inf:
        return np.min(a, axis=axis, initial=np.inf)
    if p == 0:
        return np.sum(a != 0, axis=axis, dtype=np.float32)
    if p == 1:
        return np.sum(a, axis=axis, dtype=np.float32)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axis, dtype=np.float32))
    return np.power(np.sum(np.power(a, np.float32(p)), axis=axis, dtype=np.float32), np.float32(1 / p))


def renorm_factors(norms, max_norm):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms > max_norm, np.float32(max_norm) / (norms + np.float32(1e-7)), np.float32(1))


class Renorm(AclnnOp):
    name = "aclnnRenorm"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": RENORMABLE(), "out": RENORMABLE()}

    def check(self, a):
        checks.not_null(a, "self", "p", "maxNorm", *self.outputs)
        checks.dtype_in("self", a.self, RENORMABLE())
        if self.outputs == ("out",):
            checks.dtype_match("out", a.out, a.self.dtype)
            checks.same_shape("self", a.self, "out", a.out)
        checks.max_dim("self", a.self)
        a.p_value, a.max_norm = a.p.to_float(), a.maxNorm.to_float()
        if a.p_value <= 0:
            raise status.param_invalid("p should be greater than 0, but got %s." % a.p_value)
        if a.max_norm < 0:
            raise status.param_invalid("maxnorm should be greater than or equal to 0, but got %s." % a.max_norm)
        if a.self.ndim < 2:
            raise status.param_invalid("self should be at least 2-D, but got %d-D." % a.self.ndim)
        a.axis = wrap_dim(a.dim, a.self.ndim)

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            return
        values = x.astype(np.float32)
        others = tuple(i for i in range(x.ndim) if i != a.axis)
        factors = renorm_factors(p_norm(values, a.p_value, others), a.max_norm)
        P.store(v[self.outputs[0]], values * per_channel(factors, x.shape, a.axis))


class InplaceRenorm(Renorm):
    name = "aclnnInplaceRenorm"
    inputs = ("selfRef",)
    outputs = ("selfRef",)

    def check(self, a):
        a.self = a.selfRef
        super().check(a)

    def compute(self, a, v, workspace):
        super().compute(a, dict(v, self=v["selfRef"]), workspace)


class EmbeddingRenorm(AclnnOp):
    """Rows of selfRef named by indices are rescaled to norm maxNorm when their normType-norm exceeds it."""
    name = "aclnnEmbeddingRenorm"
    inputs = ("selfRef", "indices")
    outputs = ("selfRef",)

    def dtype_table(self):
        return {"selfRef": RENORMABLE(), "indices": P.codes("INT32 INT64")}

    def check(self, a):
        checks.not_null(a, "selfRef", "indices")
        checks.dtype_in("selfRef", a.selfRef, RENORMABLE())
        checks.dtype_in("indices", a.indices, P.codes("INT32 INT64"))
        checks.dim_is("selfRef", a.selfRef, 2)
        checks.max_dim("indices", a.indices)
        if a.maxNorm < 0:
            raise status.param_invalid("maxNorm should be greater than or equal to 0, but got %f." % a.maxNorm)

    def compute(self, a, v, workspace):
        weight = v["selfRef"]
        if weight.size == 0 or v["indices"].size == 0:
            return
        rows = np.unique(v["indices"].astype(np.int64).reshape(-1))   # each row once
        coordinates = (rows[:, None], np.arange(weight.shape[1])[None, :])
        what = "aclnnEmbeddingRenorm: selfRef row"
        values = stray.gather(weight, coordinates, what).astype(np.float32)
        factors = renorm_factors(p_norm(values, a.normType, (1,)), a.maxNorm)
        with np.errstate(over="ignore", invalid="ignore"):
            stray.Scatter(weight, coordinates, what).write((values * factors[:, None]).astype(weight.dtype))


class LinalgVectorNorm(Norm):
    """aclnnNorm's arithmetic with ord, dims, keepDims and the result dtype parameter."""
    name = "aclnnLinalgVectorNorm"
    axes, keep, dtype_param = "dims", "keepDims", "dtype"
    not_null = ("self", "ord", "out")
    allowed = staticmethod(NORMABLE)

    def check_more(self, a):
        a.p = a.ord.to_float()


class QuantizedBatchNorm(AclnnOp):
    """x' = (x - inputZeroPoint) · inputScale; y = (x' - mean) / sqrt(var + eps) · weight + bias;
    output = round(y / outputScale + outputZeroPoint) in input's integer type (NCHW, channel axis 1)."""
    name = "aclnnQuantizedBatchNorm"
    inputs = ("input", "mean", "var", "weight", "bias")
    outputs = ("output",)

    def dtype_table(self):
        ints = P.codes("INT8 UINT8 INT32")
        return {"input": ints, "output": ints} | {n: [P.FLOAT] for n in ("mean", "var", "weight", "bias")}

    def check(self, a):
        checks.not_null(a, "input", "mean", "var", "inputScale", "inputZeroPoint", "outputScale", "outputZeroPoint",
                        "output")
        checks.dtype_in("input", a.input, P.codes("INT8 UINT8 INT32"))
        checks.dtype_match("output", a.output, a.input.dtype)
        for name in ("weight", "bias", "mean", "var"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), P.FLOAT)
        if a.input.ndim != 4:
            raise status.param_invalid("Format only support NCHW.")
        checks.same_shape("input", a.input, "output", a.output)
        c = a.input.shape[1]
        for name in ("weight", "bias", "mean", "var"):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != c):
                raise status.param_invalid("Dim of %s should be one and shape is channel num of input." % name)

    def compute(self, a, v, workspace):
        x = v["input"]
        if x.size == 0:
            return
        c = x.shape[1]
        dequantized = (x.astype(np.float32) - np.float32(a.inputZeroPoint.to_float())) \
            * np.float32(a.inputScale.to_float())
        scale = invstd_of(v["var"].astype(np.float32), a.epsilon)
        if "weight" in v:
            scale = scale * v["weight"].astype(np.float32)
        shift = (v["bias"].astype(np.float32) if "bias" in v else np.zeros(c, np.float32)) \
            - v["mean"].astype(np.float32) * scale
        y = dequantized * per_channel(scale, x.shape, 1) + per_channel(shift, x.shape, 1)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            q = np.rint(y / np.float32(a.outputScale.to_float()) + np.float32(a.outputZeroPoint.to_float()))
        info = np.iinfo(x.dtype)
        P.store(v["output"], np.clip(np.nan_to_num(q), info.min, info.max))


class MaskedSoftmaxWithRelPosBias(AclnnOp):
    """out = softmax(scaleValue · x + attenMask + relativePosBias) over S2; x (B·W, N, S1, S2) or
    (B, W, N, S1, S2), the mask (W, S1, S2) broadcast over B and N, the bias (N, S1, S2) over B and W."""
    name = "aclnnMaskedSoftmaxWithRelPosBias"
    inputs = ("x", "attenMaskOptional", "relativePosBias")
    outputs = ("out",)

    def dtype_table(self):
        return {n: P.per_product("FLOAT FLOAT16", "BF16")() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "x", "relativePosBias", "out")
        allowed = P.per_product("FLOAT FLOAT16", "BF16")()
        checks.dtype_in("x", a.x, allowed)
        for name in ("attenMaskOptional", "relativePosBias", "out"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.x.dtype)
        if a.x.ndim not in (4, 5):
            raise status.param_invalid("x should be 4-D (B*W, N, S1, S2) or 5-D (B, W, N, S1, S2), but got %s."
                                       % checks.shape_text(a.x.shape))
        checks.same_shape("x", a.x, "out", a.out)
        n, s1, s2 = a.x.shape[-3:]
        if a.relativePosBias.numel() != n * s1 * s2 or a.relativePosBias.shape[-2:] != (s1, s2):
            raise status.param_invalid("relativePosBias should be (N, S1, S2) = %s, but got %s."
                                       % (checks.shape_text((n, s1, s2)), checks.shape_text(a.relativePosBias.shape)))
        m = a.attenMaskOptional
        if m is not None:
            w = m.numel() // max(s1 * s2, 1)
            batch = a.x.shape[0] * (a.x.shape[1] if a.x.ndim == 5 else 1)
            if m.shape[-2:] != (s1, s2) or w == 0 or batch % w:
                raise status.param_invalid("attenMaskOptional should be (W, S1, S2), but got %s."
                                           % checks.shape_text(m.shape))

    def compute(self, a, v, workspace):
        x = v["x"]
        if x.size == 0:
            return
        n, s1, s2 = x.shape[-3:]
        values = x.astype(np.float32).reshape(-1, n, s1, s2) * np.float32(a.scaleValue)
        if "attenMaskOptional" in v:
            mask = v["attenMaskOptional"].astype(np.float32).reshape(-1, 1, s1, s2)
            windows = mask.shape[0]
            values = (values.reshape(-1, windows, n, s1, s2) + mask[None]).reshape(values.shape)
        values = values + v["relativePosBias"].astype(np.float32).reshape(1, n, s1, s2)
        values = values - np.max(values, axis=-1, keepdims=True)
        with np.errstate(invalid="ignore"):
            e = np.exp(values)
            P.store(v["out"], (e / np.sum(e, axis=-1, keepdims=True, dtype=np.float32)).reshape(x.shape))
