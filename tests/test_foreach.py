"""The Foreach* forms of the elementwise rows (aclnnForeachSqrt, ForeachAbs, ForeachAddListV2,
ForeachSubListV2, ForeachMulScalarV2, ForeachDivScalarV2) through the C ABI against PyTorch's
_foreach_* functions, and each check of the vendor's sources with its status and message."""
import ctypes
import types

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, lib, recent_error
from acl_args import call, from_torch, random, result, scalar, tensor_list, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID, RUNTIME_ERROR, TILING_ERROR = 161001, 161002, 361001, 561002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]
SHAPES = [(3, 4), (5,), (2, 1, 3), ()]


def device_list(arrays):
    return [DeviceTensor(a) for a in arrays]


def arrays(dtype, seed=0, low=-3, high=3, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    return [random(shape, dtype, rng, low, high) for shape in shapes]


def outputs_like(tensors):
    return device_list([np.zeros(t.shape, t.storage_dtype) for t in tensors])


def close(actual, expected, dtype):
    for got, want in zip(actual, expected):
        if np.dtype(dtype).kind in "iu":
            np.testing.assert_array_equal(got, from_torch(want))
        else:
            np.testing.assert_allclose(got.astype(np.float64), from_torch(want).astype(np.float64),
                                       rtol=2 * tolerance(dtype), atol=2 * tolerance(dtype))


def torch_list(values):
    return [to_torch(v) for v in values]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op, oracle", [("aclnnForeachSqrt", torch._foreach_sqrt),
                                        ("aclnnForeachAbs", torch._foreach_abs)], ids=["Sqrt", "Abs"])
def test_unary_forms_compute_like_torch_foreach(op, oracle, dtype):
    values = arrays(dtype, low=0 if op == "aclnnForeachSqrt" else -3)
    x = device_list(values)
    out = outputs_like(x)
    assert call(op, tensor_list(x), tensor_list(out)) == (0, 0, 0), recent_error()
    close([result(t) for t in out], oracle(torch_list(values)), dtype)


@pytest.mark.parametrize("alpha", [1.0, 2.5, -0.5])
@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int16, np.int8, np.uint8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op, oracle", [("aclnnForeachAddListV2", torch._foreach_add),
                                        ("aclnnForeachSubListV2", torch._foreach_sub)], ids=["Add", "Sub"])
def test_list_forms_with_alpha_compute_like_torch_foreach(op, oracle, dtype, alpha):
    integral = np.dtype(dtype).kind in "iu"
    if integral:
        alpha = int(alpha * 2)
    first, second = arrays(dtype, 1, 0, 9), arrays(dtype, 2, 0, 4)
    x1, x2 = device_list(first), device_list(second)
    out = outputs_like(x1)
    alpha_scalar = scalar(alpha, np.int64 if integral else np.float64)
    assert call(op, tensor_list(x1), tensor_list(x2), alpha_scalar, tensor_list(out)) == (0, 0, 0), recent_error()
    close([result(t) for t in out], oracle(torch_list(first), torch_list(second), alpha=alpha), dtype)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op, oracle", [("aclnnForeachMulScalarV2", torch._foreach_mul),
                                        ("aclnnForeachDivScalarV2", torch._foreach_div)], ids=["Mul", "Div"])
def test_scalar_forms_compute_like_torch_foreach(op, oracle, dtype):
    if op == "aclnnForeachDivScalarV2" and dtype == np.int32:
        pytest.skip("ForeachDivScalarV2 takes floating lists only: test_a_dtype_outside_the_list_is_refused")
    integral = np.dtype(dtype).kind == "i"
    value = 3 if integral else 0.75   # exact in every floating dtype: the scalar's own rounding is tested below
    values = arrays(dtype, 3)
    x = device_list(values)
    out = outputs_like(x)
    s = scalar(value, np.int64 if integral else np.float64)
    assert call(op, tensor_list(x), s, tensor_list(out)) == (0, 0, 0), recent_error()
    close([result(t) for t in out], oracle(torch_list(values), value), dtype)


