"""TensorFlow-style scatter reductions (ScatterMul/Div/Max/Min, the 950 line), max_unpool2d/3d and their backward
(against PyTorch CPU), and aclnnSleep, through the C ABI."""
import ctypes
import time

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, int_array

INVALID, RUNTIME, TILING = 161002, 361001, 561002
B = ctypes.c_bool
OK = (0, 0, 0)


@pytest.fixture
def soc950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


# ---- ScatterMul / Div / Max / Min ---------------------------------------------------------------------------------

def _reference(var, indices, updates, how):
    out = var.astype(np.float64 if var.dtype.kind == "f" else np.int64).copy()
    for i, row in enumerate(indices.reshape(-1)):
        if not 0 <= row < var.shape[0]:
            continue
        u = updates.reshape((-1,) + var.shape[1:])[i]
        if how == "mul":
            out[row] = out[row] * u
        elif how == "max":
            out[row] = np.maximum(out[row], u)
        elif how == "min":
            out[row] = np.minimum(out[row], u)
        elif var.dtype.kind == "f":
            out[row] = out[row] / u
        else:
            divisor = np.where(u == 0, 1, u).astype(np.int64)
            out[row] = np.trunc(out[row] / divisor).astype(np.int64)
    return out


@pytest.mark.parametrize("op,how", [("aclnnScatterMul", "mul"), ("aclnnScatterDiv", "div"),
                                    ("aclnnScatterMax", "max"), ("aclnnScatterMin", "min")])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_scatter_reduction_applies_updates_in_index_order_with_duplicates(soc950, op, how, dtype):
    rng = np.random.default_rng(1)
    var = rng.integers(-9, 10, (4, 3)).astype(dtype)
    indices = np.array([[2, 0], [2, 5]])   # 5 is outside var: skipped
    updates = rng.integers(-4, 5, (2, 2, 3)).astype(dtype)
    if how == "div" and dtype == np.float32:
        updates[updates == 0] = 3
    expected = _reference(var, indices, updates, how)
    ref = t(var)
    assert call(op, ref, t(indices), t(updates), B(False)) == OK, recent_error()
    np.testing.assert_allclose(got(ref), expected.astype(dtype), rtol=1e-6)


def test_scatter_div_integer_zero_divisor_keeps_the_value(soc950):
    ref = t(np.array([7, -7], np.int32))
    assert call("aclnnScatterDiv", ref, t(np.array([0, 1])), t(np.array([0, 2], np.int32)), B(False)) == OK
    assert got(ref).tolist() == [7, -3]


def test_scatter_mul_fp16_rounds_once_after_fp32_products(soc950):
    var = np.array([1.0009765625], np.float16)
    updates = np.full(3, 1.0009765625, np.float16)
    ref = t(var)
    assert call("aclnnScatterMul", ref, t(np.zeros(3, np.int64)), t(updates), B(False)) == OK
    assert got(ref)[0] == np.float16(np.float32(var[0]) ** 4)


def test_scatter_mul_is_refused_before_the_950():
    status = call("aclnnScatterMul", t(np.ones(2, np.float32)), t(np.array([0])), t(np.ones(1, np.float32)), B(False))
    assert status[0] == RUNTIME


def test_scatter_mul_updates_shape_is_checked_by_the_tiling(soc950):
    status = call("aclnnScatterMul", t(np.ones((2, 3), np.float32)), t(np.array([0])),
                  t(np.ones((1, 2), np.float32)), B(False))
    assert status[0] == TILING and "updatesShape should equal varShape" in recent_error()


# ---- MaxUnpool ----------------------------------------------------------------------------------------------------

def _pooled(shape, kernel):
    x = torch.from_numpy(np.random.default_rng(2).standard_normal(shape).astype(np.float32))
    pool = F.max_pool2d if len(shape) == 4 else F.max_pool3d
    return x, pool(x, kernel, return_indices=True)


