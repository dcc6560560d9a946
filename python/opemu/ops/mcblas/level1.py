"""Level-1 BLAS: vector-vector routines. Quick returns and increments as cuBLAS: n <= 0 does nothing
(a reduction stores 0); nrm2, asum, scal and iamax/iamin also return at once for incx <= 0.
Reductions accumulate in float64 and round once (nrm2, asum); dot products go through NumPy's BLAS
in the data's own precision, as cuBLAS's kernels accumulate."""
import numpy as np

from opemu.core.mcblas import REAL, TYPES, Result, Scalar, vector, view
from opemu.ops.mcblas import family, letters


@family(letters("mcblas%saxpy"))
def axpy(letter, c):
    t = TYPES[letter]
    alpha = Scalar(c, "alpha", c.alpha, t)
    if c.n <= 0:
        return None
    x, y = vector(c.x, c.n, c.incx, t), vector(c.y, c.n, c.incy, t)

    def run():
        yv = view(y, "rw")
        yv += alpha.value() * view(x)
    return run


@family({**letters("mcblas%sscal"), "mcblasCsscal": "Cs", "mcblasZdscal": "Zd"})
def scal(letter, c):
    t = TYPES[letter[0]]
    alpha = Scalar(c, "alpha", c.alpha, TYPES[REAL[letter[0]]] if len(letter) == 2 else t)
    if c.n <= 0 or c.incx <= 0:
        return None
    x = vector(c.x, c.n, c.incx, t)

    def run():
        xv = view(x, "rw")
        xv *= alpha.value()
    return run


@family(letters("mcblas%scopy"))
def copy(letter, c):
    t = TYPES[letter]
    if c.n <= 0:
        return None
    x, y = vector(c.x, c.n, c.incx, t), vector(c.y, c.n, c.incy, t)
    return lambda: np.copyto(view(y, "w"), view(x))


@family(letters("mcblas%sswap"))
def swap(letter, c):
    t = TYPES[letter]
    if c.n <= 0:
        return None
    x, y = vector(c.x, c.n, c.incx, t), vector(c.y, c.n, c.incy, t)

    def run():
        xv, yv = view(x, "rw"), view(y, "rw")
        saved = xv.copy()
        xv[...] = yv
        yv[...] = saved
    return run


@family({"mcblasSdot": "S", "mcblasDdot": "D", "mcblasCdotu": "C", "mcblasZdotu": "Z",
         "mcblasCdotc": "Cc", "mcblasZdotc": "Zc"})
def dot(letter, c):
    t = TYPES[letter[0]]
    conjugate = letter.endswith("c")
    result = Result(c, "result", c.result, t)
    if c.n <= 0:
        return lambda: result.store(0)
    x, y = vector(c.x, c.n, c.incx, t), vector(c.y, c.n, c.incy, t)

    def run():
        xv, yv = view(x), view(y)
        result.store(np.vdot(xv, yv) if conjugate else np.dot(xv, yv))
    return run


def _reduction(letter, c, fn):
    """A reduction of x to a real result, in float64 (see the module docstring)."""
    t = TYPES[letter]
    result = Result(c, "result", c.result, TYPES[REAL[letter]])
    if c.n <= 0 or c.incx <= 0:
        return lambda: result.store(0)
    x = vector(c.x, c.n, c.incx, t)
    wide = np.complex128 if t.kind == "c" else np.float64
    return lambda: result.store(fn(view(x).astype(wide)))


def _abs1(values):
    """|re| + |im|: BLAS's magnitude for asum and iamax/iamin of complex vectors."""
    return np.abs(values.real) + np.abs(values.imag) if values.dtype.kind == "c" else np.abs(values)


@family({"mcblasSnrm2": "S", "mcblasDnrm2": "D", "mcblasScnrm2": "C", "mcblasDznrm2": "Z"})
def nrm2(letter, c):
    return _reduction(letter, c, lambda v: np.linalg.norm(v))


@family({"mcblasSasum": "S", "mcblasDasum": "D", "mcblasScasum": "C", "mcblasDzasum": "Z"})
def asum(letter, c):
    return _reduction(letter, c, lambda v: _abs1(v).sum())


def _extreme_index(letter, c, pick):
    """1-based index of the first element of largest (iamax) or smallest (iamin) |re| + |im|."""
    t = TYPES[letter]
    result = Result(c, "result", c.result, np.int32)
    if c.n <= 0 or c.incx <= 0:
        return lambda: result.store(0)
    x = vector(c.x, c.n, c.incx, t)
    return lambda: result.store(pick(_abs1(view(x))) + 1)


@family(letters("mcblasI%samax", "sdcz"))
def iamax(letter, c):
    return _extreme_index(letter.upper(), c, np.argmax)


@family(letters("mcblasI%samin", "sdcz"))
def iamin(letter, c):
    return _extreme_index(letter.upper(), c, np.argmin)


@family({"mcblasSrot": "SS", "mcblasDrot": "DD", "mcblasCrot": "CC", "mcblasZrot": "ZZ",
         "mcblasCsrot": "CS", "mcblasZdrot": "ZD"})
def rot(letter, c):
    """x, y = c*x + s*y, c*y - conj(s)*x with real c (and real or complex s)."""
    t = TYPES[letter[0]]
    cos = Scalar(c, "c", c.c, TYPES[REAL[letter[0]]])
    sin = Scalar(c, "s", c.s, TYPES[letter[1]])
    if c.n <= 0:
        return None
    x, y = vector(c.x, c.n, c.incx, t), vector(c.y, c.n, c.incy, t)

    def run():
        xv, yv = view(x, "rw"), view(y, "rw")
        cv, sv = cos.value(), sin.value()
        new_x = cv * xv + sv * yv
        yv[...] = cv * yv - np.conj(sv) * xv
        xv[...] = new_x
    return run
