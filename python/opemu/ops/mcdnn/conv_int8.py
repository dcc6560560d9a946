"""Integer convolutions: cuDNN's int8 configurations of mcdnnConvolutionForward and
mcdnnConvolutionBiasActivationForward (and their algorithm queries).

Configurations (x, w -> y; the convolution's compute type INT32):
  INT8 / UINT8 x, INT8 w -> INT8 or FLOAT y: x with its channels innermost (NHWC) and an NHWC filter, input
    and output channels multiples of 4;
  INT8x4 / UINT8x4 x, INT8x4 w -> y of x's type or FLOAT, NCHW_VECT_C tensors and filter;
  INT8x32 x, INT8x32 w -> INT8x32 y.
Any other mix involving integer data is NOT_SUPPORTED (a compute type other than INT32 too); integer data
has no backward directions (NOT_SUPPORTED). The implicit GEMM algorithms run these (INT8x32: only
IMPLICIT_PRECOMP_GEMM); the others answer NOT_SUPPORTED.

The products of int8 values are summed exactly (int32 sums, held in float64), then y = alpha * sum + beta * y
(bias activation: act(alpha1 * sum + alpha2 * z + bias), bias FLOAT, z of y's type) in float, rounded to
nearest and saturated when y is an integer type."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.headers import enum
from opemu.core.mcdnn import DATA
from opemu.ops.mcdnn import conv_kernel as kernel
from opemu.ops.mcdnn import vector_formats as vf
from opemu.ops.mcdnn.descriptors import NHWC

FWD = enum("mcdnn/mcdnn_ops_infer.h", "mcdnnConvolutionFwdAlgo_t")
FLOAT, INT32 = DATA["MCDNN_DATA_FLOAT"], DATA["MCDNN_DATA_INT32"]
SUMS = np.dtype(np.float64)   # int8 products summed exactly
_IMPLICIT = frozenset({FWD["MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM"],
                       FWD["MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM"]})
_PRECOMP = frozenset({FWD["MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM"]})
# (x type, w type) -> (y types, the algorithms, channels innermost required)
CONFIGS = {
    (vf.INT8, vf.INT8): ((vf.INT8, FLOAT), _IMPLICIT, True),
    (vf.UINT8, vf.INT8): ((vf.INT8, FLOAT), _IMPLICIT, True),
    (vf.INT8x4, vf.INT8x4): ((vf.INT8x4, FLOAT), _IMPLICIT, False),
    (vf.UINT8x4, vf.INT8x4): ((vf.UINT8x4, FLOAT), _IMPLICIT, False),
    (vf.INT8x32, vf.INT8x32): ((vf.INT8x32,), _PRECOMP, False),
}


class Int8Geometry(kernel.Geometry):
    """A convolution's geometry with its integer operands' descriptors (`tensors`, set by the caller) and the
    algorithms that run it (`algorithms`)."""


def involved(x, w, y):
    return any(vf.integer(t) for t in (x, w, y))


def check(x, w, y, conv, y_name, forward):
    """The type and layout checks of an integer configuration; returns the algorithms that run it."""
    names = "/".join(mcdnn.type_name(t.dtype_code) for t in (x, w, y))
    if not forward:
        raise mcdnn.not_supported("integer data (%s) has no backward convolutions" % names)
    config = CONFIGS.get((x.dtype_code, w.dtype_code))
    if config is None or y.dtype_code not in config[0]:
        raise mcdnn.not_supported("x/w/%s of %s is not a supported integer configuration" % (y_name, names))
    if conv.compute != INT32:
        raise mcdnn.not_supported("integer configurations compute in MCDNN_DATA_INT32, not %s"
                                  % mcdnn.type_name(conv.compute))
    y_types, algorithms, channels_last = config
    if channels_last:
        if x.strides[1] != 1 or w.format != NHWC:
            raise mcdnn.not_supported("INT8 and UINT8 data convolve in the NHWC layout (x and the filter)")
        if x.shape[1] % 4 or w.shape[0] % 4:
            raise mcdnn.not_supported("INT8 and UINT8 convolutions need channel counts that are multiples of 4 "
                                      "(x has %d, the filter %d outputs)" % (x.shape[1], w.shape[0]))
    return algorithms


def sums(x_array, w_array, g):
    """The exact integer sums conv(x, w), float64 (N, K, out…), of the operands' views (storage or logical)."""
    x, w, _ = g.tensors
    wmat = kernel.weights(np.asarray(vf.logical(w_array, w), SUMS), g, SUMS)
    images = vf.logical(x_array, x)
    scratch = kernel.Scratch(g, SUMS)
    out = np.empty((g.n, g.k) + g.out, SUMS)
    for lo, hi in kernel.chunks(g, scratch):
        out[lo:hi] = kernel.forward_chunk(np.asarray(images[lo:hi], SUMS), wmat, g, scratch)
    return out


def forward(x_array, w_array, y_view, g, alpha, beta):
    vf.write(y_view, g.tensors[2], sums(x_array, w_array, g), alpha, beta)


def check_bias_activation(a):
    """Bias FLOAT of K channels, z of y's type (the activation and dims are checked as for floating data)."""
    mcdnn.same_type(mcdnn.not_supported, ("yDesc", a.yDesc), ("zDesc", a.zDesc))
    if a.biasDesc.dtype_code != FLOAT:
        raise mcdnn.not_supported("the bias of an integer configuration is FLOAT, not %s"
                                  % mcdnn.type_name(a.biasDesc.dtype_code))


def bias_activation(a, v, relu):
    g = a.geometry
    total = sums(v["x"], v["w"], g).astype(np.float32) * np.float32(a.alpha1_value)
    if a.alpha2_value != 0:
        total += vf.logical(v["z"], a.zDesc).astype(np.float32) * np.float32(a.alpha2_value)
    total += np.asarray(v["bias"], np.float32).reshape((-1,) + (1,) * (a.xDesc.ndim - 2))
    if relu:
        np.maximum(total, 0, out=total)
    vf.store(v["y"], a.yDesc, vf.rounded(total, vf.element_dtype(a.yDesc)))
