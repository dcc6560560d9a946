"""NumPy's own BLAS, called directly where np.matmul cannot say what is meant: C = A @ B + C (beta = 1).

A sum of products built as `out += a @ b` costs NumPy a temporary and a pass over it; GEMM adds the
product into C itself. With OpenBLAS (what NumPy's wheels bundle) the two give the same bits as long as
the inner dimension fits one of its K blocks: the kernel forms each element's product sum exactly as for
beta = 0 and adds it to C with one rounding, which is what the separate add does. So this is a kernel in
the sense of opemu.core.kernels: the NumPy twin is matmul then add (tests/test_kernels_blas.py holds the
pair to the same bits), `OPEMU_KERNELS=numpy` selects the twin, and so does a NumPy whose BLAS is not the
bundled OpenBLAS (another library may block or round differently, and only the bundled one is found).
Callers that want the twin's bits split their sums into blocks of `K_BLOCK`, well inside every OpenBLAS
core's K block (the vocab-parallel gradient sums longer ones: it has no twin to match).

Every GEMM a kernel makes goes to this one library: OpenBLAS's workers spin on the cores for a while
after each call, so alternating two libraries' pools (SciPy links its own) costs several times the work.
Operands are 2-D views with one unit stride (either: a transposed view is passed as such), so a window of
a larger buffer is used in place."""
import ctypes
import glob
import os

import numpy as np

from opemu.core import kernels

K_BLOCK = 128

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_NAMES = {np.dtype(np.float32): ("scipy_cblas_sgemm64_", ctypes.c_float),
          np.dtype(np.float64): ("scipy_cblas_dgemm64_", ctypes.c_double)}
_gemms = None


def _bundled_library():
    """The OpenBLAS of NumPy's wheel (numpy.libs next to the package), or None."""
    here = os.path.dirname(np.__file__)
    for pattern in (os.path.join(here, os.pardir, "numpy.libs", "libscipy_openblas64_*"),
                    os.path.join(here, ".dylibs", "libscipy_openblas64_*")):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def _load():
    path = _bundled_library() if kernels.USE_C else None
    if path is None:
        return {}
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return {}
    gemms = {}
    size = ctypes.c_int64
    for dtype, (name, scalar) in _NAMES.items():
        function = getattr(library, name, None)
        if function is None:
            continue
        pointer = ctypes.c_void_p
        function.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, size, size, size, scalar, pointer, size,
                             pointer, size, scalar, pointer, size]
        function.restype = None
        gemms[dtype] = function
    return gemms


def available(dtype):
    """True when GEMM for `dtype` goes to the bundled BLAS (else callers run the NumPy twin)."""
    global _gemms
    if _gemms is None:
        _gemms = _load()
    return np.dtype(dtype) in _gemms


def _layout(matrix):
    """(transpose flag, leading dimension) of a 2-D view with a unit stride."""
    item = matrix.itemsize
    rows, cols = matrix.shape
    for flag, (unit, lead), (inner, outer) in ((_NO_TRANS, matrix.strides[::-1], (cols, rows)),
                                              (_TRANS, matrix.strides, (rows, cols))):
        leading = lead // item if outer > 1 else inner
        if (unit == item or inner == 1) and lead % item == 0 and leading >= max(inner, 1):
            return flag, max(leading, 1)
    raise ValueError("a GEMM operand needs one unit stride and rows apart")


def gemm(a, b, c, accumulate):
    """c = a @ b (+ c when `accumulate`), c a row-major view; `available(c.dtype)` must hold."""
    function = _gemms[c.dtype]
    m, n = c.shape
    k = a.shape[1]
    if a.dtype != c.dtype or b.dtype != c.dtype or a.shape[0] != m or b.shape != (k, n):
        raise ValueError("GEMM operands %s %s @ %s %s into %s %s do not fit"
                         % (a.dtype, a.shape, b.dtype, b.shape, c.dtype, c.shape))
    trans_a, lda = _layout(a)
    trans_b, ldb = _layout(b)
    trans_c, ldc = _layout(c)
    if trans_c != _NO_TRANS:
        raise ValueError("GEMM writes a row-major c")
    function(_ROW_MAJOR, trans_a, trans_b, m, n, k, 1.0, a.ctypes.data, lda, b.ctypes.data, ldb,
             1.0 if accumulate else 0.0, c.ctypes.data, ldc)


def product(c, a, b, accumulate=False, partial=None):
    """c = a @ b (+ c when `accumulate`): GEMM where the bundled BLAS is found, else its NumPy twin (which
    takes `partial`, a buffer shaped as c, for the product)."""
    if available(c.dtype) and min(c.shape) > 1:   # NumPy's matmul takes a vector product (gemv) otherwise
        gemm(a, b, c, accumulate)
    else:
        reference(a, b, c, accumulate, partial)


def reference(a, b, c, accumulate, partial=None):
    """The NumPy twin of `gemm`: the product, then (accumulating) one add into c; as quiet as BLAS about
    overflow and NaN."""
    with np.errstate(all="ignore"):
        if not accumulate:
            np.matmul(a, b, out=c)
            return
        if partial is None:
            partial = np.empty_like(c)
        np.matmul(a, b, out=partial)
        np.add(c, partial, out=c)
