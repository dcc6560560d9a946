"""Depthwise convolutions (one input and one output channel per group): each output is a short sum of taps,
which BLAS would run as thousands of one-row GEMMs, so C kernels (csrc/kernels/depthwise.c) sum them.

Straight from the images (`direct`, `filter_lanes`). Where each image's spatial positions lie as one run, as
an NC(D)HW tensor holds them, the kernels read x or dy where the app keeps it and write the result there:
no grid is placed, cleared or copied out. Tap t of an output row reads one source row (or padding) at a
shift along it; `_Rows` says which.
- The forward and the backward data are the grid's sums (conv_grid.grid_pass on depthwise_taps, their
  reference), to the bit: the terms a tap reads from padding are w * 0, which add nothing to a sum that
  starts at +0 (never -0) when w is finite, so they are left out. A non-finite filter keeps the grid's
  forward (inf * 0 terms) and the backward data's columns (conv_kernel.backward_data_scratch).
- The filter gradient sums each tap's products dy * x in LANES lanes, lane k taking the positions 16b + k
  of every output row (a row's last block padded with +0 products), rows in order, image after image and
  chunk after chunk; then the lanes from +0 in lane order. So the sums do not depend on how the images are
  chunked. `_filter_lanes_reference` is the NumPy twin (padding read as +0, so inf * 0 is NaN there as on
  the columns, where conv_kernel recomputes a non-finite gradient).

A plane that is not one run is copied into one first. On the padded grid (`depthwise_taps`, and its NumPy
reference): the forward with a non-finite filter, and everything under OPEMU_KERNELS=numpy."""
import functools
import itertools
import math

import numpy as np

from opemu.core import kernels, parallel

LANES = 16         # the filter gradient's partial sums (csrc/kernels/depthwise.c)
READ = 4 * LANES   # the positions the forward kernel sums side by side (IN_FLIGHT blocks)
PARALLEL_MIN = 1 << 20


def _taps(window):
    """Each window element's index per spatial dimension, in window order (the filter's row order)."""
    return np.array(list(itertools.product(*(range(r) for r in window))), np.int64).reshape(-1, len(window))


def _walk(g, reverse):
    """The geometry's _Rows, made once for every chunk and call of the same shape (~60 µs each at 56x56)."""
    return _rows(g.spatial, g.out, g.window, g.pad, g.dilation, reverse)


