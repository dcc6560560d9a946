"""ops-math's reductions beyond ReduceSum/Mean/ArgMax (Amax, Amin …) through the C ABI against PyTorch CPU,
with their documented checks (status and message)."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, int_array, random, result, to_torch

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
EXTREMA = {"Amax": torch.amax, "Amin": torch.amin}


@pytest.mark.parametrize("dims,keep", [((1,), False), ((0, 2), True), ((-1,), True), ((), False)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int64, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(EXTREMA))
def test_extremum_like_torch(op, dtype, dims, keep):
    x = random((3, 4, 5), dtype, np.random.default_rng(0))
    expected = EXTREMA[op](to_torch(x), dim=list(dims), keepdim=keep)
    do = DeviceTensor(np.zeros(tuple(expected.shape), dtype), shape=tuple(expected.shape))
    assert call("aclnn" + op, DeviceTensor(x), int_array(list(dims)), ctypes.c_bool(keep), do) == (0, 0, 0), \
        recent_error()
    np.testing.assert_array_equal(result(do), from_torch(expected))


def test_amax_propagates_nan():
    x = np.array([[1.0, np.nan], [2.0, 3.0]], np.float32)
    do = DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAmax", DeviceTensor(x), int_array([1]), ctypes.c_bool(False), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [np.nan, 3.0])


def test_amax_of_a_0d_tensor_is_itself():
    do = DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnAmin", DeviceTensor(np.array(4.5, np.float32), shape=()), int_array([0]), ctypes.c_bool(False),
                do) == (0, 0, 0), recent_error()
    assert float(result(do, ())) == 4.5


def test_amax_null_dim():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnAmax", dx, None, ctypes.c_bool(False), dx)[0] == PARAM_NULLPTR


def test_amax_out_of_self_dtype():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float16))
    assert call("aclnnAmax", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Tensor out expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()


def test_amin_dim_out_of_range():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAmin", dx, int_array([2]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Provided dim 2 must be in the range of [-2, 1]." in recent_error()


def test_amax_dim_of_zero_size():
    dx, do = DeviceTensor(np.zeros((2, 0), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAmax", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Expected reducution dim 1 to have non-zero size." in recent_error()


def test_amax_dim_twice():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnAmax", dx, int_array([1, -1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Dim 1 appears multiple times in the list of dims." in recent_error()


def test_amax_out_shape():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnAmax", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Expected tensor for out to have same size as [2], but got [3]." in recent_error()


def run(op, *arguments):
    assert call(op, *arguments) == (0, 0, 0), recent_error()


def out_like(expected, dtype):
    shape = tuple(expected.shape)
    return DeviceTensor(np.zeros(shape, dtype), shape=shape)


def close(actual, expected, rtol):
    np.testing.assert_allclose(actual.astype(np.float64), from_torch(expected).astype(np.float64), rtol=rtol, atol=rtol)


FLOAT_RTOL = {np.float32: 1e-5, np.float16: 2e-3, BF16: 1.6e-2}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["Var", "VarCorrection", "Std"])
def test_variance_rows_like_torch(op, dtype):
    x = random((4, 5, 6), dtype, np.random.default_rng(1))
    t = to_torch(x).float()
    expected = (torch.std if op == "Std" else torch.var)(t, dim=[0, 2], correction=0 if op == "Var" else 2,
                                                           keepdim=True).to(to_torch(x).dtype)
    do = out_like(expected, dtype)
    extra = [ctypes.c_bool(False)] if op == "Var" else [ctypes.c_int64(2)]
    run("aclnn" + op, DeviceTensor(x), int_array([0, 2]), *extra, ctypes.c_bool(True), do)
    close(result(do), expected, FLOAT_RTOL[dtype])


@pytest.mark.parametrize("op", ["VarMean", "StdMeanCorrection"])
def test_two_output_rows_like_torch(op):
    x = random((3, 7), np.float32, np.random.default_rng(2))
    first, mean = (torch.var_mean if op == "VarMean" else torch.std_mean)(to_torch(x), dim=[1], correction=1)
    d1, d2 = out_like(first, np.float32), out_like(mean, np.float32)
    run("aclnn" + op, DeviceTensor(x), int_array([1]), ctypes.c_int64(1), ctypes.c_bool(False), d1, d2)
    close(result(d1), first, 1e-5)
    close(result(d2), mean, 1e-5)


def test_var_of_one_element_with_correction_is_nan():
    do = DeviceTensor(np.zeros(2, np.float32))
    run("aclnnVarCorrection", DeviceTensor(np.ones((2, 1), np.float32)), int_array([1]), ctypes.c_int64(1),
        ctypes.c_bool(False), do)
    assert np.isnan(result(do)).all()


def test_logsumexp_like_torch_with_large_values():
    x = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [1.0, 2.0]], np.float32)
    expected = torch.logsumexp(torch.from_numpy(x), dim=1)
    do = DeviceTensor(np.zeros(3, np.float32))
    run("aclnnLogSumExp", DeviceTensor(x), int_array([1]), ctypes.c_bool(False), do)
    close(result(do), expected, 1e-6)


def test_logsumexp_of_integers_into_float():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    do = DeviceTensor(np.zeros(2, np.float32))
    run("aclnnLogSumExp", DeviceTensor(x), int_array([-1]), ctypes.c_bool(False), do)
    close(result(do), torch.logsumexp(torch.from_numpy(x).float(), dim=-1), 1e-6)


def test_reduce_log_sum_and_noop_with_empty_axes():
    x = random((2, 3), np.float32, np.random.default_rng(3), 1, 3)
    do = DeviceTensor(np.zeros((2, 1), np.float32))
    run("aclnnReduceLogSum", DeviceTensor(x), int_array([1]), ctypes.c_bool(True), ctypes.c_bool(False), do)
    close(result(do), torch.log(torch.from_numpy(x).sum(1, keepdim=True)), 1e-6)
    same = DeviceTensor(np.zeros((2, 3), np.float32))
    run("aclnnReduceLogSum", DeviceTensor(x), int_array([]), ctypes.c_bool(False), ctypes.c_bool(True), same)
    np.testing.assert_allclose(result(same), np.log(x), rtol=1e-6)


def test_reduce_log_sum_axes_twice():
    dx, do = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnReduceLogSum", dx, int_array([0, -2]), ctypes.c_bool(False), ctypes.c_bool(False), do)[0] \
        == PARAM_INVALID
    assert "Axes 0 appears multiple times in the list of axes" in recent_error()


def test_nansum_skips_nan():
    x = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, np.nan]], np.float32)
    do = DeviceTensor(np.zeros(2, np.float32))
    run("aclnnReduceNansum", DeviceTensor(x), int_array([1]), ctypes.c_bool(False), code(np.float32), do)
    np.testing.assert_array_equal(result(do), [3.0, 0.0])


def test_nansum_is_refused_on_the_910(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    dx = DeviceTensor(np.ones(3, np.float32))
    do = DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnReduceNansum", dx, int_array([0]), ctypes.c_bool(False), code(np.float32), do)[0] \
        == PARAM_INVALID
    assert "ReduceNansum is not supported on this device." in recent_error()


def code(dtype):
    return ctypes.c_int(DeviceTensor(np.zeros(1, dtype)).code)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=lambda d: np.dtype(d).name)
def test_prod_and_prod_dim_like_torch(dtype):
    x = random((3, 4), dtype, np.random.default_rng(4), 1, 3)
    do = DeviceTensor(np.zeros((), dtype), shape=())
    run("aclnnProd", DeviceTensor(x), code(dtype), do)
    close(result(do, ()), torch.prod(to_torch(x).double()).to(to_torch(x).dtype), FLOAT_RTOL.get(dtype, 0))
    dd = DeviceTensor(np.zeros((3, 1), dtype))
    run("aclnnProdDim", DeviceTensor(x), ctypes.c_int64(-1), ctypes.c_bool(True), code(dtype), dd)
    close(result(dd), torch.prod(to_torch(x).double(), dim=-1, keepdim=True).to(to_torch(x).dtype),
          FLOAT_RTOL.get(dtype, 0))


def test_prod_dim_out_of_range():
    dx, do = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnProdDim", dx, ctypes.c_int64(2), ctypes.c_bool(False), code(np.float32), do)[0] == PARAM_INVALID
    assert "Expected dim to be in range of [-2, 1], but got 2." in recent_error()


def test_prod_of_empty_is_one():
    do = DeviceTensor(np.zeros((), np.float32), shape=())
    run("aclnnProd", DeviceTensor(np.zeros((0, 3), np.float32)), code(np.float32), do)
    assert float(result(do, ())) == 1.0


def test_mean_v2_and_global_average_pool_like_torch():
    x = random((2, 3, 4, 5), np.float32, np.random.default_rng(5))
    do = DeviceTensor(np.zeros((2, 3), np.float32))
    run("aclnnMeanV2", DeviceTensor(x), int_array([2, 3]), ctypes.c_bool(False), ctypes.c_bool(False), do)
    close(result(do), torch.from_numpy(x).mean((2, 3)), 1e-6)
    dp = DeviceTensor(np.zeros((2, 3, 1, 1), np.float32))
    run("aclnnGlobalAveragePool", DeviceTensor(x), dp)
    close(result(dp), torch.from_numpy(x).mean((2, 3), keepdim=True), 1e-6)
    dm = DeviceTensor(np.zeros((2, 3, 1, 1), np.float32))
    run("aclnnGlobalMaxPool", DeviceTensor(x), dm)
    close(result(dm), torch.from_numpy(x).amax((2, 3), keepdim=True), 0)


def test_mean_v2_dim_repeated():
    dx, do = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros((), np.float32), shape=())
    assert call("aclnnMeanV2", dx, int_array([1, 1]), ctypes.c_bool(False), ctypes.c_bool(False), do)[0] \
        == PARAM_INVALID
    assert "provided dim 1 is repeated." in recent_error()


def test_global_pool_needs_four_dimensions():
    dx = DeviceTensor(np.ones((2, 3, 4), np.float32))
    assert call("aclnnGlobalAveragePool", dx, dx)[0] == PARAM_INVALID
    assert "The self tensor must have at least 4 dimensions." in recent_error()


@pytest.mark.parametrize("dtype", [np.float32, np.int64, BF16], ids=lambda d: np.dtype(d).name)
def test_max_min_and_max_v2_like_torch(dtype):
    x = random((3, 4), dtype, np.random.default_rng(6), -9, 9)
    for op, fn in (("aclnnMax", torch.max), ("aclnnMin", torch.min)):
        do = DeviceTensor(np.zeros((), dtype), shape=())
        run(op, DeviceTensor(x), do)
        close(result(do, ()), fn(to_torch(x)), 0)
    dv = DeviceTensor(np.zeros(4, dtype))
    run("aclnnMaxV2", DeviceTensor(x), int_array([0]), ctypes.c_bool(False), ctypes.c_bool(False), dv)
    close(result(dv), torch.amax(to_torch(x), 0), 0)


@pytest.mark.parametrize("op", ["Aminmax", "AminmaxDim", "AminmaxAll"])
def test_aminmax_forms_like_torch(op):
    x = random((3, 5), np.float32, np.random.default_rng(7))
    if op == "AminmaxAll":
        lo, hi = torch.aminmax(torch.from_numpy(x))
        args = ()
    else:
        lo, hi = torch.aminmax(torch.from_numpy(x), dim=1, keepdim=True)
        args = (int_array([1]) if op == "Aminmax" else ctypes.c_int64(1), ctypes.c_bool(True))
    dlo, dhi = out_like(lo, np.float32), out_like(hi, np.float32)
    run("aclnn" + op, DeviceTensor(x), *args, dlo, dhi)
    close(result(dlo), lo, 0)
    close(result(dhi), hi, 0)


@pytest.mark.parametrize("op", ["MaxDim", "MinDim"])
def test_max_dim_values_and_first_indices(op):
    x = np.array([[1, 5, 5, 0], [2, 2, -1, -1]], np.float32)
    values, indices = (torch.max if op == "MaxDim" else torch.min)(torch.from_numpy(x), dim=1)
    dv, di = DeviceTensor(np.zeros(2, np.float32)), DeviceTensor(np.zeros(2, np.int64))
    run("aclnn" + op, DeviceTensor(x), ctypes.c_int64(1), ctypes.c_bool(False), dv, di)
    close(result(dv), values, 0)
    np.testing.assert_array_equal(result(di), indices.numpy())


def test_max_dim_out_of_range():
    dx, dv, di = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros(2, np.float32)), \
        DeviceTensor(np.zeros(2, np.int64))
    assert call("aclnnMaxDim", dx, ctypes.c_int64(-3), ctypes.c_bool(False), dv, di)[0] == PARAM_INVALID
    assert "dim should within the range of [[-2], [1]]." in recent_error()


def test_argmin_like_torch():
    x = random((4, 6), np.float16, np.random.default_rng(8))
    do = DeviceTensor(np.zeros((1, 6), np.int64))
    run("aclnnArgMin", DeviceTensor(x), ctypes.c_int64(0), ctypes.c_bool(True), do)
    np.testing.assert_array_equal(result(do), torch.argmin(torch.from_numpy(x), 0, keepdim=True).numpy())


def test_argmin_dim_of_zero_size():
    dx, do = DeviceTensor(np.zeros((0, 3), np.float32)), DeviceTensor(np.zeros(3, np.int64))
    assert call("aclnnArgMin", dx, ctypes.c_int64(0), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Excepted reduction dim 0 to have non-zero size." in recent_error()


@pytest.mark.parametrize("op", ["All", "Any"])
def test_all_any_like_torch(op):
    x = np.array([[0, 1, 2], [3, 4, 5], [0, 0, 0]], np.int32)
    expected = (torch.all if op == "All" else torch.any)(torch.from_numpy(x), dim=1)
    do = DeviceTensor(np.zeros(3, np.bool_))
    run("aclnn" + op, DeviceTensor(x), int_array([1]), ctypes.c_bool(False), do)
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_all_out_shape():
    dx, do = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros(3, np.bool_))
    assert call("aclnnAll", dx, int_array([1]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Expect out shape [2], but got: [3]." in recent_error()


def test_any_dim_out_of_range():
    dx, do = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.zeros(3, np.bool_))
    assert call("aclnnAny", dx, int_array([5]), ctypes.c_bool(False), do)[0] == PARAM_INVALID
    assert "Dimension out of range." in recent_error()
