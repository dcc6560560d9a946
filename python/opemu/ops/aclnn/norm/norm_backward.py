"""The norms' backward: aclnnBatchNormBackward / aclnnFastBatchNormBackward (norm/batch_norm_grad_v3 op_api),
aclnnBatchNormReduceBackward and aclnnBatchNormElemtBackward (the sync-BN pair), aclnnGroupNormBackward
(norm/group_norm_grad op_api) and aclnnGroupNormSwishGrad (its doc).

All in fp32 from the saved statistics, each output rounded once. With x̂ = (x - mean) · invstd over a
normalised set of n elements and g the incoming gradient scaled by γ:
    dx = invstd · (g - mean(g) - x̂ · mean(g · x̂)),  dγ = Σ dy · x̂,  dβ = Σ dy."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.norm import batch_norm as B
from opemu.ops.aclnn.norm import group_norm as G


def mask_of(a, count=3):
    mask = list(a.outputMask) if a.outputMask is not None else [True] * count
    if len(mask) != count:
        raise status.param_invalid("The size of outputMask must be %d, but got %d." % (count, len(mask)))
    return mask


def normalized_backward(g, xhat, invstd, axis):
    """invstd · (g - mean(g) - x̂ · mean(g · x̂)) with the means over `axis` (keepdims)."""
    mean_g = np.mean(g, axis=axis, keepdims=True, dtype=np.float32)
    mean_gx = np.mean(g * xhat, axis=axis, keepdims=True, dtype=np.float32)
    return invstd * (g - mean_g - xhat * mean_gx)


class BatchNormBackward(AclnnOp):
    name = "aclnnBatchNormBackward"
    inputs = ("gradOut", "input", "weight", "runningMean", "runningVar", "saveMean", "saveInvstd")
    outputs = ("gradInput", "gradWeight", "gradBias")

    def dtype_table(self):
        return {n: B.supported() for n in self.inputs + self.outputs}

    def check(self, a):
        mask = mask_of(a)
        checks.not_null(a, "gradOut", "input")
        for flag, name in zip(mask, self.outputs):
            if flag:
                checks.not_null(a, name)
        allowed = B.supported()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        checks.min_dim("input", a.input, 2)
        checks.max_dim("input", a.input)
        checks.same_shape("gradOut", a.gradOut, "input", a.input)
        if mask[0]:
            checks.same_shape("gradInput", a.gradInput, "input", a.input)
        a.axis = B.channel_axis(a.input)
        c = a.input.shape[a.axis]
        for name in ("weight", "runningMean", "runningVar", "saveMean", "saveInvstd") + self.outputs[1:]:
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != c):
                raise status.param_invalid("Dim of %s should be one and shape is channel num of input." % name)
        stats = ("saveMean", "saveInvstd") if a.training else ("runningMean", "runningVar")
        checks.not_null(a, *stats)
        a.mask = mask

    def compute(self, a, v, workspace):
        x, dy = v["input"], v["gradOut"]
        c = x.shape[a.axis]
        if a.training and a.axis == 1 and a.mask[0] and x.size and self.kernel_path(a, v, x, dy, c):
            return
        rows, grads = B.channels_first(x, a.axis), B.channels_first(dy, a.axis)
        if a.training:
            mean, invstd = (v[n].astype(np.float32).reshape(-1) for n in ("saveMean", "saveInvstd"))
        else:
            mean = v["runningMean"].astype(np.float32).reshape(-1)
            invstd = B.invstd_of(v["runningVar"].astype(np.float32).reshape(-1), a.eps)
        weight = B._vector(v, "weight", c, 1)
        xhat = (rows - mean[:, None]) * invstd[:, None]
        if a.mask[0]:
            if a.training and rows.shape[1]:
                dx = normalized_backward(grads * weight[:, None], xhat, invstd[:, None], 1)
            else:
                dx = grads * (weight * invstd)[:, None]
            moved = np.moveaxis(dx.reshape((c,) + tuple(np.delete(x.shape, a.axis))), 0, a.axis)
            P.store(v["gradInput"], moved)
        if a.mask[1]:
            P.store(v["gradWeight"], np.add.reduce(grads * xhat, axis=1, dtype=np.float32))
        if a.mask[2]:
            P.store(v["gradBias"], np.add.reduce(grads, axis=1, dtype=np.float32))

    def kernel_path(self, a, v, x, dy, c):
        """Training on fp32 channel-major data: mcDNN's batch-norm backward kernel from the saved statistics
        (norm/channel_kernels; its sums in float64, within fp32 rounding of the fp32 formula above)."""
        from opemu.ops.aclnn.norm import channel_kernels
        n = x.shape[0]
        sums = channel_kernels.batch_backward(x, dy, v["gradInput"], n, c, x.size // (n * c),
                                              B._vector(v, "weight", c, 1), v["saveMean"], v["saveInvstd"], a.eps)
        if sums is None:
            return False
        for flag, name, values in zip(a.mask[1:], ("gradWeight", "gradBias"), sums):
            if flag:
                P.store(v[name], values)
        return True


class FastBatchNormBackward(BatchNormBackward):
    """BatchNormBackward's contract; `version` picks the vendor's kernel template, not the arithmetic."""
    name = "aclnnFastBatchNormBackward"


class BatchNormReduceBackward(AclnnOp):
    """sumDy = Σ dy, sumDyXmu = Σ dy · (x - mean), gradWeight = sumDyXmu · invstd, gradBias = Σ dy per channel."""
    name = "aclnnBatchNormReduceBackward"
    inputs = ("gradOut", "input", "mean", "invstd", "weight")
    outputs = ("sumDy", "sumDyXmu", "gradWeight", "gradBias")

    def dtype_table(self):
        return {n: B.supported() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "gradOut", "input", "mean", "invstd")
        wanted = [("sumDy", a.inputG), ("sumDyXmu", a.inputG), ("gradWeight", a.weightG), ("gradBias", a.biasG)]
        for name, flag in wanted:
            if flag:
                checks.not_null(a, name)
        if a.weightG:
            checks.not_null(a, "weight")
        allowed = B.supported()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        checks.min_dim("input", a.input, 2)
        checks.same_shape("gradOut", a.gradOut, "input", a.input)
        c = a.input.shape[1]
        for name in ("mean", "invstd", "weight") + self.outputs:
            t = getattr(a, name)
            if t is not None:
                checks.shape_is(name, t, (c,), checks.shape_text((c,)))

    def compute(self, a, v, workspace):
        rows, grads = B.channels_first(v["input"], 1), B.channels_first(v["gradOut"], 1)
        mean, invstd = (v[n].astype(np.float32).reshape(-1) for n in ("mean", "invstd"))
        sum_dy = np.add.reduce(grads, axis=1, dtype=np.float32)
        sum_dy_xmu = np.add.reduce(grads * (rows - mean[:, None]), axis=1, dtype=np.float32)
        if a.inputG:
            P.store(v["sumDy"], sum_dy)
            P.store(v["sumDyXmu"], sum_dy_xmu)
        if a.weightG:
            P.store(v["gradWeight"], sum_dy_xmu * invstd)
        if a.biasG:
            P.store(v["gradBias"], sum_dy)


COUNTER = P.codes("FLOAT FLOAT16 INT32")


class BatchNormElemtBackward(AclnnOp):
    """gradInput = (dy - sumDy/n - (x - mean) · invstd² · sumDyXmu/n) · invstd · weight, n = Σ counter."""
    name = "aclnnBatchNormElemtBackward"
    inputs = ("gradOut", "input", "mean", "invstd", "weight", "sumDy", "sumDyXmu", "counter")
    outputs = ("gradInput",)

    def dtype_table(self):
        return {n: B.supported() for n in self.inputs + self.outputs if n != "counter"} | {"counter": COUNTER}

    def check(self, a):
        checks.not_null(a, "gradOut", "input", "mean", "invstd", "sumDy", "sumDyXmu", "counter", "gradInput")
        allowed = B.supported()
        for name in self.inputs + self.outputs:
            t = getattr(a, name)
            if t is not None and name != "counter":
                checks.dtype_in(name, t, allowed)
        checks.dtype_in("counter", a.counter, COUNTER)
        checks.min_dim("input", a.input, 2)
        checks.same_shape("gradOut", a.gradOut, "input", a.input)
        checks.same_shape("gradInput", a.gradInput, "input", a.input)
        c = a.input.shape[1]
        for name in ("mean", "invstd", "weight", "sumDy", "sumDyXmu"):
            t = getattr(a, name)
            if t is not None:
                checks.shape_is(name, t, (c,), checks.shape_text((c,)))

    def compute(self, a, v, workspace):
        x = v["input"]
        if x.size == 0:
            return
        c = x.shape[1]
        n = np.float32(v["counter"].astype(np.float64).sum())
        mean, invstd, sum_dy, sum_dy_xmu = (v[k].astype(np.float32).reshape(-1)
                                            for k in ("mean", "invstd", "sumDy", "sumDyXmu"))
        weight = B._vector(v, "weight", c, 1)
        shape = x.shape
        with np.errstate(divide="ignore", invalid="ignore"):
            dx = (v["gradOut"].astype(np.float32) - B.per_channel(sum_dy / n, shape, 1)
                  - (x.astype(np.float32) - B.per_channel(mean, shape, 1))
                  * B.per_channel(invstd * invstd * sum_dy_xmu / n, shape, 1)) * B.per_channel(invstd * weight, shape, 1)
        P.store(v["gradInput"], dx)


class GroupNormBackward(AclnnOp):
    name = "aclnnGroupNormBackward"
    inputs = ("gradOut", "input", "mean", "rstd", "gamma")
    outputs = ("gradInput", "gradGammaOut", "gradBetaOut")

    def dtype_table(self):
        return {n: G.supported() for n in self.inputs + self.outputs}

    def check(self, a):
        mask = mask_of(a)
        checks.not_null(a, "gradOut", "input", "mean", "rstd")
        for flag, name in zip(mask, self.outputs):
            if flag:
                checks.not_null(a, name)
        allowed = G.supported()
        checks.dtype_in("input", a.input, allowed)
        for name in ("gradOut", "mean", "rstd", "gamma") + self.outputs:
            t = getattr(a, name)
            if t is not None:
                checks.dtype_match(name, t, a.input.dtype)
        if a.group <= 0 or a.C % a.group:
            raise status.param_invalid("Expected number of channels in input to be divisible by group, but got input "
                                       "of shape %s and group=%d." % (checks.shape_text(a.input.shape), a.group))
        checks.min_dim("input", a.input, 2)
        checks.same_shape("gradOut", a.gradOut, "input", a.input)
        if a.input.shape[0] != a.N or a.input.shape[1] != a.C or a.input.numel() != a.N * a.C * a.HxW:
            raise status.param_invalid("Expected input.numel() == N * C * HxW with shape [N, C, ...], but got %s."
                                       % checks.shape_text(a.input.shape))
        for name in ("mean", "rstd"):
            if getattr(a, name).numel() != a.N * a.group:
                raise status.param_invalid("Expected %s to have N * group = %d elements, but got %s."
                                           % (name, a.N * a.group, checks.shape_text(getattr(a, name).shape)))
        for name in ("gamma", "gradGammaOut", "gradBetaOut"):
            t = getattr(a, name)
            if t is not None and t.numel() != a.C:
                raise status.param_invalid("Expected %s to have C = %d elements, but got %s."
                                           % (name, a.C, checks.shape_text(t.shape)))
        if mask[0]:
            checks.same_shape("gradInput", a.gradInput, "input", a.input)
        a.mask = mask

    def compute(self, a, v, workspace):
        if a.input.is_empty():
            for flag, name in zip(a.mask[1:], self.outputs[1:]):
                if flag and v[name].size:
                    P.store(v[name], np.zeros((), np.float32))
            return
        group_backward(a, v, a.N, a.C, a.group, v["gradOut"].astype(np.float32), "gradInput", "gradGammaOut",
                       "gradBetaOut", a.mask)


def group_backward(a, v, n, c, group, dy, dx_name, dgamma_name, dbeta_name, mask):
    """GroupNorm's gradients from fp32 dy (n, c, …) into the named outputs (mask: which)."""
    x = v["input" if "input" in v else "x"].astype(np.float32).reshape(n, c, -1)
    dy = dy.reshape(n, c, -1)
    mean = v["mean"].astype(np.float32).reshape(n, group, 1)
    rstd = v["rstd"].astype(np.float32).reshape(n, group, 1)
    grouped = x.reshape(n, group, -1)
    xhat = ((grouped - mean) * rstd).reshape(n, c, -1)
    if mask[0]:
        gamma = v["gamma"].astype(np.float32).reshape(1, c, 1) if "gamma" in v else np.float32(1)
        g = (dy * gamma).reshape(n, group, -1)
        dx = normalized_backward(g, xhat.reshape(n, group, -1), rstd, 2)
        P.store(v[dx_name], dx.reshape(v[dx_name].shape))
    if mask[1]:
        P.store(v[dgamma_name], np.add.reduce((dy * xhat).sum(axis=2, dtype=np.float32), axis=0,
                                              dtype=np.float32).reshape(v[dgamma_name].shape))
    if mask[2]:
        P.store(v[dbeta_name], np.add.reduce(dy.sum(axis=2, dtype=np.float32), axis=0,
                                             dtype=np.float32).reshape(v[dbeta_name].shape))


