"""mcBLAS's batched LAPACK-like routines (getrf, getri, getrs, matinv, geqrf, gels) and the 3M complex GEMMs,
against float64 references: the factors reproduce the matrices, inverses invert them, solutions solve
them; singular matrices report the first zero pivot; argument errors report their position."""
import ctypes

import numpy as np
import pytest

from blas import (INVALID_VALUE, NOT_SUPPORTED, OP_C, OP_N, OP_T, SUCCESS, TYPES, Buffer, c_longlong, call, close,
                  handle, host_scalar, matrix, op, random, read_matrix, recent_error)
from conftest import opemu_only

pytestmark = [opemu_only]
assert handle
LETTERS = ["S", "D", "C", "Z"]
host = host_scalar


def batch_of(matrices, letter, ld):
    buffers = [matrix(a, TYPES[letter], ld) for a in matrices]
    return buffers, Buffer(len(buffers), np.uint64, values=[b.pointer.value for b in buffers])


def well_conditioned(n, letter, seed):
    return random((n, n), letter, seed) + n * np.eye(n)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("pivoting", [True, False], ids=["pivoting", "no-pivoting"])
def test_getrf_batched_factors_each_matrix(handle, letter, pivoting):
    n, lda, batch = 5, 7, 3
    mats = [well_conditioned(n, letter, 20 + i) for i in range(batch)]
    buffers, array = batch_of(mats, letter, lda)
    pivots, info = Buffer(n * batch, np.int32, values=np.zeros(n * batch)), Buffer(batch, np.int32)
    assert call("mcblas%sgetrfBatched" % letter, handle, n, array.pointer, lda, pivots.pointer if pivoting else None,
                info.pointer, batch) == SUCCESS, recent_error()
    assert list(info.read()) == [0] * batch
    for i, (a, buffer) in enumerate(zip(mats, buffers)):
        lu = read_matrix(buffer, n, n, lda)
        lower, upper = np.tril(lu, -1) + np.eye(n), np.triu(lu)
        rows = a.copy()
        if pivoting:
            for k, p in enumerate(pivots.read()[i * n:(i + 1) * n]):
                rows[[k, p - 1]] = rows[[p - 1, k]]
        close(lower @ upper, rows, letter, scale=8)


def test_getrf_batched_reports_the_first_zero_pivot(handle):
    n = 3
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    buffers, array = batch_of([singular, np.eye(n)], "D", n)
    info = Buffer(2, np.int32)
    assert call("mcblasDgetrfBatched", handle, n, array.pointer, n, None, info.pointer, 2) == SUCCESS
    assert list(info.read()) == [2, 0]


@pytest.mark.parametrize("letter", LETTERS)
def test_getri_batched_inverts_from_the_factors(handle, letter):
    n, batch = 4, 2
    mats = [well_conditioned(n, letter, 30 + i) for i in range(batch)]
    buffers, array = batch_of(mats, letter, n)
    pivots, info = Buffer(n * batch, np.int32), Buffer(batch, np.int32)
    assert call("mcblas%sgetrfBatched" % letter, handle, n, array.pointer, n, pivots.pointer, info.pointer,
                batch) == SUCCESS
    outputs, out_array = batch_of([np.zeros((n, n))] * batch, letter, n + 1)
    assert call("mcblas%sgetriBatched" % letter, handle, n, array.pointer, n, pivots.pointer, out_array.pointer,
                n + 1, info.pointer, batch) == SUCCESS, recent_error()
    assert list(info.read()) == [0] * batch
    for a, out in zip(mats, outputs):
        close(read_matrix(out, n, n, n + 1), np.linalg.inv(a), letter, scale=8)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
def test_getrs_batched_solves_with_the_factors(handle, letter, trans):
    n, nrhs, batch = 4, 3, 2
    mats = [well_conditioned(n, letter, 40 + i) for i in range(batch)]
    rhs = [random((n, nrhs), letter, 50 + i) for i in range(batch)]
    buffers, array = batch_of(mats, letter, n)
    pivots, info = Buffer(n * batch, np.int32), Buffer(batch, np.int32)
    assert call("mcblas%sgetrfBatched" % letter, handle, n, array.pointer, n, pivots.pointer, info.pointer,
                batch) == SUCCESS
    b_buffers, b_array = batch_of(rhs, letter, n)
    host_info = ctypes.c_int(-99)
    assert call("mcblas%sgetrsBatched" % letter, handle, trans, n, nrhs, array.pointer, n, pivots.pointer,
                b_array.pointer, n, ctypes.byref(host_info), batch) == SUCCESS, recent_error()
    assert host_info.value == 0
    for a, b, buffer in zip(mats, rhs, b_buffers):
        close(read_matrix(buffer, n, nrhs, n), np.linalg.solve(op(a, trans), b), letter, scale=8)


def test_getrs_batched_reports_the_invalid_argument_position(handle):
    host_info = ctypes.c_int(0)
    dummy = Buffer(4, np.uint64)
    assert call("mcblasSgetrsBatched", handle, OP_N, 4, 1, dummy.pointer, 2, None, dummy.pointer, 4,
                ctypes.byref(host_info), 1) == INVALID_VALUE
    assert host_info.value == -6


