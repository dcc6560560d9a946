"""mcdnnSpatialTfGridGeneratorForward/Backward and mcdnnSpatialTfSamplerForward/Backward (reference mcdnn.md §3.7;
seed 3.1.1.20, 3.1.1.21).

The descriptor holds the transformed (output) tensor's N, C, H, W and the data type of theta and grid.
Grid generator: theta is N×2×3, the grid N×H×W×2 (x then y) of theta·[x_t, y_t, 1] over the output's
pixel centres at corner-aligned normalized coordinates, x_t = -1 + 2j/(W-1) (y_t alike; -1 for a size of
1, as the cuDNN-era reference generator does). Its backward overwrites dtheta[n] = Σ dgrid[n,i,j]ᵀ·[x_t,y_t,1].

Sampler: bilinear, zero padding, align_corners=True: ix = (gx+1)/2·(W_in-1), iy = (gy+1)/2·(H_in-1); the
four neighbours outside the input contribute 0. y = alpha·sample + beta·y. Backward gives both
gradients: dx (scatter of dy by the bilinear weights, blended with alpha/beta) and dgrid (blended with
alphaDgrid/betaDgrid) = Σ_c dy·∂sample/∂(ix, iy)·((W_in-1)/2, (H_in-1)/2). fp16/bf16 compute in fp32,
rounded once; every image on its own, so the result does not depend on the thread count.

Statuses: BAD_PARAM for a NULL handle, descriptor, tensor or scaling factor, a dy / y whose dims differ
from the descriptor's, x / dx dims that differ, an n or c of x that differs from the descriptor's, data
types that differ from the descriptor's; NOT_SUPPORTED when the descriptor's tensor is not 4-D (only 2-D
transformations) or its data type is not a floating one."""

import numpy as np

from opemu.core import kernels, mcdnn, parallel
from opemu.core.scratch import buffer

_PARALLEL_MIN = 1 << 16


def _transformer(a):
    st = a.stDesc
    if len(st.dims) != 4:
        raise mcdnn.not_supported("the transformed tensor of stDesc has %d dimensions: only 2-D transformations "
                                  "(4-D tensors) are supported" % len(st.dims))
    if st.dtype_code not in mcdnn.FLOATING:
        raise mcdnn.not_supported("stDesc's data type %s is not a floating type" % mcdnn.type_name(st.dtype_code))
    n, _, h, w = st.dims
    a._theta_desc = mcdnn.Tensor(st.dtype_code, (n, 2, 3), (6, 3, 1))
    a._grid_desc = mcdnn.Tensor(st.dtype_code, (n, h, w, 2), (h * w * 2, w * 2, 2, 1))
    a._ct = np.dtype(np.float64) if mcdnn.NUMPY[st.dtype_code] == np.float64 else np.dtype(np.float32)


def _axis(size, ct):
    return np.linspace(-1, 1, size, dtype=np.float64).astype(ct) if size > 1 else np.full(1, -1, ct)


def base_grid(h, w, ct):
    """[x_t, y_t, 1] for every output pixel, (h·w, 3)."""
    base = np.empty((h, w, 3), ct)
    base[..., 0] = _axis(w, ct)[None, :]
    base[..., 1] = _axis(h, ct)[:, None]
    base[..., 2] = 1
    return base.reshape(h * w, 3)


def _parallel(n, elements, fn):
    parallel.split(n, fn, worth=elements >= _PARALLEL_MIN)


class SpatialTfGridGeneratorForward(mcdnn.McdnnOp):
    name = "mcdnnSpatialTfGridGeneratorForward"
    tensors = {"theta": "_theta_desc", "grid": "_grid_desc"}
    outputs = ("grid",)

    def check(self, a):
        mcdnn.require(a, "stDesc", "theta", "grid")
        _transformer(a)

    def compute(self, a, v):
        n, _, h, w = a.stDesc.dims
        base = base_grid(h, w, a._ct)
        theta = v["theta"].astype(a._ct)
        grid = np.matmul(base[None], theta.transpose(0, 2, 1))   # (n, h·w, 2)
        v["grid"][...] = grid.reshape(n, h, w, 2)


