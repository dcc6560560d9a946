"""Products of bf16 matrices (csrc/kernels/bf16_product.c) against their NumPy reference (opemu/core/bf16_product.py
reference): the same bits on every instruction-set level's packing and tiles (the bf16 dot product instruction,
fp32 fused multiply-adds on AVX-512 and on the baseline's AVX2, plain C), for every way an operand can lie, with
subnormal elements read as zeros and results below 2^-126 flushed as the dot product instruction does."""
import ml_dtypes
import numpy as np
import pytest

import conftest
from opemu.core import bf16_product as bp, kernels
from test_kernels import ISA_PATHS, assert_same_bits, c_kernels, running_at, special  # noqa: F401 (c_kernels: autouse)

pytestmark = [conftest.opemu_only, pytest.mark.usefixtures("isa")]
BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture(params=ISA_PATHS + ("avx512bf16",))
def isa(request):
    """Every test at each level: the bf16 dot product instruction's too."""
    with running_at(request.param):
        yield request.param


def packed(a, b):
    """(A panels, B panels, pairs) of a (m × k) and b (k × n)."""
    m, k = a.shape
    n = b.shape[1]
    pairs = bp.pairs(k)
    a_panels = np.full(bp.panel_words(m, k, bp.PANEL_ROWS), 0xDEADBEEF, np.uint32)
    b_panels = np.full(bp.panel_words(n, k, bp.PANEL_COLS), 0xDEADBEEF, np.uint32)
    bp.pack(a, bp.PANEL_ROWS, a_panels, pairs, 0)
    bp.pack(b.T, bp.PANEL_COLS, b_panels, pairs, 0)
    return a_panels, b_panels, pairs


def kernel_product(a, b, c=None):
    """The kernel's product at the level in use."""
    a_panels, b_panels, pairs = packed(a, b)
    m, n = a.shape[0], b.shape[1]
    out = np.full((m, n), np.nan, np.float32) if c is None else c.copy()
    bp.product(m, n, pairs, a_panels, b_panels, out, accumulate=c is not None)
    return out


def lay(matrix, layout, dtype=BF16):
    """matrix in `dtype`, lying row-major, column-major, or strided both ways inside a larger buffer."""
    values = matrix.astype(dtype)
    if layout == "rows":
        return values
    if layout == "columns":
        return np.ascontiguousarray(values.T).T
    whole = np.zeros((values.shape[0] * 2 + 1, values.shape[1] * 3), dtype)
    whole[1::2, ::3] = values
    return whole[1::2, ::3]


