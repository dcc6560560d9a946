"""ops-math's vector and matrix operators (Dot, Ger, Trace, Equal, Logdet, Slogdet, LinalgCholesky, LinalgCross,
Qr, LinalgQr, Svd, TriangularSolve) through the C ABI against PyTorch CPU, with their documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, random, result

PARAM_INVALID, INNER_NULLPTR = 161002, 561103
BF16 = ml_dtypes.bfloat16


def run(op, *arguments):
    assert call(op, *arguments) == (0, 0, 0), recent_error()


def zeros(shape, dtype=np.float32):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return DeviceTensor(np.zeros(shape, dtype), shape=shape)


def test_dot_like_torch():
    rng = np.random.default_rng(0)
    x, y = random(7, np.float16, rng), random(7, np.float16, rng)
    do = zeros((), np.float16)
    run("aclnnDot", DeviceTensor(x), DeviceTensor(y), do)
    expected = torch.dot(torch.from_numpy(x).float(), torch.from_numpy(y).float()).half()
    np.testing.assert_allclose(float(result(do, ())), float(expected), rtol=2e-3)


def test_dot_needs_1d_operands_of_one_size():
    dx, dy = DeviceTensor(np.ones(3, np.float32)), DeviceTensor(np.ones(4, np.float32))
    assert call("aclnnDot", dx, dy, zeros(()))[0] == PARAM_INVALID
    assert "expected consistent tensor size, but got [3] and [4] tensors." in recent_error()


def test_ger_like_torch():
    x, y = np.arange(3, dtype=np.float32), np.arange(4, dtype=np.int32)
    do = zeros((3, 4))
    run("aclnnGer", DeviceTensor(x), DeviceTensor(y), do)
    np.testing.assert_array_equal(result(do), torch.outer(torch.from_numpy(x), torch.from_numpy(y)).numpy())


def test_ger_out_shape():
    dx = DeviceTensor(np.ones(3, np.float32))
    assert call("aclnnGer", dx, dx, zeros((3, 4)))[0] == PARAM_INVALID
    assert "Expected sizes of out{3, 4}should be equal to self * vec2 {3, 3}" in recent_error()


def test_trace_like_torch():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    do = zeros((), np.int64)
    run("aclnnTrace", DeviceTensor(x), do)
    assert int(result(do, ())) == int(torch.trace(torch.from_numpy(x)))


def test_trace_of_integers_into_int64():
    assert call("aclnnTrace", DeviceTensor(np.ones((2, 2), np.int32)), zeros((), np.int32))[0] == PARAM_INVALID
    assert "Tensor out expected dtype is DT_INT64 but found DT_INT32." in recent_error()


@pytest.mark.parametrize("other,expected", [(np.array([1, 2, 3], np.int64), True), (np.array([1, 2, 4], np.int64), False),
                                            (np.array([[1, 2, 3]], np.int64), False)], ids=["equal", "value", "shape"])
def test_equal_like_torch(other, expected):
    do = zeros((1,), np.bool_)
    run("aclnnEqual", DeviceTensor(np.array([1.0, 2.0, 3.0], np.float32)), DeviceTensor(other), do)
    assert bool(result(do)[0]) is expected


def test_slogdet_and_logdet_like_torch():
    a = random((3, 4, 4), np.float64, np.random.default_rng(1))
    sign, logabs = torch.linalg.slogdet(torch.from_numpy(a))
    ds, dl = zeros((3,), np.float64), zeros((3,), np.float64)
    run("aclnnSlogdet", DeviceTensor(a), ds, dl)
    np.testing.assert_allclose(result(ds), sign.numpy())
    np.testing.assert_allclose(result(dl), logabs.numpy(), rtol=1e-10)
    do = zeros((3,), np.float64)
    run("aclnnLogdet", DeviceTensor(a), do)
    np.testing.assert_allclose(result(do), torch.logdet(torch.from_numpy(a)).numpy(), rtol=1e-10)


def test_logdet_needs_square_matrices():
    assert call("aclnnLogdet", DeviceTensor(np.ones((2, 3), np.float32)), zeros(()))[0] == PARAM_INVALID
    assert "The last two dimensions of self must be equal, but they are 2 by 3 matrices." in recent_error()


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_like_torch(upper):
    m = random((2, 4, 4), np.float32, np.random.default_rng(2))
    spd = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4, dtype=np.float32)
    do = zeros(spd.shape)
    run("aclnnLinalgCholesky", DeviceTensor(spd), ctypes.c_bool(upper), do)
    np.testing.assert_allclose(result(do), torch.linalg.cholesky(torch.from_numpy(spd), upper=upper).numpy(),
                               rtol=1e-4, atol=1e-5)


def test_cholesky_is_refused_on_the_910(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    dx = DeviceTensor(np.eye(2, dtype=np.float32))
    assert call("aclnnLinalgCholesky", dx, ctypes.c_bool(False), dx)[0] == PARAM_INVALID
    assert "Tensor self not implemented for DT_FLOAT" in recent_error()


def test_cross_like_torch():
    rng = np.random.default_rng(3)
    x, y = random((4, 3), np.float32, rng), random((1, 3), np.float32, rng)
    do = zeros((4, 3))
    run("aclnnLinalgCross", DeviceTensor(x), DeviceTensor(y), ctypes.c_int64(-1), do)
    np.testing.assert_allclose(result(do), torch.linalg.cross(torch.from_numpy(x), torch.from_numpy(y)).numpy(),
                               rtol=1e-6)


def test_cross_dim_of_size_three():
    dx = DeviceTensor(np.ones((3, 4), np.float32))
    assert call("aclnnLinalgCross", dx, dx, ctypes.c_int64(1), zeros((3, 4)))[0] == PARAM_INVALID
    assert "dimension 1 does not have size 3." in recent_error()


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_linalg_qr_modes_like_torch(mode):
    a = random((5, 3), np.float64, np.random.default_rng(4))
    q, r = torch.linalg.qr(torch.from_numpy(a), mode=("reduced", "complete", "r")[mode])
    dq, dr = zeros(tuple(q.shape), np.float64), zeros(tuple(r.shape), np.float64)
    run("aclnnLinalgQr", DeviceTensor(a), ctypes.c_int64(mode), dq, dr)
    np.testing.assert_allclose(result(dr), r.numpy(), atol=1e-12)
    if mode != 2:
        np.testing.assert_allclose(result(dq), q.numpy(), atol=1e-12)


def test_qr_some_and_null_q():
    a = random((3, 5), np.float32, np.random.default_rng(5))
    q, r = torch.linalg.qr(torch.from_numpy(a))
    dq, dr = zeros(tuple(q.shape)), zeros(tuple(r.shape))
    run("aclnnQr", DeviceTensor(a), ctypes.c_bool(True), dq, dr)
    np.testing.assert_allclose(result(dq) @ result(dr), a, atol=1e-5)
    assert call("aclnnQr", DeviceTensor(a), ctypes.c_bool(True), None, dr)[0] == INNER_NULLPTR


@pytest.mark.parametrize("full", [False, True])
def test_svd_like_torch(full):
    a = random((2, 4, 3), np.float64, np.random.default_rng(6))
    u, s, v = torch.svd(torch.from_numpy(a), some=not full)
    ds, du, dv = zeros(tuple(s.shape), np.float64), zeros(tuple(u.shape), np.float64), zeros(tuple(v.shape), np.float64)
    run("aclnnSvd", DeviceTensor(a), ctypes.c_bool(full), ctypes.c_bool(True), ds, du, dv)
    np.testing.assert_allclose(result(ds), s.numpy(), rtol=1e-10)
    k = 3
    rebuilt = result(du)[..., :k] * result(ds)[..., None, :] @ np.swapaxes(result(dv)[..., :k], -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-10)


def test_svd_sigma_shape():
    a = DeviceTensor(np.ones((4, 3), np.float32))
    assert call("aclnnSvd", a, ctypes.c_bool(False), ctypes.c_bool(False), zeros((4,)), zeros((4, 3)),
                zeros((3, 3)))[0] == PARAM_INVALID
    assert "Shape of output tensor sigma is invalid." in recent_error()


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, True, False), (False, False, True)])
def test_triangular_solve_like_torch(upper, transpose, unit):
    rng = np.random.default_rng(7)
    A = random((2, 3, 3), np.float64, rng) + 4 * np.eye(3)
    b = random((3, 2), np.float64, rng)
    x, m = torch.triangular_solve(torch.from_numpy(b), torch.from_numpy(A), upper=upper, transpose=transpose,
                                  unitriangular=unit)
    dx, dm = zeros((2, 3, 2), np.float64), zeros((2, 3, 3), np.float64)
    run("aclnnTriangularSolve", DeviceTensor(b), DeviceTensor(A), ctypes.c_bool(upper), ctypes.c_bool(transpose),
        ctypes.c_bool(unit), dx, dm)
    np.testing.assert_allclose(result(dx), x.numpy(), rtol=1e-10)
    np.testing.assert_array_equal(result(dm), m.numpy())


def test_triangular_solve_sizes():
    dA, db = DeviceTensor(np.eye(3, dtype=np.float32)), DeviceTensor(np.ones((2, 2), np.float32))
    assert call("aclnnTriangularSolve", db, dA, ctypes.c_bool(True), ctypes.c_bool(False), ctypes.c_bool(False),
                zeros((2, 2)), zeros((3, 3)))[0] == PARAM_INVALID
    assert "Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each b matrix is 2 by 2." \
        in recent_error()
