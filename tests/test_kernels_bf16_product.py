"""Products of bf16 matrices (csrc/kernels/bf16_product.c) against their NumPy reference (opemu/core/bf16_product.py
reference): the same bits from the bf16 dot product tiles, the fp32 fused multiply-add tiles and the portable C
tiles, for every way an operand can lie; packing's exponent ranges; and the rule that sends a product to the dot
product instruction only where that instruction's flushing of subnormals cannot show."""
import ml_dtypes
import numpy as np
import pytest

import conftest
from opemu.core import bf16_product as bp, kernels
from test_kernels import assert_same_bits, c_kernels, special  # noqa: F401 (c_kernels: autouse)

pytestmark = conftest.opemu_only
BF16 = np.dtype(ml_dtypes.bfloat16)
TILES = {"dot": dict(dot=True), "fma": dict(dot=False), "portable": dict(dot=False, force_portable=True)}
needs_dot = pytest.mark.skipif(not bp.dot_available(), reason="this CPU has no bf16 dot product instruction")


def packed(a, b):
    """(A panels, B panels, pairs, A range, B range) of a (m × k) and b (k × n)."""
    m, k = a.shape
    n = b.shape[1]
    pairs = bp.pairs(k)
    a_panels = np.full(bp.panel_words(m, k, bp.PANEL_ROWS), 0xDEADBEEF, np.uint32)
    b_panels = np.full(bp.panel_words(n, k, bp.PANEL_COLS), 0xDEADBEEF, np.uint32)
    a_range, b_range = bp.new_range(), bp.new_range()
    bp.pack(a, bp.PANEL_ROWS, a_panels, pairs, 0, a_range)
    bp.pack(b.T, bp.PANEL_COLS, b_panels, pairs, 0, b_range)
    return a_panels, b_panels, pairs, tuple(a_range), tuple(b_range)


def kernel_product(a, b, c=None, **tile):
    """The kernel's product; by default on the tiles the operands' ranges allow, as the operators choose."""
    a_panels, b_panels, pairs, a_range, b_range = packed(a, b)
    tile.setdefault("dot", bp.dot_allowed(a_range, b_range))
    m, n = a.shape[0], b.shape[1]
    out = np.full((m, n), np.nan, np.float32) if c is None else c.copy()
    bp.product(m, n, pairs, a_panels, b_panels, c=out, accumulate=c is not None, **tile)
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


@pytest.mark.parametrize("tile", TILES, ids=list(TILES))
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_product_is_the_reference_to_the_bit(tile, shape):
    """Edge tiles (rows past 12, columns past 32), an odd inner dimension, more than one block of pairs."""
    if tile == "dot" and not bp.dot_available():
        pytest.skip("this CPU has no bf16 dot product instruction")
    m, n, k = shape
    a, b = lay(random((m, k), 1), "rows"), lay(random((k, n), 2), "rows")
    assert_same_bits(kernel_product(a, b, **TILES[tile]), bp.reference(a, b))


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


def test_packing_pairs_in_pieces_equals_packing_them_at_once():
    """Two lanes each pack a share of an operand's pairs into one set of panels (the vocab-parallel operators)."""
    a = lay(random((30, 100), 8), "rows")
    whole, _, pairs, whole_range, _ = packed(a, np.zeros((100, 1), BF16))
    pieces = np.full_like(whole, 0xDEADBEEF)
    ranges = [bp.new_range(), bp.new_range()]
    bp.pack(a[:, :36], bp.PANEL_ROWS, pieces, pairs, 0, ranges[0])
    bp.pack(a[:, 36:], bp.PANEL_ROWS, pieces, pairs, 18, ranges[1])
    assert np.array_equal(pieces, whole)
    assert bp.combined(*ranges) == whole_range


def exponent_range(values):
    """FRESH_RANGE's triple for bf16 values, from their bits."""
    bits = values.astype(BF16).view(np.uint16).astype(np.int64)
    fields, nonzero = (bits >> 7) & 0xFF, (bits & 0x7FFF) != 0
    return (int(fields[nonzero].min()) if nonzero.any() else 256, int(fields.max(initial=0)),
            int((nonzero & (fields == 0)).any()))


@pytest.mark.parametrize("shape", [(12, 32), (13, 33), (40, 3), (1, 1)])
@pytest.mark.parametrize("layout", ["rows", "columns", "strided"])
def test_packing_records_the_exponent_range(shape, layout):
    """Subnormals, infinities, NaN and signed zeros among normals, in the vector and the element paths."""
    rng = np.random.default_rng(sum(shape))
    values = special(shape[0] * shape[1], np.float32, rng).reshape(shape).astype(BF16)
    for chosen in (values, np.abs(values.astype(np.float32)).clip(0, 1e30).astype(BF16), np.zeros(shape, BF16)):
        span = bp.new_range()
        bp.pack(lay(chosen.astype(np.float32), layout), bp.PANEL_ROWS,
                np.zeros(bp.panel_words(shape[0], shape[1], bp.PANEL_ROWS), np.uint32), bp.pairs(shape[1]), 0, span)
        assert tuple(span) == exponent_range(chosen)


