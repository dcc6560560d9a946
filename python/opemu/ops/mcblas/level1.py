"""Level-1 BLAS: vector-vector routines, typed (S/D/C/Z …) and `…Ex` (types given as macaDataType).
Quick returns and increments as cuBLAS: n <= 0 does nothing (a reduction stores 0); nrm2, asum,
scal and iamax/iamin also return at once for incx <= 0.

Every routine works from `Kinds`: the vectors' storage type, the scalars' type, the type the
arithmetic runs in and the result's type. The typed routines use one type throughout (NumPy's BLAS
in the data's own precision, as cuBLAS's kernels accumulate); the Ex routines widen fp16/bf16 data
to their fp32 execution type and round once when storing. nrm2 and asum reduce in float64 and round
once."""
import ml_dtypes
import numpy as np

from opemu.core.mcblas import DATA, REAL, TYPES, Result, Scalar, not_supported, vector, view
from opemu.ops.mcblas import family


class Kinds:
    def __init__(self, data, scalar=None, compute=None, result=None):
        self.data = np.dtype(data)
        self.scalar = np.dtype(scalar or data)
        self.compute = np.dtype(compute or data)
        self.result = np.dtype(result or data)

    def widen(self, values):
        return values if values.dtype == self.compute else values.astype(self.compute)


def typed(letter, scalar=None, result=None):
    return Kinds(TYPES[letter], scalar=scalar and TYPES[scalar], result=result and TYPES[result])


def _family_of(pattern, spelled="SDCZ"):
    return {pattern % letter: typed(letter) for letter in spelled}


# ---- the Ex routines' types: macaDataType codes, checked against cuBLAS's supported combinations ----

_MACA = {DATA["MACA_R_16F"]: np.float16, DATA["MACA_R_16BF"]: ml_dtypes.bfloat16, DATA["MACA_R_32F"]: np.float32,
         DATA["MACA_R_64F"]: np.float64, DATA["MACA_C_32F"]: np.complex64, DATA["MACA_C_64F"]: np.complex128}


def _maca(c, name):
    code = getattr(c, name)
    if code not in _MACA:
        raise not_supported("%s = %d is not a data type this routine supports" % (name, code))
    return np.dtype(_MACA[code])


def _execution_of(data):
    """The execution type cuBLAS pairs with a storage type: fp32 for fp16/bf16, else the type itself."""
    return np.dtype(np.float32) if data.itemsize == 2 else data


def _real_of(dtype):
    return np.dtype(np.float32 if dtype == np.complex64 else np.float64 if dtype == np.complex128 else dtype)


def ex_kinds(c, data, other=None, scalar=None, result=None, execution=None, real_result=False):
    """Kinds of an Ex call from its type arguments (by parameter name); NOT_SUPPORTED for combinations
    cuBLAS does not offer."""
    t = _maca(c, data)
    if other is not None and _maca(c, other) != t:
        raise not_supported("%s and %s differ" % (data, other))
    compute = _execution_of(t)
    if execution is not None and _maca(c, execution) not in (compute, _real_of(compute) if real_result else compute):
        raise not_supported("%s = %d does not go with %s = %d" % (execution, getattr(c, execution), data,
                                                                 getattr(c, data)))
    alpha = _maca(c, scalar) if scalar is not None else compute
    if alpha not in (compute, _real_of(compute)):
        raise not_supported("%s = %d does not go with %s = %d" % (scalar, getattr(c, scalar), data, getattr(c, data)))
    out = _maca(c, result) if result is not None else t
    if out != (_real_of(t) if real_result else t):
        raise not_supported("%s = %d does not go with %s = %d" % (result, getattr(c, result), data, getattr(c, data)))
    return Kinds(t, scalar=alpha, compute=compute, result=out)


# ---- the routines ----

def _lanes(c):
    """The elements an elementwise routine of x and y computes. With both increments 0 its n lanes read
    the same two elements and write the same result over them (every lane from the values before the
    call, as the NumPy expression over all n would), so one lane is all of it: no 2^31-element
    temporaries for a count the memory does not bound."""
    return 1 if c.incx == 0 and c.incy == 0 else c.n


def axpy(k, c):
    alpha = Scalar(c, "alpha", c.alpha, k.scalar)
    if c.n <= 0:
        return None
    x, y = vector(c.x, _lanes(c), c.incx, k.data), vector(c.y, _lanes(c), c.incy, k.data)

    def run():
        yv = view(y, "rw")
        yv[...] = k.widen(yv) + alpha.value() * k.widen(view(x))
    return run


