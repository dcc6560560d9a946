"""ops-nn matmul/: weight-quantised and quantised matmuls (llama.cpp's quantised mul_mat layout included),
FRACTAL_NZ weights, and the batched/affine cube forms, through the C ABI against float64 references written
here and PyTorch CPU."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, random, result, scalar
from opemu.core import dtypes
from opemu.ops.aclnn.common import fractal_nz

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
F, H = np.float32, np.float16
INT4, NZ = dtypes.acl("INT4"), dtypes.ACL_FORMAT["ACL_FORMAT_FRACTAL_NZ"]
KEEP, ALLOW_DOWN = ctypes.c_int8(0), ctypes.c_int8(1)


def dequantized(weight, scale, offset=None, group=0):
    """(w + offset) · scale in float64 rounded to fp16 after each step, as the fp16 path of the vector unit."""
    k = weight.shape[0]
    scale = np.repeat(scale, group, 0)[:k] if group else scale
    w = weight.astype(np.float16)
    if offset is not None:
        offset = np.repeat(offset, group, 0)[:k] if group else offset
        w = (w.astype(np.float64) + offset.astype(np.float64)).astype(np.float16)
    return (w.astype(np.float64) * scale.astype(np.float64)).astype(np.float16).astype(np.float64)


def wqbmm(x, weight, scale, offset=None, group=0, y_shape=None):
    y = DeviceTensor(np.zeros(y_shape or (x.shape[0], scale.shape[-1]), H))
    status = call("aclnnWeightQuantBatchMatmulV2", DeviceTensor(x), weight, DeviceTensor(scale),
                  None if offset is None else DeviceTensor(offset), None, None, None, ctypes.c_int(group), y)
    return status, y


def assert_product_close(actual, x, w):
    expected = x.astype(np.float64) @ w
    bound = np.abs(x.astype(np.float64)) @ np.abs(w) * 2.0 ** -10 + 1e-3
    assert np.all(np.abs(actual.astype(np.float64) - expected) <= bound)


def test_weight_quant_batch_matmul_v2_int8_per_channel_with_offset():
    rng = np.random.default_rng(0)
    x, w = random((5, 32), H, rng), rng.integers(-128, 128, (32, 16)).astype(np.int8)
    scale, offset = (rng.uniform(0.001, 0.02, 16)).astype(H), rng.integers(-3, 3, 16).astype(H)
    status, y = wqbmm(x, DeviceTensor(w), scale, offset)
    assert status == (0, 0, 0), recent_error()
    assert_product_close(result(y), x, dequantized(w, scale, offset))


def test_weight_quant_batch_matmul_v2_per_group_scales_k_rows():
    rng = np.random.default_rng(1)
    x, w = random((3, 96), H, rng), rng.integers(-128, 128, (96, 8)).astype(np.int8)
    scale = rng.uniform(0.001, 0.02, (3, 8)).astype(H)
    status, y = wqbmm(x, DeviceTensor(w), scale, group=32)
    assert status == (0, 0, 0), recent_error()
    assert_product_close(result(y), x, dequantized(w, scale, group=32))


def test_weight_quant_batch_matmul_v2_int4_in_llama_cpps_transposed_layout():
    """llama.cpp's Q4_0: the (N, K) weight stored row-major two nibbles a byte, passed as the (K, N) view with
    strides (1, K); the per-group scales as the (K/32, N) view of an (N, K/32) fp16 array."""
    rng = np.random.default_rng(2)
    n, k = 8, 64
    values = rng.integers(-8, 8, (n, k)).astype(np.int8)
    nibbles = (values.reshape(-1) & 0xF).astype(np.uint8)
    raw = nibbles[0::2] | (nibbles[1::2] << 4)
    weight = DeviceTensor(raw, shape=(k, n), strides=(1, k), dtype=INT4)
    scales = rng.uniform(0.01, 0.1, (n, k // 32)).astype(H)
    scale_view = DeviceTensor(scales, shape=(k // 32, n), strides=(1, k // 32))
    x = random((4, k), H, rng)
    y = DeviceTensor(np.zeros((4, n), H))
    assert call("aclnnWeightQuantBatchMatmulV2", DeviceTensor(x), weight, scale_view, None, None, None, None,
                ctypes.c_int(32), y) == (0, 0, 0), recent_error()
    assert_product_close(result(y), x, dequantized(values.T, scales.T, group=32))


def test_weight_quant_batch_matmul_v2_group_size_must_be_a_multiple_of_32():
    rng = np.random.default_rng(3)
    x, w = random((2, 64), H, rng), rng.integers(-8, 8, (64, 4)).astype(np.int8)
    status, _ = wqbmm(x, DeviceTensor(w), np.ones((4, 4), H), group=16)
    assert status[0] == PARAM_INVALID
    assert "antiquantGroupSize should be an integer multiple of 32, actual is 16." in recent_error()


def test_weight_quant_batch_matmul_v2_scale_dtype_follows_x():
    rng = np.random.default_rng(4)
    x, w = random((2, 32), H, rng), rng.integers(-8, 8, (32, 4)).astype(np.int8)
    status, _ = wqbmm(x, DeviceTensor(w), np.ones(4, F))
    assert status[0] == PARAM_INVALID
    assert "antiquantScale's dtype should be equal to x's dtype [DT_FLOAT16]" in recent_error()


def test_weight_quant_batch_matmul_nz_reads_a_fractal_nz_weight():
    rng = np.random.default_rng(5)
    k, n = 48, 40
    w = rng.integers(-128, 128, (k, n)).astype(np.int8)
    storage = fractal_nz.to_nz(w, 32)
    weight = DeviceTensor(storage, shape=(k, n), strides=(n, 1))
    from acl import lib
    weight = _nz_tensor(storage, (k, n), dtypes.acl("INT8"))
    scale, x = rng.uniform(0.001, 0.01, n).astype(H), random((3, k), H, rng)
    y = DeviceTensor(np.zeros((3, n), H))
    assert call("aclnnWeightQuantBatchMatmulNz", DeviceTensor(x), weight, DeviceTensor(scale), None, None, None, None,
                ctypes.c_int(0), y) == (0, 0, 0), recent_error()
    assert_product_close(result(y), x, dequantized(w, scale))
    assert lib() is not None


def _nz_tensor(storage, shape, code):
    """An aclTensor of view `shape`, format FRACTAL_NZ, over `storage` (its NZ elements)."""
    from acl import _int64s, lib
    tensor = DeviceTensor(storage)
    strides = (shape[1], 1)
    tensor.handle = lib().aclCreateTensor(_int64s(shape), 2, code, _int64s(strides), 0, NZ, _int64s([storage.size]), 1,
                                          tensor.address)
    tensor.shape = shape
    return tensor


def test_mm_reads_an_nz_weight_as_the_matrix_it_holds():
    rng = np.random.default_rng(6)
    k, n = 40, 24
    w = random((k, n), H, rng)
    x = random((5, k), H, rng)
    out = DeviceTensor(np.zeros((5, n), H))
    assert call("aclnnMm", DeviceTensor(x), _nz_tensor(fractal_nz.to_nz(w, 16), (k, n), dtypes.acl("FLOAT16")), out,
                ALLOW_DOWN) == (0, 0, 0), recent_error()
    expected = x.astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(result(out).astype(np.float64), expected, rtol=2e-3, atol=2e-3)


def test_quant_matmul_v4_int8_with_pertoken_scale_and_bf16_like_bias():
    rng = np.random.default_rng(7)
    x1, x2 = rng.integers(-128, 128, (4, 1500)).astype(np.int8), rng.integers(-128, 128, (1500, 6)).astype(np.int8)
    scale, token, bias = rng.uniform(1e-4, 1e-3, 6).astype(F), rng.uniform(0.5, 2, 4).astype(F), random((6,), F, rng)
    out = DeviceTensor(np.zeros((4, 6), H))
    assert call("aclnnQuantMatmulV4", DeviceTensor(x1), DeviceTensor(x2), DeviceTensor(scale), None,
                DeviceTensor(token), DeviceTensor(bias), ctypes.c_bool(False), ctypes.c_bool(False), out) == \
        (0, 0, 0), recent_error()
    acc = x1.astype(np.int64) @ x2.astype(np.int64)
    expected = acc * scale.astype(np.float64) * token[:, None] + bias
    np.testing.assert_allclose(result(out).astype(np.float64), expected, rtol=2e-3, atol=1e-2)


def test_quant_matmul_v3_int8_output_with_int32_bias_and_offset():
    rng = np.random.default_rng(8)
    x1, x2 = rng.integers(-20, 20, (3, 16)).astype(np.int8), rng.integers(-20, 20, (8, 16)).astype(np.int8)
    scale, offset, bias = np.full(8, 0.01, F), np.full(8, 2.0, F), rng.integers(-100, 100, 8).astype(np.int32)
    out = DeviceTensor(np.zeros((3, 8), np.int8))
    assert call("aclnnQuantMatmulV3", DeviceTensor(x1), DeviceTensor(x2), DeviceTensor(scale), DeviceTensor(offset),
                DeviceTensor(bias), ctypes.c_bool(False), ctypes.c_bool(True), out) == (0, 0, 0), recent_error()
    acc = x1.astype(np.int64) @ x2.T.astype(np.int64) + bias
    np.testing.assert_array_equal(result(out), np.clip(np.rint(acc * 0.01 + 2), -128, 127))


def test_baddbmm_and_addbmm_like_torch():
    rng = np.random.default_rng(9)
    b1, b2, s = random((3, 4, 5), F, rng), random((3, 5, 2), F, rng), random((4, 2), F, rng)
    out = DeviceTensor(np.zeros((3, 4, 2), F))
    assert call("aclnnBaddbmm", DeviceTensor(s), DeviceTensor(b1), DeviceTensor(b2), scalar(0.5, F), scalar(2.0, F),
                out, KEEP) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(out), torch.baddbmm(torch.from_numpy(s), torch.from_numpy(b1),
                                                          torch.from_numpy(b2), beta=0.5, alpha=2.0).numpy(),
                               rtol=1e-5, atol=1e-5)
    out2 = DeviceTensor(np.zeros((4, 2), F))
    assert call("aclnnAddbmm", DeviceTensor(s), DeviceTensor(b1), DeviceTensor(b2), scalar(0.5, F), scalar(2.0, F),
                out2, KEEP) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(out2), torch.addbmm(torch.from_numpy(s), torch.from_numpy(b1),
                                                          torch.from_numpy(b2), beta=0.5, alpha=2.0).numpy(),
                               rtol=1e-5, atol=1e-5)


def test_mv_addmv_and_gemm_like_torch():
    rng = np.random.default_rng(10)
    m, v, s = random((4, 6), F, rng), random((6,), F, rng), random((4,), F, rng)
    out = DeviceTensor(np.zeros(4, F))
    assert call("aclnnMv", DeviceTensor(m), DeviceTensor(v), out, KEEP) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(out), m @ v, rtol=1e-5, atol=1e-5)
    assert call("aclnnAddmv", DeviceTensor(s), DeviceTensor(m), DeviceTensor(v), scalar(2.0, F), scalar(0.5, F), out,
                KEEP) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(out), 0.5 * s + 2 * (m @ v), rtol=1e-5, atol=1e-5)
    a, b, c = random((6, 4), F, rng), random((5, 6), F, rng), random((4, 5), F, rng)
    g = DeviceTensor(np.zeros((4, 5), F))
    assert call("aclnnGemm", DeviceTensor(a), DeviceTensor(b), DeviceTensor(c), ctypes.c_float(1.5),
                ctypes.c_float(-1.0), ctypes.c_int64(1), ctypes.c_int64(1), g, KEEP) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(g), 1.5 * a.T @ b.T - c, rtol=1e-5, atol=1e-5)


def test_baddbmm_batch_dims_must_agree():
    x = DeviceTensor(np.zeros((3, 4, 5), F))
    assert call("aclnnBaddbmm", DeviceTensor(np.zeros((4, 2), F)), x, DeviceTensor(np.zeros((2, 5, 2), F)),
                scalar(1.0, F), scalar(1.0, F), DeviceTensor(np.zeros((3, 4, 2), F)), KEEP)[0] == PARAM_INVALID


# aclnnTransSparse4to2Para's table: a group of four's zero/non-zero pattern (first element the high bit) ->
# (the two positions kept, their index nibble)
SPARSE_4TO2 = {0b0000: (0, 0, 0b0000), 0b0001: (0, 3, 0b1000), 0b0010: (2, 3, 0b0010), 0b0011: (2, 3, 0b1010),
               0b0100: (1, 2, 0b0001), 0b0101: (1, 3, 0b1001), 0b0110: (1, 2, 0b0101), 0b1000: (0, 1, 0b0000),
               0b1001: (0, 3, 0b1000), 0b1010: (0, 2, 0b0100), 0b1100: (0, 1, 0b0000)}


def sparse_4to2(weight):
    """(kept values [K1, N1, 16, 32], index bytes [K1, N1, 16, 8]) of an int8 weight [n, k], k a multiple of 8."""
    n, k = weight.shape
    k1, n1 = -(-(k // 2) // 32), -(-n // 16)
    kept, index = np.zeros((k1, n1 * 16, 32), np.int8), np.zeros((k1, n1 * 16, 8), np.uint8)
    padded = np.zeros((n, k1 * 64), np.int8)
    padded[:, :k] = weight
    for row in range(n):
        for block in range(k1 * 8):
            eight = padded[row, block * 8:(block + 1) * 8]
            byte = 0
            for half in range(2):
                four = eight[4 * half:4 * half + 4]
                pattern = int("".join("1" if v else "0" for v in four), 2)
                first, second, nibble = SPARSE_4TO2[pattern]
                kept[block // 8, row, (block % 8) * 4 + 2 * half:(block % 8) * 4 + 2 * half + 2] = four[[first, second]]
                byte |= nibble << (4 * half)
            index[block // 8, row, block % 8] = byte
    return kept.reshape(k1, n1, 16, 32), index.reshape(k1, n1, 16, 8)


def test_sparse_4to2_quant_matmul_expands_the_kept_values_where_the_index_places_them():
    from acl import _int64s, lib
    rng = np.random.default_rng(9)
    m, n, k = 3, 20, 64
    weight = rng.integers(-128, 128, (n, k)).astype(np.int8)
    keep = np.zeros((n, k // 4, 4), bool)
    for row in range(n):
        for group in range(k // 4):
            keep[row, group, rng.choice(4, rng.integers(0, 3), replace=False)] = True
    weight = np.where(keep.reshape(n, k), weight, 0).astype(np.int8)
    kept, index = sparse_4to2(weight)
    sparse = DeviceTensor(kept)
    sparse.handle = lib().aclCreateTensor(_int64s((n, k // 2)), 2, dtypes.acl("INT8"), _int64s((k // 2, 1)), 0, NZ,
                                          _int64s(kept.shape), 4, sparse.address)
    idx = DeviceTensor(index)
    idx.handle = lib().aclCreateTensor(_int64s((n, k // 8)), 2, dtypes.acl("UINT8"), _int64s((k // 8, 1)), 0, 2,
                                       _int64s(index.shape), 4, idx.address)
    x = rng.integers(-128, 128, (m, k)).astype(np.int8)
    x_scale, w_scale = rng.uniform(0.5, 2, m).astype(np.float32), rng.uniform(1e-3, 1e-2, n).astype(np.float32)
    out = DeviceTensor(np.zeros((m, n), ml_dtypes.bfloat16))
    assert call("aclnnSparse4to2QuantMatmulWeightNz", DeviceTensor(x), sparse, idx, DeviceTensor(x_scale),
                DeviceTensor(w_scale), None, out) == (0, 0, 0), recent_error()
    expected = (x.astype(np.float64) @ weight.T.astype(np.float64)) * w_scale * x_scale[:, None]
    np.testing.assert_allclose(result(out).astype(np.float64), expected, rtol=1 / 128)
