"""Batch normalization: the kernels shared with the mcdnnNormalization* family, and the mcdnnBatchNormalization*
routines (reference mcdnn.md §3.1, §3.1b, §3.9; seed 3.1.1.2-3.1.1.5, 3.1.1.8-3.1.1.10).

Math (M = elements per statistic: N·spatial per channel, N per activation):
    mean = Σx/M, var = Σ(x-mean)²/M (biased: normalizes y and gives saveInvVariance = 1/sqrt(var+eps));
    running stats: r = (1-f)·r + f·new, the variance unbiased (var·M/(M-1)); f == 1 does not read r;
    y = alpha·act(scale·(x-mean)·invstd + bias [+ z]) + beta·y;
    backward (dy' = dy·act'(y_pre), read from the reserve): dBias = Σdy', dScale = Σdy'·xhat,
    dx = scale·invstd/M·(M·dy' - dBias - xhat·dScale), dz = dy' — data gradients blended with the DataDiff
    pair, dScale/dBias with the ParamDiff pair (betaParamDiff = 1 accumulates).

How: when every data tensor keeps each channel's spatial plane apart (NCHW-like layouts, per-channel
mode, plain ops) the routines walk blocks of channels: a block is read in place (gathered into scratch
when it needs a conversion), reduced (sums over the batch in the compute type then over the plane in
float64; BLAS dot products of rows centred on the fp32-rounded mean — the saved mean in the backward —
corrected in float64), transformed and written back while it is still in cache — one trip to memory, as
the hardware's per-channel kernels make.
Otherwise (NHWC, per activation, the fused ops) they walk images: each image's partial sums around its own
mean, combined in float64 in image order. The blocks are fixed by the shape, never by the thread count, so
results are deterministic. The float64 statistics live in the Ex / Normalization workspace when the app
gives one large enough, else on the host (a NULL workspace of size 0 behaves as the non-Ex routine, as
documented). fp16/bf16 are computed in fp32 and rounded once; double in double.

The reserve space of the fused ops (BN_ACTIVATION, BN_ADD_ACTIVATION: ReLU) holds the activation's
keep mask, one bit per element, image by image: forward writes it, backward reads it — an app that
loses it gets wrong gradients, as on the hardware. Plain BN needs no reserve (size 0).

Decisions where the documents leave room (docs/DESIGN-NOTES.md): the fused ops need NHWC layouts and a
RELU activation (NOT_SUPPORTED otherwise, as the seed states for the layout); ForwardTrainingEx
supports z only for HALF data (its configuration table); bf16 is supported where the seed's tables list
it (ForwardTraining; ForwardInference follows it); dz is blended with the DataDiff pair like dx."""
import contextlib
import math

import numpy as np

from opemu.core import device, mcdnn, parallel
from opemu.core.headers import enum
from opemu.core.mcdnn import ACTIVATION, DATA
from opemu.core.scratch import buffer as _buffer

_INFER = "mcdnn/mcdnn_ops_infer.h"
BN_MODE = enum(_INFER, "mcdnnBatchNormMode_t")
BN_OPS = enum(_INFER, "mcdnnBatchNormOps_t")
NORM_MODE = enum(_INFER, "mcdnnNormMode_t")
NORM_OPS = enum(_INFER, "mcdnnNormOps_t")
NORM_ALGO = enum(_INFER, "mcdnnNormAlgo_t")
BN_MIN_EPSILON = 0.0  # MCDNN_BN_MIN_EPSILON

FLOAT, DOUBLE, HALF, BF16 = (DATA[n] for n in ("MCDNN_DATA_FLOAT", "MCDNN_DATA_DOUBLE", "MCDNN_DATA_HALF",
                                                 "MCDNN_DATA_BFLOAT16"))
PARAM_TYPE = {HALF: FLOAT, BF16: FLOAT, FLOAT: FLOAT, DOUBLE: DOUBLE}
OPS_NORM, OPS_ACTIVATION, OPS_ADD_ACTIVATION = 0, 1, 2  # equal in mcdnnBatchNormOps_t and mcdnnNormOps_t
RELU = ACTIVATION["MCDNN_ACTIVATION_RELU"]
BYTE = DATA["MCDNN_DATA_UINT8"]
_PARALLEL_MIN = 1 << 17


def byte_tensor(nbytes):
    """A descriptor for `nbytes` of raw device memory (workspace, reserve space)."""
    return mcdnn.Tensor(BYTE, (nbytes,), (1,))


# ---------------------------------------------------------------- geometry and threads

def channel_major(*tensors):
    """Whether each tensor keeps every channel's spatial plane apart (the channel stride covers the plane),
    so that a block of channels is a few long runs of memory (NCHW-like, not NHWC)."""
    for t in tensors:
        if t is None:
            continue
        plane = sum((d - 1) * s for d, s in zip(t.shape[2:], t.strides[2:])) + 1
        if t.strides[1] < plane and t.shape[1] > 1:
            return False
    return True


