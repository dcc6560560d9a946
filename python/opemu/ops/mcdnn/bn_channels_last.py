"""The per-channel walk of channels-innermost (NHWC) tensors with plain ops: x as (N·H·W, C) rows, every
channel of a row at once, the statistics over the rows. The C kernels (opemu_kernel_bn_*_nhwc) and their
references: the sums cut the rows into segments (bn_reference.position_sums), in each of which position
p's terms go to lane p mod LANES of their channel (each lane from +0, the last block padded with +0), lane
i += lane i + w for w = LANES/2, ..., 1; the segments' sums are added in order; the float64 steps are
bn_common's. Half / bfloat16 data and blends (beta != 0) keep the walk over images."""
import numpy as np

from opemu.core import device, kernels, parallel
from opemu.core.scratch import buffer as _buffer
from opemu.ops.mcdnn import bn_common
from opemu.ops.mcdnn.bn_common import accumulators, reshaped
from opemu.ops.mcdnn.bn_reference import backward_reference, forward_reference, segment_count

def channel_rows(t):
    """A (N, C, spatial...) tensor as (N·spatial, C) rows without a copy, or None."""
    return reshaped(np.moveaxis(t, 1, -1), (t.size // t.shape[1], t.shape[1]))


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


def _walk(layout, call, phases):
    """call(phase, lo, hi) for each of the kernel's phases in order: the sums split among the workers by
    segments, their results on the calling thread, the elementwise pass split by rows. Measured on this
    host's EPYC (32x64x56x56 backward): the sums of one sequence of rows on one core took 2.0 ms of the
    call's 3.6 ms. Before the segments, the sums split by channels (each core reading its part of every
    row) took 13.7 ms, and split by lanes (each core reading every other 8 rows) 6.3 ms: two cores reading
    interleaved parts of the same rows run slower than one."""
    lib = kernels.lib()
    positions = layout.N * layout.spatial
    worth = layout.N * layout.elements >= bn_common.PARALLEL_MIN
    for phase in phases:
        if phase in (lib.OPEMU_BN_NHWC_MOMENTS, lib.OPEMU_BN_NHWC_GRADIENT):
            parallel.split(segment_count(positions), lambda lo, hi, phase=phase: call(phase, lo, hi), worth=worth)
        elif phase == lib.OPEMU_BN_NHWC_APPLY:
            parallel.split(positions, lambda lo, hi: call(lib.OPEMU_BN_NHWC_APPLY, lo, hi), worth=worth)
        else:
            call(phase, 0, 0)


def _doubles(array):
    return kernels.null() if array is None else device.ffi.from_buffer("double[]", array)


def _scratch(channels, item):
    """The kernel's per-segment sums and coefficients for `channels` channels, from the calling thread's scratch
    (the workers read and write their segments' parts of it, and read its coefficients); None when its size
    does not fit an int64 (the reference then runs)."""
    size = kernels.lib().opemu_kernel_bn_nhwc_scratch(channels, item)
    return None if size < 0 else kernels.address(_buffer("bn nhwc lanes", (size // 8 + 1,), np.float64))


def _stream(rows):
    return int(rows.size * rows.itemsize >= bn_common.STREAM_BYTES)


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
    scratch = None if lib is None else _scratch(layout.C, rows[0].itemsize)
    if scratch is None:
        backward_reference(*rows, scale, mean, inv, eps, alpha, sums[0], sums[1])
        return sums[0], sums[1]
    xr, gr, dr = rows
    item = xr.itemsize
    pointers = [kernels.strided_address(r) for r in rows]
    doubles = [_doubles(a) for a in (scale, mean, inv, sums[0], sums[1])]
    stream = _stream(dr)

    def call(phase, lo, hi):
        lib.opemu_kernel_bn_backward_nhwc(
            item, phase, lo, hi, xr.shape[0], layout.C, pointers[0], xr.strides[0] // item, pointers[1],
            gr.strides[0] // item, pointers[2], dr.strides[0] // item, *doubles[:3], eps, alpha, *doubles[3:],
            scratch, stream)
    phases = [lib.OPEMU_BN_NHWC_STATISTICS, lib.OPEMU_BN_NHWC_GRADIENT, lib.OPEMU_BN_NHWC_COEFFICIENTS,
              lib.OPEMU_BN_NHWC_APPLY]
    _walk(layout, call, ([lib.OPEMU_BN_NHWC_MOMENTS] if mean is None else []) + phases)
    return sums[0], sums[1]


def forward(layout, x, y, scale, bias, eps, ct, alpha, beta, workspace=None):
    """(mean, biased variance, invstd) of the channels-last walk, y written; None when it does not take them."""
    rows = _rows_of(layout, ct, beta, x, y)
    if rows is None:
        return None
    stats = accumulators(workspace, 16 * layout.C, (2, layout.C))
    scale, bias = np.ascontiguousarray(scale.reshape(-1)), np.ascontiguousarray(bias.reshape(-1))
    lib = kernels.lib()
    scratch = None if lib is None else _scratch(layout.C, rows[0].itemsize)
    if scratch is None:
        forward_reference(*rows, scale, bias, eps, alpha, stats[0], stats[1])
    else:
        xr, yr = rows
        item = xr.itemsize
        pointers = [kernels.strided_address(r) for r in rows]
        doubles = [_doubles(a) for a in (scale, bias, stats[0], stats[1])]
        stream = _stream(yr)

        def call(phase, lo, hi):
            lib.opemu_kernel_bn_forward_nhwc(
                item, phase, lo, hi, xr.shape[0], layout.C, pointers[0], xr.strides[0] // item, pointers[1],
                yr.strides[0] // item, *doubles[:2], eps, alpha, *doubles[2:], scratch, stream)
        _walk(layout, call, [lib.OPEMU_BN_NHWC_MOMENTS, lib.OPEMU_BN_NHWC_STATISTICS, lib.OPEMU_BN_NHWC_APPLY])
    mean, var = stats
    with np.errstate(divide="ignore"):
        return mean, var, 1 / np.sqrt(var + eps)
