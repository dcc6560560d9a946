"""mcBLAS level 1 against float64 references: every routine and precision, positive and negative
increments, host and device pointer modes (scalars and results), cuBLAS's quick returns, and the Ex
forms' storage and execution types."""
import ctypes

import numpy as np
import pytest

from blas import (DEVICE, HOST, INVALID_VALUE, NOT_INITIALIZED, NOT_SUPPORTED, SUCCESS, TYPES, Buffer, Handle, call,
                  close, host_ref, random, read_vector, recent_error, scalar, vector)
from conftest import opemu_only

pytestmark = [opemu_only]
REAL = {"S": "S", "D": "D", "C": "S", "Z": "D"}


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h
    h.destroy()


@pytest.fixture(params=[HOST, DEVICE], ids=["host-scalars", "device-scalars"])
def mode(request, handle):
    handle.pointer_mode(request.param)
    yield request.param
    handle.pointer_mode(HOST)


def scalar_arg(value, letter, mode, keep):
    """alpha/beta/c/s as the pointer mode wants it: host bytes or a device buffer."""
    if mode == HOST:
        host = scalar(value, TYPES[letter])
        keep.append(host)
        return host_ref(host)
    buffer = Buffer(1, TYPES[letter], values=[value])
    keep.append(buffer)
    return buffer.pointer


def result_arg(letter, mode, keep):
    """Where a reduction stores: returns (argument, read-back function)."""
    return result_arg_of(np.dtype(np.int32) if letter == "I" else TYPES[letter], 7, mode, keep)


LETTERS = ["S", "D", "C", "Z"]
INCREMENTS = [(1, 1), (2, -3), (-1, 2)]


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("incx,incy", INCREMENTS)
def test_axpy_adds_alpha_x_to_y(handle, mode, letter, incx, incy):
    n, keep = 37, []
    x, y = random(n, letter, 1), random(n, letter, 2)
    alpha = 0.75 - (0.5j if TYPES[letter].kind == "c" else 0)
    dx, dy = vector(x, TYPES[letter], incx), vector(y, TYPES[letter], incy)
    status = call("mcblas%saxpy" % letter, handle.handle, n, scalar_arg(alpha, letter, mode, keep), dx.pointer, incx,
                  dy.pointer, incy)
    assert status == SUCCESS, recent_error()
    close(read_vector(dy, n, incy), alpha * x + y, letter)
    close(read_vector(dx, n, incx), x, letter)


@pytest.mark.parametrize("name,letter,alpha_letter", [("Sscal", "S", "S"), ("Dscal", "D", "D"), ("Cscal", "C", "C"),
                                                      ("Zscal", "Z", "Z"), ("Csscal", "C", "S"), ("Zdscal", "Z", "D")])
def test_scal_scales_x(handle, mode, name, letter, alpha_letter):
    n, keep = 20, []
    x = random(n, letter, 3)
    alpha = 1.5 + (0.25j if TYPES[alpha_letter].kind == "c" else 0)
    dx = vector(x, TYPES[letter], 3)
    assert call("mcblas" + name, handle.handle, n, scalar_arg(alpha, alpha_letter, mode, keep), dx.pointer, 3) == 0
    close(read_vector(dx, n, 3), alpha * x, letter)


@pytest.mark.parametrize("letter", LETTERS)
def test_copy_and_swap_move_strided_elements(handle, letter):
    n = 11
    x, y = random(n, letter, 4), random(n, letter, 5)
    dx, dy = vector(x, TYPES[letter], 2), vector(y, TYPES[letter], -1)
    assert call("mcblas%sswap" % letter, handle.handle, n, dx.pointer, 2, dy.pointer, -1) == 0
    close(read_vector(dx, n, 2), y, letter)
    close(read_vector(dy, n, -1), x, letter)
    assert call("mcblas%scopy" % letter, handle.handle, n, dx.pointer, 2, dy.pointer, -1) == 0
    close(read_vector(dy, n, -1), y, letter)


@pytest.mark.parametrize("name,letter,conjugate", [("Sdot", "S", False), ("Ddot", "D", False), ("Cdotu", "C", False),
                                                   ("Cdotc", "C", True), ("Zdotu", "Z", False), ("Zdotc", "Z", True)])
