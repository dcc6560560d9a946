"""mcBLASLt from a test, through ctypes on the installed libmcblasLt.so: the handle, descriptors built from
Python values, and a matmul call helper. Device buffers and statuses are tests/blas.py's."""
import ctypes

import ml_dtypes
import numpy as np

import conftest
from blas import Buffer, lib as blas_lib

c_void_p, c_int, c_uint64, c_int64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_int64
R_16F, R_32F, R_64F, R_8I, C_32F, C_64F, R_32I, R_16BF = 2, 0, 1, 3, 4, 5, 10, 14
COMPUTE_16F, COMPUTE_32F, COMPUTE_32F_FAST_TF32, COMPUTE_64F, COMPUTE_32I = 64, 68, 77, 70, 72
TYPES = {R_16F: np.dtype(np.float16), R_32F: np.dtype(np.float32), R_64F: np.dtype(np.float64),
         R_16BF: np.dtype(ml_dtypes.bfloat16), R_8I: np.dtype(np.int8), R_32I: np.dtype(np.int32),
         C_32F: np.dtype(np.complex64), C_64F: np.dtype(np.complex128)}
# layout attributes
LAYOUT_TYPE, LAYOUT_ORDER, LAYOUT_ROWS, LAYOUT_COLS, LAYOUT_LD, LAYOUT_BATCH, LAYOUT_STRIDE = range(7)
ORDER_COL, ORDER_ROW, ORDER_COL32, ORDER_COL4_4R2_8C, ORDER_COL32_2R_4R4 = range(5)
# matmul descriptor attributes
DESC_POINTER_MODE, DESC_TRANSA, DESC_TRANSB, DESC_EPILOGUE, DESC_BIAS = 2, 3, 4, 7, 8
DESC_AUX, DESC_AUX_LD, DESC_AUX_BATCH_STRIDE, DESC_BIAS_BATCH_STRIDE = 11, 12, 13, 10
EPI = {"DEFAULT": 1, "RELU": 2, "RELU_AUX": 130, "BIAS": 4, "RELU_BIAS": 6, "RELU_AUX_BIAS": 134, "DRELU": 136,
       "DRELU_BGRAD": 152, "GELU": 32, "GELU_AUX": 160, "GELU_BIAS": 36, "GELU_AUX_BIAS": 164, "DGELU": 192,
       "DGELU_BGRAD": 208, "BGRADA": 256, "BGRADB": 512}

_lib = None


def lib():
    global _lib
    if _lib is None:
        blas_lib()
        _lib = ctypes.CDLL(str(conftest.toolkit() / "lib" / "libmcblasLt.so"), mode=ctypes.RTLD_GLOBAL)
        for name in ("mcblasLtGetStatusName", "mcblasLtGetStatusString"):
            getattr(_lib, name).restype = ctypes.c_char_p
        for name in ("mcblasLtGetVersion", "mcblasLtGetCudartVersion"):
            getattr(_lib, name).restype = ctypes.c_size_t
        _lib.mcblasLtMatrixLayoutCreate.argtypes = [ctypes.POINTER(c_void_p), c_int, c_uint64, c_uint64, c_int64]
        _lib.mcblasLtMatrixLayoutInit_internal.argtypes = [c_void_p, ctypes.c_size_t, c_int, c_uint64, c_uint64,
                                                          c_int64]
    return _lib


def call(name, *args):
    converted = [c_int(a) if isinstance(a, int) else c_void_p() if a is None else a for a in args]
    return getattr(lib(), name)(*converted)


class Handle:
    def __init__(self):
        self.handle = c_void_p()
        assert lib().mcblasLtCreate(ctypes.byref(self.handle)) == 0

    def destroy(self):
        assert lib().mcblasLtDestroy(self.handle) == 0


def set_attribute(function, desc, attr, value, ctype):
    holder = ctype(value)
    return getattr(lib(), function)(desc, c_int(attr), ctypes.byref(holder), ctypes.c_size_t(ctypes.sizeof(holder)))


class Layout:
    def __init__(self, type_code, rows, cols, ld, order=ORDER_COL, batch=1, stride=0):
        self.handle = c_void_p()
        assert lib().mcblasLtMatrixLayoutCreate(ctypes.byref(self.handle), type_code, rows, cols, ld) == 0
        if order != ORDER_COL:
            assert set_attribute("mcblasLtMatrixLayoutSetAttribute", self.handle, LAYOUT_ORDER, order, ctypes.c_int32) == 0
        if batch != 1:
            assert set_attribute("mcblasLtMatrixLayoutSetAttribute", self.handle, LAYOUT_BATCH, batch,
                                 ctypes.c_int32) == 0
            assert set_attribute("mcblasLtMatrixLayoutSetAttribute", self.handle, LAYOUT_STRIDE, stride, c_int64) == 0

    def __del__(self):
        try:
            lib().mcblasLtMatrixLayoutDestroy(self.handle)
        except Exception:  # interpreter shutdown
            pass


class MatmulDesc:
    def __init__(self, compute, scale, transa=0, transb=0, epilogue=None):
        self.handle = c_void_p()
        assert lib().mcblasLtMatmulDescCreate(ctypes.byref(self.handle), c_int(compute), c_int(scale)) == 0
        self.set(DESC_TRANSA, transa)
        self.set(DESC_TRANSB, transb)
        if epilogue is not None:
            self.set(DESC_EPILOGUE, EPI[epilogue], ctypes.c_uint32)

    def set(self, attr, value, ctype=ctypes.c_int32):
        assert set_attribute("mcblasLtMatmulDescSetAttribute", self.handle, attr, value, ctype) == 0

    def pointer(self, attr, buffer):
        assert set_attribute("mcblasLtMatmulDescSetAttribute", self.handle, attr,
                             buffer.pointer.value if buffer is not None else None, c_void_p) == 0

    def __del__(self):
        try:
            lib().mcblasLtMatmulDescDestroy(self.handle)
        except Exception:  # interpreter shutdown
            pass


def column_major(values, dtype, ld=None, fill=0):
    """A device buffer holding `values` (rows x cols) column-major with leading dimension ld."""
    values = np.asarray(values)
    rows, cols = values.shape
    ld = ld or rows
    storage = np.full((cols, ld), fill, values.dtype if values.dtype.kind == "c" else np.float64)
    storage[:, :rows] = values.T
    return Buffer(storage.size, dtype, values=storage.ravel().astype(dtype))


def read_column_major(buffer, rows, cols, ld=None):
    ld = ld or rows
    return buffer.read()[:cols * ld].reshape(cols, ld)[:, :rows].T


def scalar_ref(value, dtype, keep):
    keep.append(np.array([value], dtype))
    return c_void_p(keep[-1].ctypes.data)
