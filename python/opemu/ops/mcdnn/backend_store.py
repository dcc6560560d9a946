"""The backend descriptors' attribute store (C, csrc/mcdnn/backend_objects.c) read from Python: each
attribute as a list of Python values of its attribute type, and the descriptors an attribute holds."""
import numpy as np

from opemu.core import device, mcdnn
from opemu.core.headers import enum

_HEADER = "mcdnn/mcdnn_backend.h"
TYPE = enum(_HEADER, "mcdnnBackendAttributeType_t")
KIND = enum(_HEADER, "mcdnnBackendDescriptorType_t")
ATTR = enum(_HEADER, "mcdnnBackendAttributeName_t")
POINTWISE = enum(_HEADER, "mcdnnPointwiseMode_t")
HEUR = enum(_HEADER, "mcdnnBackendHeurMode_t")
KIND_NAMES = {code: name for name, code in KIND.items()}

_POINTERS = {TYPE[n] for n in ("MCDNN_TYPE_HANDLE", "MCDNN_TYPE_VOID_PTR", "MCDNN_TYPE_BACKEND_DESCRIPTOR")}
_NUMPY = {TYPE["MCDNN_TYPE_INT64"]: np.int64, TYPE["MCDNN_TYPE_DOUBLE"]: np.float64,
          TYPE["MCDNN_TYPE_FLOAT"]: np.float32, TYPE["MCDNN_TYPE_BOOLEAN"]: np.bool_, TYPE["MCDNN_TYPE_CHAR"]: np.uint8,
          TYPE["MCDNN_TYPE_INT32"]: np.int32}


def attr(name):
    return ATTR["MCDNN_ATTR_" + name]


class Desc:
    """A backend descriptor: its type, whether it is finalized, and typed access to its attributes."""

    def __init__(self, pointer):
        self.pointer = pointer
        self.c = device.ffi.cast("struct opemu_backend_desc *", pointer)
        self.type = self.c.type

    @property
    def kind_name(self):
        return KIND_NAMES.get(self.type, str(self.type))

    @property
    def finalized(self):
        return bool(self.c.finalized)

    def raw(self, name):
        found = device.lib.opemu_backend_attr(self.pointer, attr(name))
        return None if found == device.ffi.NULL else found

    def has(self, name):
        return self.raw(name) is not None

    def values(self, name):
        """The attribute's elements (Python numbers, cdata pointers), or None when it was never set."""
        found = self.raw(name)
        if found is None:
            return None
        kind, count, ffi = found.type, found.count, device.ffi
        if kind in _POINTERS:
            return list(ffi.unpack(ffi.cast("void **", found.data), count)) if count else []
        dtype = _NUMPY.get(kind, np.int32)   # enums are ints
        data = np.frombuffer(ffi.buffer(found.data, count * np.dtype(dtype).itemsize), dtype) if count else []
        return [x.item() for x in data]

    def one(self, name, default=None):
        values = self.values(name)
        return values[0] if values else default

    def need(self, name):
        value = self.one(name)
        if value is None:
            raise mcdnn.bad_param("%s: the required attribute MCDNN_ATTR_%s was not set" % (self.kind_name, name))
        return value

    def desc(self, name):
        value = self.need(name)
        return Desc(value)

    def descs(self, name):
        return [Desc(p) for p in (self.values(name) or [])]

    def put(self, name, kind, values):
        """Stores a derived attribute (finalize's results)."""
        ffi, lib = device.ffi, device.lib
        if kind in _POINTERS:
            array = ffi.new("void *[]", [ffi.cast("void *", v) for v in values] or [ffi.NULL])
        else:
            dtype = _NUMPY.get(kind, np.int32)
            data = np.asarray(values, dtype)
            array = ffi.from_buffer(data) if len(data) else ffi.NULL
        if lib.opemu_backend_put(self.pointer, attr(name), kind, len(values), array) != 0:
            raise mcdnn.VendorError(mcdnn.STATUS["MCDNN_STATUS_ALLOC_FAILED"], "out of host memory")

    def mark_finalized(self):
        device.lib.opemu_backend_finalize_mark(self.pointer)
