"""aclnnAvgPool2d, aclnnAvgPool3d and their backward (ops-nn pooling/avg_pool3_d, avg_pool3_d_grad op_api):
PyTorch's avg_pool2d/avg_pool3d on (N,) C, spatial… tensors, on mcDNN's pooling arithmetic (pooling/windows.py).

    kernelSize  1 or 2 (3 for 3-D) values; stride 0 (= kernel), 1 or 2 (3) values; padding 1 or 2 (3) values,
    at most half the kernel; ceilMode; countIncludePad; divisorOverride (0: the window's count)

Phase 1 follows each op_api file check by check; AvgPool2d wants NCHW (4-D) or NCL (3-D) storage formats, as
its op_api checks them. cubeMathType (AvgPool2d): CheckCubeMathType's refusals; the value changes nothing
else here (the hardware's cube path with USE_FP16 reads fp32 data as fp16; opemu keeps fp32). The backward
computes with gradOutput's spatial size as the outputs' (AvgPool2dBackward does not compare it with the
forward's)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import cube_util
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.pooling import windows as W


def _pool2d_dtypes():
    return P.codes("FLOAT FLOAT16 BF16") if _products.line() in ("A2", "A3", "950") else P.codes("FLOAT FLOAT16")


def _attributes(kernel, stride, padding, count):
    """(kernel, stride, padding) per spatial dimension: a single value repeats, an empty stride is the kernel."""
    k = tuple(kernel) * count if len(kernel) == 1 else tuple(kernel)
    s = k if len(stride) == 0 else (tuple(stride) * count if len(stride) == 1 else tuple(stride))
    p = tuple(padding) * count if len(padding) == 1 else tuple(padding)
    return k, s, p


class AvgPool2d(AclnnOp):
    name = "aclnnAvgPool2d"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": cube_util.conv_dtypes(), "out": cube_util.conv_dtypes()}

    def check(self, a):
        for name in ("self", "kernelSize", "strides", "paddings", "out"):
            if getattr(a, name) is None:
                checks.not_null(a, name) if name in ("self", "out") else _null_array(name)
        x, out = a.self, a.out
        allowed = cube_util.conv_dtypes()
        checks.dtype_in("self", x, allowed)
        checks.dtype_in("out", out, allowed)
        checks.same_dtype("self", x, "out", out)
        _check_nchw_or_ncl(x, out)
        if any(v <= 0 for v in a.kernelSize):
            raise status.param_invalid("Dim value of kernel is less than or equal to 0.")
        if any(v <= 0 for v in a.strides):
            raise status.param_invalid("Dim value of stride is less than or equal to 0.")
        if any(v < 0 for v in a.paddings):
            raise status.param_invalid("Dim value of padding is negtive.")
        if not (x.ndim == out.ndim and x.ndim in (3, 4)):
            raise status.param_invalid("self and out must maintain same format, support 3D or 4D.")
        if 0 in (x.shape if x.ndim == 3 else x.shape[1:]):
            raise status.param_invalid("Expected tensor with optional 0 dim batch size for input, but got: %s."
                                       % checks.shape_text(x.shape))
        if len(a.kernelSize) < 1:
            raise status.param_invalid("Length of kernel is less than 1.")
        if len(a.paddings) not in (1, 2):
            raise status.param_invalid("Expected length of padding is 1 or 2, but got %d." % len(a.paddings))
        if len(a.strides) > 2:
            raise status.param_invalid("Expected length of stride is 0 or 1 or 2, but got: %d." % len(a.strides))
        k, s, p = _attributes(a.kernelSize[:2], a.strides, a.paddings, 2)
        _check_half_kernel(k, p)
        a.window, a.stride, a.padding = k, s, p
        spatial = x.shape[-2:]
        planes = x.shape[-3]
        outs = tuple(W.out_size(n, kk, ss, pp, pp, 1, a.ceilMode) for n, kk, ss, pp in zip(spatial, k, s, p))
        if min(outs) <= 0:
            raise status.param_invalid("Given input size %dx%dx%d, calc out size %dx%dx%d"
                                       % ((planes,) + tuple(spatial) + (planes,) + outs))
        expected = x.shape[:-2] + outs
        checks.shape_is("out", out, expected, checks.shape_text(expected))
        cube_util.check_cube_math_type(x.dtype, a.cubeMathType)
        a.empty = x.is_empty() or out.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 2), W.as_images(v["out"], 2)
        result = W.average(x, out.shape[2:], a.window, a.stride, a.padding, a.countIncludePad, a.divisorOverride)
        P.store(out, result)


def _null_array(name):
    raise status.param_nullptr("Expected a value of type List[int] for argument %s but instead found type null." % name)


def _check_nchw_or_ncl(x, out):
    for name, t in (("self", x), ("out", out)):
        if t.format not in (W.NCHW, W.NCL):
            raise status.param_invalid("%s format should be NCHW or NCL. Actual: %s is [%s]."
                                       % (name, name, W.format_name(t.format)))
    if x.ndim == 4 and (x.format != W.NCHW or out.format != W.NCHW):
        raise status.param_invalid("self and out should all be NCHW when 4D. Actual: self [%s], out [%s]."
                                   % (W.format_name(x.format), W.format_name(out.format)))
    if x.ndim == 3 and (x.format != W.NCL or out.format != W.NCL):
        raise status.param_invalid("self and out should all be NCL when 3D. Actual: self [%s], out [%s]."
                                   % (W.format_name(x.format), W.format_name(out.format)))


def _check_half_kernel(k, p):
    if k[0] < 2 * p[0]:
        raise status.param_invalid("value of paddingH should be at most half of kernelH. Actual: paddingH is [%d],"
                                   "kernelH is [%d]." % (p[0], k[0]))
    if k[1] < 2 * p[1]:
        raise status.param_invalid("value of paddingW should be at most half of kernelW. Actual: paddingW is [%d],"
                                   "kernelW is [%d]." % (p[1], k[1]))


class AvgPool2dBackward(AclnnOp):
    name = "aclnnAvgPool2dBackward"
    inputs = ("gradOutput", "self")
    outputs = ("gradInput",)

    def dtype_table(self):
        allowed = _pool2d_dtypes()
        return {"gradOutput": allowed, "self": allowed, "gradInput": allowed}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self")
        for name in ("kernelSize", "padding"):
            if getattr(a, name) is None:
                _null_array(name)
        checks.not_null(a, "gradInput")
        grad, x, dx = a.gradOutput, a.self, a.gradInput
        allowed = _pool2d_dtypes()
        for name in ("gradOutput", "self", "gradInput"):
            checks.dtype_in(name, getattr(a, name), allowed)
        if grad.dtype != dx.dtype:
            raise status.param_invalid("Dtype of gradOutput and gradInput should be equal, gradOutput [%s], gradInput "
                                       "[%s]." % (dtypes.serial_name(grad.dtype), dtypes.serial_name(dx.dtype)))
        for name, t in (("gradOutput", grad), ("self", x), ("gradInput", dx)):
            if t.format not in (W.NCHW, W.NCL):
                raise status.param_invalid("%s format should be NCHW or NCL. Actual: %s is [%s]."
                                           % (name, name, W.format_name(t.format)))
        if grad.ndim == 4 and (grad.format != W.NCHW or dx.format != W.NCHW):
            raise status.param_invalid("gradOutput and gradInput should all be NCHW when 4D. Actual: gradOutput [%s], "
                                       "gradInput [%s]." % (W.format_name(grad.format), W.format_name(dx.format)))
        if not (grad.ndim == dx.ndim and grad.ndim in (3, 4)):
            raise status.param_invalid("gradOutput and gradInput must be 3D or 4D at the same time.")
        if not 1 <= len(a.kernelSize) <= 2:
            raise status.param_invalid("Dims of kernelSize should be 1 or 2, Actual: Dims of kernelSize is [%d]."
                                       % len(a.kernelSize))
        if any(v <= 0 for v in a.kernelSize):
            raise status.param_invalid("Dim value of kernelSize is negative or zero.")
        stride = a.stride if a.stride is not None else ()
        if len(stride) > 2:
            raise status.param_invalid("Dims of stride should <= 2, Actual: Dims of stride is [%d]." % len(stride))
        if any(v <= 0 for v in stride):
            raise status.param_invalid("Dim value of stride is negative or zero.")
        if len(a.padding) > 2:
            raise status.param_invalid("Dims of padding should <= 2, Actual: Dims of padding is [%d]." % len(a.padding))
        if not a.padding:
            raise status.param_invalid("padding is empty")
        k, s, p = _attributes(a.kernelSize, stride, a.padding, 2)
        _check_half_kernel(k, p)
        if a.cubeMathType not in (0, 1, 2, 3):
            raise status.param_invalid("value of cubeMathType cann't be is not in [KEEP_DTYPE, "
                                       "ALLOW_FP32_DOWN_PRECISION, USE_FP16, USE_HF32].")
        if x.shape != dx.shape:
            raise status.param_invalid("out tensor's shape[%s] is not equel with inferOut shape[%s]"
                                       % (checks.shape_text(x.shape), checks.shape_text(dx.shape)))
        a.window, a.stride_values, a.padding_values = k, s, p
        a.empty = grad.is_empty() or x.is_empty()

    def compute(self, a, v, workspace):
        dx = v["gradInput"]
        if a.empty:
            dx[...] = 0
            return
        dy = W.as_images(v["gradOutput"], 2)
        target = W.as_images(dx, 2)
        grad = W.average_gradient(dy, target.shape, a.window, a.stride_values, a.padding_values, a.countIncludePad,
                                  a.divisorOverride)
        P.store(target, grad)


def _pool3d_dtypes():
    return P.codes("FLOAT FLOAT16 BF16") if _products.line() in ("A2", "A3", "950") else P.codes("FLOAT FLOAT16")


class AvgPool3d(AclnnOp):
    name = "aclnnAvgPool3d"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": _pool3d_dtypes(), "out": _pool3d_dtypes()}

    def check(self, a):
        for name in ("self", "kernelSize", "stride", "padding", "out"):
            if getattr(a, name) is None:
                checks.not_null(a, name) if name in ("self", "out") else _null_array(name)
        x, out = a.self, a.out
        checks.dtype_in("self", x, _pool3d_dtypes())
        checks.same_dtype("self", x, "out", out)
        if x.format != out.format:
            raise status.param_invalid("self and out format should be same. Actual: self is [%s], out is [%s]."
                                       % (W.format_name(x.format), W.format_name(out.format)))
        if checks.is_private_format(x.format):
            raise status.param_invalid("Not support format [%s]." % W.format_name(x.format))
        if not (x.ndim in (4, 5) and x.ndim == out.ndim):
            raise status.param_invalid("self and out must maintain same format, support 4D or 5D.")
        if len(a.kernelSize) not in (1, 3):
            raise status.param_invalid("Expected length of kernel is 1 or 3, but got %d." % len(a.kernelSize))
        if len(a.padding) not in (1, 3):
            raise status.param_invalid("Expected length of padding is 1 or 3, but got %d." % len(a.padding))
        if len(a.stride) not in (0, 1, 3):
            raise status.param_invalid("Expected length of stride is 0 or 1 or 3, but got: %d." % len(a.stride))
        k, s, p = _attributes(a.kernelSize, a.stride, a.padding, 3)
        spatial = x.shape[-3:]
        for kk, ss, pp, n in zip(k, s, p, spatial):
            _check_3d_attribute(kk, ss, pp, n)
        outs = tuple(W.out_size(n, kk, ss, pp, pp, 1, a.ceilMode) for n, kk, ss, pp in zip(spatial, k, s, p))
        if min(outs) < 0:
            raise status.param_invalid("Given input size [%d,%d,%d,%d], calc out size [%d,%d,%d,%d] dim value should "
                                       "be non negative" % ((x.shape[-4],) + tuple(spatial) + (x.shape[-4],) + outs))
        expected = x.shape[:-3] + outs
        checks.shape_is("out", out, expected, checks.shape_text(expected))
        a.window, a.stride_values, a.padding_values = k, s, p
        a.empty = x.is_empty() or out.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = W.as_images(v["self"], 3), W.as_images(v["out"], 3)
        result = W.average(x, out.shape[2:], a.window, a.stride_values, a.padding_values, a.countIncludePad,
                           a.divisorOverride)
        P.store(out, result)


def _check_3d_attribute(kernel, stride, pad, size):
    if kernel <= 0 or kernel > size:
        raise status.param_invalid("kernel value(%d) is invaild, must be (0, %d]." % (kernel, size))
    if stride <= 0:
        raise status.param_invalid("stride value(%d) is less than or equal to 0." % stride)
    if not 0 <= pad <= kernel // 2:
        raise status.param_invalid("padding value(%d) is invaild, must be [0, kernel/2]." % pad)


class AvgPool3dBackward(AclnnOp):
    name = "aclnnAvgPool3dBackward"
    inputs = ("gradOutput", "self")
    outputs = ("output",)

    def dtype_table(self):
        allowed = _pool3d_dtypes() if _products.line() in ("A2", "A3", "950") else ()
        return {"gradOutput": allowed, "self": allowed, "output": allowed}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self")
        for name in ("kernelSize", "stride", "padding"):
            if getattr(a, name) is None:
                _null_array(name)
        if a.output is None:
            raise status.param_nullptr("Expected a proper Tensor but got null for argument out.")
        grad, x, out = a.gradOutput, a.self, a.output
        allowed = self.dtype_table()["self"]
        checks.dtype_in("gradOutput", grad, allowed)
        checks.dtype_in("self", x, allowed)
        checks.dtype_in("out", out, allowed)
        if grad.ndim not in (4, 5):
            raise status.param_invalid("grad dim [%d] should be 4 or 5" % grad.ndim)
        if x.ndim != grad.ndim or x.ndim != out.ndim:
            raise status.param_invalid("self dim num [%d] should be equal to grad dim num [%d] and out dim num [%d]"
                                       % (x.ndim, grad.ndim, out.ndim))
        for i, (n, m) in enumerate(zip(x.shape, out.shape)):
            if n != m:
                raise status.param_invalid("self dim [%d] is [%d] should be equal to out dim [%d]" % (i, n, m))
        if len(a.kernelSize) not in (1, 3):
            raise status.param_invalid("kernel size [%d] must be 1 or 3" % len(a.kernelSize))
        if len(a.padding) not in (1, 3):
            raise status.param_invalid("padding size [%d] must be 1 or 3" % len(a.padding))
        if len(a.stride) not in (0, 1, 3):
            raise status.param_invalid("stride size [%d] must be 0 or 1 or 3" % len(a.stride))
        if grad.format != out.format:
            raise status.param_invalid("Format of input and out should be equal, input [%s], out [%s]."
                                       % (W.format_name(grad.format), W.format_name(out.format)))
        if checks.is_private_format(grad.format):
            raise status.param_invalid("Format only don't support private format.")
        k, s, p = _attributes(a.kernelSize, a.stride, a.padding, 3)
        spatial = x.shape[-3:]
        if any(v <= 0 for v in k + s):
            raise status.param_invalid("kernelSize and stride values must be greater than 0")
        outs = tuple(W.out_size(n, kk, ss, pp, pp, 1, a.ceilMode) for n, kk, ss, pp in zip(spatial, k, s, p))
        if min(outs) < 0:
            raise status.param_invalid("Given input size [%d,%d,%d,%d], calc gradOutput size [%d,%d,%d,%d] dim value "
                                       "should be non negative"
                                       % ((x.shape[-4],) + tuple(spatial) + (x.shape[-4],) + outs))
        expected = x.shape[:-3] + outs
        checks.shape_is("gradOutput", grad, expected, checks.shape_text(expected))
        a.window, a.stride_values, a.padding_values = k, s, p
        a.empty = grad.is_empty() or x.is_empty()

    def compute(self, a, v, workspace):
        out = v["output"]
        if a.empty:
            out[...] = 0
            return
        dy, target = W.as_images(v["gradOutput"], 3), W.as_images(out, 3)
        grad = W.average_gradient(dy, target.shape, a.window, a.stride_values, a.padding_values, a.countIncludePad,
                                  a.divisorOverride)
        P.store(target, grad)
