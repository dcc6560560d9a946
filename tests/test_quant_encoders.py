"""The quantisation arithmetic shared by quant/, norm/ and matmul/: the HiFloat8 and FLOAT4_E1M2 encoders, INT4
packing, TransQuantParam words, MX block quantisation and the FRACTAL_NZ layout, each against a reference written
here from the format's definition (float64, brute force), not from the kernel."""
import itertools

import ml_dtypes
import numpy as np
import pytest

from opemu.core import packed
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import float4, fractal_nz, hifloat8, mx
from opemu.ops.aclnn.common import quantize as Q


def hif8_value(code):
    """HiFloat8 from its bit fields, parsed left to right (sign, dot prefix, exponent sign/magnitude, mantissa)."""
    if code == 0x80:
        return np.nan
    sign = -1.0 if code & 0x80 else 1.0
    bits = format(code & 0x7F, "07b")
    prefixes = [("11", 4, 1), ("10", 3, 2), ("01", 2, 3), ("001", 1, 3), ("0001", 0, 3), ("0000", None, 3)]
    for prefix, width, mantissa_bits in prefixes:
        if bits.startswith(prefix):
            rest = bits[len(prefix):]
            break
    if width is None:                      # denormal: 2^(m - 23), m = the 3-bit field
        m = int(rest, 2)
        return 0.0 if m == 0 else sign * 2.0 ** (m - 23)
    exponent = 0
    if width:
        field = rest[:width]
        magnitude = int("1" + field[1:], 2)
        exponent = -magnitude if field[0] == "1" else magnitude
    mantissa = int(rest[width:], 2) / 2 ** mantissa_bits
    value = sign * 2.0 ** exponent * (1 + mantissa)
    return sign * np.inf if code & 0x7F == 0x6F else value


def test_hifloat8_decodes_every_code_as_its_fields_say():
    codes = np.arange(256, dtype=np.uint8)
    expected = np.array([hif8_value(c) for c in range(256)])
    np.testing.assert_array_equal(hifloat8.decode(codes).astype(np.float64), expected)


def test_hifloat8_rounds_to_nearest_with_ties_away_from_zero():
    finite = sorted({abs(hif8_value(c)) for c in range(256) if np.isfinite(hif8_value(c))})
    lattice = np.array(finite + [2 * finite[-1] - finite[-2]])   # infinity: the step after 32768
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(20000) * 10.0 ** rng.integers(-8, 6, 20000),
                        (lattice[:-1] + lattice[1:]) / 2, lattice[:-1]]).astype(np.float32)
    got = hifloat8.decode(hifloat8.encode(x)).astype(np.float64)
    a = np.abs(x.astype(np.float64))
    distance = np.abs(lattice[None, :] - a[:, None])
    best = distance.min(axis=1)
    # the largest candidate among the nearest: ties go away from zero
    choice = np.where(distance == best[:, None], lattice[None, :], -1).max(axis=1)
    choice = np.where(choice == lattice[-1], np.inf, choice)
    np.testing.assert_array_equal(np.abs(got), choice)
    assert np.all((np.sign(got) == np.sign(x)) | (got == 0))


def test_hifloat8_nan_encodes_as_0x80_and_infinities_saturate_to_infinity():
    codes = hifloat8.encode(np.array([np.nan, np.inf, -np.inf, 1e9, -0.0], np.float32))
    assert list(codes) == [0x80, 0x6F, 0xEF, 0x6F, 0x00]


def test_float4_e1m2_rounds_to_nearest_even_and_saturates():
    grid = np.arange(8) / 4
    x = np.concatenate([np.linspace(-2.5, 2.5, 2001), grid + 0.125]).astype(np.float32)
    got = float4.decode(float4.encode(x, float4.FLOAT4_E1M2), float4.FLOAT4_E1M2)
    a = np.minimum(np.abs(x), 1.75).astype(np.float64)
    lower = np.floor(a * 4) / 4
    tie = np.isclose(a - lower, 0.125)
    expected = np.where(tie, np.where((lower * 4) % 2 == 0, lower, lower + 0.25), np.round(a * 4) / 4)
    np.testing.assert_array_equal(np.abs(got), expected)


@pytest.mark.parametrize("shape,strides,offset", [((3, 8), (8, 1), 0), ((3, 8), (8, 1), 1), ((8, 3), (1, 8), 0),
                                                  ((4, 5), (12, 2), 3)], ids=str)
