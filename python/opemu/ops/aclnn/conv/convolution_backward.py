"""aclnnConvolutionBackward (ops-nn conv/convolution_backward op_api and convolution_backward_checker.cpp): the
gradients of aclnnConvolution, each computed when outputMask asks for it.

    gradInput   backward data of the convolution (transposed: the convolution of gradOutput itself)
    gradWeight  backward filter (transposed: with gradOutput and input in each other's roles)
    gradBias    gradOutput summed over every dimension but the channel's, fp32, rounded once

on mcDNN's convolution kernels (conv/arithmetic.py: operands read as cubeMathType decides, fp32 accumulation,
one rounding into each gradient's dtype).

Phase 1 follows the checker: nulls (gradOutput, input, weight, stride, padding, dilation, outputPadding,
outputMask of 3 values, then each gradient outputMask asks for) → dtypes (the cube's list; on the 950 each
gradient's dtype equals its source's) → formats (ND or NCL for 1-D, NCHW, NCDHW; gradBias ND on A2/A3/950) →
attribute values (stride, dilation ≥ 1, padding ≥ 0, outputPadding 0 unless transposed, groups ≥ 1) →
cubeMathType 0..3 → shapes (an empty input or weight ends phase 1 on A2/A3/950) → channels and groups → every
tensor's shape against the forward's."""
import numpy as np

from opemu.core import dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import cube_util
from opemu.ops.aclnn.common import oplog
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.conv import arithmetic
from opemu.ops.aclnn.conv.convolution import F, out_shape, upper_dtype
from opemu.ops.aclnn.pooling.windows import format_name

OP = "aclnnConvolutionBackward"


def _null(name):
    return status.param_nullptr("Expected a proper Tensor but got null for argument %s." % name) \
        if name in ("gradOutput", "input", "weight", "gradInput", "gradWeight", "gradBias") else \
        status.param_nullptr("Expected a value of type List[int] for argument %s but instead found type null."
                                   % name)


def _array_text(values):
    return "[" + ",".join(str(v) for v in values) + "]"


