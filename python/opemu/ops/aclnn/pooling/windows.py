"""What the pooling operators share: their attribute arrays, output sizes, format names, and the window
arithmetic.

Windows. Output o of a spatial dimension reads input [o·s − p_begin, o·s − p_begin + (k − 1)·d] in steps of d;
its size is the op_api's PoolingOutShape (PyTorch's): ⌊(size + p_begin + p_end − d·(k − 1) − 1 + (ceil ? s − 1 :
0)) / s⌋ + 1, less one in ceil mode when the last window would start in the end padding.

Averages (AvgPool2d/3d and their backward) are mcDNN's pooling (opemu.ops.mcdnn.pooling): sums in fp32 (fp64
for double), divided once by the window's count (clipped to the padded input with countIncludePad, to the input
without) or by divisorOverride, rounded once into the output. The hardware's cube path multiplies by 1/k
instead (≤ 1 ulp apart).

Max with indices (MaxPool2dWithIndices, MaxPool3dWithArgmax, AdaptiveMaxPool*): the first maximum in window
order wins (row-major; a later equal value does not replace it), NaN counts as the largest value and a later NaN
replaces an earlier one — PyTorch CPU's rule; padding never wins. An index is the flat position within the
image's plane or volume (h·W + w, d·H·W + h·W + w). The backward adds each gradient at its index in output order,
in fp32 (fp64 for double), rounded once; an index outside the plane addresses memory past it (common/addressing.py).

Adaptive windows: output o of n over an input of size reads [⌊o·size/n⌋, ⌈(o+1)·size/n⌉)."""
import collections
import itertools
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.mcdnn import POOLING
from opemu.ops.aclnn.common import addressing
from opemu.ops.mcdnn import pooling as mcdnn_pooling

FORMAT_NAMES = {code: name.replace("ACL_FORMAT_", "").replace("ACL_", "") for name, code in dtypes.ACL_FORMAT.items()}
NCHW, NCL, NCDHW = (dtypes.ACL_FORMAT["ACL_FORMAT_" + n] for n in ("NCHW", "NCL", "NCDHW"))


def format_name(code):
    """op::ToString(format): NCHW, ND, NCL…"""
    return FORMAT_NAMES.get(code, "UNDEFINED")


def values(array, count, name, sizes, message=None):
    """An aclIntArray attribute of length in `sizes`, expanded to `count` values (one value repeats); None when its
    length is not allowed (the caller logs its own message)."""
    array = tuple(array)
    if len(array) not in sizes:
        if message:
            raise status.param_invalid(message)
        return None
    return array * count if len(array) == 1 else array


