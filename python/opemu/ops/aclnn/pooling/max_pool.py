"""Max pooling: aclnnMaxPool (ops-nn pooling/max_pool_v3), aclnnMaxPool2dWithIndices / aclnnMaxPool2dWithMask,
aclnnMaxPool3dWithArgmax (pooling/max_pool3d_with_argmax_v2) and their backward (pooling/max_pool3d_grad_with_argmax).

    MaxPool              ONNX's MaxPool: kernelShape, strides (empty: 1), pads (1, 2 or 4 values: begin and end per
                         dimension), dilations (1 only), ceilMode; no indices. The windows are mcDNN's max pooling.
    *WithIndices/Argmax  PyTorch's max_pool2d/3d_with_indices: the flat index of each maximum in its image's plane
                         (h·W + w) or volume (pooling/windows.py for the tie and NaN rule)
    *WithMask            the same pooling; its int8 `indices` is the hardware's mask buffer (N, C, kH·kW,
                         (⌈oh·ow/16⌉ + 1)·32 bytes). Atlas A2/A3 write the int32 flat indices (N, C, oh, ow) at its start
                         (the op_api points the argmax kernel's output there); opemu does so on every product, and the
                         mask backward reads them back. The 910's bit masks are not modelled.
    backward             gradInput = 0, then gradOutput added at each index (in output order, fp32, rounded once)

Phase 1 follows each op_api file. Their quirks kept: the with-indices backward compares the indices' shape with
gradOutput only in its log (the check's verdict is dropped); on Atlas A2/A3 the 2-D with-indices backward takes
FLOAT data only and INT32/INT8 indices; the mask forms are refused on the 950 ("deprecated")."""
import collections
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.mcdnn import POOLING
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.pooling import windows as W
from opemu.ops.mcdnn import pooling as mcdnn_pooling

_MaxPool = collections.namedtuple("_MaxPool", "mode nbDims window stride padding nan")
MAX_MODE = POOLING["MCDNN_POOLING_MAX"]


def _null_array(name):
    raise status.param_nullptr("Expected a value of type List[int] for argument %s but instead found type null." % name)


def _nulls(a, names, arrays):
    for name in names:
        if getattr(a, name) is None:
            if name in arrays:
                _null_array(name)
            checks.not_null(a, name)


def _size_1_or_2(array, name, allow_empty=False):
    if len(array) not in ((0, 1, 2) if allow_empty else (1, 2)):
        raise status.param_invalid("The size of %s must be %s, but got %d." % (
            name, "zero, one or two" if allow_empty else "one or two", len(array)))


# ---- MaxPool (ONNX) -----------------------------------------------------------------------------------------------

