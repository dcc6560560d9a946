"""The arithmetic behind aclnn's convolutions: mcDNN's convolution kernels (opemu.ops.mcdnn.convolution, sums of
GEMM products accumulated in fp32 — fp64 for double — one implementation for both APIs), with the cube's
rounding points around them.

The cube reads its operands as `cubeMathType` and the product decide (cube_util's CalcPromoteTypeCubemathtype,
the convolution op_api's UpdateInputDtype/UpdateOutputDtype):
    fp16 / bf16 data          read as they are
    fp32, KEEP_DTYPE          fp32 (A2/A3/950; refused where the cube has no fp32)
    fp32, ALLOW_FP32_DOWN…    HF32 on A2/A3/950 (fp32's exponent, 11 mantissa bits, nearest even), fp16 elsewhere
    fp32, USE_HF32            HF32
    any, USE_FP16             fp16
The result (plus the bias, added in the fp32 accumulator) is rounded once to the op's compute dtype — fp16 with
USE_FP16 or on the 910/310P parts, else the operands' promoted dtype — and then cast to the output's dtype.

Shapes are NC(D)HW; 1-D convolutions run as 2-D ones of height 1; a padding that differs at the two ends of a
dimension pads the input explicitly; a transposed convolution is the backward data of the convolution it
transposes (its output padding widens the result's far end)."""
import collections

import numpy as np

from opemu.ops.aclnn.common import cube_util
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.mcdnn import conv_kernel as kernel
from opemu.ops.mcdnn import convolution as mcdnn_convolution

_Conv = collections.namedtuple("_Conv", "math")   # what mcDNN's routines read of a descriptor: no conversion math
_NO_CONVERSION = _Conv(None)


def cube_read(dtype_code, cube_math_type):
    """How the cube reads fp data of `dtype_code`: "fp32", "hf32", "fp16" or "native" (fp16/bf16 as they are)."""
    if cube_math_type == cube_util.USE_FP16:
        return "fp16"
    if dtype_code != P.FLOAT:
        return "native"
    if cube_math_type in (cube_util.ALLOW_FP32_DOWN_PRECISION, cube_util.USE_HF32):
        return "hf32" if cube_util.fp32_cube() else "fp16"
    return "fp32"


def result_dtype(upper_code, cube_math_type, transposed, out_code):
    """The dtype the op rounds its result to before the cast into the output (UpdateOutputDtype)."""
    if _products.line() in ("910", "310P") or cube_math_type == cube_util.USE_FP16:
        return np.dtype(np.float16)
    if transposed and out_code == P.FLOAT:
        return np.dtype(np.float32)
    return P.dtypes.numpy_dtype(upper_code)


def operand(array, read):
    """An operand in fp32 (or fp64) as the cube reads it."""
    if array.dtype == np.float64:
        return array
    values = np.asarray(array, np.float32)
    if read == "hf32":
        return cube_util.round_hf32(values)
    if read == "fp16":
        return values.astype(np.float16).astype(np.float32)
    return values


def _as_2d(shape):
    return shape if len(shape) != 3 else (shape[0], shape[1], 1, shape[2])


def _pairs(pads, spatial):
    """(begin, end) padding per spatial dimension from the op's list (one value per dimension, or begin/end pairs
    for 2-D: top, bottom, left, right)."""
    if len(pads) == 2 * spatial and spatial == 2:
        return [(pads[0], pads[1]), (pads[2], pads[3])]
    if len(pads) == 2 * spatial and spatial == 1:
        return [(pads[0], pads[1])]
    return [(p, p) for p in pads]


def forward(x, w, pads, stride, dilation, groups):
    """conv(x, w) in the compute dtype (fp32, or fp64 for double operands), NC(D)HW, no bias."""
    ct = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    spatial = x.ndim - 2
    pairs = _pairs(pads, spatial)
    if spatial == 1:
        x, w = x.reshape(_as_2d(x.shape)), w.reshape(_as_2d(w.shape))
        pairs, stride, dilation = [(0, 0)] + pairs, (1,) + tuple(stride), (1,) + tuple(dilation)
    symmetric = [b for b, _ in pairs]
    if any(b != e for b, e in pairs):
        x = np.pad(x, [(0, 0), (0, 0)] + list(pairs))
        symmetric = [0] * len(pairs)
    g = kernel.Geometry(x.shape, w.shape, symmetric, stride, dilation, groups, False)
    y = np.empty((g.n, g.k) + g.out, ct)
    scratch = kernel.Scratch(g, ct)
    mcdnn_convolution.forward(x, w, y, g, ct, _NO_CONVERSION, None, scratch, _store, plain=True)
    return y.reshape(y.shape[:2] + y.shape[3:]) if spatial == 1 else y


def _store(target, result, lo):
    if result is not target:
        target[...] = result


def backward_data(dy, w, x_shape, pads, stride, dilation, groups):
    """dx of conv(x, w) for dy, in the compute dtype; x_shape's far end may exceed what the convolution reaches
    (a transposed convolution's output padding), those positions get no gradient."""
    ct = np.dtype(np.float64) if dy.dtype == np.float64 else np.dtype(np.float32)
    spatial = len(x_shape) - 2
    pairs = _pairs(pads, spatial)
    if spatial == 1:
        dy, w = dy.reshape(_as_2d(dy.shape)), w.reshape(_as_2d(w.shape))
        x_shape = _as_2d(tuple(x_shape))
        pairs, stride, dilation = [(0, 0)] + pairs, (1,) + tuple(stride), (1,) + tuple(dilation)
    padded = tuple(x_shape[:2]) + tuple(n + b + e for n, (b, e) in zip(x_shape[2:], pairs))
    g = kernel.Geometry(padded, w.shape, [0] * len(pairs), stride, dilation, groups, False)
    reach = tuple(slice(0, o) for o in g.out)
    dx = np.empty(padded, ct)
    mcdnn_convolution.backward_data(w, dy[(Ellipsis,) + reach], dx, g, ct, _NO_CONVERSION, None,
                                    kernel.Scratch(g, ct), 1.0, 0.0)
    inner = (Ellipsis,) + tuple(slice(b, b + n) for (b, _), n in zip(pairs, x_shape[2:]))
    dx = dx[inner]
    return dx.reshape(dx.shape[:2] + dx.shape[3:]) if spatial == 1 else dx


def backward_filter(x, dy, w_shape, pads, stride, dilation, groups):
    """dw of conv(x, w) for dy, in the compute dtype."""
    ct = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    spatial = x.ndim - 2
    pairs = _pairs(pads, spatial)
    if spatial == 1:
        x, dy = x.reshape(_as_2d(x.shape)), dy.reshape(_as_2d(dy.shape))
        w_shape = _as_2d(tuple(w_shape))
        pairs, stride, dilation = [(0, 0)] + pairs, (1,) + tuple(stride), (1,) + tuple(dilation)
    x = np.pad(x, [(0, 0), (0, 0)] + list(pairs)) if any(b or e for b, e in pairs) else x
    g = kernel.Geometry(x.shape, w_shape, [0] * len(pairs), stride, dilation, groups, False)
    dy = dy[(Ellipsis,) + tuple(slice(0, o) for o in g.out)]
    dw = np.empty(tuple(w_shape), ct)
    mcdnn_convolution.backward_filter(x, dy, dw, g, ct, _NO_CONVERSION, None, kernel.Scratch(g, ct, None, True),
                                      1.0, 0.0)
    return dw.reshape(dw.shape[:2] + dw.shape[3:]) if spatial == 1 else dw
