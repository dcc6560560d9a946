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
import itertools
import math

import numpy as np

from opemu.core import kernels, mcdnn, scratch
from opemu.core.mcdnn import POOLING as MODE

_MAX_MODES = (MODE["MCDNN_POOLING_MAX"], MODE["MCDNN_POOLING_MAX_DETERMINISTIC"])


class _Geometry:
    """Per spatial dimension: input size, output size, window, stride, padding and the padded length
    that holds every window."""

    def __init__(self, pool, in_shape, out_shape):
        self.dims = []
        for i in range(pool.nbDims):
            size, out, k, s, p = in_shape[2 + i], out_shape[2 + i], pool.window[i], pool.stride[i], pool.padding[i]
            # window elements past the padded input read nothing any output keeps (max) or counts
            # (average): a window of 2^31 costs what the padded input does, as on the device
            k = min(k, max(size + 2 * p, 1))
            length = max(size + p, (out - 1) * s + k - p) + p
            self.dims.append((size, out, k, s, p, length))

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
        """Divisor of each output's average, broadcastable to the output."""
        grid = None
        for size, out, k, s, p, _ in self.dims:
            start = np.arange(out) * s - p
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


def forward(pool, geometry, x, ct):
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
    counts = geometry.counts(pool.mode == MODE["MCDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"], ct)
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
        counts = geometry.counts(pool.mode == MODE["MCDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"], ct)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(counts > 0, dy / counts, 0).astype(ct)
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


def _c_max_backward(geometry, y, dy, x, dx):
    """The max walk into dx by the C kernel, for 2-D pooling of float/double tensors that do not overlap
    dx; False when it does not apply."""
    lib = kernels.lib()
    arrays = (x, y, dy, dx)
    if (lib is None or len(geometry.dims) != 2 or dx.dtype not in (np.float32, np.float64)
            or any(t.dtype != dx.dtype or t.strides[-1] != dx.itemsize for t in arrays)
            or any(np.may_share_memory(dx, t) for t in (x, y, dy))):
        return False
    (h, oh, kh, sh, ph, _), (w, ow, kw, sw, pw, _) = geometry.dims
    item = dx.itemsize
    strides = {}
    for name, t in zip(("x", "y", "dy", "dx"), arrays):
        strides.update({name + "_image": t.strides[0] // item, name + "_plane": t.strides[1] // item,
                        name + "_row": t.strides[2] // item})
    g = kernels.pool_geometry(h=h, w=w, oh=oh, ow=ow, kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, **strides)
    return lib.opemu_kernel_max_pool_backward(item, g, *[kernels.strided_address(t) for t in arrays],
                                              dx.shape[0], dx.shape[1]) == 0


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
        geometry = _Geometry(a.poolingDesc, a.xDesc.shape, a.yDesc.shape)

        def run(p):
            mcdnn.write(p["y"], forward(a.poolingDesc, geometry, p["x"], ct), a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


class PoolingBackward(mcdnn.McdnnOp):
    name = "mcdnnPoolingBackward"
    tensors = {"y": "yDesc", "dy": "dyDesc", "x": "xDesc", "dx": "dxDesc"}
    outputs = ("dx",)

    def check(self, a):
        mcdnn.require(a, "poolingDesc", "dyDesc", "dxDesc", "dy", "dx")
        a.is_max = a.poolingDesc.mode in _MAX_MODES
        if a.is_max:
            mcdnn.require(a, "yDesc", "xDesc", "y", "x", what="must not be null for max pooling")
        a.alpha_value = mcdnn.scaling(a.alpha, a.dyDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.dyDesc, "beta")
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
        if not a.is_max:  # average pooling reads neither x nor y
            a.x = a.y = mcdnn.device.ffi.NULL

    def compute(self, a, v):
        ct = a.dyDesc.compute_dtype
        pool = a.poolingDesc
        geometry = _Geometry(pool, a.dxDesc.shape, a.dyDesc.shape)
        direct = a.alpha_value == 1 and a.beta_value == 0 and a.dxDesc.dtype == ct
        counts = None if a.is_max else geometry.counts(pool.mode == MODE["MCDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"],
                                                       ct)
        per_image = math.prod(a.dxDesc.shape[1:])

        def run(p):
            if (a.is_max and direct and not (pool.nan and np.isnan(p["y"]).any())
                    and _c_max_backward(geometry, p["y"], p["dy"], p["x"], p["dx"])):
                return
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
                        share = np.where(counts > 0, dy / counts, 0).astype(ct)
                    phases.average_backward(share, target, ct)
                if target is not part["dx"]:
                    mcdnn.write(part["dx"], target, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)
