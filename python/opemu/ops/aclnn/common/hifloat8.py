"""HiFloat8 (HIFLOAT8): Ascend's tapered 8-bit float. Code = sign bit, then a prefix ("dot") naming how many
exponent bits follow, the exponent (its sign, then its magnitude without the leading 1), the mantissa:

    dot   exponent bits  exponents        mantissa bits
    11    4              ±8 … ±15         1
    10    3              ±4 … ±7          2
    01    2              ±2, ±3           3
    001   1              ±1               3
    0001  0              0                3
    0000  -              denormals 2^(m-23), m = 1…7 (mantissa field m); m = 0 is zero

Positive codes run 0x00…0x7F; 0x6F (exponent +15, mantissa 1) is infinity, 0x80 NaN, and there is no -0.
Encoding rounds to the nearest representable magnitude, ties away from zero ("round"; "hybrid", which the
vendor does not document, rounds the same way), infinity being the successor of 32768 one step (16384)
above it; NaN encodes as 0x80."""
import functools

import numpy as np

NAN_CODE, INF_CODE = 0x80, 0x6F


def _value(code):
    if code == 0:
        return 0.0
    if code < 0x08:
        return 2.0 ** (code - 23)
    for first, width, mantissa in ((0x60, 4, 1), (0x40, 3, 2), (0x20, 2, 3), (0x10, 1, 3), (0x08, 0, 3)):
        if code >= first:
            field = code - first
            exponent_field, m = field >> mantissa, field & ((1 << mantissa) - 1)
            if width == 0:
                exponent = 0
            else:
                sign, magnitude = exponent_field >> (width - 1), exponent_field & ((1 << (width - 1)) - 1)
                exponent = (1 << (width - 1)) + magnitude
                exponent = -exponent if sign else exponent
            return 2.0 ** exponent * (1 + m / (1 << mantissa))
    raise AssertionError(code)


@functools.lru_cache(maxsize=None)
def tables():
    """(value of each of the 256 codes as float64, the non-negative finite magnitudes in order, their codes)."""
    values = np.array([_value(c) for c in range(0x80)], np.float64)
    values[INF_CODE] = np.inf
    full = np.concatenate([values, -values])
    full[NAN_CODE] = np.nan
    finite = [c for c in range(0x80) if c != INF_CODE]
    order = sorted(finite, key=lambda c: values[c])
    return full, values[order], np.array(order, np.uint8)


def decode(codes):
    return tables()[0][codes].astype(np.float32)


def encode(values, mode="round"):
    """fp32 values → HiFloat8 codes (uint8), nearest with ties away from zero."""
    _, magnitudes, codes = tables()
    x = np.asarray(values, np.float64)
    a = np.abs(x)
    # the lattice with infinity as the step after 32768
    lattice = np.append(magnitudes, 2 * magnitudes[-1] - magnitudes[-2])
    upper = np.clip(np.searchsorted(lattice, a, side="left"), 1, len(lattice) - 1)
    low, high = lattice[upper - 1], lattice[upper]
    with np.errstate(invalid="ignore"):
        take_high = (a - low) >= (high - a)
    index = np.where(take_high, upper, upper - 1)
    code = np.where(index == len(magnitudes), INF_CODE, codes[np.minimum(index, len(magnitudes) - 1)])
    code = np.where(np.isinf(a) | (a > lattice[-1]), INF_CODE, code).astype(np.uint8)
    negative = (x < 0) & (code != 0)
    code = np.where(negative, code | 0x80, code)
    return np.where(np.isnan(x), NAN_CODE, code).astype(np.uint8)
