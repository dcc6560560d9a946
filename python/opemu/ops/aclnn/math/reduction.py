"""aclnnReduceSum, aclnnMean and aclnnArgMax (ops-math math/reduce_sum, reduce_mean, arg_max_v2): the
reduction family's rows (opemu.ops.aclnn.common.reduction)."""
import numpy as np

from opemu.core import dtypes, status
from opemu.ops.aclnn.common import rowwise as _rowwise
from opemu.ops.aclnn.common.promotion import per_product
from opemu.ops.aclnn.common.reduction import Reduction, accumulator

SUMMABLE = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL COMPLEX64 COMPLEX128", "BF16")
MEANABLE = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")
ARGMAXABLE = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8", "BF16")
INDEX = (dtypes.acl("INT32"), dtypes.acl("INT64"))


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
