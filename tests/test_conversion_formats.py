"""ops-math conversion/'s format conversions, aclnnTransMatmulWeight and aclnnNpuFormatCast: ND → FRACTAL_NZ as
real data, checked against a layout reference written element by element and by matmul reading it back, through
the C ABI."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, lib, recent_error
from acl_args import call, result

PARAM_NULLPTR, PARAM_INVALID, RUNTIME_ERROR = 161001, 161002, 361001
FRACTAL_NZ, FRACTAL_NZ_C0_16 = 29, 50


def nz_reference(matrix, c0):
    """Element (r, c) of a (rows, cols) matrix at [c // c0, r // 16, r % 16, c % c0], padding zero."""
    rows, cols = matrix.shape
    out = np.zeros((-(-cols // c0), -(-rows // 16), 16, c0), matrix.dtype)
    for r in range(rows):
        for c in range(cols):
            out[c // c0, r // 16, r % 16, c % c0] = matrix[r, c]
    return out.reshape(-1)


def format_of(tensor):
    code = ctypes.c_int()
    assert lib().aclGetFormat(ctypes.c_void_p(tensor.handle), ctypes.byref(code)) == 0
    return code.value


def storage_shape_of(tensor):
    dims, n = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_uint64()
    assert lib().aclGetStorageShape(ctypes.c_void_p(tensor.handle), ctypes.byref(dims), ctypes.byref(n)) == 0
    return tuple(dims[i] for i in range(n.value))


def weight_buffer(w, c0):
    """Device memory sized as aclnnCalculateMatmulWeightSize says, holding `w` (ND) at its start."""
    rows, cols = w.shape
    storage = np.zeros(-(-rows // 16) * 16 * -(-cols // c0) * c0, w.dtype)
    storage[:w.size] = w.reshape(-1)
    return DeviceTensor(storage, shape=w.shape, strides=(cols, 1))


# ---- aclnnTransMatmulWeight ----

def test_trans_matmul_weight_stores_the_weight_as_fractal_nz():
    w = np.random.default_rng(1).standard_normal((20, 40)).astype(np.float16)
    weight = weight_buffer(w, 16)
    assert call("aclnnTransMatmulWeight", weight) == (0, 0, 0), recent_error()
    assert format_of(weight) == FRACTAL_NZ
    assert storage_shape_of(weight) == (3, 2, 16, 16)
    np.testing.assert_array_equal(weight.storage(), nz_reference(w, 16))


def test_trans_matmul_weight_int8_uses_32_byte_column_blocks():
    w = np.random.default_rng(2).integers(-128, 128, (17, 33)).astype(np.int8)
    weight = weight_buffer(w, 32)
    assert call("aclnnTransMatmulWeight", weight) == (0, 0, 0), recent_error()
    assert storage_shape_of(weight) == (2, 2, 16, 32)
    np.testing.assert_array_equal(weight.storage(), nz_reference(w, 32))


def test_matmul_reads_the_converted_weight_back():
    rng = np.random.default_rng(3)
    x, w = (rng.standard_normal(s).astype(np.float16) for s in ((5, 20), (20, 40)))
    weight = weight_buffer(w, 16)
    assert call("aclnnTransMatmulWeight", weight)[0] == 0, recent_error()
    out = DeviceTensor(np.zeros((5, 40), np.float16))
    assert call("aclnnMatmul", DeviceTensor(x), weight, out, ctypes.c_int8(0)) == (0, 0, 0), recent_error()
    reference = (torch.from_numpy(x).float() @ torch.from_numpy(w).float()).numpy()
    np.testing.assert_allclose(result(out).astype(np.float32), reference, rtol=2e-3, atol=2e-3)


def test_trans_matmul_weight_twice_is_param_invalid():
    weight = weight_buffer(np.ones((16, 16), np.float16), 16)
    assert call("aclnnTransMatmulWeight", weight)[0] == 0
    assert call("aclnnTransMatmulWeight", weight)[0] == PARAM_INVALID
    assert "the format of input should be ND. Actual is [FRACTAL_NZ]." in recent_error()


def test_trans_matmul_weight_float32_is_param_invalid():
    assert call("aclnnTransMatmulWeight", DeviceTensor(np.ones((4, 4), np.float32)))[0] == PARAM_INVALID
    assert "Tensor input not implemented for DT_FLOAT" in recent_error()


def test_trans_matmul_weight_vector_is_param_invalid():
    assert call("aclnnTransMatmulWeight", DeviceTensor(np.ones(16, np.float16)))[0] == PARAM_INVALID
    assert "It is expected that tensorShape has 2-6 dimensions, but got dimensions 1." in recent_error()


def test_trans_matmul_weight_null_is_nullptr():
    assert call("aclnnTransMatmulWeight", None)[0] == PARAM_NULLPTR


# ---- aclnnNpuFormatCast ----

@pytest.mark.parametrize("dtype, c0", [(np.float16, 16), (np.int8, 32), (np.float32, 8)],
                         ids=["float16", "int8", "float32"])
def test_npu_format_cast_writes_fractal_nz(dtype, c0):
    src = (np.random.default_rng(4).standard_normal((18, 21)) * 20).astype(dtype)
    need = 32 * -(-21 // c0) * c0
    dst = DeviceTensor(np.full(need, 7, dtype), shape=src.shape, strides=(21, 1), format=FRACTAL_NZ)
    assert call("aclnnNpuFormatCast", DeviceTensor(src), dst) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(dst.storage(), nz_reference(src, c0))


def test_npu_format_cast_c0_16_takes_16_columns_per_block():
    src = np.arange(16 * 20, dtype=np.int32).reshape(16, 20)
    dst = DeviceTensor(np.zeros(16 * 32, np.int32), shape=src.shape, strides=(20, 1), format=FRACTAL_NZ_C0_16)
    assert call("aclnnNpuFormatCast", DeviceTensor(src), dst) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(dst.storage(), nz_reference(src, 16))


def test_npu_format_cast_to_nd_is_param_invalid():
    src = np.ones((16, 16), np.float16)
    assert call("aclnnNpuFormatCast", DeviceTensor(src), DeviceTensor(src))[0] == PARAM_INVALID
    assert "the format of dstTensor must be" in recent_error()


def test_npu_format_cast_small_storage_is_param_invalid():
    src = np.ones((20, 20), np.float16)
    dst = DeviceTensor(np.zeros(400, np.float16), shape=src.shape, strides=(20, 1), format=FRACTAL_NZ)
    assert call("aclnnNpuFormatCast", DeviceTensor(src), dst)[0] == PARAM_INVALID
    assert "the FRACTAL_NZ layout of srcTensor [20, 20] needs 1024" in recent_error()


def test_npu_format_cast_on_the_310p_is_runtime_error(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    src = np.ones((16, 16), np.float16)
    dst = DeviceTensor(np.zeros(256, np.float16), shape=src.shape, strides=(16, 1), format=FRACTAL_NZ)
    assert call("aclnnNpuFormatCast", DeviceTensor(src), dst)[0] == RUNTIME_ERROR
