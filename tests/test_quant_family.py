"""ops-nn quant/: static and dynamic quantisation and dequantisation through the C ABI, against float64
references written here (the vendor's documented formulas) and torch's fake quantisers."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, random, result
from opemu.core import dtypes

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
F, H = np.float32, np.float16
INT8, INT4, INT32 = dtypes.acl("INT8"), dtypes.acl("INT4"), dtypes.acl("INT32")


def round_mode(values, mode):
    return {"round": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}[mode](values)


@pytest.mark.parametrize("mode", ["round", "floor", "ceil", "trunc"])
def test_ascend_quant_v3_rounds_with_the_mode_and_saturates(mode):
    rng = np.random.default_rng(0)
    x = (random((4, 8), F, rng) * 30).astype(F)
    scale, offset = random((8,), F, rng), random((8,), F, rng)
    y = DeviceTensor(np.zeros((4, 8), np.int8))
    assert call("aclnnAscendQuantV3", DeviceTensor(x), DeviceTensor(scale), DeviceTensor(offset), ctypes.c_bool(False),
                mode.encode(), ctypes.c_int32(INT8), ctypes.c_int32(-1), y) == (0, 0, 0), recent_error()
    expected = np.clip(round_mode(x.astype(np.float64) * scale + offset, mode), -128, 127)
    np.testing.assert_array_equal(result(y), expected)


def test_ascend_quant_v3_sqrt_mode_multiplies_by_the_scale_twice_along_axis_0():
    rng = np.random.default_rng(1)
    x, scale = random((3, 5), H, rng), random((3, 1), H, rng)
    y = DeviceTensor(np.zeros((3, 5), np.int8))
    assert call("aclnnAscendQuantV3", DeviceTensor(x), DeviceTensor(scale), None, ctypes.c_bool(True), b"round",
                ctypes.c_int32(INT8), ctypes.c_int32(0), y) == (0, 0, 0), recent_error()
    expected = np.rint(x.astype(np.float64) * scale.astype(np.float64) ** 2)
    assert np.abs(result(y) - np.clip(expected, -128, 127)).max() <= 1


def test_ascend_quant_v3_int4_output_packs_two_values_a_byte():
    x = np.array([[-9, -8, -1.4, 0.6, 3, 7.6, 20, 1]], F)
    y = DeviceTensor(np.zeros(4, np.uint8), shape=(1, 8), dtype=INT4)
    assert call("aclnnAscendQuantV3", DeviceTensor(x), DeviceTensor(np.ones(1, F)), None, ctypes.c_bool(False),
                b"round", ctypes.c_int32(INT4), ctypes.c_int32(-1), y) == (0, 0, 0), recent_error()
    raw = y.storage()
    nibbles = np.stack([raw & 0xF, raw >> 4], 1).reshape(-1).astype(np.int8)
    np.testing.assert_array_equal(np.where(nibbles > 7, nibbles - 16, nibbles), [-8, -8, -1, 1, 3, 7, 7, 1])


def test_ascend_quant_v3_dst_type_must_name_y_dtype():
    x = DeviceTensor(np.zeros((2, 4), F))
    assert call("aclnnAscendQuantV3", x, DeviceTensor(np.ones(4, F)), None, ctypes.c_bool(False), b"round",
                ctypes.c_int32(INT4), ctypes.c_int32(-1), DeviceTensor(np.zeros((2, 4), np.int8)))[0] == PARAM_INVALID
    assert "must be able to represent the y dtype[DT_INT8]" in recent_error()


def test_ascend_quant_v3_refuses_an_unknown_round_mode():
    x = DeviceTensor(np.zeros((2, 4), F))
    assert call("aclnnAscendQuantV3", x, DeviceTensor(np.ones(4, F)), None, ctypes.c_bool(False), b"nearest",
                ctypes.c_int32(INT8), ctypes.c_int32(-1), DeviceTensor(np.zeros((2, 4), np.int8)))[0] == PARAM_INVALID
    assert "roundMode[nearest] not in ['round','floor','ceil','trunc']" in recent_error()


def test_ascend_anti_quant_adds_the_offset_then_scales():
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, (3, 6)).astype(np.int8)
    scale, offset = random((6,), H, rng), random((6,), H, rng)
    y = DeviceTensor(np.zeros((3, 6), H))
    assert call("aclnnAscendAntiQuant", DeviceTensor(x), DeviceTensor(scale), DeviceTensor(offset),
                ctypes.c_int64(dtypes.acl("FLOAT16")), ctypes.c_bool(False), y) == (0, 0, 0), recent_error()
    expected = (x + offset.astype(np.float64)) * scale.astype(np.float64)
    np.testing.assert_allclose(result(y).astype(np.float64), expected, rtol=1e-3, atol=1e-3)


def test_dynamic_quant_v2_asymmetric_per_token():
    rng = np.random.default_rng(3)
    x = random((4, 16), H, rng)
    y, scale, offset = DeviceTensor(np.zeros((4, 16), np.int8)), DeviceTensor(np.zeros(4, F)), \
        DeviceTensor(np.zeros(4, F))
    assert call("aclnnDynamicQuantV2", DeviceTensor(x), None, None, ctypes.c_int64(INT8), y, scale, offset) == \
        (0, 0, 0), recent_error()
    xf = x.astype(np.float64)
    expected_scale = (xf.max(1) - xf.min(1)) / 255
    expected_offset = 127 - xf.max(1) / expected_scale
    np.testing.assert_allclose(result(scale), expected_scale, rtol=1e-6)
    np.testing.assert_allclose(result(offset), expected_offset, rtol=1e-5, atol=1e-4)
    q = np.rint(xf / expected_scale[:, None] + expected_offset[:, None])
    assert np.abs(result(y) - np.clip(q, -128, 127)).max() <= 1


def test_dynamic_quant_smooth_scales_multiply_before_the_row_max():
    rng = np.random.default_rng(4)
    x, smooth = random((3, 8), H, rng), random((8,), H, rng)
    y, scale = DeviceTensor(np.zeros((3, 8), np.int8)), DeviceTensor(np.zeros(3, F))
    assert call("aclnnDynamicQuant", DeviceTensor(x), DeviceTensor(smooth), y, scale) == (0, 0, 0), recent_error()
    values = x.astype(np.float64) * smooth.astype(np.float64)
    np.testing.assert_allclose(result(scale), np.abs(values).max(1) / 127, rtol=1e-6)


def test_dynamic_quant_refuses_a_mismatched_scale_shape():
    x = DeviceTensor(np.zeros((3, 8), H))
    assert call("aclnnDynamicQuant", x, None, DeviceTensor(np.zeros((3, 8), np.int8)),
                DeviceTensor(np.zeros(4, F)))[0] == PARAM_INVALID
    assert "The shapes of x and scale should be consistent" in recent_error()


def test_quantize_divides_by_the_scale_along_the_axis():
    rng = np.random.default_rng(5)
    x, scales, zeros = random((2, 5), F, rng), np.abs(random((5,), F, rng)) + 0.1, np.arange(5, dtype=np.int32)
    out = DeviceTensor(np.zeros((2, 5), np.int8))
    assert call("aclnnQuantize", DeviceTensor(x), DeviceTensor(scales), DeviceTensor(zeros),
                ctypes.c_int(INT8), ctypes.c_int32(1), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out), np.clip(np.rint(x / scales.astype(np.float64) + zeros), -128, 127))


def test_trans_quant_param_v2_writes_the_fixpipe_words():
    scale, offset = np.array([0.5, 0.25, 3.0], F), np.array([1.4, -2.6, 300], F)
    out = DeviceTensor(np.zeros(3, np.int64))
    assert call("aclnnTransQuantParamV2", DeviceTensor(scale), DeviceTensor(offset), out) == (0, 0, 0), recent_error()
    for s, o, w in zip(scale, offset, result(out).view(np.uint64)):
        expected = (int(np.array(s).view(np.uint32)) & 0xFFFFE000) | (1 << 46) | ((int(min(np.rint(o), 255)) & 0x1FF)
                                                                                 << 37)
        assert int(w) == expected


def test_fake_quant_per_channel_like_torch():
    rng = np.random.default_rng(6)
    x = (random((3, 4), F, rng) * 5).astype(F)
    scale, zero = np.array([0.1, 0.2, 0.05], F), np.array([1, -2, 0], np.int32)
    out, mask = DeviceTensor(np.zeros((3, 4), F)), DeviceTensor(np.zeros((3, 4), np.bool_))
    assert call("aclnnFakeQuantPerChannelAffineCachemask", DeviceTensor(x), DeviceTensor(scale), DeviceTensor(zero),
                ctypes.c_int64(0), ctypes.c_int64(-20), ctypes.c_int64(20), out, mask) == (0, 0, 0), recent_error()
    expected = torch.fake_quantize_per_channel_affine(torch.from_numpy(x), torch.from_numpy(scale),
                                                      torch.from_numpy(zero), 0, -20, 20)
    np.testing.assert_allclose(result(out), expected.numpy(), rtol=1e-6, atol=1e-6)
    q = np.rint(x / scale[:, None].astype(F)) + zero[:, None]
    np.testing.assert_array_equal(result(mask), (q >= -20) & (q <= 20))


def test_dequant_bias_adds_an_int32_bias_before_the_scales():
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, (3, 4)).astype(np.int32)
    ws, act = random((4,), F, rng), random((3,), F, rng)
    bias = rng.integers(-50, 50, 4).astype(np.int32)
    out = DeviceTensor(np.zeros((3, 4), H))
    assert call("aclnnDequantBias", DeviceTensor(x), DeviceTensor(ws), DeviceTensor(act), DeviceTensor(bias),
                ctypes.c_int64(dtypes.acl("FLOAT16")), out) == (0, 0, 0), recent_error()
    expected = (x + bias) * ws.astype(np.float64) * act[:, None]
    np.testing.assert_allclose(result(out).astype(np.float64), expected, rtol=2e-3, atol=1e-3)


def test_swiglu_quant_dynamic_quantises_each_row_of_swish_a_times_b():
    rng = np.random.default_rng(8)
    x = random((4, 16), F, rng)
    y, scale = DeviceTensor(np.zeros((4, 8), np.int8)), DeviceTensor(np.zeros(4, F))
    assert call("aclnnSwiGluQuant", DeviceTensor(x), None, None, None, ctypes.c_bool(True), b"dynamic", y, scale) == \
        (0, 0, 0), recent_error()
    a, b = x[:, :8].astype(np.float64), x[:, 8:].astype(np.float64)
    act = a / (1 + np.exp(-a)) * b
    np.testing.assert_allclose(result(scale), np.abs(act).max(1) / 127, rtol=1e-5)
    assert np.abs(result(y) - np.rint(act / (np.abs(act).max(1, keepdims=True) / 127))).max() <= 1
