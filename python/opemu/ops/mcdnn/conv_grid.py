"""The convolution sums that read the padded images as one flat grid (unit stride) or straight as they lie
(1x1 without padding), for conv_kernel, which picks them by the geometry.

Grid (unit stride, the common case). With stride 1 an output at padded position j reads the padded
input at j + offset(window element) for every image and position alike, so on the flat padded buffer
(C, images*plane) a window element is a plain column window: the forward is the sum over window
elements e of W_e (Kg, Cg) @ grid[:, offset_e:][:, :M], every padded grid position computed (the ones
past the output are dropped). The window elements' products are summed in one C pass that keeps a tile
of the result in registers and L1 (opemu.core.blas.chain_sums); its NumPy twin is one GEMM per window
element adding its product into the result (beta = 1; matmul and add), so no copy of the input is made per
window element. The backward data is the same on dy laid out on the grid (zeros between the outputs)
with the offsets reversed and W transposed. The backward filter sums over the grid's positions, in blocks
of K_BLOCK: row (c, window element) of the gradient is x's row c read at the element's offset, times dy
laid out transposed (positions by output channels), so neither operand is copied per window element.
Reading the grid adds terms weight * 0 at the dropped positions: exactly zero unless a factor is inf or
NaN, so a non-finite filter (backward data) or result (backward filter) is recomputed on columns, whose
sums hold only the terms of real windows. With one channel per group (depthwise) C kernels sum each
channel's taps and its filter gradient (opemu.ops.mcdnn.conv_depthwise), mostly straight from the images.

A 1x1 convolution without padding takes the grid's sums straight from the images and dy as they lie
(pointwise, pointwise_filter): nothing is placed on a grid."""
import itertools
import math

import numpy as np

from opemu.core import blas, kernels, parallel
from opemu.ops.mcdnn import conv_depthwise

PARALLEL_MIN = 1 << 20   # elements below which a copy is not worth the threads


# ---- the grid (unit stride) ----

def _on_grid(buffer, g, nb, rows, at, region):
    """(nb, rows, region…) view of a (rows, …) grid buffer whose positions start at `at`; `region`
    is per spatial dimension the (start, length) inside the padded image."""
    block = buffer[:rows, at:at + nb * g.plane].reshape((rows, nb) + g.padded)
    return block[(slice(None), slice(None)) + tuple(slice(s, s + n) for s, n in region)].swapaxes(0, 1)


def _zero_outside(block, axis, region):
    """Zeros block everywhere but `region`, its spatial axes starting at `axis`."""
    for d, (start, length) in enumerate(region):
        for part in (slice(0, start), slice(start + length, None)):
            block[(slice(None),) * (axis + d) + (part,)] = 0


def _clear_grid(buffer, g, nb, at, region):
    """Zeros a (rows, columns) grid buffer but for the region of nb images placed from column `at`."""
    end = at + nb * g.plane
    buffer[:, :at] = 0
    buffer[:, end:] = 0
    _zero_outside(buffer[:, at:end].reshape((buffer.shape[0], nb) + g.padded), 2, region)


def _interior(g):
    return tuple(zip(g.pad, g.spatial))


def _outputs(g):
    return tuple((0, o) for o in g.out)


def _place(source, target):
    """target[...] = source (nb, rows, …), rows split among the cores."""
    def copy(lo, hi):
        target[:, lo:hi] = source[:, lo:hi]
    parallel.split(target.shape[1], copy, worth=target.size >= PARALLEL_MIN)


def _blocks(inner):
    """The inner-dimension blocks of a GEMM chain (opemu.core.blas.K_BLOCK)."""
    return [slice(lo, min(lo + blas.K_BLOCK, inner)) for lo in range(0, max(inner, 1), blas.K_BLOCK)]


def _live(g, nb, region):
    """The grid columns of a chunk of nb images whose sums are used: per image, the positions whose index in
    the first spatial dimension lies in `region` (its (start, length)); the rows outside are dropped."""
    (start, length), pitch = region[0], g.plane // g.padded[0]
    return [(i * g.plane + start * pitch, i * g.plane + (start + length) * pitch) for i in range(nb)]


