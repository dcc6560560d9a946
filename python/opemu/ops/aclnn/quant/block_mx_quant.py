"""MX quantisers with 32 x 32 blocks or two levels (950; opbuild operators: their docs, tiling checks and golden
scripts): aclnnDynamicBlockMxQuant, aclnnMxToBlockMxQuant and aclnnDynamicDualLevelMxQuant.

Block MX: one FLOAT8_E8M0 scale per 32 x 32 block of the last two axes (common/mx's shared exponent of the
block's max), given out twice — scale1 per row and column block [..., R, ceil(C/64), 2], scale2 per row block
and column [..., ceil(R/64), C, 2] with pairs of row blocks interleaved.
MxToBlockMx: FP4 elements with their per-32-column scales re-expressed under one scale per 32 x 32 block:
scale = max(block's scales) - MAX_OFFSET (exponents), y = x · 2^(its scale - block scale) as FP8.
Dual level: per 512 elements of the last axis an fp32 scale max|x| / 6, the quotient rounded to x's dtype,
then MX FP4_E2M1 in blocks of 32 of that."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.norm.rms_common import round_to
from opemu.ops.aclnn.quant.mx_quant import MX_OUT

BLOCK = 32
B16 = P.codes("FLOAT16 BF16")
FP4 = (Q.FLOAT4_E2M1, Q.FLOAT4_E1M2)
FP8 = (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2)
ROUND_MODES = ("rint", "floor", "round")
# MxToBlockMxQuant: (x, y) -> the exponent headroom between the FP4 and FP8 element types
MAX_OFFSET = {(Q.FLOAT4_E2M1, Q.FLOAT8_E5M2): 13, (Q.FLOAT4_E1M2, Q.FLOAT8_E5M2): 15,
              (Q.FLOAT4_E2M1, Q.FLOAT8_E4M3FN): 6, (Q.FLOAT4_E1M2, Q.FLOAT8_E4M3FN): 8}


def _tiling(message):
    """A check of the opbuild operator's tiling, which phase 1 runs."""
    return status.VendorError(status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"], message)


def _dtype(name, tensor, allowed, names):
    if tensor.dtype not in allowed:
        raise status.param_invalid("The dtype of %s is %s, it should be %s."
                                   % (name, dtypes.serial_name(tensor.dtype), names))


def _expect_shape(name, tensor, expected, reason):
    if tuple(tensor.shape) != tuple(expected):
        raise _tiling("The shape of %s is %s, it should be %s: %s." % (
            name, checks.shape_text(tensor.shape), checks.shape_text(expected), reason))


def block_scale_shapes(shape):
    """(scale1, scale2) shapes of a block-MX quantisation of x `shape` (its last two axes blocked)."""
    *lead, rows, cols = shape
    return (tuple(lead) + (rows, -(-cols // (2 * BLOCK)), 2), tuple(lead) + (-(-rows // (2 * BLOCK)), cols, 2))


def block_scales_out(v, exponent, rows, cols):
    """Write per-block exponents (..., row blocks, column blocks) as scale1 and scale2 (E8M0 codes)."""
    codes = mx.e8m0_codes(exponent)
    per_row = np.repeat(codes, BLOCK, axis=-2)[..., :rows, :]
    per_col = np.repeat(codes, BLOCK, axis=-1)[..., :cols]
    v["scale1"].view(np.uint8)[...] = mx.scale_layout(per_row, -1, per_row.ndim)
    v["scale2"].view(np.uint8)[...] = mx.scale_layout(per_col, per_col.ndim - 2, per_col.ndim)


def _padded_blocks(x):
    """fp32 x (..., R, C) zero padded to whole 32 x 32 blocks, as (..., R/32, 32, C/32, 32)."""
    *lead, rows, cols = x.shape
    pr, pc = -rows % BLOCK, -cols % BLOCK
    padded = np.pad(x, [(0, 0)] * len(lead) + [(0, pr), (0, pc)])
    return padded.reshape(tuple(lead) + ((rows + pr) // BLOCK, BLOCK, (cols + pc) // BLOCK, BLOCK))


class DynamicBlockMxQuant(AclnnOp):
    name = "aclnnDynamicBlockMxQuant"
    inputs = ("x",)
    outputs = ("yOut", "scale1Out", "scale2Out")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": B16, "yOut": MX_OUT, "scale1Out": [Q.FLOAT8_E8M0], "scale2Out": [Q.FLOAT8_E8M0]}

    def check(self, a):
        checks.not_null(a, "x", "yOut", "scale1Out", "scale2Out")
        _dtype("x", a.x, B16, "DT_FLOAT16 or DT_BF16")
        _dtype("y", a.yOut, MX_OUT, "DT_FLOAT4_E2M1, DT_FLOAT4_E1M2, DT_FLOAT8_E4M3FN, or DT_FLOAT8_E5M2")
        _dtype("scale1", a.scale1Out, (Q.FLOAT8_E8M0,), "DT_FLOAT8_E8M0")
        _dtype("scale2", a.scale2Out, (Q.FLOAT8_E8M0,), "DT_FLOAT8_E8M0")
        y = a.yOut.dtype
        a.mode = a.roundModeOptional or "rint"
        if a.mode not in ROUND_MODES:
            raise _tiling("round_mode %s: The value of round_mode must be rint, floor, or round" % a.mode)
        if y in FP8 and a.mode != "rint":
            raise _tiling("round_mode %s: If the dtype of output y is FLOAT8_E4M3FN/FLOAT8_E5M2, parameter "
                          "round_mode must be rint" % a.mode)
        if a.dstType != y:
            raise _tiling("y, dst_type %s, %d: The dtypes of y and dst_type must be the same"
                          % (dtypes.serial_name(y), a.dstType))
        if a.scaleAlg not in (0, 2):
            raise _tiling("scale_alg %d: The value of scale_alg must be 0 or 2" % a.scaleAlg)
        if a.scaleAlg != 0 and y != Q.FLOAT4_E2M1:
            raise _tiling("scale_alg %d: If the dtype of output y is FLOAT4_E1M2/FLOAT8_E4M3FN/FLOAT8_E5M2, "
                          "parameter scale_alg must be 0" % a.scaleAlg)
        dst_max = float(np.float32(a.dstTypeMax))
        if dst_max != 0 and (a.scaleAlg != 2 or y != Q.FLOAT4_E2M1):
            raise _tiling("dst_type_max %f: When scale_alg is not 2 or the yDtype is not FLOAT4_E2M1,the value of "
                          "dst_type_max must be 0.0" % dst_max)
        if dst_max not in (0.0, 6.0, 7.0):
            raise _tiling("dst_type_max %f: When scale_alg is 2 and the yDtype is FLOAT4_E2M1, the value of "
                          "dst_type_max must be in 0.0, 6.0, or 7.0" % dst_max)
        a.dst_max = dst_max
        self.check_shapes(a)
        _products.check_supported(self.name, ("950",))

    def check_shapes(self, a):
        if a.x.is_empty():
            raise _tiling("x shape size 0: dynamic_block_mx_quant does not support empty tensor")
        if a.x.ndim not in (2, 3):
            raise _tiling("x dim %d: The shape dim of x must be 2 or 3" % a.x.ndim)
        if a.x.shape[-1] % 2 and a.yOut.dtype in FP4:
            raise _tiling("x last dim %d: If the dtype of output y is FLOAT4_E2M1/FLOAT4_E1M2, the last dim of x "
                          "must be even" % a.x.shape[-1])
        _expect_shape("y", a.yOut, a.x.shape, "The shapes of x and y must be the same")
        scale1, scale2 = block_scale_shapes(a.x.shape)
        _expect_shape("scale1", a.scale1Out, scale1, "ceil(x's last dim / 64) pairs of column-block scales")
        _expect_shape("scale2", a.scale2Out, scale2, "ceil(x's second last dim / 64) pairs of row-block scales")

    def compute(self, a, v, workspace):
        x = Q.widen(v["x"])
        rows, cols = x.shape[-2:]
        blocks = _padded_blocks(x)
        block_max = np.max(np.abs(blocks), axis=(-3, -1))
        exponent = mx.shared_exponent(block_max, a.yOut.dtype, a.scaleAlg, a.dst_max)
        factor = np.exp2(exponent).astype(np.float32)[..., :, None, :, None]
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            elements = mx.round_elements(blocks / factor, a.yOut.dtype, a.mode)
        shape = blocks.shape
        elements = elements.reshape(shape[:-4] + (shape[-4] * BLOCK, shape[-2] * BLOCK))[..., :rows, :cols]
        mx.store_elements(v["yOut"], a.yOut, elements)
        block_scales_out({"scale1": v["scale1Out"], "scale2": v["scale2Out"]}, exponent, rows, cols)


class MxToBlockMxQuant(AclnnOp):
    name = "aclnnMxToBlockMxQuant"
    inputs = ("x", "mxscale")
    outputs = ("y", "scale1", "scale2")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": FP4, "mxscale": [Q.FLOAT8_E8M0], "y": FP8, "scale1": [Q.FLOAT8_E8M0],
                "scale2": [Q.FLOAT8_E8M0]}

    def check(self, a):
        checks.not_null(a, "x", "mxscale", "y", "scale1", "scale2")
        _dtype("x", a.x, FP4, "FLOAT4_E2M1 or FLOAT4_E1M2")
        for name in ("mxscale", "scale1", "scale2"):
            _dtype(name, getattr(a, name), (Q.FLOAT8_E8M0,), "FLOAT8_E8M0")
        _dtype("y", a.y, FP8, "FLOAT8_E5M2 or FLOAT8_E4M3FN")
        if a.dstType not in FP8:
            raise status.param_invalid("dstType %d should be 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN)." % a.dstType)
        if a.dstType != a.y.dtype:
            raise status.param_invalid("dstType %d does not match y's dtype %s."
                                       % (a.dstType, dtypes.serial_name(a.y.dtype)))
        if a.x.ndim not in (2, 3) or a.x.is_empty():
            raise status.param_invalid("x should be a non-empty 2-D or 3-D tensor, but got %s."
                                       % checks.shape_text(a.x.shape))
        if a.x.shape[-2] % 64 or a.x.shape[-1] % 2:
            raise status.param_invalid("x's second last dim should be a multiple of 64 and its last dim even, "
                                       "but got %s." % checks.shape_text(a.x.shape))
        checks.same_shape("x", a.x, "y", a.y)
        scale1, scale2 = block_scale_shapes(a.x.shape)
        for name, expected in (("mxscale", scale1), ("scale1", scale1), ("scale2", scale2)):
            checks.shape_is(name, getattr(a, name), expected, checks.shape_text(expected))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        *lead, rows, cols = a.x.shape
        values = Q.decode(v["x"], a.x)
        exp = v["mxscale"].view(np.uint8).astype(np.float32).reshape(tuple(lead) + (rows, -1)) - 127
        col_blocks = exp.shape[-1]
        padded = np.pad(exp, [(0, 0)] * len(lead) + [(0, -rows % BLOCK), (0, 0)], constant_values=-127)
        grouped = padded.reshape(tuple(lead) + (-1, BLOCK, col_blocks))
        block = np.max(grouped, axis=-2) - MAX_OFFSET[(a.x.dtype, a.y.dtype)]
        own = np.repeat(exp, BLOCK, axis=-1)[..., :cols]
        common = np.repeat(np.repeat(block, BLOCK, axis=-2)[..., :rows, :], BLOCK, axis=-1)[..., :cols]
        shift = np.maximum(own - common, -127)
        with np.errstate(over="ignore", invalid="ignore"):
            Q.store(v["y"], a.y, Q.quantize(values * np.exp2(shift).astype(np.float32), a.y.dtype))
        clipped = np.clip(block, -127, 127)
        per_row = (np.repeat(clipped, BLOCK, axis=-2)[..., :rows, :] + 127).astype(np.uint8)
        per_col = (np.repeat(clipped, BLOCK, axis=-1)[..., :cols] + 127).astype(np.uint8)
        v["scale1"].view(np.uint8)[...] = per_row.reshape(v["scale1"].shape)
        v["scale2"].view(np.uint8)[...] = mx.scale_layout(per_col, per_col.ndim - 2, per_col.ndim)


class DynamicDualLevelMxQuant(AclnnOp):
    name = "aclnnDynamicDualLevelMxQuant"
    inputs = ("x", "smoothScaleOptional")
    outputs = ("yOut", "level0ScaleOut", "level1ScaleOut")
    products = _products.describe(("950",))

    def dtype_table(self):
        return {"x": B16, "smoothScaleOptional": B16, "yOut": [Q.FLOAT4_E2M1], "level0ScaleOut": [P.FLOAT],
                "level1ScaleOut": [Q.FLOAT8_E8M0]}

    def check(self, a):
        checks.not_null(a, "x", "yOut", "level0ScaleOut", "level1ScaleOut")
        a.mode = a.roundModeOptional or "rint"
        if a.mode not in ROUND_MODES:
            raise _tiling("round_mode %s: The value of round_mode must be in {rint, floor, round}" % a.mode)
        if a.level0BlockSize != 512:
            raise _tiling("level0_block_size %d: level0_block_size should be 512" % a.level0BlockSize)
        if a.level1BlockSize != 32:
            raise _tiling("level1_block_size %d: level1_block_size should be 32" % a.level1BlockSize)
        _dtype("x", a.x, B16, "FLOAT16 or BFLOAT16")
        _dtype("y", a.yOut, (Q.FLOAT4_E2M1,), "FLOAT4_E2M1")
        _dtype("level0_scale", a.level0ScaleOut, (P.FLOAT,), "DT_FLOAT")
        _dtype("level1_scale", a.level1ScaleOut, (Q.FLOAT8_E8M0,), "FLOAT8_E8M0")
        if a.x.is_empty() or a.x.ndim < 1:
            raise _tiling("x is empty tensor.")
        n = a.x.shape[-1]
        if n % 2:
            raise _tiling("x %d: The last axis of x should be even when the dtype of y is FLOAT4_E2M1" % n)
        _expect_shape("y", a.yOut, a.x.shape, "The shapes of x and y must be the same")
        lead = tuple(a.x.shape[:-1])
        _expect_shape("level0_scale", a.level0ScaleOut, lead + (-(-n // 512),), "ceil(x's last dim / 512)")
        _expect_shape("level1_scale", a.level1ScaleOut, mx.scale_shape(a.x.shape, -1, BLOCK),
                      "(ceil(x's last dim / 32) + 1) / 2 pairs")
        smooth = a.smoothScaleOptional
        if smooth is not None:
            if smooth.dtype != a.x.dtype:
                raise _tiling("smooth_scale and x %s and %s: The dtypes of smooth_scale and x must be the same"
                              % (dtypes.serial_name(smooth.dtype), dtypes.serial_name(a.x.dtype)))
            if smooth.ndim != 1 or smooth.shape[0] != n:
                raise _tiling("smooth_scale %s: smooth_scale can NOT be scalar and the shape size of smooth_scale "
                              "should be same as the last axis of x %d" % (checks.shape_text(smooth.shape), n))
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        code = a.x.dtype
        x = Q.widen(v["x"])
        if "smoothScaleOptional" in v:
            x = round_to(x * Q.widen(v["smoothScaleOptional"]), code)
        n = x.shape[-1]
        grouped, _ = mx.blocks(x, -1, 512)
        level0 = (np.max(np.abs(grouped), axis=-1) / np.float32(6.0)).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            quotient = np.where(level0[..., None] > 0, grouped / level0[..., None], np.float32(0))
        temp = round_to(quotient.reshape(quotient.shape[:-2] + (-1,))[..., :n], code)
        elements, codes = mx.quantize(temp, -1, BLOCK, Q.FLOAT4_E2M1, a.mode)
        mx.store_elements(v["yOut"], a.yOut, elements)
        P.store(v["level0ScaleOut"], level0)
        v["level1ScaleOut"].view(np.uint8)[...] = codes
