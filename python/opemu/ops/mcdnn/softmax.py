"""mcdnnSoftmaxForward / mcdnnSoftmaxBackward (reference mcdnn.md §3.6; seed 3.1.1.19).

INSTANCE normalizes over every dimension but N (C, H, W, ... for each image), CHANNEL over C for
each (n, h, w). FAST is the straightforward exp(x)/Σexp(x) (it overflows where the hardware's does),
ACCURATE subtracts the maximum first, LOG gives x - max - log Σexp(x - max).
Backward: y*(dy - Σ dy*y) for FAST/ACCURATE; dy - exp(y)*Σ dy for LOG (y is the log-softmax).

Forward BAD_PARAM: a NULL argument, an invalid algorithm or mode, dims or data types of x and y
that differ. Backward BAD_PARAM (seed): dims of y, dy, dx differ; strides of y and dy differ; data
types differ; also dy == dx in place with different strides (the seed requires identical
descriptors for in-place use)."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.mcdnn import SOFTMAX_ALGO as ALGO, SOFTMAX_MODE as MODE


def _axes(mode, ndim):
    return (1,) if mode == MODE["MCDNN_SOFTMAX_MODE_CHANNEL"] else tuple(range(1, ndim))


def _check_algorithm(a):
    if a.algo not in ALGO.values():
        raise mcdnn.bad_param("invalid mcdnnSoftmaxAlgorithm_t %d" % a.algo)
    if a.mode not in MODE.values():
        raise mcdnn.bad_param("invalid mcdnnSoftmaxMode_t %d" % a.mode)


def forward(algo, axes, x):
    with np.errstate(over="ignore", invalid="ignore"):
        if algo == ALGO["MCDNN_SOFTMAX_FAST"]:
            e = np.exp(x)
            e /= e.sum(axis=axes, keepdims=True)
            return e
        shifted = x - x.max(axis=axes, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=axes, keepdims=True)
        if algo == ALGO["MCDNN_SOFTMAX_LOG"]:
            shifted -= np.log(total)
            return shifted
        e /= total
        return e


def backward(algo, axes, y, dy):
    if algo == ALGO["MCDNN_SOFTMAX_LOG"]:
        g = np.exp(y)
        g *= dy.sum(axis=axes, keepdims=True)
        np.subtract(dy, g, out=g)
        return g
    g = dy * y
    total = g.sum(axis=axes, keepdims=True)
    np.subtract(dy, total, out=g)
    g *= y
    return g


class SoftmaxForward(mcdnn.McdnnOp):
    name = "mcdnnSoftmaxForward"
    tensors = {"x": "xDesc", "y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        mcdnn.require(a, "xDesc", "yDesc", "x", "y")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        _check_algorithm(a)
        mcdnn.same_dims(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        mcdnn.same_type(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        mcdnn.floating("xDesc", a.xDesc)

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype
        axes = _axes(a.mode, a.xDesc.ndim)

        def run(p):
            mcdnn.write(p["y"], forward(a.algo, axes, mcdnn.as_compute(p["x"], ct)), a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


class SoftmaxBackward(mcdnn.McdnnOp):
    name = "mcdnnSoftmaxBackward"
    tensors = {"y": "yDesc", "dy": "dyDesc", "dx": "dxDesc"}
    outputs = ("dx",)

    def check(self, a):
        mcdnn.require(a, "yDesc", "dyDesc", "dxDesc", "y", "dy", "dx")
        a.alpha_value = mcdnn.scaling(a.alpha, a.yDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.yDesc, "beta")
        _check_algorithm(a)
        mcdnn.same_dims(mcdnn.bad_param, ("yDesc", a.yDesc), ("dyDesc", a.dyDesc), ("dxDesc", a.dxDesc))
        mcdnn.same_strides(mcdnn.bad_param, ("yDesc", a.yDesc), ("dyDesc", a.dyDesc))
        mcdnn.same_type(mcdnn.bad_param, ("yDesc", a.yDesc), ("dyDesc", a.dyDesc), ("dxDesc", a.dxDesc))
        if a.dy == a.dx:
            mcdnn.same_strides(mcdnn.bad_param, ("dyDesc", a.dyDesc), ("dxDesc", a.dxDesc), " and dy == dx (in place)")
        mcdnn.floating("yDesc", a.yDesc)

    def compute(self, a, v):
        ct = a.yDesc.compute_dtype
        log = a.algo == ALGO["MCDNN_SOFTMAX_LOG"]

        def channel(p):  # image by image: each image's channel sums and temporaries stay in cache
            for n in range(p["y"].shape[0]):
                y, dy = mcdnn.as_compute(p["y"][n], ct), mcdnn.as_compute(p["dy"][n], ct)
                mcdnn.write(p["dx"][n], backward(a.algo, (0,), y, dy), a.alpha_value, a.beta_value)

        def instance(p):
            for n in range(p["y"].shape[0]):
                y, dy = mcdnn.as_compute(p["y"][n], ct), mcdnn.as_compute(p["dy"][n], ct)
                if log:
                    g = np.exp(y)
                    g *= dy.sum(dtype=ct)
                    np.subtract(dy, g, out=g)
                else:
                    g = dy - ct.type(np.vdot(dy, y))
                    g *= y
                mcdnn.write(p["dx"][n], g, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, channel if a.mode == MODE["MCDNN_SOFTMAX_MODE_CHANNEL"] else instance)
