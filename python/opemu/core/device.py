"""The C core's objects as Python sees them: aclTensor descriptions and zero-copy NumPy views of
device memory. Set up by the bridge (`attach`); opemu.api never needs it."""
import numpy as np

from opemu.core import dtypes
from opemu.core.status import VendorError
from opemu.core.tensor import TensorDesc

ffi = None
lib = None


def attach(ffi_, lib_):
    global ffi, lib
    ffi, lib = ffi_, lib_


def describe(t):
    """TensorDesc of an aclTensor struct."""
    n = t.ndim
    return TensorDesc(t.dtype, tuple(t.dims[0:n]), tuple(t.strides[0:n]), t.offset, t.format,
                      tuple(t.storage_dims[0:t.storage_ndim]), int(ffi.cast("uintptr_t", t.data)))


class DeviceFault(VendorError):
    """An access outside live device memory: where the hardware would raise an AI Core exception."""


def span_elements(shape, strides, offset):
    """Elements from the storage start to one past the last element the view reaches."""
    if 0 in shape:
        return 0
    return offset + 1 + sum((d - 1) * s for d, s in zip(shape, strides))


def device_view(t):
    """NumPy view of an aclTensor struct's device memory, bounded by its allocation's mapped size."""
    n = t.ndim
    shape = tuple(t.dims[0:n])
    dtype = dtypes.numpy_dtype(t.dtype)
    if 0 in shape:
        return np.empty(shape, dtype)
    strides = tuple(t.strides[0:n])
    item = dtype.itemsize
    nbytes = span_elements(shape, strides, t.offset) * item
    code = lib.opemu_device_range_check(t.data, nbytes)
    if code:
        raise DeviceFault(code, "")
    buffer = ffi.buffer(ffi.cast("char *", t.data), nbytes)
    return np.ndarray(shape, dtype, buffer, t.offset * item, tuple(s * item for s in strides))


def workspace_view(address, nbytes):
    if nbytes == 0:
        return np.empty(0, np.uint8)
    return np.frombuffer(ffi.buffer(ffi.cast("char *", address), nbytes), np.uint8)
