"""The convolution arithmetic behind every mcDNN convolution routine: sums of GEMM products (a C kernel
whose twin is NumPy's BLAS), in two layouts chosen by the geometry (both are the GEMM algorithm's sums in
the compute dtype: fp32 for HALF, BFLOAT16 and FLOAT data, fp64 for DOUBLE; results are rounded once, when
written). A 1x1 convolution without padding reads the images as its grid (pointwise).

Shapes are logical NC(D)HW whatever the layout (the views carry the strides). A convolution of `groups`
groups has x (N, G*Cg, spatial…), w (G*Kg, Cg, window…), y (N, G*Kg, out…).

Columns (any stride). For each chunk of images the input is copied once, zero-padded, into a flat
buffer; every window offset k is then a strided view of it (element strides stride_i *
padded_stride_i), so im2col is one strided copy per offset into a (G, Cg, RS, L) column matrix and the
forward is one stacked GEMM W (G, Kg, Cg*RS) @ cols. The backward data is the transposed GEMM followed
by col2im (one strided add per offset); the backward filter is dy @ cols^T summed over images.

Grid (unit stride, the common case), and 1x1 without padding: the sums of opemu.ops.mcdnn.conv_grid.

A `Scratch` holds the buffers of one chunk of images; an algorithm whose scratch cuDNN keeps in the
workspace gets them carved out of the app's workspace (so a too-small one is caught), the others use
host memory (what the hardware keeps on chip)."""
import functools
import itertools
import math

import numpy as np

from opemu.core import blas, parallel
from opemu.ops.mcdnn import conv_depthwise
from opemu.ops.mcdnn.conv_grid import PARALLEL_MIN, grid_backward_filter, grid_pass, pointwise, pointwise_filter


class Geometry:
    """Padded input, output and the flat offsets of a convolution on x (N, C, spatial…)."""

    def __init__(self, x_shape, w_shape, pad, stride, dilation, groups, flip):
        self.n, self.c = x_shape[0], x_shape[1]
        self.k = w_shape[0]
        self.groups = groups
        self.cg, self.kg = self.c // groups, self.k // groups
        self.spatial = tuple(x_shape[2:])
        self.window = tuple(w_shape[2:])
        self.pad, self.stride, self.dilation = tuple(pad), tuple(stride), tuple(dilation)
        self.flip = flip
        self.padded = tuple(s + 2 * p for s, p in zip(self.spatial, pad))
        self.out = tuple((p - ((r - 1) * d + 1)) // s + 1
                         for p, r, d, s in zip(self.padded, self.window, dilation, stride))
        pitch, step = [], 1
        for p in reversed(self.padded):
            pitch.insert(0, step)
            step *= p
        self.pitch = tuple(pitch)
        self.plane = step                                  # elements of one padded channel
        self.rs = math.prod(self.window)
        self.l = math.prod(self.out)
        self.grid_strides = tuple(s * p for s, p in zip(stride, self.pitch))
        # the grid layout (unit stride): every window element is one offset into the padded grid
        self.grid = all(s == 1 for s in self.stride)
        self.reach = sum((r - 1) * d * p for r, d, p in zip(self.window, dilation, self.pitch))
        # one channel per group: sums of taps in C, not thousands of one-row GEMMs
        self.depthwise = self.grid and groups > 1 and self.cg == 1 and self.kg == 1
        # a 1x1 window without padding: the grid is the images themselves (pointwise)
        self.pointwise = self.grid and not self.depthwise and self.rs == 1 and not any(self.pad)

    @functools.cached_property
    def offsets(self):
        """Each window element's flat offset into a padded image (made when a kernel first needs them:
        a filter the checks refuse may be huge)."""
        return [sum(r * d * p for r, d, p in zip(pos, self.dilation, self.pitch))
                for pos in itertools.product(*(range(r) for r in self.window))]

    def cols_elements(self):
        return self.c * self.rs * self.l

    def padded_elements(self):
        return self.c * self.plane


CHUNK_BYTES = 8 << 20    # the column (or grid) matrix of one chunk of images: large sums, scratch in cache


