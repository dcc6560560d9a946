"""mcBLAS level 2 against float64 references: gemv, ger/geru/gerc, symv/hemv, trmv and trsv for every
precision, transposes, triangles, unit diagonals, padded leading dimensions and strided vectors, and
their INVALID_VALUE checks."""
import numpy as np
import pytest

from blas import (INVALID_VALUE, LOWER, NON_UNIT, OP_C, OP_N, OP_T, SUCCESS, TYPES, UNIT, UPPER, Handle, call, close,
                  host_ref, matrix, random, read_matrix, read_vector, recent_error, scalar, vector)
from conftest import opemu_only

pytestmark = [opemu_only]
LETTERS = ["S", "D", "C", "Z"]


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def op(a, trans):
    return a if trans == OP_N else (a.T if trans == OP_T else a.conj().T)


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


def symmetric_from(a, uplo, hermitian):
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    strict = tri - np.diag(np.diag(tri))
    full = tri + (strict.conj().T if hermitian else strict.T)
    if hermitian:
        np.fill_diagonal(full, np.diag(full).real)
    return full


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


def triangle(a, uplo, diag):
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    if diag == UNIT:
        np.fill_diagonal(tri, 1)
    return tri


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
