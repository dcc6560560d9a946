"""Variance, standard deviation, log-sum(-exp), nan-sum, product and mean over dims, and batch-norm statistics (ops-math math/reduce_var,
reduce_std_v2, reduce_std_with_mean, reduce_log_sum, reduce_log_sum_exp, reduce_nansum, reduce_prod, reduce_mean):
rows of the reduction family (math/reduce_family.py).

Var and Std take the mean first and divide the squared deviations by max(N - correction, 0), as PyTorch does
(N - correction ≤ 0 gives inf or NaN); an empty self gives NaN. LogSumExp subtracts the finite maximum before
exp; integral input computes in FLOAT. Prod of an empty self is 1, NanSum's 0."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import products as _products
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_line, per_product
from opemu.ops.aclnn.math.reduction import MEANABLE
from opemu.ops.aclnn.math.reduce_family import EXPECTED, TORCH_RANGE, Reduce

HALF_FLOAT = per_product("FLOAT FLOAT16", "BF16")
VAR_MEAN = per_line("FLOAT FLOAT16", regbase="FLOAT FLOAT16 BF16")
LOG_SUM = per_line("FLOAT16 FLOAT", regbase="FLOAT16 FLOAT BF16")
LOGSUMEXP_IN = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL", "BF16")
NANSUM = per_line("FLOAT16 FLOAT INT8 INT16 INT32 INT64 UINT8 BOOL BF16",
                  regbase="FLOAT FLOAT16 BF16")
PROD = per_product("FLOAT FLOAT16 DOUBLE INT8 UINT8 INT16 INT32 INT64 BOOL COMPLEX64 COMPLEX128", "BF16")
GLOBAL_AVG = per_product("FLOAT FLOAT16 DOUBLE", "BF16")


def variance(x, axes, keep, correction):
    mean = np.mean(x, axis=axes, keepdims=True)
    count = int(np.prod([x.shape[i] for i in axes])) if axes else 1
    squares = np.sum(np.square(np.abs(x - mean)), axis=axes, keepdims=keep)
    return squares / np.asarray(max(count - correction, 0), squares.dtype), (mean if keep else np.squeeze(mean, axes))


class Var(Reduce):
    name = "aclnnVar"
    allowed, dims_may_be_null, empty_value = staticmethod(HALF_FLOAT), True, np.nan
    kernel = staticmethod(lambda x, axes, keep, a: variance(x, axes, keep, 1 if a.unbiased else 0)[0])


class VarCorrection(Var):
    name = "aclnnVarCorrection"
    kernel = staticmethod(lambda x, axes, keep, a: variance(x, axes, keep, a.correction)[0])


class VarMean(Var):
    name = "aclnnVarMean"
    allowed, outs = staticmethod(VAR_MEAN), ("varOut", "meanOut")
    kernel = staticmethod(lambda x, axes, keep, a: variance(x, axes, keep, a.correction))


class Std(Var):
    name = "aclnnStd"
    castable = True
    kernel = staticmethod(lambda x, axes, keep, a: np.sqrt(variance(x, axes, keep, a.correction)[0]))


class StdMeanCorrection(Var):
    name = "aclnnStdMeanCorrection"
    outs, range_message = ("stdOut", "meanOut"), TORCH_RANGE

    def check_dtypes(self, a):
        super().check_dtypes(a)
        for name in self.outs:   # OP_CHECK_DTYPE_NOT_MATCH(self, <out>'s dtype)
            if a.self.dtype != getattr(a, name).dtype:
                raise status.param_invalid("Tensor self expected dtype is %s but found %s."
                                           % (dtypes.serial_name(getattr(a, name).dtype), dtypes.serial_name(a.self.dtype)))

    @staticmethod
    def kernel(x, axes, keep, a):
        var, mean = variance(x, axes, keep, a.correction)
        return np.sqrt(var), mean


def _logsumexp(x, axes, keep, a):
    x = x if x.dtype.kind in "fc" else x.astype(np.float32)
    top = np.max(x, axis=axes, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    result = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return result if keep else np.squeeze(result, axes)


class LogSumExp(Reduce):
    name = "aclnnLogSumExp"
    keep, allowed, out_allowed, castable = "keepDim", staticmethod(LOGSUMEXP_IN), staticmethod(HALF_FLOAT), True
    range_message = "provided dim %(dim)d not in the range of input tensor size %(ndim)d."
    twice_message = "Dim %(dim)d appears multiple times in the list of dims"
    empty_value = -np.inf
    kernel = staticmethod(_logsumexp)


class ReduceLogSum(Reduce):
    """nulls → dtypes → rank of data → axes; an empty axes list reduces every axis unless noopWithEmptyAxes."""
    name = "aclnnReduceLogSum"
    self_name, outs, dims, keep, noop = "data", ("reduce",), "axes", "keepDims", "noopWithEmptyAxes"
    allowed, out_allowed = staticmethod(LOG_SUM), staticmethod(LOG_SUM)
    range_message = "Provided axes %(dim)d not in the range of input tensor size %(ndim)d."
    twice_message = "Axes %(index)d appears multiple times in the list of axes"
    empty_value, ranks_first = -np.inf, True
    kernel = staticmethod(lambda x, axes, keep, a: np.log(np.sum(x, axis=axes, keepdims=keep)))


class ReduceNansum(Reduce):
    name = "aclnnReduceNansum"
    keep, allowed, castable, empty_value = "keepDim", staticmethod(NANSUM), True, 0

    def check_dtypes(self, a):
        if _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("ReduceNansum is not supported on this device.")
        checks_dtype(self, a)

    @staticmethod
    def kernel(x, axes, keep, a):
        total = np.sum(np.where(np.isnan(x), 0, x) if x.dtype.kind in "fc" else x, axis=axes, keepdims=keep,
                       dtype=np.float32 if x.dtype.kind in "fc" and x.dtype.itemsize <= 4 else None)
        return total


def checks_dtype(row, a):
    """self in the list, the dtype argument in it, out in it and of that dtype, self castable to out."""
    checks.dtype_in("self", a.self, row.allowed())
    if a.dtype not in row.allowed():
        raise status.param_invalid("type %s should be in dtype support list [%s]."
                                   % (dtypes.serial_name(a.dtype), ", ".join(dtypes.serial_name(c) for c in row.allowed())))
    checks.dtype_in("out", a.out, row.allowed())
    checks.dtype_match("out", a.out, a.dtype)
    checks.result_castable(a.self.dtype, a.out.dtype)


def _prod(x, axes, keep, a):
    out = dtypes.numpy_dtype(a.out.dtype)
    acc = np.float32 if out.kind in "fV" and out.itemsize < 4 else (np.int64 if out.kind in "iub" else out)
    return np.prod(x, axis=axes, keepdims=keep, dtype=acc)


class Prod(Reduce):
    """Prod over every axis into out of the `dtype` argument; an empty self gives 1."""
    name = "aclnnProd"
    dims, keep, allowed, empty_value, ranks_first = None, None, staticmethod(PROD), 1, True
    kernel = staticmethod(_prod)

    def check_dtypes(self, a):
        checks.dtype_in("self", a.self, self.allowed())
        checks.dtype_match("out", a.out, a.dtype)


class ProdDim(Prod):
    name = "aclnnProdDim"
    dims, one_dim, keep, range_message = "dim", True, "keepDim", EXPECTED


class MeanV2(Reduce):
    """MeanV2: an empty dims list with noopWithEmptyAxes is the identity."""
    name = "aclnnMeanV2"
    keep, noop, allowed, out_like_self, empty_value = "keepDim", "noopWithEmptyAxes", staticmethod(MEANABLE), "same", np.nan
    range_message = "provided dim %(dim)d must be in the range of [%(lo)d, %(hi)d]."
    twice_message = "provided dim %(dim)d is repeated."

    def check_shapes(self, a):
        """Checked after the kernel's shape inference, as CheckShapeAndScalarSame does."""
        shape = self.out_shape(a) if a.axes else tuple(a.self.shape)
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))
    kernel = staticmethod(lambda x, axes, keep, a: np.mean(x, axis=axes, keepdims=keep) if axes else x)


