"""Row blocks for the operators that work along trailing axes (softmax, RmsNorm, LayerNorm,
ReduceSum over the last dims): the data is seen as (rows, cols), cut into blocks of rows small
enough to stay in cache while a block's several NumPy passes run over it, and the blocks are dealt
to the kernel threads (NumPy releases the GIL). Each row's arithmetic is the same whatever the
blocking, so results do not depend on the thread count."""
import math
import threading

import numpy as np

from opemu.core import kernels, parallel

BLOCK_BYTES = 256 << 10   # one block's fp32 working set: well inside a core's L2
PARALLEL_MIN = 1 << 16    # elements below which threads cost more than they save


def as_rows(view, trailing):
    """`view` as a (rows, cols) view without copying, cols being its last `trailing` axes, or None
    when its strides do not allow it (rows_in / RowsOut then go through a contiguous copy)."""
    if trailing > view.ndim:
        return None
    split = view.ndim - trailing
    rows, cols = math.prod(view.shape[:split]), math.prod(view.shape[split:])
    try:
        return view.reshape(rows, cols, copy=False)
    except ValueError:
        return None


def one_block(rows, cols):
    """Whether each_block makes one call on the calling thread: the tiny calls' common case."""
    return rows * cols < PARALLEL_MIN and 4 * cols * rows <= BLOCK_BYTES


def each_block(rows, cols, function, one_pass=False):
    """function(lo, hi) over blocks of rows, on the kernel threads when the work is large enough. A
    `one_pass` function reads each element once (no block to keep in cache): one block per thread."""
    if one_block(rows, cols):
        function(0, rows)  # without the dealing
        return
    if one_pass:
        parallel.split(rows, function, worth=rows * cols >= PARALLEL_MIN)
        return
    per_block = max(1, BLOCK_BYTES // (4 * max(cols, 1)))
    blocks = [(lo, min(lo + per_block, rows)) for lo in range(0, rows, per_block)]
    parallel.run(function, blocks, parallel=rows * cols >= PARALLEL_MIN)


_local = threading.local()


def scratch(rows, cols, slot=0):
    """A per-thread fp32 (rows, cols) buffer, reused across blocks and calls: blocks are a few
    hundred KiB, where malloc would map and unmap fresh pages every time. Slots keep a kernel's
    simultaneous buffers apart."""
    buffers = getattr(_local, "buffers", None)
    if buffers is None:
        buffers = _local.buffers = {}
    need = rows * cols
    if need > BLOCK_BYTES:  # over 1 MiB of fp32 (a single row longer than a block): not kept per thread
        return np.empty((rows, cols), np.float32)
    buffer = buffers.get(slot)
    if buffer is None or buffer.size < need:
        buffer = buffers[slot] = np.empty(max(need, BLOCK_BYTES // 4), np.float32)
    return buffer[:need].reshape(rows, cols)


ROW_SUMS_MIN = 1 << 14   # elements below which NumPy's call costs less than the kernel's


def sums_in_c(block):
    """Whether row_sums gives an fp32 block to the C kernel (else NumPy's reduction, on the calling thread)."""
    return (block.size >= ROW_SUMS_MIN and kernels.lib() is not None and block.strides[1] == block.itemsize
            and block.strides[0] >= 0 and block.strides[0] % block.itemsize == 0)


def row_sums(block):
    """np.add.reduce(block, axis=1) of an fp32 block: NumPy's pairwise sums, which the C kernels reproduce
    (csrc/kernels/pairwise.c, one stream a row, the rows shared among the cores by the C pool; norms.c fused
    with the norms)."""
    if not sums_in_c(block):
        return np.add.reduce(block, axis=1, dtype=np.float32)
    out = np.empty(block.shape[0], np.float32)
    kernels.lib().opemu_kernel_row_sums(parallel.c_pieces(block.size >= PARALLEL_MIN), block.shape[0],
                                        block.shape[1], kernels.float_pointer(block),
                                        block.strides[0] // block.itemsize, kernels.float_pointer(out))
    return out


def in_fp32(block, slot=0):
    """A block of rows in fp32: itself when it already is, else converted into a scratch buffer."""
    if block.dtype == np.float32:
        return block
    target = scratch(block.shape[0], block.shape[1], slot)
    np.copyto(target, block, casting="unsafe")
    return target


def flat_fp32(view):
    """A dense fp32 view as one row of its values without copying, or None."""
    rows = as_rows(view, view.ndim) if view.dtype == np.float32 else None
    return rows[0] if rows is not None and rows.strides[1] == 4 else None


def rows_in(view, trailing):
    """(rows, cols) of an input: a view when possible, else a contiguous copy."""
    rows = as_rows(view, trailing)
    return rows if rows is not None else as_rows(np.ascontiguousarray(view), trailing)


class RowsOut:
    """(rows, cols) of an output: a view when possible, else a contiguous buffer that `finish`
    stores through the output's view."""

    def __init__(self, view, trailing):
        self.view = view
        self.rows = as_rows(view, trailing)
        self.buffer = None
        if self.rows is None:
            self.buffer = np.empty(view.shape, view.dtype)
            self.rows = as_rows(self.buffer, trailing)

    def finish(self):
        if self.buffer is not None:
            np.copyto(self.view, self.buffer)
