"""The MACA runtime and mcDNN C ABI seen from a test, through ctypes on the installed libmcdnn.so.

As tests/acl.py: loading the library into the pytest process makes the embedded entry points reuse
this interpreter, so numerics go through the real C entry points, descriptors, device memory and
the handle's stream at in-process speed."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

import conftest

_lib = None
c_void_p, c_int, c_double, c_float, c_size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_float, ctypes.c_size_t

FLOAT, DOUBLE, HALF, INT8, INT32, INT8x4, UINT8, UINT8x4, INT8x32, BFLOAT16, INT64, BOOLEAN = range(12)
SUCCESS, NOT_INITIALIZED, ALLOC_FAILED, BAD_PARAM, INTERNAL_ERROR = 0, 1, 2, 3, 4
EXECUTION_FAILED, NOT_SUPPORTED = 8, 9
NUMPY = {FLOAT: np.float32, DOUBLE: np.float64, HALF: np.float16, BFLOAT16: ml_dtypes.bfloat16, INT8: np.int8,
         INT32: np.int32, INT64: np.int64, UINT8: np.uint8}
CODE = {np.dtype(v): k for k, v in NUMPY.items()}
FLOAT_TYPES = [FLOAT, DOUBLE, HALF, BFLOAT16]


def lib():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(str(conftest.toolkit() / "lib" / "libmcdnn.so"), mode=ctypes.RTLD_GLOBAL)
        _lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        for name in ("mcGetErrorString", "mcGetErrorName", "mcdnnGetErrorString"):
            getattr(_lib, name).restype = ctypes.c_char_p
        for name in ("mcdnnGetVersion", "mcdnnGetCudartVersion"):
            getattr(_lib, name).restype = ctypes.c_size_t
        _lib.mcMemcpy.argtypes = [c_void_p, c_void_p, c_size_t, c_int]
        _lib.mcMalloc.argtypes = [ctypes.POINTER(c_void_p), c_size_t]
        _lib.mcFree.argtypes = [c_void_p]
        _lib.mcdnnSetActivationDescriptor.argtypes = [c_void_p, c_int, c_int, c_double]
        _lib.mcdnnSetActivationDescriptorSwishBeta.argtypes = [c_void_p, c_double]
        _lib.mcdnnSetLRNDescriptor.argtypes = [c_void_p, ctypes.c_uint, c_double, c_double, c_double]
    return _lib


def recent_error():
    message = lib().aclGetRecentErrMsg()
    return message.decode() if message else None


def call(name, *args):
    """Calls an entry point with every argument passed as a pointer-sized value or a ctypes object."""
    fn = getattr(lib(), name)
    return fn(*[c_void_p(a) if isinstance(a, int) or a is None else a for a in args])


def ints(values):
    return (c_int * max(len(values), 1))(*values)


def packed_strides(dims):
    strides, s = [], 1
    for d in reversed(dims):
        strides.insert(0, s)
        s *= d
    return strides


def nhwc_strides(dims):
    """Channels innermost, then the spatial dims, then the batch."""
    strides = [0] * len(dims)
    s = 1
    strides[1] = 1
    s = dims[1]
    for i in range(len(dims) - 1, 1, -1):
        strides[i] = s
        s *= dims[i]
    strides[0] = s
    return strides


class Desc:
    """A tensor descriptor (dims, element strides) for data type `code`."""

    def __init__(self, code, dims, strides=None):
        self.code, self.dims = code, tuple(dims)
        self.strides = tuple(strides) if strides is not None else tuple(packed_strides(dims))
        self.handle = c_void_p()
        assert lib().mcdnnCreateTensorDescriptor(ctypes.byref(self.handle)) == 0
        assert lib().mcdnnSetTensorNdDescriptor(self.handle, code, len(dims), ints(self.dims), ints(self.strides)) == 0, \
            recent_error()

    @property
    def span(self):
        return sum((d - 1) * s for d, s in zip(self.dims, self.strides)) + 1

    def destroy(self):
        if self.handle is not None:
            lib().mcdnnDestroyTensorDescriptor(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:  # interpreter shutdown
            pass


class DeviceTensor:
    """Device memory holding a strided tensor: `array` (logical values) placed at `desc`'s strides;
    elements outside the view are filled with `fill` so stray writes show."""

    def __init__(self, desc, array=None, fill=np.nan, extra=0):
        self.desc = desc
        self.dtype = np.dtype(NUMPY[desc.code])
        self.size = desc.span + extra
        storage = np.full(self.size, fill, np.float64).astype(self.dtype) if self.dtype.kind == "f" or \
            self.dtype == ml_dtypes.bfloat16 else np.zeros(self.size, self.dtype)
        if array is not None:
            self.view(storage)[...] = np.asarray(array).astype(self.dtype)
        self.address = c_void_p()
        assert lib().mcMalloc(ctypes.byref(self.address), storage.nbytes) == 0
        assert lib().mcMemcpy(self.address, storage.ctypes.data, storage.nbytes, 1) == 0

    def view(self, storage):
        item = storage.itemsize
        return np.lib.stride_tricks.as_strided(storage, self.desc.dims, [s * item for s in self.desc.strides])

    def storage(self):
        host = np.empty(self.size, self.dtype)
        assert lib().mcMemcpy(host.ctypes.data, self.address, host.nbytes, 2) == 0
        return host

    def read(self):
        return np.array(self.view(self.storage()))

    def free(self):
        if self.address is not None:
            lib().mcFree(self.address)
            self.address = None

    def __del__(self):  # tests leave no device memory behind for later tests to stumble on
        try:
            self.free()
        except Exception:  # interpreter shutdown
            pass


def scale(value, code):
    """A host scaling factor as mcDNN reads it: double for DOUBLE data, float otherwise."""
    return ctypes.byref(c_double(value) if code == DOUBLE else c_float(value))


class Handle:
    def __init__(self):
        self.handle = c_void_p()
        assert lib().mcdnnCreate(ctypes.byref(self.handle)) == 0, recent_error()

    def destroy(self):
        lib().mcdnnDestroy(self.handle)


def tolerance(code):
    return {FLOAT: 1e-5, DOUBLE: 1e-12, HALF: 2e-3, BFLOAT16: 1.6e-2}[code]


def to_float(array):
    return np.asarray(array).astype(np.float64)


@pytest.fixture(scope="module")
def handle():
    """An mcDNN handle for a test module (its raw pointer)."""
    h = Handle()
    yield h.handle
    h.destroy()


def layout_strides(layout, dims):
    """Strides of an NCHW, NHWC or padded (rows longer by 3 elements, a spare channel) tensor of `dims`."""
    if layout == "nchw":
        return packed_strides(dims)
    if layout == "nhwc":
        return nhwc_strides(dims)
    padded = list(dims)
    padded[-1] += 3          # rows padded by 3 elements
    padded[1] += 1           # and a spare channel
    return packed_strides(padded)


def rounded(values, code):
    """The values as the device holds them (rounded to the type), as float64."""
    return np.asarray(values).astype(NUMPY[code]).astype(np.float64)


def flat_device(values, code):
    """Device memory holding values flat, as a 1 x 1 x count tensor of data type `code`."""
    flat = np.asarray(values).reshape(1, 1, -1)
    return DeviceTensor(Desc(code, list(flat.shape)), flat)


def blank(count, code):
    """count zeros of data type `code` (at least one element) on the device."""
    return DeviceTensor(Desc(code, [1, 1, max(count, 1)]), np.zeros((1, 1, max(count, 1))))