class SpatialTfGridGeneratorBackward(mcdnn.McdnnOp):
    name = "mcdnnSpatialTfGridGeneratorBackward"
    tensors = {"dgrid": "_grid_desc", "dtheta": "_theta_desc"}
    outputs = ("dtheta",)

    def check(self, a):
        mcdnn.require(a, "stDesc", "dgrid", "dtheta")
        _transformer(a)

    def compute(self, a, v):
        n, _, h, w = a.stDesc.dims
        base = base_grid(h, w, a._ct)
        dgrid = v["dgrid"].astype(a._ct).reshape(n, h * w, 2)
        v["dtheta"][...] = np.matmul(dgrid.transpose(0, 2, 1), base[None])


class _Taps:
    """The four bilinear neighbours of every output pixel of one image: flat input indices (the zero
    pad, index h_in·w_in, when outside) and weights, each (h·w,)."""
    CORNERS = ((0, 0), (0, 1), (1, 0), (1, 1))

    def __init__(self, grid, h_in, w_in, ct):
        gx = grid[..., 0].reshape(-1).astype(ct)
        gy = grid[..., 1].reshape(-1).astype(ct)
        ix = (gx + 1) / ct.type(2) * ct.type(w_in - 1)
        iy = (gy + 1) / ct.type(2) * ct.type(h_in - 1)
        with np.errstate(invalid="ignore"):
            x0, y0 = np.floor(ix), np.floor(iy)
        self.wx1, self.wy1 = ix - x0, iy - y0
        self.wx0, self.wy0 = 1 - self.wx1, 1 - self.wy1
        self.pad = pad = h_in * w_in
        with np.errstate(invalid="ignore"):  # NaN and huge coordinates land outside: the zero pad
            x0 = np.nan_to_num(x0, nan=-2, posinf=-2, neginf=-2).clip(-2, w_in + 1).astype(np.int64)
            y0 = np.nan_to_num(y0, nan=-2, posinf=-2, neginf=-2).clip(-2, h_in + 1).astype(np.int64)
        column = ((x0 >= 0) & (x0 < w_in), (x0 >= -1) & (x0 < w_in - 1))   # x0, x0 + 1 inside
        row = ((y0 >= 0) & (y0 < h_in), (y0 >= -1) & (y0 < h_in - 1))
        base = y0 * w_in + x0
        self.index = {}
        for dy_, dx_ in self.CORNERS:
            self.index[dy_, dx_] = np.where(row[dy_] & column[dx_], base + (dy_ * w_in + dx_), pad)

    def weight(self, corner):
        return (self.wy1 if corner[0] else self.wy0) * (self.wx1 if corner[1] else self.wx0)

    def gather(self, table):
        """The four neighbours' rows of a (h_in·w_in + 1, C) table, each (h·w, C) in a thread's scratch."""
        rows = []
        for k, corner in enumerate(self.CORNERS):
            out = buffer("corner%d" % k, (self.index[corner].size, table.shape[1]), table.dtype)
            rows.append(np.take(table, self.index[corner], axis=0, out=out))
        return rows


def _pixel_major(image, ct, name, pad_row=False):
    """(C, h, w) → a thread's (h·w [+1], C) scratch copy in the compute type (with a zero row for the
    padding when asked): a pixel's channels side by side, so the taps gather whole rows."""
    c = image.shape[0]
    pixels = image.shape[1] * image.shape[2]
    table = buffer(name, (pixels + (1 if pad_row else 0), c), ct)
    np.copyto(table[:pixels].reshape(image.shape[1], image.shape[2], c), np.moveaxis(image, 0, -1),
              casting="unsafe")
    if pad_row:
        table[pixels] = 0
    return table