def _pieces(ranges, lo, hi):
    """The parts of `ranges` (sorted, disjoint) from the lo-th to the hi-th of their columns."""
    pieces, at = [], 0
    for start, stop in ranges:
        first, last = max(lo - at, 0), min(hi - at, stop - start)
        if first < last:
            pieces.append((start + first, start + last))
        at += stop - start
    return pieces


def _tap_sums(w, operand, offsets, out, live):
    """out (G, R, m) = sum over window elements e (in order), then over blocks of the inner dimension, of
    w[e] (G, R, I) @ operand[:, :, offsets[e]:][:, :, :m]; each product added to out with one rounding, as
    GEMM with beta = 1 adds it (opemu.core.blas), NumPy's matmul and add being its twin. m is whole vectors
    (blas.whole_vectors): the columns past the grid are computed and not used; the C kernel computes only
    the `live` ones (_live)."""
    if _chained(w, operand, offsets, out, live):
        return out
    partial = None if blas.available(out.dtype) else np.empty(out.shape[1:], out.dtype)
    m = out.shape[2]
    first = True
    for e, offset in enumerate(offsets):
        window = operand[:, :, offset:offset + m]
        for block in _blocks(w.shape[3]):
            for group in range(out.shape[0]):
                blas.product(out[group], w[e, group][:, block], window[group, block], not first, partial)
            first = False
    return out


CHAINED_MIN = 1 << 24   # multiply-adds below which the kernel's columns are not worth the threads