class _Rows:
    """How the kernels walk a plane: tap t of output row r reads source row source[r, t] (-1: padding) at
    position j + shift[t]; `rows` output rows of `width`, the source `source_rows` rows of `source_width`;
    a padded copy of a source plane has `left` zeros before each row and rows `pitch` apart. Forward: y
    reads x at o + k*dilation - pad; the backward data: dx reads dy at i + pad - k*dilation."""

    def __init__(self, spatial, out, window, pad, dilation, reverse):
        reach = _taps(window) * np.array(dilation, np.int64)
        pad = np.array(pad, np.int64)
        src, dst, delta = (out, spatial, pad - reach) if reverse else (spatial, out, reach - pad)
        self.rows, self.width = math.prod(dst[:-1]), dst[-1]
        self.source_rows, self.source_width = math.prod(src[:-1]), src[-1]
        lead = np.array(list(itertools.product(*(range(n) for n in dst[:-1]))), np.int64).reshape(
            self.rows, len(dst) - 1)
        at = lead[:, None, :] + delta[None, :, :-1]
        inside = ((at >= 0) & (at < np.array(src[:-1], np.int64))).all(axis=2)
        pitch = np.array([math.prod(src[d + 1:-1]) for d in range(len(src) - 1)], np.int64)
        self.source = np.ascontiguousarray(np.where(inside, (at * pitch).sum(axis=2), -1), np.int64)
        self.shift = np.ascontiguousarray(delta[:, -1])
        self.left = max(0, -int(self.shift.min()))
        blocks = -(-self.width // READ) * READ   # the kernels read whole runs of READ positions
        self.pitch = self.left + max(self.source_width, int(self.shift.max()) + blocks)

    def arguments(self, item):
        """The kernel's table arguments (the arrays stay alive with self) and a buffer for one padded plane."""
        return ((kernels.int64_pointer(self.source), kernels.int64_pointer(self.shift)),
                np.empty((self.source_rows + 1) * self.pitch, np.dtype("f%d" % item)))


_rows = functools.lru_cache(maxsize=64)(_Rows)   # read-only once made: shared by calls and threads


def _planes(array):
    """True when each (image, channel) plane of `array` is one run of unit stride, planes apart by whole
    elements: what the direct kernels walk."""
    item, run = array.itemsize, array.itemsize
    for extent, stride in zip(reversed(array.shape[2:]), reversed(array.strides[2:])):
        if stride != run and extent > 1:
            return False
        run *= extent
    return all(s > 0 and s % item == 0 for s in array.strides[:2])


def _dense(array):
    return array if _planes(array) else np.ascontiguousarray(array)


def direct_runs(w):
    """True when `direct` computes with filter w (rows, taps) in the compute dtype: the kernels are built and
    w is finite."""
    return kernels.lib() is not None and w.dtype in (np.float32, np.float64) and bool(np.isfinite(w).all())


def direct(source, w, g, reverse, target=None):
    """The forward (x -> y) or, `reverse`, the backward data (dy -> dx) of a chunk straight from the images,
    w (C, 1, taps) finite (direct_runs). Written into `target` when it holds the result as it is (the compute
    dtype, planes of one run, not overlapping source), and None returned; else returned, (nb, C, spatial…)."""
    source = _dense(source)
    nb, channels = source.shape[:2]
    shape = (nb, channels) + (g.spatial if reverse else g.out)
    fits = (target is not None and target.dtype == source.dtype and _planes(target)
            and not np.may_share_memory(source, target))
    out = target if fits else np.empty(shape, source.dtype)
    w = w.reshape(channels, g.rs)
    walk, lib, item = _walk(g, reverse), kernels.lib(), source.itemsize

    def run(lo, hi):   # channels lo..hi of every image
        tables, buffer = walk.arguments(item)
        lib.opemu_kernel_depthwise_rows(item, nb, hi - lo, g.rs, *tables, walk.rows, walk.width,
                                        kernels.strided_address(w[lo:hi]), w.strides[0] // item,
                                        kernels.strided_address(source[:, lo:hi]), source.strides[0] // item,
                                        source.strides[1] // item, walk.source_rows, walk.source_width,
                                        kernels.strided_address(out[:, lo:hi]), out.strides[0] // item,
                                        out.strides[1] // item, kernels.strided_address(buffer), walk.left,
                                        walk.pitch)
    parallel.split(channels, run, worth=out.size * g.rs >= PARALLEL_MIN)
    return None if fits else out


def filter_lanes(images, dy, g, lanes):
    """Adds a chunk's products to lanes (C, taps, LANES) in the compute dtype: images (nb, C, spatial…) and dy
    (nb, C, out…)."""
    if kernels.lib() is None or lanes.dtype not in (np.float32, np.float64):
        _filter_lanes_reference(images, dy, g, lanes)
        return
    images, dy = _dense(images), _dense(dy)
    walk, lib, item, nb = _walk(g, reverse=False), kernels.lib(), lanes.itemsize, images.shape[0]

    def run(lo, hi):   # channels lo..hi
        tables, buffer = walk.arguments(item)
        lib.opemu_kernel_depthwise_filter_rows(item, nb, hi - lo, g.rs, *tables, walk.rows, walk.width,
                                               kernels.strided_address(dy[:, lo:hi]), dy.strides[0] // item,
                                               dy.strides[1] // item, kernels.strided_address(images[:, lo:hi]),
                                               images.strides[0] // item, images.strides[1] // item,
                                               walk.source_rows, walk.source_width,
                                               kernels.strided_address(lanes[lo:hi]),
                                               kernels.strided_address(buffer), walk.left, walk.pitch)
    parallel.split(g.c, run, worth=dy.size * g.rs >= PARALLEL_MIN)


def _filter_lanes_reference(images, dy, g, lanes):
    """The NumPy twin of the filter kernel: each tap's products over every output row, in blocks of LANES
    (+0 past a row's end), summed down the blocks after the lanes carried in."""
    nb, channels = images.shape[:2]
    padded = np.zeros((nb, channels) + g.padded, lanes.dtype)
    padded[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(g.pad, g.spatial))] = images
    width = g.out[-1]
    products = np.zeros((channels, nb * math.prod(g.out[:-1]), -(-width // LANES) * LANES), lanes.dtype)
    rows = dy.swapaxes(0, 1).reshape(channels, -1, width)
    with np.errstate(all="ignore"):   # the caller judges inf and NaN
        for t, tap in enumerate(_taps(g.window)):
            window = padded[(slice(None), slice(None)) + tuple(slice(k * d, k * d + o) for k, d, o
                                                               in zip(tap, g.dilation, g.out))]
            np.multiply(rows, window.swapaxes(0, 1).reshape(channels, -1, width), out=products[:, :, :width])
            blocks = np.concatenate([lanes[:, t, None], products.reshape(channels, -1, LANES)], axis=1)
            lanes[:, t] = np.add.reduce(blocks, axis=1)   # down the blocks, block by block


def filter_total(lanes):
    """(C, taps): each tap's lanes summed from +0 in lane order."""
    total = np.zeros(lanes.shape[:2], lanes.dtype)
    with np.errstate(all="ignore"):
        for k in range(LANES):
            total = total + lanes[:, :, k]
    return total


# ---- on the padded grid ----

def depthwise_taps(w, operand, offsets, out):
    """out (rows, m) = +0 + Σ_t w[:, t] * operand[:, offsets[t]:][:, :m], one product and one sum per tap
    in t order."""
    m, lib, item = out.shape[1], kernels.lib(), out.itemsize
    if lib is not None and out.dtype in (np.float32, np.float64):
        table = kernels.int64_pointer(offsets)

        def run(lo, hi):   # rows lo..hi (the kernel releases the GIL)
            lib.opemu_kernel_depthwise_taps(item, hi - lo, len(offsets), table, kernels.strided_address(w[lo:hi]),
                                            w.strides[0] // item, kernels.strided_address(operand[lo:hi]),
                                            operand.strides[0] // item, kernels.strided_address(out[lo:hi]),
                                            out.strides[0] // item, m)
        parallel.split(len(out), run, worth=out.size * len(offsets) >= PARALLEL_MIN)
        return
    out[...] = 0
    product = np.empty_like(out)
    with np.errstate(all="ignore"):   # inf and NaN go through as on the device
        for t, offset in enumerate(offsets):
            np.multiply(w[:, t:t + 1], operand[:, offset:offset + m], out=product)
            np.add(out, product, out=out)
