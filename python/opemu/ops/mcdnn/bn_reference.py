"""The NumPy references of the batch normalization kernels (csrc/kernels/batchnorm.c), on the rows of a
block of channels — (N, k, spatial), bn_channels — or of channels-innermost tensors — (N·H·W, C),
bn_channels_last — with the channels on axis 1. Sums in lanes (lane_sums / position_sums); statistics in
float64, shifted by each channel's first element; coefficients by bn_common's float64 steps; the results
rounded to the compute type where the kernels round them."""
import numpy as np

from opemu.core.scratch import buffer as _buffer
from opemu.ops.mcdnn.bn_common import finish_statistics, forward_coefficients, gradient_coefficients, shift_of

LANES = 16   # the sums' lanes (csrc/kernels/batchnorm.c)


def lane_sums(rows, term, dtype=None):
    """Per-channel sums of term(rows) for (N, k, spatial) rows, in `dtype` (default: the compute type);
    `term(out)` writes the (N, k, spatial) terms into `out`, of that type. Element j of an image's row goes
    to lane j mod LANES, the row's last block padded with +0; the rows follow each other into the lanes
    image after image, each lane from +0, then lane i += lane i + w for w = LANES/2, ..., 1."""
    n, k, s = rows.shape
    padded = -(-s // LANES) * LANES
    terms = _buffer("bn lanes", (k, n, padded), dtype or rows.dtype)
    terms[:, :, s:] = 0
    term(terms[:, :, :s].transpose(1, 0, 2))
    lanes = np.add.reduce(terms.reshape(k, n * padded // LANES, LANES), axis=1, initial=0)
    width = LANES // 2
    while width:
        lanes = lanes[:, :width] + lanes[:, width:2 * width]
        width //= 2
    return lanes[:, 0]


SEGMENTS = 8   # at most, in the rows of channels-innermost tensors (csrc/kernels/batchnorm.c)


def segment_rows(positions):
    """Rows per segment of `positions` channels-innermost rows: a multiple of LANES."""
    blocks = -(-positions // LANES)
    return -(-blocks // SEGMENTS) * LANES


def segment_count(positions):
    return -(-positions // segment_rows(positions)) if positions else 1


def position_sums(rows, term, dtype=None):
    """Per-channel sums of term(rows) for (M, C) rows in `dtype` (default: the compute type): `term(out)`
    writes the (M, C) terms into `out` of that type. The rows are cut into segment_count(M) segments of
    segment_rows(M); in each, row p's terms go to lane p mod LANES (the last block padded with +0), each lane
    from +0, then lane i += lane i + w for w = LANES/2, ..., 1; the segments' sums are then added in order."""
    m, c = rows.shape
    step, count = segment_rows(m) or LANES, segment_count(m)
    terms = _buffer("bn position lanes", (count * step, c), dtype or rows.dtype)
    terms[m:] = 0
    term(terms[:m])
    total = None
    for segment in terms.reshape(count, step // LANES, LANES, c):
        lanes = np.add.reduce(segment, axis=0, initial=0)
        width = LANES // 2
        while width:
            lanes = lanes[:width] + lanes[width:2 * width]
            width //= 2
        total = lanes[0] if total is None else total + lanes[0]
    return total


def _sums(rows, term, dtype=None):
    return lane_sums(rows, term, dtype) if rows.ndim == 3 else position_sums(rows, term, dtype)


def _per_channel(values, rows):
    """Per-channel values shaped to broadcast along the rows' channel axis (axis 1)."""
    return values.reshape((-1,) + (1,) * (rows.ndim - 2))


def statistics(rows):
    """(mean, biased variance) per channel in float64 from one walk: Σd and Σd² of d = x - shift in float64,
    shift the channel's first element (0 when it is not finite), so that the sums stay well conditioned."""
    shift = shift_of(rows[(0, slice(None)) + (0,) * (rows.ndim - 2)].astype(np.float64))

    def shifted(out):
        np.subtract(rows, _per_channel(shift, rows), out=out)

    def squares(out):
        shifted(out)
        np.multiply(out, out, out=out)
    return finish_statistics(shift, _sums(rows, shifted, np.float64), _sums(rows, squares, np.float64),
                             rows.size // rows.shape[1])


def backward_reference(x, dy, dx, scale, mean, inv, eps, alpha, d_scale, d_bias):
    """dx = dy·k0 + ((x - centre)·k1 + k2) in the compute type (gradient_coefficients), dScale and dBias into
    the float64 d_scale, d_bias; mean/inv None: recomputed from x. dx may be x or dy."""
    ct = x.dtype
    if mean is None:
        mean, var = statistics(x)
        inv = 1 / np.sqrt(var + eps)
    centre = mean.astype(ct)

    def products(out):
        np.subtract(x, _per_channel(centre, x), out=out)
        np.multiply(dy, out, out=out)
    d_scale[...], d_bias[...], k0, k1, k2 = gradient_coefficients(
        scale, mean, inv, centre, _sums(x, lambda out: np.copyto(out, dy)), _sums(x, products),
        x.size // x.shape[1], alpha)
    t = _buffer("bn centred", x.shape, ct)
    np.subtract(x, _per_channel(centre, x), out=t)          # before dx is written: dx may be x
    t *= _per_channel(k1.astype(ct), x)
    t += _per_channel(k2.astype(ct), x)
    np.multiply(dy, _per_channel(k0.astype(ct), x), out=dx)
    dx += t


def forward_reference(x, y, scale, bias, eps, alpha, mean, var):
    """y = (x - centre)·k1 + k2 in the compute type (forward_coefficients); the float64 mean and biased
    variance into mean, var. y may be x."""
    ct = x.dtype
    mean[...], var[...] = statistics(x)
    centre = mean.astype(ct)
    k1, k2 = forward_coefficients(scale, bias, mean, 1 / np.sqrt(var + eps), centre, alpha)
    t = _buffer("bn centred", x.shape, ct)
    np.subtract(x, _per_channel(centre, x), out=t)
    t *= _per_channel(k1.astype(ct), x)
    np.add(t, _per_channel(k2.astype(ct), x), out=y)
