"""Products of bf16 matrices summed in fp32, the way x86's bf16 dot product instruction forms them.

The vocab-parallel operators multiply bf16 operands with fp32 sums, as the device's cube unit does; neither the
order of its sums nor its handling of subnormals is documented. opemu takes the arithmetic of the bf16 dot
product instruction (VDPBF16PS), so that the products run on it at twice the fp32 rate of this host:

    c = (c, or +0) + S_0 + S_1 + ...      one IEEE fp32 add per block of BLOCK_PAIRS pairs of the inner dimension
    S_b = chain from +0 over the block's pairs p:  s = ftz(fma(a[2p+1], b[2p+1], s));  s = ftz(fma(a[2p], b[2p], s))

where a subnormal element counts as a zero of its sign and ftz makes a result below 2^-126 a zero of its sign (an
odd inner dimension's last pair is completed by a zero). Every product of two bf16 values is exact in fp32, so
each fused step is one rounding of s + a·b. Flushing changes a result only by amounts below 2^-126, far under the
rounding that any order of summation brings; it makes the speed independent of the data (a rule that kept IEEE
subnormals had to leave the instruction for operands whose smallest products came near 2^-126, as a trained
model's softmax tails do).

`reference` is the NumPy twin; csrc/kernels/bf16_product.c packs the operands into panels of element pairs and
forms the product (`pack`, `product`) with that instruction, or with fp32 FMA (AVX-512, AVX2) or plain C tiles
that flush as it does, on the instruction-set level in use (opemu.core.kernels.isa)."""
import numpy as np

from opemu.core import device, kernels, rounding

# csrc/kernels/kernels.h's OPEMU_BF16_* (tests/test_kernels_bf16_product.py holds them equal): known here too, for
# phase 1's layouts and the twin, which run without the library under OPEMU_KERNELS=numpy
PANEL_ROWS, PANEL_COLS, BLOCK_PAIRS = 12, 32, 256
SMALLEST_NORMAL = 2.0 ** -126


def _flushed(values):
    """values with every magnitude below 2^-126 made a zero of its sign, in place."""
    tiny = np.abs(values) < SMALLEST_NORMAL
    values[tiny] = np.copysign(0.0, values[tiny])
    return values


def reference(a, b, c=None):
    """The product of a (m × k) and b (k × n), bf16 or fp32 holding bf16 values, as the kernel forms it: a new fp32
    array, or c (fp32, m × n) with the product added. Each step is done in float64, where a·b is exact and s + a·b
    rounds once more to fp32 as the fused step does (a sum with 16 significant bits on one side needs no more than
    float64 holds whenever the second rounding could depend on it), then flushed."""
    m, k = a.shape
    n = b.shape[1]
    a64, b64 = (_flushed(np.array(operand, np.float64)) for operand in (a, b))
    total = np.zeros((m, n), np.float32) if c is None else c
    with np.errstate(invalid="ignore", over="ignore"):
        for b0 in range(0, k, 2 * BLOCK_PAIRS):
            s = np.zeros((m, n), np.float32)
            for p in range(b0, min(k, b0 + 2 * BLOCK_PAIRS), 2):
                for i in (p + 1, p):
                    product = np.multiply.outer(a64[:, i], b64[i]) if i < k else np.zeros((m, n))
                    s = _flushed((s + product).astype(np.float32))
            np.add(total, s, out=total)
    return total


def panel_words(count, inner, width):
    """Words in the panels of a count × inner operand with panels `width` wide."""
    return -(-count // width) * width * pairs(inner)


def pairs(inner):
    return (inner + 1) // 2


def pack(matrix, width, panels, total_pairs, first_pair):
    """Packs `matrix` (count × inner, bf16 or fp32 holding bf16 values, any strides) into pairs [first_pair, ...)
    of `panels` (uint32, panel_words(count, 2 * total_pairs, width) of them)."""
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
                                      first_pair, kernels.uint32_pointer(panels))
    assert code == 0


def writes_into(c):
    """Whether `product` can write c as it lies: its elements side by side and its rows apart."""
    return c.strides[1] == c.itemsize and c.strides[0] >= c.shape[1] * c.itemsize


def product(m, n, total_pairs, a_panels, b_panels, c, accumulate=False):
    """c (m × n, writes_into) = the product of packed operands, or c plus it: fp32, or bf16, which takes the fp32
    sums rounded to nearest, ties to even, as a cast of them would (and cannot accumulate)."""
    lib = kernels.lib()
    assert a_panels.size >= panel_words(m, 2 * total_pairs, PANEL_ROWS)
    assert b_panels.size >= panel_words(n, 2 * total_pairs, PANEL_COLS)
    assert c.shape == (m, n) and writes_into(c)
    a, b = kernels.uint32_pointer(a_panels), kernels.uint32_pointer(b_panels)
    if c.dtype == rounding.BF16:
        assert not accumulate
        code = lib.opemu_kernel_bf16_product_rounded(m, n, total_pairs, a, b,
                                                     device.ffi.cast("uint16_t *", kernels.strided_address(c)),
                                                     c.strides[0] // 2)
    else:
        assert c.dtype == np.float32
        code = lib.opemu_kernel_bf16_product(m, n, total_pairs, a, b, kernels.float_pointer(c), c.strides[0] // 4,
                                             int(accumulate))
    if code == -2:
        raise MemoryError("the bf16 product's scratch (%d x %d pairs) could not be allocated" % (n, total_pairs))
    assert code == 0
