"""MX (microscaling) block quantisation, shared by quant/'s Mx operators, norm/'s fused Mx quantisers and the
MX matmuls: per block of `blocksize` elements along an axis, a power-of-two scale (FLOAT8_E8M0) and the elements
divided by it, rounded to FLOAT4_E2M1 / FLOAT4_E1M2 / FLOAT8_E4M3FN / FLOAT8_E5M2.

Scale (the vendor's docs and golden scripts): scaleAlg 0 — shared_exp = floor(log2(max|block|)) - emax of
the element type (2, 0, 8, 15); scaleAlg 1 (FP8), and 2 with a dstTypeMax other than 0/6/7 — S = max / max_norm
(or dstTypeMax), its exponent raised by one when S is a normal number with a non-zero mantissa (or a subnormal
above half); scaleAlg 2 (FP4_E2M1) with dstTypeMax 0/6/7 — floor's exponent, raised when the bf16 max's
mantissa passes 0.5 (0.75 for 7); shared_exp clamped below at -127, NaN
(E8M0 0xFF) above 127; an all-zero block gets 2^-127. Elements: x / 2^shared_exp rounded to the element type's
mantissa at its own exponent (no lower than the type's smallest normal exponent; "rint" nearest even, "round"
half away, "floor", "ceil", "trunc"), saturated to ±max_norm, NaN to 0.

Layout of the scales: the block count along the axis is padded to even (with 2^-127) and the scale tensor has
that axis halved and a trailing axis of 2; when the axis is not the last, pairs of scale rows are interleaved
(the layout the MX matmuls read)."""
import ml_dtypes
import numpy as np

from opemu.ops.aclnn.common import quantize as Q

# element type: (exponent bits, mantissa bits, emax, max_norm, smallest private exponent)
ELEMENTS = {Q.FLOAT4_E2M1: (2, 1, 2, 6.0, 0), Q.FLOAT4_E1M2: (1, 2, 0, 1.75, 0),
            Q.FLOAT8_E4M3FN: (4, 3, 8, 448.0, -6), Q.FLOAT8_E5M2: (5, 2, 15, 57344.0, -14)}
SCALE_MIN_EXP, SCALE_MAX_EXP = -127, 127


