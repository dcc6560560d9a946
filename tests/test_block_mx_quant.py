"""Block and two-level MX quantisers and FlatQuantV3 through the C ABI: scales against float64 references of
the docs' formulas (and their golden scripts' rules), elements against a decode of the outputs, the scale
layouts, and the checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

from acl import DeviceTensor, recent_error
from acl_args import call, random, result
from opemu.core import dtypes

TILING_ERROR = 561002
PARAM_INVALID = 161002
F, BF16 = np.float32, ml_dtypes.bfloat16
E4M3, E5M2, E2M1, E8M0 = (dtypes.acl(n) for n in ("FLOAT8_E4M3FN", "FLOAT8_E5M2", "FLOAT4_E2M1", "FLOAT8_E8M0"))
E2M1_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


@pytest.fixture
def ascend950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")


def codes_of(tensor):
    return result(tensor).view(np.uint8)


def fp4_values(tensor, shape):
    packed = tensor.storage().view(np.uint8).reshape(-1)
    nibbles = np.stack([packed & 0xF, packed >> 4], -1).reshape(-1)
    return E2M1_VALUES[nibbles].reshape(shape)


def block_exponents(x, emax):
    """float64 floor(log2(max |block|)) - emax per 32 x 32 block of a 2-D x."""
    r, c = x.shape
    padded = np.pad(np.abs(x.astype(np.float64)), ((0, -r % 32), (0, -c % 32)))
    blocks = padded.reshape(padded.shape[0] // 32, 32, padded.shape[1] // 32, 32).max((1, 3))
    return np.floor(np.log2(blocks)) - emax


def test_dynamic_block_mx_quant_one_scale_per_32x32_block_in_both_layouts(ascend950):
    rng = np.random.default_rng(40)
    x = (random((70, 96), F, rng) * 50).astype(BF16)
    y = DeviceTensor(np.zeros((70, 96), np.uint8), dtype=E4M3)
    scale1 = DeviceTensor(np.zeros((70, 2, 2), np.uint8), dtype=E8M0)
    scale2 = DeviceTensor(np.zeros((2, 96, 2), np.uint8), dtype=E8M0)
    assert call("aclnnDynamicBlockMxQuant", DeviceTensor(x), b"rint", ctypes.c_int64(E4M3), ctypes.c_int64(0),
                ctypes.c_double(0), y, scale1, scale2) == (0, 0, 0), recent_error()
    expected = block_exponents(x, 8)                                  # (3 row blocks, 3 column blocks)
    s1 = codes_of(scale1).reshape(70, 4).astype(np.float64) - 127
    np.testing.assert_array_equal(s1[:, :3], np.repeat(expected, 32, 0)[:70])
    assert np.all(s1[:, 3] == -127)                                   # the column-block count padded to even
    s2 = codes_of(scale2).reshape(2, 96, 2).astype(np.float64) - 127
    np.testing.assert_array_equal(s2[0, :, 0], np.repeat(expected[0], 32))   # row blocks 0 and 1 interleaved
    np.testing.assert_array_equal(s2[0, :, 1], np.repeat(expected[1], 32))
    np.testing.assert_array_equal(s2[1, :, 0], np.repeat(expected[2], 32))
    values = result(y).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    scale = np.exp2(np.repeat(np.repeat(expected, 32, 0), 32, 1)[:70, :96])
    restored = values * scale
    assert np.all(np.abs(restored - x.astype(np.float64)) <= np.abs(x.astype(np.float64)) / 8 + scale / 512)


def test_dynamic_block_mx_quant_fp4_scale_alg_2_rounds_the_exponent_up_past_the_mantissa_threshold(ascend950):
    x = np.zeros((32, 32), BF16)
    x[0, 0], x[0, 1] = 13.0, 1.0    # 13 = 1.625 · 2^3: mantissa 0x50 > 0x40 (dstTypeMax 6) -> 2^(3 + 1 - 2)
    y = DeviceTensor(np.zeros((32, 16), np.uint8), shape=(32, 32), dtype=E2M1)
    scale1 = DeviceTensor(np.zeros((32, 1, 2), np.uint8), dtype=E8M0)
    scale2 = DeviceTensor(np.zeros((1, 32, 2), np.uint8), dtype=E8M0)
    assert call("aclnnDynamicBlockMxQuant", DeviceTensor(x), b"rint", ctypes.c_int64(E2M1), ctypes.c_int64(2),
                ctypes.c_double(6.0), y, scale1, scale2) == (0, 0, 0), recent_error()
    assert codes_of(scale1).reshape(32, 2)[0, 0] == 127 + 2
    assert fp4_values(y, (32, 32))[0, 0] == 3.0          # 13 / 4 = 3.25 rounds to 3 on FLOAT4_E2M1's grid


def test_dynamic_block_mx_quant_fp8_takes_only_rint(ascend950):
    x = DeviceTensor(np.zeros((32, 32), BF16))
    assert call("aclnnDynamicBlockMxQuant", x, b"floor", ctypes.c_int64(E4M3), ctypes.c_int64(0), ctypes.c_double(0),
                DeviceTensor(np.zeros((32, 32), np.uint8), dtype=E4M3),
                DeviceTensor(np.zeros((32, 1, 2), np.uint8), dtype=E8M0),
                DeviceTensor(np.zeros((1, 32, 2), np.uint8), dtype=E8M0))[0] == TILING_ERROR
    assert "parameter round_mode must be rint" in recent_error()


def test_mx_to_block_mx_quant_rescales_each_row_to_the_blocks_largest_scale(ascend950):
    rows = 64
    codes = np.tile(np.array([2, 3, 4, 5], np.uint8), (rows, 8))          # E2M1 codes 1, 1.5, 2, 3
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    x = DeviceTensor(packed, shape=(rows, 32), dtype=E2M1)
    exps = np.arange(rows, dtype=np.int64) % 5 + 120                     # per-row scale exponent - 127: -7..-3
    mxscale = np.zeros((rows, 1, 2), np.uint8)
    mxscale[:, 0, 0] = exps
    y = DeviceTensor(np.zeros((rows, 32), np.uint8), dtype=E4M3)
    scale1 = DeviceTensor(np.zeros((rows, 1, 2), np.uint8), dtype=E8M0)
    scale2 = DeviceTensor(np.zeros((1, 32, 2), np.uint8), dtype=E8M0)
    assert call("aclnnMxToBlockMxQuant", x, DeviceTensor(mxscale, dtype=E8M0), ctypes.c_int64(E4M3), y, scale1,
                scale2) == (0, 0, 0), recent_error()
    block = exps.reshape(2, 32).max(1) - 127 - 6                          # MAX_OFFSET 6 for E2M1 -> E4M3FN
    s2 = codes_of(scale2).reshape(32, 2).astype(np.int64) - 127
    assert np.all(s2[:, 0] == block[0]) and np.all(s2[:, 1] == block[1])
    s1 = codes_of(scale1).reshape(rows, 2).astype(np.int64) - 127
    np.testing.assert_array_equal(s1[:, 0], np.repeat(block, 32))
    values = result(y).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    original = E2M1_VALUES[codes] * np.exp2(exps - 127.0)[:, None]
    np.testing.assert_array_equal(values * np.exp2(np.repeat(block, 32))[:, None], original)


def test_dynamic_dual_level_mx_quant_scales_by_512_then_mx_by_32(ascend950):
    rng = np.random.default_rng(41)
    x = (random((3, 1024), F, rng) * 9).astype(BF16)
    y = DeviceTensor(np.zeros((3, 512), np.uint8), shape=(3, 1024), dtype=E2M1)
    level0 = DeviceTensor(np.zeros((3, 2), F))
    level1 = DeviceTensor(np.zeros((3, 16, 2), np.uint8), dtype=E8M0)
    assert call("aclnnDynamicDualLevelMxQuant", DeviceTensor(x), None, b"rint", ctypes.c_int64(512),
                ctypes.c_int64(32), y, level0, level1) == (0, 0, 0), recent_error()
    xf = x.astype(np.float64).reshape(3, 2, 512)
    expected0 = np.abs(xf).max(-1) / 6
    np.testing.assert_allclose(result(level0), expected0, rtol=1e-6)
    temp = (xf / expected0[..., None]).reshape(3, 1024)
    expected1 = np.floor(np.log2(np.abs(temp.reshape(3, 32, 32)).max(-1))) - 2
    np.testing.assert_array_equal(codes_of(level1).reshape(3, 32).astype(np.float64) - 127, expected1)
    restored = fp4_values(y, (3, 1024)) * np.exp2(np.repeat(expected1, 32, 1))
    assert np.all(np.abs(restored - temp) <= np.exp2(np.repeat(expected1, 32, 1)) * 1.01)


def test_dynamic_dual_level_mx_quant_level0_block_is_512(ascend950):
    x = DeviceTensor(np.zeros((2, 512), BF16))
    assert call("aclnnDynamicDualLevelMxQuant", x, None, b"rint", ctypes.c_int64(256), ctypes.c_int64(32),
                DeviceTensor(np.zeros((2, 256), np.uint8), shape=(2, 512), dtype=E2M1), DeviceTensor(np.zeros((2, 1), F)),
                DeviceTensor(np.zeros((2, 8, 2), np.uint8), dtype=E8M0))[0] == TILING_ERROR
    assert "level0_block_size should be 512" in recent_error()


def flat_quant_v3(x, groups, kind, out_shape=None):
    p1, p2 = np.eye(x.shape[1], dtype=BF16), np.eye(x.shape[2], dtype=BF16)
    out = DeviceTensor(np.full(out_shape or (x.shape[0], x.shape[1], x.shape[2] // 8), -1, np.int32))
    scale = DeviceTensor(np.full(x.shape[0], -1, F))
    status = call("aclnnFlatQuantV3", DeviceTensor(x), DeviceTensor(p1), DeviceTensor(p2),
                  DeviceTensor(groups) if groups is not None else None, ctypes.c_double(1.0), ctypes.c_double(0),
                  ctypes.c_int64(kind), out, scale)[0]
    return status, out, scale


@pytest.mark.parametrize("groups, kind", [(np.array([1, 3], np.int64), 0), (np.array([1, 2], np.int64), 1),
                                          (np.array([[0, 2], [5, 1]], np.int64), 2)],
                         ids=["cumulative sizes", "sizes", "index and size pairs"])
def test_flat_quant_v3_quantises_the_rows_its_group_list_covers_and_zeroes_the_rest(groups, kind):
    rng = np.random.default_rng(42)
    x = random((4, 2, 8), BF16, rng)
    status, out, scale = flat_quant_v3(x, groups, kind)
    assert status == 0, recent_error()
    scales = result(scale)
    np.testing.assert_allclose(scales[:3], np.abs(x[:3].astype(np.float64)).max((1, 2)) / 7, rtol=1e-2)
    assert scales[3] == 0 and not result(out)[3].any() and result(out)[:3].any()


def test_flat_quant_v3_group_list_type_is_0_1_or_2():
    x = np.ones((4, 2, 8), BF16)
    assert flat_quant_v3(x, np.array([1], np.int64), 3)[0] == PARAM_INVALID
    assert "groupListType must be one of [0, 1, 2]." in recent_error()


def test_flat_quant_int32_out_holds_an_eighth_of_x_last_dim():
    x = np.ones((4, 2, 8), BF16)
    assert flat_quant_v3(x, None, 0, out_shape=(4, 2, 2))[0] == PARAM_INVALID
    assert "if outType is int32, the out last dim must be 1/8 of x last dim" in recent_error()


def test_flat_quant_clip_ratio_is_in_0_1():
    x = np.ones((4, 2, 8), BF16)
    p = DeviceTensor(np.eye(2, dtype=BF16)), DeviceTensor(np.eye(8, dtype=BF16))
    assert call("aclnnFlatQuant", DeviceTensor(x), *p, ctypes.c_double(1.5), DeviceTensor(np.zeros((4, 2, 1), np.int32)),
                DeviceTensor(np.zeros(4, F)))[0] == PARAM_INVALID
    assert "clipRatio must be within the range of (0,1], clipRatio [1.500000]." in recent_error()


def test_quant_matmul_activation_quant_weight_nz_is_an_mx_matmul_then_gelu_then_mx(ascend950):
    from opemu.ops.aclnn.common import fractal_nz
    from test_quant_matmul import _nz_tensor
    rng = np.random.default_rng(43)
    m, k, n = 4, 64, 64
    x1 = rng.uniform(-2, 2, (m, k)).astype(ml_dtypes.float8_e4m3fn)
    x2 = rng.uniform(-2, 2, (k, n)).astype(ml_dtypes.float8_e4m3fn)
    s1 = rng.integers(125, 129, (m, 1, 2)).astype(np.uint8)          # one pair of K-group scales per row
    s2 = rng.integers(125, 129, (1, n, 2)).astype(np.uint8)          # (K pairs, n, 2)
    weight = _nz_tensor(fractal_nz.to_nz(x2.view(np.uint8), 32), (k, n), E4M3)
    y = DeviceTensor(np.zeros((m, n), np.uint8), dtype=E4M3)
    y_scale = DeviceTensor(np.zeros((m, 1, 2), np.uint8), dtype=E8M0)
    assert call("aclnnQuantMatmulActivationQuantWeightNz", DeviceTensor(x1.view(np.uint8), dtype=E4M3), weight,
                DeviceTensor(s1, dtype=E8M0), DeviceTensor(s2, dtype=E8M0), None, ctypes.c_bool(False),
                ctypes.c_bool(False), ctypes.c_int64(32), b"gelu_tanh", b"mx", b"rint", ctypes.c_int64(0),
                ctypes.c_double(0), y, y_scale) == (0, 0, 0), recent_error()
    a, b = x1.astype(np.float64), x2.astype(np.float64)
    f1, f2 = np.exp2(s1.reshape(m, 2) - 127.0), np.exp2(s2.reshape(n, 2).T - 127.0)
    product = sum((a[:, g * 32:(g + 1) * 32] * f1[:, g:g + 1]) @ (b[g * 32:(g + 1) * 32] * f2[g]) for g in range(2))
    activated = 0.5 * product * (1 + np.tanh(np.sqrt(2 / np.pi) * (product + 0.044715 * product ** 3)))
    expected = np.floor(np.log2(np.abs(activated.reshape(m, 2, 32)).max(-1))) - 8
    np.testing.assert_array_equal(codes_of(y_scale).reshape(m, 2).astype(np.float64) - 127, expected)
    restored = result(y).view(ml_dtypes.float8_e4m3fn).astype(np.float64) * np.exp2(np.repeat(expected, 32, 1))
    np.testing.assert_allclose(restored, activated, rtol=1 / 8, atol=np.exp2(expected.min() - 6))


def test_quant_matmul_activation_quant_takes_gelu_only(ascend950):
    from opemu.ops.aclnn.common import fractal_nz
    from test_quant_matmul import _nz_tensor
    weight = _nz_tensor(fractal_nz.to_nz(np.zeros((64, 64), np.uint8), 32), (64, 64), E4M3)
    assert call("aclnnQuantMatmulActivationQuantWeightNz", DeviceTensor(np.zeros((4, 64), np.uint8), dtype=E4M3),
                weight, DeviceTensor(np.zeros((4, 1, 2), np.uint8), dtype=E8M0),
                DeviceTensor(np.zeros((1, 64, 2), np.uint8), dtype=E8M0), None, ctypes.c_bool(False),
                ctypes.c_bool(False), ctypes.c_int64(32), b"relu", b"mx", b"rint", ctypes.c_int64(0),
                ctypes.c_double(0), DeviceTensor(np.zeros((4, 64), np.uint8), dtype=E4M3),
                DeviceTensor(np.zeros((4, 1, 2), np.uint8), dtype=E8M0))[0] == PARAM_INVALID
    assert "activationType is relu" in recent_error()
