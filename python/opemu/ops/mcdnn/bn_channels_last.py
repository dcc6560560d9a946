"""The per-channel walk of channels-innermost (NHWC) tensors with plain ops: x as (N·H·W, C) rows, every
channel of a row at once, the statistics over the rows. The C kernels (opemu_kernel_bn_*_nhwc) and their
references: each pass walks the rows in order; position p's terms go to lane p mod LANES of their channel
(each lane from +0, the last block padded with +0), lane i += lane i + w for w = LANES/2, ..., 1; the
float64 steps are bn_common's. Half / bfloat16 data and blends (beta != 0) keep the walk over images."""
import numpy as np

from opemu.core import device, kernels, parallel
from opemu.core.scratch import buffer as _buffer
from opemu.ops.mcdnn import bn_common
from opemu.ops.mcdnn.bn_common import (accumulators, finish_statistics, forward_coefficients, gradient_coefficients,
                                       reshaped, shift_of)

LANES = 16
_SPLIT = 16   # channels per worker come in multiples of 16: a worker's part of a row is whole cache lines


def channel_rows(t):
    """A (N, C, spatial...) tensor as (N·spatial, C) rows without a copy, or None."""
    return reshaped(np.moveaxis(t, 1, -1), (t.size // t.shape[1], t.shape[1]))


def position_sums(rows, term, dtype=None):
    """Per-channel sums of term(rows) for (M, C) rows in `dtype` (default: the compute type): `term(out)`
    writes the (M, C) terms into `out` of that type."""
    m, c = rows.shape
    padded = -(-m // LANES) * LANES
    terms = _buffer("bn position lanes", (padded, c), dtype or rows.dtype)
    terms[m:] = 0
    term(terms[:m])
    lanes = np.add.reduce(terms.reshape(padded // LANES, LANES, c), axis=0, initial=0)
    width = LANES // 2
    while width:
        lanes = lanes[:width] + lanes[width:2 * width]
        width //= 2
    return lanes[0]


def statistics(rows):
    """(mean, biased variance) per channel from Σd and Σd² of d = x - shift in float64 (shift: the first row)."""
    shift = shift_of(rows[0].astype(np.float64))

    def squares(out):
        np.subtract(rows, shift, out=out)
        np.multiply(out, out, out=out)
    return finish_statistics(shift, position_sums(rows, lambda out: np.subtract(rows, shift, out=out), np.float64),
                             position_sums(rows, squares, np.float64), rows.shape[0])


def backward_reference(x, dy, dx, scale, mean, inv, eps, alpha, d_scale, d_bias):
    """dx = dy·k0 + ((x - centre)·k1 + k2) of (M, C) rows; dScale, dBias into d_scale, d_bias."""
    ct = x.dtype
    if mean is None:
        mean, var = statistics(x)
        inv = 1 / np.sqrt(var + eps)
    centre = mean.astype(ct)

    def products(out):
        np.subtract(x, centre, out=out)
        np.multiply(dy, out, out=out)
    d_scale[...], d_bias[...], k0, k1, k2 = gradient_coefficients(
        scale, mean, inv, centre, position_sums(x, lambda out: np.copyto(out, dy)), position_sums(x, products),
        x.shape[0], alpha)
    t = _buffer("bn centred rows", x.shape, ct)
    np.subtract(x, centre, out=t)          # before dx is written: dx may be x
    t *= k1.astype(ct)
    t += k2.astype(ct)
    np.multiply(dy, k0.astype(ct), out=dx)
    dx += t


def forward_reference(x, y, scale, bias, eps, alpha, mean, var):
    """y = (x - centre)·k1 + k2 of (M, C) rows; the mean and biased variance into mean, var."""
    ct = x.dtype
    mean[...], var[...] = statistics(x)
    centre = mean.astype(ct)
    k1, k2 = forward_coefficients(scale, bias, mean, 1 / np.sqrt(var + eps), centre, alpha)
    t = _buffer("bn centred rows", x.shape, ct)
    np.subtract(x, centre, out=t)
    t *= k1.astype(ct)
    np.add(t, k2.astype(ct), out=y)


def _rows_of(layout, ct, beta, *tensors):
    """(M, C) rows of each tensor when the channels-last walk takes them (the compute type, no blend)."""
    if beta != 0:
        return None
    rows = [channel_rows(t) if t.dtype == ct else None for t in tensors]
    if any(r is None or (r.strides[1] != r.itemsize and r.shape[1] > 1) for r in rows):
        return None
    out, inputs = rows[-1], rows[:-1]
    if not kernels.apart(out, *inputs):
        return None
    return rows


def _ranges(layout):
    """Channel ranges, one per worker when the tensor is worth the threads, in multiples of _SPLIT."""
    c = layout.C
    parts = parallel.WORKERS if layout.N * layout.elements >= bn_common.PARALLEL_MIN else 1
    step = max(_SPLIT, -(-c // parts // _SPLIT) * _SPLIT)
    return [(lo, min(lo + step, c)) for lo in range(0, c, step)]


def _run(layout, call):
    ranges = _ranges(layout)
    parallel.split(len(ranges), lambda lo, hi: [call(*r) for r in ranges[lo:hi]], worth=len(ranges) > 1)


def _doubles(array, lo):
    return kernels.null() if array is None else device.ffi.from_buffer("double[]", array) + lo


def _scratch(channels, item):
    """The kernel's per-lane sums and coefficients for `channels` channels, from the calling thread's scratch."""
    return kernels.address(_buffer("bn nhwc lanes", (channels * (35 * 8 + 36 * item) // 8 + 1,), np.float64))


def _stream(rows):
    return int(rows.size * rows.itemsize >= bn_common.STREAM_BYTES)


def _at(rows, lo):
    return device.ffi.cast("char *", kernels.strided_address(rows)) + lo * rows.itemsize


def backward(layout, x, dy, dx, scale, mean, inv, eps, ct, alpha, beta, workspace=None):
    """(dScale, dBias) of the channels-last walk, dx written; None when the walk does not take the tensors."""
    rows = _rows_of(layout, ct, beta, x, dy, dx)
    if rows is None:
        return None
    sums = accumulators(workspace, 16 * layout.C, (2, layout.C))   # less than the walk over images needs
    scale = np.ascontiguousarray(scale.reshape(-1))
    mean = None if mean is None else np.ascontiguousarray(mean.reshape(-1))
    inv = None if inv is None else np.ascontiguousarray(inv.reshape(-1))
    lib = kernels.lib()
    if lib is None:
        backward_reference(*rows, scale, mean, inv, eps, alpha, sums[0], sums[1])
        return sums[0], sums[1]
    xr, gr, dr = rows
    item = xr.itemsize

    def call(lo, hi):
        lib.opemu_kernel_bn_backward_nhwc(
            item, xr.shape[0], hi - lo, _at(xr, lo), xr.strides[0] // item, _at(gr, lo), gr.strides[0] // item,
            _at(dr, lo), dr.strides[0] // item, _doubles(scale, lo), _doubles(mean, lo), _doubles(inv, lo), eps,
            alpha, _doubles(sums[0], lo), _doubles(sums[1], lo), _scratch(hi - lo, item), _stream(dr))
    _run(layout, call)
    return sums[0], sums[1]


def forward(layout, x, y, scale, bias, eps, ct, alpha, beta, workspace=None):
    """(mean, biased variance, invstd) of the channels-last walk, y written; None when it does not take them."""
    rows = _rows_of(layout, ct, beta, x, y)
    if rows is None:
        return None
    stats = accumulators(workspace, 16 * layout.C, (2, layout.C))
    scale, bias = np.ascontiguousarray(scale.reshape(-1)), np.ascontiguousarray(bias.reshape(-1))
    lib = kernels.lib()
    if lib is None:
        forward_reference(*rows, scale, bias, eps, alpha, stats[0], stats[1])
    else:
        xr, yr = rows
        item = xr.itemsize

        def call(lo, hi):
            lib.opemu_kernel_bn_forward_nhwc(
                item, xr.shape[0], hi - lo, _at(xr, lo), xr.strides[0] // item, _at(yr, lo), yr.strides[0] // item,
                _doubles(scale, lo), _doubles(bias, lo), eps, alpha, _doubles(stats[0], lo), _doubles(stats[1], lo),
                _scratch(hi - lo, item), _stream(yr))
        _run(layout, call)
    mean, var = stats
    with np.errstate(divide="ignore"):
        return mean, var, 1 / np.sqrt(var + eps)
