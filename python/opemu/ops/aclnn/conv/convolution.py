"""aclnnConvolution, aclnnConvDepthwise2d, aclnnConvTbc (ops-nn conv/convolution_forward op_api,
aclnn_convolution.cpp): 1-D, 2-D and 3-D convolutions and their transposed form, on mcDNN's convolution
kernels (conv/arithmetic.py, which states the cube's rounding points).

    Convolution      y = conv(x, w) + bias; x (N, C, spatial…), w (K, C/groups, window…), y (N, K, out…);
                     transposed: w (C, K/groups, window…), the transposed convolution (PyTorch's conv_transpose)
                     with outputPadding. pads: one value per dimension, or (begin, end) pairs for 1-D
                     and 2-D (top, bottom, left, right).
    ConvDepthwise2d  a 2-D convolution with groups = C (K = C·multiplier), kernelSize naming the window
    ConvTbc          Fairseq's conv_tbc: x (time, batch, channel), w (width, C, K), bias (K), padding on time

Phase 1 runs the op_api's checkers in order: nulls (x, filter, strides, pads, dilations, y; outputPadding when
transposed) → dtypes (bias, then x, filter, y: the cube's list) → dims (tensor ranks, bias, attribute list sizes) →
formats (NCL / NCHW / NCDHW, as the rank asks) → values (spatial sizes, strides and dilations > 0, padded input
reaching the window, groups > 0, channels and groups, bias length) → the inferred output shape → cubeMathType
(CheckCubeMathType) → the product (910, A2, A3, 310P, 310B for 2-D forward only, 950). Messages are opbase's
parameter-error formats (common/oplog.py)."""
import numpy as np

from opemu.core import dtypes
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import cube_util
from opemu.ops.aclnn.common import oplog
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.conv import arithmetic
from opemu.ops.aclnn.pooling.windows import format_name

F = {n: dtypes.ACL_FORMAT["ACL_FORMAT_" + n] for n in ("NCL", "NCHW", "NCDHW", "ND", "NDHWC", "FRACTAL_Z")}
RANK_FORMAT = {3: "NCL", 4: "NCHW", 5: "NCDHW"}
BIAS_DTYPES = P.codes("FLOAT FLOAT16 BF16")


def _dtype_name(code):
    return dtypes.serial_name(code)


def _list(codes):
    return "one of [" + ", ".join(_dtype_name(c) for c in codes) + "]"


def check_dtype(op, name, tensor, allowed):
    if tensor.dtype not in allowed:
        raise oplog.should_be(op, name, "dtype", _dtype_name(tensor.dtype), _list(allowed))


def upper_dtype(*codes):
    """GetUpperFloatDataType: the wider float of the operands (fp16 with bf16 → fp32)."""
    result = codes[0]
    for code in codes[1:]:
        result = P.promote(result, code) or P.FLOAT
    return result


def check_products(op, rank, transposed):
    """TemporarySoftwareLimitChecker: the 310B takes 2-D forward convolutions only; other SoCs none."""
    line = _products.line()
    if line == "310B" and (transposed or rank != 4):
        raise oplog.should_be(op, "x", "shape dim", str(rank), "When the SoC version is %s, the value of this "
                              "parameter can only be 4" % soc())
    if line is None:
        raise oplog.should_be(op, "SoC version", "value", soc(), "one of {Ascend910, Ascend910B, Ascend910_93, "
                              "Ascend310P, Ascend310B, Ascend950}")


def out_shape(x_shape, w_shape, pads, stride, dilation, groups, transposed, output_padding):
    """InferShape: the output's (N, K, out…)."""
    spatial = len(x_shape) - 2
    pairs = arithmetic._pairs(pads, spatial)
    if not transposed:
        outs = [(n + b + e - d * (k - 1) - 1) // s + 1
                for n, (b, e), k, s, d in zip(x_shape[2:], pairs, w_shape[2:], stride, dilation)]
        return (x_shape[0], w_shape[0]) + tuple(outs)
    outs = [(n - 1) * s - b - e + d * (k - 1) + op + 1
            for n, (b, e), k, s, d, op in zip(x_shape[2:], pairs, w_shape[2:], stride, dilation, output_padding)]
    return (x_shape[0], w_shape[1] * groups) + tuple(outs)


