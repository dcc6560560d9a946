"""mcBLAS on the Python side: statuses and enums (read from the header), the element types of the
S/D/C/Z/H families, and the pieces every routine is built from: argument checks in cuBLAS's order,
host or device scalars (the handle's pointer mode), and vectors / column-major matrices described at
the call and turned into views of device memory when the task runs on the handle's stream.

A routine is a function `(kind, call) -> task or None` (`kind`: its row of a family table, e.g. the
precision): it checks the arguments (raising the vendor's status), reads what cuBLAS reads at the
call (host scalars), and returns the work to queue (None: nothing to do, a quick return)."""
import numpy as np

from opemu.core import device
from opemu.core.headers import enum
from opemu.core.status import VendorError

_HEADER = "mcblas/mcblas.h"
STATUS = enum(_HEADER, "mcblasStatus_t")
OP = enum(_HEADER, "mcblasOperation_t")
FILL = enum(_HEADER, "mcblasFillMode_t")
DIAG = enum(_HEADER, "mcblasDiagType_t")
SIDE = enum(_HEADER, "mcblasSideMode_t")
POINTER = enum(_HEADER, "mcblasPointerMode_t")
COMPUTE = enum(_HEADER, "mcblasComputeType_t")
MATH = enum(_HEADER, "mcblasMath_t")
DATA = enum("common/library_types.h", "macaDataType")

INVALID_VALUE = STATUS["MCBLAS_STATUS_INVALID_VALUE"]
NOT_SUPPORTED = STATUS["MCBLAS_STATUS_NOT_SUPPORTED"]
NOT_INITIALIZED = STATUS["MCBLAS_STATUS_NOT_INITIALIZED"]
EXECUTION_FAILED = STATUS["MCBLAS_STATUS_EXECUTION_FAILED"]
TRANSPOSES = (OP["MCBLAS_OP_N"], OP["MCBLAS_OP_T"], OP["MCBLAS_OP_C"])
FILLS = (FILL["MCBLAS_FILL_MODE_LOWER"], FILL["MCBLAS_FILL_MODE_UPPER"])
DIAGS = (DIAG["MCBLAS_DIAG_NON_UNIT"], DIAG["MCBLAS_DIAG_UNIT"])
SIDES = (SIDE["MCBLAS_SIDE_LEFT"], SIDE["MCBLAS_SIDE_RIGHT"])
N, T, C = OP["MCBLAS_OP_N"], OP["MCBLAS_OP_T"], OP["MCBLAS_OP_C"]
LOWER = FILL["MCBLAS_FILL_MODE_LOWER"]
UNIT = DIAG["MCBLAS_DIAG_UNIT"]
LEFT = SIDE["MCBLAS_SIDE_LEFT"]

# The element type of each precision letter: S/D/C/Z as BLAS names them, H for half.
TYPES = {"S": np.dtype(np.float32), "D": np.dtype(np.float64), "C": np.dtype(np.complex64),
         "Z": np.dtype(np.complex128), "H": np.dtype(np.float16)}
# The real type of a letter: what nrm2/asum of a complex vector return, and rot's cosine.
REAL = {"S": "S", "D": "D", "C": "S", "Z": "D", "H": "H"}

_MAX_SPAN = 1 << 62  # no device allocation comes near; larger spans fault before any arithmetic


def invalid(message):
    return VendorError(INVALID_VALUE, message)


def not_supported(message):
    return VendorError(NOT_SUPPORTED, message)


class Call:
    """One call's arguments by their header names, the live handle's modes, and the routine name."""

    def __init__(self, name, handle, values):
        self.name = name
        self.handle = handle
        self.device_scalars = handle is not None and handle.pointerMode == POINTER["MCBLAS_POINTER_MODE_DEVICE"]
        self.math_mode = handle.mathMode if handle is not None else 0
        self.wait = False  # set by a host Result: the call returns once its stream ran the task
        self.positional = tuple(values.values())  # for entry points whose parameter names vary
        self.__dict__.update(values)


