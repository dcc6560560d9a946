"""Host <-> device copies of vectors and column-major matrices of any element size
(mcblasSet/GetVector, mcblasSet/GetMatrix and their Async forms). The synchronous forms run on the
current device's default stream and return when the copy is done; the Async forms queue it on
`stream`. The device side must lie inside one device allocation (else MAPPING_ERROR, at the call)."""
import numpy as np

from opemu.core import device
from opemu.core.mcblas import STATUS, host_view, invalid, matrix, nonnegative, vector, view
from opemu.core.status import VendorError
from opemu.ops.mcblas import family

MAPPING_ERROR = STATUS["MCBLAS_STATUS_MAPPING_ERROR"]


def _device_side(described, name):
    pointer, geometry = described
    span = geometry[4]
    if span >= 1 << 63 or span and device.lib.opemu_device_range_check(pointer, span) != 0:   # no allocation is that long
        raise VendorError(MAPPING_ERROR, "%s [%s, +%d bytes) is not inside one device allocation"
                          % (name, pointer, span))


def _copy(c, source, target, to_device):
    """Queues target <- source; the device side is checked now."""
    _device_side(target if to_device else source, "the device buffer")
    c.wait = not hasattr(c, "stream")
    read, write = (host_view, lambda d: view(d, "w")) if to_device else (view, host_view)
    return lambda: np.copyto(write(target), read(source))


def _element(size):
    return np.dtype((np.void, size))


@family({"mcblasSetVector": "set", "mcblasGetVector": "get", "mcblasSetVectorAsync": "set",
         "mcblasGetVectorAsync": "get"})
def copy_vector(direction, c):
    n, size, x, incx, y, incy = c.positional[:6]
    for name, value in (("incx", incx), ("incy", incy), ("elemSize", size)):
        if value <= 0:
            raise invalid("%s = %d must be positive" % (name, value))
    nonnegative(n=n)
    if n == 0:
        return None
    t = _element(size)
    return _copy(c, vector(x, n, incx, t), vector(y, n, incy, t), direction == "set")


@family({"mcblasSetMatrix": "set", "mcblasGetMatrix": "get", "mcblasSetMatrixAsync": "set",
         "mcblasGetMatrixAsync": "get"})
def copy_matrix(direction, c):
    rows, cols, size, a, lda, b, ldb = c.positional[:7]
    nonnegative(rows=rows, cols=cols)
    for name, value in (("elemSize", size), ("lda", lda), ("ldb", ldb)):
        if value <= 0:
            raise invalid("%s = %d must be positive" % (name, value))
    for name, value in (("lda", lda), ("ldb", ldb)):
        if value < rows:
            raise invalid("%s = %d is less than rows = %d" % (name, value, rows))
    if rows == 0 or cols == 0:
        return None
    t = _element(size)
    return _copy(c, matrix(a, rows, cols, lda, t), matrix(b, rows, cols, ldb, t), direction == "set")
