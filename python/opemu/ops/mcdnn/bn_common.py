"""What the batch normalization routines of both families share (batchnorm.py): the header enums and data
types, the geometry of x (Layout), the float64 helpers for statistics and parameter outputs, the split of
a walk over images onto the pool's threads."""
import math

import numpy as np

from opemu.core import mcdnn, parallel
from opemu.core.headers import enum
from opemu.core.mcdnn import ACTIVATION, DATA

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
PARALLEL_MIN = 1 << 17
STREAM_BYTES = 16 << 20   # kernel outputs from this size on bypass the caches: they would not stay there anyway


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


def _one_run(t):
    """Whether the dims after the first of a descriptor form one run of a single element stride."""
    dims = [(d, s) for d, s in zip(t.shape[1:], t.strides[1:]) if d != 1]
    return all(s0 == s1 * d1 for (_, s0), (d1, s1) in zip(dims, dims[1:]))


def walk_layout(shape, per_channel, plain, data, params):
    """The Layout a routine walks. PER_ACTIVATION with plain ops, on tensors whose images (and parameters)
    are one run each, walks positions as channels: x as (N, C·H·W, 1, 1) per channel is the same problem
    (each position's statistic runs over the batch), so it takes the channel walk and its kernels; the
    compute stages see every tensor reshaped so (`positions`)."""
    data = [t for t in data if t is not None]
    if per_channel:
        return Layout(shape, True, plain and channel_major(*data))
    if plain and all(_one_run(t) for t in data + [t for t in params if t is not None]):
        return Layout((shape[0], math.prod(shape[1:])) + (1,) * (len(shape) - 2), True, True, positions=True)
    return Layout(shape, False)


def reshaped(view, shape):
    """The view reshaped to `shape` without a copy, or None when its strides do not allow it."""
    rows = view.view()
    try:
        rows.shape = shape
    except AttributeError:
        return None
    return rows


def as_positions(layout, views):
    """The tensors of a positions walk (walk_layout) reshaped to it: data (N, C·H·W, 1...), parameters
    (1, C·H·W, 1...); byte tensors (workspace, reserve) as they are."""
    shaped = {}
    for name, t in views.items():
        if t is not None and t.ndim == len(layout.shape):
            t = reshaped(t, (t.shape[0],) + layout.shape[1:])
        shaped[name] = t
    return shaped


class Layout:
    """x's geometry for a normalization over the batch (per activation) or the batch and the spatial
    dimensions (per channel). Parameters broadcast against one image x[n] with shape `pshape`.
    `by_channels`: the routines walk blocks of channels (see the module text), else images. `positions`:
    a PER_ACTIVATION routine walked as channels (walk_layout)."""

    def __init__(self, shape, per_channel, by_channels=False, positions=False):
        self.positions = positions
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


def over_images(layout, fn):
    """fn(lo, hi) over image ranges. Every image is computed on its own, so the result does not depend on
    how the batch was split."""
    parallel.split(layout.N, fn, worth=layout.N * layout.elements >= PARALLEL_MIN)


def accumulators(workspace, nbytes, shape):
    """float64 accumulators: inside the device workspace when it holds them, else on the host."""
    if workspace is not None and workspace.size >= nbytes:
        return workspace[:nbytes].view(np.float64).reshape(shape)
    return np.empty(shape, np.float64)


def in_compute_type(scratch, image):
    """The image in the compute type, in scratch when a conversion is needed."""
    if image.dtype == scratch.dtype:
        return image
    scratch[...] = image
    return scratch


def invstd(var, epsilon):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 / np.sqrt(var + epsilon)


def unbiased(var, count):
    with np.errstate(divide="ignore", invalid="ignore"):
        return var * (count / np.float64(count - 1)) if count > 1 else var * np.float64(np.nan)


def blend_param(view, value, alpha, beta):
    """A parameter-shaped output (float / double) = alpha·value + beta·prior, value a float64 array; beta == 0
    never reads it."""
    if value.shape != view.shape:
        value = value.reshape(view.shape)
    if alpha == 1 and beta == 0:   # value·1 is value
        view[...] = value
        return
    result = value * alpha
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



def backward_coefficients(scale, mean, inv, sum_dy, sum_dyx, count):
    """(dScale, dBias, a, b, c) with dx = a·dy' + b·x + c."""
    d_bias = sum_dy
    d_scale = sum_dyx * inv
    a = scale * inv
    b = -scale * inv * inv * d_scale / count
    c = -a * d_bias / count - b * mean
    return d_scale, d_bias, a, b, c


# ---------------------------------------------------------------- the kernels' float64 steps (csrc/kernels/batchnorm.c)

def shift_of(first):
    """The shift of each channel's sums: its first element in float64, 0 where that is not finite."""
    return np.where(np.isfinite(first), first, 0.0)


def finish_statistics(shift, sd, sdd, count):
    """(mean, biased variance) from the float64 sums Σd, Σd² of d = x - shift over `count` elements."""
    offset = sd / count
    var = sdd / count - offset * offset
    return shift + offset, np.maximum(var, 0)


def gradient_coefficients(scale, mean, inv, centre, s_dy, s_dyx, count, alpha):
    """(dScale, dBias, k0, k1, k2) in float64 from the gradient sums in the compute type around `centre` (the
    mean rounded to it): dx = dy·k0 + ((x - centre)·k1 + k2), each k rounded to the compute type."""
    sum_dy = s_dy.astype(np.float64)
    sum_dyx = s_dyx.astype(np.float64) - (mean - centre) * sum_dy
    d_scale, d_bias, a, b, c = backward_coefficients(scale, mean, inv, sum_dy, sum_dyx, count)
    return d_scale, d_bias, a * alpha, b * alpha, (c + b * centre) * alpha


def forward_coefficients(scale, bias, mean, inv, centre, alpha):
    """(k1, k2) in float64 with y = (x - centre)·k1 + k2, each rounded to the compute type."""
    a = scale * inv
    b = bias + a * (centre - mean)
    return a * alpha, b * alpha
