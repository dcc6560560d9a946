"""mcdnnSoftmaxForward / mcdnnSoftmaxBackward (reference mcdnn.md §3.6; seed 3.1.1.19).

INSTANCE normalizes over every dimension but N (C, H, W, ... for each image), CHANNEL over C for
each (n, h, w). FAST is the straightforward exp(x)/Σexp(x) (it overflows where the hardware's does),
ACCURATE subtracts the maximum first, LOG gives x - max - log Σexp(x - max).
Backward: y*(dy - Σ dy*y) for FAST/ACCURATE; dy - exp(y)*Σ dy for LOG (y is the log-softmax).
Both directions are C kernels (csrc/kernels/softmax.c) whose NumPy references are forward() and
backward(): maxima plus +0, sums in a fixed order, and an exp both sides compute alike (opemu/core/exp.py);
LOG's log(total) is NumPy's, taken between the forward kernel's two calls. Layouts other than dense NCHW, fp16/bf16 data and alpha/beta
go through dense compute-type copies and the same kernel.

Forward BAD_PARAM: a NULL argument, an invalid algorithm or mode, dims or data types of x and y
that differ. Backward BAD_PARAM (seed): dims of y, dy, dx differ; strides of y and dy differ; data
types differ; also dy == dx in place with different strides (the seed requires identical
descriptors for in-place use)."""
import numpy as np

from opemu.core import exp as kernel_exp
from opemu.core import kernels, mcdnn, parallel, scratch
from opemu.core.mcdnn import SOFTMAX_ALGO as ALGO, SOFTMAX_MODE as MODE


def _check_algorithm(a):
    if a.algo not in ALGO.values():
        raise mcdnn.bad_param("invalid mcdnnSoftmaxAlgorithm_t %d" % a.algo)
    if a.mode not in MODE.values():
        raise mcdnn.bad_param("invalid mcdnnSoftmaxMode_t %d" % a.mode)


