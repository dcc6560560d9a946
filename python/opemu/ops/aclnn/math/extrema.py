"""Maxima, minima, their indices, and all/any over dims (ops-math math/reduce_max, reduce_min, arg_min,
arg_max_with_value, arg_min_with_value, reduce_all, reduce_any): rows of the reduction family
(math/reduce_family.py).

Values are exact in every dtype, so nothing is computed in a wider type; NaN propagates and is the extremum
(its first index), as PyTorch's max/min/argmin. Indices are the first occurrence along the dim."""
import numpy as np

from opemu.core import checks, status
from opemu.ops.aclnn.common.promotion import codes, per_line, per_product
from opemu.ops.aclnn.math.reduce_family import EXPECTED, Reduce
from opemu.ops.aclnn.math.reduction import EXTREMA
from opemu.ops.aclnn.math.statistics import pool_ranks

WITH_VALUE = per_line("FLOAT FLOAT16 INT64 BOOL", a2="FLOAT FLOAT16 INT64 BOOL BF16",
                      regbase="FLOAT FLOAT16 INT64 BOOL BF16 INT32")
ARGMIN = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8", "BF16")
INDEX = lambda: codes("INT32 INT64")
LOGICAL_IN = per_product("FLOAT FLOAT16 UINT8 INT8 INT16 INT32 INT64 BOOL DOUBLE", "BF16")
LOGICAL_OUT = lambda: codes("UINT8 BOOL")
GLOBAL_MAX = lambda: codes("FLOAT FLOAT16 DOUBLE")


def _extremum(ufunc):
    return staticmethod(lambda x, axes, keep, a: ufunc.reduce(x, axis=axes, keepdims=keep) if axes else x)


class Max(Reduce):
    """Max/Min: every axis into a 0-d out of a listed dtype."""
    name = "aclnnMax"
    dims, keep, allowed, out_allowed = None, None, staticmethod(EXTREMA), staticmethod(EXTREMA)
    kernel = _extremum(np.maximum)


class Min(Max):
    name = "aclnnMin"
    kernel = _extremum(np.minimum)


class MaxV2(Reduce):
    name = "aclnnMaxV2"
    dims, keep, noop, allowed, out_like_self = "dims", "keepDims", "noopWithEmptyDims", staticmethod(EXTREMA), "match"
    range_message = "Provided dims %(dim)d must be in the range of [%(lo)d, %(hi)d]."
    nonzero_message = "Expected reducution dims %(index)d to have non-zero size."
    kernel = _extremum(np.maximum)

    def check_dtypes(self, a):
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.dtype_in("self", a.self, self.allowed())


class GlobalMaxPool(Reduce):
    """The maximum over every axis after N and C, kept as size-1 dims."""
    name = "aclnnGlobalMaxPool"
    dims, keep, allowed, out_allowed, out_like_self = None, None, staticmethod(GLOBAL_MAX), staticmethod(GLOBAL_MAX), "same"
    kernel = staticmethod(lambda x, axes, keep, a: np.max(x, axis=axes, keepdims=True))

    def check_dims(self, a):
        a.axes, a.keepdims = tuple(range(2, a.self.ndim)), True

    def check_ranks(self, a):
        pool_ranks(a, 4, 8)


def _min_max(x, axes, keep, a):
    if not axes:
        return x, x
    return np.minimum.reduce(x, axis=axes, keepdims=keep), np.maximum.reduce(x, axis=axes, keepdims=keep)


class Aminmax(Reduce):
    """One dim when the list holds exactly one, else every axis (then self must not be empty)."""
    name = "aclnnAminmax"
    outs, keep, allowed, out_like_self = ("minOut", "maxOut"), "keepDim", staticmethod(EXTREMA), "match"
    kernel = staticmethod(_min_max)

    def check(self, a):
        self.check_nulls(a)
        self.check_dtypes(a)
        self.check_ranks(a)
        given = tuple(a.dim)
        if len(given) != 1 and a.self.is_empty():
            raise status.param_invalid("Expected self to be not empty tensor.")
        ndim = a.self.ndim
        if len(given) == 1:
            d = given[0]
            if ndim == 0 and d not in (0, -1):
                raise status.param_invalid("Expected dim to be in range of [-1, 0], but got %d." % d)
            if ndim and not -ndim <= d < ndim:
                raise status.param_invalid(EXPECTED % dict(lo=-ndim, hi=ndim - 1, dim=d))
            if ndim and a.self.shape[d % ndim] == 0:
                raise status.param_invalid("Expected reduction dim %d to have non-zero size, but check failed." % d)
            a.axes = (d % ndim,) if ndim else ()
        else:
            a.axes = tuple(range(ndim))
        a.keepdims = bool(a.keepDim)
        self.check_shapes(a)


