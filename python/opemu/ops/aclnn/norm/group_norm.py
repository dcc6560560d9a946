"""aclnnGroupNorm (norm/group_norm op_api), aclnnGroupNormSilu / aclnnGroupNormSiluV2 (norm/group_norm_silu
op_api), aclnnGroupNormSwish (opbuild: its doc) and aclnnGroupNormBackward (norm/group_norm_grad op_api).

x (N, C, *) is seen as (N, group, C/group · HxW); each group's mean and biased variance are fp32, rstd =
1 / sqrt(var + eps), y = (x - mean) · rstd · γ_c + β_c, then silu / swish (x · sigmoid(scale · x)) where asked;
y is rounded once into its dtype, mean and rstd into theirs. An empty self fills mean with 0 and rstd with
NaN (the op_api's FillScalar)."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

NORMAL_WITH_BF16 = P.codes("FLOAT16 BF16 FLOAT")
NORMAL = P.codes("FLOAT16 FLOAT")


def supported():
    return NORMAL_WITH_BF16 if _products.line() in ("A2", "A3", "950") else NORMAL


def group_statistics(x, n, group):
    """(mean, rstd-less centred groups, variance) of fp32 x viewed as (n, group, -1)."""
    grouped = x.reshape(n, group, -1)
    count = grouped.shape[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.add.reduce(grouped, axis=2, dtype=np.float32) / np.float32(count)
        centred = grouped - mean[..., None]
        variance = np.add.reduce(centred * centred, axis=2, dtype=np.float32) / np.float32(count)
    return mean, centred, variance


def group_forward(x, n, c, group, eps, gamma, beta, swish_scale=None):
    """(y (n, c, -1) fp32, mean, rstd) of a group norm, with swish(scale) applied when swish_scale is set."""
    mean, centred, variance = group_statistics(x, n, group)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rstd = (np.float32(1) / np.sqrt(variance + np.float32(eps))).astype(np.float32)
        y = (centred * rstd[..., None]).reshape(n, c, -1)
        if gamma is not None:
            y = y * gamma.reshape(1, c, 1)
        if beta is not None:
            y = y + beta.reshape(1, c, 1)
        if swish_scale is not None:
            y = y / (np.float32(1) + np.exp(-np.float32(swish_scale) * y))
    return y, mean, rstd


def fill_empty_statistics(v, mean_name, rstd_name):
    if v[mean_name].size:
        P.store(v[mean_name], np.zeros((), np.float32))
    if v[rstd_name].size:
        P.store(v[rstd_name], np.float32(np.nan))


def _optional_fp32(v, name):
    return v[name].astype(np.float32).reshape(-1) if name in v else None


class GroupNorm(AclnnOp):
    name = "aclnnGroupNorm"
    inputs = ("self", "gamma", "beta")
    outputs = ("out", "meanOut", "rstdOut")

    def dtype_table(self):
        return {name: supported() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "self", "out", "meanOut", "rstdOut")
        checks.dtype_in("self", a.self, supported())
        for name in ("gamma", "beta", "out", "meanOut", "rstdOut"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.self.dtype)
        if a.group <= 0:
            raise status.param_invalid("Expected group to be greater than 0, got %d." % a.group)
        if a.C % a.group != 0:
            raise status.param_invalid("Expected number of channels in input to be divisible by group, but got input "
                                       "of shape %s and group=%d." % (checks.shape_text(a.self.shape), a.group))
        if not a.eps > 0:
            raise status.param_invalid("Expected eps to be greater than 0, got %f." % a.eps)
        checks.min_dim("self", a.self, 2)
        checks.max_dim("self", a.self)
        checks.same_shape("out", a.out, "self", a.self)
        for name in ("meanOut", "rstdOut"):
            checks.shape_is(name, getattr(a, name), (a.N, a.group), checks.shape_text((a.N, a.group)))
        s = a.self.shape
        if s[0] != a.N:
            raise status.param_invalid("Expected self.shape[0] == N to be true, but got false.")
        if s[1] != a.C:
            raise status.param_invalid("Expected self.shape[1] == C to be true, but got false.")
        if math.prod(s[2:]) != a.HxW:
            raise status.param_invalid("Expected the size of self outside the N and C dimensions == HxW to be true, "
                                       "but got false.")
        if math.prod(s) != a.N * a.C * a.HxW:
            raise status.param_invalid("Expected self.numel() == N * C * HxW to be true, but got false.")
        for name in ("gamma", "beta"):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != a.C):
                raise status.param_invalid("Expected %s to be a vector of size equal to the number of channels in "
                                           "input, but got %s of shape %s and input of shape %s."
                                           % (name, name, checks.shape_text(t.shape), checks.shape_text(s)))
        if a.self.format != a.out.format:
            raise status.param_invalid("Format of self and out should be equal, but got self [%d], out [%d]"
                                       % (a.self.format, a.out.format))
        if checks.is_private_format(a.self.format) or a.self.format in _CHANNEL_LAST:
            raise status.param_invalid("Format only support ND、NCL、NCHW、NCDHW.")
        a.groups = a.group

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            fill_empty_statistics(v, "meanOut", "rstdOut")
            return
        n, c = a.self.shape[0], a.self.shape[1]
        if self.swish(a) is None and self.kernel_path(a, v, n, c):
            return
        x = v["self"].astype(np.float32).reshape(n, c, -1)
        y, mean, rstd = group_forward(x, n, c, a.groups, a.eps, _optional_fp32(v, "gamma"), _optional_fp32(v, "beta"),
                                      self.swish(a))
        P.store(v["out"], y.reshape(v["out"].shape))
        P.store(v["meanOut"], mean.reshape(v["meanOut"].shape))
        P.store(v["rstdOut"], rstd.reshape(v["rstdOut"].shape))

    def swish(self, a):
        return None

    def kernel_path(self, a, v, n, c):
        """fp32 channel-major data: a batch norm of the (1, N·G, ·) view, then the per-channel affine, on
        mcDNN's kernels (norm/channel_kernels)."""
        from opemu.ops.aclnn.norm import channel_kernels
        x, out = v["self"], v["out"]
        groups, elements = a.groups, x.size // (n * a.groups)
        ones = np.ones(n * groups)
        stats = channel_kernels.batch_forward(x, out, 1, n * groups, elements, ones, ones * 0, a.eps)
        if stats is None:
            return False
        gamma, beta = _optional_fp32(v, "gamma"), _optional_fp32(v, "beta")
        if gamma is not None or beta is not None:
            a_coef = gamma if gamma is not None else np.ones(c, np.float32)
            b_coef = beta if beta is not None else np.zeros(c, np.float32)
            if not channel_kernels.affine(out, out, n, c, x.size // (n * c), a_coef, b_coef):
                y = out.reshape(n, c, -1) * a_coef.reshape(1, c, 1) + b_coef.reshape(1, c, 1)
                P.store(out, y.reshape(out.shape))
        mean, _, invstd = stats
        P.store(v["meanOut"], mean.reshape(v["meanOut"].shape))
        P.store(v["rstdOut"], invstd.reshape(v["rstdOut"].shape))
        return True


_CHANNEL_LAST = tuple(dtypes.ACL_FORMAT[n] for n in ("ACL_FORMAT_NHWC", "ACL_FORMAT_NDHWC")
                      if n in dtypes.ACL_FORMAT) + (dtypes.ACL_FORMAT.get("ACL_FORMAT_HWCN", -2),)


class GroupNormSilu(GroupNorm):
    """GroupNorm followed by silu; N, C and HxW come from self's shape."""
    name = "aclnnGroupNormSilu"

    def check(self, a):
        checks.not_null(a, "self", "out", "meanOut", "rstdOut")
        allowed = supported()
        checks.dtype_in("self", a.self, allowed)
        for name in ("gamma", "beta"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        if a.gamma is not None and a.beta is not None:
            checks.dtype_match("gamma", a.gamma, a.beta.dtype)
            if a.gamma.dtype not in (a.self.dtype, P.FLOAT):
                raise status.param_invalid("The dtype of gamma must be the same as self or FLOAT")
        checks.dtype_match("out", a.out, a.self.dtype)
        if _products.line() != "950":
            checks.dtype_match("meanOut", a.meanOut, a.self.dtype)
            checks.dtype_match("rstdOut", a.rstdOut, a.self.dtype)
            if a.self.dtype == P.FLOAT:
                for name in ("gamma", "beta"):
                    if getattr(a, name) is not None:
                        checks.dtype_match(name, getattr(a, name), a.self.dtype)
        else:
            for name in ("gamma", "beta"):
                t = getattr(a, name)
                if t is not None and t.dtype != a.self.dtype:
                    checks.dtype_match(name, t, P.FLOAT)
                    checks.dtype_match("meanOut", a.meanOut, t.dtype)
                    checks.dtype_match("rstdOut", a.rstdOut, t.dtype)
        checks.min_dim("self", a.self, 2)
        checks.max_dim("self", a.self)
        checks.same_shape("out", a.out, "self", a.self)
        expected = (a.self.shape[0], a.group)
        for name in ("meanOut", "rstdOut"):
            checks.shape_is(name, getattr(a, name), expected, checks.shape_text(expected))
        for name, word in (("gamma", "weight"), ("beta", "bias")):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != a.self.shape[1]):
                raise status.param_invalid("Expected %s to be a vector of size equal to the number of channels in "
                                           "input, but got weight of shape %s and input of shape %s."
                                           % (word, checks.shape_text(t.shape), checks.shape_text(a.self.shape)))
        if a.group <= 0:
            raise status.param_invalid("Expected group to be greater than 0, got %d." % a.group)
        if _products.line() != "950":
            for axis, label in ((0, "N"), (1, "C")):
                if a.self.shape[axis] <= 0:
                    raise status.param_invalid("Expected %s to be greater than 0, got %d." % (label, a.self.shape[axis]))
        if not a.eps > 0:
            raise status.param_invalid("Expected eps to be greater than 0, got %f." % a.eps)
        if a.self.shape[1] % a.group != 0:
            raise status.param_invalid("Expected number of channels in input to be divisible by group, but got input "
                                       "of shape %s and group=%d." % (checks.shape_text(a.self.shape), a.group))
        a.groups = a.group

    def swish(self, a):
        return 1.0 if getattr(a, "activateSilu", True) else None


class GroupNormSiluV2(GroupNormSilu):
    name = "aclnnGroupNormSiluV2"


class GroupNormSwish(GroupNorm):
    """y = swish(GroupNorm(x)) with swish(v) = v · sigmoid(swishScale · v) when activateSwish; x channels-first
    (dataFormat "NCHW" or absent); mean/rstd (N, numGroups) in x's dtype."""
    name = "aclnnGroupNormSwish"
    inputs = ("x", "gamma", "beta")
    outputs = ("yOut", "meanOut", "rstdOut")

    def check(self, a):
        checks.not_null(a, "x", "gamma", "beta", "yOut", "meanOut", "rstdOut")
        allowed = supported()
        checks.dtype_in("x", a.x, allowed)
        for name in ("gamma", "beta"):
            checks.dtype_in(name, getattr(a, name), allowed)
        checks.dtype_match("beta", a.beta, a.gamma.dtype)
        for name in ("yOut", "meanOut", "rstdOut"):
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        fmt = a.dataFormatOptional
        if fmt not in (None, "NCHW", "ND"):
            raise status.param_invalid("dataFormatOptional only supports NCHW, but got %s." % fmt)
        checks.min_dim("x", a.x, 2)
        checks.max_dim("x", a.x)
        checks.same_shape("yOut", a.yOut, "x", a.x)
        if a.numGroups <= 0 or a.x.shape[1] % a.numGroups:
            raise status.param_invalid("numGroups %d must be positive and divide the channels %d."
                                       % (a.numGroups, a.x.shape[1]))
        expected = (a.x.shape[0], a.numGroups)
        for name in ("meanOut", "rstdOut"):
            checks.shape_is(name, getattr(a, name), expected, checks.shape_text(expected))
        for name in ("gamma", "beta"):
            t = getattr(a, name)
            if t.ndim != 1 or t.shape[0] != a.x.shape[1]:
                raise status.param_invalid("Expected %s to be a vector of size equal to the number of channels in "
                                           "input, but got %s of shape %s and input of shape %s."
                                           % (name, name, checks.shape_text(t.shape), checks.shape_text(a.x.shape)))
        a.self, a.out, a.groups = a.x, a.yOut, a.numGroups

    def compute(self, a, v, workspace):
        super().compute(a, dict(v, self=v["x"], out=v["yOut"]), workspace)

    def swish(self, a):
        return a.swishScale if a.activateSwish else None
