"""aclnnReduceSum, aclnnMean, aclnnArgMax, aclnnAmax and aclnnAmin (ops-math math/reduce_sum, reduce_mean,
arg_max_v2, reduce_max, reduce_min): the reduction family's rows (opemu.ops.aclnn.common.reduction)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import rowwise as _rowwise
from opemu.ops.aclnn.common.promotion import per_product
from opemu.ops.aclnn.common.reduction import Reduction, accumulator

SUMMABLE = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL COMPLEX64 COMPLEX128", "BF16")
MEANABLE = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")
ARGMAXABLE = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8", "BF16")
INDEX = (dtypes.acl("INT32"), dtypes.acl("INT64"))
EXTREMA = per_product("FLOAT FLOAT16 UINT8 INT32 INT64 INT16 INT8 DOUBLE BOOL", "BF16")


class ReduceSum(Reduction):
    name = "aclnnReduceSum"
    axes, keep, dtype_param, allowed = "dims", "keepDims", "dtype", staticmethod(SUMMABLE)
    not_null = ("self", "dims", "out")
    row_kernel = staticmethod(lambda block: _rowwise.row_sums(block))

    def reduce(self, a, x, out):
        return np.sum(x, axis=a.axes, dtype=accumulator(out.dtype), keepdims=a.keep)


class Mean(Reduction):
    name = "aclnnMean"
    axes, keep, dtype_param, allowed = "dim", "keepDim", "dtype", staticmethod(MEANABLE)
    row_kernel = staticmethod(lambda block: _rowwise.row_sums(block) / np.float32(block.shape[1]))

    def reduce(self, a, x, out):
        return np.mean(x, axis=a.axes, dtype=accumulator(out.dtype), keepdims=a.keep)


class ArgMax(Reduction):
    name = "aclnnArgMax"
    allowed, out_allowed = staticmethod(ARGMAXABLE), staticmethod(lambda: INDEX)

    def check_more(self, a):
        if a.self.is_empty():
            raise status.param_invalid("argmax(): Expected reduction dim %d to have non-zero size." % a.dim)

    def reduce(self, a, x, out):
        if x.ndim == 0:
            return np.zeros((), np.int64)
        axis = a.axes[0]
        return np.argmax(x, axis=axis, keepdims=a.keep)


class Extremum(Reduction):
    """Amax/Amin: out of self's dtype → self in the list → each dim in range, of non-zero size, once → ranks →
    out shape. Empty dims reduce every axis; a 0-d self is copied; NaN propagates (PyTorch's amax)."""
    axes, keep, allowed = "dim", "keepDim", staticmethod(EXTREMA)
    not_null = ("self", "dim", "out")

    def check(self, a):
        checks.not_null(a, *self.not_null)
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.dtype_in("self", a.self, self.allowed())
        ndim = max(a.self.ndim, 1)
        seen = set()
        for d in tuple(a.dim):
            if not -ndim <= d < ndim:
                raise status.param_invalid("Provided dim %d must be in the range of [%d, %d]." % (d, -ndim, ndim - 1))
            index = d % ndim
            if a.self.ndim and a.self.shape[index] == 0:
                raise status.param_invalid("Expected reducution dim %d to have non-zero size." % index)
            if index in seen:
                raise status.param_invalid("Dim %d appears multiple times in the list of dims." % index)
            seen.add(index)
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        a.axes = tuple(sorted(seen)) if seen else tuple(range(a.self.ndim))
        a.keep = bool(a.keepDim)
        shape = tuple(1 if i in a.axes else n for i, n in enumerate(a.self.shape) if a.keep or i not in a.axes)
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        x = v["self"]
        if x.ndim == 0:
            P.store(v["out"], x)
            return
        with np.errstate(invalid="ignore"):   # NaN is a result, not a warning
            P.store(v["out"], self.ufunc.reduce(x, axis=a.axes, keepdims=a.keep))   # exact in any dtype


class Amax(Extremum):
    name = "aclnnAmax"
    ufunc = np.maximum


class Amin(Extremum):
    name = "aclnnAmin"
    ufunc = np.minimum