def blocks(x, axis, blocksize):
    """fp32 x with `axis` cut into (blocks, blocksize) (zero padded): (array, padded length)."""
    x = np.moveaxis(x.astype(np.float32, copy=False), axis, -1)
    n = x.shape[-1]
    padded = -(-n // blocksize) * blocksize
    if padded != n:
        x = np.concatenate([x, np.zeros(x.shape[:-1] + (padded - n,), np.float32)], axis=-1)
    return x.reshape(x.shape[:-1] + (padded // blocksize, blocksize)), n


def shared_exponent(block_max, target, scale_alg=0, dst_max=0.0):
    """Per block the exponent of its scale (float32; NaN when past E8M0's range)."""
    _, _, emax, max_norm, _ = ELEMENTS[target]
    with np.errstate(divide="ignore", invalid="ignore"):
        if scale_alg == 1 and target in (Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2) or (scale_alg == 2 and dst_max not in (
                0.0, 6.0, 7.0)):
            s = (block_max / np.float32(dst_max or max_norm)).astype(np.float32)
            bits = s.view(np.uint32)
            exponent = ((bits >> 23) & 0xFF).astype(np.int32)
            mantissa = bits & 0x7FFFFF
            up = ((exponent > 0) & (exponent < 254) & (mantissa > 0)) | ((exponent == 0) & (mantissa > (1 << 22)))
            result = (exponent + up - 127).astype(np.float32)
        elif scale_alg == 2 and target == Q.FLOAT4_E2M1:
            result = _dtype_range_exponent(block_max, dst_max)
        else:
            tiny = np.float32(2.0 ** -126)
            result = np.floor(np.log2(block_max + tiny * (block_max == 0))) - np.float32(emax)
    result = np.where(block_max == 0, -np.inf, result)
    result = np.where(result > SCALE_MAX_EXP, np.nan, result)
    return np.where(result < SCALE_MIN_EXP, np.float32(SCALE_MIN_EXP), result).astype(np.float32)


def _dtype_range_exponent(block_max, dst_max):
    """scaleAlg 2 with dstTypeMax 0, 6 or 7 (FLOAT4_E2M1): the block's max as bf16, its exponent, one up when
    its 7-bit mantissa passes 0x40 (6.0, and 0) or 0x60 (7.0) — the elements then reach past 6 or 7 — less
    emax 2; a zero or subnormal max gives -127, an infinite or NaN one NaN (the kernel reads the bf16 bits)."""
    bits = block_max.astype(ml_dtypes.bfloat16).view(np.uint16)
    exponent = ((bits >> 7) & 0xFF).astype(np.int32)
    threshold = 0x60 if dst_max == 7.0 else 0x40
    result = (exponent + ((bits & 0x7F) > threshold) - 2 - 127).astype(np.float32)
    result = np.where(exponent == 255, np.float32(np.nan), result)
    return np.where(exponent == 0, np.float32(SCALE_MIN_EXP), result)


def round_elements(values, target, mode="rint"):
    """fp32 values (already divided by their scale) rounded to the element type's grid, saturated, NaN → 0."""
    _, mantissa_bits, _, max_norm, min_exp = ELEMENTS[target]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = np.abs(values.astype(np.float64))
        private = np.maximum(np.floor(np.log2(np.where(a == 0, 1.0, a))), min_exp)
        step = np.exp2(private - mantissa_bits)
        scaled = values / step
        if mode in ("round", "nearest"):
            rounded = np.copysign(np.floor(np.abs(scaled) + 0.5), scaled)
        else:
            rounded = {"rint": np.rint, "even": np.rint, "floor": np.floor, "ceil": np.ceil,
                       "trunc": np.trunc}[mode](scaled)
        result = np.clip(rounded * step, -max_norm, max_norm)
    return np.nan_to_num(result, nan=0.0).astype(np.float32)


def e8m0_codes(exponent):
    """FLOAT8_E8M0 codes (uint8) of 2^exponent; NaN → 0xFF."""
    codes = np.where(np.isnan(exponent), 255, np.nan_to_num(exponent, nan=0.0) + 127)
    return np.clip(codes, 0, 255).astype(np.uint8)


def scale_layout(codes, axis, ndim):
    """Per-block scale codes (x's shape with `axis` counting blocks) in the vendor's layout: the block axis
    padded to even (code 0, 2^-127), halved, a trailing axis of 2, pairs interleaved when axis is not the last."""
    axis = axis % ndim
    if codes.shape[axis] % 2:
        pad = [(0, 0)] * codes.ndim
        pad[axis] = (0, 1)
        codes = np.pad(codes, pad, constant_values=0)
    shape = list(codes.shape)
    split = shape[:axis] + [shape[axis] // 2, 2] + shape[axis + 1:]
    codes = codes.reshape(split)
    if axis != ndim - 1:
        codes = np.moveaxis(codes, axis + 1, -1)
    return np.ascontiguousarray(codes)


def scale_shape(x_shape, axis, blocksize):
    axis = axis % len(x_shape)
    count = -(-x_shape[axis] // blocksize)
    count += count % 2
    return tuple(x_shape[:axis]) + (count // 2,) + tuple(x_shape[axis + 1:]) + (2,)


def quantize(x, axis, blocksize, target, mode="rint", scale_alg=0, dst_max=0.0, max_low_bound=0.0):
    """(element values as fp32 in x's shape, E8M0 scale codes in the vendor's layout) of an MX quantisation."""
    axis = axis % x.ndim
    grouped, n = blocks(x, axis, blocksize)
    block_max = np.max(np.abs(grouped), axis=-1)
    if max_low_bound > 0:
        block_max = np.maximum(block_max, np.float32(max_low_bound))
    exponent = shared_exponent(block_max, target, scale_alg, dst_max)
    with np.errstate(invalid="ignore", over="ignore"):
        divided = grouped / np.exp2(exponent)[..., None].astype(np.float32)
    elements = round_elements(divided, target, mode)
    elements = elements.reshape(elements.shape[:-2] + (-1,))[..., :n]
    elements = np.moveaxis(elements, -1, axis)
    codes = np.moveaxis(e8m0_codes(exponent), -1, axis)
    return elements, scale_layout(codes, axis, x.ndim)


def dequantize(values, scale_codes, axis, blocksize):
    """values (fp32, x's shape) times 2^(scale - 127) of their block; scale_codes in the vendor's layout."""
    axis = axis % values.ndim
    codes = scale_codes
    if axis != values.ndim - 1:
        codes = np.moveaxis(codes, -1, axis + 1)
    shape = list(codes.shape)
    codes = codes.reshape(shape[:axis] + [shape[axis] * shape[axis + 1]] + shape[axis + 2:])
    factor = np.where(codes == 255, np.nan, np.exp2(codes.astype(np.float32) - 127)).astype(np.float32)
    factor = np.repeat(factor, blocksize, axis=axis)
    factor = np.take(factor, np.arange(values.shape[axis]), axis=axis)
    return values * factor


def store_elements(view, desc, elements):
    """Write MX element values (exact on the target's grid) into y's view."""
    Q.store(view, desc, Q.quantize(elements, desc.dtype))
