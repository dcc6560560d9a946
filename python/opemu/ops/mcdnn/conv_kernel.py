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


class Scratch:
    """The per-image buffers of one call: the padded input (C, plane) and the columns (G, Cg*RS, L)."""

    def __init__(self, g, ct, workspace=None):
        padded_bytes = g.padded_elements() * ct.itemsize
        if workspace is None:
            self.padded = np.empty((g.c, g.plane), ct)
            self.cols = np.empty((g.groups, g.cg * g.rs, g.l), ct)
        else:
            self.padded = workspace[:padded_bytes].view(ct).reshape(g.c, g.plane)
            self.cols = workspace[padded_bytes:padded_bytes + g.cols_elements() * ct.itemsize].view(ct).reshape(
                g.groups, g.cg * g.rs, g.l)

    @staticmethod
    def nbytes(g, ct):
        return (g.padded_elements() + g.cols_elements()) * ct.itemsize


def weights(w, g, ct):
    """w as (G, Kg, Cg*RS) in the compute dtype, flipped for a true convolution."""
    if g.flip:
        w = w[(slice(None), slice(None)) + (slice(None, None, -1),) * len(g.window)]
    return np.ascontiguousarray(w, dtype=ct).reshape(g.groups, g.kg, g.cg * g.rs)


def _window_view(flat, g, offset):
    """(C, out…) view of a flat padded image at one window offset."""
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[:, offset:], shape=(flat.shape[0],) + g.out,
                                           strides=(flat.strides[0],) + tuple(s * item for s in g.grid_strides),
                                           writeable=True)


def _pad_into(padded, image, g):
    padded.fill(0)
    inner = padded.reshape((g.c,) + g.padded)[(slice(None),) + tuple(slice(p, p + s) for p, s in
                                                                          zip(g.pad, g.spatial))]
    inner[...] = image


def im2col(image, g, scratch):
    """scratch.cols (G, Cg*RS, L) of one image (C, spatial…)."""
    _pad_into(scratch.padded, image, g)
    cols = scratch.cols.reshape(g.c, g.rs, g.l)
    for index, offset in enumerate(g.offsets):
        cols[:, index].reshape((g.c,) + g.out)[...] = _window_view(scratch.padded, g, offset)
    return scratch.cols


def forward_image(image, wmat, g, scratch):
    """(G*Kg, L) result of one image."""
    return np.matmul(wmat, im2col(image, g, scratch)).reshape(g.k, g.l)


def backward_data_image(dy, wmat, g, scratch):
    """dx (C, spatial…) of one image's dy (K, out…), in the compute dtype."""
    dcols = np.matmul(wmat.transpose(0, 2, 1), dy.reshape(g.groups, g.kg, g.l), out=scratch.cols)
    dcols = dcols.reshape(g.c, g.rs, g.l)
    scratch.padded.fill(0)
    for index, offset in enumerate(g.offsets):
        view = _window_view(scratch.padded, g, offset)
        np.add(view, dcols[:, index].reshape((g.c,) + g.out), out=view)
    return scratch.padded.reshape((g.c,) + g.padded)[(slice(None),) + tuple(slice(p, p + s) for p, s in
                                                                                zip(g.pad, g.spatial))]


def backward_filter_image(image, dy, g, scratch, acc):
    """acc (G, Kg, Cg*RS) += dy (K, out…) @ cols^T of one image."""
    cols = im2col(image, g, scratch)
    acc += np.matmul(dy.reshape(g.groups, g.kg, g.l), cols.transpose(0, 2, 1))


def unflip(dw, g):
    """(K, Cg, window…) of an accumulated (G, Kg, Cg*RS), flipped back for a true convolution."""
    dw = dw.reshape((g.k, g.cg) + g.window)
    if g.flip:
        dw = dw[(slice(None), slice(None)) + (slice(None, None, -1),) * len(g.window)]
    return dw
