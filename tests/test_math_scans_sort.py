"""ops-math's scans (Cumsum, CumsumV2, Cumprod, Cummax, Cummin), Sort/Argsort and generators (Eye, Linspace,
LogSpace, Range) through the C ABI against PyTorch CPU, with their documented checks (status and message)."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch

PARAM_NULLPTR, PARAM_INVALID, INNER_NULLPTR = 161001, 161002, 561103
BF16 = ml_dtypes.bfloat16


def run(op, *arguments):
    assert call(op, *arguments) == (0, 0, 0), recent_error()


def code(dtype):
    return ctypes.c_int(DeviceTensor(np.zeros(1, dtype)).code)


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float16, 2e-3), (BF16, 1.6e-2), (np.int32, 0)],
                         ids=["float32", "float16", "bfloat16", "int32"])
def test_cumsum_like_torch(dtype, rtol):
    x = random((4, 50), dtype, np.random.default_rng(0))
    do = DeviceTensor(np.zeros(x.shape, dtype))
    run("aclnnCumsum", DeviceTensor(x), ctypes.c_int64(1), code(dtype), do)
    expected = torch.cumsum(to_torch(x).double(), 1).to(to_torch(x).dtype)
    np.testing.assert_allclose(result(do).astype(np.float64), from_torch(expected).astype(np.float64),
                               rtol=rtol, atol=rtol * 10)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_v2_exclusive_and_reverse(exclusive, reverse):
    x = np.arange(1, 6, dtype=np.float32)
    t = torch.from_numpy(x).flip(0) if reverse else torch.from_numpy(x)
    expected = torch.cumsum(t, 0) - (t if exclusive else 0)
    expected = expected.flip(0) if reverse else expected
    do = DeviceTensor(np.zeros(5, np.float32))
    run("aclnnCumsumV2", DeviceTensor(x), ctypes.c_int64(0), ctypes.c_bool(exclusive), ctypes.c_bool(reverse), do)
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_cumsum_out_must_have_dtype():
    dx, do = DeviceTensor(np.ones(3, np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnCumsum", dx, ctypes.c_int64(0), code(np.float16), do)[0] == PARAM_INVALID
    assert "Tensor out expected dtype is DT_FLOAT16 but found DT_FLOAT." in recent_error()


def test_cumsum_dim_out_of_range():
    dx = DeviceTensor(np.ones((2, 3), np.float32))
    assert call("aclnnCumsum", dx, ctypes.c_int64(2), code(np.float32), dx)[0] == PARAM_INVALID
    assert "expected dim to be in range of [-2, 1], but got 2." in recent_error()


def test_cumprod_and_inplace_like_torch():
    x = random((3, 4), np.float32, np.random.default_rng(1), 1, 2)
    do = DeviceTensor(np.zeros(x.shape, np.float32))
    run("aclnnCumprod", DeviceTensor(x), scalar(0, np.int64), code(np.float32), do)
    np.testing.assert_allclose(result(do), torch.cumprod(torch.from_numpy(x), 0).numpy(), rtol=1e-6)
    dx = DeviceTensor(x)
    run("aclnnInplaceCumprod", dx, scalar(-1, np.int32))
    np.testing.assert_allclose(result(dx), torch.cumprod(torch.from_numpy(x), -1).numpy(), rtol=1e-6)


def test_cumprod_dim_out_of_range():
    dx = DeviceTensor(np.ones((2, 3), np.float32))
    assert call("aclnnCumprod", dx, scalar(3, np.int64), code(np.float32), dx)[0] == PARAM_INVALID
    assert "input dim(3) out of range(-2,1)" in recent_error()


def test_cumprod_dim_of_a_float_scalar():
    dx = DeviceTensor(np.ones((2, 3), np.float32))
    assert call("aclnnCumprod", dx, scalar(1.0, np.float32), code(np.float32), dx)[0] == PARAM_INVALID
    assert "Tensor inputDim not implemented for DT_FLOAT" in recent_error()


@pytest.mark.parametrize("op", ["Cummax", "Cummin"])
def test_running_extrema_like_torch(op):
    x = np.array([[1, 3, 3, np.nan, 2, 0], [5, 4, 4, 6, 1, 1]], np.float32)
    values, indices = (torch.cummax if op == "Cummax" else torch.cummin)(torch.from_numpy(x), 1)
    dv, di = DeviceTensor(np.zeros(x.shape, np.float32)), DeviceTensor(np.zeros(x.shape, np.int64))
    run("aclnn" + op, DeviceTensor(x), ctypes.c_int64(1), dv, di)
    np.testing.assert_array_equal(result(dv), values.numpy())
    np.testing.assert_array_equal(result(di), indices.numpy())


def test_cummax_of_a_0d_tensor():
    d = DeviceTensor(np.array(1.0, np.float32), shape=())
    di = DeviceTensor(np.zeros((), np.int64), shape=())
    assert call("aclnnCummax", d, ctypes.c_int64(0), d, di)[0] == PARAM_INVALID
    assert "dimension specified as 0 but tensor has not dimensions." in recent_error()


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int64], ids=lambda d: np.dtype(d).name)
def test_sort_like_torch_stable(dtype, descending):
    x = random((5, 40), dtype, np.random.default_rng(2), -4, 4)   # many equal keys
    values, indices = torch.sort(to_torch(x), dim=1, descending=descending, stable=True)
    dv, di = DeviceTensor(np.zeros(x.shape, dtype)), DeviceTensor(np.zeros(x.shape, np.int64))
    run("aclnnSort", DeviceTensor(x), ctypes.c_bool(True), ctypes.c_int64(-1), ctypes.c_bool(descending), dv, di)
    np.testing.assert_array_equal(result(dv), from_torch(values))
    np.testing.assert_array_equal(result(di), indices.numpy())
    da = DeviceTensor(np.zeros(x.shape, np.int64))
    run("aclnnArgsort", DeviceTensor(x), ctypes.c_int64(1), ctypes.c_bool(descending), da)
    np.testing.assert_array_equal(result(da), indices.numpy())


def test_sort_nan_is_largest():
    x = np.array([2.0, np.nan, -1.0, np.nan], np.float32)
    for descending in (False, True):
        values, indices = torch.sort(torch.from_numpy(x), descending=descending, stable=True)
        dv, di = DeviceTensor(np.zeros(4, np.float32)), DeviceTensor(np.zeros(4, np.int64))
        run("aclnnSort", DeviceTensor(x), ctypes.c_bool(True), ctypes.c_int64(0), ctypes.c_bool(descending), dv, di)
        np.testing.assert_array_equal(result(di), indices.numpy())


def test_sort_dim_out_of_range():
    dx, di = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros((2, 3), np.int64))
    assert call("aclnnSort", dx, ctypes.c_bool(False), ctypes.c_int64(2), ctypes.c_bool(False), dx, di)[0] \
        == PARAM_INVALID
    assert "dim should be in range [-2, 1]." in recent_error()


def test_argsort_indices_must_be_int64():
    dx, do = DeviceTensor(np.ones(3, np.float32)), DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnnArgsort", dx, ctypes.c_int64(0), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Tensor out not implemented for DT_INT32" in recent_error()


def test_argsort_bf16_axis_of_one():
    dx, do = DeviceTensor(np.ones((3, 1), BF16)), DeviceTensor(np.zeros((3, 1), np.int64))
    assert call("aclnnArgsort", dx, ctypes.c_int64(1), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "The sort axis value is not support 1 when input type is BF16." in recent_error()


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_eye_like_torch(dtype):
    do = DeviceTensor(np.full((3, 5), 7, dtype))
    run("aclnnEye", ctypes.c_int64(3), ctypes.c_int64(5), do)
    np.testing.assert_array_equal(result(do), np.eye(3, 5, dtype=dtype))


def test_eye_out_shape():
    do = DeviceTensor(np.zeros((3, 4), np.float32))
    assert call("aclnnEye", ctypes.c_int64(3), ctypes.c_int64(5), do)[0] == PARAM_INVALID
    assert "Expected out shape to be (3, 5), but got [3, 4]." in recent_error()
    assert call("aclnnEye", ctypes.c_int64(-1), ctypes.c_int64(5), do)[0] == PARAM_INVALID
    assert "n must be greater or equal to 0, got -1" in recent_error()


@pytest.mark.parametrize("steps", [1, 2, 7, 100])
def test_linspace_like_torch(steps):
    do = DeviceTensor(np.zeros(steps, np.float32))
    run("aclnnLinspace", scalar(-2.5, np.float32), scalar(10, np.int64), ctypes.c_int64(steps), do)
    np.testing.assert_allclose(result(do), torch.linspace(-2.5, 10, steps).numpy(), rtol=1e-6, atol=1e-6)


def test_linspace_into_integers_truncates():
    do = DeviceTensor(np.zeros(5, np.int32))
    run("aclnnLinspace", scalar(0, np.int64), scalar(9, np.int64), ctypes.c_int64(5), do)
    np.testing.assert_array_equal(result(do), torch.linspace(0, 9, 5, dtype=torch.int32).numpy())


def test_linspace_checks():
    do = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnLinspace", scalar(0, np.int64), scalar(1, np.int64), ctypes.c_int64(5), do)[0] == PARAM_INVALID
    assert "size of out must equal to steps, but got size of out 4, steps: 5." in recent_error()
    assert call("aclnnLinspace", None, scalar(1, np.int64), ctypes.c_int64(4), do)[0] == INNER_NULLPTR


def test_logspace_like_torch():
    do = DeviceTensor(np.zeros(6, np.float32))
    run("aclnnLogSpace", scalar(-1, np.int64), scalar(2.0, np.float32), ctypes.c_int64(6), ctypes.c_double(2.0), do)
    np.testing.assert_allclose(result(do), torch.logspace(-1, 2, 6, base=2).numpy(), rtol=1e-6)


def test_logspace_negative_steps():
    do = DeviceTensor(np.zeros(6, np.float32))
    assert call("aclnnLogSpace", scalar(0, np.int64), scalar(1, np.int64), ctypes.c_int64(-1), ctypes.c_double(10),
                do)[0] == PARAM_INVALID
    assert "LogSpace requires non-negative steps, given steps is -1" in recent_error()


def test_range_includes_its_end():
    do = DeviceTensor(np.zeros(5, np.float32))
    run("aclnnRange", scalar(0, np.int64), scalar(2, np.int64), scalar(0.5, np.float32), do)
    np.testing.assert_array_equal(result(do), torch.range(0, 2, 0.5).numpy())


def test_range_step_sign():
    do = DeviceTensor(np.zeros(5, np.int64))
    assert call("aclnnRange", scalar(5, np.int64), scalar(0, np.int64), scalar(1, np.int64), do)[0] == PARAM_INVALID
    assert "upper bound and lower bound inconsistent with step sign. start:5, end:0, step:1." in recent_error()
    assert call("aclnnRange", scalar(5, np.int64), scalar(0, np.int64), scalar(0, np.int64), do)[0] == PARAM_INVALID
    assert "step must be nonzero." in recent_error()