def out_size(size, k, s, p_begin, p_end, d, ceil):
    """PoolingOutShape (divRtn: division rounding toward −∞)."""
    size_out = (size + p_begin + p_end - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (size_out - 1) * s >= size + p_begin:
        size_out -= 1
    return size_out


def as_images(array, spatial):
    """(N, C, spatial…) view of a tensor without its batch dimension (C, spatial…) or with it."""
    return array.reshape((1,) + array.shape) if array.ndim == spatial + 1 else array


def compute_type(array):
    return np.dtype(np.float64) if array.dtype == np.float64 else np.dtype(np.float32)


# ---- averages: mcDNN's pooling ---------------------------------------------------------------------------------

_AveragePool = collections.namedtuple("_AveragePool", "mode nbDims window stride padding nan divisor")


def _average_pool(window, stride, padding, include_pad, divisor):
    mode = POOLING["MCDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING" if include_pad
                   else "MCDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING"]
    return _AveragePool(mode, len(window), tuple(window), tuple(stride), tuple(padding), False, divisor)


def average(x, out_spatial, window, stride, padding, include_pad, divisor):
    """Average pooling of (N, C, spatial…) x into the compute type."""
    ct = compute_type(x)
    pool = _average_pool(window, stride, padding, include_pad, divisor)
    with np.errstate(all="ignore"):
        return mcdnn_pooling.pool(pool, x, x.shape[:2] + tuple(out_spatial), ct)


def average_gradient(dy, x_shape, window, stride, padding, include_pad, divisor):
    ct = compute_type(dy)
    pool = _average_pool(window, stride, padding, include_pad, divisor)
    with np.errstate(all="ignore"):
        return mcdnn_pooling.average_gradient(pool, dy, tuple(x_shape), ct)


# ---- max with indices --------------------------------------------------------------------------------------------

def max_with_indices(x, out_spatial, window, stride, padding, dilation):
    """(values, flat indices) of max pooling (N, C, spatial…) x; values keep x's dtype (a selection)."""
    spatial = x.shape[2:]
    pads = [(p, max(0, (o - 1) * s + (k - 1) * d + 1 - size - p))
            for size, o, k, s, p, d in zip(spatial, out_spatial, window, stride, padding, dilation)]
    work = x.astype(np.float32) if x.dtype.itemsize < 4 and x.dtype.kind in "fV" else x
    padded = np.pad(work, [(0, 0), (0, 0)] + pads, constant_values=0)
    flat = np.pad(np.arange(math.prod(spatial), dtype=np.int64).reshape(spatial), pads, constant_values=-1)
    low = -np.inf if work.dtype.kind == "f" else np.iinfo(work.dtype).min
    best = np.full(x.shape[:2] + tuple(out_spatial), low, work.dtype)
    best_index = np.broadcast_to(_first_inside(spatial, out_spatial, stride, padding, dilation), best.shape).copy()
    with np.errstate(invalid="ignore"):
        for offset in itertools.product(*(range(k) for k in window)):
            view = tuple(slice(o * d, o * d + (size - 1) * s + 1, s)
                         for o, d, size, s in zip(offset, dilation, out_spatial, stride))
            candidate, where = padded[(Ellipsis,) + view], flat[view]
            take = (candidate > best) | np.isnan(candidate)
            take &= where >= 0   # padding never wins
            np.copyto(best, candidate, where=take)
            np.copyto(best_index, np.broadcast_to(where, best.shape), where=take)
    return best.astype(x.dtype), best_index


def _first_inside(spatial, out_spatial, stride, padding, dilation):
    """The flat index of each window's first element inside the input (where its search starts)."""
    flat = np.zeros((), np.int64)
    for size, n, s, p, d in zip(spatial, out_spatial, stride, padding, dilation):
        start = np.arange(n, dtype=np.int64) * s - p
        first = np.where(start < 0, start + d * (-(start // d)), start)   # the first of start + j·d that is ≥ 0
        flat = flat[..., None] * size + np.minimum(first, size - 1)
    return flat


def scatter_gradient(op, dy, indices, x_shape, ct):
    """dx (compute type) with dy added at each flat index of its image's plane, in output order."""
    images = x_shape[0] * x_shape[1]
    plane = math.prod(x_shape[2:])
    dx = np.zeros((images, plane), ct)
    flat_dy = np.asarray(dy, ct).reshape(images, -1)
    flat_index = np.asarray(indices, np.int64).reshape(images, -1)
    rows = np.arange(images, dtype=np.int64)[:, None]
    coordinates = (np.broadcast_to(rows, flat_index.shape), flat_index)
    if not addressing.outside(flat_index, plane):
        with np.errstate(all="ignore"):
            np.add.at(dx, coordinates, flat_dy)
        return dx.reshape(x_shape)
    addressing.reduce_at(dx, coordinates, flat_dy, "add",
                         addressing.describe(op, "indices", flat_index, plane, 2))
    return dx.reshape(x_shape)


# ---- adaptive windows --------------------------------------------------------------------------------------------

def adaptive_bounds(size, n):
    """[(start, end)] of each of n adaptive windows over size."""
    return [((o * size) // n, -((-(o + 1) * size) // n)) for o in range(n)]


def adaptive_regular(size, n):
    """(window, stride) when the adaptive windows are a plain pooling (size a multiple of n), else None."""
    return (size // n, size // n) if n and size % n == 0 else None


def adaptive_windows(spatial, out_spatial):
    """Each output position with its window's slices, in row-major output order."""
    bounds = [adaptive_bounds(size, n) for size, n in zip(spatial, out_spatial)]
    for position in itertools.product(*(range(n) for n in out_spatial)):
        yield position, tuple(slice(*bounds[i][o]) for i, o in enumerate(position))


def check_format_name(name, tensor, allowed):
    if tensor.format not in allowed:
        raise status.param_invalid("%s format should be %s. Actual: %s is [%s]." % (
            name, " or ".join(format_name(f) for f in allowed), name, format_name(tensor.format)))


def shape_text(shape):
    return checks.shape_text(shape)
