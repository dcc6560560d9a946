"""The C core's objects as Python sees them: aclTensor descriptions and zero-copy NumPy views of
device memory. Set up by the bridge (`attach`); opemu.api never needs it."""
import numpy as np

from opemu.core import dtypes
from opemu.core.status import VendorError

ffi = None
lib = None
strict = False  # OPEMU_STRICT (opemu check), which the C core reads once for the process


def attach(ffi_, lib_):
    global ffi, lib, strict
    ffi, lib = ffi_, lib_
    strict = bool(lib.opemu_strict())


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
    (shape, dtype, byte offset, byte strides, bytes from the storage start to the view's end).
    A 4-bit tensor's view is the bytes from its storage start to the byte holding its last element
    (core/packed.py reads and writes its elements)."""
    if desc.dtype in dtypes.NIBBLE:
        nbytes = (span_elements(desc.shape, desc.strides, desc.offset) + 1) // 2
        return (nbytes,), np.dtype(np.uint8), 0, (1,), nbytes
    dtype = dtypes.storage_dtype(desc.dtype)
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


class Views:
    """The views a kernel call made, kept for the next calls: apps call kernels on the same buffers in the
    same layouts again and again. A kept view is handed out again while no device allocation has gone away
    (opemu_memory_epoch unchanged: every range that passed the range check still passes, and no memory under
    a kept view was unmapped). Layouts are keyed by identity (plans and descriptor snapshots hand the same
    tuple again; the entry holds it, so its id is not reused). Not under OPEMU_STRICT, whose sanitizer
    follows each call's accesses."""
    LIMIT = 4096

    def __init__(self):
        self.kept, self.epoch = {}, None

    def session(self):
        """What a call makes its views with: this cache, emptied when memory went away, or view_at itself."""
        if strict:
            return None
        epoch = lib.opemu_memory_epoch()
        if epoch != self.epoch:
            self.kept.clear()
            self.epoch = epoch
        return self.kept

    @classmethod
    def view(cls, kept, address, layout):
        """view_at(address, layout), or the array made for them before when `kept` (a session) holds it."""
        if kept is None:
            return view_at(address, layout)
        key = (address, id(layout))
        entry = kept.get(key)
        if entry is not None and entry[0] is layout:
            return entry[1]
        view = view_at(address, layout)
        if len(kept) >= cls.LIMIT:
            kept.clear()
        kept[key] = (layout, view)
        return view


VIEWS = Views()


def workspace_view(address, nbytes):
    if nbytes == 0:
        return np.empty(0, np.uint8)
    return np.frombuffer(ffi.buffer(ffi.cast("char *", address), nbytes), np.uint8)
