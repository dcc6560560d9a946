"""The aclnn helpers that are not operator pairs (aclnn_ops_other.tsv): aclnnCalculateMatmulWeightSize(V2),
aclnnCalculateConvolutionWeightSize and aclnnTransQuantParam through the C ABI of libopapi.so. Expected
sizes and words are computed here from the documented formulas (Align(n, 16) * Align(k, 16 or 32), the
FRACTAL_Z shape, the fixpipe word's bit fields); statuses and their order follow the vendor's op_api code."""
import ctypes
import math
import struct

import numpy as np
import pytest

import acl
import conftest

NULLPTR, INVALID, RUNTIME = 161001, 161002, 361001
ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_BF16 = 0, 1, 2, 27
P = ctypes.c_void_p
U64 = ctypes.c_uint64


@pytest.fixture(scope="module")
def opapi():
    acl.lib()
    lib = ctypes.CDLL(str(conftest.toolkit() / "lib64" / "libopapi.so"))
    nnopbase = ctypes.CDLL(str(conftest.toolkit() / "lib64" / "libnnopbase.so"))
    nnopbase.aclCreateIntArray.restype = P
    nnopbase.aclCreateIntArray.argtypes = [P, U64]
    nnopbase.aclDestroyIntArray.argtypes = [P]
    lib.aclnnCalculateMatmulWeightSize.argtypes = [P, P]
    lib.aclnnCalculateMatmulWeightSizeV2.argtypes = [P, ctypes.c_int, P]
    lib.aclnnCalculateConvolutionWeightSize.argtypes = [P, ctypes.c_bool, ctypes.c_int64, ctypes.c_int, P]
    lib.aclnnTransQuantParam.argtypes = [P, U64, P, U64, P, P]
    lib.nnopbase = nnopbase
    return lib


@pytest.fixture
def int_array(opapi):
    made = []

    def make(values):
        data = (ctypes.c_int64 * max(len(values), 1))(*values)
        handle = opapi.nnopbase.aclCreateIntArray(data, len(values))
        made.append(handle)
        return P(handle)

    yield make
    for handle in made:
        opapi.nnopbase.aclDestroyIntArray(handle)