def _chained(w, operand, offsets, out, live):
    """_tap_sums in one C pass (opemu.core.blas.chain_sums): the same terms, window element by window element
    and block by block, each group's columns shared among the cores. False where the kernel would not give
    BLAS's bits: not fp32, or a one-row or one-column result (the twin's matmul takes those to gemv)."""
    groups, rows, m = out.shape
    if out.dtype != np.float32 or rows < 2 or m < 2 or not blas.chain_available():
        return False
    item = out.itemsize
    blocks = _blocks(w.shape[3])
    ldb = operand.strides[1] // item
    inner = np.array([b.stop - b.start for _ in offsets for b in blocks], np.int64)
    a_at = np.array([e * (w.strides[0] // item) + b.start for e in range(len(offsets)) for b in blocks], np.int64)
    b_at = np.array([offset + b.start * ldb for offset in offsets for b in blocks], np.int64)
    a_rows = np.arange(rows, dtype=np.int64) * (w.strides[2] // item)

    def run(lo, hi):   # live columns lo..hi of every group
        for start, stop in _pieces(live, lo, hi):
            for group in range(groups):
                blas.chain_sums(out[group, :, start:stop], w[0, group], a_rows, a_at, operand[group, :, start:], b_at,
                                ldb, inner, accumulate=False)
    parallel.split(sum(stop - start for start, stop in live), run, worth=out.size * int(inner.sum()) >= CHAINED_MIN)
    return True


def _tap_offsets(g, reverse):
    """Each window element's offset into the operand's rows, in window order: forward reads j + offset,
    the backward data j + reach - offset (dy sits `reach` into its row)."""
    offsets = np.array(g.offsets, np.int64)
    return g.reach - offsets if reverse else offsets


def _per_element(w, g, reverse):
    """(RS, G, rows out/G, rows in/G): the filter's matrix of each window element, (Kg, Cg) forward and
    (Cg, Kg) for the backward data, from w (G, Kg, Cg*RS)."""
    per_element = w.reshape(g.groups, g.kg, g.cg, g.rs)
    return np.ascontiguousarray(per_element.transpose((3, 0, 2, 1) if reverse else (3, 0, 1, 2)))


def _by_group(matrix, g):
    """(G, rows/G, columns) view of a (rows, columns) grid buffer."""
    return matrix.reshape(g.groups, matrix.shape[0] // g.groups, matrix.shape[1])


def grid_pass(source, w, g, scratch, reverse):
    """The forward (x -> y) or, `reverse`, the backward data (dy -> dx): the same sums on the grid with the
    offsets reversed, dy sitting `reach` into its rows, and the filter's inputs and outputs exchanged."""
    nb, m = source.shape[0], source.shape[0] * g.plane
    rows_in, rows_out = (g.k, g.c) if reverse else (g.c, g.k)
    operand, at, placed = scratch.operand[:rows_in], g.reach if reverse else 0, _outputs(g) if reverse else _interior(g)
    scratch.clear("operand", "dy" if reverse else "x", lambda: _clear_grid(operand, g, scratch.nb, at, placed))
    _place(source, _on_grid(operand, g, nb, rows_in, at, placed))
    result = scratch.out[:rows_out, :m]
    scratch.clear("out", "result", lambda: None)   # whatever it held: a later dy placed in it needs zeroing
    region = _interior(g) if reverse else _outputs(g)
    if g.depthwise:
        conv_depthwise.depthwise_taps(w.reshape(rows_out, g.rs), operand, _tap_offsets(g, reverse), result)
    else:
        _tap_sums(_per_element(w, g, reverse), _by_group(operand, g), _tap_offsets(g, reverse),
                  _by_group(scratch.out[:rows_out, :blas.whole_vectors(m)], g), _live(g, nb, region))
    return _on_grid(result, g, nb, rows_out, 0, region)


def grid_backward_filter(images, dy, g, scratch, acc):
    """Adds a chunk's filter gradient to acc: (G, Cg*RS, Kg in whole vectors), rows (c, window element). The C
    kernel reads dy on the grid as rows of positions (_chained_filter_sums); its NumPy twin, dy laid out
    transposed (_filter_sums)."""
    nb, m = images.shape[0], images.shape[0] * g.plane
    operand = scratch.operand[:g.c]
    scratch.clear("operand", "x", lambda: _clear_grid(operand, g, scratch.nb, 0, _interior(g)))
    _place(images, _on_grid(operand, g, nb, g.c, 0, _interior(g)))
    offsets, live = _tap_offsets(g, reverse=False), _live(g, nb, _outputs(g))
    with np.errstate(invalid="ignore"):   # 0 * inf in a gap: the caller takes columns then
        if acc.dtype == np.float32 and g.cg > 1 and blas.chain_available():
            rows = scratch.out.reshape(-1)[:g.k * scratch.nb * g.plane].reshape(g.k, -1)
            scratch.clear("out", "dy", lambda: _clear_grid(rows, g, scratch.nb, 0, _outputs(g)))
            _place(dy, _on_grid(rows, g, nb, g.k, 0, _outputs(g)))
            _chained_filter_sums(_by_group(operand, g), _by_group(rows, g), offsets, acc, live)
            return
        dy_t = scratch.out[:, :m]
        scratch.clear("out", "dy transposed", lambda: _clear_transposed(scratch.out, g, scratch.nb))
        place_transposed(dy, dy_t, g)
        _filter_sums(_by_group(operand, g), dy_t, offsets, acc, live)


def _clear_transposed(dy_t, g, nb):
    """Zeros the transposed dy (G, nb*plane, V) but for the outputs' positions and a group's Kg columns."""
    dy_t[:, :, g.kg:] = 0
    _zero_outside(dy_t.reshape((g.groups, nb) + g.padded + (dy_t.shape[2],)), 2, _outputs(g))


def place_transposed(dy, dy_t, g):
    """dy (nb, K, out…) into dy_t (G, nb*plane, V) at its grid positions, images split among the cores: a
    transposing copy, by the C kernel (csrc/kernels/transpose.c; NumPy's copy is 4x slower) where the
    strides allow."""
    nb = dy.shape[0]
    target = dy_t.reshape((g.groups, nb) + g.padded + (dy_t.shape[2],))
    target = target[(slice(None), slice(None)) + tuple(slice(0, o) for o in g.out) + (slice(0, g.kg),)]
    source = np.moveaxis(dy.reshape((nb, g.groups, g.kg) + g.out), 2, -1).swapaxes(0, 1)
    lib, item = kernels.lib(), dy.itemsize
    direct = (lib is not None and dy.dtype in (np.float32, np.float64) and dy_t.dtype == dy.dtype
              and all(s > 0 and s % item == 0 for s in source.strides))

    def copy(lo, hi):   # images lo..hi
        if not direct:
            target[:, lo:hi] = source[:, lo:hi]
            return
        for group, image in itertools.product(range(g.groups), range(lo, hi)):
            for lead in itertools.product(*(range(o) for o in g.out[:-2])):   # the depth of a 3-D one
                s, t = source[(group, image) + lead], target[(group, image) + lead]
                s, t = (s, t) if s.ndim == 3 else (s[None], t[None])   # (planes, columns, channels)
                lib.opemu_kernel_transpose(item, s.shape[0], s.shape[2], s.shape[1], kernels.strided_address(s),
                                           s.strides[0] // item, s.strides[2] // item, s.strides[1] // item,
                                           kernels.strided_address(t), t.strides[0] // item, t.strides[1] // item)
    parallel.split(nb, copy, worth=dy.size >= PARALLEL_MIN)


def _position_blocks(live):
    """The blocks of at most K_BLOCK grid positions the filter gradient's sums run over, in order: they cover
    the `live` positions (_live), where dy can be nonzero."""
    return [slice(lo, min(lo + blas.K_BLOCK, stop)) for start, stop in live for lo in range(start, stop, blas.K_BLOCK)]


def _filter_sums(x_grid, dy_t, offsets, acc, live):
    """acc (G, Cg*T, V) += for each block of grid positions in order (_position_blocks), the product x_grid at
    each window element's offset times the block of dy_t: row c*T + t of acc, column k, is
    Σ_j x_grid[c, j + offsets[t]] * dy_t[j, k], each block's product added with one rounding, as GEMM with
    beta = 1 adds it: matmul and add per window element and block (the twin of _chained_filter_sums)."""
    groups, m, columns = dy_t.shape
    taps, cg = len(offsets), x_grid.shape[1]
    partial = None if blas.available(acc.dtype) else np.empty((cg, columns), acc.dtype)
    for block in _position_blocks(live):
        for t, offset in enumerate(offsets):
            for group in range(groups):
                blas.product(acc[group, t::taps], x_grid[group][:, offset + block.start:offset + block.stop],
                             dy_t[group, block], True, partial)


def _chained_filter_sums(x_grid, dy_grid, offsets, acc, live):
    """_filter_sums in the C kernel, reading dy on the grid (G, Kg, positions) as it lies, where the twin needs
    it copied transposed (_filter_terms). The same sums, to the bit."""
    blocks = _position_blocks(live)
    at = np.array([b.start for b in blocks], np.int64)
    _filter_terms([x_grid[group] for group in range(x_grid.shape[0])], x_grid.strides[1] // x_grid.itemsize,
                  [dy_grid[group] for group in range(dy_grid.shape[0])], dy_grid.strides[1] // dy_grid.itemsize,
                  offsets, at, at, np.array([b.stop - b.start for b in blocks], np.int64), acc, dy_grid.shape[1])


def _filter_terms(x_groups, ldx, dy_groups, ldb, offsets, a_at, b_at, inner, acc, kg):
    """acc[group, c*T + t, k] += for each term (block of positions) in order, Σ_j x[c, offsets[t] + a_at + j] *
    dy[k, b_at + j] over j < inner, each term's sum added with one rounding: the C kernel
    (opemu.core.blas.chain_sums, packing each term's block of dy's columns itself, b_transposed), the rows of
    every group shared among the cores. x_groups, dy_groups: each group's first channel row, rows ldx and ldb
    elements apart."""
    taps, cg = len(offsets), acc.shape[1] // len(offsets)
    a_rows = (np.arange(cg, dtype=np.int64)[:, None] * ldx + np.asarray(offsets, np.int64)[None, :]).reshape(-1)

    def run(lo, hi):   # rows lo..hi of every group
        for x, dy, sums in zip(x_groups, dy_groups, acc):
            blas.chain_sums(sums[lo:hi, :kg], x, a_rows[lo:hi], a_at, dy, b_at, ldb, inner, accumulate=True,
                            b_transposed=True)
    parallel.split(cg * taps, run, worth=acc.size * int(inner.sum()) >= CHAINED_MIN)


# ---- 1x1 without padding: straight from the images ----

def _images_as_rows(array):
    """(nb, channels, positions) view of an fp32 (nb, channels, spatial…) array whose positions are one run of
    unit stride, or None."""
    shape, strides, item = array.shape, array.strides, array.itemsize
    run = item
    for extent, stride in zip(reversed(shape[2:]), reversed(strides[2:])):
        if stride != run and extent > 1:
            return None
        run *= extent
    if array.dtype != np.float32 or any(s <= 0 or s % item for s in strides[:2]):
        return None
    return np.lib.stride_tricks.as_strided(array, (shape[0], shape[1], math.prod(shape[2:])),
                                           strides[:2] + (item,), writeable=True)


def pointwise(source, w, g, reverse, target):
    """A 1x1 convolution without padding written as it is (target, fp32): each image's product from source
    straight into target by the C kernel, the grid being the images themselves, so nothing is placed or
    copied out. The same sums as the grid's (_tap_sums: one term per block of the inner dimension), column
    for column. True when done; False leaves it to the grid (also when target may overlap source: the grid
    reads a copy)."""
    sources, targets = _images_as_rows(source), _images_as_rows(target)
    groups, rows = g.groups, (g.cg if reverse else g.kg)
    positions = math.prod(g.out)
    if (sources is None or targets is None or rows < 2 or positions < 2 or not g.pointwise
            or np.may_share_memory(source, target) or not blas.chain_available()):
        return False
    w = _per_element(w, g, reverse)[0]   # (G, rows out, rows in)
    item, blocks = w.itemsize, _blocks(w.shape[2])
    ldb = sources.strides[1] // item
    inner = np.array([b.stop - b.start for b in blocks], np.int64)
    a_at = np.array([b.start for b in blocks], np.int64)
    b_at = a_at * ldb
    a_rows = np.arange(rows, dtype=np.int64) * (w.strides[1] // item)
    per_in = w.shape[2]

    def run(lo, hi):   # positions lo..hi of every image and group
        for image, group in itertools.product(range(sources.shape[0]), range(groups)):
            b = sources[image, group * per_in:(group + 1) * per_in, lo:]
            c = targets[image, group * rows:(group + 1) * rows, lo:hi]
            blas.chain_sums(c, w[group], a_rows, a_at, b, b_at, ldb, inner, False)
    parallel.split(positions, run, worth=targets.size * per_in >= CHAINED_MIN)
    return True


def pointwise_filter(images, dy, g, acc):
    """A chunk's filter gradient of a 1x1 convolution without padding, added to acc (G, Cg, Kg in whole vectors)
    straight from the images and dy as they lie (fp32): the kernel reads dy transposed itself, so neither is
    placed on a grid. The grid's sums (_filter_sums: per image, one term per block of K_BLOCK positions, in
    order). True when done; False leaves it to the grid."""
    xs, dys = _images_as_rows(images), _images_as_rows(dy)
    if xs is None or dys is None or not g.pointwise or g.cg < 2 or not blas.chain_available():
        return False
    item, blocks = xs.itemsize, _blocks(math.prod(g.out))
    starts = np.array([b.start for b in blocks], np.int64)
    inner = np.tile(np.array([b.stop - b.start for b in blocks], np.int64), xs.shape[0])
    a_at = (np.arange(xs.shape[0], dtype=np.int64)[:, None] * (xs.strides[0] // item) + starts).reshape(-1)
    b_at = (np.arange(dys.shape[0], dtype=np.int64)[:, None] * (dys.strides[0] // item) + starts).reshape(-1)
    _filter_terms([xs[:, group * g.cg:] for group in range(g.groups)], xs.strides[1] // item,
                  [dys[:, group * g.kg:] for group in range(g.groups)], dys.strides[1] // item, [0], a_at, b_at,
                  inner, acc, g.kg)
    return True