class AminmaxAll(Aminmax):
    name = "aclnnAminmaxAll"
    dims, keep = None, None

    def check(self, a):
        self.check_nulls(a)
        self.check_dtypes(a)
        self.check_ranks(a)
        a.axes, a.keepdims = tuple(range(a.self.ndim)), False
        self.check_shapes(a)


class AminmaxDim(Aminmax):
    name = "aclnnAminmaxDim"
    one_dim, out_like_self, ranks_first = True, "same", True
    nonzero_message = "Expected reduction dim %(dim)d to have non-zero size, but check failed."
    check = Reduce.check


def _with_index(arg):
    def kernel(x, axes, keep, a):
        if not axes:
            return x, np.zeros(x.shape, np.int64)
        index = arg(x, axis=axes[0], keepdims=True)
        values = np.take_along_axis(x, index, axis=axes[0])
        return (values, index) if keep else (np.squeeze(values, axes), np.squeeze(index, axes))
    return staticmethod(kernel)


class MaxDim(Reduce):
    """The maximum along one dim and its first index (out of self's dtype, indices INT64 or INT32)."""
    name = "aclnnMaxDim"
    outs, one_dim, allowed, out_like_self = ("out", "indices"), True, staticmethod(WITH_VALUE), None
    range_message = "dim should within the range of [[%(lo)d], [%(hi)d]]."
    kernel = _with_index(np.argmax)

    def check(self, a):
        self.check_nulls(a)
        checks.dtype_in("self", a.self, self.allowed())
        checks.same_dtype("self", a.self, "out", a.out)
        self.check_ranks(a)
        self.check_dims(a)
        self.check_shapes(a)


class MinDim(MaxDim):
    name = "aclnnMinDim"
    kernel = _with_index(np.argmin)


class ArgMin(Reduce):
    """nulls → dim → dtypes → ranks → the dim's size non-zero."""
    name = "aclnnArgMin"
    one_dim, allowed, out_allowed = True, staticmethod(ARGMIN), staticmethod(INDEX)
    range_message = "dim must be within the range of [%(lo)d, %(hi)d], but it is %(dim)d."

    @staticmethod
    def kernel(x, axes, keep, a):
        if not axes:
            return np.zeros(x.shape, np.int64)
        return np.argmin(x, axis=axes[0], keepdims=keep)

    def check(self, a):
        self.check_nulls(a)
        self.check_dims(a)
        self.check_dtypes(a)
        self.check_ranks(a)
        if a.self.ndim and a.self.shape[a.axes[0]] == 0:
            raise status.param_invalid("Excepted reduction dim %d to have non-zero size." % a.dim)
        self.check_shapes(a)


def _logical(ufunc):
    return staticmethod(lambda x, axes, keep, a: ufunc.reduce(x != 0, axis=axes, keepdims=keep) if axes
                        else (x != 0))


class All(Reduce):
    """nulls → dtypes → dims → ranks → out shape ("Expect out shape")."""
    name = "aclnnAll"
    allowed, out_allowed, empty_value = staticmethod(LOGICAL_IN), staticmethod(LOGICAL_OUT), True
    range_message = "Dimension out of range (expected to be in range of [-%(hi1)d, %(hi)d], but got %(dim)d)"
    kernel = _logical(np.logical_and)

    def check_dims(self, a):
        ndim = max(a.self.ndim, 1)
        for d in tuple(a.dim):
            if not -ndim <= d < ndim:
                raise status.param_invalid(self.range_message % dict(hi1=ndim, hi=ndim - 1, dim=d, lo=-ndim))
        super().check_dims(a)

    def check_shapes(self, a):
        shape = self.out_shape(a)
        if tuple(a.out.shape) != shape:
            raise status.param_invalid("Expect out shape [%s], but got: [%s]."
                                       % (checks.shape_text(shape)[1:-1], checks.shape_text(a.out.shape)[1:-1]))


class Any(All):
    name = "aclnnAny"
    empty_value = False
    range_message = "Dimension out of range."
    kernel = _logical(np.logical_or)

    def check_dims(self, a):
        ndim = max(a.self.ndim, 1)
        if any(not -ndim <= d < ndim for d in tuple(a.dim)):
            raise status.param_invalid(self.range_message)
        Reduce.check_dims(self, a)

    def check_shapes(self, a):
        shape = self.out_shape(a)
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))