def _carve(shapes, ct, workspace):
    """Arrays of `shapes`, from host memory or one after another in the workspace."""
    if workspace is None:
        return [np.empty(s, ct) for s in shapes]
    arrays, at = [], 0
    for shape in shapes:
        size = math.prod(shape) * ct.itemsize
        arrays.append(workspace[at:at + size].view(ct).reshape(shape))
        at += size
    return arrays


class ColumnScratch:
    """The buffers of one chunk of `nb` images: the padded input (nb, C, plane), the columns
    (G, Cg*RS, nb, L) and an operand in GEMM layout (G, Kg, nb, L) (dy, or y before it is written)."""

    def __init__(self, g, ct, workspace=None):
        self.nb = self.images(g, ct)
        self.padded, self.cols, self.operand = _carve(self.shapes(g, self.nb), ct, workspace)

    @staticmethod
    def images(g, ct):
        return max(1, min(g.n, CHUNK_BYTES // max(g.cols_elements() * ct.itemsize, 1)))

    @staticmethod
    def shapes(g, nb):
        return [(nb, g.c, g.plane), (g.groups, g.cg * g.rs, nb, g.l), (g.groups, g.kg, nb, g.l)]


class GridScratch:
    """The buffers of one chunk of `nb` images on the padded grid (M = nb*plane positions), rows
    enough for x (C) or dy (K): the operand (rows, M + reach) and the result (rows, M), each with a vector's
    slack. For the filter gradient the operand is x and the other buffer dy transposed, (G, M, Kg in whole
    vectors). A buffer a chunk's images are placed into is zeroed outside their places once, before the
    first chunk (`clear`): the chunks only ever write the same positions, the first of them all nb images,
    so padding and the gaps between outputs stay zero. (Zeroing only that frame, not the 15 MiB of a
    64x56x56 chunk, saves 1.5-4 ms a call.)"""

    def __init__(self, g, ct, workspace=None, filter_gradient=False):
        self.nb = self.images(g, ct, filter_gradient)
        self.operand, self.out = _carve(self.shapes(g, self.nb, filter_gradient), ct, workspace)
        self._layouts = {}

    def clear(self, buffer, layout, zero):
        """zero() when `buffer` ("operand" or "out") is about to be placed into in another `layout` than
        before (a scratch may serve the forward, then the backward data)."""
        if self._layouts.get(buffer) != layout:
            self._layouts[buffer] = layout
            zero()

    @staticmethod
    def images(g, ct, filter_gradient=False):
        """Images per chunk, as many as the chunk budget holds. The sums of products keep a tile of the result in
        L1 across the window elements (opemu.core.blas.chain_sums), so the result need not fit a cache: 9
        images of 64x56x56 run 15% faster than 2, by fewer hand-offs to the cores. (BLAS, where the kernel
        cannot run, rewrites the whole result per window element and would be ~10% faster on 2.)"""
        rows = max(g.c, g.groups * _dy_columns(g)) if _transposed(g, filter_gradient) else max(g.c, g.k)
        per_image, budget = rows * g.plane * ct.itemsize, CHUNK_BYTES
        return max(1, min(g.n, budget // max(per_image, 1)))

    @staticmethod
    def shapes(g, nb, filter_gradient=False):
        if filter_gradient and g.depthwise:   # its sums read the images as they lie (conv_depthwise.filter_lanes)
            return [(0, 0), (0, 0)]
        rows, m = max(g.c, g.k), nb * g.plane
        slack = blas.VECTOR - 1   # the sums run over whole vectors of columns (_tap_sums)
        if _transposed(g, filter_gradient):
            return [(g.c, m + g.reach + slack), (g.groups, m, _dy_columns(g))]
        return [(rows, m + g.reach + slack), (rows, m + slack)]


def _transposed(g, filter_gradient):
    """The filter gradient sums over the grid's positions, so its dy is laid out transposed, positions by
    output channels (_filter_sums). Depthwise sums its filter gradient straight from the images."""
    return filter_gradient and not g.depthwise


def _dy_columns(g):
    """A group's output channels in whole vectors: the columns of the transposed dy and of the gradient."""
    return blas.whole_vectors(g.kg)


def Scratch(g, ct, workspace=None, filter_gradient=False):
    """The scratch of the layout g computes in, for the filter gradient or the other two directions."""
    if g.grid:
        return GridScratch(g, ct, workspace, filter_gradient)
    return ColumnScratch(g, ct, workspace)


def scratch_bytes(g, ct, filter_gradient=False):
    if g.grid:
        shapes = GridScratch.shapes(g, GridScratch.images(g, ct, filter_gradient), filter_gradient)
    else:
        shapes = ColumnScratch.shapes(g, ColumnScratch.images(g, ct))
    return sum(math.prod(s) for s in shapes) * ct.itemsize


def weights(w, g, ct):
    """w as (G, Kg, Cg*RS) in the compute dtype, flipped for a true convolution."""
    if g.flip:
        w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * len(g.window)]
    return np.ascontiguousarray(w, dtype=ct).reshape(g.groups, g.kg, g.cg * g.rs)


def chunks(g, scratch):
    for lo in range(0, g.n, scratch.nb):
        yield lo, min(lo + scratch.nb, g.n)


# ---- columns ----

def _window_view(padded, g, offset, nb):
    """(nb, C, out…) view of padded images at one window offset."""
    item = padded.itemsize
    return np.lib.stride_tricks.as_strided(padded.reshape(-1)[offset:], shape=(nb, g.c) + g.out,
                                           strides=(g.c * g.plane * item, g.plane * item)
                                           + tuple(s * item for s in g.grid_strides), writeable=True)


def _inner(padded, g, nb):
    return padded[:nb].reshape((nb, g.c) + g.padded)[(slice(None), slice(None)) + tuple(
        slice(p, p + s) for p, s in zip(g.pad, g.spatial))]


def im2col(images, g, scratch):
    """The columns (G, Cg*RS, nb, L) of a chunk of images (nb, C, spatial…), in scratch.cols."""
    nb = images.shape[0]
    scratch.padded[:nb].fill(0)
    _inner(scratch.padded, g, nb)[...] = images
    cols = scratch.cols.reshape(g.c, g.rs, scratch.nb, g.l)
    views = [_window_view(scratch.padded, g, offset, nb).swapaxes(0, 1) for offset in g.offsets]

    def copy(lo, hi):   # channels lo..hi: NumPy copies without the GIL, so the cores share the work
        for index, view in enumerate(views):
            cols[lo:hi, index, :nb].reshape((hi - lo, nb) + g.out)[...] = view[lo:hi]
    parallel.split(g.c, copy, worth=cols.size >= PARALLEL_MIN)
    return scratch.cols[:, :, :nb]


def _columns_forward(images, wmat, g, scratch):
    nb = images.shape[0]
    cols = im2col(images, g, scratch).reshape(g.groups, g.cg * g.rs, nb * g.l)
    out = scratch.operand.reshape(g.groups, g.kg, -1)[:, :, :nb * g.l]
    np.matmul(wmat, cols, out=out)
    return out.reshape(g.k, nb, g.l).swapaxes(0, 1).reshape((nb, g.k) + g.out)


def _gemm_operand(dy, g, scratch):
    """dy (nb, K, out…) as (G, Kg, nb*L) in the compute dtype, in scratch.operand."""
    nb = dy.shape[0]
    op = scratch.operand.reshape(g.groups, g.kg, -1)[:, :, :nb * g.l]
    op.reshape(g.k, nb, g.l)[...] = dy.reshape(nb, g.k, g.l).swapaxes(0, 1)
    return op


def _columns_backward_data(dy, wmat, g, scratch):
    nb = dy.shape[0]
    dcols = scratch.cols.reshape(g.groups, g.cg * g.rs, -1)[:, :, :nb * g.l]
    np.matmul(wmat.transpose(0, 2, 1), _gemm_operand(dy, g, scratch), out=dcols)
    dcols = dcols.reshape(g.c, g.rs, nb, g.l)
    scratch.padded[:nb].fill(0)
    views = [_window_view(scratch.padded, g, offset, nb).swapaxes(0, 1) for offset in g.offsets]

    def add(lo, hi):   # channels lo..hi, every window offset in order: the sums do not depend on the split
        for index, view in enumerate(views):
            np.add(view[lo:hi], dcols[lo:hi, index].reshape((hi - lo, nb) + g.out), out=view[lo:hi])
    parallel.split(g.c, add, worth=dcols.size >= PARALLEL_MIN)
    return _inner(scratch.padded, g, nb)


def _columns_backward_filter(images, dy, g, scratch, acc):
    nb = images.shape[0]
    cols = im2col(images, g, scratch).reshape(g.groups, g.cg * g.rs, nb * g.l)
    with np.errstate(all="ignore"):   # the path non-finite data takes: inf and NaN are its results
        acc += np.matmul(cols, _gemm_operand(dy, g, scratch).transpose(0, 2, 1)).transpose(0, 2, 1)


# ---- the three directions; the scratch names the layout ----

def direct_target(out, ct):
    """out if a chunk's result, written as it is (alpha 1, beta 0), may go straight into it (fp32 data and
    compute), else None."""
    return out if out.dtype == ct == np.float32 else None


def forward_chunk(images, wmat, g, scratch, target=None):
    """(nb, K, out…) result of a chunk of images, in the compute dtype (a view of the scratch), or None when
    it went straight into `target` (direct_target)."""
    if isinstance(scratch, GridScratch):
        if g.depthwise and conv_depthwise.direct_runs(wmat):
            return conv_depthwise.direct(images, wmat, g, False, target)
        if target is not None and pointwise(images, wmat, g, False, target):
            return None
        return grid_pass(images, wmat, g, scratch, reverse=False)
    return _columns_forward(images, wmat, g, scratch)


def backward_data_scratch(wmat, g, scratch):
    """The scratch the backward data runs in: the grid would add inf * 0 terms for a non-finite filter,
    so that takes columns (in host memory: the workspace was sized for the grid)."""
    if isinstance(scratch, GridScratch) and not np.isfinite(wmat).all():
        return ColumnScratch(g, wmat.dtype)
    return scratch


def backward_data_chunk(dy, wmat, g, scratch, target=None):
    """dx (nb, C, spatial…) of a chunk's dy (nb, K, out…), in the compute dtype (a view of the scratch), or
    None when it went straight into `target` (direct_target)."""
    if isinstance(scratch, GridScratch):
        if g.depthwise and conv_depthwise.direct_runs(wmat):
            return conv_depthwise.direct(dy, wmat, g, True, target)
        if target is not None and pointwise(dy, wmat, g, True, target):
            return None
        return grid_pass(dy, wmat, g, scratch, reverse=True)
    return _columns_backward_data(dy, wmat, g, scratch)


def backward_filter(operands, g, scratch, ct):
    """(G, Kg, Cg*RS) sum over the chunks of dy @ cols^T; `operands(lo, hi)` gives (images, dy) of a chunk.
    A non-finite grid result is recomputed on columns (the grid's extra terms are 0 * x, NaN for an
    infinite x), in host memory."""
    if isinstance(scratch, GridScratch) and g.depthwise:
        lanes = np.zeros((g.c, g.rs, conv_depthwise.LANES), ct)
        for lo, hi in chunks(g, scratch):
            conv_depthwise.filter_lanes(*operands(lo, hi), g, lanes)
        dw = conv_depthwise.filter_total(lanes)
        if np.isfinite(dw).all():
            return dw.reshape(g.groups, g.kg, g.cg * g.rs)
        scratch = ColumnScratch(g, ct)
    elif isinstance(scratch, GridScratch):
        acc = np.zeros((g.groups, g.cg * g.rs, _dy_columns(g)), ct)
        for lo, hi in chunks(g, scratch):
            images, dy = operands(lo, hi)
            if not pointwise_filter(images, dy, g, acc):
                grid_backward_filter(images, dy, g, scratch, acc)
        if np.isfinite(acc[..., :g.kg]).all():
            return acc[:, :, :g.kg].transpose(0, 2, 1)
        scratch = ColumnScratch(g, ct)
    acc = np.zeros((g.groups, g.kg, g.cg * g.rs), ct)
    for lo, hi in chunks(g, scratch):
        _columns_backward_filter(*operands(lo, hi), g, scratch, acc)
    return acc


def unflip(dw, g):
    """(K, Cg, window…) of an accumulated (G, Kg, Cg*RS), flipped back for a true convolution."""
    dw = dw.reshape((g.k, g.cg) + g.window)
    if g.flip:
        dw = dw[(slice(None), slice(None)) + (slice(None, None, -1),) * len(g.window)]
    return dw