def _order_by(major, minor, bound):
    """The stable order of (major, minor) pairs: two stable sorts, radix sorts on 16-bit keys when the values
    fit (minor < bound, major <= its count)."""
    if bound < 1 << 16 and minor.size < 1 << 16:
        first = np.argsort(minor.astype(np.uint16), kind="stable")
        return first[np.argsort(major[first].astype(np.uint16), kind="stable")]
    return np.argsort((major.astype(np.int64) << 32) | minor, kind="stable")


def _dx_reference(taps, dy, weight):
    """dx (C, h_in·w_in) of one image: every output pixel's gradient dy (C, h·w) spread to its four taps by
    their weights (4, h·w), each input element's taps added to +0 in pixel order, then corner order (the C kernel's
    order). The in-range taps, listed pixel-major, are ordered by (taps per input pixel, input pixel) — a
    stable sort, which keeps that order — so each class of pixels receiving k taps is one (C, m, k) block,
    summed over its k slices in order."""
    c, pixels = dy.shape
    pad = taps.pad
    index = np.stack([taps.index[k] for k in taps.CORNERS], axis=1).reshape(-1)  # tap p·4 + corner
    result = np.zeros((c, pad), dy.dtype)
    inside = np.flatnonzero(index != pad)
    if inside.size == 0:
        return result
    target = index[inside]
    counts = np.bincount(target, minlength=pad)
    order = _order_by(counts[target], target, pad)
    source, target = inside[order], target[order]
    pixel, corner = np.divmod(source, len(taps.CORNERS))
    contribution = dy[:, pixel] * weight[corner, pixel]
    classes = counts[target]
    bounds = np.flatnonzero(np.diff(classes)) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, classes.size]):
        k = int(classes[lo])
        block = contribution[:, lo:hi].reshape(c, -1, k)
        total = block[:, :, 0] + dy.dtype.type(0)
        for j in range(1, k):
            total += block[:, :, j]
        result[:, target[lo:hi:k]] = total
    return result


def backward_reference(taps, x, dy, scale_x, scale_y):
    """(dx (C, h_in·w_in), dgrid (h·w, 2)) of one image from x (C, h_in·w_in) and dy (C, h·w), channel-major in
    the compute type. dgrid: with A = v01-v00, D = v10-v00, E = v11-v10-A (v_yx the neighbours, 0 outside),
    ∂sample/∂ix = A + wy1·E and ∂sample/∂iy = D + wx1·E, each term summed against dy over the channels in
    order from +0."""
    weight = np.stack([taps.weight(k) for k in taps.CORNERS])
    dx = _dx_reference(taps, dy, weight)
    padded = np.concatenate([x, np.zeros((x.shape[0], 1), x.dtype)], axis=1)
    v00, v01, v10, v11 = (np.take(padded, taps.index[k], axis=1) for k in taps.CORNERS)
    e = np.subtract(v11, v10, out=v11)
    d = np.subtract(v10, v00, out=v10)
    a_ = np.subtract(v01, v00, out=v01)
    e -= a_
    along = np.zeros((3, dy.shape[1]), dy.dtype)
    for channel in range(dy.shape[0]):
        for total, term in zip(along, (a_, d, e)):
            total += dy[channel] * term[channel]
    dgrid = np.empty((dy.shape[1], 2), dy.dtype)
    dgrid[:, 0] = (along[0] + taps.wy1 * along[2]) * scale_x
    dgrid[:, 1] = (along[1] + taps.wx1 * along[2]) * scale_y
    return dx, dgrid


def sampler_backward(taps, x, dy, dx, scale_x, scale_y):
    """backward_reference's dx written into dx (C, h_in·w_in, the compute type) and its dgrid returned: by the C
    kernel when the arrays are dense float/double and dx overlaps neither input, else by the reference."""
    dgrid = _c_sampler_backward(taps, x, dy, dx, scale_x, scale_y)
    if dgrid is None:
        result, dgrid = backward_reference(taps, x, dy, scale_x, scale_y)
        dx[...] = result
    return dgrid


