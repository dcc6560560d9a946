"""aclnnBatchNorm (norm/batch_norm_v3 op_api), aclnnBatchNormElemt, aclnnBatchNormReduce,
aclnnBatchNormGatherStatsWithCounts, aclnnSyncBatchNormGatherStats and aclnnInstanceNorm.

The channel axis is 1 (NCHW/NCDHW/ND/NCL), the last axis for channels-last formats (NHWC/NDHWC). Statistics
are fp32 over every axis but the channel: mean, biased variance for the normalisation, invstd =
1 / sqrt(var + eps); running statistics are updated in place as (1 - momentum)·running + momentum·batch with
the unbiased variance. Each output rounds once into its dtype."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

CHANNELS_LAST = frozenset(dtypes.ACL_FORMAT[n] for n in ("ACL_FORMAT_NHWC", "ACL_FORMAT_NDHWC")
                          if n in dtypes.ACL_FORMAT)


def supported():
    return P.codes("FLOAT FLOAT16 BF16") if _products.line() in ("A2", "A3", "950") else P.codes("FLOAT FLOAT16")


def channel_axis(desc):
    return desc.ndim - 1 if desc.format in CHANNELS_LAST and desc.ndim > 2 else 1


def channels_first(x, axis):
    """x (fp32) as (C, rest): the channel axis first, every other flattened."""
    return np.moveaxis(x.astype(np.float32), axis, 0).reshape(x.shape[axis], -1)


def per_channel(values, x_shape, axis):
    """A (C,) vector shaped to broadcast along `axis` of x."""
    shape = [1] * len(x_shape)
    shape[axis] = -1
    return values.reshape(shape)


def _vector(v, name, c, fill):
    return v[name].astype(np.float32).reshape(-1) if name in v else np.full(c, fill, np.float32)


def invstd_of(variance, eps):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.float32(1) / np.sqrt(variance + np.float32(eps))).astype(np.float32)


def update_running(v, name, batch, momentum):
    if name in v and v[name].size:
        running = v[name].astype(np.float32).reshape(-1)
        P.store(v[name], ((np.float32(1) - np.float32(momentum)) * running
                          + np.float32(momentum) * batch).reshape(v[name].shape))


class BatchNorm(AclnnOp):
    name = "aclnnBatchNorm"
    inputs = ("input", "weight", "bias", "runningMean", "runningVar")
    outputs = ("output", "saveMean", "saveInvstd")

    def dtype_table(self):
        return {n: supported() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "input", "output", *(("saveMean", "saveInvstd") if a.training else ()))
        allowed = supported()
        for name in ("input", "output") + (("saveMean", "saveInvstd") if a.training else ()):
            checks.dtype_in(name, getattr(a, name), allowed)
        for name in ("weight", "bias", "runningMean", "runningVar"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        if a.input.format != a.output.format:
            raise status.param_invalid("Format of input and output should be equal, input [%d], output [%d]."
                                       % (a.input.format, a.output.format))
        if checks.is_private_format(a.input.format):
            raise status.param_invalid("Format only support ND、NCL、NCHW、NCDHW.")
        for name in ("input", "output"):
            checks.max_dim(name, getattr(a, name))
            checks.min_dim(name, getattr(a, name), 2)
        checks.same_shape("output", a.output, "input", a.input)
        a.axis = channel_axis(a.input)
        c = a.input.shape[a.axis]
        for name in ("weight", "bias", "runningMean", "runningVar"):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != c):
                raise status.param_invalid("Dim of %s should be one and shape is channel num of input." % name)
        if not a.training and (a.runningMean is None or a.runningVar is None):
            raise status.param_nullptr("Expected a proper Tensor but got null for argument %s."
                                       % ("runningMean" if a.runningMean is None else "runningVar"))

    def compute(self, a, v, workspace):
        x = v["input"]
        if x.size == 0:
            return
        c = x.shape[a.axis]
        if a.training and a.axis == 1 and self.kernel_path(a, v, x, c):
            return
        rows = channels_first(x, a.axis)
        if a.training:
            count = rows.shape[1]
            mean = np.add.reduce(rows, axis=1, dtype=np.float32) / np.float32(count)
            centred = rows - mean[:, None]
            variance = np.add.reduce(centred * centred, axis=1, dtype=np.float32) / np.float32(count)
            invstd = invstd_of(variance, a.eps)
            update_running(v, "runningMean", mean, a.momentum)
            unbiased = variance * np.float32(count / max(count - 1, 1)) if count > 1 else variance
            update_running(v, "runningVar", unbiased, a.momentum)
            P.store(v["saveMean"], mean.reshape(v["saveMean"].shape))
            P.store(v["saveInvstd"], invstd.reshape(v["saveInvstd"].shape))
        else:
            mean = v["runningMean"].astype(np.float32).reshape(-1)
            invstd = invstd_of(v["runningVar"].astype(np.float32).reshape(-1), a.eps)
        scale = invstd * _vector(v, "weight", c, 1)
        shift = _vector(v, "bias", c, 0) - mean * scale
        with np.errstate(over="ignore", invalid="ignore"):
            P.store(v["output"], x.astype(np.float32) * per_channel(scale, x.shape, a.axis)
                    + per_channel(shift, x.shape, a.axis))


    def kernel_path(self, a, v, x, c):
        """Training on fp32 channel-major data: mcDNN's batch-norm kernels (norm/channel_kernels)."""
        from opemu.ops.aclnn.norm import channel_kernels
        spatial = x.size // (x.shape[0] * c) if x.shape[0] * c else 0
        stats = channel_kernels.batch_forward(x, v["output"], x.shape[0], c, spatial, _vector(v, "weight", c, 1),
                                              _vector(v, "bias", c, 0), a.eps)
        if stats is None:
            return False
        mean, variance, invstd = stats
        count = x.size // c
        update_running(v, "runningMean", mean.astype(np.float32), a.momentum)
        unbiased = variance * (count / (count - 1)) if count > 1 else variance
        update_running(v, "runningVar", unbiased.astype(np.float32), a.momentum)
        P.store(v["saveMean"], mean.reshape(v["saveMean"].shape))
        P.store(v["saveInvstd"], invstd.reshape(v["saveInvstd"].shape))
        return True