class GroupNormSwishGrad(AclnnOp):
    """The gradient through y = z · sigmoid(s · z), z = GroupNorm(x)·γ + β: dz = dy · (σ + s·z·σ·(1 - σ)), then
    GroupNorm's backward."""
    name = "aclnnGroupNormSwishGrad"
    inputs = ("dy", "mean", "rstd", "x", "gamma", "beta")
    outputs = ("dxOut", "dgammaOut", "dbetaOut")

    def dtype_table(self):
        return {n: G.supported() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "dy", "mean", "rstd", "x", "gamma", "beta", "dxOut")
        allowed = G.supported()
        checks.dtype_in("x", a.x, allowed)
        for name in ("dy", "mean", "rstd", "dxOut"):
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        for name in ("gamma", "beta", "dgammaOut", "dbetaOut"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        if a.dataFormatOptional not in (None, "NCHW", "ND"):
            raise status.param_invalid("dataFormatOptional only supports NCHW, but got %s." % a.dataFormatOptional)
        checks.min_dim("x", a.x, 2)
        checks.same_shape("dy", a.dy, "x", a.x)
        checks.same_shape("dxOut", a.dxOut, "x", a.x)
        c = a.x.shape[1]
        if a.numGroups <= 0 or c % a.numGroups:
            raise status.param_invalid("numGroups %d must be positive and divide the channels %d." % (a.numGroups, c))
        for name in ("mean", "rstd"):
            if getattr(a, name).numel() != a.x.shape[0] * a.numGroups:
                raise status.param_invalid("Expected %s to have N * numGroups elements, but got %s."
                                           % (name, checks.shape_text(getattr(a, name).shape)))
        for name in ("gamma", "beta", "dgammaOut", "dbetaOut"):
            t = getattr(a, name)
            if t is not None and t.numel() != c:
                raise status.param_invalid("Expected %s to have C = %d elements, but got %s."
                                           % (name, c, checks.shape_text(t.shape)))
        if a.dgammaIsRequire:
            checks.not_null(a, "dgammaOut")
        if a.dbetaIsRequire:
            checks.not_null(a, "dbetaOut")

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n, c, groups = a.x.shape[0], a.x.shape[1], a.numGroups
        x = v["x"].astype(np.float32).reshape(n, c, -1)
        mean = v["mean"].astype(np.float32).reshape(n, groups, 1)
        rstd = v["rstd"].astype(np.float32).reshape(n, groups, 1)
        xhat = ((x.reshape(n, groups, -1) - mean) * rstd).reshape(n, c, -1)
        z = xhat * v["gamma"].astype(np.float32).reshape(1, c, 1) + v["beta"].astype(np.float32).reshape(1, c, 1)
        scale = np.float32(a.swishScale)
        with np.errstate(over="ignore"):
            sigma = np.float32(1) / (np.float32(1) + np.exp(-scale * z))
        dz = v["dy"].astype(np.float32).reshape(n, c, -1) * (sigma + scale * z * sigma * (np.float32(1) - sigma))
        views = dict(v, input=v["x"])
        group_backward(a, views, n, c, groups, dz, "dxOut", "dgammaOut", "dbetaOut",
                       [True, bool(a.dgammaIsRequire), bool(a.dbetaIsRequire)])