def test_dot_products(handle, mode, name, letter, conjugate):
    n, keep = 64, []
    x, y = random(n, letter, 6), random(n, letter, 7)
    dx, dy = vector(x, TYPES[letter], 1), vector(y, TYPES[letter], -2)
    result, value = result_arg(letter, mode, keep)
    assert call("mcblas" + name, handle.handle, n, dx.pointer, 1, dy.pointer, -2, result) == 0, recent_error()
    expected = np.sum((np.conj(x) if conjugate else x) * y)
    close(value(), expected, letter, scale=n)


@pytest.mark.parametrize("name,letter", [("Snrm2", "S"), ("Dnrm2", "D"), ("Scnrm2", "C"), ("Dznrm2", "Z")])
def test_nrm2_is_the_euclidean_norm(handle, mode, name, letter):
    n, keep = 50, []
    x = random(n, letter, 8) * 1e3
    dx = vector(x, TYPES[letter], 2)
    result, value = result_arg(REAL[letter], mode, keep)
    assert call("mcblas" + name, handle.handle, n, dx.pointer, 2, result) == 0
    close(value(), np.sqrt(np.sum(np.abs(x) ** 2)), REAL[letter])


@pytest.mark.parametrize("name,letter", [("Sasum", "S"), ("Dasum", "D"), ("Scasum", "C"), ("Dzasum", "Z")])
def test_asum_sums_abs_real_plus_abs_imag(handle, mode, name, letter):
    n, keep = 50, []
    x = random(n, letter, 9)
    dx = vector(x, TYPES[letter], 1)
    result, value = result_arg(REAL[letter], mode, keep)
    assert call("mcblas" + name, handle.handle, n, dx.pointer, 1, result) == 0
    close(value(), np.sum(np.abs(x.real) + np.abs(x.imag)), REAL[letter], scale=n)


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("which", ["amax", "amin"])
def test_iamax_iamin_are_one_based_first_extremes(handle, mode, letter, which):
    n, keep = 30, []
    x = random(n, letter, 10)
    magnitude = np.abs(x.real) + np.abs(x.imag)
    pick = np.argmax if which == "amax" else np.argmin
    x[pick(magnitude) + 5 if pick(magnitude) + 5 < n else 0] = x[pick(magnitude)]  # a tie: the first one wins
    magnitude = np.abs(x.real) + np.abs(x.imag)
    dx = vector(x, TYPES[letter], 3)
    result, value = result_arg("I", mode, keep)
    assert call("mcblasI%s%s" % (letter.lower(), which), handle.handle, n, dx.pointer, 3, result) == 0
    assert value() == pick(magnitude) + 1


@pytest.mark.parametrize("name,letter,s_letter", [("Srot", "S", "S"), ("Drot", "D", "D"), ("Crot", "C", "C"),
                                                  ("Zrot", "Z", "Z"), ("Csrot", "C", "S"), ("Zdrot", "Z", "D")])
def test_rot_applies_the_plane_rotation(handle, mode, name, letter, s_letter):
    n, keep = 25, []
    x, y = random(n, letter, 11), random(n, letter, 12)
    c = 0.6
    s = 0.8 if TYPES[s_letter].kind != "c" else 0.48 + 0.64j
    dx, dy = vector(x, TYPES[letter], 1), vector(y, TYPES[letter], 2)
    cos, sin = scalar_arg(c, REAL[letter], mode, keep), scalar_arg(s, s_letter, mode, keep)
    assert call("mcblas" + name, handle.handle, n, dx.pointer, 1, dy.pointer, 2, cos, sin) == 0
    close(read_vector(dx, n, 1), c * x + s * y, letter)
    close(read_vector(dy, n, 2), c * y - np.conj(s) * x, letter)


def test_reductions_store_zero_for_n_or_incx_not_positive(handle):
    dx = vector(np.ones(4), TYPES["S"], 1)
    for name, n, inc in (("Snrm2", 0, 1), ("Sasum", 4, 0), ("Sasum", 4, -1), ("Sdot", -3, 1)):
        out = np.full(1, 7, np.float32)
        args = (dx.pointer, inc, dx.pointer, inc) if name == "Sdot" else (dx.pointer, inc)
        assert call("mcblas" + name, handle.handle, n, *args, host_ref(out)) == 0
        assert out[0] == 0
    index = np.full(1, 7, np.int32)
    assert call("mcblasIsamax", handle.handle, 4, dx.pointer, 0, host_ref(index)) == 0 and index[0] == 0


