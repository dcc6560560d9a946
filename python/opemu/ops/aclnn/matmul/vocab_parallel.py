"""What the three vocab-parallel cross-entropy operators share: the target-mask bits, the
masked-target convention and the fp32 copies of half-precision operands.

The pipeline (Megatron's _VocabParallelCrossEntropy, fused): per vocabulary shard,
aclnnFusedLinearOnlineMaxSum gives local max / sum-exp / predicted logit and the mask; the app
all-reduces them; aclnnFusedCrossEntropyLossWithMaxSum gives the loss; the backward is
aclnnFusedLinearCrossEntropyLossGrad.

Both operators with a GEMM give each core its own row blocks (by_lanes), with single-threaded GEMMs: a
core's GEMMs on a block of 1024 rows came within 3-10 % of OpenBLAS's threaded GEMM over all the rows, where
threaded GEMMs on the same tiles lost 20 %. The tile epilogues run as one C pass per row
(csrc/kernels/cross_entropy.c), online_step and gradient_tile, on the core that made the tile. Their NumPy
references, online_statistics and gradient_reference, share the kernels' exp (opemu/core/exp.py) and
NumPy's own pairwise row sum with the C code."""
import numpy as np

from opemu.core import blas, device, dtypes, kernels, parallel, rounding, status
from opemu.core import exp as kernel_exp

HALF_DTYPES = [dtypes.acl("FLOAT16"), dtypes.acl("BF16")]
TARGET_DTYPES = [dtypes.acl("INT32"), dtypes.acl("INT64")]

# Logits are produced one fp32 tile at a time: VOCAB_CHUNK columns (two of the kernels' 256-column
# BASE_N blocks) by as many rows as fit TILE_ELEMENTS, so a tile stays in the last-level cache.
VOCAB_CHUNK = 512
TILE_ELEMENTS = 1 << 19
SLAB_ROWS = 64   # the references' elementwise steps run over this many rows at a time, in the core's cache
BLOCK_ROWS_LEAST = 128   # rows of a row block when there are too few for two full ones


