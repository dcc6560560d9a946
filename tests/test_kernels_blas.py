"""GEMM through NumPy's own BLAS (opemu.core.blas) is bit-identical to its NumPy twin, matmul then add; the C
kernel that sums several products (chain_sums) to its own, fused multiply-add chains made exactly in NumPy
(blas.chain_reference), on every instruction-set level; and the convolutions built on them give the bits of
their NumPy references, with the GEMMs of either kind."""
import threading

import numpy as np
import pytest

from opemu.core import blas
from opemu.ops.mcdnn import conv_grid, conv_kernel
from test_kernels import assert_same_bits, running_at

pytestmark = pytest.mark.skipif(not blas.available(np.float32),
                                reason="NumPy's BLAS is not the bundled OpenBLAS: the references run")

DTYPES = [np.float32, np.float64]


def _special(rng, shape, dtype):
    values = rng.standard_normal(shape).astype(dtype)
    flat = values.reshape(-1)
    picks = rng.choice(flat.size, size=max(1, flat.size // 50), replace=False)
    flat[picks] = rng.choice(np.array([0.0, -0.0, 1e-40, -1e-40, 3.0e38, 1.0], dtype), size=picks.size)
    return values


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inner", [1, 3, 64, blas.K_BLOCK])
def test_gemm_adding_into_c_is_matmul_then_add(dtype, inner):
    rng = np.random.default_rng(inner)
    a = _special(rng, (37, inner), dtype)
    grid = _special(rng, (inner + 4, 1200), dtype)
    b = grid[2:2 + inner, 5:1105]                      # a window of a larger buffer, used in place
    c = _special(rng, (37, 1100), dtype)
    expected = c.copy()
    blas.gemm(a, b, c, accumulate=True)
    blas.reference(a, b, expected, accumulate=True)
    assert c.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_on_a_transposed_window_is_matmul(dtype):
    rng = np.random.default_rng(7)
    a = _special(rng, (19, 3001), dtype)
    grid = _special(rng, (23, 3100), dtype)
    b = grid[:, 40:3041].T
    c = np.full((19, 23), np.nan, dtype)
    blas.gemm(a, b, c, accumulate=False)
    assert c.tobytes() == np.matmul(a, b).tobytes()


def test_gemm_refuses_operands_that_do_not_fit():
    with pytest.raises(ValueError):
        blas.gemm(np.ones((4, 3)), np.ones((3, 4), np.float32), np.empty((4, 4), np.float32), accumulate=False)
    with pytest.raises(ValueError):
        blas.gemm(np.ones((4, 3), np.float32), np.ones((2, 4), np.float32), np.empty((4, 4), np.float32),
                  accumulate=False)
    with pytest.raises(ValueError):
        blas.gemm(np.ones((4, 3), np.float32), np.ones((3, 4), np.float32), np.empty((4, 4), np.float32).T,
                  accumulate=False)


def test_gemm_refuses_an_operand_without_a_unit_stride():
    a = np.ones((4, 8), np.float32)[:, ::2]
    with pytest.raises(ValueError):
        blas.gemm(a, np.ones((4, 4), np.float32), np.empty((4, 4), np.float32), accumulate=False)


@pytest.mark.parametrize("shape", [(1024, 256, 512), (300, 200, 700), (37, 128, 16)], ids=str)
def test_single_threaded_gemm_has_the_same_bits_on_every_lane(shape):
    """Inside blas.single_threaded a GEMM runs on its caller's thread alone, so its bits depend neither on
    which thread calls it nor on how many lanes run GEMMs at once: what a caller whose bits must not depend
    on the thread count relies on. (Whether the pool gives the same bits depends on the kernels OpenBLAS
    picked for this CPU: its Haswell kernels sum a tile's edge in another order than its full tiles, so
    nothing here compares pooled and single-threaded products.)"""
    m, k, n = shape
    rng = np.random.default_rng(m)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((n, k), dtype=np.float32).T
    with blas.single_threaded():
        alone = a @ b
        results = [None, None]

        def lane(i):
            results[i] = a @ b

        threads = [threading.Thread(target=lane, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results[0].tobytes() == alone.tobytes()
    assert results[1].tobytes() == alone.tobytes()


def test_single_threaded_restores_the_thread_count_when_the_last_user_leaves():
    if not blas.available(np.float32) or blas._get_threads is None:
        pytest.skip("this OpenBLAS does not export its thread count")
    before = blas._get_threads()
    with blas.single_threaded():
        with blas.single_threaded():   # a second user (another core's lane) inside the first's block
            assert blas._get_threads() == 1
        assert blas._get_threads() == 1
    assert blas._get_threads() == before


@pytest.fixture(params=["baseline", "avx512"])
def chain_isa(request):
    """The chain kernel's paths (it has none in plain C: there the convolutions keep BLAS)."""
    with running_at(request.param):
        yield request.param


chained = pytest.mark.usefixtures("chain_isa")


def _chain_case(rng, rows, cols, inner):
    """Terms of `inner` lengths laid out as the grid convolution lays them: a (terms, rows, width) filter read
    through row and term offsets, b one grid read at a column offset per term."""
    width = max(inner)
    a = _special(rng, (len(inner), rows, width + 3), np.float32)
    b = _special(rng, (width + 2, cols + 40), np.float32)
    offsets = rng.integers(0, 40, size=len(inner))
    row_step = b.shape[1]
    tables = dict(a_rows=np.arange(rows, dtype=np.int64) * a.shape[2],
                  a_at=np.arange(len(inner), dtype=np.int64) * a[0].size + 1,
                  b_at=(offsets + row_step).astype(np.int64), ldb=row_step, inner=np.array(inner, np.int64))
    return a, b, tables


def _twin(c, a, b, tables, accumulate=False):
    """What the kernel leaves in c, by its NumPy twin."""
    expected = c.copy()
    blas.chain_reference(expected, a, tables["a_rows"], tables["a_at"], b, tables["b_at"], tables["ldb"],
                         tables["inner"], accumulate)
    return expected


def _chain(c, a, b, tables, accumulate=False):
    assert blas.chain_sums(c, a, tables["a_rows"], tables["a_at"], b, tables["b_at"], tables["ldb"], tables["inner"],
                           accumulate) == 0


def test_fused_products_round_each_step_once():
    """The twin's steps against exact arithmetic. (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 after -(1 + 2^-11) leaves
    2^-24 when fused (a separate multiply rounds the square to 1 + 2^-11, and the sum to 0). (1 - 2^-18) ·
    2^-24 (1 + 2^-18) = 2^-24 - 2^-60 after 1 + 2^-23 lies just below the midpoint 1 + 2^-23 + 2^-24, so rounds
    down: rounded first to float64's 53 bits it would be the midpoint, which ties to even, up to 1 + 2^-22."""
    x = 1 + 2.0 ** -12
    assert blas.fused_product(np.array([[-(1 + 2.0 ** -11), x]], np.float32),
                              np.array([[1], [x]], np.float32))[0, 0] == np.float32(2.0 ** -24)
    got = blas.fused_product(np.array([[1 + 2.0 ** -23, 1 - 2.0 ** -18]], np.float32),
                             np.array([[1], [2.0 ** -24 * (1 + 2.0 ** -18)]], np.float32))[0, 0]
    assert got == np.float32(1 + 2.0 ** -23)


@chained
@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("rows,cols", [(2, 2), (7, 17), (8, 48), (13, 100), (64, 131), (19, 64), (6, 250)])
def test_chain_sums_are_the_products_added_in_order(rows, cols, accumulate):
    rng = np.random.default_rng(rows * 1000 + cols)
    a, b, tables = _chain_case(rng, rows, cols, [1, 64, 3, blas.K_BLOCK, 17])
    c = _special(rng, (rows, cols + 5), np.float32)[:, 2:2 + cols]   # a window: its row stride is not cols
    expected = _twin(c, a, b, tables, accumulate)
    _chain(c, a, b, tables, accumulate)
    assert_same_bits(c, expected)


@chained
def test_chain_sums_carry_inf_and_nan_as_their_twin():
    rng = np.random.default_rng(5)
    a, b, tables = _chain_case(rng, 9, 70, [64, 64])
    a[0, 3, 10], b[20, :] = np.inf, np.nan
    a[1, 5, 4], b[7, 30] = -np.inf, np.inf
    c = np.empty((9, 70), np.float32)
    expected = _twin(c, a, b, tables)
    _chain(c, a, b, tables)
    assert_same_bits(c, expected)


@chained
def test_chain_sums_leave_the_rest_of_c_alone():
    rng = np.random.default_rng(8)
    a, b, tables = _chain_case(rng, 11, 50, [64])
    buffer = np.full((13, 60), 7.0, np.float32)
    _chain(buffer[1:12, 3:53], a, b, tables)
    outside = np.ones(buffer.shape, bool)
    outside[1:12, 3:53] = False
    assert (buffer[outside] == 7.0).all()


@chained
@pytest.mark.parametrize("rows,cols", [(2, 2), (7, 17), (13, 64), (9, 100), (6, 250)])
def test_chain_sums_read_b_transposed_as_they_read_its_copy(rows, cols):
    """b given as its columns, one after another (a 1x1 filter gradient's dy): the sums of the copy laid out
    as rows, to the bit, for terms of every length up to K_BLOCK (whole and partial 16 x 16 tiles)."""
    rng = np.random.default_rng(rows * 100 + cols)
    a, b, tables = _chain_case(rng, rows, cols, [1, 16, 37, blas.K_BLOCK, 5])
    ldb = b.shape[0] + 3
    columns = np.full((b.shape[1], ldb), np.nan, np.float32)   # column n of b is row n here
    columns[:, :b.shape[0]] = b.T
    offsets = tables["b_at"] - tables["ldb"]                    # each term's first column, row 1 of b
    transposed_at = (offsets * ldb + 1).astype(np.int64)
    expected, got = np.empty((rows, cols), np.float32), np.empty((rows, cols), np.float32)
    _chain(expected, a, b, tables)
    assert blas.chain_sums(got, a, tables["a_rows"], tables["a_at"], columns, transposed_at, ldb, tables["inner"],
                           False, b_transposed=True) == 0
    assert got.tobytes() == expected.tobytes()
    assert_same_bits(got, _twin(got, a, b, tables))


@chained
def test_chain_sums_refuse_a_transposed_term_past_one_k_block():
    a = np.ones((2, blas.K_BLOCK + 1), np.float32)
    got = np.full((2, 2), 7.0, np.float32)
    table = np.zeros(1, np.int64)
    assert blas.chain_sums(got, a, np.array([0, blas.K_BLOCK + 1], np.int64), table, a, table, blas.K_BLOCK + 1,
                           np.array([blas.K_BLOCK + 1], np.int64), False, b_transposed=True) == -2
    assert (got == 7.0).all()


GEOMETRIES = {   # x shape, w shape, pad, dilation, groups
    "3x3": ((3, 5, 9, 8), (6, 5, 3, 3), (1, 1), (1, 1), 1),
    "5x3 dilated": ((2, 4, 11, 10), (3, 4, 5, 3), (2, 1), (2, 3), 1),
    "grouped": ((2, 6, 7, 7), (9, 2, 3, 3), (1, 1), (1, 1), 3),
    "one output per group": ((2, 6, 7, 7), (3, 2, 3, 3), (1, 1), (1, 1), 3),
    "one input per group": ((2, 3, 7, 7), (6, 1, 3, 3), (1, 1), (1, 1), 3),
    "channels past one block": ((2, blas.K_BLOCK + 3, 5, 6), (4, blas.K_BLOCK + 3, 3, 2), (1, 0), (1, 1), 1),
    "3-D": ((2, 3, 5, 6, 4), (4, 3, 3, 2, 3), (1, 0, 1), (1, 1, 1), 1),
}


def _fused_reference(a, b, c, accumulate, partial=None, plain=blas.reference):
    """blas.reference with the chain kernel's products (fp32): what the convolutions' chain path must match."""
    if c.dtype != np.float32:
        return plain(a, b, c, accumulate, partial)
    term = blas.fused_product(a, b)
    if accumulate:
        with np.errstate(all="ignore"):
            np.add(c, term, out=c)
    else:
        c[...] = term


def _sums(kind, monkeypatch):
    """(a fixture's body) How a convolution's sums are made against its references: BLAS's GEMMs (whose twin is
    matmul then add), or the chain kernel at a level ("baseline chains"), each GEMM then the chains' own twin
    (fused multiply-add chains made exactly), so that neither side depends on the kernels OpenBLAS picked. Gives
    the function that turns to the references."""
    if kind == "blas":
        monkeypatch.setattr(blas, "chain_available", lambda: False)
        yield lambda: monkeypatch.setattr(blas, "_gemms", {})
        return
    with running_at(kind.split()[0]):
        monkeypatch.setattr(blas, "_gemms", {})
        monkeypatch.setattr(blas, "reference", _fused_reference)
        monkeypatch.setattr(blas, "chain_available", lambda: True)
        yield lambda: monkeypatch.setattr(blas, "chain_available", lambda: False)


@pytest.fixture(params=["blas", "baseline chains", "avx512 chains"])
def gemms(request, monkeypatch):
    yield from _sums(request.param, monkeypatch)


@pytest.fixture(params=["baseline chains", "avx512 chains"])
def chains(request, monkeypatch):
    yield from _sums(request.param, monkeypatch)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", GEOMETRIES, ids=list(GEOMETRIES))
@pytest.mark.parametrize("per_chunk", [1, 2], ids=["one image a chunk", "two images a chunk"])
def test_grid_convolution_is_bit_identical_to_its_reference(case, dtype, per_chunk, gemms, monkeypatch):
    """Every direction on the grid, chunk by chunk (with two images a chunk, a 3-image batch ends on a chunk
    of one, placed into buffers laid out for two). The filter gradient also of finite sums: a non-finite one
    is recomputed on columns, which would leave the grid's sums unchecked."""
    x_shape, w_shape, pad, dilation, groups = GEOMETRIES[case]
    ones = (1,) * len(pad)
    g = conv_kernel.Geometry(x_shape, w_shape, pad, ones, dilation, groups, False)
    ct = np.dtype(dtype)
    rng = np.random.default_rng(11)
    x, w = _special(rng, x_shape, dtype), _special(rng, w_shape, dtype)
    dy = _special(rng, (x_shape[0], w_shape[0]) + g.out, dtype)
    x_finite, dy_finite = (np.where(np.abs(a) > 1e30, a.dtype.type(1.5), a) for a in (x, dy))
    monkeypatch.setattr(conv_kernel.GridScratch, "images", staticmethod(lambda g, ct, filter_gradient=False:
                                                                     min(g.n, per_chunk)))
    wmat = conv_kernel.weights(w, g, ct)

    def compute():
        scratch = conv_kernel.Scratch(g, ct)
        assert isinstance(scratch, conv_kernel.GridScratch)
        y = np.concatenate([np.array(conv_kernel.forward_chunk(x[lo:hi], wmat, g, scratch))
                            for lo, hi in conv_kernel.chunks(g, scratch)])
        dx = np.concatenate([np.array(conv_kernel.backward_data_chunk(dy[lo:hi], wmat, g, scratch))
                             for lo, hi in conv_kernel.chunks(g, scratch)])
        dws = [conv_kernel.backward_filter(lambda lo, hi: (a[lo:hi], b[lo:hi]), g,
                                           conv_kernel.Scratch(g, ct, filter_gradient=True), ct).tobytes()
               for a, b in ((x, dy), (x_finite, dy_finite))]
        return y.tobytes(), dx.tobytes(), dws

    fast = compute()
    gemms()
    assert fast == compute()


TRANSPOSED = {   # x shape, w shape, groups
    "2-D": ((3, 6, 7, 9), (10, 6, 3, 3), 1),
    "grouped": ((2, 6, 5, 5), (6, 2, 3, 3), 3),
    "1-D": ((2, 4, 13), (5, 4, 3), 1),
    "3-D": ((2, 3, 4, 5, 6), (4, 3, 3, 3, 3), 1),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", TRANSPOSED, ids=list(TRANSPOSED))
@pytest.mark.parametrize("layout", ["dense", "channels last"])
def test_dy_transposed_onto_the_grid_is_numpys_copy(case, dtype, layout, monkeypatch):
    x_shape, w_shape, groups = TRANSPOSED[case]
    spatial = len(x_shape) - 2
    g = conv_kernel.Geometry(x_shape, w_shape, (1,) * spatial, (1,) * spatial, (1,) * spatial, groups, False)
    rng = np.random.default_rng(3)
    dy = _special(rng, (x_shape[0], w_shape[0]) + g.out, dtype)
    if layout == "channels last":   # the channels innermost in memory, as an NHWC descriptor gives them
        dy = np.moveaxis(np.ascontiguousarray(np.moveaxis(dy, 1, -1)), -1, 1)
    shape = (g.groups, dy.shape[0] * g.plane, blas.whole_vectors(g.kg))
    ours, reference = np.full(shape, 7, dtype), np.full(shape, 7, dtype)
    conv_grid.place_transposed(dy, ours, g)
    monkeypatch.setattr(conv_grid.kernels, "lib", lambda: None)
    conv_grid.place_transposed(dy, reference, g)
    assert ours.tobytes() == reference.tobytes()


POINTWISE = {   # x shape, w shape, groups
    "2-D": ((3, 6, 7, 9), (10, 6, 1, 1), 1),
    "grouped": ((2, 6, 5, 5), (9, 2, 1, 1), 3),
    "3-D": ((2, 3, 4, 5, 6), (4, 3, 1, 1, 1), 1),
    "channels past one block": ((2, blas.K_BLOCK + 5, 3, 4), (7, blas.K_BLOCK + 5, 1, 1), 1),
}


@pytest.mark.parametrize("case", POINTWISE, ids=list(POINTWISE))
def test_one_by_one_straight_into_y_is_the_grids_result(case, chains, monkeypatch):
    x_shape, w_shape, groups = POINTWISE[case]
    spatial = len(x_shape) - 2
    g = conv_kernel.Geometry(x_shape, w_shape, (0,) * spatial, (1,) * spatial, (1,) * spatial, groups, False)
    ct = np.dtype(np.float32)
    rng = np.random.default_rng(5)
    x, w = _special(rng, x_shape, np.float32), _special(rng, w_shape, np.float32)
    dy = _special(rng, (x_shape[0], w_shape[0]) + g.out, np.float32)
    wmat = conv_kernel.weights(w, g, ct)
    monkeypatch.setattr(conv_kernel, "CHUNK_BYTES", 1)
    for run, source, shape in ((conv_kernel.forward_chunk, x, dy.shape),
                               (conv_kernel.backward_data_chunk, dy, x.shape)):
        scratch = conv_kernel.Scratch(g, ct)
        on_grid = np.concatenate([np.array(run(source[lo:hi], wmat, g, scratch))
                                  for lo, hi in conv_kernel.chunks(g, scratch)])
        direct = np.full(shape, 7, np.float32)
        for lo, hi in conv_kernel.chunks(g, scratch):
            assert run(source[lo:hi], wmat, g, scratch, direct[lo:hi]) is None
        assert direct.tobytes() == on_grid.tobytes()


POINTWISE_FILTER = dict(POINTWISE, **{
    "positions past one block": ((3, 5, 13, 11), (70, 5, 1, 1), 1),
    "every other image of a batch": ((4, 6, 9, 8), (20, 6, 1, 1), 2),
})


@pytest.mark.parametrize("case", POINTWISE_FILTER, ids=list(POINTWISE_FILTER))
def test_one_by_one_filter_gradient_from_the_images_is_its_reference(case, chains, monkeypatch):
    """The 1x1 filter gradient read straight from x and dy (the kernel transposing dy itself) has the bits of the
    NumPy reference's per-block GEMMs on the grid, chunk by chunk."""
    x_shape, w_shape, groups = POINTWISE_FILTER[case]
    spatial = len(x_shape) - 2
    g = conv_kernel.Geometry(x_shape, w_shape, (0,) * spatial, (1,) * spatial, (1,) * spatial, groups, False)
    ct = np.dtype(np.float32)
    rng = np.random.default_rng(9)
    x = _special(rng, (2 * x_shape[0],) + x_shape[1:], np.float32)
    dy = _special(rng, (x_shape[0], w_shape[0]) + g.out, np.float32)
    x[np.abs(x) > 1e30] = 1.5   # finite sums: a non-finite gradient is recomputed on columns
    dy[np.abs(dy) > 1e30] = -2.5
    x = x[::2] if case == "every other image of a batch" else x[:x_shape[0]]
    monkeypatch.setattr(conv_kernel, "CHUNK_BYTES", 1)
    taken = []
    direct = conv_kernel.pointwise_filter
    monkeypatch.setattr(conv_kernel, "pointwise_filter", lambda *a: taken.append(direct(*a)) or taken[-1])

    def compute():
        scratch = conv_kernel.Scratch(g, ct, filter_gradient=True)
        return conv_kernel.backward_filter(lambda lo, hi: (x[lo:hi], dy[lo:hi]), g, scratch, ct).tobytes()

    fast = compute()
    assert taken and all(taken)
    chains()
    assert fast == compute()


def test_one_by_one_into_its_own_input_goes_through_the_grid():
    g = conv_kernel.Geometry((2, 4, 5, 5), (4, 4, 1, 1), (0, 0), (1, 1), (1, 1), 1, False)
    x = np.ones((2, 4, 5, 5), np.float32)
    scratch = conv_kernel.Scratch(g, np.dtype(np.float32))
    assert conv_kernel.forward_chunk(x, conv_kernel.weights(np.ones((4, 4, 1, 1)), g, np.dtype(np.float32)), g,
                                     scratch, x) is not None
