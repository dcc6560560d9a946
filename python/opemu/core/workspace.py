"""An operator's scratch, laid out in the device workspace that phase 1 asks for.

`workspace()` and `compute()` both read the same Layout, so the size an app is told to allocate
is exactly what the kernel carves up; an app that passes less is caught by phase 2 before any
byte is touched."""
import numpy as np

ALIGNMENT = 64


class Layout:
    def __init__(self):
        self.buffers = []  # (name, byte offset, shape, dtype)
        self.nbytes = 0

    def add(self, name, shape, dtype):
        dtype = np.dtype(dtype)
        offset = -(-self.nbytes // ALIGNMENT) * ALIGNMENT
        size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        self.buffers.append((name, offset, tuple(shape), dtype))
        self.nbytes = offset + size
        return self

    def carve(self, workspace):
        """{name: array} over the workspace's bytes (a uint8 array of at least self.nbytes)."""
        views = {}
        for name, offset, shape, dtype in self.buffers:
            size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            views[name] = workspace[offset:offset + size].view(dtype).reshape(shape)
        return views
