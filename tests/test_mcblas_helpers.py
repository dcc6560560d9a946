"""mcBLAS helper functions: handle life, stream, pointer/math/atomics modes, workspace, versions,
status strings, the vector/matrix copies (sync and on a stream) and their statuses, and an
unimplemented function's not-supported answer."""
import ctypes

import numpy as np
import pytest

from blas import (INVALID_VALUE, MAPPING_ERROR, NOT_INITIALIZED, NOT_SUPPORTED, SUCCESS, Buffer, Handle, c_int,
                  c_void_p, call, host_ref, lib, recent_error)
from conftest import opemu_only

pytestmark = [opemu_only]


@pytest.fixture
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def get_int(name, handle):
    value = c_int(-99)
    assert call(name, handle, ctypes.byref(value)) == SUCCESS
    return value.value


def test_create_with_null_is_invalid_value():
    assert lib().mcblasCreate(None) == INVALID_VALUE


def test_destroyed_or_foreign_handles_are_not_initialized():
    h = Handle()
    h.destroy()
    mode = c_int()
    for dead in (h.handle, c_void_p(0x1234), None):
        assert call("mcblasGetPointerMode", dead, ctypes.byref(mode)) == NOT_INITIALIZED
        assert call("mcblasSetStream", dead, None) == NOT_INITIALIZED
        assert call("mcblasDestroy", dead) == NOT_INITIALIZED
    assert "not a live mcblasHandle_t" in recent_error()


@pytest.mark.parametrize("name,default,valid,invalid", [
    ("PointerMode", 0, [1, 0], [2, -1]), ("AtomicsMode", 0, [1, 0], [2]),
    ("MathMode", 0, [1, 2, 3, 16, 3 | 16, 0], [4, 8, 17 | 4]), ("SmCountTarget", 0, [16, 0], [-1])])
def test_modes_read_back_what_was_set_and_reject_unknown_values(handle, name, default, valid, invalid):
    assert get_int("mcblasGet" + name, handle) == default
    for value in valid:
        assert call("mcblasSet" + name, handle, value) == SUCCESS
        assert get_int("mcblasGet" + name, handle) == value
    for value in invalid:
        assert call("mcblasSet" + name, handle, value) == INVALID_VALUE
    assert call("mcblasGet" + name, handle, None) == INVALID_VALUE


def test_stream_set_get_and_a_dead_stream_is_invalid(handle):
    stream = c_void_p()
    assert lib().mcStreamCreate(ctypes.byref(stream)) == 0
    assert call("mcblasSetStream", handle, stream) == SUCCESS
    got = c_void_p()
    assert call("mcblasGetStream", handle, ctypes.byref(got)) == SUCCESS and got.value == stream.value
    assert lib().mcStreamDestroy(stream) == 0
    assert call("mcblasSetStream", handle, stream) == INVALID_VALUE
    assert call("mcblasGetStream", handle, None) == INVALID_VALUE


def test_a_routine_on_a_destroyed_stream_fails_instead_of_running(handle):
    stream = c_void_p()
    assert lib().mcStreamCreate(ctypes.byref(stream)) == 0
    assert call("mcblasSetStream", handle, stream) == SUCCESS
    assert lib().mcStreamDestroy(stream) == 0
    x = Buffer(4, np.float32, fill=1)
    alpha = np.ones(1, np.float32)
    assert call("mcblasSscal", handle, 4, host_ref(alpha), x.pointer, 1) == INVALID_VALUE
    assert "stream" in recent_error()


def test_workspace_must_be_aligned_device_memory(handle):
    workspace = Buffer(1 << 12, np.uint8, fill=0)
    assert call("mcblasSetWorkspace", handle, workspace.pointer, ctypes.c_size_t(4096)) == SUCCESS
    assert call("mcblasSetWorkspace", handle, workspace.offset(8), ctypes.c_size_t(256)) == INVALID_VALUE
    assert call("mcblasSetWorkspace", handle, workspace.pointer, ctypes.c_size_t(1 << 20)) == INVALID_VALUE
    assert call("mcblasSetWorkspace", handle, None, ctypes.c_size_t(0)) == SUCCESS