def test_scal_with_incx_not_positive_leaves_x_alone(handle):
    dx = vector(np.arange(4.0), TYPES["S"], 1)
    alpha = scalar(3.0, np.float32)
    assert call("mcblasSscal", handle.handle, 4, host_ref(alpha), dx.pointer, -1) == 0
    np.testing.assert_array_equal(dx.read(), np.arange(4.0))


def test_axpy_with_null_alpha_is_invalid_value(handle):
    dx = vector(np.ones(4), TYPES["S"], 1)
    assert call("mcblasSaxpy", handle.handle, 4, None, dx.pointer, 1, dx.pointer, 1) == INVALID_VALUE
    assert "alpha" in recent_error()


def test_a_destroyed_handle_is_not_initialized():
    h = Handle()
    h.destroy()
    dx = vector(np.ones(4), TYPES["S"], 1)
    out = np.zeros(1, np.float32)
    assert call("mcblasSasum", h.handle, 4, dx.pointer, 1, host_ref(out)) == NOT_INITIALIZED
    assert "mcblasHandle_t" in recent_error()
    assert call("mcblasSasum", ctypes.c_void_p(12345), 4, dx.pointer, 1, host_ref(out)) == NOT_INITIALIZED


# macaDataType codes
R16F, R16BF, R32F, R64F, C32F, C64F = 2, 14, 0, 1, 4, 5