# ---- argument checks, each raising INVALID_VALUE with the argument's name ----

def nonnegative(**sizes):
    for name, value in sizes.items():
        if value < 0:
            raise invalid("%s = %d must not be negative" % (name, value))


def leading(name, ld, rows):
    """A leading dimension must be at least max(1, rows)."""
    if ld < max(1, rows):
        raise invalid("%s = %d must be at least max(1, %d)" % (name, ld, rows))


def one_of(name, value, allowed):
    if value not in allowed:
        raise invalid("%s = %d is not a valid value" % (name, value))


def nonzero_increment(**increments):
    for name, value in increments.items():
        if value == 0:
            raise invalid("%s must not be 0" % name)


def not_null(**pointers):
    for name, value in pointers.items():
        if value == device.ffi.NULL:
            raise invalid("%s must not be null" % name)


# ---- scalars: host pointers are read at the call, device pointers when the task runs ----

_C_TYPES = {np.dtype(np.float32): "float *", np.dtype(np.float64): "double *"}


def _host_value(pointer, dtype):
    ctype = _C_TYPES.get(dtype)
    if ctype is not None:  # the common case, read without a NumPy round trip (a tiny call's cost)
        return device.ffi.cast(ctype, pointer)[0]
    return np.frombuffer(device.ffi.buffer(device.ffi.cast("char *", pointer), dtype.itemsize), dtype)[0]


def _device_value(pointer, dtype):
    return view((pointer, ((), dtype, 0, (), dtype.itemsize)))[()]


class Scalar:
    """alpha, beta, a cosine …: `value()` is the number, read where the pointer mode says."""

    __slots__ = ("pointer", "dtype", "_value")

    def __init__(self, call, name, pointer, dtype):
        not_null(**{name: pointer})
        self.pointer, self.dtype = pointer, np.dtype(dtype)
        self._value = None if call.device_scalars else _host_value(pointer, self.dtype)

    def value(self):
        return _device_value(self.pointer, self.dtype) if self._value is None else self._value


class Result:
    """Where a reduction (dot, nrm2, asum, iamax …) stores its result: host or device memory.
    A host result makes the call wait for its stream, as cuBLAS's host pointer mode does."""

    __slots__ = ("pointer", "dtype", "on_host")

    def __init__(self, call, name, pointer, dtype):
        not_null(**{name: pointer})
        self.pointer, self.dtype, self.on_host = pointer, np.dtype(dtype), not call.device_scalars
        call.wait = call.wait or self.on_host

    def _cell(self, access):
        if self.on_host:
            return np.frombuffer(device.ffi.buffer(device.ffi.cast("char *", self.pointer), self.dtype.itemsize),
                                 self.dtype)
        return view((self.pointer, ((1,), self.dtype, 0, (self.dtype.itemsize,), self.dtype.itemsize)), access)

    def load(self):
        """The value there now (rotg's in-out scalars), read when the task runs."""
        return self._cell("r")[0]

    def store(self, value):
        self._cell("w")[0] = value


# ---- device data: described at the call, viewed when the task runs ----

def vector(pointer, n, inc, dtype):
    """Geometry of n elements `inc` apart; a negative increment walks backwards from the far end,
    as BLAS defines it (element i at (n-1-i)*|inc|)."""
    dtype = np.dtype(dtype)
    item = dtype.itemsize
    if n <= 0:
        return pointer, ((0,), dtype, 0, (item,), 0)
    reach = (n - 1) * abs(inc)
    span = (reach + 1) * item
    offset = reach * item if inc < 0 else 0
    return pointer, ((n,), dtype, offset, (inc * item,), span)