class GlobalAveragePool(Reduce):
    """The mean over every axis after the first two (N, C, spatial…), kept as size-1 dims."""
    name = "aclnnGlobalAveragePool"
    dims, keep, allowed, out_like_self = None, None, staticmethod(GLOBAL_AVG), "same"
    kernel = staticmethod(lambda x, axes, keep, a: np.mean(x, axis=axes, keepdims=True))

    def check_dims(self, a):
        a.axes, a.keepdims = tuple(range(2, a.self.ndim)), True

    def check_ranks(self, a):
        pool_ranks(a, 4, 8)


def pool_ranks(a, low, high):
    """The global pools: self of rank low..high, out of self's rank."""
    if a.self.ndim < low:
        raise status.param_invalid("The self tensor must have at least %d dimensions." % low)
    checks.max_dim("self", a.self, high)
    checks.dim_is("out", a.out, a.self.ndim)



BN_STATS = per_line("FLOAT FLOAT16", regbase="FLOAT FLOAT16 BF16")


class BatchNormStats(AclnnOp):
    """Per channel (dim 1) of input: the mean and 1/sqrt(biased variance + eps), both FLOAT of shape [C].
    nulls → dtypes → ranks (2..8; mean, invstd 1-D) → C non-zero → shapes."""
    name = "aclnnBatchNormStats"
    inputs, outputs = ("input",), ("mean", "invstd")

    def dtype_table(self):
        return {"input": BN_STATS(), "mean": codes("FLOAT"), "invstd": codes("FLOAT")}

    def check(self, a):
        checks.not_null(a, "input", "mean", "invstd")
        checks.dtype_in("input", a.input, BN_STATS())
        checks.dtype_in("mean", a.mean, codes("FLOAT"))
        checks.dtype_in("invstd", a.invstd, codes("FLOAT"))
        checks.max_dim("input", a.input)
        if a.input.ndim < 2:
            raise status.param_invalid("The input tensor must have at least 2 dimensions.")
        checks.dim_is("mean", a.mean, 1)
        checks.dim_is("invstd", a.invstd, 1)
        if a.input.shape[1] == 0:
            raise status.param_invalid("Channel size of input should not be zero.")
        expected = (a.input.shape[1],)
        checks.shape_is("mean", a.mean, expected, checks.shape_text(expected))
        checks.shape_is("invstd", a.invstd, expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        x = v["input"]
        axes = (0,) + tuple(range(2, x.ndim))
        if x.size == 0:
            v["mean"][...] = np.nan
            v["invstd"][...] = np.nan
            return
        x = x.astype(np.float32)
        var, mean = variance(x, axes, False, 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            P.store(v["mean"], mean)
            P.store(v["invstd"], 1 / np.sqrt(var + np.float32(a.eps)))