def test_version_property_and_cudart_version():
    version = c_int()
    assert call("mcblasGetVersion", None, ctypes.byref(version)) == SUCCESS
    parts = []
    for kind in range(3):
        value = c_int()
        assert call("mcblasGetProperty", kind, ctypes.byref(value)) == SUCCESS
        parts.append(value.value)
    assert version.value == parts[0] * 10000 + parts[1] * 100 + parts[2]
    assert call("mcblasGetProperty", 3, ctypes.byref(version)) == INVALID_VALUE
    assert call("mcblasGetVersion", None, None) == INVALID_VALUE
    assert lib().mcblasGetCudartVersion() > 0


def test_status_names_and_strings():
    assert lib().mcblasGetStatusName(7) == b"MCBLAS_STATUS_INVALID_VALUE"
    assert lib().mcblasGetStatusName(15) == b"MCBLAS_STATUS_NOT_SUPPORTED"
    assert lib().mcblasGetStatusString(1) == b"the library was not initialized"
    assert lib().mcblasGetStatusName(999) == b"MCBLAS_STATUS_UNKNOWN"


def test_set_and_get_matrix_copy_a_padded_tile():
    rows, cols, lda, ldb = 3, 4, 5, 7
    host = np.arange(lda * cols, dtype=np.float64)
    device = Buffer(ldb * cols, np.float64, fill=-1)
    assert call("mcblasSetMatrix", rows, cols, 8, host_ref(host), lda, device.pointer, ldb) == SUCCESS
    stored = device.read().reshape(cols, ldb)
    np.testing.assert_array_equal(stored[:, :rows], host.reshape(cols, lda)[:, :rows])
    assert (stored[:, rows:] == -1).all()
    back = np.zeros(lda * cols)
    assert call("mcblasGetMatrix", rows, cols, 8, device.pointer, ldb, host_ref(back), lda) == SUCCESS
    np.testing.assert_array_equal(back.reshape(cols, lda)[:, :rows], host.reshape(cols, lda)[:, :rows])


def test_set_and_get_vector_with_increments_and_odd_element_sizes():
    n, size = 5, 3  # 3-byte elements: the copies move bytes, whatever the type
    host = np.arange(n * size * 2, dtype=np.uint8)
    device = Buffer(n * size * 3, np.uint8, fill=0)
    assert call("mcblasSetVector", n, size, host_ref(host), 2, device.pointer, 3) == SUCCESS
    stored = device.read().reshape(n * 3, size)[::3]
    np.testing.assert_array_equal(stored, host.reshape(n * 2, size)[::2])
    back = np.zeros(n * size, np.uint8)
    assert call("mcblasGetVector", n, size, device.pointer, 3, host_ref(back), 1) == SUCCESS
    np.testing.assert_array_equal(back.reshape(n, size), host.reshape(n * 2, size)[::2])


def test_async_copies_run_in_stream_order():
    stream = c_void_p()
    assert lib().mcStreamCreate(ctypes.byref(stream)) == 0
    host = np.arange(8, dtype=np.float32)
    device = Buffer(8, np.float32, fill=0)
    back = np.zeros(8, np.float32)
    assert call("mcblasSetVectorAsync", 8, 4, host_ref(host), 1, device.pointer, 1, stream) == SUCCESS
    assert call("mcblasGetVectorAsync", 8, 4, device.pointer, 1, host_ref(back), 1, stream) == SUCCESS
    assert call("mcblasSetMatrixAsync", 2, 2, 4, host_ref(host), 2, device.pointer, 2, stream) == SUCCESS
    assert lib().mcStreamSynchronize(stream) == 0
    np.testing.assert_array_equal(back, host)
    assert lib().mcStreamDestroy(stream) == 0


@pytest.mark.parametrize("args", [(4, 0, 1, 1), (4, 4, 0, 1), (4, 4, 1, -1), (-1, 4, 1, 1)])
def test_vector_copies_reject_bad_sizes(args):
    n, size, incx, incy = args
    host, device = np.zeros(16, np.float32), Buffer(16, np.float32)
    assert call("mcblasSetVector", n, size, host_ref(host), incx, device.pointer, incy) == INVALID_VALUE


@pytest.mark.parametrize("args", [(-1, 2, 4, 2, 2), (2, 2, 0, 2, 2), (3, 2, 4, 2, 3), (3, 2, 4, 3, 2)])
def test_matrix_copies_reject_bad_sizes_and_leading_dimensions(args):
    rows, cols, size, lda, ldb = args
    host, device = np.zeros(16, np.float32), Buffer(16, np.float32)
    assert call("mcblasGetMatrix", rows, cols, size, device.pointer, lda, host_ref(host), ldb) == INVALID_VALUE


