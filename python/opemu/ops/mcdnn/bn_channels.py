"""The walk over blocks of channels (NCHW-like layouts, per-channel mode, plain ops): a block is read in
place (gathered into scratch when it needs a conversion), reduced, transformed and written back while it
is still in cache."""
import contextlib

import numpy as np

from opemu.core import parallel
from opemu.core.scratch import buffer as _buffer
from opemu.ops.mcdnn import bn_common
from opemu.ops.mcdnn.bn_common import accumulators, backward_coefficients

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
    share = -(-layout.C // parallel.WORKERS) if layout.N * layout.elements >= bn_common.PARALLEL_MIN else layout.C
    k = max(1, min(share, _BLOCK_BYTES // max(per_channel, 1)))
    return [(c, min(c + k, layout.C)) for c in range(0, layout.C, k)], k


def _over_blocks(layout, blocks, fn):
    """fn(block list), each worker a contiguous run of the (shape-fixed) blocks, its ufuncs unbuffered."""
    def part(lo, hi):
        with _unbuffered(layout.spatial):
            fn(blocks[lo:hi])
    parallel.split(len(blocks), part, worth=layout.N * layout.elements >= bn_common.PARALLEL_MIN)


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
    stats = accumulators(workspace, layout.forward_workspace(), (2, layout.C))
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
    sums = accumulators(workspace, layout.backward_workspace(), (2, layout.C))
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
