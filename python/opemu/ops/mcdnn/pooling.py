"""mcdnnPoolingForward / mcdnnPoolingBackward, 2-D and 3-D (reference mcdnn.md §3.5; seed 3.1.1.18).

Window o of a spatial dimension covers [o*stride - pad, o*stride - pad + window) of the input; yDesc
may be smaller or larger than mcdnnGetPooling*ForwardOutputDim advises, windows past the padded input
are clipped. MAX ignores padding (with MCDNN_NOT_PROPAGATE_NAN a NaN never wins, with
MCDNN_PROPAGATE_NAN it does); AVERAGE_COUNT_INCLUDE_PADDING divides by the window clipped to the
padded input (the whole window whenever yDesc has the advised size), AVERAGE_COUNT_EXCLUDE_PADDING
by the input elements the window covers.

Max backward finds the max position by comparing x with y, as the library does (no index tensor): dy
goes to the first element of the window, in row-major order, that equals y; both MAX modes do this
(deterministic). Average backward spreads dy/count over the window, accumulating where windows
overlap; x, y and their descriptors may then be NULL.

BAD_PARAM: a NULL argument; a pooling descriptor whose dimensions do not fit the tensors'; n or c of
the input and output differ; (backward, seed) dims or strides of y and dy, or of x and dx, differ;
the data types of the tensors differ. NOT_SUPPORTED: other than 2 or 3 spatial dimensions; a
tensor whose innermost (w) stride is not 1 — which, as the seed states, rules out NHWC layouts."""
import functools
import itertools
import math

import numpy as np

from opemu.core import kernels, mcdnn, parallel, scratch
from opemu.core.mcdnn import POOLING as MODE

_MAX_MODES = (MODE["MCDNN_POOLING_MAX"], MODE["MCDNN_POOLING_MAX_DETERMINISTIC"])
# Window elements per dimension below which the reaching windows are pooled together (the order
# gradients accumulate in is then that of the whole problem); past it, when they read the input
# at disjoint places, window by window.
_SPARSE_SPAN = 4096


