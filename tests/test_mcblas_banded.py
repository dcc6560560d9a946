"""mcBLAS level 2 on banded and packed storage against float64 references: gbmv, sbmv/hbmv, tbmv/tbsv,
spmv/hpmv, spr/spr2/hpr/hpr2, tpmv/tpsv and the tpttr/trttp conversions, and their INVALID_VALUE checks.
The tests build the band and packed arrays from a dense matrix by BLAS's definitions."""
import numpy as np
import pytest

from blas import (INVALID_VALUE, LOWER, NON_UNIT, OP_C, OP_N, OP_T, SUCCESS, TYPES, UNIT, UPPER, Buffer, call, close,
                  handle, host_scalar, matrix, op, random, read_matrix, read_vector, recent_error, symmetric_from,
                  triangle, vector)
from conftest import opemu_only

pytestmark = [opemu_only]
assert handle
LETTERS = ["S", "D", "C", "Z"]
host = host_scalar


def band_of(a, kl, ku, lda):
    """BLAS band storage of a (m x n): A(i, j) in row ku + i - j of column j."""
    m, n = a.shape
    band = np.zeros((lda, n), a.dtype)
    for j in range(n):
        for i in range(max(0, j - ku), min(m, j + kl + 1)):
            band[ku + i - j, j] = a[i, j]
    return band


def banded(a, kl, ku):
    """a with everything outside the band zeroed."""
    m, n = a.shape
    i, j = np.indices((m, n))
    return np.where((j - i <= ku) & (i - j <= kl), a, 0)


def packed_of(a, uplo):
    """The uplo triangle of a (n x n), column after column."""
    n = len(a)
    return np.array([a[i, j] for j in range(n) for i in (range(j, n) if uplo == LOWER else range(j + 1))])


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
def test_gbmv(handle, letter, trans):
    m, n, kl, ku, lda = 7, 6, 2, 1, 5
    a = banded(random((m, n), letter, 1), kl, ku)
    rows, cols = (m, n) if trans == OP_N else (n, m)
    x, y = random(cols, letter, 2), random(rows, letter, 3)
    da, dx, dy = matrix(band_of(a, kl, ku, lda), TYPES[letter], lda), vector(x, TYPES[letter], 2), \
        vector(y, TYPES[letter], -1)
    assert call("mcblas%sgbmv" % letter, handle, trans, m, n, kl, ku, host(1.5, letter), da.pointer, lda, dx.pointer,
                2, host(-0.5, letter), dy.pointer, -1) == SUCCESS, recent_error()
    close(read_vector(dy, rows, -1), 1.5 * op(a, trans) @ x - 0.5 * y, letter, scale=4)


def test_gbmv_needs_lda_of_the_band_height(handle):
    da, dx, dy = Buffer(16, TYPES["S"]), Buffer(4, TYPES["S"]), Buffer(4, TYPES["S"])
    assert call("mcblasSgbmv", handle, OP_N, 4, 4, 1, 1, host(1.0, "S"), da.pointer, 2, dx.pointer, 1,
                host(0.0, "S"), dy.pointer, 1) == INVALID_VALUE
    assert "kl + ku + 1" in recent_error()


