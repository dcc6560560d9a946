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

from opemu.core import kernels, mcdnn, scratch
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
        channel_mode = a.mode == MODE["MCDNN_SOFTMAX_MODE_CHANNEL"]
        direct = a.alpha_value == 1 and a.beta_value == 0 and a.dxDesc.dtype == ct

        def channel(p):  # image by image: each image's channel sums and temporaries stay in cache
            for n in range(p["y"].shape[0]):
                if direct and _channel_direct(log, p["y"][n], p["dy"][n], p["dx"][n]):
                    continue
                y, dy = mcdnn.as_compute(p["y"][n], ct), mcdnn.as_compute(p["dy"][n], ct)
                mcdnn.write(p["dx"][n], backward(a.algo, (0,), y, dy), a.alpha_value, a.beta_value)

        def instance(p):
            for n in range(p["y"].shape[0]):
                y, dy = mcdnn.as_compute(p["y"][n], ct), mcdnn.as_compute(p["dy"][n], ct)
                # the image's one sum: Σ dy (LOG) or Σ dy*y
                total = dy.sum(dtype=ct) if log else ct.type(np.vdot(dy, y))
                if direct and _instance_direct(log, total, y, dy, p["dx"][n]):
                    continue
                if log:
                    g = np.exp(y)
                    g *= total
                    np.subtract(dy, g, out=g)
                else:
                    g = dy - total
                    g *= y
                mcdnn.write(p["dx"][n], g, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, channel if channel_mode else instance)


_BLOCK = 1 << 16  # elements per block of an instance-mode image: y, dy, dx and a temporary stay in L2


def _rows(image):
    """(C, H*W...) view of an image whose channels are rows of dense spatial elements, else None."""
    shape, strides = image.shape, image.strides
    for i in range(len(shape) - 1, 1, -1):
        if strides[i - 1] != strides[i] * shape[i]:
            return None
    rows = image.reshape(shape[0], -1)
    return rows if rows.strides[1] == image.itemsize and np.shares_memory(rows, image) else None


def _channel_direct(log, y, dy, dx):
    """backward()'s channel-mode operations written into dx, on the image as (C, spatial) rows (whole rows:
    NumPy's 2-D passes cost more than the cache saves); the sums over C run row after row, as in
    backward(). False when the layout or aliasing does not allow it."""
    rows = [_rows(t) for t in (y, dy, dx)]
    if any(r is None for r in rows) or np.shares_memory(dx, y):
        return False
    y, dy, dx = rows
    total = scratch.buffer("softmax sums", y.shape[1:], y.dtype)
    lib = kernels.lib() if not log and kernels.dense(y, dy, dx) else None
    if lib is not None:   # the same operations, fused: two passes over the image instead of four
        return lib.opemu_kernel_softmax_channel_backward(y.itemsize, kernels.address(y), kernels.address(dy),
                                                         kernels.address(dx), kernels.address(total),
                                                         y.shape[0], y.shape[1]) == 0
    with np.errstate(over="ignore", invalid="ignore"):
        if log:  # dy - exp(y) * Σ dy
            g = scratch.buffer("softmax rows", y.shape, y.dtype) if np.shares_memory(dx, dy) else dx
            np.add.reduce(dy, axis=0, out=total)
            np.exp(y, out=g)
            np.multiply(g, total, out=g)
            np.subtract(dy, g, out=dx)
        else:  # (dy - Σ dy*y) * y
            g = scratch.buffer("softmax rows", y.shape, y.dtype)
            np.multiply(dy, y, out=g)
            np.add.reduce(g, axis=0, out=total)
            np.subtract(dy, total, out=dx)
            np.multiply(dx, y, out=dx)
    return True


def _instance_direct(log, total, y, dy, dx):
    """The instance-mode elementwise step written into dx block by block; False for layouts that are not
    one dense block or when dx overlaps y."""
    flat = mcdnn.flat_views([y, dy, dx])
    if flat is None or np.shares_memory(dx, y):
        return False
    y, dy, dx = flat
    g = scratch.buffer("softmax block", (min(_BLOCK, y.size),), y.dtype) if log else None
    lib = kernels.lib() if kernels.dense(y, dy, dx) and kernels.apart(dx, dy) else None
    with np.errstate(over="ignore", invalid="ignore"):
        if lib is not None and not log:
            lib.opemu_kernel_softmax_backward(0, y.itemsize, total, kernels.address(y), kernels.address(dy), kernels.null(),
                                              kernels.address(dx),
                                              y.size)
            return True
        for lo in range(0, y.size, _BLOCK):
            hi = min(lo + _BLOCK, y.size)
            if lib is not None:  # the C kernel after NumPy's exp(y)
                gb = g[:hi - lo]
                np.exp(y[lo:hi], out=gb)
                lib.opemu_kernel_softmax_backward(1, y.itemsize, total, kernels.null(), kernels.address(dy[lo:]), kernels.address(gb),
                                                  kernels.address(dx[lo:]), hi - lo)
                continue
            if log:  # dy - exp(y) * Σ dy
                gb = g[:hi - lo]
                np.exp(y[lo:hi], out=gb)
                np.multiply(gb, total, out=gb)
                np.subtract(dy[lo:hi], gb, out=dx[lo:hi])
            else:  # (dy - Σ dy*y) * y
                np.subtract(dy[lo:hi], total, out=dx[lo:hi])
                np.multiply(dx[lo:hi], y[lo:hi], out=dx[lo:hi])
    return True
