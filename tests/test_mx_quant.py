"""The MX and rotation quantisers through the C ABI (the 950 line where the vendor keeps them there): scales
against a float64 reference of the docs' formulas, elements against a decode of the output, the layouts of the
scale tensors, and the product refusal elsewhere."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

from acl import DeviceTensor, recent_error
from acl_args import call, random, result
from opemu.core import dtypes

RUNTIME_ERROR = 361001
F, BF16 = np.float32, ml_dtypes.bfloat16
E4M3, E2M1, E8M0 = dtypes.acl("FLOAT8_E4M3FN"), dtypes.acl("FLOAT4_E2M1"), dtypes.acl("FLOAT8_E8M0")


@pytest.fixture
def ascend950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")


def e8m0(codes):
    return np.exp2(codes.astype(np.float64) - 127)


def test_dynamic_mx_quant_scale_is_floor_log2_of_the_block_max_minus_emax(ascend950):
    rng = np.random.default_rng(0)
    x = (random((3, 64), F, rng) * 40).astype(BF16)
    y = DeviceTensor(np.zeros((3, 64), np.uint8), dtype=E4M3)
    scale = DeviceTensor(np.zeros((3, 1, 2), np.uint8), dtype=E8M0)
    assert call("aclnnDynamicMxQuant", DeviceTensor(x), ctypes.c_int64(-1), b"rint", ctypes.c_int64(E4M3),
                ctypes.c_int64(32), ctypes.c_int64(0), y, scale) == (0, 0, 0), recent_error()
    blocks = x.astype(np.float64).reshape(3, 2, 32)
    expected = np.floor(np.log2(np.abs(blocks).max(-1))) - 8
    np.testing.assert_array_equal(result(scale).reshape(3, 2).astype(np.float64) - 127, expected)
    values = result(y).view(ml_dtypes.float8_e4m3fn).astype(np.float64).reshape(3, 2, 32)
    restored = values * e8m0(result(scale).reshape(3, 2, 1))
    # the element type saturates at 448: a block whose max lies in [1.75, 2) · 2^(exp + 8) clips there
    target = np.clip(blocks, -448 * 2.0 ** expected[..., None], 448 * 2.0 ** expected[..., None])
    assert np.all(np.abs(restored - target) <= np.abs(target) * 2.0 ** -4 + 2.0 ** (expected[..., None] - 9))


def test_anti_mx_quant_multiplies_each_block_by_its_scale(ascend950):
    codes = np.array([[1, 2, 3, 4] * 16], np.uint8)          # FLOAT4_E2M1 codes, two per byte: 0.5, 1, 1.5, 2
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    x = DeviceTensor(packed, shape=(1, 64), dtype=E2M1)
    scale = DeviceTensor(np.array([[[128, 125]]], np.uint8), dtype=E8M0)
    y = DeviceTensor(np.zeros((1, 64), BF16))
    assert call("aclnnAntiMxQuant", x, scale, ctypes.c_int64(-1), ctypes.c_int64(dtypes.acl("BF16")), y) == \
        (0, 0, 0), recent_error()
    base = np.tile([0.5, 1.0, 1.5, 2.0], 16)
    np.testing.assert_array_equal(result(y).astype(F).reshape(-1), base * np.repeat([2.0, 0.25], 32))


def test_dynamic_mx_quant_is_refused_outside_the_950_line():
    x = DeviceTensor(np.zeros((2, 32), BF16))
    assert call("aclnnDynamicMxQuant", x, ctypes.c_int64(-1), b"rint", ctypes.c_int64(E4M3), ctypes.c_int64(32),
                ctypes.c_int64(0), DeviceTensor(np.zeros((2, 32), np.uint8), dtype=E4M3),
                DeviceTensor(np.zeros((2, 1, 2), np.uint8), dtype=E8M0))[0] == RUNTIME_ERROR


def test_rms_norm_dynamic_mx_quant_quantises_the_norm(ascend950):
    rng = np.random.default_rng(1)
    x, g = random((2, 64), BF16, rng), random((64,), BF16, rng)
    y = DeviceTensor(np.zeros((2, 64), np.uint8), dtype=E4M3)
    scale = DeviceTensor(np.zeros((2, 1, 2), np.uint8), dtype=E8M0)
    rstd = DeviceTensor(np.zeros((2, 1), F))
    assert call("aclnnRmsNormDynamicMxQuant", DeviceTensor(x), DeviceTensor(g), None, ctypes.c_double(1e-6),
                ctypes.c_int64(0), b"rint", ctypes.c_int64(E4M3), ctypes.c_bool(True), y, scale, rstd) == (0, 0, 0), \
        recent_error()
    xf = x.astype(np.float64)
    norm = xf / np.sqrt((xf ** 2).mean(-1, keepdims=True) + 1e-6) * g.astype(np.float64)
    restored = result(y).view(ml_dtypes.float8_e4m3fn).astype(np.float64).reshape(2, 2, 32) * \
        e8m0(result(scale).reshape(2, 2, 1))
    np.testing.assert_allclose(restored.reshape(2, 64), norm, rtol=0.07, atol=0.02)


def test_rotate_quant_rotates_then_quantises_each_row_to_int8():
    rng = np.random.default_rng(2)
    x, rotation = random((3, 8), BF16, rng), random((4, 4), BF16, rng)
    y, scale = DeviceTensor(np.zeros((3, 8), np.int8)), DeviceTensor(np.zeros(3, F))
    assert call("aclnnRotateQuant", DeviceTensor(x), DeviceTensor(rotation), None, ctypes.c_int64(-1), b"rint",
                ctypes.c_int64(0), ctypes.c_double(0), ctypes.c_bool(False), y, scale) == (0, 0, 0), recent_error()
    rotated = (x.astype(np.float64).reshape(-1, 4) @ rotation.astype(np.float64)).reshape(3, 8)
    np.testing.assert_allclose(result(scale), np.abs(rotated).max(1) / 127, rtol=1e-2)
    assert np.abs(result(y) - np.rint(rotated / (np.abs(rotated).max(1, keepdims=True) / 127))).max() <= 2


def test_flat_quant_rotates_by_both_factors_and_quantises_per_token_to_int4():
    rng = np.random.default_rng(3)
    x, p1, p2 = random((2, 4, 8), BF16, rng), random((4, 4), BF16, rng), random((8, 8), BF16, rng)
    out = DeviceTensor(np.zeros((2, 4, 1), np.int32))
    scale = DeviceTensor(np.zeros(2, F))
    assert call("aclnnFlatQuant", DeviceTensor(x), DeviceTensor(p1), DeviceTensor(p2), ctypes.c_double(1.0), out,
                scale) == (0, 0, 0), recent_error()
    rotated = np.einsum("ij,bjk,kl->bil", p1.astype(np.float64), x.astype(np.float64), p2.astype(np.float64))
    np.testing.assert_allclose(result(scale), np.abs(rotated).max((1, 2)) / 7, rtol=2e-2)
    words = result(out).view(np.uint32).reshape(2, 4)
    nibbles = np.stack([(words >> (4 * i)) & 0xF for i in range(8)], -1).astype(np.int8)
    values = np.where(nibbles > 7, nibbles - 16, nibbles)
    expected = np.rint(rotated / (np.abs(rotated).max((1, 2), keepdims=True) / 7))
    assert np.abs(values - expected).max() <= 1


def test_grouped_dynamic_mx_quant_pads_each_groups_scales_to_pairs(ascend950):
    rng = np.random.default_rng(4)
    x = random((70, 32), BF16, rng)
    y = DeviceTensor(np.zeros((70, 32), np.uint8), dtype=E4M3)
    scale = DeviceTensor(np.zeros((3, 32, 2), np.uint8), dtype=E8M0)
    assert call("aclnnGroupedDynamicMxQuant", DeviceTensor(x), DeviceTensor(np.array([40, 70], np.int32)), b"rint",
                ctypes.c_int64(E4M3), ctypes.c_int64(32), y, scale) == (0, 0, 0), recent_error()
    codes = result(scale).reshape(3, 32, 2)
    xf = np.abs(x.astype(np.float64))
    for pair, slot, rows in ((0, 0, slice(0, 32)), (0, 1, slice(32, 40)), (1, 0, slice(40, 70))):
        np.testing.assert_array_equal(codes[pair, :, slot].astype(np.float64) - 127,
                                      np.floor(np.log2(xf[rows].max(0))) - 8)
    assert np.all(codes[1, :, 1] == 0) and np.all(codes[2] == 0)
