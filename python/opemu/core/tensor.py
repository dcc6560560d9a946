"""TensorDesc: what an operator's check sees of an aclTensor (or of a NumPy array, for opemu.api)."""
import numpy as np

from opemu.core import dtypes


class TensorDesc:
    __slots__ = ("dtype", "format", "shape", "strides", "offset", "storage_shape", "array")

    def __init__(self, dtype, shape, strides, offset=0, format=2, storage_shape=None, array=None):
        self.dtype = dtype
        self.format = format
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.storage_shape = storage_shape if storage_shape is not None else shape
        self.array = array  # the NumPy array behind it, when it came from opemu.api

    @property
    def ndim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def is_empty(self):
        return 0 in self.shape

    @classmethod
    def from_array(cls, array, dtype=None):
        array = np.asarray(array)
        code = dtype if dtype is not None else dtypes.ACL_OF[array.dtype]
        item = array.dtype.itemsize
        return cls(code, tuple(array.shape), tuple(s // item for s in array.strides), array=array)

    @classmethod
    def from_summary(cls, s):
        """From opemu_tensor_summary's int64s: dtype, format, offset, ndim, storage_ndim, dims, strides, storage."""
        n, m = s[3], s[4]
        return cls(s[0], s[5:5 + n], s[5 + n:5 + 2 * n], s[2], s[1], s[5 + 2 * n:5 + 2 * n + m])

    def __repr__(self):
        return "TensorDesc(%s, shape=%s, strides=%s, offset=%d)" % (
            dtypes.serial_name(self.dtype), self.shape, self.strides, self.offset)
