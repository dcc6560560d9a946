"""ops-math's counting, searching, expanding and list-summing operators (Histc, Bincount, SearchSorted(s), Expand,
AddN, Sum, Addr, InplaceAddr, OneHot) through the C ABI against PyTorch CPU, with their documented checks."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, int_array, random, result, scalar, tensor_list

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002


def run(op, *arguments):
    assert call(op, *arguments) == (0, 0, 0), recent_error()


def zeros(shape, dtype=np.float32):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return DeviceTensor(np.zeros(shape, dtype), shape=shape)


@pytest.mark.parametrize("low,high", [(-1.0, 1.0), (0.0, 0.0)])
def test_histc_like_torch(low, high):
    x = random(200, np.float32, np.random.default_rng(0), -2, 2)
    do = zeros(7)
    run("aclnnHistc", DeviceTensor(x), ctypes.c_int64(7), scalar(low, np.float32), scalar(high, np.float32), do)
    np.testing.assert_array_equal(result(do), torch.histc(torch.from_numpy(x), 7, low, high).numpy())


def test_histc_checks():
    dx = DeviceTensor(np.ones(3, np.float32))
    assert call("aclnnHistc", dx, ctypes.c_int64(0), scalar(0, np.float32), scalar(1, np.float32), zeros(3))[0] \
        == PARAM_INVALID
    assert "The value of bins can not less or equal 0." in recent_error()
    assert call("aclnnHistc", dx, ctypes.c_int64(3), scalar(2, np.float32), scalar(1, np.float32), zeros(3))[0] \
        == PARAM_INVALID
    assert "The value of max should greater than or equal to min." in recent_error()
    assert call("aclnnHistc", dx, ctypes.c_int64(3), scalar(0, np.float32), scalar(np.inf, np.float32),
                zeros(3))[0] == PARAM_INVALID
    assert "range of [0.000000, inf] is not finite" in recent_error()


@pytest.mark.parametrize("weighted", [False, True])
def test_bincount_like_torch(weighted):
    x = np.array([0, 3, 3, 1, 5], np.int64)
    w = np.array([0.5, 1, 2, 3, 4], np.float32)
    expected = torch.bincount(torch.from_numpy(x), torch.from_numpy(w) if weighted else None, minlength=4)
    do = zeros(tuple(expected.shape), np.float64 if weighted else np.int64)
    run("aclnnBincount", DeviceTensor(x), DeviceTensor(w) if weighted else None, ctypes.c_int64(4), do)
    np.testing.assert_allclose(result(do), expected.numpy())


def test_bincount_self_must_be_1d():
    assert call("aclnnBincount", DeviceTensor(np.zeros((2, 2), np.int32)), None, ctypes.c_int64(0),
                zeros(2, np.int64))[0] == PARAM_INVALID
    assert "Expected 1 dimension input, but got self with sizes [2, 2]." in recent_error()


@pytest.mark.parametrize("right", [False, True])
def test_search_sorted_like_torch(right):
    seq = np.array([[1, 3, 5, 7], [2, 4, 6, 8]], np.float32)
    values = np.array([[3, 6, 9], [1, 4, 8]], np.float32)
    expected = torch.searchsorted(torch.from_numpy(seq), torch.from_numpy(values), right=right)
    do = zeros((2, 3), np.int64)
    run("aclnnSearchSorted", DeviceTensor(seq), DeviceTensor(values), ctypes.c_bool(False), ctypes.c_bool(right),
        None, do)
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_search_sorted_through_a_sorter_into_int32():
    seq, sorter = np.array([5, 1, 3], np.int64), np.array([1, 2, 0], np.int64)
    do = zeros((1,), np.int32)
    run("aclnnSearchSorteds", DeviceTensor(seq), scalar(4, np.int64), ctypes.c_bool(True), ctypes.c_bool(False),
        DeviceTensor(sorter), do)
    assert int(result(do)[0]) == 2


def test_search_sorted_out_dtype():
    seq = DeviceTensor(np.arange(4, dtype=np.float32))
    assert call("aclnnSearchSorted", seq, seq, ctypes.c_bool(True), ctypes.c_bool(False), None, zeros(4, np.int64))[0] \
        == PARAM_INVALID
    assert "Tensor out expected dtype is DT_INT32 but found DT_INT64." in recent_error()


def test_expand_like_torch():
    x = np.arange(3, dtype=np.float32).reshape(3, 1)
    do = zeros((2, 3, 4))
    run("aclnnExpand", DeviceTensor(x), int_array([2, -1, 4]), do)
    np.testing.assert_array_equal(result(do), torch.from_numpy(x).expand(2, -1, 4).numpy())


def test_expand_size_does_not_match():
    assert call("aclnnExpand", DeviceTensor(np.ones((3, 2), np.float32)), int_array([3, 4]), zeros((3, 4)))[0] \
        == PARAM_INVALID
    assert "the self shape [3, 2] does not match size [3, 4]." in recent_error()


def test_add_n_and_sum_like_torch():
    rng = np.random.default_rng(1)
    xs = [random((2, 3), np.float16, rng) for _ in range(3)]
    do = zeros((2, 3), np.float16)
    run("aclnnAddN", tensor_list([DeviceTensor(x) for x in xs]), do)
    expected = sum(torch.from_numpy(x).float() for x in xs).half().numpy()
    np.testing.assert_allclose(result(do).astype(np.float32), expected.astype(np.float32), rtol=1e-3)
    ys = [random((2, 1), np.float32, rng), random((3,), np.float32, rng)]
    ds = zeros((2, 3))
    run("aclnnSum", tensor_list([DeviceTensor(y) for y in ys]), ds)
    np.testing.assert_allclose(result(ds), ys[0] + ys[1], rtol=1e-6)


def test_add_n_shapes_and_null_members():
    a, b = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.ones((3, 2), np.float32))
    assert call("aclnnAddN", tensor_list([a, b]), zeros((2, 3)))[0] == PARAM_INVALID
    assert "Input tensors should have same shape." in recent_error()
    assert call("aclnnAddN", tensor_list([a, None]), zeros((2, 3)))[0] == PARAM_NULLPTR
    assert "Expected a proper Tensor but got null for tensor 1." in recent_error()


@pytest.mark.parametrize("inplace", [False, True])
def test_addr_like_torch(inplace):
    rng = np.random.default_rng(2)
    x, v1, v2 = random((3, 4), np.float32, rng), random(3, np.float32, rng), random(4, np.float32, rng)
    expected = torch.addr(*map(torch.from_numpy, (x, v1, v2)), beta=0.5, alpha=2).numpy()
    if inplace:
        dx = DeviceTensor(x)
        run("aclnnInplaceAddr", dx, DeviceTensor(v1), DeviceTensor(v2), scalar(0.5, np.float32), scalar(2, np.int64))
        np.testing.assert_allclose(result(dx), expected, rtol=1e-6)
    else:
        do = zeros((3, 4))
        run("aclnnAddr", DeviceTensor(x[0]), DeviceTensor(v1), DeviceTensor(v2), scalar(0.5, np.float32),
            scalar(2, np.int64), do)
        expected = torch.addr(torch.from_numpy(x[0]), torch.from_numpy(v1), torch.from_numpy(v2), beta=0.5,
                              alpha=2).numpy()
        np.testing.assert_allclose(result(do), expected, rtol=1e-6)


def test_addr_float_alpha_for_integral_tensors():
    di = DeviceTensor(np.ones(3, np.int32))
    assert call("aclnnAddr", DeviceTensor(np.ones((3, 3), np.int32)), di, di, None, scalar(0.5, np.float32),
                zeros((3, 3), np.int32))[0] == PARAM_INVALID
    assert "For integral input tensors, argument alpha must not be a floating point number" in recent_error()


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_like_torch(axis):
    x = np.array([[0, 2], [1, 3]], np.int64)
    expected = torch.nn.functional.one_hot(torch.from_numpy(x), 4).float() * 5 - 1
    expected = torch.movedim(expected, -1, axis if axis >= 0 else -1)
    do = zeros(tuple(expected.shape))
    run("aclnnOneHot", DeviceTensor(x), ctypes.c_int(4), DeviceTensor(np.array([4.0], np.float32)),
        DeviceTensor(np.array([-1.0], np.float32)), ctypes.c_int64(axis), do)
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_one_hot_axis_out_of_range():
    x = DeviceTensor(np.zeros(2, np.int64))
    v = DeviceTensor(np.ones(1, np.float32))
    assert call("aclnnOneHot", x, ctypes.c_int(2), v, v, ctypes.c_int64(-2), zeros((2, 2)))[0] == PARAM_INVALID
    assert "The axis should be greater and equal than -1, but got -2." in recent_error()


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_pdist_like_torch(p):
    x = random((5, 3), np.float32, np.random.default_rng(3))
    do = zeros(10)
    run("aclnnPdist", DeviceTensor(x), ctypes.c_float(p), do)
    np.testing.assert_allclose(result(do), torch.pdist(torch.from_numpy(x), p).numpy(), rtol=1e-5)
    df = zeros(10)
    run("aclnnPdistForward", DeviceTensor(x), scalar(p, np.float32), df)
    np.testing.assert_allclose(result(df), torch.pdist(torch.from_numpy(x), p).numpy(), rtol=1e-5)


def test_pdist_negative_p():
    assert call("aclnnPdist", DeviceTensor(np.ones((3, 2), np.float32)), ctypes.c_float(-1), zeros(3))[0] \
        == PARAM_INVALID
    assert "pdist only supports non-negative p values." in recent_error()


@pytest.mark.parametrize("p", [1.0, 2.0, float("inf")])
def test_cdist_like_torch(p):
    rng = np.random.default_rng(4)
    x1, x2 = random((2, 4, 3), np.float32, rng), random((5, 3), np.float32, rng)
    do = zeros((2, 4, 5))
    run("aclnnCdist", DeviceTensor(x1), DeviceTensor(x2), ctypes.c_float(p), ctypes.c_int64(2), do)
    np.testing.assert_allclose(result(do), torch.cdist(torch.from_numpy(x1), torch.from_numpy(x2), p).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_cdist_rows_of_one_length():
    x1, x2 = DeviceTensor(np.ones((2, 3), np.float32)), DeviceTensor(np.ones((2, 4), np.float32))
    assert call("aclnnCdist", x1, x2, ctypes.c_float(1), ctypes.c_int64(2), zeros((2, 2)))[0] == PARAM_INVALID
    assert "The dim num of X1 and X2 must be the same. X1 got: 3, X2 got: 4." in recent_error()


@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("reduction", [0, 1, 2, 3])
def test_kl_div_like_torch(reduction, log_target):
    rng = np.random.default_rng(5)
    x, t = np.log(random((3, 4), np.float32, rng, 0, 1) + 0.1), random((3, 4), np.float32, rng, 0, 1)
    t[0, 0] = 0
    name = ("none", "mean", "sum", "batchmean")[reduction]
    expected = torch.nn.functional.kl_div(torch.from_numpy(x), torch.from_numpy(t), reduction=name,
                                          log_target=log_target)
    do = zeros(tuple(expected.shape))
    run("aclnnKlDiv", DeviceTensor(x), DeviceTensor(t), ctypes.c_int64(reduction), ctypes.c_bool(log_target), do)
    np.testing.assert_allclose(result(do), expected.numpy(), rtol=1e-5, atol=1e-6)
