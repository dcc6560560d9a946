"""Quantisation arithmetic shared by quant/, norm/'s fused quant forms, matmul/ and gmm/: the casts the
vector unit makes into integer and 8-bit float types, the dynamic scales, dequantisation, and reading and
writing the raw types (INT4, HIFLOAT8, FLOAT4) through their views.

Integer outputs follow the kernels' cast chain: fp32 → int32 with the round mode (RINT nearest-even for
"round", FLOOR, CEIL, TRUNC), int32 → half, half → int8/int4, each saturating; so a value rounds once and
saturates to the type's range. NaN becomes 0 (the vector unit's fp32 → int32 conversion of NaN; a decision
where the vendor documents nothing). Float8 outputs are ml_dtypes' round-to-nearest-even casts (what the
vendor's golden scripts compute). HiFloat8 and FLOAT4_E1M2 have encoders here (`hifloat8`, `float4`)."""
import ml_dtypes
import numpy as np

from opemu.core import dtypes, packed

FLOAT, FLOAT16, BF16 = dtypes.acl("FLOAT"), dtypes.acl("FLOAT16"), dtypes.acl("BF16")
INT8, INT32, INT4 = dtypes.acl("INT8"), dtypes.acl("INT32"), dtypes.acl("INT4")
FLOAT8_E4M3FN, FLOAT8_E5M2 = dtypes.acl("FLOAT8_E4M3FN"), dtypes.acl("FLOAT8_E5M2")
HIFLOAT8, FLOAT8_E8M0 = dtypes.acl("HIFLOAT8"), dtypes.acl("FLOAT8_E8M0")
FLOAT4_E2M1, FLOAT4_E1M2 = dtypes.acl("FLOAT4_E2M1"), dtypes.acl("FLOAT4_E1M2")

INTEGER_RANGE = {INT8: (-128, 127), INT4: (-8, 7), INT32: (-8, 7)}   # INT32 here: eight INT4 packed per word
# the largest finite value of each float target (the dynamic quantisers' dstTypeMax defaults)
FLOAT_MAX = {FLOAT8_E4M3FN: 448.0, FLOAT8_E5M2: 57344.0, HIFLOAT8: 32768.0, FLOAT4_E2M1: 6.0, FLOAT4_E1M2: 1.75}