@pytest.mark.parametrize("letter", LETTERS)
def test_matinv_batched(handle, letter):
    n, batch = 6, 3
    mats = [well_conditioned(n, letter, 60 + i) for i in range(batch)]
    _, array = batch_of(mats, letter, n)
    outputs, out_array = batch_of([np.zeros((n, n))] * batch, letter, n)
    info = Buffer(batch, np.int32)
    assert call("mcblas%smatinvBatched" % letter, handle, n, array.pointer, n, out_array.pointer, n, info.pointer,
                batch) == SUCCESS, recent_error()
    assert list(info.read()) == [0] * batch
    for a, out in zip(mats, outputs):
        close(read_matrix(out, n, n), np.linalg.inv(a), letter, scale=8)


def test_matinv_batched_takes_at_most_32_rows(handle):
    dummy, info = Buffer(1, np.uint64), Buffer(1, np.int32)
    assert call("mcblasSmatinvBatched", handle, 33, dummy.pointer, 33, dummy.pointer, 33, info.pointer,
                1) == INVALID_VALUE
    assert "n <= 32" in recent_error()


@pytest.mark.parametrize("letter", LETTERS)
def test_geqrf_batched_q_times_r_is_the_matrix(handle, letter):
    m, n, batch = 6, 4, 2
    mats = [random((m, n), letter, 70 + i) for i in range(batch)]
    buffers, array = batch_of(mats, letter, m)
    taus, tau_array = batch_of([np.zeros((n, 1))] * batch, letter, n)
    host_info = ctypes.c_int(-1)
    assert call("mcblas%sgeqrfBatched" % letter, handle, m, n, array.pointer, m, tau_array.pointer,
                ctypes.byref(host_info), batch) == SUCCESS, recent_error()
    assert host_info.value == 0
    for a, buffer, tau_buffer in zip(mats, buffers, taus):
        qr, tau = read_matrix(buffer, m, n, m), tau_buffer.read()[:n]
        q = np.eye(m, dtype=np.complex128)
        for k in range(n):   # Q = H(0) H(1) ... with H(k) = I - tau v v^H, v = (0.., 1, below the diagonal)
            v = np.zeros(m, np.complex128)
            v[k], v[k + 1:] = 1, qr[k + 1:, k]
            q = q @ (np.eye(m) - tau[k] * np.outer(v, v.conj()))
        close(q[:, :n] @ np.triu(qr[:n]), a, letter, scale=8)


@pytest.mark.parametrize("letter", LETTERS)
def test_gels_batched_least_squares(handle, letter):
    m, n, nrhs, batch = 7, 3, 2, 2
    mats = [random((m, n), letter, 80 + i) for i in range(batch)]
    rhs = [random((m, nrhs), letter, 90 + i) for i in range(batch)]
    _, array = batch_of(mats, letter, m)
    c_buffers, c_array = batch_of(rhs, letter, m)
    host_info, dev_info = ctypes.c_int(-1), Buffer(batch, np.int32)
    assert call("mcblas%sgelsBatched" % letter, handle, OP_N, m, n, nrhs, array.pointer, m, c_array.pointer, m,
                ctypes.byref(host_info), dev_info.pointer, batch) == SUCCESS, recent_error()
    assert host_info.value == 0 and list(dev_info.read()) == [0] * batch
    for a, b, buffer in zip(mats, rhs, c_buffers):
        close(read_matrix(buffer, m, nrhs, m)[:n], np.linalg.lstsq(a, b, rcond=None)[0], letter, scale=16)


def test_gels_batched_supports_only_tall_untransposed_problems(handle):
    dummy, host_info = Buffer(1, np.uint64), ctypes.c_int(0)
    assert call("mcblasSgelsBatched", handle, OP_T, 4, 2, 1, dummy.pointer, 4, dummy.pointer, 4,
                ctypes.byref(host_info), None, 1) == NOT_SUPPORTED


@pytest.mark.parametrize("letter", ["C", "Z"])
@pytest.mark.parametrize("transa,transb", [(OP_N, OP_N), (OP_T, OP_C)])
def test_gemm3m(handle, letter, transa, transb):
    m, n, k = 5, 4, 6
    a = random((m, k) if transa == OP_N else (k, m), letter, 100)
    b = random((k, n) if transb == OP_N else (n, k), letter, 101)
    c = random((m, n), letter, 102)
    alpha, beta = 1 - 0.5j, 0.25 + 1j
    da, db, dc = matrix(a, TYPES[letter]), matrix(b, TYPES[letter]), matrix(c, TYPES[letter])
    assert call("mcblas%sgemm3m" % letter, handle, transa, transb, m, n, k, host(alpha, letter), da.pointer,
                a.shape[0], db.pointer, b.shape[0], host(beta, letter), dc.pointer, m) == SUCCESS, recent_error()
    close(read_matrix(dc, m, n), alpha * op(a, transa) @ op(b, transb) + beta * c, letter, scale=16)


def test_cgemm3m_strided_batched(handle):
    m, n, k, batch = 3, 2, 4, 3
    a, b = random((batch, m, k), "C", 103), random((batch, k, n), "C", 104)
    store = lambda x: np.concatenate([xi.T.ravel() for xi in x])   # noqa: E731 (column-major, one after the other)
    da, db = Buffer(a.size, TYPES["C"], values=store(a)), Buffer(b.size, TYPES["C"], values=store(b))
    dc = Buffer(batch * m * n, TYPES["C"])
    assert call("mcblasCgemm3mStridedBatched", handle, OP_N, OP_N, m, n, k, host(1, "C"), da.pointer, m,
                c_longlong(m * k), db.pointer, k, c_longlong(k * n), host(0, "C"), dc.pointer, m, c_longlong(m * n),
                batch) == SUCCESS, recent_error()
    out = dc.read().reshape(batch, n, m).transpose(0, 2, 1)
    close(out, a @ b, "C", scale=16)
