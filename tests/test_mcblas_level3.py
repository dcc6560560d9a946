"""mcBLAS level 3 against float64 references: gemm for S/D/C/Z/H with every transpose pair and padded
leading dimensions, GemmEx's compute types and where each rounds, the batched forms (pointer arrays
and strides), geam, dgmm, trsm, trmm, syrk/herk, symm/hemm, and the argument checks and faults."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

from blas import (DEVICE, EXECUTION_FAILED, INVALID_VALUE, LEFT, LOWER, NON_UNIT, NOT_SUPPORTED, OP_C, OP_N, OP_T,
                  RIGHT, SUCCESS, TYPES, UNIT, UPPER, Buffer, Handle, c_longlong, call, close, handle, host_ref, lib,
                  matrix, op, random, read_matrix, recent_error, scalar, symmetric_from, triangle, vector)
from conftest import opemu_only

pytestmark = [opemu_only]
LETTERS = ["S", "D", "C", "Z"]
KEEP = {}
# macaDataType and mcblasComputeType_t codes
R16F, R16BF, R32F, R64F, C32F, R8I, R32I = 2, 14, 0, 1, 4, 3, 10
COMPUTE_16F, COMPUTE_32F, COMPUTE_32F_PEDANTIC, COMPUTE_64F, COMPUTE_32I = 64, 68, 69, 70, 72
FAST_16F, FAST_16BF, FAST_TF32 = 74, 75, 77
TF32_TENSOR_OP_MATH, DEFAULT_MATH = 3, 0


def host(value, dtype):
    key = (value, np.dtype(dtype).str)
    return host_ref(KEEP.setdefault(key, scalar(value, dtype)))


def stored(trans, rows, cols):
    return (rows, cols) if trans == OP_N else (cols, rows)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("transa,transb", [(OP_N, OP_N), (OP_T, OP_N), (OP_N, OP_C), (OP_C, OP_T)])
def test_gemm(handle, letter, transa, transb):
    m, n, k = 5, 4, 6
    lda, ldb, ldc = stored(transa, m, k)[0] + 2, stored(transb, k, n)[0] + 1, m + 3
    a, b = random(stored(transa, m, k), letter, 1), random(stored(transb, k, n), letter, 2)
    c = random((m, n), letter, 3)
    t = TYPES[letter]
    da, db, dc = matrix(a, t, lda), matrix(b, t, ldb), matrix(c, t, ldc)
    alpha, beta = (0.5 + 0.25j, -1.5j) if t.kind == "c" else (0.5, -1.5)
    assert call("mcblas%sgemm" % letter, handle, transa, transb, m, n, k, host(alpha, t), da.pointer, lda, db.pointer,
                ldb, host(beta, t), dc.pointer, ldc) == SUCCESS, recent_error()
    close(read_matrix(dc, m, n, ldc), alpha * op(a, transa) @ op(b, transb) + beta * c, letter, scale=k)
    padding = dc.read()[:n * ldc].reshape(n, ldc)[:, m:]
    assert np.isnan(padding).all()  # rows between m and ldc are not touched


def test_gemm_with_beta_zero_ignores_nan_in_c(handle):
    a, b = random((3, 2), "S", 4), random((2, 3), "S", 5)
    da, db, dc = matrix(a, np.float32), matrix(b, np.float32), matrix(np.full((3, 3), np.nan), np.float32)
    assert call("mcblasSgemm", handle, OP_N, OP_N, 3, 3, 2, host(1.0, np.float32), da.pointer, 3, db.pointer, 2,
                host(0.0, np.float32), dc.pointer, 3) == SUCCESS
    close(read_matrix(dc, 3, 3), a @ b, "S")


def test_gemm_reads_device_scalars_in_device_pointer_mode(handle):
    a, b, c = random((4, 3), "D", 6), random((3, 2), "D", 7), random((4, 2), "D", 8)
    da, db, dc = matrix(a, np.float64), matrix(b, np.float64), matrix(c, np.float64)
    alpha, beta = Buffer(1, np.float64, values=[2.0]), Buffer(1, np.float64, values=[0.25])
    assert call("mcblasSetPointerMode", handle, DEVICE) == 0
    try:
        assert call("mcblasDgemm", handle, OP_N, OP_N, 4, 2, 3, alpha.pointer, da.pointer, 4, db.pointer, 3,
                    beta.pointer, dc.pointer, 4) == SUCCESS
    finally:
        call("mcblasSetPointerMode", handle, 0)
    close(read_matrix(dc, 4, 2), 2 * a @ b + 0.25 * c, "D")


def half_bits(value):
    return ctypes.byref(ctypes.c_uint16(int(np.float16(value).view(np.uint16))))


def test_hgemm_accumulates_in_fp32_and_rounds_once_to_fp16(handle):
    m, n, k = 8, 6, 64
    a, b, c = (random(shape, "H", s) for s, shape in ((9, (m, k)), (10, (k, n)), (11, (m, n))))
    da, db, dc = matrix(a, np.float16), matrix(b, np.float16), matrix(c, np.float16)
    assert call("mcblasHgemm", handle, OP_N, OP_N, m, n, k, half_bits(1.0), da.pointer, m, db.pointer, k,
                half_bits(0.5), dc.pointer, m) == SUCCESS, recent_error()
    expected = (a @ b + 0.5 * c).astype(np.float16)
    got = read_matrix(dc, m, n)
    assert np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64))) <= 2 ** -9 * np.max(np.abs(expected))


def gemm_ex(handle, m, n, k, alpha, a, atype, b, btype, beta, c, ctype, compute, algo=-1):
    return call("mcblasGemmEx", handle, OP_N, OP_N, m, n, k, alpha, a.pointer, atype, m, b.pointer, btype, k, beta,
                c.pointer, ctype, m, compute, algo)


@pytest.mark.parametrize("ab,ct,c_dtype", [(R16F, R16F, np.float16), (R16BF, R16BF, ml_dtypes.bfloat16),
                                           (R16F, R32F, np.float32), (R16BF, R32F, np.float32),
                                           (R32F, R32F, np.float32)])
def test_gemm_ex_compute_32f_widens_inputs_and_rounds_c_once(handle, ab, ct, c_dtype):
    m, n, k = 6, 5, 32
    ab_dtype = {R16F: np.float16, R16BF: ml_dtypes.bfloat16, R32F: np.float32}[ab]
    a = random((m, k), "S", 12).astype(ab_dtype).astype(np.float64)
    b = random((k, n), "S", 13).astype(ab_dtype).astype(np.float64)
    da, db, dc = matrix(a, ab_dtype), matrix(b, ab_dtype), matrix(np.zeros((m, n)), c_dtype)
    assert gemm_ex(handle, m, n, k, host(1.0, np.float32), da, ab, db, ab, host(0.0, np.float32), dc, ct,
                   COMPUTE_32F) == SUCCESS, recent_error()
    expected = (a @ b).astype(np.float32).astype(c_dtype).astype(np.float64)
    got = read_matrix(dc, m, n).astype(np.float64)
    np.testing.assert_allclose(got, expected, rtol=2 ** -7 if c_dtype != np.float32 else 1e-5, atol=1e-5)


def test_gemm_ex_int8_to_int32_is_exact(handle):
    rng = np.random.default_rng(14)
    a, b = rng.integers(-128, 128, (5, 40)), rng.integers(-128, 128, (40, 3))
    da, db, dc = matrix(a, np.int8, fill=0), matrix(b, np.int8, fill=0), matrix(np.zeros((5, 3)), np.int32, fill=0)
    assert gemm_ex(handle, 5, 3, 40, host(1, np.int32), da, R8I, db, R8I, host(0, np.int32), dc, R32I,
                   COMPUTE_32I) == SUCCESS, recent_error()
    np.testing.assert_array_equal(read_matrix(dc, 5, 3), a @ b)


def tf32(values):
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("compute,rounding", [
    (FAST_16F, lambda v: v.astype(np.float16).astype(np.float64)),
    (FAST_16BF, lambda v: v.astype(ml_dtypes.bfloat16).astype(np.float64)),
    (FAST_TF32, tf32), (COMPUTE_32F_PEDANTIC, lambda v: v)])
def test_gemm_ex_fast_compute_types_round_a_and_b_first(handle, compute, rounding):
    m, n, k = 4, 4, 16
    a = random((m, k), "S", 15) * 3.3
    b = random((k, n), "S", 16) * 1.7
    da, db, dc = matrix(a, np.float32), matrix(b, np.float32), matrix(np.zeros((m, n)), np.float32)
    assert gemm_ex(handle, m, n, k, host(1.0, np.float32), da, R32F, db, R32F, host(0.0, np.float32), dc, R32F,
                   compute) == SUCCESS, recent_error()
    expected = rounding(a.astype(np.float32)) @ rounding(b.astype(np.float32))
    close(read_matrix(dc, m, n), expected, "S", scale=k)
    if compute != COMPUTE_32F_PEDANTIC:  # the rounding is visible: the exact product differs
        assert np.max(np.abs(read_matrix(dc, m, n) - a @ b)) > 1e-5


def test_tf32_math_mode_rounds_sgemm_inputs(handle):
    m = n = k = 8
    a, b = random((m, k), "S", 17) * 3.3, random((k, n), "S", 18) * 1.7
    da, db, dc = matrix(a, np.float32), matrix(b, np.float32), matrix(np.zeros((m, n)), np.float32)
    assert call("mcblasSetMathMode", handle, TF32_TENSOR_OP_MATH) == 0
    try:
        assert call("mcblasSgemm", handle, OP_N, OP_N, m, n, k, host(1.0, np.float32), da.pointer, m, db.pointer, k,
                    host(0.0, np.float32), dc.pointer, m) == SUCCESS
    finally:
        call("mcblasSetMathMode", handle, DEFAULT_MATH)
    close(read_matrix(dc, m, n), tf32(a) @ tf32(b), "S", scale=k)


def test_gemm_ex_double_and_complex(handle):
    a, b = random((3, 4), "Z", 19), random((4, 2), "Z", 20)
    da, db, dc = matrix(a, np.complex128), matrix(b, np.complex128), matrix(np.zeros((3, 2)), np.complex128)
    assert gemm_ex(handle, 3, 2, 4, host(1j, np.complex128), da, 5, db, 5, host(0, np.complex128), dc, 5,
                   COMPUTE_64F) == SUCCESS
    close(read_matrix(dc, 3, 2), 1j * a @ b, "Z")


@pytest.mark.parametrize("case,args,status", [
    ("Atype differs from Btype", dict(btype=R16F), NOT_SUPPORTED),
    ("fp64 data with COMPUTE_32F", dict(atype=R64F, btype=R64F, ctype=R64F), NOT_SUPPORTED),
    ("int8 with COMPUTE_16F", dict(atype=R8I, btype=R8I, compute=COMPUTE_16F), NOT_SUPPORTED),
    ("unknown compute type", dict(compute=1234), NOT_SUPPORTED),
    ("invalid algo", dict(algo=57), INVALID_VALUE)])
def test_gemm_ex_rejects(handle, case, args, status):
    p = dict(atype=R32F, btype=R32F, ctype=R32F, compute=COMPUTE_32F, algo=-1)
    p.update(args)
    d = matrix(np.zeros((4, 4)), np.float64)
    assert gemm_ex(handle, 2, 2, 2, host(1.0, np.float32), d, p["atype"], d, p["btype"], host(0.0, np.float32), d,
                   p["ctype"], p["compute"], p["algo"]) == status, case
    assert "mcblasGemmEx" in recent_error()


@pytest.mark.parametrize("letter", ["S", "Z", "H"])
def test_gemm_strided_batched(handle, letter):
    m, n, k, batch = 3, 4, 5, 3
    t = TYPES[letter]
    sa, sb, sc = m * k + 2, k * n + 1, m * n + 4
    a = [random((m, k), letter if letter != "H" else "S", 21 + i) for i in range(batch)]
    b = [random((k, n), letter if letter != "H" else "S", 31 + i) for i in range(batch)]
    a = [x.astype(t).astype(np.float64) if letter == "H" else x for x in a]
    b = [x.astype(t).astype(np.float64) if letter == "H" else x for x in b]
    da, db, dc = Buffer(sa * batch, t), Buffer(sb * batch, t), Buffer(sc * batch, t, fill=0)
    host_a, host_b = da.read(), db.read()
    for i in range(batch):
        host_a[i * sa:i * sa + m * k] = a[i].T.ravel()
        host_b[i * sb:i * sb + k * n] = b[i].T.ravel()
    da.write(host_a)
    db.write(host_b)
    one = half_bits(1.0) if letter == "H" else host(1.0, t)
    zero = half_bits(0.0) if letter == "H" else host(0.0, t)
    assert call("mcblas%sgemmStridedBatched" % letter, handle, OP_N, OP_N, m, n, k, one, da.pointer, m,
                c_longlong(sa), db.pointer, k, c_longlong(sb), zero, dc.pointer, m, c_longlong(sc), batch) == SUCCESS
    out = dc.read()
    for i in range(batch):
        close(out[i * sc:i * sc + m * n].reshape(n, m).T, a[i] @ b[i], letter, scale=k)


def test_gemm_batched_follows_device_pointer_arrays(handle):
    m, n, k, batch = 4, 3, 2, 3
    mats = [(random((m, k), "D", 40 + i), random((k, n), "D", 50 + i)) for i in range(batch)]
    da = [matrix(a, np.float64) for a, _ in mats]
    db = [matrix(b, np.float64) for _, b in mats]
    dc = [matrix(np.zeros((m, n)), np.float64) for _ in mats]
    arrays = [Buffer(batch, np.uint64, values=[x.pointer.value for x in group]) for group in (da, db, dc)]
    assert call("mcblasDgemmBatched", handle, OP_N, OP_N, m, n, k, host(1.0, np.float64), arrays[0].pointer, m,
                arrays[1].pointer, k, host(0.0, np.float64), arrays[2].pointer, m, batch) == SUCCESS, recent_error()
    for (a, b), c in zip(mats, dc):
        close(read_matrix(c, m, n), a @ b, "D")


@pytest.mark.parametrize("case,args", [
    ("bad transa", dict(transa=7)), ("bad transb", dict(transb=-1)), ("negative m", dict(m=-1)),
    ("negative k", dict(k=-5)), ("lda below m", dict(lda=3)), ("ldb below k", dict(ldb=1)),
    ("ldc below m", dict(ldc=2)), ("lda below k when transposed", dict(transa=OP_T, lda=4))])
def test_gemm_invalid_value(handle, case, args):
    p = dict(transa=OP_N, transb=OP_N, m=4, n=4, k=5, lda=4, ldb=5, ldc=4)
    p.update(args)
    d = Buffer(64, np.float32)
    assert call("mcblasSgemm", handle, p["transa"], p["transb"], p["m"], p["n"], p["k"], host(1.0, np.float32),
                d.pointer, p["lda"], d.pointer, p["ldb"], host(0.0, np.float32), d.pointer, p["ldc"]) == INVALID_VALUE
    assert "mcblasSgemm" in recent_error()


def test_gemm_with_m_zero_is_a_quick_return(handle):
    assert call("mcblasSgemm", handle, OP_N, OP_N, 0, 4, 4, host(1.0, np.float32), None, 1, None, 4,
                host(0.0, np.float32), None, 1) == SUCCESS


def test_gemm_past_the_allocation_faults_with_an_illegal_address(handle):
    d = Buffer(16, np.float32, fill=0)  # 4x4, but lda 4 x n 64 reaches far beyond
    status = call("mcblasSgemm", handle, OP_N, OP_N, 4, 64, 4, host(1.0, np.float32), d.pointer, 4, d.pointer, 4,
                  host(0.0, np.float32), d.pointer, 4)
    assert status == EXECUTION_FAILED
    assert "illegal memory access" in recent_error()


def test_gemm_with_hostile_leading_dimensions_faults_instead_of_overflowing(handle):
    d = Buffer(16, np.float32, fill=0)
    status = call("mcblasSgemm", handle, OP_N, OP_N, 4, 2 ** 31 - 1, 4, host(1.0, np.float32), d.pointer, 4, d.pointer,
                  2 ** 31 - 1, host(0.0, np.float32), d.pointer, 4)
    assert status == EXECUTION_FAILED
    assert "illegal memory access" in recent_error()


@pytest.mark.parametrize("letter", ["S", "C"])
@pytest.mark.parametrize("transa,transb", [(OP_N, OP_N), (OP_T, OP_C)])
def test_geam(handle, letter, transa, transb):
    m, n = 4, 3
    t = TYPES[letter]
    a, b = random(stored(transa, m, n), letter, 60), random(stored(transb, m, n), letter, 61)
    da, db, dc = matrix(a, t, a.shape[0] + 1), matrix(b, t), matrix(np.zeros((m, n)), t)
    assert call("mcblas%sgeam" % letter, handle, transa, transb, m, n, host(2.0, t), da.pointer, a.shape[0] + 1,
                host(-1.0, t), db.pointer, b.shape[0], dc.pointer, m) == SUCCESS
    close(read_matrix(dc, m, n), 2 * op(a, transa) - op(b, transb), letter)


def test_geam_in_place_and_a_zero_beta_does_not_read_b(handle):
    a = random((3, 3), "D", 62)
    da = matrix(a, np.float64)
    nan = matrix(np.full((3, 3), np.nan), np.float64)
    assert call("mcblasDgeam", handle, OP_N, OP_N, 3, 3, host(3.0, np.float64), da.pointer, 3, host(0.0, np.float64),
                nan.pointer, 3, da.pointer, 3) == SUCCESS
    close(read_matrix(da, 3, 3), 3 * a, "D")


@pytest.mark.parametrize("mode", [LEFT, RIGHT])
def test_dgmm(handle, mode):
    m, n = 4, 3
    a = random((m, n), "Z", 63)
    x = random(m if mode == LEFT else n, "Z", 64)
    da, dx, dc = matrix(a, np.complex128, 5), vector(x, np.complex128, 2), matrix(np.zeros((m, n)), np.complex128)
    assert call("mcblasZdgmm", handle, mode, m, n, da.pointer, 5, dx.pointer, 2, dc.pointer, m) == SUCCESS
    close(read_matrix(dc, m, n), np.diag(x) @ a if mode == LEFT else a @ np.diag(x), "Z")


@pytest.mark.parametrize("letter", ["S", "Z"])
@pytest.mark.parametrize("side", [LEFT, RIGHT])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
@pytest.mark.parametrize("trans", [OP_N, OP_T, OP_C])
@pytest.mark.parametrize("diag", [NON_UNIT, UNIT])
def test_trsm_solves_and_trmm_multiplies(handle, letter, side, uplo, trans, diag):
    m, n = 4, 3
    t = TYPES[letter]
    size = m if side == LEFT else n
    a = random((size, size), letter, 65) + 3 * np.eye(size)
    b = random((m, n), letter, 66)
    tri = op(triangle(a, uplo, diag), trans)
    da, db, dc = matrix(a, t, size + 1), matrix(b, t, m + 2), matrix(np.zeros((m, n)), t)
    assert call("mcblas%strmm" % letter, handle, side, uplo, trans, diag, m, n, host(2.0, t), da.pointer, size + 1,
                db.pointer, m + 2, dc.pointer, m) == SUCCESS
    close(read_matrix(dc, m, n), 2 * (tri @ b if side == LEFT else b @ tri), letter, scale=4)
    assert call("mcblas%strsm" % letter, handle, side, uplo, trans, diag, m, n, host(2.0, t), da.pointer, size + 1,
                db.pointer, m + 2) == SUCCESS
    x = read_matrix(db, m, n, m + 2)
    close(tri @ x if side == LEFT else x @ tri, 2 * b, letter, scale=4)


@pytest.mark.parametrize("name,letter,trans,hermitian", [
    ("Ssyrk", "S", OP_N, False), ("Dsyrk", "D", OP_T, False), ("Csyrk", "C", OP_T, False),
    ("Zherk", "Z", OP_C, True), ("Cherk", "C", OP_N, True)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_syrk_updates_one_triangle(handle, name, letter, trans, hermitian, uplo):
    n, k = 4, 3
    t = TYPES[letter]
    scalar_type = np.float32 if letter in "SC" and hermitian else t
    scalar_type = np.float64 if letter == "Z" and hermitian else scalar_type
    a, c = random(stored(trans, n, k), letter, 67), random((n, n), letter, 68)
    if hermitian:
        c = (c + c.conj().T) / 2
    da, dc = matrix(a, t), matrix(c, t)
    assert call("mcblas" + name, handle, uplo, trans, n, k, host(1.5, scalar_type), da.pointer, a.shape[0],
                host(0.5, scalar_type), dc.pointer, n) == SUCCESS, recent_error()
    x = op(a, trans)
    full = 1.5 * x @ (x.conj().T if hermitian else x.T) + 0.5 * c
    got = read_matrix(dc, n, n)
    mask = np.tri(n, dtype=bool) if uplo == LOWER else np.tri(n, dtype=bool).T
    close(got[mask], full[mask], letter, scale=4)
    close(got[~mask], c[~mask], letter)  # the other triangle is left alone


def test_complex_syrk_rejects_conjugate_transpose(handle):
    d = matrix(np.zeros((3, 3)), np.complex64)
    assert call("mcblasCsyrk", handle, LOWER, OP_C, 3, 3, host(1.0, np.complex64), d.pointer, 3,
                host(0.0, np.complex64), d.pointer, 3) == INVALID_VALUE


@pytest.mark.parametrize("name,letter,hermitian", [("Ssymm", "S", False), ("Zsymm", "Z", False), ("Chemm", "C", True)])
@pytest.mark.parametrize("side", [LEFT, RIGHT])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_symm(handle, name, letter, hermitian, side, uplo):
    m, n = 4, 3
    t = TYPES[letter]
    size = m if side == LEFT else n
    a, b, c = random((size, size), letter, 69), random((m, n), letter, 70), random((m, n), letter, 71)
    full = symmetric_from(a, uplo, hermitian)
    da, db, dc = matrix(a, t), matrix(b, t), matrix(c, t)
    assert call("mcblas" + name, handle, side, uplo, m, n, host(1.0, t), da.pointer, size, db.pointer, m,
                host(2.0, t), dc.pointer, m) == SUCCESS
    close(read_matrix(dc, m, n), (full @ b if side == LEFT else b @ full) + 2 * c, letter, scale=4)


@pytest.mark.parametrize("routine,args", [
    ("Strsm", (7, LOWER, OP_N, NON_UNIT, 2, 2)), ("Strsm", (LEFT, 4, OP_N, NON_UNIT, 2, 2)),
    ("Strsm", (LEFT, LOWER, 9, NON_UNIT, 2, 2)), ("Strsm", (LEFT, LOWER, OP_N, 2, 2, 2)),
    ("Strsm", (LEFT, LOWER, OP_N, NON_UNIT, -1, 2))])
def test_trsm_checks_its_enums_and_sizes(handle, routine, args):
    d = matrix(np.eye(2), np.float32)
    assert call("mcblas" + routine, handle, *args, host(1.0, np.float32), d.pointer, 2, d.pointer, 2) == INVALID_VALUE


def test_routines_of_a_destroyed_handle_are_not_initialized():
    h = Handle()
    h.destroy()
    d = matrix(np.eye(2), np.float32)
    assert call("mcblasSgemm", h.handle, OP_N, OP_N, 2, 2, 2, host(1.0, np.float32), d.pointer, 2, d.pointer, 2,
                host(0.0, np.float32), d.pointer, 2) == 1
    assert lib().mcblasDestroy(h.handle) == 1


@pytest.mark.parametrize("name,letter,kind,hermitian,trans", [
    ("Ssyrkx", "S", "kx", False, OP_N), ("Zsyrkx", "Z", "kx", False, OP_T), ("Cherkx", "C", "kx", True, OP_C),
    ("Dsyr2k", "D", "2k", False, OP_T), ("Csyr2k", "C", "2k", False, OP_N), ("Zher2k", "Z", "2k", True, OP_N)])
@pytest.mark.parametrize("uplo", [LOWER, UPPER])
def test_rank_2k_and_kx_updates(handle, name, letter, kind, hermitian, trans, uplo):
    n, k = 4, 3
    t = TYPES[letter]
    real = {"C": np.float32, "Z": np.float64}.get(letter, t)
    alpha, beta = (0.5 - 0.5j if t.kind == "c" else 0.5), 2.0
    a, b = (random(stored(trans, n, k), letter, s) for s in (72, 73))
    c = random((n, n), letter, 74)
    c = (c + c.conj().T) / 2 if hermitian else c
    h = (lambda m: m.conj().T) if hermitian else (lambda m: m.T)
    x, y = op(a, trans), op(b, trans)
    if kind == "kx":
        full = alpha * x @ h(y)
    else:
        full = alpha * x @ h(y) + (np.conj(alpha) if hermitian else alpha) * y @ h(x)
    full = full + beta * c
    if hermitian:  # the diagonal's imaginary parts are set to zero
        np.fill_diagonal(full, np.diag(full).real)
    da, db, dc = matrix(a, t), matrix(b, t), matrix(c, t)
    assert call("mcblas" + name, handle, uplo, trans, n, k, host(alpha, t), da.pointer, a.shape[0], db.pointer,
                b.shape[0], host(beta, real if hermitian else t), dc.pointer, n) == SUCCESS, recent_error()
    got = read_matrix(dc, n, n)
    mask = np.tri(n, dtype=bool) if uplo == LOWER else np.tri(n, dtype=bool).T
    close(got[mask], full[mask], letter, scale=4)
    close(got[~mask], c[~mask], letter)


def test_trsm_batched_solves_each_pair(handle):
    m, n, batch = 3, 2, 3
    mats = [random((m, m), "D", 80 + i) + 3 * np.eye(m) for i in range(batch)]
    rhs = [random((m, n), "D", 90 + i) for i in range(batch)]
    da, db = [matrix(a, np.float64) for a in mats], [matrix(b, np.float64) for b in rhs]
    arrays = [Buffer(batch, np.uint64, values=[x.pointer.value for x in group]) for group in (da, db)]
    assert call("mcblasDtrsmBatched", handle, LEFT, UPPER, OP_T, NON_UNIT, m, n, host(1.0, np.float64),
                arrays[0].pointer, m, arrays[1].pointer, m, batch) == SUCCESS, recent_error()
    for a, b, d in zip(mats, rhs, db):
        close(np.triu(a).T @ read_matrix(d, m, n), b, "D")


def test_sgemm_ex_and_cgemm_ex_take_their_storage_types(handle):
    a, b = random((3, 4), "S", 95).astype(np.float16), random((4, 2), "S", 96).astype(np.float16)
    da, db, dc = matrix(a, np.float16), matrix(b, np.float16), matrix(np.zeros((3, 2)), np.float32)
    assert call("mcblasSgemmEx", handle, OP_N, OP_N, 3, 2, 4, host(1.0, np.float32), da.pointer, R16F, 3, db.pointer,
                R16F, 4, host(0.0, np.float32), dc.pointer, R32F, 3) == SUCCESS, recent_error()
    close(read_matrix(dc, 3, 2), a.astype(np.float64) @ b.astype(np.float64), "S")
    assert call("mcblasCgemmEx", handle, OP_N, OP_N, 3, 2, 4, host(1.0, np.complex64), da.pointer, R16F, 3,
                db.pointer, R16F, 4, host(0.0, np.complex64), dc.pointer, R32F, 3) == NOT_SUPPORTED
    za, zb = random((2, 2), "C", 97), random((2, 2), "C", 98)
    dza, dzb, dzc = matrix(za, np.complex64), matrix(zb, np.complex64), matrix(np.zeros((2, 2)), np.complex64)
    assert call("mcblasCgemmEx", handle, OP_N, OP_N, 2, 2, 2, host(1.0, np.complex64), dza.pointer, C32F, 2,
                dzb.pointer, C32F, 2, host(0.0, np.complex64), dzc.pointer, C32F, 2) == SUCCESS
    close(read_matrix(dzc, 2, 2), za @ zb, "C")