def _reach(size, out, k, s, p):
    """The first and last output whose window overlaps an input of `size` (first > last: none)."""
    if size == 0:
        return 0, -1
    return max(0, (p - k) // s + 1), min(out - 1, -(-(size + p) // s) - 1)


@functools.lru_cache(maxsize=256)   # descriptor snapshots are shared per content: a repeated call looks it up
def _geometries(pool, in_shape, out_shape):
    """The pooling as _Geometry pieces, each a box of outputs: one piece, except that a dimension
    whose reaching windows read the input at window elements spread over more than twice the input
    and _SPARSE_SPAN (a window and padding near 2^31 with a stride at least the input's size) is
    split into its windows, each of which reads at most the input."""
    per_dim = []
    for i in range(pool.nbDims):
        size, out, k, s, p = in_shape[2 + i], out_shape[2 + i], pool.window[i], pool.stride[i], pool.padding[i]
        first, last = _reach(size, out, k, s, p)
        if first > last:
            return (_Geometry(pool, in_shape, out_shape, None),)
        # the window elements the reaching windows read, [j_lo, j_hi), span far more than the input
        span = min(k, size - (first * s - p)) - max(0, p - last * s)
        sparse = s >= size and span > max(2 * size, _SPARSE_SPAN)
        per_dim.append([(o, o) for o in range(first, last + 1)] if sparse else [(first, last)])
    return tuple(_Geometry(pool, in_shape, out_shape, ranges) for ranges in itertools.product(*per_dim))


class _Geometry:
    """Per spatial dimension: the windows of a box of outputs that reach the input and the part of it
    they read.

    Windows lying wholly in padding read only the fill: their output is the fill's (-inf for max, 0
    for average) and they send no gradient to the input. The others, outputs `reached` (the box given
    by `ranges`: per dimension the first and last output; None: no window reaches the input), read
    window elements j in [j_lo, j_hi) only (the rest is padding for every one of them), which lie on
    the input from `read`'s start plus some padding: `dims` describes that reduced problem, per
    dimension (input size, output size, window, stride, padding, and the padded length that holds
    every window), so buffers and passes cost what the input and output do, whatever the padding or
    window (2^31 - 1 included). Dropped elements are padding, which neither wins a max nor adds to a
    sum, so results and the order they accumulate in are those of the whole problem. `limits` keeps
    each dimension's own (size, window, stride, padding, first output reached) for the averages'
    divisors."""

    def __init__(self, pool, in_shape, out_shape, ranges):
        self.dims, self.limits, reached, read = [], [], [Ellipsis], [Ellipsis]
        self.out_shape = tuple(out_shape[2:])
        self.empty = ranges is None
        for i in range(pool.nbDims):
            size, out, k, s, p = in_shape[2 + i], out_shape[2 + i], pool.window[i], pool.stride[i], pool.padding[i]
            first, last = (0, 0) if self.empty else ranges[i]
            start_first, start_last = first * s - p, last * s - p
            j_lo, j_hi = max(0, -start_last), max(1, min(k, size - start_first))
            lo = start_first + j_lo
            a = min(max(lo, 0), size)  # the input before it is never read; its tail costs only its size
            window, pad, count = j_hi - j_lo, a - lo, last - first + 1
            length = max(size - a + pad, (count - 1) * s + window - pad) + pad
            # one window has no stride to speak of (the backward walk makes one plane per stride step)
            self.dims.append((size - a, count, window, s if count > 1 else 1, pad, length))
            self.limits.append((size, k, s, p, first))
            reached.append(slice(first, last + 1))
            read.append(slice(a, size))
        self.reached, self.read = tuple(reached), tuple(read)
        self.whole = not self.empty and all(d[:2] == (size, out) for d, size, out
                                            in zip(self.dims, in_shape[2:], out_shape[2:]))

    def padded(self, x, fill, ct):
        """x inside a buffer padded with `fill` so every window is a plain strided slice."""
        if all(p == 0 and length == size for size, _, _, _, p, length in self.dims):
            return x if x.dtype == ct else x.astype(ct)
        buffer = np.full(x.shape[:2] + tuple(d[5] for d in self.dims), fill, ct)
        buffer[self.inner()] = x
        return buffer

    def inner(self):
        return (Ellipsis,) + tuple(slice(p, p + size) for size, _, _, _, p, _ in self.dims)

    def offsets(self):
        """(offset tuple, the strided slice of the padded input it reads) for each window element."""
        for offset in itertools.product(*(range(d[2]) for d in self.dims)):
            yield offset, (Ellipsis,) + tuple(slice(o, o + (out - 1) * s + 1, s)
                                               for o, (_, out, _, s, _, _) in zip(offset, self.dims))

    def valid(self, offset):
        """Where window element `offset` lies on the input (not padding), broadcastable to the output;
        None when it does everywhere."""
        masks, partial = [], False
        for o, (size, out, _, s, p, _) in zip(offset, self.dims):
            position = np.arange(out) * s - p + o
            mask = (position >= 0) & (position < size)
            partial |= not mask.all()
            masks.append(mask)
        if not partial:
            return None
        grid = masks[0]
        for m in masks[1:]:
            grid = grid[..., None] & m
        return grid

    def counts(self, include_padding, ct):
        """Divisor of each reached output's average, broadcastable to those outputs."""
        grid = None
        for (size, k, s, p, first), (_, out, _, _, _, _) in zip(self.limits, self.dims):
            start = (first + np.arange(out, dtype=np.int64)) * s - p
            if include_padding:
                count = np.minimum(start + k, size + p) - start
            else:
                count = np.minimum(start + k, size) - np.maximum(start, 0)
            count = np.maximum(count, 0).astype(ct)
            grid = count if grid is None else grid[..., None] * count
        return grid


def _check_tensor_layouts(pool, named):
    for name, t in named:
        if t.ndim != pool.nbDims + 2:
            raise mcdnn.bad_param("a %d-D pooling descriptor needs %d-D tensors, %s is %d-D"
                                  % (pool.nbDims, pool.nbDims + 2, name, t.ndim))


def _check_supported(pool, named):
    if pool.nbDims not in (2, 3):
        raise mcdnn.not_supported("only 2 and 3 spatial dimensions are supported, the pooling descriptor has %d"
                                  % pool.nbDims)
    for name, t in named:
        if t.strides[-1] != 1:
            raise mcdnn.not_supported("the wStride of %s is %d, not 1" % (name, t.strides[-1]))
    mcdnn.floating(named[0][0], named[0][1])


def _same_batch_and_channels(first, second):
    (name0, t0), (name1, t1) = first, second
    if t0.shape[:2] != t1.shape[:2]:
        raise mcdnn.bad_param("n, c of %s %s and %s %s differ" % (name0, list(t0.shape[:2]), name1, list(t1.shape[:2])))


def divisors(pool, geometry, ct):
    """What each average divides by: the window's count (with or without padding, by the mode), or a divisor the
    descriptor fixes (aclnn's divisorOverride; mcDNN descriptors have none)."""
    divisor = getattr(pool, "divisor", 0)
    if divisor:
        return np.asarray(divisor, ct)
    return geometry.counts(pool.mode == MODE["MCDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"], ct)


def pool(pool, x, out_shape, ct):
    """y (compute type) of every output of the (N, C, spatial…) shape `out_shape`: forward() for callers outside
    the mcDNN API (aclnn's pooling operators, whose windows are mcDNN's)."""
    return forward(pool, _geometries(pool, tuple(x.shape), tuple(out_shape)), x, ct)


def average_gradient(pool, dy, dx_shape, ct):
    """dx (compute type) of average pooling, as PoolingBackward computes it with alpha 1 and beta 0, for callers
    outside the mcDNN API."""
    dx = np.zeros(dx_shape, ct)
    pieces = _geometries(pool, tuple(dx_shape), tuple(dy.shape))
    for piece in pieces:
        if piece.empty:
            continue
        part = dx[piece.read] if len(pieces) == 1 else np.zeros(dx[piece.read].shape, ct)
        dy_part = np.ascontiguousarray(dy[piece.reached], ct)
        counts = divisors(pool, piece, ct)
        if not (piece.whole and _c_average_backward(piece, counts, dy_part, part)):
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(counts != 0, dy_part / counts, 0).astype(ct)
            target = np.empty(part.shape, ct)
            _Phases(piece).average_backward(share, target, ct)
            part[...] = target
        if len(pieces) > 1:
            dx[piece.read] += part
    return dx


def forward(pool, pieces, x, ct):
    """y for every output (pieces: _geometries'): the fill's value where the windows lie wholly in
    padding."""
    if len(pieces) == 1 and pieces[0].whole:
        return _forward_reached(pool, pieces[0], x, ct)
    result = np.full(x.shape[:2] + pieces[0].out_shape, -np.inf if pool.mode in _MAX_MODES else 0, ct)
    for piece in pieces:
        if not piece.empty:
            result[piece.reached] = _forward_reached(pool, piece, x[piece.read], ct)
    return result


def _forward_reached(pool, geometry, x, ct):
    """y of the outputs whose windows reach the input, from the part of x they read."""
    if pool.mode in _MAX_MODES:
        xp = geometry.padded(x, -np.inf, ct)
        reduce = np.maximum if pool.nan else np.fmax
        result = None
        for _, window in geometry.offsets():
            result = xp[window].copy() if result is None else reduce(result, xp[window], out=result)
        return result
    xp = geometry.padded(x, 0, ct)
    result = None
    for _, window in geometry.offsets():
        result = xp[window].copy() if result is None else np.add(result, xp[window], out=result)
    counts = divisors(pool, geometry, ct)
    with np.errstate(invalid="ignore", divide="ignore"):
        result /= counts
    result[..., counts == 0] = 0
    return result


def backward(pool, geometry, y, dy, x, dx_shape, ct):
    gradient = np.zeros(dx_shape[:2] + tuple(d[5] for d in geometry.dims), ct)
    if pool.mode in _MAX_MODES:
        # padding holds NaN, which equals nothing; once a window's max is found its y becomes NaN too,
        # so later elements of the window that tie with it get nothing
        xp = geometry.padded(x, np.nan, ct)
        pending = np.array(y, dtype=ct)
        nan_max = np.isnan(pending) if pool.nan else None
        if nan_max is not None and nan_max.any():  # MCDNN_PROPAGATE_NAN: a NaN max sits at the first NaN
            inside = np.zeros(xp.shape, bool)
            inside[geometry.inner()] = True
            for _, window in geometry.offsets():
                hit = np.isnan(xp[window]) & inside[window] & nan_max
                np.add(gradient[window], dy, out=gradient[window], where=hit)
                nan_max &= ~hit
        finite = np.isfinite(np.sum(dy))  # then dy * hit is exact, and faster than a masked add
        for _, window in geometry.offsets():
            hit = xp[window] == pending
            if finite:
                gradient[window] += dy * hit
            else:
                np.add(gradient[window], dy, out=gradient[window], where=hit)
            np.putmask(pending, hit, np.nan)
    else:
        counts = divisors(pool, geometry, ct)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(counts != 0, dy / counts, 0).astype(ct)
        for _, window in geometry.offsets():
            gradient[window] += share
    return gradient[geometry.inner()]


class _Phases:
    """The backward walk without strided passes. The padded input (NaN or zero fill) is split by stride
    phase into contiguous planes, each a (batch, channel, rows...) block; window element `offset` of every
    output is then one plane read at one flat shift, so each window element costs a few contiguous passes
    over the outputs, laid out on the planes' grid (positions past the output's edge are junk that carries
    dy = 0). Gradients accumulate on the gradient planes in window-element order, as in backward(), and
    are interleaved back into dx once."""

    def __init__(self, geometry):
        dims = geometry.dims
        self.steps = [d[3] for d in dims]
        self.rows = [-(-d[5] // d[3]) for d in dims]  # plane extent: the padded length over the stride
        self.grid = math.prod(self.rows)
        pitch = [math.prod(self.rows[i + 1:]) for i in range(len(dims))]
        self.offsets = []
        for offset in itertools.product(*(range(d[2]) for d in dims)):
            phase = 0
            for o, step in zip(offset, self.steps):
                phase = phase * step + o % step
            self.offsets.append((phase, sum(o // step * q for o, step, q in zip(offset, self.steps, pitch))))
        self.reach = max(shift for _, shift in self.offsets)
        self.outer = (Ellipsis,) + tuple(slice(0, d[1]) for d in dims)
        # per phase: the plane's slice that holds input elements and the input's strided slice they come from
        self.inner = []
        for phase in itertools.product(*(range(step) for step in self.steps)):
            plane, source = [], []
            for a, (size, _, _, step, pad, _), rows in zip(phase, dims, self.rows):
                lo = max(0, -(-(pad - a) // step))
                hi = min(rows, max(lo, -(-(size + pad - a) // step)))
                plane.append(slice(lo, hi))
                start = a + step * lo - pad
                source.append(slice(start, start + (hi - lo - 1) * step + 1 if hi > lo else start, step))
            self.inner.append(((Ellipsis,) + tuple(plane), (Ellipsis,) + tuple(source)))

    def buffers(self, lead, ct):
        phases = len(self.inner)
        shape = tuple(lead) + tuple(self.rows)
        total = math.prod(lead) * self.grid
        return (scratch.buffer("pool planes", (phases,) + shape, ct), scratch.buffer("pool gradient", (phases,) + shape, ct),
                total, total - self.reach)

    def split(self, x, planes, fill):
        planes.fill(fill)
        for k, (plane, source) in enumerate(self.inner):
            planes[k][plane] = x[source]

    def merge(self, gradient, dx):
        for k, (plane, source) in enumerate(self.inner):
            dx[source] = gradient[k][plane]

    def on_grid(self, name, values, lead, ct, fill=None):
        grid = scratch.buffer(name, tuple(lead) + tuple(self.rows), ct)
        if fill is not None:
            grid.fill(fill)
        grid[self.outer] = values
        return grid.reshape(-1)

    def max_backward(self, y, dy, x, dx, ct):
        """dx (the compute type, x's shape) for max pooling; y holds no NaN the walk must place. Every window
        element is first compared with y. Unless some window holds its y twice (a tie, which real data rarely
        has), the element equal to y takes dy with no first-match walk; with ties only the first does."""
        lead = x.shape[:2]
        planes, gradient, total, n = self.buffers(lead, ct)
        self.split(x, planes, np.nan)
        gradient.fill(0)
        planes, gradient = planes.reshape(len(self.inner), -1), gradient.reshape(len(self.inner), -1)
        yg = self.on_grid("pool y", y, lead, ct, np.nan)[:n]  # junk positions equal nothing
        bits = _BITS[ct.itemsize]
        dyg = self.on_grid("pool dy", dy, lead, ct, 0)[:n].view(bits)  # junk positions add +0
        equal = scratch.buffer("pool equal", (len(self.offsets), n), bool)
        with np.errstate(invalid="ignore", over="ignore"):
            for i, (phase, shift) in enumerate(self.offsets):
                np.equal(planes[phase, shift:shift + n], yg, out=equal[i])
            if np.add.reduce(equal, axis=0, dtype=np.uint8 if len(equal) < 256 else np.int64).max() > 1:
                found = scratch.buffer("pool found", (n,), bool)
                found.fill(False)
                for chosen in equal:  # in window order: an element equal to y after the first gets nothing
                    np.greater(chosen, found, out=chosen)
                    np.logical_or(found, chosen, out=found)
            share = scratch.buffer("pool share", (n,), bits)
            for chosen, (phase, shift) in zip(equal, self.offsets):
                # dy's bits times 0/1: dy or +0, so adding it is backward()'s masked add (a masked NumPy add
                # is slower on sparse masks)
                np.copyto(share, chosen, casting="unsafe")
                np.multiply(share, dyg, out=share)
                window = slice(shift, shift + n)
                np.add(gradient[phase, window], share.view(ct), out=gradient[phase, window])
        self.merge(gradient.reshape((len(self.inner),) + tuple(lead) + tuple(self.rows)), dx)

    def average_backward(self, share, dx, ct):
        lead = dx.shape[:2]
        _, gradient, total, n = self.buffers(lead, ct)
        gradient.fill(0)
        flat = gradient.reshape(len(self.inner), -1)
        sg = self.on_grid("pool dy", share, lead, ct, 0)[:n]
        with np.errstate(invalid="ignore", over="ignore"):
            for phase, shift in self.offsets:
                window = slice(shift, shift + n)
                np.add(flat[phase, window], sg, out=flat[phase, window])
        self.merge(gradient, dx)


_BITS = {4: np.int32, 8: np.int64}
_CHUNK = 1 << 18  # input elements per step of the phase walk
_PLANES_MIN = 1 << 17  # dx elements worth splitting over threads (mcdnn.by_batch's threshold)


def _c_backward(a, geometry, p):
    """dx from the windows that reach the input by the C kernels (max or average walk), straight into p["dx"] (of
    the compute type, alpha 1, beta 0), its planes shared among the kernel threads when large (a part of
    by_batch's split keeps to its thread); False when they do not apply."""
    pieces = parallel.c_pieces(p["dx"].size >= _PLANES_MIN)
    pool = a.poolingDesc
    if a.is_max:
        return (not (pool.nan and np.isnan(p["y"]).any())
                and _c_max_backward(geometry, p["y"], p["dy"], p["x"], p["dx"], pieces))
    counts = divisors(pool, geometry, p["dx"].dtype)
    return _c_average_backward(geometry, counts, p["dy"], p["dx"], pieces)


def _c_max_backward(geometry, y, dy, x, dx, pieces=1):
    """The max walk into dx by the C kernel, for 2-D pooling of float/double tensors that do not overlap
    dx; False when it does not apply."""
    lib = kernels.lib()
    if lib is None:
        return False
    g = _kernel_geometry(geometry, x.dtype, y.dtype, dy.dtype, dx.dtype, x.strides, y.strides, dy.strides, dx.strides)
    if g is None or np.may_share_memory(dx, x) or np.may_share_memory(dx, y) or np.may_share_memory(dx, dy):
        return False
    address = kernels.strided_address
    return lib.opemu_kernel_max_pool_backward(pieces, dx.itemsize, g, address(x), address(y), address(dy),
                                              address(dx), dx.shape[0], dx.shape[1]) == 0


def _c_average_backward(geometry, counts, dy, dx, pieces=1):
    """The average walk into dx by the C kernel (counts: the divisors of the outputs), for 2-D pooling of
    float/double tensors, dx not overlapping dy; False when it does not apply."""
    lib = kernels.lib()
    if lib is None:
        return False
    g = _kernel_geometry(geometry, dx.dtype, dy.dtype, dy.dtype, dx.dtype, dx.strides, dy.strides, dy.strides,
                         dx.strides)
    if g is None or np.may_share_memory(dx, dy):
        return False
    counts = np.ascontiguousarray(np.broadcast_to(counts, dy.shape[2:]), dx.dtype)
    return lib.opemu_kernel_average_pool_backward(pieces, dx.itemsize, g, kernels.address(counts),
                                                  kernels.strided_address(dy), kernels.strided_address(dx),
                                                  dx.shape[0], dx.shape[1]) == 0


@functools.lru_cache(maxsize=256)
def _kernel_geometry(geometry, x_type, y_type, dy_type, dx_type, *strides):
    """The kernel's struct for a 2-D geometry and the byte strides of x, y, dy, dx, or None when the kernel
    does not take them (another dimensionality, type or w stride): made once per layout, as an app repeats
    its calls (geometries are shared per descriptor snapshot, so one is its own key)."""
    item = dx_type.itemsize
    if (len(geometry.dims) != 2 or dx_type not in (np.float32, np.float64)
            or any(t != dx_type for t in (x_type, y_type, dy_type)) or any(s[-1] != item for s in strides)):
        return None
    (h, oh, kh, sh, ph, _), (w, ow, kw, sw, pw, _) = geometry.dims
    fields = {}
    for name, (image, plane, row, _) in zip(("x", "y", "dy", "dx"), strides):
        fields.update({name + "_image": image // item, name + "_plane": plane // item, name + "_row": row // item})
    return kernels.pool_geometry(h=h, w=w, oh=oh, ow=ow, kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, **fields)


class PoolingForward(mcdnn.McdnnOp):
    name = "mcdnnPoolingForward"
    tensors = {"x": "xDesc", "y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        mcdnn.require(a, "poolingDesc", "xDesc", "yDesc", "x", "y")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        named = [("xDesc", a.xDesc), ("yDesc", a.yDesc)]
        _check_tensor_layouts(a.poolingDesc, named)
        _same_batch_and_channels(*named)
        mcdnn.same_type(mcdnn.bad_param, *named)
        _check_supported(a.poolingDesc, named)

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype
        pieces = _geometries(a.poolingDesc, a.xDesc.shape, a.yDesc.shape)

        def run(p):
            mcdnn.write(p["y"], forward(a.poolingDesc, pieces, p["x"], ct), a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


class PoolingBackward(mcdnn.McdnnOp):
    name = "mcdnnPoolingBackward"
    tensors = {"y": "yDesc", "dy": "dyDesc", "x": "xDesc", "dx": "dxDesc"}
    outputs = ("dx",)

    def check(self, a):
        null = mcdnn.device.ffi.NULL
        mcdnn.checked((self.name, a.poolingDesc, a.yDesc, a.dyDesc, a.xDesc, a.dxDesc, a.y == null, a.dy == null,
                       a.x == null, a.dx == null, a.alpha == null, a.beta == null), self.verdict, a)
        a.is_max = a.poolingDesc.mode in _MAX_MODES
        a.alpha_value = mcdnn.scaling(a.alpha, a.dyDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.dyDesc, "beta")
        if not a.is_max:  # average pooling reads neither x nor y
            a.x = a.y = null

    def verdict(self, a):
        mcdnn.require(a, "poolingDesc", "dyDesc", "dxDesc", "dy", "dx")
        if a.poolingDesc.mode in _MAX_MODES:
            mcdnn.require(a, "yDesc", "xDesc", "y", "x", what="must not be null for max pooling")
        mcdnn.scaling(a.alpha, a.dyDesc, "alpha")
        mcdnn.scaling(a.beta, a.dyDesc, "beta")
        named = [(n, getattr(a, n)) for n in ("yDesc", "dyDesc", "xDesc", "dxDesc") if getattr(a, n) is not None]
        _check_tensor_layouts(a.poolingDesc, named)
        for first, second in (("yDesc", "dyDesc"), ("xDesc", "dxDesc")):
            t0, t1 = getattr(a, first), getattr(a, second)
            if t0 is not None and t1 is not None:
                mcdnn.same_dims(mcdnn.bad_param, (first, t0), (second, t1))
                mcdnn.same_strides(mcdnn.bad_param, (first, t0), (second, t1))
        mcdnn.same_type(mcdnn.bad_param, *named)
        _same_batch_and_channels(("dyDesc", a.dyDesc), ("dxDesc", a.dxDesc))
        _check_supported(a.poolingDesc, named)

    def compute(self, a, v):
        ct = a.dyDesc.compute_dtype
        pieces = _geometries(a.poolingDesc, a.dxDesc.shape, a.dyDesc.shape)
        direct = a.alpha_value == 1 and a.beta_value == 0 and a.dxDesc.dtype == ct
        if direct and len(pieces) == 1 and pieces[0].whole and _c_backward(a, pieces[0], v):
            return   # one kernel call, which the kernel threads share

        def run(p):
            if len(pieces) == 1 and pieces[0].whole:
                _backward_reached(a, pieces[0], p, direct, ct)
                return
            # dx is zero where no window reaches; the windows that do see x and dx from their span
            full = np.zeros(p["dx"].shape, ct)
            for piece in pieces:
                if piece.empty:
                    continue
                reached = {"dx": full[piece.read] if len(pieces) == 1 else np.zeros(full[piece.read].shape, ct)}
                for name, part in (("y", piece.reached), ("dy", piece.reached), ("x", piece.read)):
                    reached[name] = None if p.get(name) is None else p[name][part]
                _backward_reached(a, piece, reached, True, ct)
                if len(pieces) > 1:
                    full[piece.read] += reached["dx"]
            mcdnn.write(p["dx"], full, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


def _backward_reached(a, geometry, p, direct, ct):
    """dx from the windows that reach the input (p: their y, dy; the x and dx they read); `direct`:
    the gradient goes straight into p["dx"] (of the compute type, alpha 1, beta 0)."""
    pool = a.poolingDesc
    if direct and _c_backward(a, geometry, p):
        return
    counts = None if a.is_max else divisors(pool, geometry, ct)
    per_image = max(1, math.prod(p["dx"].shape[1:]))
    phases = _Phases(geometry)
    batch = p["dy"].shape[0]
    step = max(1, _CHUNK // per_image)
    for lo in range(0, batch, step):
        part = {k: None if t is None else t[lo:lo + step] for k, t in p.items()}
        dy = mcdnn.as_compute(part["dy"], ct)
        target = part["dx"] if direct else np.empty(part["dx"].shape, ct)
        if a.is_max:
            y = mcdnn.as_compute(part["y"], ct)
            if pool.nan and np.isnan(y).any():  # a NaN max: the NaN walk of backward()
                target = backward(pool, geometry, y, dy, part["x"], part["dx"].shape, ct)
            else:
                phases.max_backward(y, dy, part["x"], target, ct)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                share = np.where(counts != 0, dy / counts, 0).astype(ct)
            phases.average_backward(share, target, ct)
        if target is not part["dx"]:
            mcdnn.write(part["dx"], target, a.alpha_value, a.beta_value)