def test_dot_rule_refuses_subnormals_non_finite_values_and_tiny_products():
    normal = exponent_range(np.array([1.0, -3.0]))
    assert bp.dot_allowed(normal, normal)
    assert not bp.dot_allowed(exponent_range(np.array([1.0, 1e-40])), normal)   # a subnormal operand
    assert not bp.dot_allowed(exponent_range(np.array([1.0, np.inf])), normal)
    # a bf16 value is a multiple of 2^(exponent - 7): products of these two are multiples of 2^-126 at least
    assert bp.dot_allowed(exponent_range(np.array([2.0 ** -60])), exponent_range(np.array([2.0 ** -52])))
    assert not bp.dot_allowed(exponent_range(np.array([2.0 ** -60])), exponent_range(np.array([2.0 ** -53])))
    assert bp.dot_allowed(exponent_range(np.array([2.0 ** 60])), exponent_range(np.array([2.0 ** 54])))
    assert not bp.dot_allowed(exponent_range(np.array([2.0 ** 60])), exponent_range(np.array([2.0 ** 55])))
    assert bp.dot_allowed(exponent_range(np.zeros(3)), exponent_range(np.array([2.0 ** -120])))


@needs_dot
@pytest.mark.parametrize("least", [(-60, -52), (-56, -56), (54, 54)], ids=["smallest products, uneven",
                                                                          "smallest products, even", "largest sums"])
def test_dot_forms_the_chain_at_the_edge_of_the_rule(least):
    """Operands of magnitudes 2^e to 2^(e + 3), at the rule's limits: the instruction's sums then are the chain's
    (cancelling signs bring partial sums down to the products' own size)."""
    rng = np.random.default_rng(9)
    a = (rng.choice([-1, 1], (13, 600)) * rng.uniform(1, 8, (13, 600)) * 2.0 ** least[0]).astype(BF16)
    b = (rng.choice([-1, 1], (600, 40)) * rng.uniform(1, 8, (600, 40)) * 2.0 ** least[1]).astype(BF16)
    a_panels, b_panels, pairs, a_range, b_range = packed(a, b)
    assert bp.dot_allowed(a_range, b_range)
    assert_same_bits(kernel_product(a, b, dot=True), bp.reference(a, b))


@needs_dot
def test_dot_instruction_would_flush_what_the_rule_keeps_from_it():
    """Why the rule exists: products below 2^-126 come out of the instruction as zero."""
    a, b = np.full((12, 2), 2.0 ** -70, BF16), np.full((2, 32), 2.0 ** -70, BF16)
    a_range, b_range = exponent_range(a), exponent_range(b)
    assert not bp.dot_allowed(a_range, b_range)
    assert (kernel_product(a, b, dot=True) == 0).all()
    assert_same_bits(kernel_product(a, b, dot=False), bp.reference(a, b))
    assert (bp.reference(a, b) == np.float32(2.0 ** -139)).all()


@pytest.mark.parametrize("tile", ["fma", "portable"])
def test_subnormals_infinities_nan_and_signed_zeros_follow_ieee(tile):
    rng = np.random.default_rng(10)
    a = special(17 * 41, np.float32, rng, 2.0 ** -63).reshape(17, 41).astype(BF16)
    b = special(41 * 35, np.float32, rng, 2.0 ** -63).reshape(41, 35).astype(BF16)
    a[3], b[:, 5] = -0.0, 0.0
    assert_same_bits(kernel_product(a, b, **TILES[tile]), bp.reference(a, b))


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
    span = bp.new_range()
    address = kernels.strided_address(a)
    assert lib.opemu_kernel_bf16_pack(address, lib.OPEMU_BF16_FROM_BF16, 4, 6, 6, 1, 7, 3, 0,
                                      kernels.uint32_pointer(panels), kernels.int32_pointer(span)) == -1
    assert lib.opemu_kernel_bf16_pack(address, lib.OPEMU_BF16_FROM_BF16, 4, 6, 6, 1, bp.PANEL_ROWS, 3, 1,
                                      kernels.uint32_pointer(panels), kernels.int32_pointer(span)) == -1
    c = np.zeros((4, 4), np.float32)
    assert lib.opemu_kernel_bf16_product(4, 4, 3, kernels.uint32_pointer(panels), kernels.uint32_pointer(panels), 0, 0,
                                         kernels.float_pointer(c), 3, 0) == -1


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
    """Operands, panels and c each end where an inaccessible page begins."""
    m, n, k = shape
    values = random((m, k), 13).astype(BF16).astype(np.float32)
    a = at_page_end((m, k) if layout == "rows" else (k, m), source)
    a[...] = values if layout == "rows" else values.T
    a = a if layout == "rows" else a.T
    b = lay(random((k, n), 14), "rows")
    pairs = bp.pairs(k)
    a_panels = at_page_end((bp.panel_words(m, k, bp.PANEL_ROWS),), np.uint32)
    b_panels = at_page_end((bp.panel_words(n, k, bp.PANEL_COLS),), np.uint32)
    bp.pack(a, bp.PANEL_ROWS, a_panels, pairs, 0, bp.new_range())
    bp.pack(b.T, bp.PANEL_COLS, b_panels, pairs, 0, bp.new_range())
    c = at_page_end((m, n), np.float32)
    bp.product(m, n, pairs, a_panels, b_panels, True, c)
    assert_same_bits(c, bp.reference(values.astype(BF16), b))