class BatchNormElemt(AclnnOp):
    """output = (input - mean) · invstd · weight + bias, with given per-channel statistics."""
    name = "aclnnBatchNormElemt"
    inputs = ("input", "weight", "bias", "mean", "invstd")
    outputs = ("output",)

    def dtype_table(self):
        return {n: supported() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "input", "mean", "invstd", "output")
        allowed = supported()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        checks.min_dim("input", a.input, 2)
        checks.max_dim("input", a.input)
        checks.same_shape("input", a.input, "output", a.output)
        c = a.input.shape[1]
        for name in ("weight", "bias", "mean", "invstd"):
            t = getattr(a, name)
            if t is not None and (t.ndim != 1 or t.shape[0] != c):
                raise status.param_invalid("Expected %s to be a vector of size %d (the channels of input), but got %s."
                                           % (name, c, checks.shape_text(t.shape)))

    def compute(self, a, v, workspace):
        x = v["input"]
        if x.size == 0:
            return
        c = x.shape[1]
        scale = _vector(v, "invstd", c, 1) * _vector(v, "weight", c, 1)
        shift = _vector(v, "bias", c, 0) - _vector(v, "mean", c, 0) * scale
        P.store(v["output"], x.astype(np.float32) * per_channel(scale, x.shape, 1) + per_channel(shift, x.shape, 1))