def test_copies_to_memory_that_is_not_device_memory_are_mapping_errors():
    host, other = np.zeros(1 << 16, np.float32), np.zeros(16, np.float32)
    assert call("mcblasSetVector", 16, 4, host_ref(host), 1, host_ref(other), 1) == MAPPING_ERROR
    device = Buffer(4, np.float32)  # a 4 x 4096 tile reaches past its allocation's mapping
    assert call("mcblasSetMatrix", 4, 4096, 4, host_ref(host), 4, device.pointer, 4) == MAPPING_ERROR
    assert "device allocation" in recent_error()


@pytest.mark.parametrize("name", ["mcblasSetMatrix", "mcblasGetMatrix", "mcblasSetVector", "mcblasGetVector"])
def test_a_device_side_past_2_to_64_bytes_is_a_mapping_error(name):
    """Found by the fuzz suite: 16 columns 2^31-1 elements of 2^31-1 bytes apart overflowed the range
    check's 64-bit size (an internal error)."""
    host, device = np.zeros(16, np.float32), Buffer(16, np.float32)
    big = 2 ** 31 - 1
    if name.endswith("Matrix"):
        args = (1, 16, big, device.pointer, 1, host_ref(host), 1) if name.startswith("mcblasGet") else \
            (1, 16, big, host_ref(host), 1, device.pointer, big)
    else:
        args = (16, big, device.pointer, big, host_ref(host), 1) if name.startswith("mcblasGet") else \
            (16, big, host_ref(host), 1, device.pointer, big)
    assert call(name, *args) == MAPPING_ERROR
    assert "device allocation" in recent_error()


def test_an_unimplemented_function_is_not_supported_with_its_name(handle):
    out = np.zeros(8, np.float32)
    assert call("mcblasSrotmg", handle, host_ref(out), host_ref(out), host_ref(out), host_ref(out),
                host_ref(out)) == NOT_SUPPORTED
    assert "mcblasSrotmg" in recent_error()


@pytest.fixture(scope="module")
def check_probe(build_dir):
    from test_mcblas_sample import build
    from conftest import ROOT
    return build(ROOT / "tests" / "c" / "mcblas_check_probe.cpp", build_dir / "mcblas_check_probe")


@pytest.mark.parametrize("kind", ["clean", "uninitialized-read", "out-of-bounds", "unsynchronized-read"])
def test_opemu_check_sees_what_mcblas_kernels_read_and_write(check_probe, kind):
    from test_check import opemu_check
    result = opemu_check(check_probe, kind)
    findings = {line.split("]")[0][len("opemu check: ["):] for line in result.stderr.splitlines()
                if line.startswith("opemu check: [")}
    assert findings == (set() if kind == "clean" else {kind}), result.stderr
    assert (result.returncode == 0) == (kind == "clean")


@pytest.fixture
def deferred(monkeypatch):
    """Streams that run their work at synchronisation, as a device would, not at the call."""
    monkeypatch.setenv("OPEMU_STREAM", "deferred")


def test_deferred_work_runs_in_stream_order_and_a_host_result_waits_for_it(handle, deferred):
    stream = c_void_p()
    assert lib().mcStreamCreate(ctypes.byref(stream)) == 0
    assert call("mcblasSetStream", handle, stream) == SUCCESS
    x = Buffer(4, np.float32, fill=1)
    three, total = np.full(1, 3, np.float32), np.zeros(1, np.float32)
    assert call("mcblasSscal", handle, 4, host_ref(three), x.pointer, 1) == SUCCESS
    assert call("mcblasSasum", handle, 4, x.pointer, 1, host_ref(total)) == SUCCESS
    assert total[0] == 12  # the scal ran first, and the call returned once the sum was stored
    assert lib().mcStreamDestroy(stream) == 0


def test_a_deferred_fault_surfaces_at_synchronisation(handle, deferred):
    stream = c_void_p()
    assert lib().mcStreamCreate(ctypes.byref(stream)) == 0
    assert call("mcblasSetStream", handle, stream) == SUCCESS
    d = Buffer(16, np.float32, fill=0)
    one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
    assert call("mcblasSgemm", handle, 0, 0, 4, 4096, 4, host_ref(one), d.pointer, 4, d.pointer, 4, host_ref(zero),
                d.pointer, 4) == SUCCESS  # queued: nothing has touched memory yet
    assert lib().mcStreamSynchronize(stream) == 700  # mcErrorIllegalAddress
    assert "illegal memory access" in recent_error()
    assert lib().mcStreamDestroy(stream) == 0