_ROUNDERS = {"round": np.rint, "rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}


def widen(x):
    """fp16/bf16/fp32 (or float8) values as fp32."""
    return x if x.dtype == np.float32 else x.astype(np.float32)


def to_integer(values, target, mode="round"):
    """fp32 values cast to INT8/INT4 values (as int8) with `mode`, saturating; NaN gives 0."""
    low, high = INTEGER_RANGE[target]
    rounded = _ROUNDERS[mode](values.astype(np.float32, copy=False))
    with np.errstate(invalid="ignore"):
        rounded = np.nan_to_num(rounded, nan=0.0, posinf=high, neginf=low)
    return np.clip(rounded, low, high).astype(np.int8)


def round_half_away(values):
    """C's round(): ties away from zero (the vector unit's CAST_ROUND)."""
    return np.copysign(np.floor(np.abs(values) + np.float32(0.5)), values)


def to_float8(values, target):
    """fp32 values cast to FLOAT8_E4M3FN / FLOAT8_E5M2 (round to nearest even; NaN out of range as ml_dtypes)."""
    kind = ml_dtypes.float8_e4m3fn if target == FLOAT8_E4M3FN else ml_dtypes.float8_e5m2
    return values.astype(np.float32, copy=False).astype(kind)


def quantize(values, target, mode="round"):
    """fp32 values in the target's storage: int8 for INT8/INT4/INT32(int4 packed), float8 types, uint8 codes for
    HIFLOAT8 and the FLOAT4 types."""
    if target in INTEGER_RANGE:
        return to_integer(values, target, mode)
    if target in (FLOAT8_E4M3FN, FLOAT8_E5M2):
        return to_float8(values, target)
    if target == HIFLOAT8:
        from opemu.ops.aclnn.common import hifloat8
        return hifloat8.encode(values, mode)
    if target in (FLOAT4_E2M1, FLOAT4_E1M2):
        from opemu.ops.aclnn.common import float4
        return float4.encode(values, target)
    raise ValueError("no quantisation to %s" % dtypes.serial_name(target))


def decode(raw, desc):
    """A quantised tensor's values as fp32, read through its view (`raw`) and description."""
    code = desc.dtype
    if code in dtypes.NIBBLE:
        codes = packed.codes(raw, desc)
        if code == INT4:
            return packed.signed(codes).astype(np.float32)
        from opemu.ops.aclnn.common import float4
        return float4.decode(codes, code)
    if code == HIFLOAT8:
        from opemu.ops.aclnn.common import hifloat8
        return hifloat8.decode(raw)
    return widen(raw)


def integer_codes(raw, desc):
    """An INT8/INT4 (or INT32 holding eight INT4) tensor's values as int8, in its logical element shape."""
    if desc.dtype in dtypes.NIBBLE:
        return packed.signed(packed.codes(raw, desc))
    if desc.dtype == INT32:
        return unpack_int32(raw)
    return raw.astype(np.int8, copy=False)


def store(view, desc, values):
    """Write quantised `values` (quantize's result) into the output's view: packing INT4 two per byte, or
    eight per INT32 word when the output is INT32."""
    if desc.dtype in dtypes.NIBBLE:
        packed.store(view, desc, values.view(np.uint8) if values.dtype == np.int8 else values)
    elif desc.dtype == INT32:
        view[...] = pack_int32(values)
    elif desc.dtype == HIFLOAT8:
        view[...] = values
    else:
        view[...] = values.astype(view.dtype, copy=False)


def pack_int32(values):
    """int4 values (int8, last axis a multiple of 8) as INT32 words, element 8i in the lowest nibble."""
    nibbles = (values.astype(np.int64) & 0xF).reshape(values.shape[:-1] + (-1, 8))
    words = np.zeros(nibbles.shape[:-1], np.int64)
    for i in range(8):
        words |= nibbles[..., i] << (4 * i)
    return words.astype(np.uint32).view(np.int32)


def unpack_int32(words):
    """INT32 words holding eight int4 each as int8 values (the last axis eight times longer)."""
    bits = words.astype(np.int32).view(np.uint32)
    nibbles = np.stack([(bits >> (4 * i)) & 0xF for i in range(8)], axis=-1).astype(np.int8)
    nibbles = np.where(nibbles > 7, nibbles - 16, nibbles).astype(np.int8)
    return nibbles.reshape(words.shape[:-1] + (-1,))


def symmetric_scale(amax, qmax):
    """The dynamic quantisers' per-row step, as the kernel forms it: s = qmax / max|x| (fp32 division), the
    stored scale 1 / s, and x quantised as rint(x · s)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = (np.float32(qmax) / amax.astype(np.float32)).astype(np.float32)
        return inverse, (np.float32(1) / inverse).astype(np.float32)


def asymmetric_scale(high, low, target):
    """(scale, offset) of an asymmetric dynamic quantisation: scale = max((max - min) / 255, 1e-12),
    offset = 127 - max / scale (15 and 7 for int4)."""
    levels, top = (np.float32(15), np.float32(7)) if target == INT4 else (np.float32(255), np.float32(127))
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.maximum((high.astype(np.float32) - low.astype(np.float32)) / levels, np.float32(1e-12))
        offset = top - high.astype(np.float32) / scale
    return scale.astype(np.float32), offset.astype(np.float32)


def target_max(target):
    """The largest magnitude of an output type (the dynamic quantisers' qmax)."""
    if target in INTEGER_RANGE:
        return 7.0 if target in (INT4, INT32) else 127.0
    return FLOAT_MAX[target]


def static_quantize(values, scale, offset, target, divide=False, mode="round"):
    """round(values / scale + offset) (divide) or round(values · scale + offset), in fp32, into `target`."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scaled = values / scale if divide else values * scale
        if offset is not None:
            scaled = scaled + offset
    return quantize(scaled, target, mode)


def dynamic_rows(values, target, qmax=None):
    """Symmetric per-row dynamic quantisation of fp32 rows (rows, n): (quantised values, per-row scale) with
    scale = max|row| / qmax and values quantised as rint(v · qmax / max|row|)."""
    amax = np.max(np.abs(values), axis=-1) if values.shape[-1] else np.zeros(values.shape[:-1], np.float32)
    inverse, scale = symmetric_scale(amax, target_max(target) if qmax is None else qmax)
    with np.errstate(invalid="ignore", over="ignore"):
        return quantize(values * inverse[..., None], target), scale


QUANT_SCALE_FLAG = np.uint64(1 << 46)


def quant_param_words(scale, offset=None, round_mode=0):
    """aclnnTransQuantParamV2/V3's 64-bit words from fp32 scales (and offsets): the scale's bits cut to fp19
    (roundMode 0: its high 19 bits; 1: rounded to nearest even, saturating the exponent) with bit 46 set, the
    offset rounded to nearest even, clamped to [-256, 255] and kept as 9 bits at bit 37."""
    bits = np.ascontiguousarray(scale, np.float32).view(np.uint32).astype(np.uint64)
    if round_mode == 0:
        words = bits & np.uint64(0xFFFFE000)
    else:
        sign, exponent, mantissa = bits >> np.uint64(31), (bits >> np.uint64(23)) & np.uint64(0xFF), bits & np.uint64(
            0x7FFFFF)
        kept, round_bit, sticky = mantissa >> np.uint64(13), (mantissa >> np.uint64(12)) & np.uint64(1), mantissa & \
            np.uint64(0xFFF)
        up = (exponent != 0) & (exponent != 0xFF) & (round_bit != 0) & ((sticky != 0) | ((kept & np.uint64(1)) != 0))
        kept = kept + up.astype(np.uint64)
        carry = kept >= np.uint64(1 << 10)
        kept = np.where(carry, np.uint64(0), kept)
        exponent = exponent + carry.astype(np.uint64)
        saturated = exponent > np.uint64(0xFF)
        fp19 = np.where(exponent == 0, sign << np.uint64(18),
                        np.where(saturated, (sign << np.uint64(18)) | np.uint64(0xFF << 10),
                                 (sign << np.uint64(18)) | (exponent << np.uint64(10)) | kept))
        words = fp19 << np.uint64(13)
    words = words | QUANT_SCALE_FLAG
    if offset is not None:
        offset = np.clip(np.nan_to_num(np.rint(np.asarray(offset, np.float32)), nan=0.0), -256, 255).astype(np.int64)
        words = words | ((offset.astype(np.uint64) & np.uint64(0x1FF)) << np.uint64(37))
    return words


def quant_param_scale(words):
    """The fp32 scale and the int9 offset the fixpipe reads from TransQuantParam words (int64 or uint64)."""
    words = np.asarray(words).view(np.uint64)
    scale = (words & np.uint64(0xFFFFE000)).astype(np.uint32).view(np.float32)
    offset = ((words >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.int64)
    return scale, np.where(offset > 255, offset - 512, offset).astype(np.float32)
