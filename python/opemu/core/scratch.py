"""Per-thread scratch arrays for the kernels, reused across calls.

A fresh large NumPy temporary is a fresh mmap, and its first touch costs a page fault per 4 KiB page — in a
virtual machine that can cost more than the arithmetic. Kernels that stream through big tensors therefore
take their temporaries from here (and pass them as `out=`), so steady-state calls allocate nothing large."""
import math
import threading

import numpy as np

_local = threading.local()
_CACHED_BYTES = 64 << 20  # larger requests are not kept


def buffer(name, shape, dtype):
    """An uninitialised array of `shape` owned by the calling thread under `name`; the same memory comes
    back on the thread's next request with that name (grown when it is too small)."""
    dtype = np.dtype(dtype)
    count = math.prod(shape)
    if count * dtype.itemsize > _CACHED_BYTES:
        return np.empty(shape, dtype)
    cache = getattr(_local, "buffers", None)
    if cache is None:
        cache = _local.buffers = {}
    held = cache.get((name, dtype))
    if held is None or held.size < count:
        held = cache[(name, dtype)] = np.empty(count, dtype)
    return held[:count].reshape(shape)