class BatchNormReduce(AclnnOp):
    """sum and squareSum of x over every axis but the channel (axis 1), in fp32."""
    name = "aclnnBatchNormReduce"
    inputs = ("x",)
    outputs = ("sum", "squareSum")

    def dtype_table(self):
        return {"x": supported(), "sum": [P.FLOAT], "squareSum": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "sum", "squareSum")
        checks.dtype_in("x", a.x, supported())
        checks.dtype_match("sum", a.sum, P.FLOAT)
        checks.dtype_match("squareSum", a.squareSum, P.FLOAT)
        checks.min_dim("x", a.x, 2)
        checks.max_dim("x", a.x)
        for name in ("sum", "squareSum"):
            checks.shape_is(name, getattr(a, name), (a.x.shape[1],), checks.shape_text((a.x.shape[1],)))

    def compute(self, a, v, workspace):
        rows = channels_first(v["x"], 1)
        P.store(v["sum"], np.add.reduce(rows, axis=1, dtype=np.float32))
        P.store(v["squareSum"], np.add.reduce(rows * rows, axis=1, dtype=np.float32))


def gather(mean_rows, var_rows, counts):
    """The global mean and biased variance of per-device (mean, var) rows weighted by counts (fp32)."""
    total = np.float32(counts.sum())
    mean = np.add.reduce(mean_rows * counts[:, None], axis=0, dtype=np.float32) / total
    second = np.add.reduce((var_rows + mean_rows * mean_rows) * counts[:, None], axis=0, dtype=np.float32) / total
    return mean, np.maximum(second - mean * mean, np.float32(0)), total


class BatchNormGatherStatsWithCounts(AclnnOp):
    """meanAll/invstdAll from each device's mean and invstd (rows) and counts; running statistics updated."""
    name = "aclnnBatchNormGatherStatsWithCounts"
    inputs = ("input", "mean", "invstd", "runningMean", "runningVar", "counts")
    outputs = ("meanAll", "invstdAll", "runningMean", "runningVar")

    def dtype_table(self):
        return {n: supported() for n in ("input", "mean", "invstd", "runningMean", "runningVar", "counts",
                                         "meanAll", "invstdAll")}

    def check(self, a):
        checks.not_null(a, "input", "mean", "invstd", "counts", "meanAll", "invstdAll")
        allowed = supported()
        for name in ("input", "mean", "invstd", "counts", "meanAll", "invstdAll", "runningMean", "runningVar"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), allowed)
        checks.min_dim("input", a.input, 2)
        c = a.input.shape[1]
        checks.dim_is("mean", a.mean, 2)
        checks.same_shape("mean", a.mean, "invstd", a.invstd)
        if a.mean.shape[1] != c:
            raise status.param_invalid("The second dim of mean %d must be the channels of input %d."
                                       % (a.mean.shape[1], c))
        checks.shape_is("counts", a.counts, (a.mean.shape[0],), checks.shape_text((a.mean.shape[0],)))
        for name in ("meanAll", "invstdAll", "runningMean", "runningVar"):
            t = getattr(a, name)
            if t is not None:
                checks.shape_is(name, t, (c,), checks.shape_text((c,)))

    def compute(self, a, v, workspace):
        mean_rows = v["mean"].astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            var_rows = np.float32(1) / (v["invstd"].astype(np.float32) ** 2) - np.float32(a.eps)
            counts = v["counts"].astype(np.float32).reshape(-1)
            mean, variance, total = gather(mean_rows, var_rows, counts)
            P.store(v["meanAll"], mean)
            P.store(v["invstdAll"], invstd_of(variance, a.eps))
            update_running(v, "runningMean", mean, a.momentum)
            update_running(v, "runningVar", variance * (total / (total - np.float32(1))), a.momentum)