class Layout:
    """x's geometry for a normalization over the batch (per activation) or the batch and the spatial
    dimensions (per channel). Parameters broadcast against one image x[n] with shape `pshape`.
    `by_channels`: the routines walk blocks of channels (see the module text), else images."""

    def __init__(self, shape, per_channel, by_channels=False):
        self.by_channels = per_channel and by_channels
        self.shape = tuple(shape)
        self.N, self.C = shape[0], shape[1]
        self.image = self.shape[1:]
        self.elements = math.prod(self.image)                      # per image
        self.spatial = math.prod(self.shape[2:])
        self.per_channel = per_channel
        self.pshape = (self.C,) + (1,) * (len(shape) - 2) if per_channel else self.image
        self.count = self.N * self.spatial if per_channel else self.N
        self.params = self.C if per_channel else self.elements

    def forward_workspace(self):
        """Bytes of float64 statistics: (mean, variance) per channel when walking channels, (sum, centre, M2)
        per image and channel when walking images, (Σ, Σ²) per activation."""
        if self.by_channels:
            return 16 * self.C
        return 24 * self.N * self.C if self.per_channel else 16 * self.params

    def backward_workspace(self):
        """(Σdy', Σdy'·(x-mean)) per channel, per image and channel, or per activation."""
        if self.by_channels:
            return 16 * self.C
        return 16 * self.N * self.C if self.per_channel else 16 * self.params

    def reserve(self):
        """Bytes of the fused ops' keep mask: one bit per element, a whole number of bytes per image."""
        return -(-self.N * self.row_bytes() // 16) * 16

    def row_bytes(self):
        return -(-self.elements // 8)

    def rows(self, image):
        """An image (C, *spatial) as (C, spatial) for per-channel reductions (a copy when not mergeable)."""
        return image.reshape(self.C, self.spatial)


def _parallel(layout, fn):
    """fn(lo, hi) over image ranges. Every image is computed on its own, so the result does not depend on
    how the batch was split."""
    parallel.split(layout.N, fn, worth=layout.N * layout.elements >= _PARALLEL_MIN)


def _scratch(workspace, nbytes, shape):
    """float64 accumulators: inside the device workspace when it holds them, else on the host."""
    if workspace is not None and workspace.size >= nbytes:
        return workspace[:nbytes].view(np.float64).reshape(shape)
    return np.empty(shape, np.float64)


def _into(scratch, image):
    """The image in the compute type, in scratch when a conversion is needed."""
    if image.dtype == scratch.dtype:
        return image
    scratch[...] = image
    return scratch


# ---------------------------------------------------------------- statistics

def moments(layout, x, ct, workspace=None):
    """(mean, biased variance) in float64, shaped `pshape`."""
    if layout.per_channel:
        parts = _scratch(workspace, layout.forward_workspace(), (3, layout.N, layout.C))
        sums, centres, m2s = parts
        s = layout.spatial

        def run(lo, hi):
            converted = np.empty(layout.image, ct) if x.dtype != ct else None
            deviation = np.empty((layout.C, s), ct)
            for n in range(lo, hi):
                rows = layout.rows(_into(converted, x[n]) if converted is not None else x[n])
                total = np.add.reduce(rows, axis=1)
                centre = (total / ct.type(s)).astype(ct)
                np.subtract(rows, centre[:, None], out=deviation)
                sums[n], centres[n] = total, centre
                m2s[n] = np.einsum("ij,ij->i", deviation, deviation)
        _parallel(layout, run)
        mean = sums.sum(0) / layout.count
        offset = centres - mean
        m2 = (m2s + 2 * offset * (sums - s * centres) + s * offset * offset).sum(0)
        shape = layout.pshape
        return mean.reshape(shape), (m2 / layout.count).reshape(shape)
    total, m2 = _scratch(workspace, layout.forward_workspace(), (2,) + layout.image)
    total[...] = 0
    for n in range(layout.N):
        total += x[n].astype(ct) if x.dtype != ct else x[n]
    mean = total / layout.N
    m2[...] = 0
    for n in range(layout.N):
        d = (x[n].astype(ct) if x.dtype != ct else x[n]) - mean.astype(ct)
        m2 += d * d
    return mean, m2 / layout.N


def invstd(var, epsilon):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 / np.sqrt(var + epsilon)


def unbiased(var, count):
    with np.errstate(divide="ignore", invalid="ignore"):
        return var * (count / np.float64(count - 1)) if count > 1 else var * np.float64(np.nan)


def blend_param(view, value, alpha, beta):
    """A parameter-shaped output (float / double) = alpha·value + beta·prior; beta == 0 never reads it."""
    result = np.asarray(value, np.float64).reshape(view.shape) * alpha
    if beta != 0:
        result = result + beta * view.astype(np.float64)
    view[...] = result


def running_update(view, new, factor):
    """running = (1-factor)·running + factor·new; factor == 1 writes `new` without reading."""
    new = np.asarray(new, np.float64).reshape(view.shape)
    if factor == 1:
        view[...] = new
    else:
        view[...] = (1 - factor) * view.astype(np.float64) + factor * new


def param(view):
    """A parameter tensor broadcast against one image, in float64."""
    return view[0].astype(np.float64)


# ---------------------------------------------------------------- the activation mask

def _relu(r, nan_propagates, mask_row):
    """ReLU in place; its keep bits (r > 0) go to mask_row unless it is None."""
    if mask_row is not None:
        mask_row[...] = np.packbits((r > 0).reshape(-1))
    if nan_propagates:
        np.maximum(r, 0, out=r)
    else:
        np.fmax(r, 0, out=r)


def _keep(mask_row, layout):
    return np.unpackbits(mask_row, count=layout.elements).view(bool).reshape(layout.image)


def mask_rows(reserve, layout):
    return reserve[:layout.N * layout.row_bytes()].reshape(layout.N, layout.row_bytes())


# ---------------------------------------------------------------- forward and backward passes

def normalize(layout, x, y, a, b, ct, alpha, beta, z=None, activation=None, reserve=None):
    """y = alpha·act(a·x + b [+ z]) + beta·y, image by image; a, b float64 shaped `pshape`. With an
    activation the keep mask goes to `reserve`."""
    fused = activation is not None
    if not fused:  # alpha folds into the affine map
        a, b = a * alpha, b * alpha
    a, b = a.astype(ct), b.astype(ct)
    rows = mask_rows(reserve, layout) if reserve is not None else None
    direct = not fused and z is None and beta == 0 and y.dtype == ct

    def run(lo, hi):
        converted = np.empty(layout.image, ct) if x.dtype != ct else None
        result = None if direct else np.empty(layout.image, ct)
        for n in range(lo, hi):
            xn = _into(converted, x[n]) if converted is not None else x[n]
            if direct:
                np.multiply(xn, a, out=y[n])
                np.add(y[n], b, out=y[n])
                continue
            np.multiply(xn, a, out=result)
            result += b
            if z is not None:
                result += z[n].astype(ct) if z.dtype != ct else z[n]
            if fused:
                _relu(result, activation.nan, rows[n] if rows is not None else None)
            mcdnn.write(y[n], result, alpha if fused else 1.0, beta)
    _parallel(layout, run)


def gradient_sums(layout, x, dy, mean, ct, workspace=None, reserve=None, dz=None, alpha=1.0, beta=0.0):
    """(Σdy', Σdy'·(x-mean)) in float64, shaped `pshape`; dy' = dy masked by the reserve's keep bits when
    given. dz (the ADD_ACTIVATION output) is written on the way: alpha·dy' + beta·dz."""
    rows = mask_rows(reserve, layout) if reserve is not None else None
    centre = mean.astype(ct)
    if layout.per_channel:
        parts = _scratch(workspace, layout.backward_workspace(), (2, layout.N, layout.C))
        sum_dy, sum_dyx = parts
        s = layout.spatial

        def run(lo, hi):
            xc = np.empty(layout.image, ct)
            g = np.empty(layout.image, ct) if (rows is not None or dy.dtype != ct) else None
            for n in range(lo, hi):
                gn = _masked(dy[n], rows, n, layout, g)
                if dz is not None:
                    mcdnn.write(dz[n], gn.copy(), alpha, beta)
                np.subtract(x[n], centre, out=xc)
                grows = layout.rows(gn)
                sum_dy[n] = np.add.reduce(grows, axis=1)
                sum_dyx[n] = np.einsum("ij,ij->i", layout.rows(xc), grows)
        _parallel(layout, run)
        return sum_dy.sum(0).reshape(layout.pshape), sum_dyx.sum(0).reshape(layout.pshape)
    sum_dy, sum_dyx = _scratch(workspace, layout.backward_workspace(), (2,) + layout.image)
    sum_dy[...] = 0
    sum_dyx[...] = 0
    g = np.empty(layout.image, ct)
    for n in range(layout.N):
        gn = _masked(dy[n], rows, n, layout, g)
        if dz is not None:
            mcdnn.write(dz[n], gn.copy(), alpha, beta)
        sum_dy += gn
        sum_dyx += gn * (x[n].astype(ct) - centre)
    return sum_dy.copy(), sum_dyx.copy()


def _masked(dyn, rows, n, layout, scratch):
    if rows is None:
        return _into(scratch, dyn) if scratch is not None else dyn
    np.copyto(scratch, dyn, casting="unsafe")
    np.copyto(scratch, 0, where=~_keep(rows[n], layout))
    return scratch


def gradient_input(layout, x, dy, dx, a, b, c, ct, alpha, beta, reserve=None):
    """dx = alpha·(a·dy' + b·x + c) + beta·dx, image by image (a, b, c float64 shaped `pshape`)."""
    rows = mask_rows(reserve, layout) if reserve is not None else None
    a, b, c = (a * alpha).astype(ct), (b * alpha).astype(ct), (c * alpha).astype(ct)

    def run(lo, hi):
        t = np.empty(layout.image, ct)
        g = np.empty(layout.image, ct) if (rows is not None or dy.dtype != ct) else None
        direct = beta == 0 and dx.dtype == ct
        result = None if direct else np.empty(layout.image, ct)
        for n in range(lo, hi):
            np.multiply(x[n], b, out=t)       # before dx is written: dx may be x's memory
            t += c
            gn = _masked(dy[n], rows, n, layout, g)
            if direct:
                np.multiply(gn, a, out=dx[n])
                dx[n] += t
                continue
            np.multiply(gn, a, out=result)
            result += t
            mcdnn.write(dx[n], result, 1.0, beta)
    _parallel(layout, run)


def backward_coefficients(scale, mean, inv, sum_dy, sum_dyx, count):
    """(dScale, dBias, a, b, c) with dx = a·dy' + b·x + c."""
    d_bias = sum_dy
    d_scale = sum_dyx * inv
    a = scale * inv
    b = -scale * inv * inv * d_scale / count
    c = -a * d_bias / count - b * mean
    return d_scale, d_bias, a, b, c


# ---------------------------------------------------------------- walking blocks of channels

def _block_bytes():
    """Scratch per block and array. A worker keeps four block-sized arrays (x, dy, the centred rows, dx) in
    cache between a block's passes; sized so that every worker's four fill about 80% of the shared last-level
    cache. Sweeps of forward + backward at N=32 C=64 H=W=56: 1.6 MB was best on an earlier host; on a 2-core
    EPYC with 32 MiB of L3, 3.2-6.4 MB beat 1.6 MB by ~10% and this rule gives 3.2 MB. 1.6 MB when the
    cache size is unknown."""
    if not parallel.LAST_LEVEL_CACHE:
        return 1600 << 10
    return max(256 << 10, min(8 << 20, parallel.LAST_LEVEL_CACHE * 4 // 5 // (4 * parallel.WORKERS)))


_BLOCK_BYTES = _block_bytes()


def _channel_blocks(layout, ct):
    """Blocks of k channels, at least one per worker when the tensor is worth the threads. A block's results
    do not depend on k (its reductions run along the batch and the plane of each channel, never across
    channels), so a small tensor walks as few blocks as fit, on the calling thread."""
    per_channel = layout.N * layout.spatial * ct.itemsize
    share = -(-layout.C // parallel.WORKERS) if layout.N * layout.elements >= _PARALLEL_MIN else layout.C
    k = max(1, min(share, _BLOCK_BYTES // max(per_channel, 1)))
    return [(c, min(c + k, layout.C)) for c in range(0, layout.C, k)], k


def _over_blocks(layout, blocks, fn):
    """fn(block list), each worker a contiguous run of the (shape-fixed) blocks, its ufuncs unbuffered."""
    def part(lo, hi):
        with _unbuffered(layout.spatial):
            fn(blocks[lo:hi])
    parallel.split(len(blocks), part, worth=layout.N * layout.elements >= _PARALLEL_MIN)


@contextlib.contextmanager
def _unbuffered(run):
    """The calling thread's ufunc buffer no longer than `run` elements (a multiple of 16) while it is held.
    A block is (N, k, spatial) rows that do not merge into one run, and each row has its own coefficient;
    with a buffer longer than a row, NumPy (2.3 and later) copies operands through buffers to make longer
    inner loops, which makes each pass over a block about three times slower than the arithmetic."""
    previous = np.getbufsize()
    np.setbufsize(max(16, min(previous, run // 16 * 16)))
    try:
        yield
    finally:
        np.setbufsize(previous)


def _channel_sums(rows, acc):
    """Per-channel float64 sums of (N, k, spatial) rows: accumulated over the batch in the compute type
    (a ufunc reduction, which releases the GIL while BLAS products do not), then in float64 over the
    spatial positions. `acc`: (k, spatial) scratch."""
    np.add.reduce(rows, axis=0, out=acc)
    return acc.sum(1, dtype=np.float64)


def _rowdot(a, b):
    """Dot products along the last axis: BLAS-speed np.vecdot on NumPy 2, einsum before."""
    if hasattr(np, "vecdot"):
        return np.vecdot(a, b)
    return np.einsum("...i,...i->...", a, b)


def _rows(view, shape):
    """The view reshaped to `shape` without a copy, or None when its strides do not allow it."""
    rows = view.view()
    try:
        rows.shape = shape
    except AttributeError:
        return None
    return rows


class _Block:
    """Channels [c0, c1) of (N, C, ...) tensors as (N, k, spatial) rows: the tensor's own memory when it is
    already in the compute type and its spatial dims merge, else a same-order copy in a thread's scratch."""

    def __init__(self, layout, ct, k, c0, c1):
        self.layout, self.ct, self.c0, self.c1 = layout, ct, c0, c1
        self.kk = c1 - c0
        self.shape = (layout.N, self.kk, layout.spatial)
        self.full = (layout.N, k) + layout.shape[2:]

    def scratch(self, name):
        return _buffer(name, self.full, self.ct)[:, :self.kk].reshape(self.shape)

    def read(self, tensor, name):
        view = tensor[:, self.c0:self.c1]
        if view.dtype == self.ct:
            rows = _rows(view, self.shape)
            if rows is not None:
                return rows
        block = _buffer(name, self.full, self.ct)[:, :self.kk]
        np.copyto(block, view, casting="unsafe")
        return block.reshape(self.shape)

    def target(self, tensor, beta):
        """Rows to write the result straight into, or None (a conversion, a blend or unmergeable strides)."""
        if beta != 0 or tensor.dtype != self.ct:
            return None
        return _rows(tensor[:, self.c0:self.c1], self.shape)

    def write(self, tensor, rows, beta):
        """tensor[:, c0:c1] = rows + beta·tensor (beta == 0 never reads it), rounded once."""
        target = tensor[:, self.c0:self.c1]
        block = rows.reshape(target.shape)
        if beta != 0:
            prior = target.astype(self.ct)
            prior *= self.ct.type(beta)
            block += prior
        np.copyto(target, block, casting="unsafe")


def _column(values, ct):
    return values.astype(ct)[:, None]


def forward_by_channels(layout, x, y, scale, bias, eps, ct, alpha, beta, workspace=None):
    """Training forward walking channel blocks: y = alpha·(scale·(x-mean)·invstd + bias) + beta·y. Returns
    (mean, biased variance, invstd), float64 per channel. Each block is centred on its fp32-rounded mean
    (the variance corrects for that rounding) and transformed while it is in cache."""
    blocks, k = _channel_blocks(layout, ct)
    stats = _scratch(workspace, layout.forward_workspace(), (2, layout.C))
    scale, bias = scale.reshape(-1), bias.reshape(-1)
    count = layout.count

    def run(mine):
        acc = _buffer("acc", (k, layout.spatial), ct)
        for c0, c1 in mine:
            block = _Block(layout, ct, k, c0, c1)
            rows = block.read(x, "x")
            mean = _channel_sums(rows, acc[:c1 - c0]) / count
            centre = mean.astype(ct)
            t = block.scratch("t")
            np.subtract(rows, centre[:, None], out=t)
            var = np.maximum(_rowdot(t, t).sum(0, dtype=np.float64) / count - (mean - centre) ** 2, 0)
            inv = 1 / np.sqrt(var + eps)
            a = scale[c0:c1] * inv
            b = bias[c0:c1] + a * (centre - mean)     # t holds x - centre
            t *= _column(a * alpha, ct)
            out = block.target(y, beta)
            if out is not None:
                np.add(t, _column(b * alpha, ct), out=out)   # y is written once, in the last pass
            else:
                t += _column(b * alpha, ct)
                block.write(y, t, beta)
            stats[0, c0:c1], stats[1, c0:c1] = mean, var
    _over_blocks(layout, blocks, run)
    mean, var = stats[0].copy(), stats[1].copy()
    with np.errstate(divide="ignore"):
        return mean, var, 1 / np.sqrt(var + eps)


def backward_by_channels(layout, x, dy, dx, scale, mean, inv, eps, ct, alpha, beta, workspace=None):
    """Backward walking channel blocks. mean/inv None: recomputed from x. Returns (dScale, dBias)."""
    blocks, k = _channel_blocks(layout, ct)
    sums = _scratch(workspace, layout.backward_workspace(), (2, layout.C))
    scale = scale.reshape(-1)
    mean = None if mean is None else mean.reshape(-1)
    inv = None if inv is None else inv.reshape(-1)
    count = layout.count

    def run(mine):
        acc = _buffer("acc", (k, layout.spatial), ct)
        for c0, c1 in mine:
            block = _Block(layout, ct, k, c0, c1)
            rows = block.read(x, "x")
            if mean is None:
                m = _channel_sums(rows, acc[:c1 - c0]) / count
            else:
                m = mean[c0:c1]
            centre = m.astype(ct)
            t = block.scratch("t")
            np.subtract(rows, centre[:, None], out=t)
            if mean is None:
                var = np.maximum(_rowdot(t, t).sum(0, dtype=np.float64) / count - (m - centre) ** 2, 0)
                i = 1 / np.sqrt(var + eps)
            else:
                i = inv[c0:c1]
            g = block.read(dy, "dy")
            sum_dy = _channel_sums(g, acc[:c1 - c0])
            sum_dyx = _rowdot(t, g).sum(0, dtype=np.float64) - (m - centre) * sum_dy
            d_scale, d_bias, a, b, c = backward_coefficients(scale[c0:c1], m, i, sum_dy, sum_dyx, count)
            t *= _column(b * alpha, ct)                   # dx = a·dy + b·(x - centre) + c + b·centre
            t += _column((c + b * centre) * alpha, ct)
            out = block.target(dx, beta)
            if out is not None:
                np.multiply(g, _column(a * alpha, ct), out=out)
                out += t
            else:
                result = block.scratch("dx")
                np.multiply(g, _column(a * alpha, ct), out=result)
                result += t
                block.write(dx, result, beta)
            sums[0, c0:c1], sums[1, c0:c1] = d_scale, d_bias
    _over_blocks(layout, blocks, run)
    return sums[0].copy(), sums[1].copy()


# ---------------------------------------------------------------- checks shared by both families

def tensor_rank(*named):
    for name, t in named:
        if t is not None and t.ndim not in (4, 5):
            raise mcdnn.bad_param("%s has %d dimensions: only 4-D and 5-D tensors are supported" % (name, t.ndim))


def param_layout(name, t, x, per_channel, mode_name):
    expected = (1, x.shape[1]) + ((1,) * (x.ndim - 2) if per_channel else x.shape[2:])
    if t.shape != expected:
        raise mcdnn.bad_param("%s has dims %s: %s on a %d-D x %s needs %s"
                              % (name, list(t.shape), mode_name, x.ndim, list(x.shape), list(expected)))


def null_pair(a, first, second):
    if mcdnn.is_null(getattr(a, first)) != mcdnn.is_null(getattr(a, second)):
        raise mcdnn.bad_param("only one of %s and %s is NULL: they may be NULL only together" % (first, second))


def epsilon_at_least(epsilon, minimum, what):
    if not epsilon >= minimum:
        raise mcdnn.bad_param("epsilon %r is less than %s" % (epsilon, what))


def matching(first, *others):
    mcdnn.same_dims(mcdnn.bad_param, first, *others)
    mcdnn.same_type(mcdnn.bad_param, first, *others)


def configuration(x_name, x, params, allowed):
    """NOT_SUPPORTED for a data type outside the routine's configuration table: x's type, and the
    parameter descriptors' (float for HALF/BFLOAT16/FLOAT data, double for DOUBLE)."""
    if x.dtype_code not in allowed:
        names = ", ".join(mcdnn.type_name(t) for t in allowed)
        raise mcdnn.not_supported("%s has data type %s: the supported configurations are %s"
                                  % (x_name, mcdnn.type_name(x.dtype_code), names))
    for name, t in params:
        if t is not None and t.dtype_code != PARAM_TYPE[x.dtype_code]:
            raise mcdnn.not_supported("%s has data type %s: %s data needs %s parameters"
                                      % (name, mcdnn.type_name(t.dtype_code), mcdnn.type_name(x.dtype_code),
                                         mcdnn.type_name(PARAM_TYPE[x.dtype_code])))


def channels_innermost(t):
    return t.shape[1] == 1 or (t.strides[1] == 1 and all(s >= t.shape[1] for i, s in enumerate(t.strides) if i != 1))


def fused_supported(ops_name, activation, named):
    """The fused ops: a RELU activation on NHWC tensors (NOT_SUPPORTED otherwise)."""
    if activation.mode != RELU:
        raise mcdnn.not_supported("%s fuses only MCDNN_ACTIVATION_RELU, the activation descriptor holds mode %d"
                                  % (ops_name, activation.mode))
    for name, t in named:
        if t is not None and not channels_innermost(t):
            raise mcdnn.not_supported("%s is supported only in the NHWC layout: %s has strides %s"
                                      % (ops_name, name, list(t.strides)))


def scalars(a, pairs, x):
    """Reads the named host scaling factors (float, or double for DOUBLE data) into a.<name>_value."""
    for name in pairs:
        setattr(a, name + "_value", mcdnn.scaling(getattr(a, name), x, name))


# ---------------------------------------------------------------- the routines, both families

class Normalization(mcdnn.McdnnOp):
    """The parts of a BN / normalization routine: `roles` names its parameters (role → header name);
    `family` is "bn" or "norm"; `stage` is "inference", "training" or "backward"."""
    roles = {}
    family = "bn"
    stage = None
    data_types = (HALF, FLOAT, DOUBLE, BF16)

    def __init_subclass__(cls, **kwargs):
        r = cls.roles
        if r and not cls.host_only:
            pairs = [("x", "xd"), ("y", "yd"), ("z", "zd"), ("dy", "dyd"), ("dx", "dxd"), ("dz", "dzd"),
                     ("scale", "pd"), ("bias", "pd"), ("dscale", "pd"), ("dbias", "pd"),
                     ("rmean", "mvd"), ("rvar", "mvd"), ("smean", "mvd"), ("sinv", "mvd"),
                     ("emean", "mvd"), ("evar", "mvd")]
            tensors = {r[p]: (r[d] if d in r else r["pd"]) for p, d in pairs if p in r}
            if "ws" in r:
                tensors[r["ws"]] = "_workspace_desc"
            if "rs" in r:
                tensors[r["rs"]] = "_reserve_desc"
            cls.tensors = tensors
            cls.outputs = tuple(r[p] for p in ("y", "dx", "dz", "dscale", "dbias", "rmean", "rvar", "smean", "sinv",
                                               "ws", "rs") if p in r)
        super().__init_subclass__(**kwargs)

    def check(self, a):
        """The stage's checks, once per verdict key: a call like one that passed gets that call's derived
        attributes (the `_` ones: layout, compute type, workspace and reserve descriptors) and reads only its
        scaling factors."""
        mcdnn.checked(_verdict_key(self, a), self.stage_check, a)
        read_scalars(self, a)

    def stage_check(self, a):
        {"inference": check_inference, "training": check_training, "backward": check_backward}[self.stage](self, a)

    def compute(self, a, v):
        {"inference": inference_compute, "training": training_compute,
         "backward": backward_compute}[self.stage](self, a, v)

    # -- argument access by role
    def get(self, a, role):
        name = self.roles.get(role)
        return getattr(a, name) if name else None

    def name_of(self, role):
        return self.roles[role]

    def null(self, a, role):
        value = self.get(a, role)
        return value is None or (not isinstance(value, (mcdnn.Tensor, mcdnn.Struct)) and mcdnn.is_null(value))

    # -- the family's enums
    def per_channel(self, a):
        mode = self.get(a, "mode")
        if self.family == "bn":
            if mode not in BN_MODE.values():
                raise mcdnn.bad_param("invalid mcdnnBatchNormMode_t %d" % mode)
            return mode != BN_MODE["MCDNN_BATCHNORM_PER_ACTIVATION"]
        if mode not in NORM_MODE.values():
            raise mcdnn.bad_param("invalid mcdnnNormMode_t %d" % mode)
        return mode == NORM_MODE["MCDNN_NORM_PER_CHANNEL"]

    def mode_name(self, a):
        mode = self.get(a, "mode")
        table = BN_MODE if self.family == "bn" else NORM_MODE
        return next(k for k, v in table.items() if v == mode)

    def ops(self, a):
        if "ops" not in self.roles:
            return OPS_NORM
        ops = self.get(a, "ops")
        table, type_name = (BN_OPS, "mcdnnBatchNormOps_t") if self.family == "bn" else (NORM_OPS, "mcdnnNormOps_t")
        if ops not in table.values():
            raise mcdnn.bad_param("invalid %s %d" % (type_name, ops))
        return ops

    def ops_name(self, ops):
        table = BN_OPS if self.family == "bn" else NORM_OPS
        return next(k for k, v in table.items() if v == ops)

    def family_checks(self, a):
        """Normalization only: algo and groupCnt."""
        if self.family != "norm":
            return
        if self.get(a, "algo") not in NORM_ALGO.values():
            raise mcdnn.bad_param("invalid mcdnnNormAlgo_t %d" % self.get(a, "algo"))

    def group_count(self, a):
        if self.family == "norm" and self.get(a, "groups") != 1:
            raise mcdnn.not_supported("groupCnt is %d: only 1 is supported" % self.get(a, "groups"))

    def epsilon(self, a):
        if self.family == "bn":
            epsilon_at_least(self.get(a, "eps"), BN_MIN_EPSILON, "MCDNN_BN_MIN_EPSILON (%g)" % BN_MIN_EPSILON)
        else:
            epsilon_at_least(self.get(a, "eps"), 0.0, "0")

    # -- the descriptor checks every routine and its size query share
    def descriptor_checks(self, a, per_channel, ops):
        """BAD_PARAM for ranks, parameter layouts and mismatched data tensors, in the seed's order; the
        fused ops' extra tensors and descriptor."""
        r = self.roles
        data = [(r[k], self.get(a, k)) for k in ("xd", "yd", "dyd", "dxd") if k in r]
        tensor_rank(*data)
        x = self.get(a, "xd")
        for role in ("pd", "mvd"):
            if role in r and self.get(a, role) is not None:
                param_layout(r[role], self.get(a, role), x, per_channel, self.mode_name(a))
        return data

    def fused_checks(self, a, ops, with_z, with_dz):
        """BAD_PARAM for what the fused ops need; returns the activation snapshot (None for plain ops)."""
        if ops == OPS_NORM:
            return None
        name = self.ops_name(ops)
        if self.get(a, "act") is None:
            raise mcdnn.bad_param("activationDesc is NULL: %s needs it" % name)
        x = self.get(a, "xd")
        if ops == OPS_ADD_ACTIVATION:
            for role in (("z", "zd") if with_z else ()) + (("dz", "dzd") if with_dz else ()):
                if self.null(a, role):
                    raise mcdnn.bad_param("%s is NULL: %s needs it" % (self.name_of(role), name))
            for role in (("zd",) if with_z else ()) + (("dzd",) if with_dz else ()):
                t = self.get(a, role)
                if t is not None:
                    matching((self.name_of("xd"), x), (self.name_of(role), t))
        return self.get(a, "act")

    def write_size(self, a, value):
        device.ffi.cast("size_t *", self.get(a, "size"))[0] = int(value)


# ---------------------------------------------------------------- verdicts kept between calls

def _verdict_key(op, a):
    """Everything the checks read: the numbers (mode, ops, epsilon, sizes…), the descriptor snapshots (shared
    per distinct C content by the bridge, and kept alive by the key: equal identity is equal content) and,
    of each pointer, only whether it is null (no check compares addresses; the scaling factors behind
    theirs are read at every call)."""
    null = device.ffi.NULL
    key = [op.name]
    for value in a.__dict__.values():
        if value is None or isinstance(value, (int, float, mcdnn.Tensor, mcdnn.Struct)):
            key.append(value)
        else:
            key.append(value == null)
    return tuple(key)


def read_scalars(op, a):
    """The stage's host scaling factors into a.<name>_value (and a.alpha_value / a.beta_value for the
    forward stages)."""
    r = op.roles
    if op.stage == "backward":
        scalars(a, ("alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff"), op.get(a, "xd"))
        return
    scalars(a, (r["alpha"], r["beta"]), op.get(a, "xd"))
    a.alpha_value, a.beta_value = getattr(a, r["alpha"] + "_value"), getattr(a, r["beta"] + "_value")


# ---------------------------------------------------------------- compute of the three stages

def inference_compute(op, a, v):
    layout, ct = a._layout, a._ct
    scale, bias = param(v[op.name_of("scale")]), param(v[op.name_of("bias")])
    mean, var = param(v[op.name_of("emean")]), param(v[op.name_of("evar")])
    inv = invstd(var, op.get(a, "eps"))
    a_coef = scale * inv
    b_coef = bias - mean * a_coef
    z = v.get(op.roles.get("z")) if a._ops == OPS_ADD_ACTIVATION else None
    normalize(layout, v[op.name_of("x")], v[op.name_of("y")], a_coef, b_coef, ct, a.alpha_value, a.beta_value, z=z,
              activation=a._activation)  # inference keeps no mask


def training_compute(op, a, v):
    layout, ct = a._layout, a._ct
    x = v[op.name_of("x")]
    workspace = v.get(op.roles.get("ws"))
    eps = op.get(a, "eps")
    scale, bias = param(v[op.name_of("scale")]), param(v[op.name_of("bias")])
    if layout.by_channels:
        mean, var, inv = forward_by_channels(layout, x, v[op.name_of("y")], scale, bias, eps, ct, a.alpha_value,
                                             a.beta_value, workspace)
        mean, var, inv = (t.reshape(layout.pshape) for t in (mean, var, inv))
    else:
        mean, var = moments(layout, x, ct, workspace)
        inv = invstd(var, eps)
        a_coef = scale * inv
        b_coef = bias - mean * a_coef
        z = v.get(op.roles.get("z")) if a._ops == OPS_ADD_ACTIVATION else None
        reserve = v.get(op.roles.get("rs")) if a._activation is not None else None
        normalize(layout, x, v[op.name_of("y")], a_coef, b_coef, ct, a.alpha_value, a.beta_value, z=z,
                  activation=a._activation, reserve=reserve)
    factor = op.get(a, "factor")
    if v.get(op.roles["rmean"]) is not None:
        running_update(v[op.roles["rmean"]], mean, factor)
        running_update(v[op.roles["rvar"]], unbiased(var, layout.count), factor)
    if v.get(op.roles["smean"]) is not None:
        v[op.roles["smean"]][...] = mean.reshape(v[op.roles["smean"]].shape)
        v[op.roles["sinv"]][...] = inv.reshape(v[op.roles["sinv"]].shape)


def backward_compute(op, a, v):
    layout, ct = a._layout, a._ct
    x, dy, dx = v[op.name_of("x")], v[op.name_of("dy")], v[op.name_of("dx")]
    workspace = v.get(op.roles.get("ws"))
    saved_mean = v.get(op.roles["smean"])
    scale = param(v[op.name_of("scale")])
    if layout.by_channels:
        mean = inv = None
        if saved_mean is not None:
            mean, inv = param(saved_mean), param(v[op.roles["sinv"]])
        d_scale, d_bias = backward_by_channels(layout, x, dy, dx, scale, mean, inv, op.get(a, "eps"), ct,
                                               a.alphaDataDiff_value, a.betaDataDiff_value, workspace)
        blend_param(v[op.name_of("dscale")], d_scale, a.alphaParamDiff_value, a.betaParamDiff_value)
        blend_param(v[op.name_of("dbias")], d_bias, a.alphaParamDiff_value, a.betaParamDiff_value)
        return
    if saved_mean is not None:
        mean, inv = param(saved_mean), param(v[op.roles["sinv"]])
    else:
        mean, var = moments(layout, x, ct, workspace)
        inv = invstd(var, op.get(a, "eps"))
    reserve = v.get(op.roles.get("rs")) if a._activation is not None else None
    dz = v.get(op.roles.get("dz")) if a._ops == OPS_ADD_ACTIVATION else None
    sum_dy, sum_dyx = gradient_sums(layout, x, dy, mean, ct, workspace, reserve, dz, a.alphaDataDiff_value,
                                    a.betaDataDiff_value)
    d_scale, d_bias, a_coef, b_coef, c_coef = backward_coefficients(scale, mean, inv, sum_dy, sum_dyx, layout.count)
    gradient_input(layout, x, dy, dx, a_coef, b_coef, c_coef, ct, a.alphaDataDiff_value, a.betaDataDiff_value,
                   reserve)
    blend_param(v[op.name_of("dscale")], d_scale, a.alphaParamDiff_value, a.betaParamDiff_value)
    blend_param(v[op.name_of("dbias")], d_bias, a.alphaParamDiff_value, a.betaParamDiff_value)


# ---------------------------------------------------------------- check of the three stages

def _prepare(op, a, per_channel, ops, activation):
    x = op.get(a, "xd")
    a._layout = Layout(x.shape, per_channel, activation is None and channel_major(*_data(op, a)))
    a._ct = x.compute_dtype
    a._ops = ops
    a._activation = activation


def _workspace(op, a, nbytes):
    """The optional workspace (at most `nbytes` of it are used): each set of partial statistics goes there
    when it fits, else to the host — a NULL workspace of size 0 runs the routine as its non-Ex form."""
    a._workspace_desc = None
    if "ws" in op.roles and not op.null(a, "ws") and op.get(a, "wsize") > 0:
        a._workspace_desc = byte_tensor(min(op.get(a, "wsize"), nbytes))


def _reserve(op, a, layout, activation):
    """The reserve space: the keep mask of the fused ops; plain ops use none (size 0)."""
    a._reserve_desc = None
    if "rs" not in op.roles or activation is None:
        return
    need = layout.reserve()
    if op.null(a, "rs"):
        raise mcdnn.bad_param("reserveSpace is NULL: %s keeps its activation mask there (%d bytes)"
                              % (op.ops_name(a._ops), need))
    if op.get(a, "rsize") < need:
        raise mcdnn.bad_param("reserveSpaceSizeInBytes %d is less than the %d bytes the reserve-space size query "
                              "returns" % (op.get(a, "rsize"), need))
    a._reserve_desc = byte_tensor(need)


def check_inference(op, a):
    r = op.roles
    mcdnn.require(a, r["alpha"], r["beta"], r["x"], r["y"], r["scale"], r["bias"], r["emean"], r["evar"])
    mcdnn.require(a, r["xd"], r["yd"], r["pd"], *([r["mvd"]] if "mvd" in r else []))
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    op.descriptor_checks(a, per_channel, ops)
    op.epsilon(a)
    matching((r["xd"], op.get(a, "xd")), (r["yd"], op.get(a, "yd")))
    activation = op.fused_checks(a, ops, with_z=True, with_dz=False)
    read_scalars(op, a)
    op.group_count(a)
    _config(op, a)
    if activation is not None:
        fused_supported(op.ops_name(ops), activation, _data_named(op, a))
    _prepare(op, a, per_channel, ops, activation)


def check_training(op, a):
    r = op.roles
    mcdnn.require(a, r["alpha"], r["beta"], r["x"], r["y"], r["scale"], r["bias"])
    mcdnn.require(a, r["xd"], r["yd"], r["pd"])
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    if "mvd" in r and op.get(a, "mvd") is None and not (op.null(a, "smean") and op.null(a, "rmean")):
        raise mcdnn.bad_param("%s is NULL but the running or saved statistics are not" % r["mvd"])
    op.descriptor_checks(a, per_channel, ops)
    null_pair(a, r["smean"], r["sinv"])
    null_pair(a, r["rmean"], r["rvar"])
    op.epsilon(a)
    matching((r["xd"], op.get(a, "xd")), (r["yd"], op.get(a, "yd")))
    activation = op.fused_checks(a, ops, with_z=True, with_dz=False)
    read_scalars(op, a)
    op.group_count(a)
    _config(op, a)
    if activation is not None:
        fused_supported(op.ops_name(ops), activation, _data_named(op, a))
    _prepare(op, a, per_channel, ops, activation)
    _workspace(op, a, a._layout.forward_workspace())
    _reserve(op, a, a._layout, activation)


def check_backward(op, a):
    r = op.roles
    mcdnn.require(a, "alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff", r["x"], r["dy"], r["dx"],
                  r["scale"], r["dscale"], r["dbias"])
    mcdnn.require(a, r["xd"], r["dyd"], r["dxd"], r["pd"])
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    if "mvd" in r and op.get(a, "mvd") is None and not op.null(a, "smean"):
        raise mcdnn.bad_param("%s is NULL but savedMean and savedInvVariance are not" % r["mvd"])
    op.descriptor_checks(a, per_channel, ops)
    null_pair(a, r["smean"], r["sinv"])
    op.epsilon(a)
    matching((r["xd"], op.get(a, "xd")), (r["dyd"], op.get(a, "dyd")), (r["dxd"], op.get(a, "dxd")))
    if "mvd" in r and op.get(a, "mvd") is not None:
        mcdnn.same_type(mcdnn.bad_param, (r["pd"], op.get(a, "pd")), (r["mvd"], op.get(a, "mvd")))
    activation = op.fused_checks(a, ops, with_z=False, with_dz=True)
    if activation is not None:
        for role in ("y", "yd", "bias"):
            if op.null(a, role):
                raise mcdnn.bad_param("%s is NULL: %s needs it" % (r[role], op.ops_name(ops)))
        matching((r["xd"], op.get(a, "xd")), (r["yd"], op.get(a, "yd")))
    read_scalars(op, a)
    op.group_count(a)
    _config(op, a)
    if activation is not None:
        fused_supported(op.ops_name(ops), activation, _data_named(op, a))
    _prepare(op, a, per_channel, ops, activation)
    layout = a._layout  # without saved statistics the forward partials are recomputed first
    _workspace(op, a, max(layout.backward_workspace(), layout.forward_workspace() if op.null(a, "smean") else 0))
    _reserve(op, a, layout, activation)


def _data(op, a):
    return [op.get(a, k) for k in ("xd", "yd", "dyd", "dxd") if k in op.roles]


def _data_named(op, a):
    return [(op.roles[k], op.get(a, k)) for k in ("xd", "yd", "zd", "dyd", "dxd", "dzd") if k in op.roles]


def _config(op, a):
    r = op.roles
    params = [(r[k], op.get(a, k)) for k in ("pd", "mvd") if k in r]
    configuration(r["xd"], op.get(a, "xd"), params, op.data_types)
    z_types = getattr(op, "z_types", None)
    if z_types is not None and op.ops(a) == OPS_ADD_ACTIVATION and op.get(a, "xd").dtype_code not in z_types:
        raise mcdnn.not_supported("zDesc is not supported with %s data: only %s"
                                  % (mcdnn.type_name(op.get(a, "xd").dtype_code),
                                     ", ".join(mcdnn.type_name(t) for t in z_types)))


def check_size_query(op, a, stage):
    """The workspace / reserve size queries: the routine's descriptor checks, then the size."""
    r = op.roles
    mcdnn.require(a, r["size"], what="must not be null: the size is written there")
    mcdnn.require(a, r["xd"])
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    if "pd" in r:
        mcdnn.require(a, r["pd"])
    op.descriptor_checks(a, per_channel, ops)
    data = [(r[k], op.get(a, k)) for k in ("xd", "yd", "dyd", "dxd") if k in r and op.get(a, k) is not None]
    if ops == OPS_ADD_ACTIVATION:
        data += [(r[k], op.get(a, k)) for k in ("zd", "dzd") if k in r and op.get(a, k) is not None]
    if len(data) > 1:
        matching(*data)
    activation = None
    if ops != OPS_NORM:
        if op.get(a, "act") is None:
            raise mcdnn.bad_param("activationDesc is NULL: %s needs it" % op.ops_name(ops))
        activation = op.get(a, "act")
    op.group_count(a)
    if activation is not None:
        fused_supported(op.ops_name(ops), activation, _data_named(op, a))
    layout = Layout(op.get(a, "xd").shape, per_channel, activation is None and channel_major(*_data(op, a)))
    a._size = {"forward": layout.forward_workspace(), "backward": layout.backward_workspace(),
               "reserve": layout.reserve() if activation is not None else 0}[stage]


# ---------------------------------------------------------------- mcdnnBatchNormalization*

_BN_TRAIN = (HALF, FLOAT, DOUBLE, BF16)   # ForwardTraining's table lists PSEUDO_BFLOAT16_CONFIG
_BN_EX = (HALF, FLOAT, DOUBLE)            # ForwardTrainingEx, Backward, BackwardEx


class BatchNormalizationForwardInference(Normalization):
    name = "mcdnnBatchNormalizationForwardInference"
    stage = "inference"
    roles = dict(mode="mode", alpha="alpha", beta="beta", xd="xDesc", x="x", yd="yDesc", y="y",
                 pd="bnScaleBiasMeanVarDesc", scale="bnScale", bias="bnBias", emean="estimatedMean",
                 evar="estimatedVariance", eps="epsilon")



class BatchNormalizationForwardTraining(Normalization):
    name = "mcdnnBatchNormalizationForwardTraining"
    stage = "training"
    data_types = _BN_TRAIN
    roles = dict(mode="mode", alpha="alpha", beta="beta", xd="xDesc", x="x", yd="yDesc", y="y",
                 pd="bnScaleBiasMeanVarDesc", scale="bnScale", bias="bnBias", factor="exponentialAverageFactor",
                 rmean="resultRunningMean", rvar="resultRunningVariance", eps="epsilon", smean="resultSaveMean",
                 sinv="resultSaveInvVariance")



class BatchNormalizationForwardTrainingEx(Normalization):
    name = "mcdnnBatchNormalizationForwardTrainingEx"
    stage = "training"
    data_types = _BN_EX
    z_types = (HALF,)
    roles = dict(mode="mode", ops="bnOps", alpha="alpha", beta="beta", xd="xDesc", x="xData", zd="zDesc", z="zData",
                 yd="yDesc", y="yData", pd="bnScaleBiasMeanVarDesc", scale="bnScale", bias="bnBias",
                 factor="exponentialAverageFactor", rmean="resultRunningMean", rvar="resultRunningVariance",
                 eps="epsilon", smean="resultSaveMean", sinv="resultSaveInvVariance", act="activationDesc",
                 ws="workspace", wsize="workSpaceSizeInBytes", rs="reserveSpace", rsize="reserveSpaceSizeInBytes")



class BatchNormalizationBackward(Normalization):
    name = "mcdnnBatchNormalizationBackward"
    stage = "backward"
    data_types = _BN_EX
    roles = dict(mode="mode", xd="xDesc", x="x", dyd="dyDesc", dy="dy", dxd="dxDesc", dx="dx",
                 pd="dBnScaleBiasDesc", scale="bnScale", dscale="dBnScaleResult", dbias="dBnBiasResult",
                 eps="epsilon", smean="savedMean", sinv="savedInvVariance")



class BatchNormalizationBackwardEx(Normalization):
    name = "mcdnnBatchNormalizationBackwardEx"
    stage = "backward"
    data_types = _BN_EX
    roles = dict(mode="mode", ops="bnOps", xd="xDesc", x="xData", yd="yDesc", y="yData", dyd="dyDesc", dy="dyData",
                 dzd="dzDesc", dz="dzData", dxd="dxDesc", dx="dxData", pd="dBnScaleBiasDesc", scale="bnScaleData",
                 bias="bnBiasData", dscale="dBnScaleData", dbias="dBnBiasData", eps="epsilon", smean="savedMean",
                 sinv="savedInvVariance", act="activationDesc", ws="workSpace", wsize="workSpaceSizeInBytes",
                 rs="reserveSpace", rsize="reserveSpaceSizeInBytes")



class _SizeQuery(Normalization):
    host_only = True
    query = None

    def check(self, a):
        check_size_query(self, a, self.query)

    def compute(self, a, v):
        self.write_size(a, a._size)


class GetBatchNormalizationForwardTrainingExWorkspaceSize(_SizeQuery):
    name = "mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize"
    query = "forward"
    roles = dict(mode="mode", ops="bnOps", xd="xDesc", zd="zDesc", yd="yDesc", pd="bnScaleBiasMeanVarDesc",
                 act="activationDesc", size="sizeInBytes")


class GetBatchNormalizationBackwardExWorkspaceSize(_SizeQuery):
    name = "mcdnnGetBatchNormalizationBackwardExWorkspaceSize"
    query = "backward"
    roles = dict(mode="mode", ops="bnOps", xd="xDesc", yd="yDesc", dyd="dyDesc", dzd="dzDesc", dxd="dxDesc",
                 pd="dBnScaleBiasDesc", act="activationDesc", size="sizeInBytes")


class GetBatchNormalizationTrainingExReserveSpaceSize(_SizeQuery):
    name = "mcdnnGetBatchNormalizationTrainingExReserveSpaceSize"
    query = "reserve"
    roles = dict(mode="mode", ops="bnOps", act="activationDesc", xd="xDesc", size="sizeInBytes")
