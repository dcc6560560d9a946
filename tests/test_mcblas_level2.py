"""mcBLAS level 2 against float64 references: gemv, ger/geru/gerc, symv/hemv, trmv and trsv for every
precision, transposes, triangles, unit diagonals, padded leading dimensions and strided vectors, and
their INVALID_VALUE checks."""
import numpy as np
import pytest

from blas import (INVALID_VALUE, LOWER, NON_UNIT, OP_C, OP_N, OP_T, SUCCESS, TYPES, UNIT, UPPER, Buffer, c_longlong,
                  call, close, handle, host_ref, matrix, op, random, read_matrix, read_vector, recent_error, scalar,
                  symmetric_from, triangle, vector)
from conftest import opemu_only

pytestmark = [opemu_only]
LETTERS = ["S", "D", "C", "Z"]


def host(value, letter):
    return host_ref(KEEP.setdefault((value, letter), scalar(value, TYPES[letter])))


KEEP = {}


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
def test_gemv(handle, letter, trans):
    m, n, lda, incx, incy = 7, 5, 9, 2, -1
    a = random((m, n), letter, 1)
    rows, cols = (m, n) if trans == OP_N else (n, m)
    x, y = random(cols, letter, 2), random(rows, letter, 3)
    alpha, beta = 1.25, -0.5
    da, dx, dy = matrix(a, TYPES[letter], lda), vector(x, TYPES[letter], incx), vector(y, TYPES[letter], incy)
    assert call("mcblas%sgemv" % letter, handle, trans, m, n, host(alpha, letter), da.pointer, lda, dx.pointer, incx,
                host(beta, letter), dy.pointer, incy) == SUCCESS, recent_error()
    close(read_vector(dy, rows, incy), alpha * op(a, trans) @ x + beta * y, letter, scale=4)


@pytest.mark.parametrize("stride", [2 ** 62, -(2 ** 62)], ids=["huge", "negative"])
def test_gemv_strided_batched_of_one_batch_never_applies_the_strides(handle, stride):
    """batchCount 1: the strides are never applied, so any value computes as gemv does (the fuzz suite's
    finding: strideY 2^62 overflowed the batch view into an internal error)."""
    a, x, y = random((3, 2), "D", 6), random(2, "D", 7), random(3, "D", 8)
    da, dx, dy = matrix(a, TYPES["D"]), vector(x, TYPES["D"]), vector(y, TYPES["D"])
    assert call("mcblasDgemvStridedBatched", handle, OP_N, 3, 2, host(2.0, "D"), da.pointer, 3, c_longlong(stride),
                dx.pointer, 1, c_longlong(stride), host(-1.0, "D"), dy.pointer, 1, c_longlong(stride), 1) == SUCCESS, \
        recent_error()
    close(read_vector(dy, 3, 1), 2 * a @ x - y, "D", scale=4)


def test_gemv_with_beta_zero_does_not_read_y(handle):
    a, x = random((3, 3), "S", 4), random(3, "S", 5)
    dy = vector(np.full(3, np.nan), TYPES["S"])
    da, dx = matrix(a, TYPES["S"]), vector(x, TYPES["S"])
    assert call("mcblasSgemv", handle, OP_N, 3, 3, host(1.0, "S"), da.pointer, 3, dx.pointer, 1, host(0.0, "S"),
                dy.pointer, 1) == SUCCESS
    close(dy.read(), a @ x, "S")


@pytest.mark.parametrize("name,letter,conjugate", [("Sger", "S", False), ("Dger", "D", False), ("Cgeru", "C", False),
                                                   ("Cgerc", "C", True), ("Zgeru", "Z", False), ("Zgerc", "Z", True)])
def test_ger_rank_one_update(handle, name, letter, conjugate):
    m, n, lda = 6, 4, 8
    a, x, y = random((m, n), letter, 6), random(m, letter, 7), random(n, letter, 8)
    da, dx, dy = matrix(a, TYPES[letter], lda), vector(x, TYPES[letter], -2), vector(y, TYPES[letter], 3)
    assert call("mcblas" + name, handle, m, n, host(0.5, letter), dx.pointer, -2, dy.pointer, 3, da.pointer, lda) == 0
    close(read_matrix(da, m, n, lda), a + 0.5 * np.outer(x, np.conj(y) if conjugate else y), letter, scale=2)


