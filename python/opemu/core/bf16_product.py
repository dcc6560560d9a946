"""Products of bf16 matrices summed in fp32, the way x86's bf16 dot product instruction forms them.

The vocab-parallel operators multiply bf16 operands with fp32 sums, as the device's cube unit does; its order of
summation is not documented. opemu's is the one the bf16 dot product instruction (VDPBF16PS) takes, so that the
products run on it at twice the fp32 rate of this host:

    c = (c, or +0) + S_0 + S_1 + ...      one fp32 add per block of BLOCK_PAIRS pairs of the inner dimension
    S_b = chain from +0 over the block's pairs p:  s = fma(a[2p+1], b[2p+1], s);  s = fma(a[2p], b[2p], s)

(an odd inner dimension's last pair is completed by a zero). Every product of two bf16 values is exact in fp32, so
each fused step is one rounding of s + a·b. The instruction flushes subnormal inputs and results to zero; opemu
keeps IEEE subnormals, so the instruction is used only where none can arise (`dot_allowed`, from the exponent
ranges that packing records) and the same chain otherwise runs on fp32 fused multiply-adds: one result either
way, to the bit.

`reference` is the NumPy twin; csrc/kernels/bf16_product.c packs the operands into panels of element pairs and
forms the product (`pack`, `product`)."""
import functools

import numpy as np

from opemu.core import kernels, rounding

# csrc/kernels/kernels.h's OPEMU_BF16_* (tests/test_kernels_bf16_product.py holds them equal): known here too, for
# phase 1's layouts and the twin, which run without the library under OPEMU_KERNELS=numpy
PANEL_ROWS, PANEL_COLS, BLOCK_PAIRS = 12, 32, 256
FRESH_RANGE = (256, 0, 0)   # (least exponent field of a nonzero element, greatest field, any subnormal)


def reference(a, b, c=None):
    """The product of a (m × k) and b (k × n), bf16 or fp32 holding bf16 values, as the kernel forms it: a new fp32
    array, or c (fp32, m × n) with the product added. Each step is done in float64, where a·b is exact and s + a·b
    rounds once more to fp32 as the fused step does (a sum with 16 significant bits on one side needs no more
    than float64 holds whenever the second rounding could depend on it)."""
    m, k = a.shape
    n = b.shape[1]
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    total = np.zeros((m, n), np.float32) if c is None else c
    with np.errstate(invalid="ignore", over="ignore"):
        for b0 in range(0, k, 2 * BLOCK_PAIRS):
            s = np.zeros((m, n), np.float32)
            for p in range(b0, min(k, b0 + 2 * BLOCK_PAIRS), 2):
                for i in (p + 1, p):
                    product = np.multiply.outer(a64[:, i], b64[i]) if i < k else np.zeros((m, n))
                    s = (s + product).astype(np.float32)
            np.add(total, s, out=total)
    return total


def dot_allowed(*ranges):
    """True when the bf16 dot product instruction forms exactly the fused chain for two operands with these
    exponent ranges (one FRESH_RANGE-like triple each, as packing records them): no subnormal or non-finite
    element; every product a multiple of 2^-126, so no partial sum is subnormal (a bf16 value is an integer times
    2^(field - 134), a product of two an integer times 2^(fa + fb - 268)); and no partial sum of a block near
    fp32's largest value (a product is below 2^(fa + fb - 252), a block sums 2^9 of them)."""
    (least_a, most_a, sub_a), (least_b, most_b, sub_b) = ranges
    if sub_a or sub_b or most_a >= 255 or most_b >= 255:
        return False
    if least_a < 256 and least_b < 256 and least_a + least_b < 142:
        return False
    return most_a + most_b <= 368


@functools.lru_cache(maxsize=None)
def dot_available():
    lib = kernels.lib()
    return lib is not None and bool(lib.opemu_kernel_bf16_dot_available())


def panel_words(count, inner, width):
    """Words in the panels of a count × inner operand with panels `width` wide."""
    return -(-count // width) * width * pairs(inner)


def pairs(inner):
    return (inner + 1) // 2


def new_range():
    return np.array(FRESH_RANGE, np.int32)


def combined(*ranges):
    """One range over several operands' pieces."""
    stacked = np.stack(ranges)
    return int(stacked[:, 0].min()), int(stacked[:, 1].max()), int(stacked[:, 2].max())


def pack(matrix, width, panels, total_pairs, first_pair, span):
    """Packs `matrix` (count × inner, bf16 or fp32 holding bf16 values, any strides) into pairs [first_pair, ...)
    of `panels` (uint32, panel_words(count, 2 * total_pairs, width) of them), widening `span` (new_range())."""
    lib = kernels.lib()
    item = matrix.itemsize
    source = lib.OPEMU_BF16_FROM_FLOAT if matrix.dtype == np.float32 else lib.OPEMU_BF16_FROM_BF16
    assert matrix.dtype in (np.float32, rounding.BF16) and all(s % item == 0 for s in matrix.strides)
    count, inner = matrix.shape
    if count:
        last = (-(-count // width) - 1) * total_pairs * width + (first_pair + pairs(inner)) * width
        assert panels.dtype == np.uint32 and panels.flags.c_contiguous and panels.size >= last
    code = lib.opemu_kernel_bf16_pack(kernels.strided_address(matrix), source, matrix.shape[0], matrix.shape[1],
                                      matrix.strides[0] // item, matrix.strides[1] // item, width, total_pairs,
                                      first_pair, kernels.uint32_pointer(panels), kernels.int32_pointer(span))
    assert code == 0


def product(m, n, total_pairs, a_panels, b_panels, dot, c, accumulate=False, force_portable=False):
    """c (m × n fp32 with unit column stride) = the product of packed operands, or c plus it."""
    lib = kernels.lib()
    assert a_panels.size >= panel_words(m, 2 * total_pairs, PANEL_ROWS)
    assert b_panels.size >= panel_words(n, 2 * total_pairs, PANEL_COLS)
    assert c.dtype == np.float32 and c.shape == (m, n) and c.strides[1] == 4
    code = lib.opemu_kernel_bf16_product(m, n, total_pairs, kernels.uint32_pointer(a_panels),
                                         kernels.uint32_pointer(b_panels), int(dot), int(force_portable),
                                         kernels.float_pointer(c), c.strides[0] // 4, int(accumulate))
    assert code == 0

