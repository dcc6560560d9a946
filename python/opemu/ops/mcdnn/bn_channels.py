"""The walk over blocks of channels (NCHW-like layouts, per-channel mode, plain ops): a block is read in
place (gathered into scratch when it needs a conversion), reduced, transformed and written back while it
is still in cache."""
import contextlib

import numpy as np

from opemu.core import device, kernels, mcdnn, parallel
from opemu.core.scratch import buffer as _buffer
from opemu.ops.mcdnn import bn_common
from opemu.ops.mcdnn.bn_common import accumulators, reshaped
from opemu.ops.mcdnn.bn_reference import backward_reference, forward_reference

# ---------------------------------------------------------------- walking blocks of channels

def _block_bytes():
    """Scratch per block and array. A worker keeps four block-sized arrays (x, dy, the centred rows, dx) in
    cache between a block's passes; sized so that every worker's four fill about 80% of the shared last-level
    cache. Sweeps of forward + backward at N=32 C=64 H=W=56: 1.6 MB was best on an earlier host; on a 2-core
    EPYC with 32 MiB of L3, 3.2-6.4 MB beat 1.6 MB by ~10% and this rule gives 3.2 MB. 1.6 MB when the
    cache size is unknown."""
    if not parallel.LAST_LEVEL_CACHE:
        return 1600 << 10
    return max(256 << 10, min(8 << 20, parallel.LAST_LEVEL_CACHE * 4 // 5 // (4 * parallel.WORKERS)))


_BLOCK_BYTES = _block_bytes()


def _channel_blocks(layout, ct):
    """Blocks of k channels, at least one per worker when the tensor is worth the threads. A block's results
    do not depend on k (its reductions run along the batch and the plane of each channel, never across
    channels), so a small tensor walks as few blocks as fit, on the calling thread."""
    per_channel = layout.N * layout.spatial * ct.itemsize
    share = -(-layout.C // parallel.WORKERS) if layout.N * layout.elements >= bn_common.PARALLEL_MIN else layout.C
    k = max(1, min(share, _BLOCK_BYTES // max(per_channel, 1)))
    return [(c, min(c + k, layout.C)) for c in range(0, layout.C, k)], k


def _over_blocks(layout, blocks, fn):
    """fn(block list), each worker a contiguous run of the (shape-fixed) blocks, its ufuncs unbuffered when
    the NumPy references run."""
    def part(lo, hi):
        if kernels.lib() is not None:
            fn(blocks[lo:hi])
            return
        with _unbuffered(layout.spatial):
            fn(blocks[lo:hi])
    parallel.split(len(blocks), part, worth=layout.N * layout.elements >= bn_common.PARALLEL_MIN)


@contextlib.contextmanager
def _unbuffered(run):
    """The calling thread's ufunc buffer no longer than `run` elements (a multiple of 16) while it is held.
    A block is (N, k, spatial) rows that do not merge into one run, and each row has its own coefficient;
    with a buffer longer than a row, NumPy (2.3 and later) copies operands through buffers to make longer
    inner loops, which makes each pass over a block about three times slower than the arithmetic."""
    previous = np.getbufsize()
    np.setbufsize(max(16, min(previous, run // 16 * 16)))
    try:
        yield
    finally:
        np.setbufsize(previous)


class _Block:
    """Channels [c0, c1) of (N, C, ...) tensors as (N, k, spatial) rows: the tensor's own memory when it is
    already in the compute type and its spatial dims merge, else a same-order copy in a thread's scratch."""

    def __init__(self, layout, ct, k, c0, c1):
        self.layout, self.ct, self.c0, self.c1 = layout, ct, c0, c1
        self.kk = c1 - c0
        self.shape = (layout.N, self.kk, layout.spatial)
        self.full = (layout.N, k) + layout.shape[2:]

    def scratch(self, name):
        return _buffer(name, self.full, self.ct)[:, :self.kk].reshape(self.shape)

    def read(self, tensor, name):
        view = tensor[:, self.c0:self.c1]
        if view.dtype == self.ct:
            rows = reshaped(view, self.shape)
            if rows is not None:
                return rows
        block = _buffer(name, self.full, self.ct)[:, :self.kk]
        np.copyto(block, view, casting="unsafe")
        return block.reshape(self.shape)

    def target(self, tensor, beta):
        """Rows to write the result straight into, or None (a conversion, a blend or unmergeable strides)."""
        if beta != 0 or tensor.dtype != self.ct:
            return None
        return reshaped(tensor[:, self.c0:self.c1], self.shape)

    def write(self, tensor, rows, beta):
        """tensor[:, c0:c1] = rows + beta·tensor (beta == 0 never reads it), rounded once."""
        target = tensor[:, self.c0:self.c1]
        block = rows.reshape(target.shape)
        if beta != 0:
            prior = target.astype(self.ct)
            prior *= self.ct.type(beta)
            block += prior
        np.copyto(target, block, casting="unsafe")


# ---------------------------------------------------------------- one block: the references and the C kernels

def backward_block(x, dy, dx, scale, mean, inv, eps, alpha, d_scale, d_bias):
    """dx = dy·k0 + ((x - centre)·k1 + k2) of (N, k, spatial) rows in the compute type (gradient_coefficients),
    dScale and dBias into the float64 d_scale, d_bias; mean/inv None: recomputed from x. dx may be x or dy.
    The C kernel when it takes the operands, else the reference."""
    if not _backward_kernel(x, dy, dx, scale, mean, inv, eps, alpha, d_scale, d_bias):
        backward_reference(x, dy, dx, scale, mean, inv, eps, alpha, d_scale, d_bias)


def forward_block(x, y, scale, bias, eps, alpha, mean, var):
    """y = (x - centre)·k1 + k2 of (N, k, spatial) rows in the compute type (forward_coefficients); the float64
    mean and biased variance into mean, var. y may be x. The C kernel when it takes the operands, else the
    reference."""
    if not _forward_kernel(x, y, scale, bias, eps, alpha, mean, var):
        forward_reference(x, y, scale, bias, eps, alpha, mean, var)


_GEOMETRIES = {}           # operand shapes, strides and types → the kernel's struct, or False
_GEOMETRIES_LIMIT = 256


def _geometry(x, dy, out):
    """The kernel's struct of strides in elements (made once per operand layout), or None: the references
    must run (OPEMU_KERNELS=numpy, a type the kernels do not take, rows that are not dense, or out
    overlapping an input other than as the very same view)."""
    if kernels.lib() is None:
        return None
    source = dy if dy is not None else x
    key = (x.shape, x.strides, source.strides, out.strides, x.dtype, source.dtype, out.dtype)
    g = _GEOMETRIES.get(key)
    if g is None:
        g = _make_geometry(x, source, out)
        if len(_GEOMETRIES) >= _GEOMETRIES_LIMIT:
            _GEOMETRIES.clear()
        _GEOMETRIES[key] = g
    if g is False or not kernels.apart(out, x, dy):
        return None
    return g


def _make_geometry(x, dy, out):
    item = x.itemsize
    if x.dtype not in (np.float32, np.float64) or any(t.dtype != x.dtype or (t.strides[2] != item and t.shape[2] > 1)
                                                     for t in (dy, out)):
        return False
    if x.strides[2] != item and x.shape[2] > 1:
        return False
    return device.ffi.new("struct opemu_bn_geometry *", dict(
        images=x.shape[0], spatial=x.shape[2], x_image=x.strides[0] // item, x_channel=x.strides[1] // item,
        dy_image=dy.strides[0] // item, dy_channel=dy.strides[1] // item, out_image=out.strides[0] // item,
        out_channel=out.strides[1] // item, stream=int(out.size * item >= bn_common.STREAM_BYTES)))


def _doubles(array):
    """A double * to a contiguous float64 array, NULL for None."""
    return kernels.null() if array is None else device.ffi.from_buffer("double[]", array)


def _over_channels(x, worth, call):
    """call(lo, hi, at) over channel ranges of (N, k, spatial) rows, one per worker when `worth` it;
    `at(array, lo)` points at the array's channel lo (a double * for a float64 vector, NULL for None)."""
    if not worth or parallel.WORKERS == 1 or x.shape[1] == 1:
        call(0, x.shape[1], _first)
        return
    parallel.split(x.shape[1], lambda lo, hi: call(lo, hi, _at), worth=worth)


def _first(array, lo):
    """_at for lo == 0 (the one-range walk of a small tensor, without the pointer arithmetic)."""
    if array is None:
        return kernels.null()
    return _doubles(array) if array.ndim == 1 else kernels.strided_address(array)


def _at(array, lo):
    if array is None:
        return kernels.null()
    if array.ndim == 1:
        return _doubles(array) + lo
    return device.ffi.cast("char *", kernels.strided_address(array)) + lo * array.strides[1]


def _backward_kernel(x, dy, dx, scale, mean, inv, eps, alpha, d_scale, d_bias, worth=False):
    g = _geometry(x, dy, dx)
    if g is None:
        return False
    lib = kernels.lib()

    def call(lo, hi, at):
        lib.opemu_kernel_bn_backward(x.itemsize, g, hi - lo, at(x, lo), at(dy, lo), at(dx, lo), at(scale, lo),
                                     at(mean, lo), at(inv, lo), eps, alpha, at(d_scale, lo), at(d_bias, lo))
    _over_channels(x, worth, call)
    return True


def _forward_kernel(x, y, scale, bias, eps, alpha, mean, var, worth=False):
    g = _geometry(x, None, y)
    if g is None:
        return False
    lib = kernels.lib()

    def call(lo, hi, at):
        lib.opemu_kernel_bn_forward(x.itemsize, g, hi - lo, at(x, lo), at(y, lo), at(scale, lo), at(bias, lo), eps,
                                    alpha, at(mean, lo), at(var, lo))
    _over_channels(x, worth, call)
    return True


def _affine_kernel(x, y, a, b, worth=False):
    g = _geometry(x, None, y)
    if g is None:
        return False
    lib = kernels.lib()

    def call(lo, hi, at):
        lib.opemu_kernel_bn_affine(x.itemsize, g, hi - lo, at(x, lo), at(y, lo), at(a, lo), at(b, lo))
    _over_channels(x, worth, call)
    return True


def _whole(layout, ct, beta, *tensors):
    """The tensors as (N, C, spatial) rows in place when the kernels can take them whole (no conversion, no
    blend, merging spatial dims), else None: then the walk goes block by block."""
    if beta != 0 or kernels.lib() is None:
        return None
    shape = (layout.N, layout.C, layout.spatial)
    rows = []
    for t in tensors:
        r = reshaped(t, shape) if t.dtype == ct else None
        if r is None:
            return None
        rows.append(r)
    return rows


# ---------------------------------------------------------------- the two walks

def forward_by_channels(layout, x, y, scale, bias, eps, ct, alpha, beta, workspace=None):
    """Training forward walking channel blocks: y = alpha·(scale·(x-mean)·invstd + bias) + beta·y. Returns
    (mean, biased variance, invstd), float64 per channel."""
    stats = accumulators(workspace, layout.forward_workspace(), (2, layout.C))
    scale, bias = np.ascontiguousarray(scale.reshape(-1)), np.ascontiguousarray(bias.reshape(-1))
    rows = _whole(layout, ct, beta, x, y)
    if rows is None or not _forward_kernel(*rows, scale, bias, eps, alpha, stats[0], stats[1], _worth(layout)):
        _forward_blocks(layout, x, y, scale, bias, eps, ct, alpha, beta, stats)
    mean, var = stats
    with np.errstate(divide="ignore"):
        return mean, var, 1 / np.sqrt(var + eps)


def _worth(layout):
    return layout.N * layout.elements >= bn_common.PARALLEL_MIN


def _forward_blocks(layout, x, y, scale, bias, eps, ct, alpha, beta, stats):
    def step(block, result, c0, c1):
        forward_block(block.read(x, "x"), result, scale[c0:c1], bias[c0:c1], eps, alpha, stats[0, c0:c1],
                      stats[1, c0:c1])
    _walk_blocks(layout, ct, y, beta, step)


def _walk_blocks(layout, ct, out, beta, step):
    """step(block, result, c0, c1) for each block, `result` the block's rows of `out` when they can be
    written directly, else scratch that is blended into `out` and rounded to its type afterwards."""
    blocks, k = _channel_blocks(layout, ct)

    def run(mine):
        for c0, c1 in mine:
            block = _Block(layout, ct, k, c0, c1)
            target = block.target(out, beta)
            result = target if target is not None else block.scratch("out")
            step(block, result, c0, c1)
            if target is None:
                block.write(out, result, beta)
    _over_blocks(layout, blocks, run)


def backward_by_channels(layout, x, dy, dx, scale, mean, inv, eps, ct, alpha, beta, workspace=None):
    """Backward walking channel blocks. mean/inv None: recomputed from x. Returns (dScale, dBias)."""
    sums = accumulators(workspace, layout.backward_workspace(), (2, layout.C))
    scale = np.ascontiguousarray(scale.reshape(-1))
    mean = None if mean is None else np.ascontiguousarray(mean.reshape(-1))
    inv = None if inv is None else np.ascontiguousarray(inv.reshape(-1))
    rows = _whole(layout, ct, beta, x, dy, dx)
    if rows is None or not _backward_kernel(*rows, scale, mean, inv, eps, alpha, sums[0], sums[1], _worth(layout)):
        _backward_blocks(layout, x, dy, dx, scale, mean, inv, eps, ct, alpha, beta, sums)
    return sums[0], sums[1]


class _SmallBackward:
    """The kernel's arguments for a tensor not worth the threads, made once per set of views: an app calls
    the routine on the same buffers again and again, and the bridge hands out the same view objects while
    no device memory has gone away. Per call only the float64 copies of the parameters are refreshed
    (np.copyto casts as param() does) before the one kernel call. `views` (held, so their ids stay
    unique while the plan is kept) are x, dy, dx, scale, saved mean, saved inverse variance (None when
    recomputed) and the workspace (None when absent)."""

    def __init__(self, layout, ct, views):
        self.layout = layout  # held, as the views are: its id is in the plan's key
        x, dy, dx, scale, mean, inv, workspace = self.views = views
        rows = _whole(layout, ct, 0, x, dy, dx)
        self.g = None if rows is None else _geometry(*rows)  # None too when dx overlaps x or dy other than exactly
        if self.g is None:
            return
        self.sums = accumulators(workspace, layout.backward_workspace(), (2, layout.C))
        copies = [None if t is None else np.empty(t[0].shape) for t in (scale, mean, inv)]
        self.params = [(c, t[0]) for c, t in zip(copies, (scale, mean, inv)) if t is not None]
        self.args = (ct.itemsize, self.g, layout.C, *(kernels.strided_address(r) for r in rows),
                     *(_doubles(None if c is None else c.reshape(-1)) for c in copies))
        self.results = [_doubles(s) for s in self.sums]
        self.gradients = tuple(s.reshape(scale.shape) for s in self.sums)  # dScale / dBias share scale's descriptor
        self.rows = rows  # the addresses above point into them

    def __call__(self, eps, alpha):
        for copy, view in self.params:
            np.copyto(copy, view)
        kernels.lib().opemu_kernel_bn_backward(*self.args, eps, alpha, *self.results)
        return self.gradients


def small_backward(layout, ct, views, eps, alpha, beta):
    """(dScale, dBias) as float64 per channel, or None: the tensor is worth the threads, needs a conversion or
    a blend, or the kernels cannot take it (then backward_by_channels walks it). Plans are kept per thread
    (two streams may run the same call at once) and by the identity of the views they hold (mcdnn.prepared);
    under OPEMU_STRICT, whose views are new at every call, each call prepares its own."""
    if beta != 0 or layout.positions or _worth(layout) or kernels.lib() is None:
        return None
    plan = mcdnn.prepared((layout, ct, *views), _SmallBackward, layout, ct, views)
    return None if plan.g is None else plan(eps, alpha)


def _backward_blocks(layout, x, dy, dx, scale, mean, inv, eps, ct, alpha, beta, sums):
    def step(block, result, c0, c1):
        backward_block(block.read(x, "x"), block.read(dy, "dy"), result, scale[c0:c1],
                       None if mean is None else mean[c0:c1], None if inv is None else inv[c0:c1], eps, alpha,
                       sums[0, c0:c1], sums[1, c0:c1])
    _walk_blocks(layout, ct, dx, beta, step)


def affine_by_channels(layout, x, y, a, b, ct, beta):
    """Inference's y = x·a' + b' (a', b': the float64 a, b with alpha folded in, rounded to the compute type)
    by the kernel on the tensors whole; False when it cannot take them (the caller's walk over images runs)."""
    rows = _whole(layout, ct, beta, x, y)
    return rows is not None and _affine_kernel(*rows, np.ascontiguousarray(a.reshape(-1)),
                                               np.ascontiguousarray(b.reshape(-1)), _worth(layout))