class SyncBatchNormGatherStats(AclnnOp):
    """batchMean/batchInvstd from the devices' sums, square sums and sample counts; mean and variance (the
    running statistics) updated in place (its doc's formulas)."""
    name = "aclnnSyncBatchNormGatherStats"
    inputs = ("totalSum", "totalSquareSum", "sampleCount", "mean", "variance")
    outputs = ("batchMean", "batchInvstd", "mean", "variance")

    def dtype_table(self):
        return {n: supported() for n in ("totalSum", "totalSquareSum", "mean", "variance", "batchMean",
                                         "batchInvstd")} | {"sampleCount": P.codes("INT32")}

    def check(self, a):
        checks.not_null(a, "totalSum", "totalSquareSum", "sampleCount", "mean", "variance", "batchMean", "batchInvstd")
        allowed = supported()
        for name in ("totalSum", "totalSquareSum", "mean", "variance", "batchMean", "batchInvstd"):
            checks.dtype_in(name, getattr(a, name), allowed)
        checks.dtype_in("sampleCount", a.sampleCount, P.codes("INT32"))
        checks.dim_is("totalSum", a.totalSum, 2)
        checks.same_shape("totalSum", a.totalSum, "totalSquareSum", a.totalSquareSum)
        n, c = a.totalSum.shape
        checks.shape_is("sampleCount", a.sampleCount, (n,), checks.shape_text((n,)))
        for name in ("mean", "variance", "batchMean", "batchInvstd"):
            checks.shape_is(name, getattr(a, name), (c,), checks.shape_text((c,)))

    def compute(self, a, v, workspace):
        count = np.float32(v["sampleCount"].astype(np.float64).sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.add.reduce(v["totalSum"].astype(np.float32), axis=0, dtype=np.float32) / count
            variance = np.add.reduce(v["totalSquareSum"].astype(np.float32), axis=0, dtype=np.float32) / count \
                - mean * mean
            P.store(v["batchMean"], mean)
            P.store(v["batchInvstd"], invstd_of(variance, a.eps))
            update_running(v, "mean", mean, a.momentum)
            update_running(v, "variance", variance * (count / (count - np.float32(1))), a.momentum)


class InstanceNorm(AclnnOp):
    """y = (x - mean) · rsqrt(var + eps) · γ + β over each (n, c)'s spatial elements; mean and variance (biased)
    written with shape (N, C, 1, …) for NCHW or (N, 1, …, C) for NHWC."""
    name = "aclnnInstanceNorm"
    inputs = ("x", "gamma", "beta")
    outputs = ("y", "mean", "variance")

    def dtype_table(self):
        return {n: supported() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "x", "gamma", "beta", "y", "mean", "variance")
        allowed = supported()
        for name in self.inputs + self.outputs:
            checks.dtype_in(name, getattr(a, name), allowed)
        if a.dataFormat not in ("NCHW", "NHWC", "ND"):
            raise status.param_invalid("dataFormat only support NCHW and NHWC, but got %s." % a.dataFormat)
        checks.min_dim("x", a.x, 3)
        checks.max_dim("x", a.x)
        checks.same_shape("x", a.x, "y", a.y)
        a.axis = a.x.ndim - 1 if a.dataFormat == "NHWC" else 1
        c = a.x.shape[a.axis]
        for name in ("gamma", "beta"):
            if math.prod(getattr(a, name).shape) != c:
                raise status.param_invalid("The size of %s must be the channels of x (%d), but got %s."
                                           % (name, c, checks.shape_text(getattr(a, name).shape)))
        expected = [1] * a.x.ndim
        expected[0], expected[a.axis] = a.x.shape[0], c
        for name in ("mean", "variance"):
            if math.prod(getattr(a, name).shape) != a.x.shape[0] * c:
                raise status.param_invalid("Expected tensor for %s to have same size as %s, but got %s."
                                           % (name, checks.shape_text(expected),
                                              checks.shape_text(getattr(a, name).shape)))

    def compute(self, a, v, workspace):
        x = v["x"]
        if x.size == 0:
            return
        moved = np.moveaxis(x.astype(np.float32), a.axis, 1)
        n, c = moved.shape[:2]
        rows = moved.reshape(n, c, -1)
        count = rows.shape[2]
        mean = np.add.reduce(rows, axis=2, dtype=np.float32) / np.float32(count)
        centred = rows - mean[..., None]
        variance = np.add.reduce(centred * centred, axis=2, dtype=np.float32) / np.float32(count)
        gamma, beta = (v[k].astype(np.float32).reshape(1, c, 1) for k in ("gamma", "beta"))
        y = centred * invstd_of(variance, a.eps)[..., None] * gamma + beta
        P.store(v["y"], np.moveaxis(y.reshape(moved.shape), 1, a.axis))
        P.store(v["mean"], mean.reshape(v["mean"].shape))
        P.store(v["variance"], variance.reshape(v["variance"].shape))
