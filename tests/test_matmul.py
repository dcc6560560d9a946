"""aclnnMatmul / Mm / BatchMatMul / Addmm / InplaceAddmm through the C ABI against PyTorch CPU
(float64), with the rounding each cubeMathType implies per product and the documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
KEEP, ALLOW_DOWN, USE_FP16, USE_HF32 = (ctypes.c_int8(i) for i in range(4))


def hf32(x):
    """Independent HF32 rounding: 12 significant bits, nearest even (np.round is half-even)."""
    mantissa, exponent = np.frexp(x.astype(np.float64))
    return np.ldexp(np.round(mantissa * 4096) / 4096, exponent)


def reference(x, y):
    return torch.matmul(torch.from_numpy(np.asarray(x, np.float64)), torch.from_numpy(np.asarray(y, np.float64))).numpy()


def bound(x, y, eps):
    """|error| allowed for one rounding of the fp32-accumulated product into a dtype of epsilon `eps`."""
    magnitude = reference(np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64)))
    return magnitude * (eps + x.shape[-1] * 2.0 ** -23) + 1e-30


@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((7,), (7, 3)), ((5, 7), (7,)), ((2, 5, 7), (7, 3)),
                                    ((2, 1, 5, 7), (3, 7, 4)), ((4, 7), (2, 7, 3))], ids=str)
def test_matmul_shapes_like_torch(shapes):
    rng = np.random.default_rng(0)
    x, y = random(shapes[0], np.float32, rng), random(shapes[1], np.float32, rng)
    expected = reference(x, y)
    do = DeviceTensor(np.zeros(expected.shape, np.float32), shape=expected.shape)
    assert call("aclnnMatmul", DeviceTensor(x), DeviceTensor(y), do, KEEP) == (0, 0, 0), recent_error()
    assert np.all(np.abs(result(do) - expected) <= bound(x, y, 2.0 ** -24))


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_half_inputs_accumulate_in_fp32_and_round_once(dtype):
    rng = np.random.default_rng(1)
    x, y = random((16, 64), dtype, rng), random((64, 8), dtype, rng)
    do = DeviceTensor(np.zeros((16, 8), dtype))
    assert call("aclnnMm", DeviceTensor(x), DeviceTensor(y), do, ALLOW_DOWN) == (0, 0, 0), recent_error()
    expected = reference(x, y).astype(np.float32).astype(dtype).astype(np.float64)
    eps = 2.0 ** -11 if dtype == np.float16 else 2.0 ** -8
    assert np.all(np.abs(result(do).astype(np.float64) - expected) <= bound(x, y, eps))


@pytest.mark.parametrize("math_type", [ALLOW_DOWN, USE_HF32], ids=["ALLOW_FP32_DOWN_PRECISION", "USE_HF32"])
def test_fp32_reads_hf32_on_atlas_a2(math_type):
    rng = np.random.default_rng(2)
    x, y = random((8, 32), np.float32, rng), random((32, 8), np.float32, rng)
    do = DeviceTensor(np.zeros((8, 8), np.float32))
    assert call("aclnnMm", DeviceTensor(x), DeviceTensor(y), do, math_type) == (0, 0, 0), recent_error()
    expected = reference(hf32(x), hf32(y))
    assert np.all(np.abs(result(do) - expected) <= bound(x, y, 2.0 ** -24))
    assert np.max(np.abs(result(do) - reference(x, y))) > 1e-5  # HF32 is visibly coarser than fp32


def test_fp32_keep_dtype_is_full_precision():
    rng = np.random.default_rng(3)
    x, y = random((8, 32), np.float32, rng), random((32, 8), np.float32, rng)
    do = DeviceTensor(np.zeros((8, 8), np.float32))
    assert call("aclnnMm", DeviceTensor(x), DeviceTensor(y), do, KEEP) == (0, 0, 0), recent_error()
    assert np.all(np.abs(result(do) - reference(x, y)) <= bound(x, y, 2.0 ** -24))


def test_use_fp16_rounds_inputs_and_product_to_fp16():
    rng = np.random.default_rng(4)
    x, y = random((8, 32), np.float32, rng), random((32, 8), np.float32, rng)
    do = DeviceTensor(np.zeros((8, 8), np.float32))
    assert call("aclnnMm", DeviceTensor(x), DeviceTensor(y), do, USE_FP16) == (0, 0, 0), recent_error()
    expected = reference(x.astype(np.float16), y.astype(np.float16)).astype(np.float16)
    assert np.all(np.abs(result(do) - expected) <= bound(x, y, 2.0 ** -11))


def test_allow_down_precision_uses_fp16_without_an_fp32_cube(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    x, y = np.full((2, 2), 1 + 2 ** -13, np.float32), np.eye(2, dtype=np.float32)
    do = DeviceTensor(np.zeros((2, 2), np.float32))
    assert call("aclnnMm", DeviceTensor(x), DeviceTensor(y), do, ALLOW_DOWN) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), np.ones((2, 2)))


@pytest.mark.parametrize("math_type", [KEEP, USE_HF32], ids=["KEEP_DTYPE", "USE_HF32"])
def test_fp32_keep_or_hf32_is_refused_without_an_fp32_cube(monkeypatch, math_type):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    d = DeviceTensor(np.zeros((2, 2), np.float32))
    assert call("aclnnMm", d, d, d, math_type)[0] == PARAM_INVALID
    assert "does not support FP32 for calculations" in recent_error()


def test_bf16_is_refused_without_an_fp32_cube(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    d = DeviceTensor(np.zeros((2, 2), BF16))
    assert call("aclnnMatmul", d, d, d, ALLOW_DOWN)[0] == PARAM_INVALID
    assert "Tensor self not implemented for DT_BFLOAT16" in recent_error()


def test_cube_math_type_out_of_range():
    d = DeviceTensor(np.zeros((2, 2), np.float32))
    assert call("aclnnMatmul", d, d, d, ctypes.c_int8(7))[0] == PARAM_INVALID
    assert "cubeMathType only support" in recent_error()


def test_matmul_k_axis_mismatch():
    a, b = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((4, 2), np.float32))
    assert call("aclnnMatmul", a, b, DeviceTensor(np.zeros((2, 2), np.float32)), KEEP)[0] == PARAM_INVALID
    assert "The k-axis of the two inputs are different [2, 3], [4, 2]" in recent_error()


def test_matmul_zero_dim_input():
    a = DeviceTensor(np.zeros(1, np.float32), shape=())
    assert call("aclnnMatmul", a, a, a, KEEP)[0] == PARAM_INVALID
    assert "Matmul not support" in recent_error()


def test_matmul_batch_broadcast_failure():
    a, b = DeviceTensor(np.zeros((2, 2, 3), np.float32)), DeviceTensor(np.zeros((3, 3, 2), np.float32))
    assert call("aclnnMatmul", a, b, DeviceTensor(np.zeros((3, 2, 2), np.float32)), KEEP)[0] == PARAM_INVALID
    assert "Broadcast [2, 2, 3] and [3, 3, 2] failed." in recent_error()


def test_mm_needs_two_dims():
    a = DeviceTensor(np.zeros(3, np.float32))
    b = DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnMm", a, b, b, KEEP)[0] == PARAM_INVALID
    assert "Expected 2 dimension input, but got self with sizes [3]." in recent_error()


def test_mm_out_shape():
    a, b = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((3, 4), np.float32))
    assert call("aclnnMm", a, b, DeviceTensor(np.zeros((2, 3), np.float32)), KEEP)[0] == PARAM_INVALID
    assert "out_n[3] must be same with mat2_n[4]" in recent_error()


def test_null_mat2():
    a = DeviceTensor(np.zeros((2, 2), np.float32))
    assert call("aclnnMm", a, None, a, KEEP)[0] == PARAM_NULLPTR


def test_batch_matmul_broadcasts_a_batch_of_one():
    rng = np.random.default_rng(5)
    x, y = random((1, 4, 6), np.float32, rng), random((3, 6, 5), np.float32, rng)
    do = DeviceTensor(np.zeros((3, 4, 5), np.float32))
    assert call("aclnnBatchMatMul", DeviceTensor(x), DeviceTensor(y), do, KEEP) == (0, 0, 0), recent_error()
    assert np.all(np.abs(result(do) - reference(x, y)) <= bound(x, y, 2.0 ** -24))


def test_batch_matmul_batch_mismatch():
    a, b = DeviceTensor(np.zeros((2, 2, 3), np.float32)), DeviceTensor(np.zeros((3, 3, 2), np.float32))
    assert call("aclnnBatchMatMul", a, b, DeviceTensor(np.zeros((3, 2, 2), np.float32)), KEEP)[0] == PARAM_INVALID
    assert "first dim" in recent_error()


def test_matmul_writes_through_a_transposed_out_view():
    rng = np.random.default_rng(6)
    x, y = random((3, 4), np.float32, rng), random((4, 5), np.float32, rng)
    do = DeviceTensor(np.zeros(15, np.float32), shape=(3, 5), strides=(1, 3))
    assert call("aclnnMatmul", DeviceTensor(x), DeviceTensor(y), do, KEEP) == (0, 0, 0), recent_error()
    got = do.storage().reshape(5, 3).T
    assert np.all(np.abs(got - reference(x, y)) <= bound(x, y, 2.0 ** -24))


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
def test_addmm_like_torch(dtype):
    rng = np.random.default_rng(7)
    bias, x, y = random((5,), dtype, rng), random((3, 8), dtype, rng), random((8, 5), dtype, rng)
    do = DeviceTensor(np.zeros((3, 5), dtype))
    assert call("aclnnAddmm", DeviceTensor(bias), DeviceTensor(x), DeviceTensor(y), scalar(0.5, np.float32),
                scalar(2.0, np.float32), do, KEEP) == (0, 0, 0), recent_error()
    expected = 0.5 * bias.astype(np.float64) + 2.0 * reference(x, y)
    eps = 2.0 ** -11 if dtype == np.float16 else 2.0 ** -24
    assert np.all(np.abs(result(do).astype(np.float64) - expected) <= 2 * bound(x, y, eps) + 4 * eps)


def test_inplace_addmm_reads_and_writes_self():
    rng = np.random.default_rng(8)
    acc, x, y = random((3, 5), np.float32, rng), random((3, 8), np.float32, rng), random((8, 5), np.float32, rng)
    d = DeviceTensor(acc)
    assert call("aclnnInplaceAddmm", d, DeviceTensor(x), DeviceTensor(y), scalar(1.0, np.float32),
                scalar(1.0, np.float32), KEEP) == (0, 0, 0), recent_error()
    assert np.all(np.abs(result(d) - (acc + reference(x, y))) <= 2 * bound(x, y, 2.0 ** -24) + 1e-6)


def test_addmm_out_shape():
    m = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnAddmm", m, m, DeviceTensor(np.zeros((3, 3), np.float32)), scalar(1.0, np.float32),
                scalar(1.0, np.float32), DeviceTensor(np.zeros((3, 3), np.float32)), KEEP)[0] == PARAM_INVALID
    assert "Shape of out should be [2,3]" in recent_error()