def matrix(pointer, rows, cols, ld, dtype):
    """Geometry of a column-major rows x cols matrix with leading dimension ld."""
    dtype = np.dtype(dtype)
    item = dtype.itemsize
    if rows <= 0 or cols <= 0:
        return pointer, ((max(rows, 0), max(cols, 0)), dtype, 0, (item, ld * item), 0)
    span = ((cols - 1) * ld + rows) * item
    return pointer, ((rows, cols), dtype, 0, (item, ld * item), span)


def batch_of(pointer, geometry, count, stride):
    """Geometry of `count` copies of `geometry` `stride` elements apart (strided batched routines)."""
    shape, dtype, offset, strides, span = geometry
    item = dtype.itemsize
    if count == 1:
        stride = 0   # never applied to one copy, whatever its size or sign (a stride of 2^62 overflowed the view)
    if count <= 0 or span == 0:
        return pointer, ((max(count, 0),) + shape, dtype, offset, (stride * item,) + strides, 0)
    if stride < 0:
        raise invalid("a negative batch stride is not supported")
    total = (count - 1) * stride * item + span
    return pointer, ((count,) + shape, dtype, offset, (stride * item,) + strides, total)


_ACCESS = {"r": ((0, b"an mcBLAS kernel's read"),), "w": ((1, b"an mcBLAS kernel's write"),),
           "rw": ((0, b"an mcBLAS kernel's read"), (1, b"an mcBLAS kernel's write"))}


def sanitize(pointer, span, access):
    """Reports the access to `opemu check` (OPEMU_STRICT=1): overruns of the requested size, reads of
    memory never written; a write marks the bytes written."""
    if device.strict:
        for mode, what in _ACCESS[access]:
            device.lib.opemu_sanitize_access(pointer, span, mode, what)


def view(described, access="r"):
    """The NumPy view of described device data, which the kernel reads ("r"), writes ("w") or both
    ("rw"); past its allocation (or any allocation: hostile sizes) the access faults as the
    hardware's would."""
    pointer, geometry = described
    span = geometry[4]
    if span == 0:
        return np.empty(geometry[0], geometry[1])
    if span > _MAX_SPAN:
        raise device.DeviceFault(0, "%d bytes from %s reach past any device allocation" % (span, pointer))
    array = device.view_at(pointer, geometry)
    sanitize(pointer, span, access)
    return array


def transposed(matrices):
    """The transpose of a matrix or of each matrix of a batch (the last two axes)."""
    return matrices.swapaxes(-1, -2)


def pointer_arrays(count, *arrays):
    """Per batch entry, the device addresses the batched routines' device arrays of `count`
    pointers hold (one array per operand), as cffi pointers."""
    columns = [view(vector(array, count, 1, np.uint64)).tolist() for array in arrays]
    return [tuple(device.ffi.cast("void *", address) for address in entry) for entry in zip(*columns)]


def op(matrices, trans):
    """op(A) for mcblasOperation_t `trans` (of each matrix of a batch)."""
    if trans == N:
        return matrices
    return transposed(matrices).conj() if trans == C else transposed(matrices)


def op_shape(trans, rows, cols):
    """(rows, cols) of the stored matrix whose op() is rows x cols."""
    return (rows, cols) if trans == N else (cols, rows)


def blended(beta):
    """How blend() accesses its output: read and written, or only written when beta is 0."""
    return "rw" if beta != 0 else "w"


def blend(out, result, alpha, beta):
    """out = alpha*result + beta*out in result's type, rounded once into out; out is not read when
    beta is 0 (it may hold NaN), as BLAS specifies."""
    if alpha != 1:
        result = result * result.dtype.type(alpha)
    if beta != 0:
        result = result + out.astype(result.dtype) * result.dtype.type(beta)
    out[...] = result


def host_view(described):
    """The NumPy view of described host memory (the app's own buffer: not checked, as cuBLAS does not)."""
    pointer, (shape, dtype, offset, strides, span) = described
    if span == 0:
        return np.empty(shape, dtype)
    return np.ndarray(shape, dtype, device.ffi.buffer(device.ffi.cast("char *", pointer), span), offset, strides)
