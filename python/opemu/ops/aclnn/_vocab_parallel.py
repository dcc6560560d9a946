"""What the three vocab-parallel cross-entropy operators share: the target-mask bits, the
masked-target convention and the fp32 copies of half-precision operands.

The pipeline (Megatron's _VocabParallelCrossEntropy, fused): per vocabulary shard,
aclnnFusedLinearOnlineMaxSum gives local max / sum-exp / predicted logit and the mask; the app
all-reduces them; aclnnFusedCrossEntropyLossWithMaxSum gives the loss; the backward is
aclnnFusedLinearCrossEntropyLossGrad."""
import numpy as np

from opemu.core import device, dtypes, status

HALF_DTYPES = [dtypes.acl("FLOAT16"), dtypes.acl("BF16")]
TARGET_DTYPES = [dtypes.acl("INT32"), dtypes.acl("INT64")]

# Logits are produced one fp32 tile at a time: VOCAB_CHUNK columns (two of the kernels' 256-column
# BASE_N blocks) by as many rows as fit TILE_ELEMENTS, so a tile stays in the last-level cache.
VOCAB_CHUNK = 512
TILE_ELEMENTS = 1 << 19


def tile(rows, columns):
    """(columns per chunk, rows per block) of the logits tiles for a rows × columns product."""
    chunk = max(1, min(columns, VOCAB_CHUNK))
    return chunk, max(1, min(rows, TILE_ELEMENTS // chunk))


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


def local_target_columns(masked_target, inside, width, op):
    """Rows whose target lies in this shard, and the local column of each. The kernel addresses
    column maskedTarget[i] of row i without a bound check; a column beyond the row would be
    another row's or another buffer's memory, which opemu treats as an access fault."""
    rows = np.nonzero(inside)[0]
    columns = masked_target[rows].astype(np.int64)
    stray = (columns < 0) | (columns >= width)
    if stray.any():
        i = int(rows[np.argmax(stray)])
        raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                 "%s: maskedTarget[%d] = %d addresses outside the %d local vocabulary columns"
                                 % (op, i, int(masked_target[i]), width))
    return rows, columns
