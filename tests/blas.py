"""The mcBLAS C ABI seen from a test, through ctypes on the installed libmcblas.so (in-process, as
tests/mc.py does for mcDNN): device buffers holding column-major matrices and strided vectors, typed
scalars, and the status codes. References are float64 / complex128 NumPy, written here apart from
the routines."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

import conftest

c_void_p, c_int, c_longlong = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong
SUCCESS, NOT_INITIALIZED, ALLOC_FAILED, INVALID_VALUE = 0, 1, 3, 7
MAPPING_ERROR, EXECUTION_FAILED, INTERNAL_ERROR, NOT_SUPPORTED = 11, 13, 14, 15
OP_N, OP_T, OP_C = 0, 1, 2
LOWER, UPPER = 0, 1
NON_UNIT, UNIT = 0, 1
LEFT, RIGHT = 0, 1
HOST, DEVICE = 0, 1
TYPES = {"S": np.dtype(np.float32), "D": np.dtype(np.float64), "C": np.dtype(np.complex64),
         "Z": np.dtype(np.complex128), "H": np.dtype(np.float16), "B": np.dtype(ml_dtypes.bfloat16)}
# relative tolerance of each precision's result (fp16: one rounding of the output, fp32 accumulation)
RTOL = {"S": 2e-5, "D": 1e-12, "C": 2e-5, "Z": 1e-12, "H": 2e-3, "B": 1.6e-2}

_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(str(conftest.toolkit() / "lib" / "libmcblas.so"), mode=ctypes.RTLD_GLOBAL)
        runtime = ctypes.CDLL(str(conftest.toolkit() / "lib" / "libmcruntime.so"), mode=ctypes.RTLD_GLOBAL)
        core = ctypes.CDLL(str(conftest.toolkit() / "lib64" / "libopemu.so"), mode=ctypes.RTLD_GLOBAL)
        _lib.aclGetRecentErrMsg = core.aclGetRecentErrMsg  # every family's recorded message
        _lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        for name in ("mcblasGetStatusName", "mcblasGetStatusString"):
            getattr(_lib, name).restype = ctypes.c_char_p
        _lib.mcblasGetCudartVersion.restype = ctypes.c_size_t
        for name in ("mcMalloc", "mcFree", "mcMemcpy", "mcStreamCreate", "mcStreamDestroy", "mcStreamSynchronize",
                     "mcDeviceSynchronize"):
            setattr(_lib, name, getattr(runtime, name))
        _lib.mcMemcpy.argtypes = [c_void_p, c_void_p, ctypes.c_size_t, c_int]
        _lib.mcMalloc.argtypes = [ctypes.POINTER(c_void_p), ctypes.c_size_t]
        _lib.mcFree.argtypes = [c_void_p]
    return _lib


def recent_error():
    message = lib().aclGetRecentErrMsg()
    return message.decode() if message else ""


def call(name, *args):
    """Calls an mcBLAS entry point: Python ints are C ints, None is NULL, the rest ctypes objects."""
    converted = [c_int(a) if isinstance(a, int) else c_void_p() if a is None else a for a in args]
    return getattr(lib(), name)(*converted)


def ptr(value):
    """A pointer-sized argument (a device address as a Python int)."""
    return c_void_p(value)


class Buffer:
    """Device memory of `count` elements of `dtype`, filled with `fill` (NaN shows stray writes)."""

    def __init__(self, count, dtype, fill=np.nan, values=None):
        self.dtype = np.dtype(dtype)
        self.count = max(int(count), 1)
        floating = self.dtype.kind in "fc" or self.dtype == TYPES["B"]
        host = np.full(self.count, fill if floating else 0).astype(self.dtype)
        if values is not None:
            host[:len(values)] = values
        self.address = c_void_p()
        assert lib().mcMalloc(ctypes.byref(self.address), host.nbytes) == 0
        self.write(host)

    @property
    def pointer(self):
        return self.address

    def offset(self, elements):
        return c_void_p(self.address.value + elements * self.dtype.itemsize)

    def write(self, host):
        host = np.ascontiguousarray(host, self.dtype)
        assert lib().mcMemcpy(self.address, host.ctypes.data, host.nbytes, 1) == 0

    def read(self):
        host = np.empty(self.count, self.dtype)
        assert lib().mcMemcpy(host.ctypes.data, self.address, host.nbytes, 2) == 0
        return host

    def __del__(self):
        try:
            lib().mcFree(self.address)
        except Exception:  # interpreter shutdown
            pass


def matrix(values, dtype, ld=None, fill=np.nan):
    """A column-major matrix on the device with leading dimension ld (rows padded with `fill`)."""
    values = np.asarray(values)
    rows, cols = values.shape
    ld = ld or max(rows, 1)
    storage = np.full((max(cols, 1), ld), fill, np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    storage[:cols, :rows] = values.T
    return Buffer(storage.size, dtype, values=storage.ravel().astype(dtype))


def read_matrix(buffer, rows, cols, ld=None):
    ld = ld or max(rows, 1)
    return buffer.read()[:cols * ld].reshape(cols, ld)[:, :rows].T


def vector(values, dtype, inc=1, fill=np.nan):
    """A strided vector on the device (BLAS layout: a negative inc stores element 0 last)."""
    values = np.asarray(values)
    n, step = len(values), abs(inc)
    storage = np.full(max((n - 1) * step + 1, 1), fill, np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    positions = np.arange(n) * step if inc > 0 else (n - 1 - np.arange(n)) * step
    storage[positions] = values
    return Buffer(storage.size, dtype, values=storage.astype(dtype))


def read_vector(buffer, n, inc=1):
    storage = buffer.read()
    step = abs(inc)
    positions = np.arange(n) * step if inc > 0 else (n - 1 - np.arange(n)) * step
    return storage[positions]


def scalar(value, dtype):
    """A host scalar of `dtype` (its bytes, passed by reference)."""
    return np.array([value], dtype)


def host_ref(array):
    return c_void_p(array.ctypes.data)


_KEPT = []


def host_scalar(value, letter):
    """A pointer to a host scalar of the letter's type, kept alive for the module's calls."""
    _KEPT.append(scalar(value, TYPES[letter]))
    return host_ref(_KEPT[-1])


def random(shape, letter, seed):
    rng = np.random.default_rng(seed)
    values = rng.uniform(-1, 1, shape)
    if TYPES[letter].kind == "c":
        values = values + 1j * rng.uniform(-1, 1, shape)
    return values.astype(TYPES[letter]).astype(np.complex128 if TYPES[letter].kind == "c" else np.float64)


def close(actual, expected, letter, scale=1.0):
    np.testing.assert_allclose(np.asarray(actual).astype(np.complex128), np.asarray(expected).astype(np.complex128),
                               rtol=RTOL[letter], atol=RTOL[letter] * scale)


class Handle:
    def __init__(self):
        self.handle = c_void_p()
        assert lib().mcblasCreate(ctypes.byref(self.handle)) == 0, recent_error()

    def pointer_mode(self, mode):
        assert call("mcblasSetPointerMode", self.handle, mode) == SUCCESS

    def destroy(self):
        assert lib().mcblasDestroy(self.handle) == 0


@pytest.fixture(scope="module")
def handle():
    """A live handle for a test module (its raw pointer)."""
    h = Handle()
    yield h.handle
    h.destroy()


# ---- float64 references of the operands' forms ----

def op(a, trans):
    return a if trans == OP_N else (a.T if trans == OP_T else a.conj().T)


def triangle(a, uplo, diag):
    """The triangle stored in a's uplo part (unit diagonal: ones)."""
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    if diag == UNIT:
        np.fill_diagonal(tri, 1)
    return tri


def symmetric_from(a, uplo, hermitian):
    """The symmetric (Hermitian) matrix of a's uplo triangle."""
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    strict = tri - np.diag(np.diag(tri))
    full = tri + (strict.conj().T if hermitian else strict.T)
    if hermitian:
        np.fill_diagonal(full, np.diag(full).real)
    return full
