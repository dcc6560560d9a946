"""The 4-bit float types of the MX formats. FLOAT4_E2M1 is ml_dtypes' float4_e2m1fn (round to nearest even,
saturating at ±6). FLOAT4_E1M2 (one exponent bit, two mantissa bits: 0, 0.25 … 1.75) has no ml_dtypes type and
is encoded here the same way: nearest even, saturating at ±1.75, NaN to 0, -0 kept. Codes are 4 bits, sign in bit 3."""
import ml_dtypes
import numpy as np

from opemu.core import dtypes

FLOAT4_E2M1, FLOAT4_E1M2 = dtypes.acl("FLOAT4_E2M1"), dtypes.acl("FLOAT4_E1M2")
_E1M2 = np.arange(8, dtype=np.float64) / 4


def decode(codes, code):
    codes = np.asarray(codes, np.uint8) & 0x0F
    if code == FLOAT4_E2M1:
        return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    magnitude = _E1M2[codes & 7]
    return np.where(codes & 8, -magnitude, magnitude).astype(np.float32)


def encode(values, code):
    values = np.asarray(values, np.float32)
    if code == FLOAT4_E2M1:
        return values.astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 0x0F
    a = np.minimum(np.abs(values.astype(np.float64)), 1.75)
    step = np.rint(a * 4)    # quarter steps everywhere: nearest, ties to even
    code_ = step.astype(np.uint8)
    code_ = np.where(np.isnan(values), 0, code_)
    return np.where(np.signbit(values) & ~np.isnan(values), code_ | 8, code_).astype(np.uint8)