def test_max_unpool2d_puts_each_value_at_its_index():
    x, (pooled, indices) = _pooled((2, 3, 4, 6), 2)
    expected = F.max_unpool2d(pooled, indices, 2, output_size=(4, 6)).numpy()
    out = t(np.full(expected.shape, 9, np.float32))
    status = call("aclnnMaxUnpool2d", t(pooled.numpy()), t(indices.numpy()), int_array([4, 6]), out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_max_unpool2d_output_smaller_than_self():
    x = np.zeros((1, 2, 3, 3), np.float32)
    status = call("aclnnMaxUnpool2d", t(x), t(np.zeros(x.shape, np.int64)), int_array([2, 2]),
                  t(np.zeros((1, 2, 2, 2), np.float32)))
    assert status[0] == INVALID and "should greater than or equal to self" in recent_error()


def test_max_unpool3d_matches_torch():
    x, (pooled, indices) = _pooled((1, 2, 4, 4, 4), 2)
    expected = F.max_unpool3d(pooled, indices, 2, output_size=(4, 4, 4)).numpy()
    out = t(np.zeros(expected.shape, np.float32))
    status = call("aclnnMaxUnpool3d", t(pooled.numpy()), t(indices.numpy()), int_array([4, 4, 4]),
                  int_array([2, 2, 2]), int_array([0, 0, 0]), out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_max_unpool3d_out_must_match_output_size():
    x = np.zeros((1, 1, 2, 2, 2), np.float32)
    status = call("aclnnMaxUnpool3d", t(x), t(np.zeros(x.shape, np.int64)), int_array([4, 4, 4]),
                  int_array([2, 2, 2]), int_array([0, 0, 0]), t(np.zeros((1, 1, 4, 4, 2), np.float32)))
    assert status[0] == INVALID and "Out should be same in D、H、W dimensions with outputSize" in recent_error()


@pytest.mark.parametrize("rank", [2, 3])
def test_max_unpool_backward_gathers_the_gradient_at_each_index(rank):
    shape = (1, 2, 4, 4) if rank == 2 else (1, 2, 4, 4, 4)
    x, (pooled, indices) = _pooled(shape, 2)
    pooled.requires_grad_()
    unpool = F.max_unpool2d if rank == 2 else F.max_unpool3d
    y = unpool(pooled, indices, 2, output_size=shape[2:])
    grad = torch.from_numpy(np.random.default_rng(3).standard_normal(shape).astype(np.float32))
    y.backward(grad)
    out = t(np.zeros(tuple(pooled.shape), np.float32))
    arrays = (int_array(list(shape[2:])),) + ((int_array([2] * 3), int_array([0] * 3)) if rank == 3 else ())
    status = call("aclnnMaxUnpool%ddBackward" % rank, t(grad.numpy()), t(pooled.detach().numpy()),
                  t(indices.numpy()), *arrays, out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), pooled.grad.numpy())


def test_max_unpool2d_backward_grad_size_must_match_output_size():
    x = np.zeros((1, 2, 2, 2), np.float32)
    status = call("aclnnMaxUnpool2dBackward", t(np.zeros((1, 2, 4, 3), np.float32)), t(x),
                  t(np.zeros(x.shape, np.int64)), int_array([4, 4]), t(x))
    assert status[0] == INVALID and "Inconsistent gradOutput size" in recent_error()


# ---- Sleep --------------------------------------------------------------------------------------------------------

def test_sleep_waits_the_cycles_at_the_950_clock(soc950):
    start = time.perf_counter()
    assert call("aclnnSleep", int_array([int(0.05 * 1.65e9)])) == OK, recent_error()
    assert time.perf_counter() - start >= 0.05


@pytest.mark.parametrize("cycles", [[0], []])
def test_sleep_cycles_must_be_one_positive_value(soc950, cycles):
    assert call("aclnnSleep", int_array(cycles))[0] == TILING


def test_sleep_past_the_aicore_timeout_reports_it(soc950):
    status = call("aclnnSleep", int_array([int(2000 * 1.65e9)]))
    assert status[0] == 0 and 507014 in status[1:]


def test_sleep_is_refused_before_the_950():
    assert call("aclnnSleep", int_array([100]))[0] == RUNTIME