def _c_sampler_backward(taps, x, dy, dx, scale_x, scale_y):
    """The C kernel's dx (into dx) and dgrid, or None when it does not apply."""
    lib = kernels.lib()
    if lib is None or not kernels.dense(x, dy, dx) or np.may_share_memory(dx, x) or np.may_share_memory(dx, dy):
        return None
    ct = dy.dtype
    pixels = dy.shape[1]
    index, weight = _tap_tables(taps, ct)
    wx1, wy1 = np.ascontiguousarray(taps.wx1), np.ascontiguousarray(taps.wy1)
    dgrid = np.empty((pixels, 2), ct)
    sums = buffer("sampler sums", (3, pixels), ct)
    address = kernels.address
    status = lib.opemu_kernel_sampler_backward(ct.itemsize, dy.shape[0], pixels, taps.pad, kernels.int64_pointer(index),
                                               address(weight), address(wx1), address(wy1), address(x), address(dy),
                                               address(dx), address(dgrid), float(scale_x), float(scale_y),
                                               address(sums))
    return dgrid if status == 0 else None


def _tap_tables(taps, ct):
    """The kernels' corner-major (4, h·w) tables of tap indices (int64) and weights (ct), in scratch."""
    pixels = taps.wx1.size
    index = buffer("tap index", (len(taps.CORNERS), pixels), np.int64)
    weight = buffer("tap weight", (len(taps.CORNERS), pixels), ct)
    for k, corner in enumerate(taps.CORNERS):
        index[k] = taps.index[corner]
        weight[k] = taps.weight(corner)
    return index, weight


def forward_reference(taps, image, ct):
    """The bilinear samples of one image (C, h_in, w_in), pixel-major (h·w, C): the four neighbours (0
    outside) times their weights, added in corner order."""
    rows = taps.gather(_pixel_major(image, ct, "x", pad_row=True))
    result = rows[0]
    result *= taps.weight(taps.CORNERS[0])[:, None]
    for corner, part in zip(taps.CORNERS[1:], rows[1:]):
        part *= taps.weight(corner)[:, None]
        result += part
    return result


def sampler_forward(taps, image, y, ct):
    """forward_reference's samples written into y (C, h·w, the compute type): by the C kernel when the image
    (C, h_in, w_in) is dense float/double and y does not overlap it, else by the reference."""
    lib = kernels.lib()
    x = _channel_major(image, ct) if lib is not None else None
    if lib is None or not kernels.dense(x, y) or np.may_share_memory(y, x):
        y[...] = forward_reference(taps, image, ct).T
        return
    index, weight = _tap_tables(taps, ct)
    status = lib.opemu_kernel_sampler_forward(ct.itemsize, y.shape[0], y.shape[1], taps.pad,
                                              kernels.int64_pointer(index), kernels.address(weight),
                                              kernels.address(x), kernels.address(y))
    if status != 0:
        y[...] = forward_reference(taps, image, ct).T


def _channel_major(image, ct):
    """(C, h, w) → (C, h·w) in the compute type, dense: the image itself when it is, else a copy."""
    return np.ascontiguousarray(image, dtype=ct).reshape(image.shape[0], -1)


def _sampler_checks(a, data, out, dims_name):
    st = a.stDesc
    t_data, t_out = getattr(a, data), getattr(a, out)
    if t_out.shape != tuple(st.dims):
        raise mcdnn.bad_param("the dims of %s %s differ from the transformed tensor's %s in stDesc"
                              % (out, list(t_out.shape), list(st.dims)))
    if t_data.ndim != 4 or t_data.shape[:2] != tuple(st.dims[:2]):
        raise mcdnn.bad_param("%s %s must be 4-D with the n and c of stDesc %s" % (data, list(t_data.shape),
                                                                                  list(st.dims[:2])))
    for name, t in ((data, t_data), (out, t_out)):
        if t.dtype_code != st.dtype_code:
            raise mcdnn.bad_param("the data type of %s (%s) differs from stDesc's (%s)"
                                  % (name, mcdnn.type_name(t.dtype_code), mcdnn.type_name(st.dtype_code)))