def test_axpy_ex_widens_fp16_to_fp32_and_rounds_y_once(handle):
    n = 40
    x, y = random(n, "S", 20).astype(np.float16), random(n, "S", 21).astype(np.float16)
    dx, dy = vector(x, np.float16), vector(y, np.float16)
    alpha = scalar(0.3, np.float32)
    assert call("mcblasAxpyEx", handle.handle, n, host_ref(alpha), R32F, dx.pointer, R16F, 1, dy.pointer, R16F, 1,
                R32F) == SUCCESS, recent_error()
    expected = (y.astype(np.float32) + np.float32(0.3) * x.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(dy.read()[:n], expected)


@pytest.mark.parametrize("dtype,code", [(np.float16, R16F), (TYPES["B"], R16BF), (np.float64, R64F)])
def test_dot_ex_accumulates_in_the_execution_type(handle, dtype, code):
    n = 30
    x, y = random(n, "S", 22).astype(dtype), random(n, "S", 23).astype(dtype)
    dx, dy = vector(x, dtype), vector(y, dtype)
    out = np.zeros(1, dtype)
    execution = R64F if code == R64F else R32F
    assert call("mcblasDotEx", handle.handle, n, dx.pointer, code, 1, dy.pointer, code, 1, host_ref(out), code,
                execution) == SUCCESS, recent_error()
    exact = np.dot(x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(float(out[0]), exact, rtol=2 ** -7 if code == R16BF else 2 ** -10, atol=1e-3)


def test_nrm2_ex_of_complex_data_is_real_and_scal_ex_scales(handle):
    n = 12
    x = random(n, "Z", 24)
    dx = vector(x, np.complex128)
    out = np.zeros(1, np.float64)
    assert call("mcblasNrm2Ex", handle.handle, n, dx.pointer, C64F, 1, host_ref(out), R64F, R64F) == SUCCESS
    close(out[0], np.linalg.norm(x), "D")
    alpha = scalar(2.0, np.complex128)
    assert call("mcblasScalEx", handle.handle, n, host_ref(alpha), C64F, dx.pointer, C64F, 1, C64F) == SUCCESS
    close(dx.read(), 2 * x, "Z")


def test_copy_swap_and_iamax_ex(handle):
    n = 9
    x, y = random(n, "S", 25).astype(np.float16), random(n, "S", 26).astype(np.float16)
    dx, dy = vector(x, np.float16), vector(y, np.float16, 2)
    assert call("mcblasSwapEx", handle.handle, n, dx.pointer, R16F, 1, dy.pointer, R16F, 2) == SUCCESS
    np.testing.assert_array_equal(dx.read()[:n], y)
    assert call("mcblasCopyEx", handle.handle, n, dx.pointer, R16F, 1, dy.pointer, R16F, 2) == SUCCESS
    np.testing.assert_array_equal(read_vector(dy, n, 2), y)
    index = np.zeros(1, np.int32)
    assert call("mcblasIamaxEx", handle.handle, n, dx.pointer, R16F, 1, host_ref(index)) == SUCCESS
    assert index[0] == np.argmax(np.abs(y)) + 1


@pytest.mark.parametrize("case,types", [("x and y differ", (R32F, R16F, R32F, R32F)),
                                        ("fp16 execution", (R16F, R16F, R16F, R16F)),
                                        ("an unknown type", (R32F, 99, 99, R32F))])
def test_ex_routines_reject_combinations_cublas_does_not_offer(handle, case, types):
    alpha_type, x_type, y_type, execution = types
    d = Buffer(8, np.float32, fill=0)
    alpha = scalar(1.0, np.float32)
    assert call("mcblasAxpyEx", handle.handle, 4, host_ref(alpha), alpha_type, d.pointer, x_type, 1, d.pointer, y_type,
                1, execution) == NOT_SUPPORTED, case
    assert "mcblasAxpyEx" in recent_error()


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("a,b", [(3.0, 4.0), (-5.0, 2.0), (0.0, 0.0), (0.0, 2.0)])
def test_rotg_builds_the_rotation_that_zeroes_b(handle, mode, letter, a, b):
    t, real = TYPES[letter], TYPES[REAL[letter]]
    if t.kind == "c":
        a, b = a * (1 + 0.5j), b * (0.5 - 1j)
    keep = []
    cells = {}
    for name, value, dtype in (("a", a, t), ("b", b, t), ("c", 9, real), ("s", 9, t)):
        pointer, read = result_arg_of(dtype, value, mode, keep)
        cells[name] = (pointer, read)
    assert call("mcblas%srotg" % letter, handle.handle, *(cells[n][0] for n in "abcs")) == SUCCESS, recent_error()
    r, cos, sin = (complex(cells[n][1]()) for n in "acs")
    close(cos * a + sin * b, r, letter, scale=4)      # (a, b) turns into (r, 0)
    close(-np.conj(sin) * a + cos * b, 0, letter, scale=4)
    close(abs(cos) ** 2 + abs(sin) ** 2, 1, letter)
    close(abs(r), np.hypot(abs(a), abs(b)), letter, scale=4)


def result_arg_of(dtype, value, mode, keep):
    """An in-out scalar holding `value`, on the host or the device by the pointer mode."""
    if mode == HOST:
        host = np.full(1, value, dtype)
        keep.append(host)
        return host_ref(host), lambda: host[0]
    buffer = Buffer(1, dtype, values=[value])
    keep.append(buffer)
    return buffer.pointer, lambda: buffer.read()[0]


N_HUGE = 2 ** 31 - 1


def test_zero_increments_are_one_lane_of_axpy_copy_swap_and_rot(handle):
    """With incx = incy = 0 all n lanes read the same two elements and write the same one, each from
    the values before the call: the result of one lane, however large n is (found by the fuzz suite:
    n = 2^31 - 1 took minutes)."""
    keep = []
    x, y = Buffer(1, TYPES["S"], values=[2.0]), Buffer(1, TYPES["S"], values=[10.0])
    assert call("mcblasSaxpy", handle.handle, N_HUGE, scalar_arg(0.5, "S", HOST, keep), x.pointer, 0, y.pointer,
                0) == SUCCESS
    assert y.read()[0] == 11.0
    assert call("mcblasSswap", handle.handle, N_HUGE, x.pointer, 0, y.pointer, 0) == SUCCESS
    assert (x.read()[0], y.read()[0]) == (11.0, 2.0)
    assert call("mcblasSrot", handle.handle, N_HUGE, x.pointer, 0, y.pointer, 0, scalar_arg(0.0, "S", HOST, keep),
                scalar_arg(1.0, "S", HOST, keep)) == SUCCESS
    assert (x.read()[0], y.read()[0]) == (2.0, -11.0)
    assert call("mcblasScopy", handle.handle, N_HUGE, x.pointer, 0, y.pointer, 0) == SUCCESS
    assert y.read()[0] == 2.0


def test_zero_increments_dot_is_n_equal_terms_rounded_once(handle):
    keep = []
    x, y = Buffer(1, TYPES["S"], values=[1.5]), Buffer(1, TYPES["S"], values=[0.1])
    result, value = result_arg("S", HOST, keep)
    assert call("mcblasSdot", handle.handle, N_HUGE, x.pointer, 0, y.pointer, 0, result) == SUCCESS
    assert value() == np.float32(float(np.float32(1.5) * np.float32(0.1)) * N_HUGE)
