"""Adaptive pooling: aclnnAdaptiveAvgPool2d/3d, aclnnAdaptiveMaxPool2d/3d and their backward (ops-nn
pooling/adaptive_*_pool* op_api): PyTorch's adaptive_{avg,max}_pool{2,3}d.

Output o of n over an input of size reads [⌊o·size/n⌋, ⌈(o+1)·size/n⌉) (pooling/windows.py). When the input is a
multiple of the output the windows are a plain pooling (window = stride = size/n): the averages are then
mcDNN's and the maxima the with-indices pooling's; otherwise each output's window is reduced on its own: fp32
sums (fp64 for double) divided once by the window's size, or the first maximum (NaN wins) with its flat index.
Backward: the average's share dy/count added over each window, the max's dy added at its index, in output order
in fp32, rounded once.

Phase 1 follows each op_api file; the output's spatial size is what outputSize names (a mismatch the 2-D max op_api
does not check fails its final copy, ACLNN_ERR_INNER_NULLPTR)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.pooling import windows as W


def _a2():
    return _products.line() in ("A2", "A3")


def _floating(extra=""):
    return P.codes("FLOAT FLOAT16 BF16" + extra) if _products.line() in ("A2", "A3", "950") else P.codes("FLOAT FLOAT16" + extra)


# ---- arithmetic ---------------------------------------------------------------------------------------------------

def adaptive_average(x, out_spatial):
    spatial = x.shape[2:]
    regular = [W.adaptive_regular(n, o) for n, o in zip(spatial, out_spatial)]
    if all(regular):
        k = tuple(r[0] for r in regular)
        return W.average(x, out_spatial, k, k, (0,) * len(k), True, 0)
    ct = W.compute_type(x)
    result = np.empty(x.shape[:2] + tuple(out_spatial), ct)
    with np.errstate(all="ignore"):
        for position, window in W.adaptive_windows(spatial, out_spatial):
            block = x[(Ellipsis,) + window].astype(ct, copy=False)
            count = block[0, 0].size if block.ndim > 2 else 1
            result[(Ellipsis,) + position] = block.reshape(block.shape[:2] + (-1,)).sum(axis=-1, dtype=ct) / ct.type(count)
    return result


def adaptive_average_gradient(dy, x_shape):
    spatial, out_spatial = x_shape[2:], dy.shape[2:]
    regular = [W.adaptive_regular(n, o) for n, o in zip(spatial, out_spatial)]
    if all(regular):
        k = tuple(r[0] for r in regular)
        return W.average_gradient(dy, x_shape, k, k, (0,) * len(k), True, 0)
    ct = W.compute_type(dy)
    dx = np.zeros(x_shape, ct)
    with np.errstate(all="ignore"):
        for position, window in W.adaptive_windows(spatial, out_spatial):
            count = int(np.prod([s.stop - s.start for s in window]))
            share = dy[(Ellipsis,) + position].astype(ct) / ct.type(count)
            dx[(Ellipsis,) + window] += share.reshape(share.shape + (1,) * len(window))
    return dx


def adaptive_max(x, out_spatial):
    spatial = x.shape[2:]
    regular = [W.adaptive_regular(n, o) for n, o in zip(spatial, out_spatial)]
    if all(regular):
        k = tuple(r[0] for r in regular)
        return W.max_with_indices(x, out_spatial, k, k, (0,) * len(k), (1,) * len(k))
    values = np.empty(x.shape[:2] + tuple(out_spatial), x.dtype)
    index = np.empty(values.shape, np.int64)
    flat = np.arange(int(np.prod(spatial)), dtype=np.int64).reshape(spatial)
    for position, window in W.adaptive_windows(spatial, out_spatial):
        block_values, block_index = W.max_with_indices(x[(Ellipsis,) + window], (1,) * len(spatial),
                                                       tuple(s.stop - s.start for s in window), (1,) * len(spatial),
                                                       (0,) * len(spatial), (1,) * len(spatial))
        values[(Ellipsis,) + position] = block_values.reshape(x.shape[:2])
        index[(Ellipsis,) + position] = flat[window].reshape(-1)[block_index.reshape(x.shape[:2])]
    return values, index


# ---- checks shared by the forms ------------------------------------------------------------------------------------

def _output_size(values, rank):
    return tuple(values) * rank if len(values) == 1 else tuple(values)


def _final_copy(out, expected):
    if tuple(out.shape) != tuple(expected):
        raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"], "ViewCopy of the pooled shape %s into out %s "
                                 "failed." % (checks.shape_text(expected), checks.shape_text(out.shape)))


# ---- average -----------------------------------------------------------------------------------------------------

class AdaptiveAvgPool2d(AclnnOp):
    name = "aclnnAdaptiveAvgPool2d"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        allowed = P.codes("FLOAT FLOAT16 BF16") if _a2() else P.codes("FLOAT FLOAT16")
        return {"self": allowed, "out": allowed}

    def check(self, a):
        checks.not_null(a, "self")
        if a.outputSize is None:
            raise status.param_nullptr("Expected a value of type List[int] for argument outputSize but instead found "
                                       "type null.")
        checks.not_null(a, "out")
        x, out = a.self, a.out
        if x.ndim not in (3, 4):
            raise status.param_invalid("Self dims %d should be in 3 or 4." % x.ndim)
        if out.ndim != x.ndim:
            raise status.param_invalid("Out dims %d should equal to self dims %d." % (out.ndim, x.ndim))
        for i in range(out.ndim - 2):
            if out.shape[i] != x.shape[i]:
                raise status.param_invalid("Out_shape[%d]: %d should equal to input_shape[%d]: %d"
                                           % (i, out.shape[i], i, x.shape[i]))
        if _products.is_regbase() and 0 in x.shape[-2:]:
            raise status.param_invalid("x'dims is invalid, self No.[%d] dim is not bigger than 0."
                                       % (x.ndim - 1 + x.shape[-2:].index(0)))
        allowed = self.dtype_table()["self"]
        checks.dtype_in("self", x, allowed)
        checks.dtype_in("out", out, allowed)
        checks.dtype_match("out", out, x.dtype)
        if x.format != out.format:
            raise status.param_invalid("Format of input and out should be equal, input [%s], out [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        if checks.is_private_format(x.format):
            raise status.param_invalid("Format only don't support private format.")
        if x.format not in (W.NCHW, W.NCL):
            raise status.param_invalid("Format only support NCHW or NCL.")
        for name, t in (("self", x), ("out", out)):
            if (t.format == W.NCL) != (t.ndim == 3):
                raise status.param_invalid("%s is %dD tensor but the format is [%s]."
                                           % (name, t.ndim, W.format_name(t.format)))
        if len(a.outputSize) != 2:
            raise status.param_invalid("OutputSize length should be 2.")
        low = 0 if _products.is_regbase() else 1
        for i, value in enumerate(a.outputSize):
            if value < low or value != out.shape[-2 + i]:
                raise status.param_invalid("outputSize value should match the outputShape value and greater than 0.")
        a.empty = x.is_empty() or out.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 2), W.as_images(v["out"], 2)
        P.store(out, adaptive_average(x, out.shape[2:]))


class AdaptiveAvgPool3d(AclnnOp):
    name = "aclnnAdaptiveAvgPool3d"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": _floating(), "out": _floating()}

    def check(self, a):
        checks.not_null(a, "self")
        if a.outputSize is None:
            raise status.param_nullptr("Expected a value of type List[int] for argument outputSize but instead found "
                                       "type null.")
        checks.not_null(a, "out")
        x, out = a.self, a.out
        if x.ndim not in (4, 5):
            raise status.param_invalid("Self dims %d should be in 4 or 5." % x.ndim)
        if out.ndim != x.ndim:
            raise status.param_invalid("Out dims %d should equal to self dims %d." % (out.ndim, x.ndim))
        for i in range(1 if _products.is_regbase() else 0, x.ndim):
            if x.shape[i] <= 0:
                raise status.param_invalid("self'dims is invalid, self No.[%d] dim is not bigger than [0]." % i)
        for i in range(x.ndim - 3):
            if out.shape[i] != x.shape[i]:
                raise status.param_invalid("Out dims No.[%d] must match self dims." % i)
        checks.dtype_in("self", x, _floating())
        checks.dtype_in("out", out, _floating())
        checks.dtype_match("out", out, x.dtype)
        if x.format != out.format:
            raise status.param_invalid("Format of input and out should be equal, input [%s], out [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        if checks.is_private_format(x.format):
            raise status.param_invalid("Format don't support private format.")
        if len(a.outputSize) != 3:
            raise status.param_invalid("outputSize length should be 3.")
        for i, value in enumerate(a.outputSize):
            if value <= 0 or value != out.shape[-3 + i]:
                raise status.param_invalid("outShape value should match the outputSize value and greater than 0.")
        a.empty = x.is_empty() or out.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 3), W.as_images(v["out"], 3)
        P.store(out, adaptive_average(x, out.shape[2:]))


class _AdaptiveAvgBackwardBase(AclnnOp):
    inputs = ("gradOutput", "self")
    outputs = ("out",)
    rank = 2

    def compute(self, a, v, workspace):
        out = v["out"]
        if a.empty:
            out[...] = 0
            return
        dy, target = W.as_images(v["gradOutput"], self.rank), W.as_images(out, self.rank)
        P.store(target, adaptive_average_gradient(dy, target.shape))


class AdaptiveAvgPool2dBackward(_AdaptiveAvgBackwardBase):
    name = "aclnnAdaptiveAvgPool2dBackward"

    def dtype_table(self):
        allowed = P.codes("FLOAT FLOAT16 BF16") if _a2() else P.codes("FLOAT FLOAT16")
        return {"gradOutput": allowed, "self": allowed, "out": allowed}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "out")
        grad, x, out = a.gradOutput, a.self, a.out
        if grad.ndim != x.ndim:
            raise status.param_invalid("DimNum of inputs should be equal, gradOutput [%d], self [%d]"
                                       % (grad.ndim, x.ndim))
        if out.ndim not in (3, 4):
            raise status.param_invalid("out dims %d should be in 3 or 4." % out.ndim)
        if out.ndim != x.ndim:
            raise status.param_invalid("DimNum of inputs should be equal, out [%d], self [%d]" % (out.ndim, x.ndim))
        for i in range(out.ndim - 2):
            if out.shape[i] != x.shape[i]:
                raise status.param_invalid("Out_shape[%d]: %d should equal to input_shape[%d]: %d"
                                           % (i, out.shape[i], i, x.shape[i]))
            if grad.shape[i] != x.shape[i]:
                raise status.param_invalid("gradOut_Shape[%d]: %d should equal to input_shape[%d]: %d"
                                           % (i, grad.shape[i], i, x.shape[i]))
        allowed = self.dtype_table()["self"]
        checks.dtype_in("gradOutput", grad, allowed)
        checks.dtype_in("self", x, allowed)
        checks.dtype_match("gradOutput", grad, x.dtype)
        if grad.format != x.format:
            raise status.param_invalid("Format of inputs should be equal, gradOutput [%s], self [%s]"
                                       % (W.format_name(grad.format), W.format_name(x.format)))
        if checks.is_private_format(grad.format):
            raise status.param_invalid("Format don't support private format.")
        _final_copy(out, x.shape)
        a.empty = grad.is_empty() or x.is_empty()


class AdaptiveAvgPool3dBackward(_AdaptiveAvgBackwardBase):
    name = "aclnnAdaptiveAvgPool3dBackward"
    rank = 3

    def dtype_table(self):
        if _products.line() in ("A2", "A3", "950"):
            allowed = P.codes("FLOAT DOUBLE FLOAT16 BF16")
        else:
            allowed = P.codes("FLOAT DOUBLE FLOAT16")
        return {"gradOutput": allowed, "self": allowed, "out": allowed}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "out")
        grad, x, out = a.gradOutput, a.self, a.out
        if x.ndim not in (4, 5) or x.is_empty() or grad.ndim not in (4, 5):
            raise status.param_invalid("non-empty 4D or 5D tensor expected for inputs.")
        if not x.ndim == grad.ndim == out.ndim:
            raise status.param_invalid("inputs and out must have same DimNum.")
        for i in range(x.ndim):
            if x.shape[i] <= 0:
                raise status.param_invalid("self'dims is invalid, self No.[%d] dim is not bigger than [0]." % i)
            if out.shape[i] != x.shape[i]:
                raise status.param_invalid("out dims No.[%d] must match self dims." % i)
        for i in range(x.ndim - 3):
            if grad.shape[i] != x.shape[i]:
                raise status.param_invalid("gradOutput dims No.[%d] must match self dims." % i)
        for i in range(grad.ndim):
            if grad.shape[i] <= 0:
                raise status.param_invalid("gradOutput dims is invalid, self No.[%d] dim is not bigger than [0]." % i)
        all_one = all(d == 1 for d in grad.shape[-3:])
        allowed = self.dtype_table()["self"]
        if _products.line() in ("A2", "A3", "950") and not all_one:
            allowed = P.codes("FLOAT FLOAT16 BF16")
        checks.dtype_in("gradOutput", grad, allowed)
        checks.dtype_in("self", x, allowed)
        checks.same_dtype("gradOutput", grad, "self", x)
        checks.same_dtype("self", x, "out", out)
        if grad.format != x.format:
            raise status.param_invalid("Format of inputs should be equal, gradOutput [%s], self [%s]"
                                       % (W.format_name(grad.format), W.format_name(x.format)))
        if out.format != x.format:
            raise status.param_invalid("Format of self and out should be equal, out [%s], self [%s]"
                                       % (W.format_name(out.format), W.format_name(x.format)))
        if x.format not in (W.NCDHW, dtypes.ACL_FORMAT["ACL_FORMAT_ND"]):
            raise status.param_invalid("Format only support NCDHW、ND.")
        if _products.line() == "910" and not all_one:
            raise status.param_invalid("adaptive_avg_pool3d_backward only support D=1 && H=1 && W=1 on 910A!")
        a.empty = False


# ---- max ---------------------------------------------------------------------------------------------------------

class AdaptiveMaxPool2d(AclnnOp):
    name = "aclnnAdaptiveMaxPool2d"
    inputs = ("self",)
    outputs = ("outputOut", "indicesOut")

    def dtype_table(self):
        allowed = P.codes("FLOAT DOUBLE FLOAT16 BF16") if _a2() else P.codes("FLOAT DOUBLE FLOAT16")
        return {"self": allowed, "outputOut": allowed, "indicesOut": P.codes("INT64")}

    def check(self, a):
        checks.not_null(a, "self")
        if a.outputSize is None:
            raise status.param_nullptr("Expected a value of type List[int] for argument outputSize but instead found "
                                       "type null.")
        checks.not_null(a, "outputOut", "indicesOut")
        x, out, indices = a.self, a.outputOut, a.indicesOut
        allowed = self.dtype_table()["self"]
        checks.dtype_in("self", x, allowed)
        checks.dtype_in("output", out, allowed)
        checks.dtype_match("output", out, x.dtype)
        checks.dtype_match("indices", indices, P.INT64)
        if x.ndim not in (3, 4):
            raise status.param_invalid("Self dims %d should be in 3 or 4." % x.ndim)
        checks.same_shape("output", out, "indices", indices)
        for i in range(1, x.ndim):
            if x.shape[i] <= 0:
                raise status.param_invalid("adaptive_max_pooling2d():expected input to have non-empty spatiak "
                                           "dimensions, but input has sizes %d with dimension %d being empty."
                                           % (x.ndim, i))
        if len(a.outputSize) != 2:
            raise status.param_invalid("outputSize length should be 2, but now is %d." % len(a.outputSize))
        for i, value in enumerate(a.outputSize):
            if value <= 0:
                raise status.param_invalid("outputSize value should greater than 0, but the sizes of %d is %d."
                                           % (i, value))
        a.empty = x.is_empty()
        if not a.empty:
            _final_copy(out, tuple(x.shape[:-2]) + tuple(a.outputSize))

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 2), W.as_images(v["outputOut"], 2)
        values, index = adaptive_max(x, out.shape[2:])
        P.store(out, values)
        v["indicesOut"][...] = index.reshape(v["indicesOut"].shape)


class AdaptiveMaxPool3d(AclnnOp):
    name = "aclnnAdaptiveMaxPool3d"
    inputs = ("self",)
    outputs = ("outputOut", "indicesOut")

    def dtype_table(self):
        index = P.codes("INT32 INT64") if _products.is_regbase() else P.codes("INT32")
        return {"self": P.codes("FLOAT FLOAT16 BF16"), "outputOut": P.codes("FLOAT FLOAT16 BF16"), "indicesOut": index}

    def check(self, a):
        checks.not_null(a, "self")
        if a.outputSize is None:
            raise status.param_nullptr("Expected a value of type List[int] for argument outputSize but instead found "
                                       "type null.")
        checks.not_null(a, "outputOut", "indicesOut")
        x, out, indices = a.self, a.outputOut, a.indicesOut
        for name, t in (("Self", x), ("Out", out), ("Indices", indices)):
            if t.ndim not in (4, 5):
                raise status.param_invalid("%s dims %d should be 5 or 4." % (name, t.ndim))
        table = self.dtype_table()
        checks.dtype_in("self", x, table["self"])
        checks.dtype_in("out", out, table["outputOut"])
        checks.dtype_in("indices", indices, table["indicesOut"])
        if x.format != out.format:
            raise status.param_invalid("Format of input and out should be equal, input [%s], out [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        size = tuple(a.outputSize)
        if len(size) != 3:
            raise status.param_invalid("outputSize length should be 3.")
        for i in range(x.ndim - 3):
            if out.shape[i] != x.shape[i]:
                raise status.param_invalid("The [%d] dim of outShape value should match the selfShape's." % i)
        for i in range(3):
            if out.shape[-3 + i] != size[i]:
                raise status.param_invalid("outShape value should match the outputSize value.")
        for i in range(out.ndim):
            if out.shape[i] != indices.shape[i]:
                raise status.param_invalid("The [%d] dim of outShape value should match the indicesShape value." % i)
        checks.same_dtype("self", x, "out", out)
        for i in range(x.ndim):
            if x.shape[i] < 1:
                raise status.param_invalid("The [%d] dim of selfShape is with size smaller than 1." % i)
        for i, value in enumerate(size):
            if value < 1:
                raise status.param_invalid("The [%d] dim of outputSize is less than 1." % i)
        a.empty = x.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 3), W.as_images(v["outputOut"], 3)
        values, index = adaptive_max(x, out.shape[2:])
        P.store(out, values)
        P.store(v["indicesOut"].reshape(index.shape), index)


class _AdaptiveMaxBackwardBase(AclnnOp):
    inputs = ("gradOutput", "self", "indices")
    outputs = ("gradInput",)
    rank = 2

    @staticmethod
    def data_dtypes():
        return P.codes("BF16 FLOAT16 FLOAT") if _products.line() in ("A2", "A3", "950") else ()

    def dtype_table(self):
        return {"gradOutput": self.data_dtypes(), "self": self.data_dtypes(), "gradInput": self.data_dtypes(),
                "indices": P.codes("INT32 INT64")}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "indices", "gradInput")
        grad, x, indices, dx = a.gradOutput, a.self, a.indices, a.gradInput
        checks.same_dtype("self", x, "gradOutput", grad)
        checks.same_dtype("self", x, "gradInput", dx)
        checks.dtype_in("self", x, self.data_dtypes())
        checks.dtype_in("indices", indices, P.codes("INT32 INT64"))
        if not x.ndim == dx.ndim == grad.ndim == indices.ndim:
            raise status.param_invalid("Dims of self and gradOutput and gradInput and indices should be same, self[%d], "
                                       "gradOutput[%d], gradInput[%d], indices[%d]." % (x.ndim, grad.ndim, dx.ndim,
                                                                                       indices.ndim))
        for i in range(x.ndim):
            if grad.shape[i] != indices.shape[i]:
                raise status.param_invalid("gradOutput dims No.[%d] must match indices dims." % i)
            if x.shape[i] != dx.shape[i]:
                raise status.param_invalid("self dims No.[%d] must match gradInput dims." % i)
        self.check_layout(a)
        a.empty = grad.is_empty() or x.is_empty() or indices.is_empty()

    def compute(self, a, v, workspace):
        dx = W.as_images(v["gradInput"], self.rank)
        if a.empty:
            dx[...] = 0
            return
        dy, index = W.as_images(v["gradOutput"], self.rank), W.as_images(v["indices"], self.rank)
        P.store(dx, W.scatter_gradient(self.name, dy, index, dx.shape, W.compute_type(dy)))


def _same_formats(grad, x, indices, dx, private_message):
    if not x.format == grad.format == dx.format == indices.format:
        raise status.param_invalid("Format of self and gradOutput and gradInput and indices should be same, self[%s], "
                                   "gradOutput[%s], gradInput[%s], indices[%s]."
                                   % tuple(W.format_name(t.format) for t in (x, grad, dx, indices)))
    if any(checks.is_private_format(t.format) for t in (x, dx, grad, indices)):
        raise status.param_invalid(private_message)


class AdaptiveMaxPool2dBackward(_AdaptiveMaxBackwardBase):
    name = "aclnnAdaptiveMaxPool2dBackward"

    @staticmethod
    def check_layout(a):
        grad, x, indices, dx = a.gradOutput, a.self, a.indices, a.gradInput
        _same_formats(grad, x, indices, dx, "Format only support NCHW or NCL")
        for name, t in (("self", x), ("gradInput", dx), ("gradOutput", grad), ("indices", indices)):
            if t.ndim not in (3, 4):
                raise status.param_invalid("3D or 4D tensor expected for %s but got dim num:%d" % (name, t.ndim))
        if not _products.is_regbase() and x.shape[-1] * x.shape[-2] > 2 ** 31 - 1:
            raise status.param_invalid("The size of self should be less than or equal to 2^31 - 1, but got "
                                       "selfSize:%d" % (x.shape[-1] * x.shape[-2]))


class AdaptiveMaxPool3dBackward(_AdaptiveMaxBackwardBase):
    name = "aclnnAdaptiveMaxPool3dBackward"
    rank = 3

    @staticmethod
    def check_layout(a):
        grad, x, indices, dx = a.gradOutput, a.self, a.indices, a.gradInput
        _same_formats(grad, x, indices, dx, "Format only support NCDHW or CDHW")
        for name, t in (("self", x), ("gradInput", dx), ("gradOutput", grad), ("indices", indices)):
            if t.ndim not in (4, 5):
                raise status.param_invalid("4D or 5D tensor expected for %s but got dim num:%d" % (name, t.ndim))
        allowed = P.codes("INT32 INT64") if _products.is_regbase() else P.codes("INT32")
        checks.dtype_in("indices", indices, allowed)
