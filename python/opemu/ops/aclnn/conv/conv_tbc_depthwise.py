"""aclnnConvDepthwise2d and aclnnConvTbc (ops-nn conv/convolution_forward op_api), and aclnnConvTbcBackward
(conv/convolution_backward): aclnnConvolution's arithmetic in two more layouts.

    ConvDepthwise2d  x (N, C, H, W), weight (C·m, 1, kH, kW) named again by kernelSize, groups = C
    ConvTbc          x (time, batch, C), weight (width, C, K), bias (K): y (time + 2·pad − width + 1, batch, K),
                     Fairseq's conv_tbc, run as the 1-D convolution of x permuted to (batch, C, time)

Phase 1 runs the op_api's checker lists for these layouts (their messages name the op's workspace entry as
the vendor's do: aclnnConvTbcGetWorkspaceSize, aclnnConvDepthwise2dGetWorkspaceSize); the depthwise form
also compares kernelSize with the weight's window after them."""
import numpy as np

from opemu.core import status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import cube_util
from opemu.ops.aclnn.common import oplog
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.conv import arithmetic
from opemu.ops.aclnn.conv.convolution import (BIAS_DTYPES, F, Convolution, _dtype_name, check_dtype, check_products,
                                              convolve)
from opemu.ops.aclnn.pooling.windows import format_name


class ConvDepthwise2d(Convolution):
    name = "aclnnConvDepthwise2d"
    ENTITY = "aclnnConvDepthwise2dGetWorkspaceSize"
    inputs = ("self", "weight", "bias")
    outputs = ("out",)

    def dtype_table(self):
        allowed = cube_util.conv_dtypes()
        return {"self": allowed, "weight": allowed, "bias": BIAS_DTYPES, "out": allowed}

    def check(self, a):
        op = self.ENTITY
        for value, name in ((a.self, "x"), (a.weight, "filter"), (a.stride, "strides"), (a.padding, "pads"),
                            (a.dilation, "dilations"), (a.out, "y")):
            if value is None:
                raise oplog.null(op, name)
        if a.kernelSize is None:
            raise oplog.null(op, "kernelSize")
        x, w, bias, y = a.self, a.weight, a.bias, a.out
        if bias is not None:
            check_dtype(op, "bias", bias, BIAS_DTYPES)
            if bias.dtype != x.dtype:
                raise oplog.should_be(op, "x", "dtype", _dtype_name(x.dtype), _dtype_name(bias.dtype))
        allowed = cube_util.conv_dtypes()
        for name, t in (("x", x), ("filter", w), ("y", y)):
            check_dtype(op, name, t, allowed)
        if x.dtype != w.dtype:
            raise oplog.should_be(op, "x", "dtype", _dtype_name(x.dtype), _dtype_name(w.dtype))
        if w.dtype != y.dtype:
            raise oplog.should_be(op, "filter", "dtype", _dtype_name(w.dtype), _dtype_name(y.dtype))
        for name, t in (("x", x), ("filter", w), ("y", y)):
            if t.ndim != 4:
                raise oplog.should_be(op, name, "shape dim", str(t.ndim), "4")
        if bias is not None and bias.ndim != 1:
            raise oplog.should_be(op, "bias", "shape dim", str(bias.ndim), "1")
        for name, values in (("strides", a.stride), ("dilations", a.dilation), ("pads", a.padding)):
            if len(values) != 2:
                raise oplog.should_be(op, name, "element nums", str(len(values)), "2")
        for name, t in (("x", x), ("filter", w), ("y", y)):
            if t.format != F["NCHW"]:
                raise oplog.should_be(op, name, "format", format_name(t.format), "NCHW")
        # the depthwise value rules: one filter channel per group, groups = C
        a.groups, a.transposed, a.outputPadding = x.shape[1], False, ()
        a.input, a.output = x, y
        self._check_values(a, op)
        expected = (x.shape[0], w.shape[0]) + tuple(
            (n + 2 * p - d * (k - 1) - 1) // s + 1
            for n, p, k, s, d in zip(x.shape[2:], a.padding, w.shape[2:], a.stride, a.dilation))
        for i, (want, have) in enumerate(zip(expected, y.shape)):
            if want != have:
                raise oplog.reason(op, "y", "shape", oplog.shape(y.shape), "shape[%d] of y must be equal to its "
                                   "inferred value(%d)" % (i, want))
        cube_util.check_cube_math_type(x.dtype, a.cubeMathType)
        check_products(op, 4, False)
        kernel = tuple(a.kernelSize)
        text = "[%d, %d]" % (kernel[0], kernel[1]) if len(kernel) >= 2 else oplog.shape(kernel)
        for i, axis in enumerate((2, 3)):
            if len(kernel) <= i or kernel[i] != w.shape[axis]:
                raise oplog.reasons(op, "filter, kernelSize", "shapes", "%s, %s" % (oplog.shape(w.shape), text),
                                    "shape[%d] of filter must be equal to the shape[%d] of kernelSize" % (axis, i))
        a.read = arithmetic.cube_read(x.dtype, a.cubeMathType)
        a.round_to = arithmetic.result_dtype(x.dtype, a.cubeMathType, False, y.dtype)
        a.empty = y.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        y = convolve(v["self"], v["weight"], v.get("bias"), a.padding, a.stride, a.dilation, a.groups, False, (),
                     a.read, a.round_to)
        P.store(v["out"], y)