def random(shape, seed, scale=1.0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


SHAPES = [(1, 1, 1), (5, 7, 3), (12, 32, 32), (13, 33, 33), (25, 70, 512), (30, 40, 1100)]


@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_product_is_the_reference_to_the_bit(shape):
    """Edge tiles (rows past 12, columns past 32), an odd inner dimension, more than one block of pairs."""
    m, n, k = shape
    a, b = lay(random((m, k), 1), "rows"), lay(random((k, n), 2), "rows")
    assert_same_bits(kernel_product(a, b), bp.reference(a, b))


@pytest.mark.parametrize("a_layout", ["rows", "columns", "strided"])
@pytest.mark.parametrize("b_layout", ["rows", "columns", "strided"])
@pytest.mark.parametrize("source", [BF16, np.dtype(np.float32)], ids=["bf16", "fp32 holding bf16"])
def test_operands_pack_the_same_however_they_lie(a_layout, b_layout, source):
    """Inner elements side by side (transposed in registers), a pair's halves in two rows (vectors along the
    panel), anything else (element by element); bf16 or fp32 values that bf16 holds (their high halves)."""
    a_values = random((29, 70), 3).astype(BF16).astype(np.float32)
    b_values = random((70, 45), 4).astype(BF16).astype(np.float32)
    a, b = lay(a_values, a_layout, source), lay(b_values, b_layout, source)
    assert_same_bits(kernel_product(a, b), bp.reference(a_values.astype(BF16), b_values.astype(BF16)))


def test_product_adds_into_c():
    a, b = lay(random((14, 20), 5), "rows"), lay(random((20, 35), 6), "rows")
    c = random((14, 35), 7).astype(np.float32)
    assert_same_bits(kernel_product(a, b, c), bp.reference(a, b, c.copy()))


def test_an_empty_inner_dimension_writes_zeros_or_leaves_c():
    a, b = np.zeros((3, 0), BF16), np.zeros((0, 4), BF16)
    assert_same_bits(kernel_product(a, b), np.zeros((3, 4), np.float32))
    c = np.full((3, 4), -0.0, np.float32)
    assert_same_bits(kernel_product(a, b, c), c)


@pytest.mark.parametrize("layout", ["rows", "columns"])
def test_packing_pairs_in_pieces_equals_packing_them_at_once(layout):
    """Two lanes each pack a share of an operand's pairs into one set of panels (the vocab-parallel operators); the
    second share ends in an odd element."""
    a = lay(random((30, 101), 8), layout)
    whole, _, pairs = packed(a, np.zeros((101, 1), BF16))
    pieces = np.full_like(whole, 0xDEADBEEF)
    bp.pack(a[:, :36], bp.PANEL_ROWS, pieces, pairs, 0)
    bp.pack(a[:, 36:], bp.PANEL_ROWS, pieces, pairs, 18)
    assert np.array_equal(pieces, whole)


@pytest.mark.parametrize("layout", ["rows", "columns", "strided"])
@pytest.mark.parametrize("source", [BF16, np.dtype(np.float32)], ids=["bf16", "fp32 holding bf16"])
def test_packing_reads_subnormal_elements_as_zeros_of_their_sign(layout, source):
    """Every bf16 bit pattern once: subnormals become ±0, everything else (NaN payloads, ±inf) is kept."""
    bits = np.arange(65536, dtype=np.uint32)
    values = (bits.astype(np.uint16).view(BF16) if source == BF16 else (bits << 16).view(np.float32)).reshape(256, 256)
    panels = np.zeros(bp.panel_words(256, 256, bp.PANEL_ROWS), np.uint32)
    bp.pack(lay(values, layout, source), bp.PANEL_ROWS, panels, 128, 0)
    words = panels.reshape(256 // bp.PANEL_ROWS + 1, 128, bp.PANEL_ROWS)[:, :, :].transpose(0, 2, 1).reshape(-1, 128)
    halves = np.stack([words & 0xFFFF, words >> 16], axis=-1).reshape(-1, 256)[:256].astype(np.uint16)
    expected = np.where((bits & 0x7F80) == 0, bits & 0x8000, bits).reshape(256, 256)
    assert np.array_equal(halves, expected)


def test_results_below_2_to_the_126_become_zeros_of_their_sign():
    """2^-70 · 2^-70 = 2^-140 is below fp32's smallest normal: the instruction gives a zero of the product's sign, and
    so does every tile; added to a c of -0, column 1's chain of -0s leaves -0 and column 0's +0s give +0."""
    a = np.full((12, 2), 2.0 ** -70, BF16)
    b = np.full((2, 32), 2.0 ** -70, BF16)
    b[:, 1] = -b[:, 1]
    c = np.full((12, 32), -0.0, np.float32)
    out = kernel_product(a, b, c)
    assert (out == 0).all() and np.signbit(out[:, 1]).all() and not np.signbit(out[:, 0]).any()
    assert_same_bits(out, bp.reference(a, b, c.copy()))


@pytest.mark.parametrize("exponents", [(-63, -63), (-60, -70), (-130, 3)], ids=["products near 2^-126",
                                                                              "uneven", "subnormal a"])
def test_tiles_flush_as_the_reference_near_the_smallest_normal(exponents):
    """Products and partial sums around 2^-126, with cancelling signs: where each tile flushes, to the bit."""
    rng = np.random.default_rng(15)
    a = (rng.choice([-1, 1], (13, 600)) * rng.uniform(1, 4, (13, 600)) * 2.0 ** exponents[0]).astype(BF16)
    b = (rng.choice([-1, 1], (600, 40)) * rng.uniform(1, 4, (600, 40)) * 2.0 ** exponents[1]).astype(BF16)
    assert_same_bits(kernel_product(a, b), bp.reference(a, b))


def test_a_sum_just_below_2_to_the_126_rounds_up_to_it_and_stays():
    """2^-126 - 2^-150 (2^-126 from the first pair, then -2^-75 · 2^-75) rounds to 2^-126 at fp32's subnormal
    precision, which is not flushed; a flush judged after rounding to 24 bits with an unbounded exponent (MXCSR's)
    would make it 0. With a third pair adding 2^-150 back in some columns, and in the others nothing."""
    a = np.zeros((12, 6), BF16)
    b = np.zeros((6, 32), BF16)
    a[:, 1], b[1] = 2.0 ** -63, 2.0 ** -63        # pair 0's odd product: 2^-126
    a[:, 3], b[3] = 2.0 ** -75, -(2.0 ** -75)     # pair 1's: -2^-150
    a[:, 5], b[5, ::2] = 2.0 ** -75, 2.0 ** -75   # pair 2's: +2^-150 in the even columns
    out = kernel_product(a, b)
    assert_same_bits(out, bp.reference(a, b))
    assert (out == np.float32(2.0 ** -126)).all()


def test_subnormals_infinities_nan_and_signed_zeros():
    rng = np.random.default_rng(10)
    a = special(17 * 41, np.float32, rng, 2.0 ** -63).reshape(17, 41).astype(BF16)
    b = special(41 * 35, np.float32, rng, 2.0 ** -63).reshape(41, 35).astype(BF16)
    a[3], b[:, 5] = -0.0, 0.0
    assert_same_bits(kernel_product(a, b), bp.reference(a, b))


def rounded_product(a, b, pitch_extra=3):
    """The kernel's product rounded into a bf16 c whose rows lie pitch_extra elements apart past n, and the
    untouched elements around it."""
    a_panels, b_panels, pairs = packed(a, b)
    m, n = a.shape[0], b.shape[1]
    whole = np.full((m, n + pitch_extra), 0x1234, np.uint16).view(BF16)
    bp.product(m, n, pairs, a_panels, b_panels, whole[:, 1:n + 1])
    assert (whole.view(np.uint16)[:, 0] == 0x1234).all() and (whole.view(np.uint16)[:, n + 1:] == 0x1234).all()
    return whole[:, 1:n + 1]


def test_a_bf16_c_takes_the_sums_as_a_cast_rounds_them():
    """weightGrad goes straight into its bf16 output: each element the fp32 sum, rounded as ml_dtypes casts it (to
    nearest, ties to even), over edge tiles and more than one block, with NaN, infinities and signed zeros."""
    rng = np.random.default_rng(16)
    a, b = lay(random((25, 600), 17), "rows"), lay(random((600, 70), 18), "rows")
    assert_same_bits(rounded_product(a, b), bp.reference(a, b).astype(BF16))
    a = special(17 * 41, np.float32, rng, 2.0 ** 60).reshape(17, 41).astype(BF16)
    b = special(41 * 35, np.float32, rng, 2.0 ** 60).reshape(41, 35).astype(BF16)
    assert_same_bits(rounded_product(a, b), bp.reference(a, b).astype(BF16))


def test_a_bf16_c_rounds_ties_to_even():
    """1 + 2^-8 lies halfway between bf16's 1 and 1 + 2^-7 and rounds to 1; 1 + 2^-7 + 2^-8 lies halfway between
    1 + 2^-7 and 1 + 2^-6 and rounds to 1 + 2^-6."""
    a = np.ones((1, 2), BF16)
    b = np.array([[1, 1 + 2.0 ** -7], [2.0 ** -8, 2.0 ** -8]], BF16)
    assert rounded_product(a, b).astype(np.float64).tolist() == [
        [1.0, 1 + 2.0 ** -6]]


def test_reference_sums_are_exact_where_fp32_holds_every_partial_sum():
    """An oracle apart from the chain: small integers, whose every partial sum fp32 holds, give the exact
    product."""
    rng = np.random.default_rng(11)
    a, b = rng.integers(-64, 65, (9, 700)), rng.integers(-64, 65, (700, 10))
    assert np.array_equal(bp.reference(a.astype(BF16), b.astype(BF16)), (a @ b).astype(np.float32))
    assert np.array_equal(kernel_product(a.astype(BF16), b.astype(BF16)), (a @ b).astype(np.float32))


def test_reference_stays_within_the_fp32_error_bound():
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal((20, 900)).astype(BF16), rng.standard_normal((900, 30)).astype(BF16)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = (900 + 2) * 2.0 ** -24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert (np.abs(bp.reference(a, b) - exact) <= bound).all()


def test_panel_sizes_and_blocks_are_the_headers():
    lib = kernels.lib()
    assert (bp.PANEL_ROWS, bp.PANEL_COLS, bp.BLOCK_PAIRS) == (
        lib.OPEMU_BF16_PANEL_ROWS, lib.OPEMU_BF16_PANEL_COLS, lib.OPEMU_BF16_BLOCK_PAIRS)


def test_pack_and_product_refuse_what_they_cannot_take():
    lib = kernels.lib()
    a = np.zeros((4, 6), BF16)
    panels = np.zeros(bp.panel_words(4, 6, bp.PANEL_ROWS), np.uint32)
    address = kernels.strided_address(a)
    assert lib.opemu_kernel_bf16_pack(address, lib.OPEMU_BF16_FROM_BF16, 4, 6, 6, 1, 7, 3, 0,
                                      kernels.uint32_pointer(panels)) == -1   # a width of no panel
    assert lib.opemu_kernel_bf16_pack(address, lib.OPEMU_BF16_FROM_BF16, 4, 6, 6, 1, bp.PANEL_ROWS, 3, 1,
                                      kernels.uint32_pointer(panels)) == -1   # pairs past the panel's
    c = np.zeros((4, 4), np.float32)
    rounded = np.zeros((4, 4), np.uint16)
    for m, ldc in ((4, 3), (-1, 4)):   # rows of c that overlap, a negative size
        assert lib.opemu_kernel_bf16_product(m, 4, 3, kernels.uint32_pointer(panels), kernels.uint32_pointer(panels),
                                             kernels.float_pointer(c), ldc, 0) == -1
        assert lib.opemu_kernel_bf16_product_rounded(m, 4, 3, kernels.uint32_pointer(panels),
                                                     kernels.uint32_pointer(panels),
                                                     kernels.device.ffi.cast("uint16_t *", rounded.ctypes.data),
                                                     ldc) == -1


def at_page_end(shape, dtype):
    """A C-contiguous array whose last byte is the last before an inaccessible page: a kernel that reads or writes
    past it ends the process."""
    import ctypes
    import mmap
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    page = mmap.PAGESIZE
    total = -(-nbytes // page) * page + page
    region = mmap.mmap(-1, total)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    mprotect = ctypes.CDLL(None).mprotect
    mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert mprotect(base + total - page, page, 0) == 0   # PROT_NONE
    array = np.frombuffer(region, np.uint8, count=nbytes, offset=total - page - nbytes).view(dtype).reshape(shape)
    at_page_end.kept.append(region)   # the mapping lives as long as the test process
    return array


at_page_end.kept = []


@pytest.mark.parametrize("layout", ["rows", "columns"])
@pytest.mark.parametrize("source", [BF16, np.dtype(np.float32)], ids=["bf16", "fp32 holding bf16"])
@pytest.mark.parametrize("shape", [(24, 64, 96), (13, 35, 37)], ids=["whole panels", "edges"])
def test_packing_and_products_stay_inside_their_arrays(layout, source, shape):
    """Operands, panels and c (fp32 or bf16) each end where an inaccessible page begins."""
    m, n, k = shape
    values = random((m, k), 13).astype(BF16).astype(np.float32)
    a = at_page_end((m, k) if layout == "rows" else (k, m), source)
    a[...] = values if layout == "rows" else values.T
    a = a if layout == "rows" else a.T
    b = lay(random((k, n), 14), "rows")
    pairs = bp.pairs(k)
    a_panels = at_page_end((bp.panel_words(m, k, bp.PANEL_ROWS),), np.uint32)
    b_panels = at_page_end((bp.panel_words(n, k, bp.PANEL_COLS),), np.uint32)
    bp.pack(a, bp.PANEL_ROWS, a_panels, pairs, 0)
    bp.pack(b.T, bp.PANEL_COLS, b_panels, pairs, 0)
    c = at_page_end((m, n), np.float32)
    bp.product(m, n, pairs, a_panels, b_panels, c)
    assert_same_bits(c, bp.reference(values.astype(BF16), b))
    rounded = at_page_end((m, n), BF16)
    bp.product(m, n, pairs, a_panels, b_panels, rounded)
    assert_same_bits(rounded, c.astype(BF16))