class MaxPool(AclnnOp):
    name = "aclnnMaxPool"
    inputs = ("self",)
    outputs = ("out",)

    @staticmethod
    def self_dtypes():
        line = _products.line()
        if line == "950":
            return P.codes("FLOAT16 FLOAT BF16 INT32 INT64 UINT8 INT16 INT8 UINT16")
        return P.codes("FLOAT16 FLOAT") if line in ("A2", "A3") else P.codes("FLOAT16")

    def dtype_table(self):
        return {"self": self.self_dtypes(), "out": self.self_dtypes()}

    def check(self, a):
        _nulls(a, ("self", "kernelShape", "strides", "pads", "dilations", "out"),
               ("kernelShape", "strides", "pads", "dilations"))
        x, out = a.self, a.out
        checks.dtype_in("self", x, self.self_dtypes())
        checks.same_dtype("self", x, "out", out)
        if x.format != out.format:
            raise status.param_invalid("Format of input and output should be same, self [%s], out [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        if checks.is_private_format(x.format):
            raise status.param_invalid("Format only support NCHW or CHW")
        if x.ndim not in (3, 4):
            raise status.param_invalid("3D or 4D tensor expected for inputs")
        if len(a.kernelShape) not in (1, 2):
            raise status.param_invalid("The size of kernelShape must be one or two, but got %d." % len(a.kernelShape))
        if len(a.strides) not in (0, 1, 2):
            raise status.param_invalid("The size of strides must be zero, one or two, but got %d." % len(a.strides))
        for name in ("pads", "dilations"):
            if len(getattr(a, name)) not in (0, 1, 2, 4):
                raise status.param_invalid("The size of %s must be zero, one, two or four, but got %d."
                                           % (name, len(getattr(a, name))))
        if a.autoPad != 0:
            raise status.param_invalid("value of autoPad must be zero representing NOTSET, but got autoPad:%d"
                                       % a.autoPad)
        if any(d != 1 for d in a.dilations):
            raise status.param_invalid("dilation value along each spatial axis only support 1, but got %s"
                                       % ", ".join(str(d) for d in a.dilations))
        k = tuple(a.kernelShape) * 2 if len(a.kernelShape) == 1 else tuple(a.kernelShape)
        if min(k) <= 0:
            raise status.param_invalid("The size of kernel should be greater than 0, but got kh:%d, kw:%d" % k)
        s = (1, 1) if not a.strides else (tuple(a.strides) * 2 if len(a.strides) == 1 else tuple(a.strides))
        if min(s) <= 0:
            raise status.param_invalid("The size of strides should be greater than 0, but got dh:%d, dw:%d" % s)
        pads = tuple(a.pads)
        begin, end = {0: ((0, 0), (0, 0)), 1: (pads * 2, pads * 2), 2: (pads, pads),
                      4: ((pads[0], pads[1]), (pads[2], pads[3]) if len(pads) == 4 else (0, 0))}[len(pads)]
        if begin[0] + end[0] > k[0] or begin[1] + end[1] > k[1]:
            raise status.param_invalid(
                "padding for the sum of beginning and ending along each spatial axis, should be smaller than, or equal "
                "to value of kernel size, but got kh:%d, kw:%d, padHL:%d, padHR:%d, padWL:%d, padWR:%d"
                % (k[0], k[1], begin[0], end[0], begin[1], end[1]))
        planes, spatial = x.shape[-3], x.shape[-2:]
        if 0 in (planes,) + tuple(spatial):
            raise status.param_invalid("Expected tensor with optional 0 dim batch size,                     but got "
                                       "nInputPlane:%d, height:%d, width:%d" % ((planes,) + tuple(spatial)))
        outs = tuple(W.out_size(n, kk, ss, b, e, 1, bool(a.ceilMode))
                     for n, kk, ss, b, e in zip(spatial, k, s, begin, end))
        if min(outs) <= 0:
            raise status.param_invalid("Given input size %dx%dx%d, calc out size %dx%dx%d"
                                       % ((planes,) + tuple(spatial) + (planes,) + outs))
        expected = x.shape[:-2] + outs
        checks.shape_is("out", out, expected, checks.shape_text(expected))
        a.pool = _MaxPool(MAX_MODE, 2, k, s, begin, True)
        a.empty = x.is_empty() or out.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 2), W.as_images(v["out"], 2)
        if x.dtype.kind in "iu":   # the 950's integer pooling: a selection
            values, _ = W.max_with_indices(x, out.shape[2:], a.pool.window, a.pool.stride, a.pool.padding, (1, 1))
            out[...] = values
            return
        ct = W.compute_type(x)
        with np.errstate(invalid="ignore"):
            P.store(out, mcdnn_pooling.pool(a.pool, x, out.shape, ct))


# ---- 2-D with indices / mask ---------------------------------------------------------------------------------------

def _with_indices_dtypes(mask):
    line = _products.line()
    if line in ("A2", "A3", "950"):
        return P.codes("FLOAT16 FLOAT BF16")
    if line == "910":
        return P.codes("FLOAT16 FLOAT") if mask else P.codes("FLOAT")
    if line == "310P":
        return P.codes("FLOAT") if mask else P.codes("FLOAT")
    return ()


def _check_2d_attributes(a, dilation_950=True):
    """CheckShape's attribute part (sizes, kernel, stride, padding, dilation); (k, s, p, d) per dimension."""
    for array, name in ((a.kernelSize, "kernelSize"), (a.stride, "stride"), (a.padding, "padding"),
                        (a.dilation, "dilation")):
        _size_1_or_2(array, name, allow_empty=name == "stride")
    k = tuple(a.kernelSize) * 2 if len(a.kernelSize) == 1 else tuple(a.kernelSize)
    if min(k) <= 0:
        raise status.param_invalid("The size of kernel should be greater than 0, but got kh:%d, kw:%d" % k)
    s = k if not a.stride else (tuple(a.stride) * 2 if len(a.stride) == 1 else tuple(a.stride))
    if min(s) <= 0:
        raise status.param_invalid("The size of stride should be greater than 0, but got dh:%d, dw:%d" % s)
    p = tuple(a.padding) * 2 if len(a.padding) == 1 else tuple(a.padding)
    if min(p) < 0 or p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise status.param_invalid("pad should be >= 0 and <= half of kernel size, but got kh:%d, kw:%d, padH:%d, "
                                   "padW:%d" % (k + p))
    d = tuple(a.dilation) * 2 if len(a.dilation) == 1 else tuple(a.dilation)
    if _products.is_regbase() and dilation_950:
        if min(d) <= 0:
            raise status.param_invalid("dilation should be greater than 0, but got dilationH:%d, dilationW:%d" % d)
    elif d != (1, 1):
        raise status.param_invalid("dilation only support 1, but got dilationH:%d, dilationW:%d" % d)
    return k, s, p, d


