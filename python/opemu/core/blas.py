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
a larger buffer is used in place.

A sum of several such products (a convolution's window elements) goes faster through `chain_sums`, the C
kernel csrc/kernels/chain.c, which keeps a tile of the result in registers across each product and in L1
across the sum. It forms every product as one fused multiply-add chain per element, from +0 in k order
(`chain_reference`, its NumPy twin, makes each step exactly); the convolutions take it where this OpenBLAS
forms its products the same way, which is checked, not assumed: `chain_available` runs both on a probe of
awkward values and sizes first. OpenBLAS's SkylakeX kernels do; its Haswell kernels split most tiles' sums
over two accumulators (even and odd k), so with them the convolutions keep the GEMMs."""
import contextlib
import ctypes
import glob
import os
import threading

import numpy as np

from opemu.core import kernels

K_BLOCK = 128
# Products that must match chain_sums run over whole vectors of this many columns: OpenBLAS's small-matrix
# path (SkylakeX) sums a last partial vector of 1-8 columns in another order than its full ones.
VECTOR = 16

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_NAMES = {np.dtype(np.float32): ("scipy_cblas_sgemm64_", ctypes.c_float),
          np.dtype(np.float64): ("scipy_cblas_dgemm64_", ctypes.c_double)}
_gemms = None
_chain = {}   # instruction-set level: whether chain_sums gives this BLAS's bits there
_set_threads = _get_threads = None   # OpenBLAS's thread count, where the library exports it
_single_lock = threading.Lock()
_single_users = 0
_threads_before = None


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
    global _set_threads, _get_threads
    path = _bundled_library() if kernels.USE_C else None
    if path is None:
        return {}
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return {}
    _set_threads = getattr(library, "scipy_openblas_set_num_threads64_", None)
    _get_threads = getattr(library, "scipy_openblas_get_num_threads64_", None)
    if _set_threads is None or _get_threads is None:
        _set_threads = _get_threads = None
    else:
        _set_threads.argtypes, _set_threads.restype = [ctypes.c_int], None
        _get_threads.argtypes, _get_threads.restype = [], ctypes.c_int
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


@contextlib.contextmanager
def single_threaded():
    """While any caller is inside this block, every GEMM runs on its caller's thread alone: for callers that
    give each core GEMMs of their own. OpenBLAS's thread count is process-wide (its _local setter too, in the
    pthreads build NumPy bundles), so the first caller in sets it and the last one out restores it. Whether
    the pool gives a product the bits of the caller's thread alone depends on the kernels OpenBLAS picked: its
    SkylakeX kernels do within one K block, its Haswell kernels sum a tile's edge in another order than a full
    tile, so a product's bits change with where the threads cut its rows and columns. A caller whose bits must
    not depend on the thread count therefore stays in this block for all its GEMMs (tests/test_kernels_blas.py
    holds that a GEMM here has the same bits on every lane)."""
    global _single_users, _threads_before
    available(np.float32)
    if _set_threads is None:
        yield
        return
    with _single_lock:
        if _single_users == 0:
            _threads_before = _get_threads()
            _set_threads(1)
        _single_users += 1
    try:
        yield
    finally:
        with _single_lock:
            _single_users -= 1
            if _single_users == 0:
                _set_threads(_threads_before)


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


def whole_vectors(columns):
    """`columns` rounded up to whole vectors (VECTOR)."""
    return -(-columns // VECTOR) * VECTOR


def chain_available():
    """True when `chain_sums` gives the bits of `product` on this machine: the kernel has a path at the level in
    use (the baseline's and up) and this BLAS forms its products as fused multiply-add chains (measured once a
    level, on a probe)."""
    level = kernels.isa()
    if level not in _chain:
        _chain[level] = available(np.float32) and kernels.lib() is not None and _probe()
    return _chain[level]


def _probe():
    rng = np.random.default_rng(2024)
    values = np.array([0.0, -0.0, 1e-40, -3e-39, 3.0e38, -1.0, 1.0 + 2.0 ** -23], np.float32)
    inner = [1, 7, 70, K_BLOCK]
    rows, cols = 9, 4 * VECTOR
    a = rng.standard_normal((len(inner), rows, K_BLOCK), dtype=np.float32)
    b = rng.standard_normal((len(inner), K_BLOCK, cols), dtype=np.float32)
    for array in (a, b):
        flat = array.reshape(-1)
        picks = rng.choice(flat.size, size=flat.size // 40, replace=False)
        flat[picks] = rng.choice(values, size=picks.size)
    a *= np.float32(1e-3) ** rng.integers(0, 3, size=(len(inner), rows, 1))   # magnitudes that cancel and round
    expected = np.empty((rows, cols), np.float32)
    for t, k in enumerate(inner):
        product(expected, a[t, :, :k], b[t, :k], accumulate=t > 0)
    got = np.empty_like(expected)
    table = np.arange(len(inner), dtype=np.int64)
    if chain_sums(got, a, np.arange(rows, dtype=np.int64) * K_BLOCK, table * rows * K_BLOCK, b,
                  table * K_BLOCK * cols, cols, np.array(inner, np.int64), accumulate=False) != 0:
        return False
    return got.tobytes() == expected.tobytes()


def chain_sums(c, a, a_rows, a_at, b, b_at, ldb, inner, accumulate, b_transposed=False):
    """c (rows, cols), row-major rows = (c when `accumulate`) + the product of each term t in order, term t
    being rows a[a_rows + a_at[t]:][:inner[t]] (element offsets into a) times inner[t] rows of b from
    b_at[t], ldb elements apart; `b_transposed`, b holds that operand's columns ldb elements apart, and no
    term may pass K_BLOCK (csrc/kernels/chain.c). The tables are int64 arrays the caller keeps alive; a, b
    and c are float32 arrays (their first element is the base). Returns the kernel's status."""
    return kernels.lib().opemu_kernel_chain_sums(
        c.shape[0], c.shape[1], len(inner), kernels.int64_pointer(inner), kernels.float_pointer(a),
        kernels.int64_pointer(a_rows), kernels.int64_pointer(a_at), kernels.float_pointer(b),
        kernels.int64_pointer(b_at), ldb, int(b_transposed), kernels.float_pointer(c), c.strides[0] // c.itemsize,
        accumulate)