def scal(k, c):
    alpha = Scalar(c, "alpha", c.alpha, k.scalar)
    if c.n <= 0 or c.incx <= 0:
        return None
    x = vector(c.x, c.n, c.incx, k.data)

    def run():
        xv = view(x, "rw")
        xv[...] = k.widen(xv) * alpha.value()
    return run


def copy(k, c):
    if c.n <= 0:
        return None
    x, y = vector(c.x, _lanes(c), c.incx, k.data), vector(c.y, _lanes(c), c.incy, k.data)
    return lambda: np.copyto(view(y, "w"), view(x))


def swap(k, c):
    if c.n <= 0:
        return None
    x, y = vector(c.x, _lanes(c), c.incx, k.data), vector(c.y, _lanes(c), c.incy, k.data)

    def run():
        xv, yv = view(x, "rw"), view(y, "rw")
        saved = xv.copy()
        xv[...] = yv
        yv[...] = saved
    return run


def dot(k, c, conjugate=False):
    result = Result(c, "result", c.result, k.result)
    if c.n <= 0:
        return lambda: result.store(0)
    x, y = vector(c.x, _lanes(c), c.incx, k.data), vector(c.y, _lanes(c), c.incy, k.data)
    copies = c.n if _lanes(c) == 1 else 1   # n equal terms: their exact sum, rounded once

    def run():
        xv, yv = k.widen(view(x)), k.widen(view(y))
        total = np.vdot(xv, yv) if conjugate else np.dot(xv, yv)
        result.store(total if copies == 1 else total.astype(np.complex128 if total.dtype.kind == "c" else np.float64)
                     * copies)
    return run


def _reduction(k, c, fn):
    """A reduction of x to a real result, in float64 (see the module docstring)."""
    result = Result(c, "result", c.result, k.result)
    if c.n <= 0 or c.incx <= 0:
        return lambda: result.store(0)
    x = vector(c.x, c.n, c.incx, k.data)
    wide = np.complex128 if k.data.kind == "c" else np.float64
    return lambda: result.store(fn(view(x).astype(wide)))


def _abs1(values):
    """|re| + |im|: BLAS's magnitude for asum and iamax/iamin of complex vectors."""
    return np.abs(values.real) + np.abs(values.imag) if values.dtype.kind == "c" else np.abs(values)


def nrm2(k, c):
    return _reduction(k, c, lambda v: np.linalg.norm(v))


def asum(k, c):
    return _reduction(k, c, lambda v: _abs1(v).sum())


def _extreme_index(k, c, pick):
    """1-based index of the first element of largest (iamax) or smallest (iamin) |re| + |im|."""
    result = Result(c, "result", c.result, np.int32)
    if c.n <= 0 or c.incx <= 0:
        return lambda: result.store(0)
    x = vector(c.x, c.n, c.incx, k.data)
    return lambda: result.store(pick(_abs1(k.widen(view(x)))) + 1)


def iamax(k, c):
    return _extreme_index(k, c, np.argmax)


def iamin(k, c):
    return _extreme_index(k, c, np.argmin)


def rot(k, c, sine):
    """x, y = c*x + s*y, c*y - conj(s)*x with real c and a real or complex s (of type `sine`)."""
    cos = Scalar(c, "c", c.c, _real_of(k.scalar))
    sin = Scalar(c, "s", c.s, sine)
    if c.n <= 0:
        return None
    x, y = vector(c.x, _lanes(c), c.incx, k.data), vector(c.y, _lanes(c), c.incy, k.data)

    def run():
        xv, yv = view(x, "rw"), view(y, "rw")
        wx, wy = k.widen(xv), k.widen(yv)
        cv, sv = cos.value(), sin.value()
        new_x = cv * wx + sv * wy
        yv[...] = cv * wy - np.conj(sv) * wx
        xv[...] = new_x
    return run


