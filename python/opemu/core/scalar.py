"""aclScalar as an operator's check sees it: a value that carries its own dtype.

The bridge reads the 16 value bytes and the dtype of the C object; the value is decoded here once
per plan (the bytes are part of the phase-1 cache key, so a new value is a new plan)."""
import numpy as np

from opemu.core import dtypes, status


class Scalar:
    __slots__ = ("dtype", "_value")

    def __init__(self, dtype, value):
        self.dtype = dtype    # aclDataType code
        self._value = value   # NumPy scalar of that dtype; None for a code with no type

    @property
    def value(self):
        """The value; a scalar whose data type no operator takes is refused as its dtype check would."""
        if self._value is None:
            raise status.param_invalid("a scalar's data type %s is not supported." % dtypes.serial_name(self.dtype))
        return self._value

    @classmethod
    def from_bytes(cls, dtype, raw):
        numpy_type = dtypes.NUMPY_OF.get(dtype)
        if numpy_type is None:
            return cls(dtype, None)
        return cls(dtype, np.frombuffer(raw[:numpy_type.itemsize], numpy_type)[0])

    @classmethod
    def of(cls, value, dtype=None):
        """For opemu.api and tests: a Python/NumPy value with an explicit or inferred dtype."""
        value = np.asarray(value)[()] if dtype is None else np.asarray(value, dtypes.numpy_dtype(dtype))[()]
        return cls(dtypes.ACL_OF[np.dtype(type(value))] if dtype is None else dtype, value)

    def to_float(self):
        return float(np.real(self._value)) if self._value is not None else 0.0

    def as_type(self, numpy_type):
        """The value converted as the kernel converts a scalar attribute (C casts, nearest for floats)."""
        return np.asarray(self.value).astype(numpy_type)[()]

    def __repr__(self):
        return "Scalar(%s, %r)" % (dtypes.serial_name(self.dtype), self._value)