def _tbc_layouts(op, x, w, y, names=(("x", "x"), ("filter", "weight"), ("y", "y"))):
    for (name, _), t in zip(names, (x, w, y)):
        if t.format not in (F["ND"], F["NCL"]):
            raise oplog.should_be(op, name, "format", format_name(t.format), "ND or NCL")
    if x.format != y.format:
        raise oplog.reasons(op, "x, y", "formats", "%s, %s" % (format_name(x.format), format_name(y.format)),
                            "the formats of these parameters must be the same")


class ConvTbc(AclnnOp):
    name = "aclnnConvTbc"
    ENTITY = "aclnnConvTbcGetWorkspaceSize"
    inputs = ("self", "weight", "bias")
    outputs = ("output",)

    def dtype_table(self):
        allowed = cube_util.cube_dtypes()
        return {"self": allowed, "weight": allowed, "bias": allowed, "output": allowed}

    def check(self, a):
        op = self.ENTITY
        for value, name in ((a.self, "x"), (a.weight, "filter"), (a.bias, "bias"), (a.output, "y")):
            if value is None:
                raise oplog.null(op, name)
        x, w, bias, y = a.self, a.weight, a.bias, a.output
        allowed = cube_util.cube_dtypes()
        check_dtype(op, "bias", bias, BIAS_DTYPES if _products.line() != "310P" else P.codes("FLOAT FLOAT16"))
        check_dtype(op, "x", x, allowed)
        if x.dtype != w.dtype:
            raise oplog.should_be(op, "x", "dtype", _dtype_name(x.dtype), _dtype_name(w.dtype))
        if w.dtype != y.dtype:
            raise oplog.should_be(op, "filter", "dtype", _dtype_name(w.dtype), _dtype_name(y.dtype))
        for name, t in (("x", x), ("filter", w), ("y", y)):
            if t.ndim != 3:
                raise oplog.should_be(op, name, "shape dim", str(t.ndim), "3")
        if bias.ndim != 1:
            raise oplog.should_be(op, "bias", "shape dim", str(bias.ndim), "1")
        _tbc_layouts(op, x, w, y)
        shapes = "%s, %s" % (oplog.shape(x.shape), oplog.shape(w.shape))
        if x.shape[2] != w.shape[1]:
            raise oplog.reasons(op, "x, filter", "shapes", shapes, "shape[2] of x must be equal to shape[1] of filter")
        if bias.shape[0] != w.shape[2]:
            raise oplog.reasons(op, "bias", "shapes", oplog.shape(bias.shape), "shape[0] of bias must be equal to "
                                "output channel(%d)" % w.shape[2])
        if a.pad < 0:
            raise oplog.reason(op, "pads", "value", str(a.pad), "the value should be greater than or equal to 0")
        length = x.shape[0] + 2 * a.pad - w.shape[0] + 1
        expected = (length, x.shape[1], w.shape[2])
        for i, (want, have) in enumerate(zip(expected, y.shape)):
            if want != have:
                raise oplog.reason(op, "y", "shape", oplog.shape(y.shape), "shape[%d] of y must be equal to its "
                                   "inferred value(%d)" % (i, want))
        cube_util.check_cube_math_type(x.dtype, a.cubeMathType)
        check_products(op, 3, False)
        a.read = arithmetic.cube_read(x.dtype, a.cubeMathType)
        a.round_to = arithmetic.result_dtype(x.dtype, a.cubeMathType, False, y.dtype)
        a.empty = y.is_empty() or x.is_empty() or w.is_empty()

    def compute(self, a, v, workspace):
        out = v["output"]
        if a.empty:
            if out.size:
                P.store(out, np.broadcast_to(np.asarray(v["bias"], np.float32), out.shape))
            return
        x = v["self"].transpose(1, 2, 0)          # (batch, C, time)
        w = v["weight"].transpose(2, 1, 0)        # (K, C, width)
        y = convolve(x, w, v["bias"], (a.pad,), (1,), (1,), 1, False, (), a.read, a.round_to)
        P.store(out, y.transpose(2, 0, 1))