def tile(rows, columns):
    """(columns per chunk, rows per block) of the logits tiles for a rows × columns product."""
    chunk = max(1, min(columns, VOCAB_CHUNK))
    return chunk, max(1, min(rows, TILE_ELEMENTS // chunk))


def row_blocks(rows, columns):
    """[(r0, r1)]: the rows in near-equal blocks of at most tile()'s rows, and at least two (one for fewer
    than 2 * BLOCK_ROWS_LEAST rows), so that two cores have blocks of their own. The same on every machine:
    a GEMM's shape can decide its bits (OpenBLAS's small-matrix path)."""
    most = tile(rows, columns)[1]
    count = max(-(-rows // most), min(2, rows // BLOCK_ROWS_LEAST))
    bounds = [rows * i // count for i in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def lanes(blocks):
    """How many cores walk `blocks` at once (lane i takes blocks i, i + lanes, ...)."""
    return max(1, min(parallel.WORKERS, len(blocks)))


def by_lanes(walk, count):
    """walk(lane, meet) for each of `count` lanes at once, each on a core of its own whose GEMMs run on it alone
    (they are the lane's, and its epilogues then find their tile in the core's own cache); meet() waits for
    the other lanes (parallel.together). The caller runs no pooled GEMMs in between: OpenBLAS's pool spins
    on the cores for a while after each call, which slows the lanes' GEMMs by half. One lane's GEMMs run
    single-threaded too: where OpenBLAS's threads cut a product can change its bits (blas.single_threaded),
    which would make them depend on the thread count."""
    with blas.single_threaded():
        parallel.together(walk, count)


def halves(width, align=1):
    """A chunk's columns in two fixed parts, dealt to the lanes for the work they share out by columns: fixed,
    so that a GEMM's shape (which can decide its bits) does not depend on the thread count. The cut falls on a
    multiple of `align` (whole panels of a packed operand), at half the panels a product walks (a last, partial
    one costs it as much as a whole one): 1024 columns of 12-column panels part 516 | 508, 43 panels each."""
    cut = -(-width // align) // 2 * align
    return [(0, cut), (cut, width)]


def outside_shard(mask, rows):
    """Bit i of a targetMask: LSB-first in UINT8 bytes (or one BOOL per row); 1 = the target is
    outside this shard."""
    if mask.dtype == np.bool_:
        return mask[:rows].copy()
    # only the bytes that hold `rows` bits: a zero-stride description of a huge mask stays a view
    return np.unpackbits(np.ascontiguousarray(mask[:(rows + 7) // 8]), bitorder="little")[:rows].astype(bool)


def pack_outside_bits(outside_padded):
    """LSB-first packing (the golden's np.packbits(np.flip(bits, 1))), 8 rows per byte."""
    return np.packbits(outside_padded, bitorder="little")


def to_f32(source, target):
    """Exact fp32 copy of a bf16/fp16 array (every half value is representable in fp32)."""
    np.copyto(target, source, casting="unsafe")
    return target


def to_f32_transposed(source, target):
    """target (H × columns, fp32) = source.T (columns × H, bf16/fp16, rows of unit stride), widened exactly: a
    logits GEMM x @ target runs 7-9 % faster than x @ (an fp32 copy of source).T, with the same bits (OpenBLAS
    packs either into one layout; it packs this one faster). The C kernel is a tiled copy; its twin, NumPy's
    cast through the transposed view, walks a large stride and runs a twentieth as fast."""
    lib = kernels.lib()
    code = {np.dtype(np.float16): 1, np.dtype(rounding.BF16): 2}.get(source.dtype)
    if lib is None or code is None or source.strides[1] != 2 or target.strides[1] != 4:
        np.copyto(target.T, source, casting="unsafe")
        return target
    lib.opemu_kernel_widen_transposed(code, source.shape[0], source.shape[1], kernels.strided_address(source),
                                      source.strides[0] // 2, kernels.float_pointer(target), target.strides[0] // 4)
    return target


def local_target_columns(masked_target, inside, width, op):
    """Each row's local vocabulary column: its target's where the target lies in this shard, else -1. The
    kernel addresses column maskedTarget[i] of row i without a bound check; a column beyond the row would be
    another row's or another buffer's memory, which opemu treats as an access fault. A tile whose first
    column is c0 finds its rows' targets at these minus c0 (none where that falls outside the tile)."""
    rows = np.nonzero(inside)[0]
    columns = masked_target[rows].astype(np.int64)
    stray = (columns < 0) | (columns >= width)
    if stray.any():
        i = int(rows[np.argmax(stray)])
        raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                 "%s: maskedTarget[%d] = %d addresses outside the %d local vocabulary columns"
                                 % (op, i, int(masked_target[i]), width))
    column = np.full(len(masked_target), -1, np.int64)
    column[rows] = columns
    return column


def _kernel_ready(tile):
    lib = kernels.lib()
    return lib if lib is not None and tile.dtype == np.float32 and tile.strides[1] == 4 else None


def online_step(logits, running_max, running_sum, half, scratch, target=None, first_column=0, picked=None):
    """One tile of aclnnFusedLinearOnlineMaxSum's online softmax: the fp32 logits rounded in place to `half`
    (None: kept in fp32), then per row M' = max(M, logits) + 0, S' = S·exp(M - M') + Σ exp(logits - M'),
    written into running_max (M) and running_sum (S). With `target` (one local vocabulary column per row, -1
    outside the shard), picked[r] = the rounded logit of row r's target when the tile, whose first column is
    `first_column`, holds it. `scratch`: round_in_place's, the tile's size. Runs on the calling thread (the
    operator gives each core its own tiles)."""
    lib = _kernel_ready(logits)
    fused_bf16 = lib is not None and half == rounding.BF16
    if half is not None and not fused_bf16:
        _round(logits, half, scratch)
    if lib is None or logits.shape[1] > lib.OPEMU_EPILOGUE_COLUMNS:
        if target is not None:
            _pick(logits, target, first_column, picked)
        online_statistics(logits, running_max, running_sum)
        return
    lib.opemu_kernel_online_max_sum(kernels.float_pointer(logits), logits.shape[0], logits.shape[1],
                                    logits.strides[0] // 4, int(fused_bf16), kernels.float_pointer(running_max),
                                    kernels.float_pointer(running_sum),
                                    kernels.null() if target is None else kernels.int64_pointer(target),
                                    first_column, kernels.float_pointer(picked))


def _pick(logits, target, first_column, picked):
    """online_step's pick in NumPy (the kernel's reference)."""
    column = target - first_column
    here = np.flatnonzero((column >= 0) & (column < logits.shape[1]))
    picked[here] = logits[here, column[here]]


def online_statistics(logits, running_max, running_sum):
    """online_step's statistics in NumPy (the kernel's reference)."""
    with np.errstate(invalid="ignore", over="ignore"):
        new_max = np.maximum(running_max, logits.max(axis=1))
        new_max += np.float32(0)   # +0 for a largest logit of -0, whichever zero the max reduction kept
        sums = kernel_exp.exp(logits - new_max[:, None]).sum(axis=1)
        running_sum *= kernel_exp.exp(running_max - new_max)
        running_sum += sums
    running_max[...] = new_max


def gradient_tile(g, softmax, maximum, reciprocal, target, grad, half, scratch):
    """aclnnFusedLinearCrossEntropyLossGrad's gradient tile G, in place in the fp32 tile g: exp(g - maximum) *
    reciprocal (memory-saving; g holds the logits) or a copy of the softmax tile (high-performance); 1
    taken off at each row's target column (none where it lies outside the tile); times grad;
    rounded to `half`. maximum, reciprocal, target, grad: one per row of the tile. `scratch`:
    round_in_place's, SLAB_ROWS rows."""
    lib = _kernel_ready(g)
    if lib is None or (softmax is not None and (softmax.dtype != np.float32 or softmax.strides[1] != 4)):
        gradient_reference(g, softmax, maximum, reciprocal, target, grad, half, scratch)
        return
    fused_bf16 = half == rounding.BF16
    lib.opemu_kernel_cross_entropy_gradient(
        kernels.float_pointer(g), g.shape[0], g.shape[1], g.strides[0] // 4, kernels.float_pointer(softmax),
        0 if softmax is None else softmax.strides[0] // 4, kernels.float_pointer(maximum),
        kernels.float_pointer(reciprocal), kernels.int64_pointer(target), kernels.float_pointer(grad),
        int(fused_bf16))
    if not fused_bf16:
        for s0 in range(0, g.shape[0], SLAB_ROWS):
            _round(g[s0:s0 + SLAB_ROWS], half, scratch)


def gradient_reference(g, softmax, maximum, reciprocal, target, grad, half, scratch):
    """gradient_tile in NumPy (the kernel's reference), SLAB_ROWS rows at a time."""
    for s0 in range(0, g.shape[0], SLAB_ROWS):
        s1 = min(g.shape[0], s0 + SLAB_ROWS)
        slab = g[s0:s1]
        rows = np.flatnonzero((target[s0:s1] >= 0) & (target[s0:s1] < g.shape[1]))
        columns = target[s0:s1][rows]
        weight = grad[s0:s1, None]
        with np.errstate(invalid="ignore", over="ignore"):
            if softmax is None:
                np.subtract(slab, maximum[s0:s1, None], out=slab)
                slab[...] = kernel_exp.exp(slab)
                np.multiply(slab, reciprocal[s0:s1, None], out=slab)
                slab[rows, columns] -= np.float32(1)
                np.multiply(slab, weight, out=slab)
            else:   # the copy out of softmax and the scaling by grad are one pass
                np.multiply(softmax[s0:s1], weight, out=slab)
                slab[rows, columns] = (softmax[s0:s1][rows, columns] - np.float32(1)) * weight[rows, 0]
        _round(slab, half, scratch)


def _round(slab, half, scratch):
    rounding.round_in_place(slab, half, scratch[:slab.size].reshape(slab.shape))