@pytest.mark.parametrize("name,letter,hermitian", [("Ssbmv", "S", False), ("Dsbmv", "D", False),
                                                   ("Chbmv", "C", True), ("Zhbmv", "Z", True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_sbmv_and_hbmv(handle, name, letter, hermitian, uplo):
    n, k, lda = 6, 2, 4
    full = symmetric_from(random((n, n), letter, 4), uplo, hermitian)
    full = banded(full, k, k)
    stored = band_of(np.tril(full) if uplo == LOWER else np.triu(full), k if uplo == LOWER else 0,
                     0 if uplo == LOWER else k, lda)
    x, y = random(n, letter, 5), random(n, letter, 6)
    da, dx, dy = matrix(stored, TYPES[letter], lda), vector(x, TYPES[letter]), vector(y, TYPES[letter])
    assert call("mcblas%s" % name, handle, uplo, n, k, host(0.75, letter), da.pointer, lda, dx.pointer, 1,
                host(2.0, letter), dy.pointer, 1) == SUCCESS, recent_error()
    close(read_vector(dy, n), 0.75 * full @ x + 2 * y, letter, scale=4)


@pytest.mark.parametrize("name,letter,hermitian", [("Sspmv", "S", False), ("Dspmv", "D", False),
                                                   ("Chpmv", "C", True), ("Zhpmv", "Z", True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_spmv_and_hpmv(handle, name, letter, hermitian, uplo):
    n = 5
    full = symmetric_from(random((n, n), letter, 7), uplo, hermitian)
    x, y = random(n, letter, 8), random(n, letter, 9)
    dap, dx, dy = vector(packed_of(full, uplo), TYPES[letter]), vector(x, TYPES[letter], 3), vector(y, TYPES[letter])
    assert call("mcblas%s" % name, handle, uplo, n, host(-1.0, letter), dap.pointer, dx.pointer, 3,
                host(0.5, letter), dy.pointer, 1) == SUCCESS, recent_error()
    close(read_vector(dy, n), -full @ x + 0.5 * y, letter, scale=4)


@pytest.mark.parametrize("name,letter,two,hermitian", [("Sspr", "S", False, False), ("Dspr2", "D", True, False),
                                                       ("Chpr", "C", False, True), ("Zhpr2", "Z", True, True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_packed_rank_updates(handle, name, letter, two, hermitian, uplo):
    n = 5
    full = symmetric_from(random((n, n), letter, 10), uplo, hermitian)
    x, y = random(n, letter, 11), random(n, letter, 12)
    alpha = 0.5 if hermitian and not two else (0.5 - 0.25j if TYPES[letter].kind == "c" else 0.5)
    real = {"C": "S", "Z": "D"}.get(letter, letter) if hermitian and not two else letter
    dap, dx, dy = vector(packed_of(full, uplo), TYPES[letter]), vector(x, TYPES[letter]), vector(y, TYPES[letter])
    args = [dx.pointer, 1] + ([dy.pointer, 1] if two else [])
    assert call("mcblas%s" % name, handle, uplo, n, host(alpha, real), *args, dap.pointer) == SUCCESS, recent_error()
    h = np.conj if hermitian else (lambda v: v)
    update = alpha * np.outer(x, h(y if two else x))
    if two:
        update = update + (np.conj(alpha) if hermitian else alpha) * np.outer(y, h(x))
    expected = packed_of(full + update, uplo)
    close(read_vector(dap, len(expected)), expected, letter, scale=4)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
@pytest.mark.parametrize("diag", [NON_UNIT, UNIT])
def test_tbmv_and_tbsv(handle, letter, uplo, trans, diag):
    n, k, lda = 6, 2, 3
    a = random((n, n), letter, 13) + 4 * np.eye(n)
    tri = banded(triangle(a, uplo, NON_UNIT), k if uplo == LOWER else 0, 0 if uplo == LOWER else k)
    stored = band_of(tri, k if uplo == LOWER else 0, 0 if uplo == LOWER else k, lda)
    effective = tri.copy()
    if diag == UNIT:
        np.fill_diagonal(effective, 1)
    x = random(n, letter, 14)
    da = matrix(stored, TYPES[letter], lda)
    for which, expected in (("tbmv", op(effective, trans) @ x), ("tbsv", np.linalg.solve(op(effective, trans), x))):
        dx = vector(x, TYPES[letter], 2)
        assert call("mcblas%s%s" % (letter, which), handle, uplo, trans, diag, n, k, da.pointer, lda, dx.pointer,
                    2) == SUCCESS, recent_error()
        close(read_vector(dx, n, 2), expected, letter, scale=8)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [OP_N, OP_T])
def test_tpmv_and_tpsv(handle, letter, uplo, trans):
    n = 5
    tri = triangle(random((n, n), letter, 15) + 4 * np.eye(n), uplo, NON_UNIT)
    x = random(n, letter, 16)
    dap = vector(packed_of(tri, uplo), TYPES[letter])
    for which, expected in (("tpmv", op(tri, trans) @ x), ("tpsv", np.linalg.solve(op(tri, trans), x))):
        dx = vector(x, TYPES[letter])
        assert call("mcblas%s%s" % (letter, which), handle, uplo, trans, NON_UNIT, n, dap.pointer, dx.pointer,
                    1) == SUCCESS, recent_error()
        close(read_vector(dx, n), expected, letter, scale=8)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_tpttr_and_trttp_convert_the_triangle_and_leave_the_other(handle, letter, uplo):
    n, lda = 4, 6
    a = random((n, n), letter, 17)
    packed = packed_of(a, uplo)
    target = matrix(np.full((n, n), 9.0), TYPES[letter], lda)
    assert call("mcblas%stpttr" % letter, handle, uplo, n, vector(packed, TYPES[letter]).pointer, target.pointer,
                lda) == SUCCESS, recent_error()
    keep = np.triu(np.full((n, n), 9.0), 1) if uplo == LOWER else np.tril(np.full((n, n), 9.0), -1)
    expected = (np.tril(a) if uplo == LOWER else np.triu(a)) + keep
    close(read_matrix(target, n, n, lda), expected, letter)
    dap = Buffer(len(packed), TYPES[letter])
    assert call("mcblas%strttp" % letter, handle, uplo, n, matrix(a, TYPES[letter], lda).pointer, lda,
                dap.pointer) == SUCCESS, recent_error()
    close(dap.read(), packed, letter)


def test_banded_routines_check_k_and_lda(handle):
    da, dx, dy = Buffer(16, TYPES["S"]), Buffer(4, TYPES["S"]), Buffer(4, TYPES["S"])
    assert call("mcblasSsbmv", handle, LOWER, 4, 2, host(1.0, "S"), da.pointer, 2, dx.pointer, 1, host(0.0, "S"),
                dy.pointer, 1) == INVALID_VALUE
    assert call("mcblasStbmv", handle, LOWER, OP_N, NON_UNIT, 4, -1, da.pointer, 2, dx.pointer, 1) == INVALID_VALUE
    assert call("mcblasStpmv", handle, LOWER, OP_N, NON_UNIT, 4, da.pointer, dx.pointer, 0) == INVALID_VALUE