def test_int4_nibbles_follow_the_views_element_order(shape, strides, offset):
    rng = np.random.default_rng(1)
    span = offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    raw = rng.integers(0, 256, (span + 1) // 2, dtype=np.uint8)
    desc = TensorDesc(Q.INT4, shape, strides, offset)
    got = packed.codes(raw, desc)
    for index in itertools.product(*map(range, shape)):
        element = offset + sum(i * s for i, s in zip(index, strides))
        byte = raw[element // 2]
        assert got[index] == (byte >> 4 if element % 2 else byte & 0xF)
    before = raw.copy()
    values = rng.integers(0, 16, shape, dtype=np.uint8)
    packed.store(raw, desc, values)
    np.testing.assert_array_equal(packed.codes(raw, desc), values)
    touched = np.zeros(len(raw) * 2, bool)
    for index in itertools.product(*map(range, shape)):
        touched[offset + sum(i * s for i, s in zip(index, strides))] = True
    nibbles = np.stack([raw & 0xF, raw >> 4], 1).reshape(-1)
    old = np.stack([before & 0xF, before >> 4], 1).reshape(-1)
    np.testing.assert_array_equal(nibbles[~touched], old[~touched])


def test_int32_words_hold_eight_int4_lowest_nibble_first():
    values = np.arange(-8, 8, dtype=np.int8).reshape(2, 8)
    words = Q.pack_int32(values)
    for row, word in zip(values, words[:, 0].view(np.uint32)):
        assert int(word) == sum((int(v) & 0xF) << (4 * i) for i, v in enumerate(row))
    np.testing.assert_array_equal(Q.unpack_int32(words), values)


def test_trans_quant_param_words_keep_19_scale_bits_flag_46_and_a_9_bit_offset():
    scale = np.array([1.0, 0.1, -3.7e-5], np.float32)
    offset = np.array([3.4, -300.0, 255.5], np.float32)
    words = Q.quant_param_words(scale, offset)
    for s, o, w in zip(scale, offset, words):
        bits = int(np.array(s).view(np.uint32)) & 0xFFFFE000
        clamped = int(min(max(np.rint(o), -256), 255))
        assert int(w) == bits | (1 << 46) | ((clamped & 0x1FF) << 37)
    back_scale, back_offset = Q.quant_param_scale(words)
    np.testing.assert_array_equal(back_offset, [3, -256, 255])
    assert np.all(np.abs(back_scale - scale) <= np.abs(scale) * 2.0 ** -10)


def test_trans_quant_param_round_mode_1_rounds_the_scale_to_nearest_even_fp19():
    scale = np.array([1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20], np.float32)
    words = Q.quant_param_words(scale, None, round_mode=1)
    got = (words & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(got, np.array([1.0, 1 + 4 * 2 ** -11, 1 + 2 ** -10], np.float32))


def mx_reference(block, target):
    """MX of one block in float64: scale 2^(floor(log2 max) - emax), elements rounded to the target's grid."""
    emax, grid = {Q.FLOAT8_E4M3FN: (8, ml_dtypes.float8_e4m3fn), Q.FLOAT4_E2M1: (2, ml_dtypes.float4_e2m1fn)}[target]
    amax = np.max(np.abs(block))
    exponent = -127 if amax == 0 else max(int(np.floor(np.log2(amax))) - emax, -127)
    values = np.arange(256, dtype=np.uint8).view(grid) if target == Q.FLOAT8_E4M3FN else \
        np.arange(16, dtype=np.uint8).view(grid)
    lattice = np.unique(np.abs(values.astype(np.float64)[np.isfinite(values.astype(np.float64))]))
    scaled = block / 2.0 ** exponent
    nearest = lattice[np.abs(lattice[None, :] - np.abs(scaled)[:, None]).argmin(axis=1)]
    return np.sign(scaled) * nearest, exponent


@pytest.mark.parametrize("target", [Q.FLOAT8_E4M3FN, Q.FLOAT4_E2M1], ids=["e4m3", "e2m1"])
def test_mx_blocks_scale_by_a_power_of_two_and_round_elements(target):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((3, 64)) * 10.0 ** rng.integers(-3, 3, (3, 1))).astype(np.float32)
    elements, codes = mx.quantize(x, -1, 32, target)
    assert codes.shape == (3, 1, 2)
    for row in range(3):
        for block in range(2):
            expected, exponent = mx_reference(x[row, block * 32:(block + 1) * 32].astype(np.float64), target)
            assert codes[row, 0, block] == exponent + 127
            got = elements[row, block * 32:(block + 1) * 32]
            close = np.isclose(np.abs(got), np.abs(expected)) | (np.abs(got - expected) <= 2.0 ** -3 * np.abs(expected))
            assert close.all()


def test_fractal_nz_places_element_r_c_at_its_block():
    rng = np.random.default_rng(3)
    matrix = rng.integers(-100, 100, (20, 40)).astype(np.int8)
    storage = fractal_nz.to_nz(matrix, 32)
    assert storage.size == 2 * 2 * 16 * 32                  # C1 = ceil(40/32), R1 = ceil(20/16)
    blocks = storage.reshape(2, 2, 16, 32)
    for r, c in [(0, 0), (19, 39), (5, 33), (17, 2)]:
        assert blocks[c // 32, r // 16, r % 16, c % 32] == matrix[r, c]
    np.testing.assert_array_equal(fractal_nz.to_nd(storage, (), 20, 40, 32), matrix)