def forward(algo, channel_mode, x):
    """y of x (N, C, ...) in the compute type, as the C kernel computes it (csrc/kernels/softmax.c): the
    maximum of each image (INSTANCE) or position (CHANNEL) plus +0 (none for FAST), e = exp(x - max) (the
    kernels' exp), its totals summed as backward() sums p, then e / total or (x - max) - log(total)."""
    n, c = x.shape[0], x.shape[1]
    x = x.reshape(n, c, -1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if algo == ALGO["MCDNN_SOFTMAX_FAST"]:
            shifted = x
        else:
            top = x.max(axis=1, keepdims=True) if channel_mode else x.reshape(n, -1).max(axis=1).reshape(n, 1, 1)
            top += top.dtype.type(0)   # +0 for a maximum of zeros, whichever zero the reduction kept
            shifted = x - top
        e = kernel_exp.exp(shifted)
        total = _channel_totals(e) if channel_mode else _instance_totals(e.reshape(n, -1)).reshape(n, 1, 1)
        if algo == ALGO["MCDNN_SOFTMAX_LOG"]:
            return shifted - np.log(total)
        e /= total
    return e


def backward(log, channel_mode, y, dy):
    """dx of C-contiguous y and dy (N, C, ...) in the compute type, as the C kernel computes it (csrc/kernels/
    softmax.c): per image the sums of p = dy (LOG) or dy*y — CHANNEL: down the channels at each position, row
    after row; INSTANCE: in LANES lanes, then across them — then dy - exp(y) * total (LOG, the kernels'
    exp) or (dy - total) * y."""
    n, c = y.shape[0], y.shape[1]
    y, dy = y.reshape(n, c, -1), dy.reshape(n, c, -1)
    with np.errstate(over="ignore", invalid="ignore"):
        p = dy if log else dy * y
        total = _channel_totals(p) if channel_mode else _instance_totals(p.reshape(n, -1)).reshape(n, 1, 1)
        if log:
            g = kernel_exp.exp(y)
            g *= total
            np.subtract(dy, g, out=g)
        else:
            g = dy - total
            g *= y
    return g


LANES = 16  # the instance sum's partial sums (csrc/kernels/softmax.c)


def _channel_totals(p):
    """(N, 1, S): p's rows added one after the other from the first (a reduce could pick another order)."""
    total = p[:, :1].copy()
    for c in range(1, p.shape[1]):
        total += p[:, c:c + 1]
    return total


def _instance_totals(p):
    """(N,): each row of p summed in LANES lanes (lane i mod LANES, the first block as it is, the last padded
    with +0: add.reduce down a (blocks, LANES) matrix adds row after row), then lane after lane."""
    n, m = p.shape
    if m % LANES:
        padded = np.zeros((n, -(-m // LANES) * LANES), p.dtype)
        padded[:, :m] = p
        p = padded
    lanes = np.add.reduce(p.reshape(n, -1, LANES), axis=1)
    total = lanes[:, 0].copy()
    for k in range(1, LANES):
        total += lanes[:, k]
    return total


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
        channel_mode = a.mode == MODE["MCDNN_SOFTMAX_MODE_CHANNEL"]
        direct = a.alpha_value == 1 and a.beta_value == 0 and a.yDesc.dtype == ct

        def run(p):
            x, y = p["x"], p["y"]
            if direct and _forward_kernel(a.algo, channel_mode, x, y):
                return
            x = np.ascontiguousarray(x, dtype=ct)
            g = scratch.buffer("softmax y", x.shape, ct)
            if not _forward_kernel(a.algo, channel_mode, x, g):
                g = forward(a.algo, channel_mode, x).reshape(x.shape)
            mcdnn.write(y, g, a.alpha_value, a.beta_value)
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
        pieces = parallel.c_pieces(not mcdnn.one_piece(v))
        if direct and _kernel(log, channel_mode, v["y"], v["dy"], v["dx"], pieces):   # the kernel threads share it
            return

        def run(p):
            y, dy, dx = p["y"], p["dy"], p["dx"]
            if direct and _kernel(log, channel_mode, y, dy, dx):
                return
            # the kernel's layout: dense compute-type copies (the reference sums in C order too)
            y, dy = np.ascontiguousarray(y, dtype=ct), np.ascontiguousarray(dy, dtype=ct)
            g = scratch.buffer("softmax dx", y.shape, ct)
            if not _kernel(log, channel_mode, y, dy, g):
                g = backward(log, channel_mode, y, dy).reshape(y.shape)
            mcdnn.write(dx, g, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


def _forward_kernel(algo, channel_mode, x, y):
    """forward() by the C kernel, written into y; False when the reference must run or the arrays are not
    dense compute-type arrays that y overlaps only as the very same view (not at all for LOG, whose second
    pass reads x again)."""
    lib = kernels.lib()
    if lib is None or x.ndim < 2 or not kernels.dense(x, y) or x.size == 0:
        return False
    log = algo == ALGO["MCDNN_SOFTMAX_LOG"]
    if np.may_share_memory(x, y) if log else not kernels.apart(y, x):
        return False
    n, c = x.shape[0], x.shape[1]
    spatial = x.size // (n * c)
    per = spatial if channel_mode else 1
    maximum = scratch.buffer("softmax forward maxima", (n, per), x.dtype)
    total = scratch.buffer("softmax forward totals", (n, per), x.dtype)
    call = lib.opemu_kernel_softmax_forward
    arrays = kernels.address(x), kernels.address(y), kernels.address(maximum), kernels.address(total)
    if call(x.itemsize, algo, int(channel_mode), 0, *arrays, n, c, spatial) != 0:
        return False
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(total, out=total)
        call(x.itemsize, algo, int(channel_mode), 1, *arrays, n, c, spatial)
    return True


def _kernel(log, channel_mode, y, dy, dx, pieces=1):
    """backward() by the C kernel, written into dx, its images in `pieces` parts (parallel.c_pieces); False when
    the references must run or the arrays are not dense compute-type arrays that dx overlaps only as the very
    same view."""
    lib = kernels.lib()
    if lib is None or y.ndim < 2 or not kernels.dense(y, dy, dx) or not kernels.apart(dx, y, dy) or y.size == 0:
        return False
    n, c = y.shape[0], y.shape[1]
    spatial = y.size // (n * c)
    total = scratch.buffer("softmax totals", (pieces, spatial if channel_mode else 1), y.dtype)
    return lib.opemu_kernel_softmax_backward(pieces, y.itemsize, int(log), int(channel_mode),
                                             kernels.streaming(dx), kernels.address(y),
                                             kernels.address(dy), kernels.address(dx), kernels.address(total),
                                             n, c, spatial) == 0