def _pooled_2d(x, k, s, p, d, ceil, pad_message=False):
    planes, spatial = x.shape[-3], x.shape[-2:]
    if 0 in (planes,) + tuple(spatial):
        gap = "        " if pad_message else " "
        raise status.param_invalid("Expected tensor%swith optional 0 dim batch size, but got nInputPlane:%d, height:%d, "
                                   "width:%d" % ((gap, planes) + tuple(spatial)))
    outs = tuple(W.out_size(n, kk, ss, pp, pp, dd, ceil) for n, kk, ss, pp, dd in zip(spatial, k, s, p, d))
    if min(outs) <= 0:
        raise status.param_invalid("Given input size %dx%dx%d, calc out size %dx%dx%d"
                                   % ((planes,) + tuple(spatial) + (planes,) + outs))
    return x.shape[:-2] + outs


def mask_shape(x_shape, k, outs):
    """The mask buffer's shape: (…, C, kH·kW, (⌈oh·ow/16⌉ + 1)·32)."""
    width = (-(-(outs[0] * outs[1]) // 16) + 1) * 2 * 16
    return tuple(x_shape[:-2]) + (k[0] * k[1], width)


class _MaxPool2dIndicesBase(AclnnOp):
    inputs = ("self",)
    outputs = ("out", "indices")
    mask = False

    def dtype_table(self):
        index = P.codes("INT8") if self.mask else P.codes("INT64 INT32")
        return {"self": _with_indices_dtypes(self.mask), "out": _with_indices_dtypes(self.mask), "indices": index}

    def check(self, a):
        if self.mask:
            self._check_mask_entry(a)
        _nulls(a, ("self", "kernelSize", "stride", "padding", "dilation", "out", "indices"),
               ("kernelSize", "stride", "padding", "dilation"))
        x, out, indices = a.self, a.out, a.indices
        allowed = _with_indices_dtypes(self.mask)
        if not allowed:
            raise status.param_invalid("support for %s is not implemented" % soc())
        checks.dtype_in("self", x, allowed)
        checks.same_dtype("self", x, "out", out)
        checks.dtype_in("indices", indices, P.codes("INT8") if self.mask else P.codes("INT64 INT32"))
        if x.format != out.format:
            raise status.param_invalid("Format of input and output should be same, self [%s], out [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        if checks.is_private_format(x.format):
            raise status.param_invalid("Format only support NCHW or CHW")
        if x.ndim not in (3, 4):
            raise status.param_invalid("3D or 4D tensor expected for inputs")
        k, s, p, d = _check_2d_attributes(a)
        expected = _pooled_2d(x, k, s, p, d, a.ceilMode)
        checks.shape_is("out", out, expected, checks.shape_text(expected))
        if self.mask:
            wanted = mask_shape(x.shape, k, expected[-2:])
            checks.shape_is("indices", indices, wanted, checks.shape_text(wanted))
        elif _products.is_regbase():
            checks.same_shape("indices", indices, "out", out)
        elif tuple(indices.shape) != expected and math.prod(indices.shape) != math.prod(expected):
            raise status.param_invalid("The out tensor's shape[%s] is not equal with inferOut shape[%s]."
                                       % (checks.shape_text(indices.shape), checks.shape_text(expected)))
        a.window, a.stride_values, a.padding_values, a.dilation_values = k, s, p, d
        a.empty = x.is_empty() or out.is_empty()

    @staticmethod
    def _check_mask_entry(a):
        if a.kernelSize is None:
            _null_array("kernelSize")
        checks.not_null(a, "self", "out")
        if len(a.kernelSize) not in (1, 2):
            raise status.param_invalid("param size must be a single int, or a tuple of two ints")
        if _products.is_regbase():
            raise status.param_invalid("On the 950 chip, the aclnnMaxPool2dWithMaskGetWorkspaceSize interface has been "
                                       "deprecated, please use the aclnnMaxPool2dWithIndices interface.")

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 2), W.as_images(v["out"], 2)
        values, index = W.max_with_indices(x, out.shape[2:], a.window, a.stride_values, a.padding_values,
                                           a.dilation_values)
        P.store(out, values)
        if self.mask:
            raw = v["indices"].reshape(-1).view(np.uint8)
            packed = index.astype(np.int32).reshape(-1).view(np.uint8)
            raw[:packed.size] = packed
        else:
            P.store(v["indices"].reshape(index.shape), index)


class MaxPool2dWithIndices(_MaxPool2dIndicesBase):
    name = "aclnnMaxPool2dWithIndices"


class MaxPool2dWithMask(_MaxPool2dIndicesBase):
    name = "aclnnMaxPool2dWithMask"
    mask = True


def _backward_dtypes(mask):
    line = _products.line()
    if line == "950":
        return P.codes("FLOAT16 FLOAT BF16")
    if line in ("A2", "A3"):
        return P.codes("FLOAT16 FLOAT BF16") if mask else P.codes("FLOAT")
    if line == "910":
        return P.codes("FLOAT16 FLOAT") if mask else ()
    return ()


class _MaxPool2dBackwardBase(AclnnOp):
    inputs = ("gradOutput", "self", "indices")
    outputs = ("gradInput",)
    mask = False

    def dtype_table(self):
        allowed = _backward_dtypes(self.mask)
        return {"gradOutput": allowed, "self": allowed, "gradInput": allowed, "indices": self._index_dtypes()}

    def _index_dtypes(self):
        if _products.is_regbase():
            return P.codes("INT32 INT64")
        return P.codes("INT8") if self.mask else P.codes("INT32 INT8")

    def check(self, a):
        if self.mask:
            if _products.is_regbase():
                raise status.param_invalid("Please use aclnnMaxPool2dWithIndicesBackward.")
            if a.kernelSize is None:
                _null_array("kernelSize")
            checks.not_null(a, "self", "gradOutput")
            if len(a.kernelSize) not in (1, 2):
                raise status.param_nullptr("param size must be a single int, or a tuple of two ints.                    "
                                           "stride can be empty. kernelSize:%d, stride:%d, padding:%d dilation:%d"
                                           % tuple(len(x or ()) for x in (a.kernelSize, a.stride, a.padding,
                                                                          a.dilation)))
        _nulls(a, ("gradOutput", "self", "indices", "kernelSize", "stride", "padding", "dilation", "gradInput"),
               ("kernelSize", "stride", "padding", "dilation"))
        grad, x, indices, dx = a.gradOutput, a.self, a.indices, a.gradInput
        checks.dtype_in("self", x, _backward_dtypes(self.mask))
        checks.same_dtype("self", x, "gradOutput", grad)
        checks.same_dtype("self", x, "gradInput", dx)
        checks.dtype_in("indices", indices, self._index_dtypes())
        if not x.format == grad.format == dx.format:
            raise status.param_invalid("Format of self and gradOutput and gradInput should be same, self[%s], "
                                       "gradOutput[%s], gradInput[%s]." % tuple(W.format_name(t.format)
                                                                               for t in (x, grad, dx)))
        if any(checks.is_private_format(t.format) for t in (x, dx, grad, indices)):
            raise status.param_invalid("Format only support ND, NCHW or NHWC" if _products.is_regbase()
                                       else "Format only support ND, NCHW")
        for name, t in (("self", x), ("gradInput", dx), ("gradOutput", grad), ("indices", indices)):
            if t.ndim not in (3, 4):
                raise status.param_invalid("3D or 4D tensor expected for %s but got dim num:%d" % (name, t.ndim))
        k, s, p, d = _check_2d_attributes(a)
        checks.same_shape("gradInput", dx, "self", x)
        for axis, (pp, kk, dd) in enumerate(zip(p, k, d)):
            if pp > ((kk - 1) * dd + 1) // 2:
                raise status.param_invalid("pad should be at most half of        effective kernel size, but got "
                                           "pad%s=%d, k%s=%d and dilation%s=%d" % ("HW"[axis], pp, "HW"[axis], kk,
                                                                                  "HW"[axis], dd))
        expected = _pooled_2d(x, k, s, p, d, a.ceilMode, pad_message=True)
        checks.shape_is("gradOutput", grad, expected, checks.shape_text(expected))
        a.empty = x.is_empty() or grad.is_empty()

    def compute(self, a, v, workspace):
        dx = W.as_images(v["gradInput"], 2)
        if a.empty:
            dx[...] = 0
            return
        dy = W.as_images(v["gradOutput"], 2)
        if self.mask:
            count = dy.size
            index = v["indices"].reshape(-1).view(np.uint8)[:4 * count].view(np.int32).reshape(dy.shape)
        else:
            index = W.as_images(v["indices"], 2)
        P.store(dx, W.scatter_gradient(self.name, dy, index, dx.shape, W.compute_type(dy)))


class MaxPool2dWithIndicesBackward(_MaxPool2dBackwardBase):
    name = "aclnnMaxPool2dWithIndicesBackward"


class MaxPool2dWithMaskBackward(_MaxPool2dBackwardBase):
    name = "aclnnMaxPool2dWithMaskBackward"
    mask = True


# ---- 3-D with argmax -------------------------------------------------------------------------------------------------

def _argmax3d_dtypes():
    return P.codes("BF16 FLOAT16 FLOAT") if _products.line() in ("A2", "A3", "950") else ()


def _check_3d_attributes(a, backward):
    for array, name, sizes in ((a.kernelSize, "kernelSize", (1, 3)), (a.stride, "stride", (0, 1, 3)),
                               (a.padding, "padding", (1, 3)), (a.dilation, "dilation", (1, 3))):
        if len(array) not in sizes:
            if name == "stride":
                raise status.param_invalid("The length of stride can be only %s" % ("0, 1 or 3" if backward else
                                                                                    "1 or 3"))
            raise status.param_invalid("The length of %s can be only 1 or 3%s" % (name, "." if backward and name in (
                "kernelSize", "padding") else ""))
    word = "size" if backward else "value"
    k = tuple(a.kernelSize) * 3 if len(a.kernelSize) == 1 else tuple(a.kernelSize)
    if min(k) <= 0:
        raise status.param_invalid("The %s of kernel should be greater than 0, but got kernelD:%d, kernelH:%d, "
                                   "kernelW:%d" % ((word,) + k))
    s = k if not a.stride else (tuple(a.stride) * 3 if len(a.stride) == 1 else tuple(a.stride))
    if min(s) <= 0:
        raise status.param_invalid("The %s of stride should be greater than 0, but got strideD:%d, strideH:%d, "
                                   "strideW:%d" % ((word,) + s))
    p = tuple(a.padding) * 3 if len(a.padding) == 1 else tuple(a.padding)
    if min(p) < 0:
        raise status.param_invalid("The %s of padding should be greater than or equal to 0, but got paddingD:%d, "
                                   "paddingH:%d, paddingW:%d" % ((word,) + p))
    if any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise status.param_invalid("Padding should be smaller than or equal to half of kernel size, but got kernelD:%d, "
                                   "kernelH:%d, kernelW:%d, paddingD:%d, paddingH:%d, paddingW:%d" % (k + p))
    d = tuple(a.dilation) * 3 if len(a.dilation) == 1 else tuple(a.dilation)
    if backward and min(d) <= 0:
        raise status.param_invalid("The size of dilation should be greater than 0, but got dilationD:%d, dilationH:%d, "
                                   "dilationW:%d" % d)
    if not _products.is_regbase() and d != (1, 1, 1):
        raise status.param_invalid("The value of dilation should be equal 1, but got dilationD:%d, dilationH:%d, "
                                   "dilationW:%d" % d)
    return k, s, p, d


class MaxPool3dWithArgmax(AclnnOp):
    name = "aclnnMaxPool3dWithArgmax"
    inputs = ("self",)
    outputs = ("out", "indices")

    def dtype_table(self):
        index = P.codes("INT32 INT64") if _products.is_regbase() else P.codes("INT32")
        return {"self": _argmax3d_dtypes(), "out": _argmax3d_dtypes(), "indices": index}

    def check(self, a):
        _nulls(a, ("self", "kernelSize", "stride", "padding", "dilation", "out", "indices"),
               ("kernelSize", "stride", "padding", "dilation"))
        x, out, indices = a.self, a.out, a.indices
        checks.dtype_in("self", x, _argmax3d_dtypes())
        checks.dtype_in("indices", indices, self.dtype_table()["indices"])
        checks.same_dtype("self", x, "out", out)
        if x.format != out.format:
            raise status.param_invalid("Format of input and output should be same, self [%s], out [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        if x.format != indices.format:
            raise status.param_invalid("Format of input and indices should be same, self [%s], indices [%s]."
                                       % (W.format_name(x.format), W.format_name(indices.format)))
        if x.ndim not in (4, 5):
            raise status.param_invalid("4D or 5D tensor expected for inputs")
        k, s, p, d = _check_3d_attributes(a, backward=False)
        outs = tuple(W.out_size(n, kk, ss, pp, pp, dd, a.ceilMode)
                     for n, kk, ss, pp, dd in zip(x.shape[-3:], k, s, p, d))
        expected = x.shape[:-3] + outs
        for t in (out, indices):
            if tuple(t.shape) != expected and not (math.prod(t.shape) == 1 == math.prod(expected)):
                raise status.param_invalid("The out tensor's shape[%s] is not equal with inferOut shape[%s]."
                                           % (checks.shape_text(t.shape), checks.shape_text(expected)))
        a.window, a.stride_values, a.padding_values, a.dilation_values = k, s, p, d
        a.empty = x.is_empty() or out.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 3), W.as_images(v["out"], 3)
        values, index = W.max_with_indices(x, out.shape[2:], a.window, a.stride_values, a.padding_values,
                                           a.dilation_values)
        P.store(out, values)
        P.store(v["indices"].reshape(index.shape), index)


class MaxPool3dWithArgmaxBackward(AclnnOp):
    name = "aclnnMaxPool3dWithArgmaxBackward"
    inputs = ("gradOutput", "self", "indices")
    outputs = ("gradInput",)

    def dtype_table(self):
        index = P.codes("INT32 INT64") if _products.is_regbase() else P.codes("INT32")
        return {"gradOutput": _argmax3d_dtypes(), "self": _argmax3d_dtypes(), "gradInput": _argmax3d_dtypes(),
                "indices": index}

    def check(self, a):
        _nulls(a, ("gradOutput", "self", "indices", "kernelSize", "stride", "padding", "dilation", "gradInput"),
               ("kernelSize", "stride", "padding", "dilation"))
        grad, x, indices, dx = a.gradOutput, a.self, a.indices, a.gradInput
        checks.dtype_in("self", x, _argmax3d_dtypes())
        checks.dtype_in("indices", indices, self.dtype_table()["indices"])
        checks.same_dtype("self", x, "gradOutput", grad)
        checks.same_dtype("self", x, "gradInput", dx)
        if not x.format == grad.format == dx.format:
            raise status.param_invalid("Format of self and gradOutput and gradInput should be same, self[%s], "
                                       "gradOutput[%s], gradInput[%s]." % tuple(W.format_name(t.format)
                                                                               for t in (x, grad, dx)))
        if any(checks.is_private_format(t.format) for t in (x, grad, dx, indices)):
            raise status.param_invalid("Private format is not supported, please use a non-private format such as "
                                       "NCDHW.")
        for name, t in (("gradOutput", grad), ("gradInput", dx), ("indices", indices), ("self", x)):
            if t.ndim not in (4, 5):
                raise status.param_invalid("4D or 5D tensor expected for %s but got dim num:%d" % (name, t.ndim))
        k, s, p, d = _check_3d_attributes(a, backward=True)
        if x.numel() > 2 ** 32 - 1:
            raise status.param_invalid("The size of self should be less than or equal to 2^32 - 1, but got selfSize:%d"
                                       % x.numel())
        checks.same_shape("indices", indices, "gradOutput", grad)
        checks.same_shape("self", x, "gradInput", dx)
        a.empty = x.is_empty() or grad.is_empty()

    def compute(self, a, v, workspace):
        dx = W.as_images(v["gradInput"], 3)
        if a.empty:
            dx[...] = 0
            return
        dy, index = W.as_images(v["gradOutput"], 3), W.as_images(v["indices"], 3)
        P.store(dx, W.scatter_gradient(self.name, dy, index, dx.shape, W.compute_type(dy)))

