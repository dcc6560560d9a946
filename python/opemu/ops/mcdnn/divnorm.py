"""mcdnnDivisiveNormalizationForward / Backward (reference mcdnn.md §3.2, §3.2b; seed 3.1.1.6).

With u = x - means (means NULL: zero) and a spatial window of n per spatial dimension
[p - lookBehind, p + lookAhead] (lookBehind = (n-1)//2, zero outside), d = 2 or 3 spatial dims:
    S = k + alpha/n^d * Σ_window u²        y = u * S^-beta
the LRN descriptor's parameters cast to the tensor's data type (Caffe's cuDNN within-channel LRN
check confirms this form for means == NULL; using x - means throughout is opemu's reading of the
"precomputed means" mode). Backward:
    du = dy * S^-beta - 2*alpha/n^d*beta * u * Σ_{q: p in window(q)} dy_q u_q S_q^(-beta-1)
    dx = du, dMeans = -du (dMeans may be NULL); both blended with alpha/beta.
temp and temp2 (xDesc-shaped device scratch) receive S and the windowed sum.

Forward BAD_PARAM: x, y, temp or temp2 NULL; dims outside [4,5]; dims of x and y differ; in place
(x == y) with different strides; alpha or beta NULL; LRN parameters out of range; a negative
stride; an invalid mode; data types differ. Backward BAD_PARAM (seed): x, dx, temp, temp2 (or dy)
NULL; dims outside [4,5]; alpha or beta NULL; dims of xDesc and dXdMeansDesc differ; LRN
parameters out of range; a negative stride. NOT_SUPPORTED: the strides of the input and output
differ in a dimension; an unsupported data type."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.mcdnn import DIVNORM_MODE
from opemu.ops.mcdnn.lrn import parameters, window, window_sum


def _box(a, behind, ahead):
    for axis in range(2, a.ndim):
        a = window_sum(a, axis, behind, ahead)
    return a


def _scale(lrn, tensor, u):
    """(S, the windowed sum of u²)."""
    alpha, _, k = parameters(lrn, tensor)
    summed = _box(u * u, *window(lrn.n))
    s = summed * (alpha / lrn.n ** (u.ndim - 2))
    s += k
    return s, summed


def forward(lrn, tensor, u):
    _, beta, _ = parameters(lrn, tensor)
    s, summed = _scale(lrn, tensor, u)
    return s, summed, u * s ** -beta


def backward(lrn, tensor, u, dy):
    alpha, beta, _ = parameters(lrn, tensor)
    behind, ahead = window(lrn.n)
    s, _ = _scale(lrn, tensor, u)
    powered = s ** -beta
    t = dy * u * powered
    t /= s
    spread = _box(t, ahead, behind)
    g = dy * powered
    g -= (2 * alpha / lrn.n ** (u.ndim - 2) * beta) * u * spread
    return s, spread, g


def _common(a, data_desc, out_desc, out_names):
    for name, t in (("xDesc", data_desc), (out_names, out_desc)):
        if t.ndim not in (4, 5):
            raise mcdnn.bad_param("%s has %d dimensions: only 4-D and 5-D tensors are supported" % (name, t.ndim))


def _strides(a, named):
    for name, t in named:
        if min(t.strides) < 0:
            raise mcdnn.bad_param("%s has a negative stride" % name)


def _mode(a):
    if a.mode not in DIVNORM_MODE.values():
        raise mcdnn.bad_param("invalid mcdnnDivNormMode_t %d" % a.mode)


class DivisiveNormalizationForward(mcdnn.McdnnOp):
    name = "mcdnnDivisiveNormalizationForward"
    tensors = {"x": "xDesc", "means": "xDesc", "temp": "xDesc", "temp2": "xDesc", "y": "yDesc"}
    outputs = ("y", "temp", "temp2")

    def check(self, a):
        mcdnn.require(a, "normDesc", "xDesc", "yDesc", "x", "y", "temp", "temp2")
        _mode(a)
        _common(a, a.xDesc, a.yDesc, "yDesc")
        mcdnn.same_dims(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        if a.x == a.y:
            mcdnn.same_strides(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc), " and x == y (in place)")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        mcdnn.lrn_in_range(a.normDesc)
        _strides(a, [("xDesc", a.xDesc), ("yDesc", a.yDesc)])
        mcdnn.same_type(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        mcdnn.same_strides(mcdnn.not_supported, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        mcdnn.floating("xDesc", a.xDesc)

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype

        def run(p):
            u = mcdnn.as_compute(p["x"], ct)
            u = u - mcdnn.as_compute(p["means"], ct) if p["means"] is not None else u
            s, summed, y = forward(a.normDesc, a.xDesc, u)
            p["temp"][...] = s
            p["temp2"][...] = summed
            mcdnn.write(p["y"], y, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


class DivisiveNormalizationBackward(mcdnn.McdnnOp):
    name = "mcdnnDivisiveNormalizationBackward"
    tensors = {"x": "xDesc", "means": "xDesc", "dy": "xDesc", "temp": "xDesc", "temp2": "xDesc",
               "dx": "dXdMeansDesc", "dMeans": "dXdMeansDesc"}
    outputs = ("dx", "dMeans", "temp", "temp2")

    def check(self, a):
        mcdnn.require(a, "normDesc", "xDesc", "dXdMeansDesc", "x", "dx", "temp", "temp2", "dy")
        _mode(a)
        _common(a, a.xDesc, a.dXdMeansDesc, "dXdMeansDesc")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        mcdnn.same_dims(mcdnn.bad_param, ("xDesc", a.xDesc), ("dXdMeansDesc", a.dXdMeansDesc))
        mcdnn.lrn_in_range(a.normDesc)
        _strides(a, [("xDesc", a.xDesc), ("dXdMeansDesc", a.dXdMeansDesc)])
        mcdnn.same_type(mcdnn.bad_param, ("xDesc", a.xDesc), ("dXdMeansDesc", a.dXdMeansDesc))
        mcdnn.same_strides(mcdnn.not_supported, ("xDesc", a.xDesc), ("dXdMeansDesc", a.dXdMeansDesc))
        mcdnn.floating("xDesc", a.xDesc)

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype

        def run(p):
            u = mcdnn.as_compute(p["x"], ct)
            u = u - mcdnn.as_compute(p["means"], ct) if p["means"] is not None else u
            s, spread, g = backward(a.normDesc, a.xDesc, u, mcdnn.as_compute(p["dy"], ct))
            if p["dMeans"] is not None:
                mcdnn.write(p["dMeans"], -g, a.alpha_value, a.beta_value)
            mcdnn.write(p["dx"], g, a.alpha_value, a.beta_value)
            p["temp"][...] = s
            p["temp2"][...] = spread
        mcdnn.by_batch(v, run)