def rotg(k, c):
    """The plane rotation [c s; -conj(s) c] that takes (a, b) to (r, 0), as reference BLAS's rotg: a
    becomes r; for real data b becomes the reconstruction value z. Computed in float64."""
    real = _real_of(k.data)
    a, b = Result(c, "a", c.a, k.data), Result(c, "b", c.b, k.data)
    cos, sin = Result(c, "c", c.c, real), Result(c, "s", c.s, k.data)

    def run():
        av, bv = complex(a.load()) if k.data.kind == "c" else float(a.load()), b.load()
        if k.data.kind == "c":
            r, cv, sv, z = _complex_givens(av, complex(bv))
        else:
            r, cv, sv, z = _real_givens(av, float(bv))
        a.store(r)
        cos.store(cv)
        sin.store(sv)
        if z is not None:
            b.store(z)
    return run


def _real_givens(a, b):
    scale = abs(a) + abs(b)
    if scale == 0:
        return 0.0, 1.0, 0.0, 0.0
    r = scale * np.sqrt((a / scale) ** 2 + (b / scale) ** 2)
    r = r if (a if abs(a) > abs(b) else b) >= 0 else -r
    c, s = a / r, b / r
    z = s if abs(a) > abs(b) else (1 / c if c != 0 else 1.0)
    return r, c, s, z


def _complex_givens(a, b):
    if abs(a) == 0:
        return b, 0.0, 1.0, None
    scale = abs(a) + abs(b)
    norm = scale * np.sqrt(abs(a / scale) ** 2 + abs(b / scale) ** 2)
    phase = a / abs(a)
    return phase * norm, abs(a) / norm, phase * np.conj(b) / norm, None


# ---- the typed entry points ----

family(_family_of("mcblas%saxpy"))(axpy)
family({**_family_of("mcblas%sscal"), "mcblasCsscal": typed("C", scalar="S"),
        "mcblasZdscal": typed("Z", scalar="D")})(scal)
family(_family_of("mcblas%scopy"))(copy)
family(_family_of("mcblas%sswap"))(swap)
family({"mcblasSdot": typed("S"), "mcblasDdot": typed("D"), "mcblasCdotu": typed("C"),
        "mcblasZdotu": typed("Z")})(dot)
family({"mcblasCdotc": typed("C"), "mcblasZdotc": typed("Z")})(lambda k, c: dot(k, c, conjugate=True))
_REDUCED = {"mcblas%s" % name: typed(letter, result=REAL[letter])
            for letter, spelled in (("S", "S"), ("D", "D"), ("C", "Sc"), ("Z", "Dz")) for name in (spelled,)}
family({prefix + "nrm2": k for prefix, k in _REDUCED.items()})(nrm2)
family({prefix + "asum": k for prefix, k in _REDUCED.items()})(asum)
family({"mcblasI%samax" % letter.lower(): typed(letter) for letter in "SDCZ"})(iamax)
family({"mcblasI%samin" % letter.lower(): typed(letter) for letter in "SDCZ"})(iamin)
family(_family_of("mcblas%srotg"))(rotg)
for _name, _letter, _sine in (("Srot", "S", "S"), ("Drot", "D", "D"), ("Crot", "C", "C"), ("Zrot", "Z", "Z"),
                              ("Csrot", "C", "S"), ("Zdrot", "Z", "D")):
    family({"mcblas" + _name: typed(_letter)})(lambda k, c, sine=TYPES[_sine]: rot(k, c, sine))


# ---- the Ex entry points: the same routines, their types read from the call ----

def _ex(routine, **types):
    return lambda _, c: routine(ex_kinds(c, **types), c)


family({"mcblasAxpyEx": None})(_ex(axpy, data="xType", other="yType", scalar="alphaType", execution="executiontype"))
family({"mcblasScalEx": None})(_ex(scal, data="xType", scalar="alphaType", execution="executionType"))
family({"mcblasCopyEx": None})(_ex(copy, data="xType", other="yType"))
family({"mcblasSwapEx": None})(_ex(swap, data="xType", other="yType"))
family({"mcblasDotEx": None})(_ex(dot, data="xType", other="yType", result="resultType",
                                   execution="executionType"))
family({"mcblasDotcEx": None})(lambda _, c: dot(ex_kinds(c, data="xType", other="yType", result="resultType",
                                                         execution="executionType"), c, conjugate=True))
family({"mcblasNrm2Ex": None})(_ex(nrm2, data="xType", result="resultType", execution="executionType",
                                    real_result=True))
family({"mcblasAsumEx": None})(_ex(asum, data="xType", result="resultType", execution="executiontype",
                                    real_result=True))
family({"mcblasIamaxEx": None})(_ex(iamax, data="xType"))
family({"mcblasIaminEx": None})(_ex(iamin, data="xType"))
