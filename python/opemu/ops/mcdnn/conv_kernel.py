"""The convolution arithmetic behind every mcDNN convolution routine: im2col + GEMM (NumPy's BLAS).

Shapes are logical NC(D)HW whatever the layout (the views carry the strides). A convolution of `groups`
groups has x (N, G*Cg, spatial…), w (G*Kg, Cg, window…), y (N, G*Kg, out…). For each image the input is
copied once, zero-padded, into a flat buffer; every window offset k is then a strided view of it
(element strides stride_i * padded_stride_i), so im2col is one strided copy per offset into a
(G, Cg, RS, L) column matrix and the forward is one stacked GEMM W (G, Kg, Cg*RS) @ cols. The backward
data is the transposed GEMM followed by col2im (one strided add per offset); the backward filter is
dy @ cols^T summed over images. Products and sums are in the compute dtype (fp32 for HALF, BFLOAT16 and
FLOAT data, fp64 for DOUBLE); results are rounded once, when written.

`Scratch` holds the per-image buffers; an algorithm whose scratch cuDNN keeps in the workspace gets them
carved out of the app's workspace (so a too-small one is caught), the others use host memory (what
the hardware keeps on chip)."""
import numpy as np

from opemu.core import parallel


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
        self.rs = int(np.prod(self.window))
        self.l = int(np.prod(self.out))
        windows = np.indices(self.window).reshape(len(self.window), -1).T
        self.offsets = [int(sum(int(r) * d * p for r, d, p in zip(pos, dilation, self.pitch))) for pos in windows]
        self.grid_strides = tuple(s * p for s, p in zip(stride, self.pitch))

    def cols_elements(self):
        return self.c * self.rs * self.l

    def padded_elements(self):
        return self.c * self.plane


PARALLEL_MIN = 1 << 20   # elements below which a copy is not worth the threads
CHUNK_BYTES = 32 << 20   # the column matrix of one chunk of images: large GEMMs, bounded scratch


def chunk_images(g, ct):
    """Images per chunk: as many as fit the column budget (at least one)."""
    per_image = g.cols_elements() * ct.itemsize
    return max(1, min(g.n, CHUNK_BYTES // max(per_image, 1)))


class Scratch:
    """The buffers of one chunk of `nb` images: the padded input (nb, C, plane), the columns
    (G, Cg*RS, nb, L) and an operand in GEMM layout (G, Kg, nb, L) (dy, or y before it is written)."""

    def __init__(self, g, ct, workspace=None):
        self.nb = chunk_images(g, ct)
        shapes = [(self.nb, g.c, g.plane), (g.groups, g.cg * g.rs, self.nb, g.l), (g.groups, g.kg, self.nb, g.l)]
        if workspace is None:
            self.padded, self.cols, self.operand = (np.empty(s, ct) for s in shapes)
            return
        arrays, at = [], 0
        for shape in shapes:
            size = int(np.prod(shape)) * ct.itemsize
            arrays.append(workspace[at:at + size].view(ct).reshape(shape))
            at += size
        self.padded, self.cols, self.operand = arrays

    @staticmethod
    def nbytes(g, ct):
        nb = chunk_images(g, ct)
        return nb * (g.padded_elements() + g.cols_elements() + g.k * g.l) * ct.itemsize


def weights(w, g, ct):
    """w as (G, Kg, Cg*RS) in the compute dtype, flipped for a true convolution."""
    if g.flip:
        w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * len(g.window)]
    return np.ascontiguousarray(w, dtype=ct).reshape(g.groups, g.kg, g.cg * g.rs)


def chunks(g, scratch):
    for lo in range(0, g.n, scratch.nb):
        yield lo, min(lo + scratch.nb, g.n)


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


def forward_chunk(images, wmat, g, scratch):
    """(nb, K, L) result of a chunk of images, in the compute dtype."""
    nb = images.shape[0]
    cols = im2col(images, g, scratch).reshape(g.groups, g.cg * g.rs, nb * g.l)
    out = scratch.operand.reshape(g.groups, g.kg, -1)[:, :, :nb * g.l]
    np.matmul(wmat, cols, out=out)
    return out.reshape(g.k, nb, g.l).swapaxes(0, 1)


def gemm_operand(dy, g, scratch):
    """dy (nb, K, out…) as (G, Kg, nb*L) in the compute dtype, in scratch.operand."""
    nb = dy.shape[0]
    op = scratch.operand.reshape(g.groups, g.kg, -1)[:, :, :nb * g.l]
    op.reshape(g.k, nb, g.l)[...] = dy.reshape(nb, g.k, g.l).swapaxes(0, 1)
    return op


def backward_data_chunk(dy, wmat, g, scratch):
    """dx (nb, C, spatial…) of a chunk's dy (nb, K, out…), in the compute dtype (a view of the scratch)."""
    nb = dy.shape[0]
    dcols = scratch.cols.reshape(g.groups, g.cg * g.rs, -1)[:, :, :nb * g.l]
    np.matmul(wmat.transpose(0, 2, 1), gemm_operand(dy, g, scratch), out=dcols)
    dcols = dcols.reshape(g.c, g.rs, nb, g.l)
    scratch.padded[:nb].fill(0)
    views = [_window_view(scratch.padded, g, offset, nb).swapaxes(0, 1) for offset in g.offsets]

    def add(lo, hi):   # channels lo..hi, every window offset in order: the sums do not depend on the split
        for index, view in enumerate(views):
            np.add(view[lo:hi], dcols[lo:hi, index].reshape((hi - lo, nb) + g.out), out=view[lo:hi])
    parallel.split(g.c, add, worth=dcols.size >= PARALLEL_MIN)
    return _inner(scratch.padded, g, nb)


def backward_filter_chunk(images, dy, g, scratch, acc):
    """acc (G, Kg, Cg*RS) += dy (nb, K, out…) @ cols^T of a chunk of images."""
    nb = images.shape[0]
    cols = im2col(images, g, scratch).reshape(g.groups, g.cg * g.rs, nb * g.l)
    acc += np.matmul(cols, gemm_operand(dy, g, scratch).transpose(0, 2, 1)).transpose(0, 2, 1)


def unflip(dw, g):
    """(K, Cg, window…) of an accumulated (G, Kg, Cg*RS), flipped back for a true convolution."""
    dw = dw.reshape((g.k, g.cg) + g.window)
    if g.flip:
        dw = dw[(slice(None), slice(None)) + (slice(None, None, -1),) * len(g.window)]
    return dw