class ConvTbcBackward(AclnnOp):
    name = "aclnnConvTbcBackward"
    ENTITY = "aclnnConvTbcBackward"
    inputs = ("self", "input", "weight", "bias")
    outputs = ("gradInput", "gradWeight", "gradBias")

    def dtype_table(self):
        allowed = cube_util.cube_dtypes()
        return {n: allowed for n in self.inputs + self.outputs}

    def check(self, a):
        op = self.ENTITY
        for name in ("self", "input", "weight", "bias", "gradInput", "gradWeight", "gradBias"):
            if getattr(a, name) is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument %s." % name)
        grad, x, w, bias = a.self, a.input, a.weight, a.bias
        allowed = cube_util.cube_dtypes()
        for name in ("self", "input", "weight", "bias", "gradInput", "gradWeight", "gradBias"):
            check_dtype(op, name, getattr(a, name), allowed)
        for name in ("self", "input", "weight"):
            t = getattr(a, name)
            if t.ndim != 3:
                raise oplog.should_be(op, name, "shape dim", str(t.ndim), "3")
        if bias.ndim != 1:
            raise oplog.should_be(op, "bias", "shape dim", str(bias.ndim), "1")
        if x.shape[2] != w.shape[1] or bias.shape[0] != w.shape[2]:
            raise oplog.reasons(op, "input, weight, bias", "shapes", "%s, %s, %s" % (
                oplog.shape(x.shape), oplog.shape(w.shape), oplog.shape(bias.shape)),
                "the channels of input, weight and bias do not match")
        if a.pad < 0:
            raise oplog.reason(op, "pad", "value", str(a.pad), "the value should be greater than or equal to 0")
        expected = (x.shape[0] + 2 * a.pad - w.shape[0] + 1, x.shape[1], w.shape[2])
        if tuple(grad.shape) != expected:
            raise oplog.reason(op, "self", "shape", oplog.shape(grad.shape), "it should be %s" % oplog.shape(expected))
        for name, like in (("gradInput", x), ("gradWeight", w), ("gradBias", bias)):
            if tuple(getattr(a, name).shape) != tuple(like.shape):
                raise oplog.reason(op, name, "shape", oplog.shape(getattr(a, name).shape), "it should be %s"
                                   % oplog.shape(like.shape))
        cube_util.check_cube_math_type(x.dtype, a.cubeMathType)
        check_products(op, 3, False)
        a.read = arithmetic.cube_read(x.dtype, a.cubeMathType)
        a.empty = x.is_empty() or w.is_empty() or grad.is_empty()

    def compute(self, a, v, workspace):
        dy = arithmetic.operand(v["self"].transpose(1, 2, 0), a.read)      # (batch, K, time_out)
        x = arithmetic.operand(v["input"].transpose(1, 2, 0), a.read)      # (batch, C, time)
        w = arithmetic.operand(v["weight"].transpose(2, 1, 0), a.read)     # (K, C, width)
        if a.empty:
            v["gradInput"][...] = 0
            v["gradWeight"][...] = 0
        else:
            dx = arithmetic.backward_data(dy, w, x.shape, (a.pad,), (1,), (1,), 1)
            P.store(v["gradInput"], dx.transpose(2, 0, 1))
            dw = arithmetic.backward_filter(x, dy, w.shape, (a.pad,), (1,), (1,), 1)
            P.store(v["gradWeight"], dw.transpose(2, 1, 0))
        grad = np.asarray(v["self"], np.float32)
        P.store(v["gradBias"], np.add.reduce(grad.reshape(-1, grad.shape[-1]), axis=0))