class ConvolutionBackward(AclnnOp):
    name = OP
    inputs = ("gradOutput", "input", "weight")
    outputs = ("gradInput", "gradWeight", "gradBias")

    def dtype_table(self):
        allowed = cube_util.conv_dtypes()
        return {n: allowed for n in self.inputs + self.outputs}

    def check(self, a):
        for name in ("gradOutput", "input", "weight", "stride", "padding", "dilation", "outputPadding"):
            if getattr(a, name) is None:
                raise _null(name)
        if a.outputMask is None:
            raise status.param_nullptr("Expected a value of type List[bool] for argument outputMask but instead "
                                             "found type null.")
        if len(a.outputMask) != 3:
            raise oplog.should_be(OP, "outputMask", "shape dim", str(len(a.outputMask)), "3")
        a.mask = tuple(bool(m) for m in a.outputMask)
        for wanted, name in zip(a.mask, ("gradInput", "gradWeight", "gradBias")):
            if wanted and getattr(a, name) is None:
                raise _null(name)
        if _products.is_regbase():
            allowed = cube_util.conv_dtypes(conv_backward=True, transposed=a.transposed)
        else:
            allowed = cube_util.cube_dtypes()
        for name in ("gradOutput", "input", "weight"):
            self._dtype(name, getattr(a, name), allowed)
        for name, source in (("gradInput", "input"), ("gradWeight", "weight"), ("gradBias", "gradOutput")):
            t = getattr(a, name)
            if t is not None:
                self._dtype(name, t, allowed)
                if _products.is_regbase() and t.dtype != getattr(a, source).dtype:
                    raise oplog.reasons(OP, "%s, %s" % (name, source), "dtypes", "%s,%s" % (
                        dtypes.serial_name(t.dtype), dtypes.serial_name(getattr(a, source).dtype)),
                        "the dtypes of [%s, %s] must be the same" % (name, source))
        for name in ("gradOutput", "input", "weight", "gradInput", "gradWeight"):
            t = getattr(a, name)
            if t is not None:
                self._format(name, t)
        if not a.transposed and a.gradBias is not None and _products.line() in ("A2", "A3", "950") \
                and a.gradBias.format != F["ND"]:
            raise oplog.should_be(OP, "gradBias", "format", format_name(a.gradBias.format), "ND")
        self._check_attributes(a)
        upper = upper_dtype(a.gradOutput.dtype, a.input.dtype, a.weight.dtype)
        if not 0 <= a.cubeMathType <= cube_util.USE_HF32:
            raise status.param_invalid("The value of cubeMathType only support {0: KEEP_DTYPE, 1: "
                                             "ALLOW_FP32_DOWN_PRECISION, 2: USE_FP16, 3: USE_HF32}, but got %d"
                                             % a.cubeMathType)
        cube_util.check_cube_math_type(upper, a.cubeMathType)
        a.read = arithmetic.cube_read(upper, a.cubeMathType)
        x, w = a.input, a.weight
        a.empty = x.is_empty() or w.is_empty()
        if a.empty and _products.line() in ("A2", "A3", "950"):
            return
        self._check_shapes(a)

    @staticmethod
    def _dtype(name, tensor, allowed):
        if tensor.dtype not in allowed:
            raise status.param_invalid("Tensor %s not implemented for %s, should be in dtype support list %s."
                                             % (name, dtypes.serial_name(tensor.dtype), dtypes.serial_list(allowed)))

    @staticmethod
    def _format(name, t):
        if t.ndim == 3:
            if t.format not in (F["ND"], F["NCL"]):
                raise oplog.should_be(OP, name, "format", format_name(t.format), "ND or NCL")
        elif t.ndim in (4, 5):
            want = "NCHW" if t.ndim == 4 else "NCDHW"
            if t.format != F[want]:
                raise oplog.should_be(OP, name, "format", format_name(t.format), want)
        else:
            raise oplog.should_be(OP, name, "shape dim", str(t.ndim), "3 or 4 or 5")

    @staticmethod
    def _check_attributes(a):
        if any(v < 1 for v in a.stride):
            raise oplog.reason(OP, "stride", "value", _array_text(a.stride), "the value of stride must be greater "
                               "than or equal to 1")
        if any(v < 0 for v in a.padding):
            raise oplog.reason(OP, "padding", "value", _array_text(a.padding), "the value of padding must be greater "
                               "than or equal to 0")
        if any(v < 1 for v in a.dilation):
            raise oplog.reason(OP, "dilation", "value", _array_text(a.dilation), "the value of dilation must be "
                               "greater than or equal to 1")
        if a.transposed:
            if any(v < 0 for v in a.outputPadding):
                raise oplog.reason(OP, "outputPadding", "value", _array_text(a.outputPadding), "when transposed=true, "
                                   "the value of outputPadding must be greater than or equal to 0")
            if a.input.ndim == 5 and any(p >= s for p, s in zip(a.outputPadding, a.stride)):
                raise oplog.reason(OP, "outputPadding", "value", _array_text(a.outputPadding), "when transposed=true, "
                                   "the value of outputPadding must be less than or equal to stride")
        elif any(v != 0 for v in a.outputPadding):
            raise oplog.reason(OP, "outputPadding", "value", _array_text(a.outputPadding), "when transposed=false, the "
                               "value of outputPadding must be 0")
        if a.groups < 1:
            raise oplog.reason(OP, "group", "value", str(a.groups), "the value of groups must be greater than or equal "
                               "to 1")

    @staticmethod
    def _check_shapes(a):
        grad, x, w = a.gradOutput, a.input, a.weight
        if not grad.ndim == x.ndim == w.ndim:
            raise oplog.reasons(OP, "input, weight", "shape dims", "%d, %d" % (x.ndim, w.ndim),
                                "the shape dims of gradOutput, input and weight must be the same")
        n = x.ndim - 2
        for name in ("stride", "dilation"):
            if len(getattr(a, name)) != n:
                raise oplog.should_be(OP, name, "element nums", str(len(getattr(a, name))), str(n))
        if len(a.padding) not in (n, 2 * n) if n <= 2 else len(a.padding) != n:
            raise oplog.should_be(OP, "padding", "element nums", str(len(a.padding)), str(n))
        if a.transposed and len(a.outputPadding) != n:
            raise oplog.should_be(OP, "outputPadding", "element nums", str(len(a.outputPadding)), str(n))
        if a.transposed:
            channels_ok = w.shape[0] == x.shape[1]
        else:
            channels_ok = w.shape[1] * a.groups == x.shape[1] and w.shape[0] % a.groups == 0
        if not channels_ok:
            raise oplog.reasons(OP, "input, weight", "shape dims", "%s, %s" % (oplog.shape(x.shape),
                                                                              oplog.shape(w.shape)),
                                "the channels of input and weight do not match attribute groups(%d)" % a.groups)
        expected = out_shape(x.shape, w.shape, a.padding, a.stride, a.dilation, a.groups, a.transposed,
                             a.outputPadding)
        if tuple(grad.shape) != expected:
            raise oplog.reason(OP, "gradOutput", "shape", oplog.shape(grad.shape), "it should be %s, as the forward "
                               "convolution of input and weight gives" % oplog.shape(expected))
        for name, like in (("gradInput", x), ("gradWeight", w)):
            t = getattr(a, name)
            if t is not None and tuple(t.shape) != tuple(like.shape):
                raise oplog.reason(OP, name, "shape", oplog.shape(t.shape), "it should be %s"
                                   % oplog.shape(like.shape))
        if a.gradBias is not None and a.mask[2]:
            channels = grad.shape[1]
            if tuple(a.gradBias.shape) != (channels,):
                raise oplog.reason(OP, "gradBias", "shape", oplog.shape(a.gradBias.shape), "it should be [%d]"
                                   % channels)

    def compute(self, a, v, workspace):
        dy, x, w = (arithmetic.operand(v[n], a.read) for n in ("gradOutput", "input", "weight"))
        if a.mask[0]:
            _zero_or(v["gradInput"], a.empty, lambda: gradient_input(dy, w, x.shape, a))
        if a.mask[1]:
            _zero_or(v["gradWeight"], a.empty, lambda: gradient_weight(x, dy, w.shape, a))
        if a.mask[2]:
            grad_bias = np.asarray(v["gradOutput"], np.float32 if dy.dtype != np.float64 else np.float64)
            axes = (0,) + tuple(range(2, grad_bias.ndim))
            P.store(v["gradBias"], np.add.reduce(grad_bias, axis=axes))


def _zero_or(target, empty, compute):
    if empty:
        target[...] = 0
        return
    P.store(target, compute())


def gradient_input(dy, w, x_shape, a):
    if a.transposed:
        return arithmetic.forward(dy, w, a.padding, a.stride, a.dilation, a.groups)
    return arithmetic.backward_data(dy, w, x_shape, a.padding, a.stride, a.dilation, a.groups)


def gradient_weight(x, dy, w_shape, a):
    if a.transposed:
        return arithmetic.backward_filter(dy, x, w_shape, a.padding, a.stride, a.dilation, a.groups)
    return arithmetic.backward_filter(x, dy, w_shape, a.padding, a.stride, a.dilation, a.groups)