def align(value, block):
    return -(-value // block) * block


def nz_elements(shape, k_block):
    """FRACTAL_NZ: batch axes kept, n padded to 16, k to k_block."""
    return math.prod(shape[:-2]) * align(shape[-2], 16) * align(shape[-1], k_block)


def matmul_size(opapi, shape_arg, dtype=None):
    out = U64(12345)
    if dtype is None:
        status = opapi.aclnnCalculateMatmulWeightSize(shape_arg, ctypes.byref(out))
    else:
        status = opapi.aclnnCalculateMatmulWeightSizeV2(shape_arg, dtype, ctypes.byref(out))
    return status, out.value


# ---- aclnnCalculateMatmulWeightSize ----

@pytest.mark.parametrize("shape", [[510, 510], [1, 1], [16, 16], [17, 33], [3, 510, 270], [2, 3, 4, 5, 6, 7]])
def test_matmul_weight_size_pads_last_two_axes_to_16(opapi, int_array, shape):
    assert matmul_size(opapi, int_array(shape)) == (0, nz_elements(shape, 16))


def test_matmul_weight_size_documented_example(opapi, int_array):
    assert matmul_size(opapi, int_array([510, 510])) == (0, 262144)


def test_matmul_weight_size_zero_dimension_gives_zero(opapi, int_array):
    assert matmul_size(opapi, int_array([0, 510])) == (0, 0)


def test_matmul_weight_size_null_shape(opapi):
    out = U64()
    assert opapi.aclnnCalculateMatmulWeightSize(None, ctypes.byref(out)) == NULLPTR
    assert "tensorShape" in acl.recent_error()


def test_matmul_weight_size_null_output(opapi, int_array):
    assert opapi.aclnnCalculateMatmulWeightSize(int_array([16, 16]), None) == NULLPTR
    assert "weightTensorSize" in acl.recent_error()


@pytest.mark.parametrize("shape", [[16], [1, 2, 3, 4, 5, 6, 7]])
def test_matmul_weight_size_rank_outside_2_to_6(opapi, int_array, shape):
    assert matmul_size(opapi, int_array(shape))[0] == INVALID
    assert "2-6 dimensions" in acl.recent_error()


def test_matmul_weight_size_only_2d_outside_atlas_a2_a3(opapi, int_array, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert matmul_size(opapi, int_array([32, 32])) == (0, 1024)
    assert matmul_size(opapi, int_array([2, 32, 32]))[0] == INVALID
    assert "2 dimensions" in acl.recent_error()


def test_matmul_weight_size_negative_dimension(opapi, int_array):
    assert matmul_size(opapi, int_array([-1, 16]))[0] == INVALID
    assert "negative" in acl.recent_error()


def test_matmul_weight_size_overflow(opapi, int_array):
    assert matmul_size(opapi, int_array([2 ** 40, 2 ** 40]))[0] == INVALID
    assert "overflows" in acl.recent_error()


def test_matmul_weight_size_destroyed_shape(opapi):
    data = (ctypes.c_int64 * 2)(16, 16)
    handle = opapi.nnopbase.aclCreateIntArray(data, 2)
    opapi.nnopbase.aclDestroyIntArray(handle)
    assert matmul_size(opapi, P(handle))[0] == INVALID
    assert "not a live aclIntArray" in acl.recent_error()


# ---- aclnnCalculateMatmulWeightSizeV2 ----

@pytest.mark.parametrize("dtype,k_block", [(ACL_FLOAT16, 16), (ACL_BF16, 16), (ACL_INT8, 32), (ACL_FLOAT, 32)])
@pytest.mark.parametrize("shape", [[510, 270], [1, 1], [4, 100, 33]])
def test_matmul_weight_size_v2_block_depends_on_dtype(opapi, int_array, dtype, k_block, shape):
    assert matmul_size(opapi, int_array(shape), dtype) == (0, nz_elements(shape, k_block))


def test_matmul_weight_size_v2_documented_int8_example(opapi, int_array):
    assert matmul_size(opapi, int_array([510, 270]), ACL_INT8) == (0, 147456)


def test_matmul_weight_size_v2_zero_dimension(opapi, int_array):
    assert matmul_size(opapi, int_array([0, 16]), ACL_FLOAT16)[0] == INVALID
    assert "No zeros" in acl.recent_error()


def test_matmul_weight_size_v2_rank_outside_2_to_6(opapi, int_array):
    assert matmul_size(opapi, int_array([16]), ACL_INT8)[0] == INVALID
    assert "2-6 dimensions" in acl.recent_error()


def test_matmul_weight_size_v2_null_shape(opapi):
    out = U64()
    assert opapi.aclnnCalculateMatmulWeightSizeV2(None, ACL_INT8, ctypes.byref(out)) == NULLPTR


def test_matmul_weight_size_v2_null_output(opapi, int_array):
    assert opapi.aclnnCalculateMatmulWeightSizeV2(int_array([16, 16]), ACL_INT8, None) == NULLPTR


def test_matmul_weight_size_v2_unsupported_soc_checked_first(opapi, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProB")
    assert opapi.aclnnCalculateMatmulWeightSizeV2(None, ACL_INT8, None) == RUNTIME
    assert "Ascend910ProB is not implemented" in acl.recent_error()


def test_matmul_weight_size_v2_batched_on_310p(opapi, int_array, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert matmul_size(opapi, int_array([2, 20, 20]), ACL_INT8) == (0, nz_elements([2, 20, 20], 32))


# ---- aclnnCalculateConvolutionWeightSize ----

def conv_size(opapi, shape_arg, transposed=False, groups=1, dtype=ACL_FLOAT16):
    out = U64(12345)
    status = opapi.aclnnCalculateConvolutionWeightSize(shape_arg, transposed, groups, dtype, ctypes.byref(out))
    return status, out.value


@pytest.mark.parametrize("nchw", [[64, 3, 7, 7], [16, 16, 1, 1], [17, 33, 3, 3]])
def test_convolution_weight_size_fractal_z_on_310p(opapi, int_array, monkeypatch, nchw):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    n, c, h, w = nchw
    c1, n1 = -(-c // 16), -(-n // 16)
    assert conv_size(opapi, int_array(nchw)) == (0, c1 * h * w * n1 * 16 * 16)


def test_convolution_weight_size_only_on_310p(opapi, int_array):
    assert conv_size(opapi, int_array([64, 3, 7, 7]))[0] == INVALID
    assert "only support ascend310P, now soc is Ascend910B1" in acl.recent_error()


def test_convolution_weight_size_null_shape(opapi):
    assert opapi.aclnnCalculateConvolutionWeightSize(None, False, 1, ACL_FLOAT16, ctypes.byref(U64())) == NULLPTR


def test_convolution_weight_size_null_output(opapi, int_array):
    assert opapi.aclnnCalculateConvolutionWeightSize(int_array([1, 1, 1, 1]), False, 1, ACL_FLOAT16, None) == NULLPTR


@pytest.mark.parametrize("kwargs,message", [({"transposed": True}, "nontranspose"),
                                            ({"groups": 0}, "groups larger than 0")])
def test_convolution_weight_size_rejected_arguments(opapi, int_array, kwargs, message):
    assert conv_size(opapi, int_array([16, 16, 3, 3]), **kwargs)[0] == INVALID
    assert message in acl.recent_error()


def test_convolution_weight_size_rank_checked_before_soc(opapi, int_array):
    assert conv_size(opapi, int_array([16, 16, 3]))[0] == INVALID
    assert "only support 4 dim tensorShape, but got dim 3" in acl.recent_error()


def test_convolution_weight_size_dtype_on_310p(opapi, int_array, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert conv_size(opapi, int_array([16, 16, 3, 3]), dtype=ACL_FLOAT)[0] == INVALID
    assert "only support datatype is float16" in acl.recent_error()


def test_convolution_weight_size_empty_and_negative_on_310p(opapi, int_array, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert conv_size(opapi, int_array([16, 0, 3, 3])) == (0, 0)
    assert conv_size(opapi, int_array([16, -2, 3, 3]))[0] == INVALID
    assert "must be non-negative" in acl.recent_error()


def test_convolution_weight_size_grouped_is_not_emulated(opapi, int_array, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert conv_size(opapi, int_array([32, 16, 3, 3]), groups=2)[0] == RUNTIME
    assert "not emulated" in acl.recent_error()


# ---- aclnnTransQuantParam ----

def trans_quant(opapi, scale, offset=None):
    scale_arr = None if scale is None else (ctypes.c_float * max(len(scale), 1))(*scale)
    offset_arr = None if offset is None else (ctypes.c_float * max(len(offset), 1))(*offset)
    words, count = ctypes.POINTER(ctypes.c_uint64)(), U64()
    status = opapi.aclnnTransQuantParam(scale_arr, 0 if scale is None else len(scale), offset_arr,
                                        0 if offset is None else len(offset), ctypes.byref(words),
                                        ctypes.byref(count))
    if status:
        return status, None
    values = [words[i] for i in range(count.value)]
    ctypes.CDLL(None).free(ctypes.cast(words, P))  # the caller frees the array, as with the vendor's
    return status, values


def expected_word(scale, offset):
    word = 0
    if scale is not None:
        word = struct.unpack("<I", struct.pack("<f", scale))[0] | (1 << 46)
    if offset is not None:
        rounded = math.copysign(math.floor(abs(offset) + 0.5), offset)  # C round(): halves away from zero
        value = int(max(-256.0, min(255.0, rounded)))
        word = (word & 0x4000FFFFFFFF) | ((value & 0x1FF) << 37)
    return word


def test_trans_quant_param_scale_bits_and_flag(opapi):
    scale = [1.0, 0.5, 3.14159, 1e-8]
    status, words = trans_quant(opapi, scale)
    assert status == 0 and len(words) == 16
    assert words[:4] == [expected_word(s, None) for s in np.float32(scale).tolist()]
    assert words[4:] == [0] * 12


def test_trans_quant_param_offset_rounded_clamped_to_int9(opapi):
    scale = [0.25] * 6
    offset = [2.5, -2.5, 300.0, -1000.0, 7.4, -0.6]
    status, words = trans_quant(opapi, scale, offset)
    assert status == 0
    assert words[:6] == [expected_word(s, o) for s, o in zip(np.float32(scale).tolist(), offset)]
    assert (words[0] >> 37) & 0x1FF == 3 and (words[1] >> 37) & 0x1FF == (-3) & 0x1FF


def test_trans_quant_param_single_value_not_padded(opapi):
    assert trans_quant(opapi, [2.0]) == (0, [expected_word(2.0, None)])


@pytest.mark.parametrize("channels,padded", [(16, 16), (17, 32), (2, 16)])
def test_trans_quant_param_pads_to_16(opapi, channels, padded):
    assert len(trans_quant(opapi, [1.0] * channels)[1]) == padded


def test_trans_quant_param_more_offsets_than_scales(opapi):
    status, words = trans_quant(opapi, [1.0], [1.0, 2.0])
    assert status == 0 and len(words) == 16
    assert words[1] == expected_word(None, 2.0)


def test_trans_quant_param_null_scale_is_invalid(opapi):
    assert trans_quant(opapi, None)[0] == INVALID
    assert "scaleArray can not be nullptr" in acl.recent_error()


def test_trans_quant_param_offset_size_without_array(opapi):
    scale = (ctypes.c_float * 1)(1.0)
    status = opapi.aclnnTransQuantParam(scale, 1, None, 3, ctypes.byref(ctypes.POINTER(ctypes.c_uint64)()),
                                        ctypes.byref(U64()))
    assert status == INVALID
    assert "offsetSize must be 0" in acl.recent_error()


def test_trans_quant_param_zero_sizes(opapi):
    values = (ctypes.c_float * 1)(1.0)
    out, count = ctypes.POINTER(ctypes.c_uint64)(), U64()
    assert opapi.aclnnTransQuantParam(values, 0, None, 0, ctypes.byref(out), ctypes.byref(count)) == INVALID
    assert "scaleSize must be larger than 0" in acl.recent_error()
    assert opapi.aclnnTransQuantParam(values, 1, values, 0, ctypes.byref(out), ctypes.byref(count)) == INVALID
    assert "offsetSize must be larger than 0" in acl.recent_error()


def test_trans_quant_param_null_outputs(opapi):
    values = (ctypes.c_float * 1)(1.0)
    assert opapi.aclnnTransQuantParam(values, 1, None, 0, None, ctypes.byref(U64())) == NULLPTR
    assert "quantParam is nullptr" in acl.recent_error()
    out = ctypes.POINTER(ctypes.c_uint64)()
    assert opapi.aclnnTransQuantParam(values, 1, None, 0, ctypes.byref(out), None) == NULLPTR
    assert "quantParamSize is nullptr" in acl.recent_error()