def fp16_times_a_tenth(soc, scalar_type, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", soc)
    x = device_list([np.array([3.0], np.float16)])
    out = outputs_like(x)
    assert call("aclnnForeachMulScalarV2", tensor_list(x), scalar(0.1, scalar_type), tensor_list(out)) == (0, 0, 0), \
        recent_error()
    return result(out[0])[0]


def test_an_fp16_list_takes_its_scalar_rounded_to_fp16(monkeypatch):
    """ConvertToTensor(scalar, the list's dtype): 0.1 becomes fp16's 0.09998, and 3 × 0.09998 rounds to 0.2998
    where 3 × 0.1 would give 0.3000."""
    assert fp16_times_a_tenth("Ascend910B1", np.float64, monkeypatch) == np.float16(0.2998)


def test_on_the_950_line_an_fp16_list_keeps_a_float_scalar_in_fp32(monkeypatch):
    assert fp16_times_a_tenth("Ascend950PR_9599", np.float32, monkeypatch) == np.float16(0.3)


def test_a_bf16_list_takes_its_scalar_in_fp32():
    x = device_list([np.array([3.0], BF16)])
    out = outputs_like(x)
    assert call("aclnnForeachMulScalarV2", tensor_list(x), scalar(0.1, np.float32), tensor_list(out)) == (0, 0, 0)
    assert result(out[0])[0] == BF16(np.float32(3) * np.float32(0.1))


def test_out_may_be_the_input_list():
    """torch_npu's in-place _foreach_add_ passes x1 as out."""
    values = arrays(np.float32, 4)
    x1, x2 = device_list(values), device_list(arrays(np.float32, 5))
    assert call("aclnnForeachAddListV2", tensor_list(x1), tensor_list(x2), scalar(1.0, np.float64),
                tensor_list(x1)) == (0, 0, 0), recent_error()
    close([result(t) for t in x1], torch._foreach_add(torch_list(values), torch_list([result(t) for t in x2])),
          np.float32)


def test_strided_tensors_are_read_and_written_through_their_views():
    storage = np.arange(12, dtype=np.float32)
    x = [DeviceTensor(storage, shape=(2, 3), strides=(1, 2))]
    out = [DeviceTensor(np.full(12, -1, np.float32), shape=(2, 3), strides=(1, 2))]
    assert call("aclnnForeachSqrt", tensor_list(x), tensor_list(out)) == (0, 0, 0), recent_error()
    written = out[0].storage()
    np.testing.assert_allclose(written[:6], np.sqrt(storage[:6]), rtol=1e-6)
    assert (written[6:] == -1).all()


@pytest.mark.parametrize("op", ["aclnnForeachSqrt", "aclnnForeachAbs"])
def test_empty_lists_and_empty_tensors_succeed(op):
    assert call(op, tensor_list([]), tensor_list([])) == (0, 0, 0), recent_error()
    empty = device_list([np.zeros((0, 3), np.float32)])
    assert call(op, tensor_list(empty), tensor_list(outputs_like(empty))) == (0, 0, 0), recent_error()


# ---- the op_api checks, in the sources' order and words

def unary(x_values, out_values=None, op="aclnnForeachSqrt"):
    x = device_list(x_values)
    out = device_list(out_values) if out_values is not None else outputs_like(x)
    return call(op, tensor_list(x), tensor_list(out))[0]


def test_a_null_list_is_nullptr():
    out = outputs_like(device_list(arrays(np.float32)))
    assert call("aclnnForeachSqrt", None, tensor_list(out))[0] == PARAM_NULLPTR
    assert "Expected a proper TensorList but got null for argument self." in recent_error()


def test_a_null_scalar_is_nullptr():
    x = device_list(arrays(np.float32))
    assert call("aclnnForeachDivScalarV2", tensor_list(x), None, tensor_list(outputs_like(x)))[0] == PARAM_NULLPTR
    assert "Expected a value of type number for argument scalar but instead found type null." in recent_error()


def test_a_null_tensor_in_a_list_is_nullptr():
    x = device_list(arrays(np.float32))
    out = outputs_like(x)
    assert call("aclnnForeachDivScalarV2", tensor_list(x[:1] + [None]), scalar(2.0, np.float32),
                tensor_list(out[:2]))[0] == PARAM_NULLPTR
    assert "Expected a proper Tensor but got null for argument (*self)[i]." in recent_error()


def test_mul_scalar_checks_the_lists_tensors_for_null_with_the_dtypes():
    x = device_list(arrays(np.float32))
    out = outputs_like(x)
    assert call("aclnnForeachMulScalarV2", tensor_list(x[:2]), scalar(2.0, np.float32),
                tensor_list([out[0], None]))[0] == PARAM_INVALID
    assert "Expected a proper Tensor but got null for argument (*out)[i]." in recent_error()


def test_a_product_without_foreach_kernels_is_refused(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910B1")
    x = arrays(np.float32)
    assert unary(x) == 0
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert unary(x) == PARAM_INVALID
    assert "support for Ascend310P3 is not implemented" in recent_error()


def test_a_dtype_outside_the_list_is_refused():
    assert unary(arrays(np.int32)) == PARAM_INVALID
    assert ("Tensor (*self)[0] not implemented for DT_INT32, should be in dtype support list "
            "[DT_FLOAT,DT_FLOAT16,DT_BFLOAT16,].") in recent_error()


def test_every_tensor_must_have_the_first_ones_dtype():
    values = arrays(np.float32)
    assert unary(values[:1] + [values[1].astype(np.float16)]) == PARAM_INVALID
    assert "Tensor (*self)[i] expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()
    assert unary(values, [np.zeros(v.shape, np.float16) for v in values]) == PARAM_INVALID
    assert "Tensor (*out)[i] expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()


@pytest.mark.parametrize("dtype, scalar_type, allowed", [
    (np.float32, np.float16, "[DT_FLOAT,DT_DOUBLE,]"), (np.float16, np.float32, "[DT_FLOAT16,DT_DOUBLE,]"),
    (np.int32, np.float32, "[DT_INT32,DT_INT64,]")], ids=["float", "float16", "int32"])
def test_the_scalars_dtype_follows_the_lists(dtype, scalar_type, allowed):
    x = device_list(arrays(dtype))
    assert call("aclnnForeachMulScalarV2", tensor_list(x), scalar(2, scalar_type),
                tensor_list(outputs_like(x)))[0] == PARAM_INVALID
    message = recent_error()
    assert "Tensor scalar not implemented for" in message and allowed in message


def test_alpha_dtype_follows_the_lists():
    x1, x2 = device_list(arrays(np.int32)), device_list(arrays(np.int32))
    assert call("aclnnForeachSubListV2", tensor_list(x1), tensor_list(x2), scalar(1.5, np.float32),
                tensor_list(outputs_like(x1)))[0] == PARAM_INVALID
    assert "Tensor scalar not implemented for DT_FLOAT, should be in dtype support list [DT_INT32,DT_INT64,]." \
        in recent_error()


def test_lists_of_different_lengths_are_refused():
    values = arrays(np.float32)
    assert unary(values, [np.zeros(v.shape, np.float32) for v in values[:2]]) == PARAM_INVALID
    assert "Tensor lists must have the same number of tensors" in recent_error()
    x = device_list(values)
    assert call("aclnnForeachMulScalarV2", tensor_list(x), scalar(2.0, np.float32),
                tensor_list(outputs_like(x[:1])))[0] == PARAM_INVALID
    assert ("The self tensorlist and out tensorlist must have the same number of tensors, but got 4 and 1."
            in recent_error())
    assert call("aclnnForeachSubListV2", tensor_list(x), tensor_list(x[:3]), scalar(1.0, np.float32),
                tensor_list(outputs_like(x)))[0] == PARAM_INVALID
    assert "Tensor lists must have the same number of tensors, got 4 and 3" in recent_error()


def test_add_list_compares_the_list_lengths_before_the_dtypes():
    x = device_list(arrays(np.int64))
    assert call("aclnnForeachAddListV2", tensor_list(x), tensor_list(x[:3]), scalar(1, np.int64),
                tensor_list(outputs_like(x)))[0] == PARAM_INVALID
    assert "not implemented for DT_INT64" not in recent_error()


def test_sub_list_takes_an_out_list_longer_than_self():
    """Its source walks out by self's indices and compares no lengths: a longer out is left alone."""
    values = arrays(np.float32, 6)
    x = device_list(values)
    out = outputs_like(x) + device_list([np.full(3, 7, np.float32)])
    assert call("aclnnForeachSubListV2", tensor_list(x), tensor_list(x), scalar(1.0, np.float32),
                tensor_list(out)) == (0, 0, 0), recent_error()
    assert (result(out[-1]) == 7).all() and all((result(t) == 0).all() for t in out[:-1])


def test_shapes_that_differ_are_refused():
    values = arrays(np.float32)
    assert unary(values, [np.zeros((4, 3), np.float32)] + [np.zeros(v.shape, np.float32) for v in values[1:]]) \
        == PARAM_INVALID
    assert ("Expected tensor for (*self)[i] to have same size as tensor for (*out)[i], but [3, 4] does not equal "
            "[4, 3].") in recent_error()


def test_more_than_eight_dims_are_refused():
    assert unary([np.zeros((1,) * 9, np.float32)]) == PARAM_INVALID
    assert "The (*self)[i] tensor cannot be larger than 8 dimensions." in recent_error()


def test_a_private_format_is_refused():
    x = device_list([np.zeros((2, 3), np.float32)])
    dims = (ctypes.c_int64 * 2)(2, 3)
    nz = lib().aclCreateTensor(dims, 2, 0, None, 0, 29, dims, 2, x[0].address)  # ACL_FORMAT_FRACTAL_NZ
    assert call("aclnnForeachSqrt", tensor_list([types.SimpleNamespace(handle=nz)]),
                tensor_list(outputs_like(x)))[0] == PARAM_INVALID
    assert "Format only support ND、NCHW、NHWC、HWCN、NDHWC、NCDHW." in recent_error()
    lib().aclDestroyTensor(nz)


# ---- ForeachAbs: opbuild's generated check, then the foreach tiling's

def test_generated_form_on_a_product_without_its_kernel_is_a_runtime_error(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProB")
    assert unary(arrays(np.float32), op="aclnnForeachAbs") == RUNTIME_ERROR
    assert "aclnnForeachAbs is not supported on Ascend910ProB." in recent_error()


def test_generated_form_checks_each_tensors_dtype_and_outs_match():
    assert unary(arrays(np.int32), op="aclnnForeachAbs") == PARAM_INVALID
    assert "Tensor x[0] not implemented for DT_INT32" in recent_error()
    values = arrays(np.float32)
    assert unary(values, [np.zeros(v.shape, np.float16) for v in values], op="aclnnForeachAbs") == PARAM_INVALID
    assert "Tensor out[0] expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()


def test_generated_form_with_two_dtypes_in_x_fails_in_tiling():
    values = [np.ones(3, np.float32), np.ones(3, np.float16)]
    assert unary(values, [np.zeros(3, np.float32), np.zeros(3, np.float16)], op="aclnnForeachAbs") == TILING_ERROR


def test_generated_form_writes_x_over_the_first_elements_of_a_larger_out():
    values = [-np.arange(6, dtype=np.float32).reshape(2, 3)]
    out = device_list([np.full(8, 9, np.float32)])
    assert call("aclnnForeachAbs", tensor_list(device_list(values)), tensor_list(out)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(out[0]), [0, 1, 2, 3, 4, 5, 9, 9])


def test_generated_form_with_a_smaller_out_fails_in_tiling():
    assert unary([np.ones(6, np.float32)], [np.zeros(4, np.float32)], op="aclnnForeachAbs") == TILING_ERROR
    assert ("The shape size of 0th tensor in tensor list y should be greater than or equal to that of the tensor "
            "in the same position of the another tensor list x") in recent_error()
