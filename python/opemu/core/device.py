"""The C core's objects as Python sees them: aclTensor descriptions and zero-copy NumPy views of
device memory. Set up by the bridge (`attach`); opemu.api never needs it."""
import numpy as np

from opemu.core import dtypes
from opemu.core.status import VendorError

ffi = None
lib = None


def attach(ffi_, lib_):
    global ffi, lib
    ffi, lib = ffi_, lib_


class DeviceFault(VendorError):
    """An access outside live device memory: where the hardware would raise an AI Core exception."""


def span_elements(shape, strides, offset):
    """Elements from the storage start to one past the last element the view reaches."""
    last = offset
    for d, s in zip(shape, strides):
        if d == 0:
            return 0
        last += (d - 1) * s
    return last + 1


def geometry(desc):
    """What a view of this tensor needs besides its address, worked out once in phase 1:
    (shape, dtype, byte offset, byte strides, bytes from the storage start to the view's end)."""
    dtype = dtypes.numpy_dtype(desc.dtype)
    item = dtype.itemsize
    span = span_elements(desc.shape, desc.strides, desc.offset) * item
    return desc.shape, dtype, desc.offset * item, tuple([s * item for s in desc.strides]), span


def view_at(address, layout):
    """NumPy view of device memory at `address` (a cdata pointer), bounded by its allocation's
    mapped size: beyond it the hardware would fault, and so does this."""
    shape, dtype, offset, strides, span = layout
    if span == 0:
        return np.empty(shape, dtype)
    code = lib.opemu_device_range_check(address, span)
    if code:
        raise DeviceFault(code, "")
    return np.ndarray(shape, dtype, ffi.buffer(address, span), offset, strides)


def workspace_view(address, nbytes):
    if nbytes == 0:
        return np.empty(0, np.uint8)
    return np.frombuffer(ffi.buffer(ffi.cast("char *", address), nbytes), np.uint8)