@pytest.mark.parametrize("name,letter,hermitian", [("Ssymv", "S", False), ("Dsymv", "D", False), ("Csymv", "C", False),
                                                   ("Zsymv", "Z", False), ("Chemv", "C", True), ("Zhemv", "Z", True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_symv_reads_one_triangle(handle, name, letter, hermitian, uplo):
    n, lda = 6, 7
    a = random((n, n), letter, 9)
    stored = a.copy()
    garbage = np.triu_indices(n, 1) if uplo == LOWER else np.tril_indices(n, -1)
    stored[garbage] = 1e30  # the other triangle is never read
    x, y = random(n, letter, 10), random(n, letter, 11)
    da, dx, dy = matrix(stored, TYPES[letter], lda), vector(x, TYPES[letter]), vector(y, TYPES[letter], 2)
    assert call("mcblas" + name, handle, uplo, n, host(2.0, letter), da.pointer, lda, dx.pointer, 1,
                host(1.0, letter), dy.pointer, 2) == 0
    close(read_vector(dy, n, 2), 2.0 * symmetric_from(a, uplo, hermitian) @ x + y, letter, scale=4)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
@pytest.mark.parametrize("diag", [NON_UNIT, UNIT])
def test_trmv_and_trsv_are_inverse(handle, letter, uplo, trans, diag):
    n, lda, inc = 5, 6, -2
    a = random((n, n), letter, 12) + 3 * np.eye(n)  # well conditioned
    x = random(n, letter, 13)
    da, dx = matrix(a, TYPES[letter], lda), vector(x, TYPES[letter], inc)
    assert call("mcblas%strmv" % letter, handle, uplo, trans, diag, n, da.pointer, lda, dx.pointer, inc) == 0
    product = op(triangle(a, uplo, diag), trans) @ x
    close(read_vector(dx, n, inc), product, letter, scale=4)
    assert call("mcblas%strsv" % letter, handle, uplo, trans, diag, n, da.pointer, lda, dx.pointer, inc) == 0
    close(read_vector(dx, n, inc), x, letter, scale=4)


@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
def test_trsv_of_a_singular_triangle_divides_by_zero(handle, uplo, trans):
    """cuBLAS does not test for singularity: a zero on the diagonal gives inf and NaN, not an error
    (found by the fuzz suite: it was an internal error)."""
    n = 4
    a = np.tril(np.arange(1.0, 17.0).reshape(n, n)) + 0j
    a = a if uplo == LOWER else a.T
    a[2, 2] = 0
    x = np.array([1.0, 2.0, 3.0, 4.0]) + 0.5j
    da, dx = matrix(a, TYPES["C"]), vector(x, TYPES["C"])
    assert call("mcblasCtrsv", handle, uplo, trans, NON_UNIT, n, da.pointer, n, dx.pointer, 1) == SUCCESS, \
        recent_error()
    t = op(triangle(a, uplo, NON_UNIT), trans)
    expected = x.copy()
    rows = range(n) if (uplo == LOWER) == (trans == OP_N) else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in rows:   # substitution in float64 / complex128
            others = [j for j in range(n) if j != i and t[i, j] != 0]
            expected[i] = (x[i] - sum(t[i, j] * expected[j] for j in others)) / t[i, i]
    got = read_vector(dx, n, 1)
    assert np.array_equal(np.isfinite(got), np.isfinite(expected))
    close(got[np.isfinite(expected)], expected[np.isfinite(expected)], "C")


@pytest.mark.parametrize("case,args", [
    ("bad trans", dict(trans=5)), ("negative m", dict(m=-1)), ("negative n", dict(n=-2)),
    ("lda below m", dict(lda=2)), ("incx zero", dict(incx=0)), ("incy zero", dict(incy=0))])
def test_gemv_invalid_value(handle, case, args):
    base = dict(trans=OP_N, m=3, n=3, lda=3, incx=1, incy=1)
    base.update(args)
    d = matrix(np.ones((3, 3)), TYPES["S"])
    status = call("mcblasSgemv", handle, base["trans"], base["m"], base["n"], host(1.0, "S"), d.pointer, base["lda"],
                  d.pointer, base["incx"], host(0.0, "S"), d.pointer, base["incy"])
    assert status == INVALID_VALUE, case
    assert recent_error()


@pytest.mark.parametrize("routine,args", [
    ("Strsv", (5, OP_N, NON_UNIT, 3)), ("Strsv", (LOWER, OP_N, 9, 3)), ("Strmv", (LOWER, 7, NON_UNIT, 3))])
def test_triangular_enums_are_checked(handle, routine, args):
    d = matrix(np.eye(3), TYPES["S"])
    assert call("mcblas" + routine, handle, *args, d.pointer, 3, d.pointer, 1) == INVALID_VALUE


def test_ger_rejects_lda_below_m_and_zero_increments(handle):
    d = matrix(np.ones((4, 4)), TYPES["S"])
    assert call("mcblasSger", handle, 4, 4, host(1.0, "S"), d.pointer, 1, d.pointer, 1, d.pointer, 3) == INVALID_VALUE
    assert call("mcblasSger", handle, 4, 4, host(1.0, "S"), d.pointer, 0, d.pointer, 1, d.pointer, 4) == INVALID_VALUE


@pytest.mark.parametrize("name,letter,two,hermitian", [
    ("Ssyr", "S", False, False), ("Zsyr", "Z", False, False), ("Dsyr2", "D", True, False),
    ("Csyr2", "C", True, False), ("Cher", "C", False, True), ("Zher2", "Z", True, True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_symmetric_rank_updates_touch_one_triangle(handle, name, letter, two, hermitian, uplo):
    n, lda = 5, 6
    t = TYPES[letter]
    a, x, y = random((n, n), letter, 14), random(n, letter, 15), random(n, letter, 16)
    alpha = 0.5 if hermitian and not two else (0.5 - 0.25j if t.kind == "c" else 0.5)
    alpha_type = {"C": "S", "Z": "D"}[letter] if hermitian and not two else letter
    h = np.conj if hermitian else (lambda v: v)
    update = alpha * np.outer(x, h(y if two else x))
    if two:
        update = update + (np.conj(alpha) if hermitian else alpha) * np.outer(y, h(x))
    da, dx, dy = matrix(a, t, lda), vector(x, t, 2), vector(y, t, -1)
    args = (dx.pointer, 2, dy.pointer, -1) if two else (dx.pointer, 2)
    assert call("mcblas" + name, handle, uplo, n, host(alpha, alpha_type), *args, da.pointer, lda) == SUCCESS
    mask = np.tri(n, dtype=bool) if uplo == LOWER else np.tri(n, dtype=bool).T
    expected = np.where(mask, a + update, a)
    if hermitian:
        np.fill_diagonal(expected, np.diag(expected).real)
    close(read_matrix(da, n, n, lda), expected, letter, scale=2)


@pytest.mark.parametrize("letter", ["S", "Z"])
@pytest.mark.parametrize("trans", [OP_N, OP_C])
def test_gemv_batched_and_strided_batched(handle, letter, trans):
    m, n, batch = 4, 3, 3
    t = TYPES[letter]
    rows, cols = (m, n) if trans == OP_N else (n, m)
    mats = [random((m, n), letter, 20 + i) for i in range(batch)]
    xs, ys = [random(cols, letter, 30 + i) for i in range(batch)], [random(rows, letter, 40 + i) for i in range(batch)]
    expected = [2 * op(a, trans) @ x - y for a, x, y in zip(mats, xs, ys)]
    da = [matrix(a, t) for a in mats]
    dx, dy = [vector(x, t) for x in xs], [vector(y, t) for y in ys]
    arrays = [Buffer(batch, np.uint64, values=[b.pointer.value for b in group]) for group in (da, dx, dy)]
    assert call("mcblas%sgemvBatched" % letter, handle, trans, m, n, host(2.0, letter), arrays[0].pointer, m,
                arrays[1].pointer, 1, host(-1.0, letter), arrays[2].pointer, 1, batch) == SUCCESS, recent_error()
    for y, e in zip(dy, expected):
        close(y.read()[:rows], e, letter, scale=4)
    sa, sx, sy = m * n + 1, cols + 2, rows + 3
    a_all, x_all, y_all = Buffer(sa * batch, t), Buffer(sx * batch, t), Buffer(sy * batch, t)
    for i in range(batch):
        host_a, host_x, host_y = a_all.read(), x_all.read(), y_all.read()
        host_a[i * sa:i * sa + m * n] = mats[i].T.ravel()
        host_x[i * sx:i * sx + cols] = xs[i]
        host_y[i * sy:i * sy + rows] = ys[i]
        a_all.write(host_a), x_all.write(host_x), y_all.write(host_y)
    assert call("mcblas%sgemvStridedBatched" % letter, handle, trans, m, n, host(2.0, letter), a_all.pointer, m,
                c_longlong(sa), x_all.pointer, 1, c_longlong(sx), host(-1.0, letter), y_all.pointer, 1,
                c_longlong(sy), batch) == SUCCESS
    out = y_all.read()
    for i, e in enumerate(expected):
        close(out[i * sy:i * sy + rows], e, letter, scale=4)