def fused_product(a, b):
    """a @ b (float32) with each element one chain of fused multiply-adds from +0 in k order, each step rounded
    once: in float64 the product is exact and the sum's rounding error too (two-sum), and rounding that sum to
    odd before float32 makes one rounding of the exact value (53 bits hold 24 + 2)."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    s = np.zeros((a.shape[0], b.shape[1]), np.float32)
    with np.errstate(all="ignore"):
        for k in range(a.shape[1]):
            s64 = s.astype(np.float64)
            p = np.multiply.outer(a64[:, k], b64[k])
            t = s64 + p
            back = t - s64
            error = (s64 - (t - back)) + (p - back)
            even = (t.view(np.int64) & 1) == 0
            nudge = (error != 0) & even & np.isfinite(t)
            s = np.where(nudge, np.nextafter(t, np.copysign(np.inf, error)), t).astype(np.float32)
    return s


def chain_reference(c, a, a_rows, a_at, b, b_at, ldb, inner, accumulate, b_transposed=False):
    """chain_sums' NumPy twin, on the same arguments: each term's product by fused_product, written (the first
    term of a fresh sum) or added to c."""
    rows, cols = c.shape
    flat_a, flat_b = a.reshape(-1), b.reshape(-1)
    for t, k in enumerate(int(n) for n in inner):
        left = flat_a[a_rows[:, None] + a_at[t] + np.arange(k)]
        at = b_at[t] + (np.arange(cols)[None, :] * ldb + np.arange(k)[:, None] if b_transposed else
                        np.arange(k)[:, None] * ldb + np.arange(cols)[None, :])
        term = fused_product(left, flat_b[at]) if k else np.zeros((rows, cols), np.float32)
        if t == 0 and not accumulate:
            c[...] = term
        else:
            with np.errstate(all="ignore"):
                np.add(c, term, out=c)