class Convolution(AclnnOp):
    name = "aclnnConvolution"
    inputs = ("input", "weight", "bias")
    outputs = ("output",)

    def dtype_table(self):
        return {"input": cube_util.conv_dtypes(), "weight": cube_util.conv_dtypes(), "bias": BIAS_DTYPES,
                "output": cube_util.conv_dtypes()}

    def check(self, a):
        op = self.name
        for value, name in ((a.input, "x"), (a.weight, "filter"), (a.stride, "strides"), (a.padding, "pads"),
                            (a.dilation, "dilations"), (a.output, "y")):
            if value is None:
                raise oplog.null(op, name)
        if a.transposed and a.outputPadding is None:
            raise oplog.null(op, "outputPadding")
        x, w, bias, y = a.input, a.weight, a.bias, a.output
        if bias is not None:
            check_dtype(op, "bias", bias, BIAS_DTYPES)
        allowed = cube_util.conv_dtypes(conv_backward=a.transposed, transposed=not a.transposed) if a.transposed \
            else cube_util.conv_dtypes()
        for name, t in (("x", x), ("filter", w), ("y", y)):
            check_dtype(op, name, t, allowed)
        self._check_dims(a)
        self._check_formats(a)
        self._check_values(a)
        expected = out_shape(x.shape, w.shape, a.padding, a.stride, a.dilation, a.groups, a.transposed,
                             a.outputPadding or ())
        for i, (want, have) in enumerate(zip(expected, y.shape)):
            if want != have:
                raise oplog.reason(op, "y", "shape", oplog.shape(y.shape), "shape[%d] of y must be equal to its "
                                   "inferred value(%d)" % (i, want))
        if x.is_empty() or w.is_empty():
            if not y.is_empty():
                raise oplog.reasons(op, "x, filter, y", "shapes", "%s, %s, %s" % (
                    oplog.shape(x.shape), oplog.shape(w.shape), oplog.shape(y.shape)),
                    "if x or filter is an empty tensor, output must be an empty tensor. Empty tensor definition: A "
                    "dimension in the shape is 0. ")
        upper = upper_dtype(x.dtype, w.dtype)
        cube_util.check_cube_math_type(upper, a.cubeMathType)
        check_products(op, x.ndim, a.transposed)
        a.read = arithmetic.cube_read(upper, a.cubeMathType)
        a.round_to = arithmetic.result_dtype(upper, a.cubeMathType, a.transposed, y.dtype)
        a.empty = y.is_empty()

    def _check_dims(self, a):
        op, x, w, y = self.name, a.input, a.weight, a.output
        for name, t in (("x", x), ("filter", w), ("y", y)):
            if t.ndim not in (3, 4, 5):
                raise oplog.should_be(op, name, "shape dim", str(t.ndim), "one of {3, 4, 5}")
        if w.ndim != x.ndim:
            raise oplog.reasons(op, "x, filter", "shape dims", "%d, %d" % (x.ndim, w.ndim),
                                "the shape dims of x and filter must be the same")
        if y.ndim != x.ndim:
            raise oplog.reasons(op, "x, y", "shape dims", "%d, %d" % (x.ndim, y.ndim),
                                "the shape dims of x and y must be the same")
        if a.bias is not None:
            if a.bias.ndim != 1:
                raise oplog.should_be(op, "bias", "shape dim", str(a.bias.ndim), "1")
            size = a.bias.shape[0]
            if a.transposed and size != w.shape[1] * a.groups:
                raise oplog.reasons(op, "bias, filter", "shapes", "%s, %s" % (oplog.shape(a.bias.shape),
                                                                             oplog.shape(w.shape)),
                                    "When transposed is true, shape[0] of bias must be equal to shape[1] of filter "
                                    "multiplied by attribute groups(%d)" % a.groups)
            if not a.transposed and size != w.shape[0]:
                raise oplog.reasons(op, "bias, filter", "shapes", "%s, %s" % (oplog.shape(a.bias.shape),
                                                                             oplog.shape(w.shape)),
                                    "When transposed is false, shape[0] of bias must be equal to shape[0] of filter")
        n = x.ndim - 2
        for name, values in (("strides", a.stride), ("dilations", a.dilation)):
            if len(values) != n:
                raise oplog.should_be(op, name, "element nums", str(len(values)), str(n))
        pair_form = x.ndim in (3, 4) and not a.transposed or x.ndim == 4 and a.transposed
        if pair_form and len(a.padding) not in (n, 2 * n):
            raise oplog.should_be(op, "pads", "element nums", str(len(a.padding)), "%d or %d" % (n, 2 * n))
        if not pair_form and len(a.padding) != n:
            raise oplog.should_be(op, "pads", "element nums", str(len(a.padding)), str(n))
        if a.transposed and len(a.outputPadding) != n:
            raise oplog.should_be(op, "outputPadding", "element nums", str(len(a.outputPadding)), str(n))

    def _check_formats(self, a):
        op, x, w, y = self.name, a.input, a.weight, a.output
        if x.format != y.format:
            raise oplog.reasons(op, "x, y", "formats", "%s, %s" % (format_name(x.format), format_name(y.format)),
                                "the formats of these parameters must be the same")
        if a.bias is not None and a.bias.format not in (F["NCL"], F["NCHW"], F["NCDHW"], F["ND"]):
            raise oplog.should_be(op, "bias", "format", format_name(a.bias.format), "one of {NCL, NCHW, NCDHW, ND}")
        want = RANK_FORMAT[x.ndim]
        if x.ndim == 3:
            if not x.format == w.format == y.format == F["NCL"]:
                raise oplog.reasons(op, "x, filter, y", "formats", ", ".join(format_name(t.format) for t in (x, w, y)),
                                    "formats of x, filter and y should all be NCL")
            return
        accepted = [F[want]] + ([F["NDHWC"]] if x.ndim == 5 and not _products.is_regbase() else [])
        weights = list(accepted) + ([F["FRACTAL_Z"]] if x.ndim == 4 and not a.transposed
                                    and not _products.is_regbase() else [])
        for name, t, allowed in (("x", x, accepted), ("filter", w, weights), ("y", y, accepted)):
            if t.format not in allowed:
                raise oplog.should_be(op, name, "format", format_name(t.format),
                                      " or ".join(format_name(f) for f in allowed))

    def _check_values(self, a, op=None):
        op, x, w = op or self.name, a.input, a.weight
        spatial = x.ndim - 2
        for i in range(spatial):
            if w.shape[2 + i] <= 0:
                raise oplog.reason(op, "filter", "shape", oplog.shape(w.shape), "shape[%d] of filter must be greater "
                                   "than 0" % (2 + i))
        for name, values in (("strides", a.stride), ("dilations", a.dilation)):
            for i, v in enumerate(values):
                if v <= 0:
                    raise oplog.reason(op, name, "shape", oplog.shape(values), "shape[%d] of this parameter must be "
                                       "greater than 0" % i)
        pairs = arithmetic._pairs(a.padding, spatial)
        if not a.transposed and not x.is_empty():
            for i, ((b, e), n, k, d) in enumerate(zip(pairs, x.shape[2:], w.shape[2:], a.dilation)):
                if n + b + e - d * (k - 1) - 1 < 0:
                    formula = ("x[%d] + pads[%d] - dilations[%d] * (filter[%d] - 1) - 1 >= 0" if x.ndim < 5 else
                               "x[%d] + pads[%d] * 2 - dilations[%d] * (filter[%d] - 1) - 1 >= 0") % (2 + i, i, i, 2 + i)
                    raise oplog.reason(op, "x", "shape", oplog.shape(x.shape), "These parameters must meet the "
                                       "following condition: " + formula)
        if a.groups <= 0:
            raise oplog.reason(op, "groups", "value", str(a.groups), "the value should be greater than 0")
        shapes = "%s, %s" % (oplog.shape(x.shape), oplog.shape(w.shape))
        if a.transposed:
            out_channels = w.shape[1] * a.groups
            if w.shape[0] != x.shape[1]:
                raise oplog.reasons(op, "x, filter", "shapes", shapes, "When transposed is true, shape[0] of filter "
                                    "must be equal to shape[1] of x")
            for i, value in enumerate(a.outputPadding):
                if value >= a.stride[i] and value >= a.dilation[i]:
                    raise oplog.reasons(op, "outputPadding, strides, dilations", "values", "%s, %s, %s" % (
                        oplog.shape(a.outputPadding), oplog.shape(a.stride), oplog.shape(a.dilation)),
                        "outputPadding[%d] must be less than both stride[%d] and dilation[%d]" % (i, i, i))
                if value < 0:
                    raise oplog.reason(op, "outputPadding", "value", str(value),
                                       "outputPadding[%d] must be greater than or equal to 0" % i)
        else:
            out_channels = w.shape[0]
            if w.shape[1] * a.groups != x.shape[1]:
                raise oplog.reasons(op, "x, filter", "shapes", shapes, "shape[1] of x must be equal to shape[1] of "
                                    "filter multiplied by attribute groups(%d)" % a.groups)
        if w.shape[0] % a.groups:
            raise oplog.reasons(op, "filter", "shapes", oplog.shape(w.shape), "shape[0] of filter must be exactly "
                                "divided by attribute groups(%d)" % a.groups)
        if a.bias is not None and a.bias.shape[0] != out_channels:
            raise oplog.reasons(op, "bias", "shapes", oplog.shape(a.bias.shape), "shape[0] of bias must be equal to "
                                "output channel(%d)" % out_channels)
        if a.transposed and x.shape[1] == 0:
            raise oplog.reason(op, "x", "shape", oplog.shape(x.shape), "When transposed is true, shape[1] of this "
                               "parameter must be greater than 0")

    def compute(self, a, v, workspace):
        if a.empty:
            return
        y = convolve(v["input"], v["weight"], v.get("bias"), a.padding, a.stride, a.dilation, a.groups, a.transposed,
                     a.outputPadding or (), a.read, a.round_to)
        P.store(v["output"], y)


def convolve(x, w, bias, pads, stride, dilation, groups, transposed, output_padding, read, round_to):
    """The op's result rounded to `round_to` (conv/arithmetic.py's rounding points)."""
    x, w = arithmetic.operand(x, read), arithmetic.operand(w, read)
    if transposed:
        shape = out_shape(x.shape, w.shape, pads, stride, dilation, groups, True, output_padding)
        result = arithmetic.backward_data(x, w, shape, pads, stride, dilation, groups)
    else:
        result = arithmetic.forward(x, w, pads, stride, dilation, groups)
    if bias is not None:
        with np.errstate(all="ignore"):
            result += np.asarray(bias, result.dtype).reshape((1, -1) + (1,) * (result.ndim - 2))
    return result.astype(round_to) if result.dtype != round_to else result