class SpatialTfSamplerForward(mcdnn.McdnnOp):
    name = "mcdnnSpatialTfSamplerForward"
    tensors = {"x": "xDesc", "grid": "_grid_desc", "y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        mcdnn.require(a, "stDesc", "xDesc", "yDesc", "x", "grid", "y", "alpha", "beta")
        _transformer(a)
        _sampler_checks(a, "xDesc", "yDesc", "yDesc")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")

    def compute(self, a, v):
        x, grid, y, ct = v["x"], v["grid"], v["y"], a._ct
        n, c, h, w = a.stDesc.dims
        h_in, w_in = x.shape[2:]

        direct = a.alpha_value == 1 and a.beta_value == 0 and y.dtype == ct

        def run(lo, hi):
            for i in range(lo, hi):
                taps = _Taps(grid[i], h_in, w_in, ct)
                straight = direct and y[i].flags.c_contiguous  # y[i] itself receives the samples
                into = y[i].reshape(c, -1) if straight else buffer("y", (c, h * w), ct)
                sampler_forward(taps, x[i], into, ct)
                if not straight:
                    mcdnn.write(y[i], into.reshape(c, h, w), a.alpha_value, a.beta_value)
        _parallel(n, c * h * w * n, run)


class SpatialTfSamplerBackward(mcdnn.McdnnOp):
    name = "mcdnnSpatialTfSamplerBackward"
    tensors = {"x": "xDesc", "dx": "dxDesc", "dy": "dyDesc", "grid": "_grid_desc", "dgrid": "_grid_desc"}
    outputs = ("dx", "dgrid")

    def check(self, a):
        mcdnn.require(a, "stDesc", "xDesc", "dxDesc", "dyDesc", "x", "dx", "dy", "grid", "dgrid", "alpha", "beta",
                      "alphaDgrid", "betaDgrid")
        _transformer(a)
        _sampler_checks(a, "xDesc", "dyDesc", "dyDesc")
        if a.dxDesc.shape != a.xDesc.shape:
            raise mcdnn.bad_param("the dims of xDesc %s and dxDesc %s differ" % (list(a.xDesc.shape),
                                                                                 list(a.dxDesc.shape)))
        mcdnn.same_type(mcdnn.bad_param, ("xDesc", a.xDesc), ("dxDesc", a.dxDesc))
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        a.alpha_grid = mcdnn.scaling(a.alphaDgrid, a.xDesc, "alphaDgrid")
        a.beta_grid = mcdnn.scaling(a.betaDgrid, a.xDesc, "betaDgrid")

    def compute(self, a, v):
        x, grid, dy, dx, dgrid, ct = v["x"], v["grid"], v["dy"], v["dx"], v["dgrid"], a._ct
        n, c, h, w = a.stDesc.dims
        h_in, w_in = x.shape[2:]
        scale_x, scale_y = ct.type((w_in - 1) / 2), ct.type((h_in - 1) / 2)

        direct = a.alpha_value == 1 and a.beta_value == 0 and dx.dtype == ct

        def run(lo, hi):
            for i in range(lo, hi):
                taps = _Taps(grid[i], h_in, w_in, ct)
                straight = direct and dx[i].flags.c_contiguous  # dx[i] itself receives the gradient
                into = dx[i].reshape(c, -1) if straight else buffer("dx", (c, taps.pad), ct)
                dgrid_i = sampler_backward(taps, _channel_major(x[i], ct), _channel_major(dy[i], ct), into, scale_x,
                                           scale_y)
                if not straight:
                    mcdnn.write(dx[i], into.reshape(c, h_in, w_in), a.alpha_value, a.beta_value)
                mcdnn.write(dgrid[i], dgrid_i.reshape(h, w, 2), a.alpha_grid, a.beta_grid)
        _parallel(n, c * h * w * n, run)
