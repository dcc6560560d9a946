"""mcBLASLt: mcblasLtMatmul against PyTorch (addmm with bias, ReLU, GELU by the tanh approximation, and the
gradients autograd gives), the auxiliary outputs and gradient epilogues, layouts (ROW order, batches,
Init in the program's storage), the heuristic and algorithm queries, mcblasLtMatrixTransform, and the
documented statuses."""
import ctypes

import numpy as np
import pytest
import torch

from blas import INVALID_VALUE, NOT_INITIALIZED, NOT_SUPPORTED, SUCCESS, Buffer, recent_error
from conftest import opemu_only
from lt import (COMPUTE_16F, COMPUTE_32F, COMPUTE_64F, DESC_AUX, DESC_AUX_LD, DESC_BIAS, DESC_POINTER_MODE, EPI,
                LAYOUT_LD, LAYOUT_ROWS, ORDER_COL32, ORDER_COL32_2R_4R4, ORDER_ROW, R_16BF, R_16F, R_32F, R_64F,
                TYPES, Handle, Layout, MatmulDesc, c_void_p, call, column_major, lib, read_column_major, scalar_ref,
                set_attribute)

pytestmark = [opemu_only]
KEEP = []


@pytest.fixture(scope="module")
def lt():
    h = Handle()
    yield h.handle
    h.destroy()


def matmul(lt, desc, a, b, c, d, layouts, alpha=1.0, beta=0.0, scale=np.float32, algo=None):
    la, lb, lc, ld = layouts
    return call("mcblasLtMatmul", lt, desc.handle, scalar_ref(alpha, scale, KEEP), a.pointer, la.handle, b.pointer,
                lb.handle, scalar_ref(beta, scale, KEEP), c.pointer, lc.handle, d.pointer, ld.handle, algo, None,
                ctypes.c_size_t(0), None)


def problem(m, n, k, code=R_32F, seed=0):
    rng = np.random.default_rng(seed)
    a, b, c = rng.standard_normal((m, k)), rng.standard_normal((k, n)), rng.standard_normal((m, n))
    t = TYPES[code]
    return [x.astype(t).astype(np.float64) for x in (a, b, c)]


def synchronize():
    assert lib().mcDeviceSynchronize() == 0


@pytest.mark.parametrize("epilogue", ["DEFAULT", "RELU", "BIAS", "RELU_BIAS", "GELU", "GELU_BIAS"])
def test_matmul_epilogue_matches_torch(lt, epilogue):
    m, n, k = 13, 9, 17
    a, b, c = problem(m, n, k, seed=1)
    bias = np.linspace(-1, 1, m)
    desc = MatmulDesc(COMPUTE_32F, R_32F, epilogue=epilogue)
    dbias = Buffer(m, np.float32, values=bias.astype(np.float32))
    desc.pointer(DESC_BIAS, dbias)
    da, db, dc, dd = (column_major(x, np.float32) for x in (a, b, c, np.zeros((m, n))))
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (a, b, c, c)]
    assert matmul(lt, desc, da, db, dc, dd, layouts, 0.75, 0.5) == SUCCESS, recent_error()
    synchronize()
    t = 0.75 * torch.tensor(a) @ torch.tensor(b) + 0.5 * torch.tensor(c)
    if "BIAS" in epilogue:
        t = t + torch.tensor(bias)[:, None]
    if "RELU" in epilogue:
        t = torch.relu(t)
    if "GELU" in epilogue:
        t = torch.nn.functional.gelu(t, approximate="tanh")
    np.testing.assert_allclose(read_column_major(dd, m, n), t.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("code,compute,tolerance", [(R_16F, COMPUTE_32F, 2e-3), (R_16BF, COMPUTE_32F, 1.6e-2),
                                                    (R_64F, COMPUTE_64F, 1e-12), (R_16F, COMPUTE_16F, 2e-3)])
def test_matmul_bias_relu_in_each_precision(lt, code, compute, tolerance):
    m, n, k = 8, 7, 16
    a, b, _ = problem(m, n, k, code, seed=2)
    bias = np.linspace(-0.5, 0.5, m).astype(TYPES[code]).astype(np.float64)
    scale = {COMPUTE_16F: np.float16, COMPUTE_64F: np.float64}.get(compute, np.float32)
    scale_code = {COMPUTE_16F: R_16F, COMPUTE_64F: R_64F}.get(compute, R_32F)
    desc = MatmulDesc(compute, scale_code, epilogue="RELU_BIAS")
    dbias = Buffer(m, TYPES[code], values=bias.astype(TYPES[code]))
    desc.pointer(DESC_BIAS, dbias)
    da, db, dd = column_major(a, TYPES[code]), column_major(b, TYPES[code]), column_major(np.zeros((m, n)), TYPES[code])
    layouts = [Layout(code, *x.shape, x.shape[0]) for x in (a, b, np.zeros((m, n)), np.zeros((m, n)))]
    assert matmul(lt, desc, da, db, dd, dd, layouts, scale=scale) == SUCCESS, recent_error()
    synchronize()
    expected = np.maximum(a @ b + bias[:, None], 0)
    np.testing.assert_allclose(read_column_major(dd, m, n).astype(np.float64), expected, rtol=tolerance,
                               atol=tolerance * 4)


def test_relu_aux_mask_then_drelu_bgrad_give_torchs_gradients(lt):
    m, n, k = 128, 6, 10
    a, b, _ = problem(m, n, k, seed=3)
    bias = np.linspace(-1, 1, m)
    aux_ld = 128
    mask = Buffer(aux_ld * n // 8, np.uint8, values=np.zeros(aux_ld * n // 8))
    forward = MatmulDesc(COMPUTE_32F, R_32F, epilogue="RELU_AUX_BIAS")
    dbias = Buffer(m, np.float32, values=bias.astype(np.float32))
    forward.pointer(DESC_BIAS, dbias)
    forward.pointer(DESC_AUX, mask)
    forward.set(DESC_AUX_LD, aux_ld, ctypes.c_int64)
    da, db, dd = column_major(a, np.float32), column_major(b, np.float32), column_major(np.zeros((m, n)), np.float32)
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (a, b, np.zeros((m, n)), np.zeros((m, n)))]
    assert matmul(lt, forward, da, db, dd, dd, layouts) == SUCCESS, recent_error()
    synchronize()
    pre = a @ b + bias[:, None]
    bits = np.unpackbits(mask.read(), bitorder="little").reshape(n, aux_ld)[:, :m].T
    np.testing.assert_array_equal(bits.astype(bool), pre > 0)
    # backward: dX^T-style product g = dY (m x k2) times W (k2 x n), masked by the forward's ReLU
    grad_out = problem(m, n, 5, seed=4)
    g_a, g_b = grad_out[0], grad_out[1]
    backward = MatmulDesc(COMPUTE_32F, R_32F, epilogue="DRELU_BGRAD")
    dbgrad = Buffer(m, np.float32)
    backward.pointer(DESC_BIAS, dbgrad)
    backward.pointer(DESC_AUX, mask)
    backward.set(DESC_AUX_LD, aux_ld, ctypes.c_int64)
    dga, dgb, dout = column_major(g_a, np.float32), column_major(g_b, np.float32), column_major(np.zeros((m, n)),
                                                                                                np.float32)
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (g_a, g_b, np.zeros((m, n)), np.zeros((m, n)))]
    assert matmul(lt, backward, dga, dgb, dout, dout, layouts) == SUCCESS, recent_error()
    synchronize()
    x = torch.tensor(pre, requires_grad=True)
    torch.relu(x).backward(torch.tensor(g_a @ g_b))
    np.testing.assert_allclose(read_column_major(dout, m, n), x.grad.numpy(), rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(dbgrad.read()[:m], x.grad.numpy().sum(axis=1), rtol=2e-4, atol=2e-4)


def test_gelu_aux_keeps_the_input_and_dgelu_bgrad_gives_torchs_gradient(lt):
    m, n, k = 16, 5, 7
    a, b, _ = problem(m, n, k, seed=5)
    aux = Buffer(16 * n, np.float32)
    forward = MatmulDesc(COMPUTE_32F, R_32F, epilogue="GELU_AUX")
    forward.pointer(DESC_AUX, aux)
    forward.set(DESC_AUX_LD, 16, ctypes.c_int64)
    da, db, dd = column_major(a, np.float32), column_major(b, np.float32), column_major(np.zeros((m, n)), np.float32)
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (a, b, np.zeros((m, n)), np.zeros((m, n)))]
    assert matmul(lt, forward, da, db, dd, dd, layouts) == SUCCESS, recent_error()
    synchronize()
    np.testing.assert_allclose(read_column_major(aux, m, n, 16), a @ b, rtol=2e-5, atol=2e-5)
    g = problem(m, n, 3, seed=6)
    backward = MatmulDesc(COMPUTE_32F, R_32F, epilogue="DGELU_BGRAD")
    dbgrad = Buffer(m, np.float32)
    backward.pointer(DESC_BIAS, dbgrad)
    backward.pointer(DESC_AUX, aux)
    backward.set(DESC_AUX_LD, 16, ctypes.c_int64)
    dga, dgb, dout = column_major(g[0], np.float32), column_major(g[1], np.float32), column_major(np.zeros((m, n)),
                                                                                                  np.float32)
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (g[0], g[1], np.zeros((m, n)), np.zeros((m, n)))]
    assert matmul(lt, backward, dga, dgb, dout, dout, layouts) == SUCCESS, recent_error()
    synchronize()
    x = torch.tensor(a @ b, requires_grad=True)
    torch.nn.functional.gelu(x, approximate="tanh").backward(torch.tensor(g[0] @ g[1]))
    np.testing.assert_allclose(read_column_major(dout, m, n), x.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dbgrad.read()[:m], x.grad.numpy().sum(axis=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("epilogue,axis", [("BGRADA", 1), ("BGRADB", 0)])
def test_bias_gradient_of_an_operand(lt, epilogue, axis):
    m, n, k = 6, 5, 8
    a, b, _ = problem(m, n, k, seed=7)
    desc = MatmulDesc(COMPUTE_32F, R_32F, epilogue=epilogue)
    dbgrad = Buffer(m if axis == 1 else n, np.float32)
    desc.pointer(DESC_BIAS, dbgrad)
    da, db, dd = column_major(a, np.float32), column_major(b, np.float32), column_major(np.zeros((m, n)), np.float32)
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (a, b, np.zeros((m, n)), np.zeros((m, n)))]
    assert matmul(lt, desc, da, db, dd, dd, layouts) == SUCCESS, recent_error()
    synchronize()
    np.testing.assert_allclose(read_column_major(dd, m, n), a @ b, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(dbgrad.read()[:dbgrad.count], (a if axis == 1 else b).sum(axis=axis), rtol=2e-5,
                               atol=2e-5)


def test_row_order_transposes_and_strided_batches(lt):
    m, n, k, batch = 4, 3, 5, 3
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((batch, k, m)), rng.standard_normal((batch, n, k))   # stored for op = T
    desc = MatmulDesc(COMPUTE_32F, R_32F, transa=1, transb=1)
    # A, B row-major k x m and n x k; D row-major m x n
    da = Buffer(a.size, np.float32, values=a.ravel().astype(np.float32))
    db = Buffer(b.size, np.float32, values=b.ravel().astype(np.float32))
    dd = Buffer(batch * m * n, np.float32)
    layouts = [Layout(R_32F, k, m, m, ORDER_ROW, batch, k * m), Layout(R_32F, n, k, k, ORDER_ROW, batch, n * k),
               Layout(R_32F, m, n, n, ORDER_ROW, batch, m * n), Layout(R_32F, m, n, n, ORDER_ROW, batch, m * n)]
    assert matmul(lt, desc, da, db, dd, dd, layouts) == SUCCESS, recent_error()
    synchronize()
    expected = np.swapaxes(a, 1, 2) @ np.swapaxes(b, 1, 2)
    np.testing.assert_allclose(dd.read().reshape(batch, m, n), expected, rtol=2e-5, atol=2e-5)


def test_device_vector_alpha_scales_each_row(lt):
    m, n, k = 5, 4, 3
    a, b, c = problem(m, n, k, seed=9)
    alphas, betas = np.arange(1, m + 1, dtype=np.float32), np.full(m, 0.5, np.float32)
    desc = MatmulDesc(COMPUTE_32F, R_32F)
    desc.set(DESC_POINTER_MODE, 2)   # MCBLASLT_POINTER_MODE_DEVICE_VECTOR
    dalpha, dbeta = Buffer(m, np.float32, values=alphas), Buffer(m, np.float32, values=betas)
    da, db, dc, dd = (column_major(x, np.float32) for x in (a, b, c, np.zeros((m, n))))
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (a, b, c, c)]
    assert call("mcblasLtMatmul", lt, desc.handle, dalpha.pointer, da.pointer, layouts[0].handle, db.pointer,
                layouts[1].handle, dbeta.pointer, dc.pointer, layouts[2].handle, dd.pointer, layouts[3].handle, None,
                None, ctypes.c_size_t(0), None) == SUCCESS, recent_error()
    synchronize()
    np.testing.assert_allclose(read_column_major(dd, m, n), alphas[:, None] * (a @ b) + 0.5 * c, rtol=2e-5, atol=2e-5)


class Result(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("workspaceSize", ctypes.c_size_t), ("state", ctypes.c_int),
                ("wavesCount", ctypes.c_float), ("reserved", ctypes.c_int * 4)]


def test_heuristic_gives_an_algorithm_the_matmul_and_check_accept(lt):
    m, n, k = 6, 4, 5
    a, b, c = problem(m, n, k, seed=10)
    desc = MatmulDesc(COMPUTE_32F, R_32F, epilogue="DEFAULT")
    layouts = [Layout(R_32F, *x.shape, x.shape[0]) for x in (a, b, c, c)]
    pref = c_void_p()
    assert lib().mcblasLtMatmulPreferenceCreate(ctypes.byref(pref)) == 0
    results, count = (Result * 4)(), ctypes.c_int(-1)
    assert call("mcblasLtMatmulAlgoGetHeuristic", lt, desc.handle, *[l.handle for l in layouts], pref, 4, results,
                ctypes.byref(count)) == SUCCESS, recent_error()
    assert count.value == 1 and results[0].state == 0 and results[0].workspaceSize == 0
    checked = Result()
    assert call("mcblasLtMatmulAlgoCheck", lt, desc.handle, *[l.handle for l in layouts], ctypes.byref(results[0].algo),
                ctypes.byref(checked)) == SUCCESS, recent_error()
    da, db, dc, dd = (column_major(x, np.float32) for x in (a, b, c, np.zeros((m, n))))
    assert matmul(lt, desc, da, db, dc, dd, layouts, algo=ctypes.byref(results[0].algo)) == SUCCESS
    synchronize()
    np.testing.assert_allclose(read_column_major(dd, m, n), a @ b, rtol=2e-5, atol=2e-5)
    epilogues, written = ctypes.c_uint32(), ctypes.c_size_t()
    assert lib().mcblasLtMatmulAlgoCapGetAttribute(ctypes.byref(results[0].algo), 12, ctypes.byref(epilogues), 4,
                                                   ctypes.byref(written)) == SUCCESS
    assert epilogues.value & EPI["GELU"] and written.value == 4
    assert lib().mcblasLtMatmulPreferenceDestroy(pref) == 0


def test_algo_get_ids_and_init(lt):
    ids, count = (ctypes.c_int * 4)(), ctypes.c_int()
    assert call("mcblasLtMatmulAlgoGetIds", lt, COMPUTE_32F, R_32F, R_32F, R_32F, R_32F, R_32F, 4, ids,
                ctypes.byref(count)) == SUCCESS
    assert count.value == 1 and ids[0] == 0
    algo = (ctypes.c_uint64 * 8)()
    assert call("mcblasLtMatmulAlgoInit", lt, COMPUTE_32F, R_32F, R_32F, R_32F, R_32F, R_32F, 0, algo) == SUCCESS
    assert call("mcblasLtMatmulAlgoInit", lt, COMPUTE_32F, R_32F, R_32F, R_32F, R_32F, R_32F, 7, algo) == INVALID_VALUE
    assert call("mcblasLtMatmulAlgoInit", lt, COMPUTE_64F, R_32F, R_32F, R_32F, R_32F, R_32F, 0,
                algo) == NOT_SUPPORTED


def test_layout_attributes_and_init_in_the_programs_storage():
    storage = (ctypes.c_uint64 * 8)()
    assert lib().mcblasLtMatrixLayoutInit_internal(storage, ctypes.sizeof(storage), R_32F, 3, 4, 5) == SUCCESS
    value, written = ctypes.c_uint64(), ctypes.c_size_t()
    assert lib().mcblasLtMatrixLayoutGetAttribute(storage, LAYOUT_ROWS, ctypes.byref(value), 8,
                                                  ctypes.byref(written)) == SUCCESS
    assert value.value == 3 and written.value == 8
    assert lib().mcblasLtMatrixLayoutGetAttribute(storage, LAYOUT_LD, None, 0, ctypes.byref(written)) == SUCCESS
    assert written.value == 8
    assert set_attribute("mcblasLtMatrixLayoutSetAttribute", storage, LAYOUT_LD, 9, ctypes.c_int32) == INVALID_VALUE
    small = (ctypes.c_uint64 * 2)()
    assert lib().mcblasLtMatrixLayoutInit_internal(small, ctypes.sizeof(small), R_32F, 3, 4, 5) == 3  # ALLOC_FAILED


def test_init_in_storage_that_is_not_writable_memory_is_invalid():
    wild = ctypes.c_void_p(0x10)
    assert lib().mcblasLtMatrixLayoutInit_internal(wild, 64, R_32F, 3, 4, 5) == INVALID_VALUE


def test_a_destroyed_handle_is_not_initialized(lt):
    dead = Handle()
    dead.destroy()
    desc = MatmulDesc(COMPUTE_32F, R_32F)
    layouts = [Layout(R_32F, 2, 2, 2) for _ in range(4)]
    buffers = [Buffer(4, np.float32) for _ in range(4)]
    assert matmul(dead.handle, desc, *buffers, layouts) == NOT_INITIALIZED


def test_mismatched_dimensions_are_invalid_and_unsupported_types_not_supported(lt):
    buffers = [Buffer(64, np.float32) for _ in range(4)]
    desc = MatmulDesc(COMPUTE_32F, R_32F)
    bad = [Layout(R_32F, 4, 3, 4), Layout(R_32F, 2, 5, 2), Layout(R_32F, 4, 5, 4), Layout(R_32F, 4, 5, 4)]
    assert matmul(lt, desc, *buffers, bad) == INVALID_VALUE
    assert "inner dimensions" in recent_error()
    wrong_scale = MatmulDesc(COMPUTE_32F, R_64F)
    good = [Layout(R_32F, 4, 3, 4), Layout(R_32F, 3, 5, 3), Layout(R_32F, 4, 5, 4), Layout(R_32F, 4, 5, 4)]
    assert matmul(lt, wrong_scale, *buffers, good, scale=np.float64) == NOT_SUPPORTED


def test_relu_aux_needs_a_leading_dimension_multiple_of_128(lt):
    buffers = [Buffer(64, np.float32) for _ in range(4)]
    desc = MatmulDesc(COMPUTE_32F, R_32F, epilogue="RELU_AUX")
    desc.pointer(DESC_AUX, Buffer(64, np.uint8))
    desc.set(DESC_AUX_LD, 64, ctypes.c_int64)
    layouts = [Layout(R_32F, 4, 3, 4), Layout(R_32F, 3, 5, 3), Layout(R_32F, 4, 5, 4), Layout(R_32F, 4, 5, 4)]
    assert matmul(lt, desc, *buffers, layouts) == INVALID_VALUE
    assert "multiple of 128" in recent_error()


@pytest.mark.parametrize("order,ld", [(ORDER_ROW, 5), (ORDER_COL32, 32 * 4), (ORDER_COL32_2R_4R4, 32 * 32)])
def test_matrix_transform_reorders_and_back(lt, order, ld):
    m, n = 4, 5
    a = np.arange(m * n, dtype=np.float32).reshape(m, n) - 7
    transform = c_void_p()
    assert lib().mcblasLtMatrixTransformDescCreate(ctypes.byref(transform), R_32F) == SUCCESS
    src, tiled, back = column_major(a, np.float32), Buffer(ld * 32, np.float32, fill=0), Buffer(m * n, np.float32)
    lsrc, ltiled = Layout(R_32F, m, n, m), Layout(R_32F, m, n, ld, order)
    assert call("mcblasLtMatrixTransform", lt, transform, scalar_ref(2.0, np.float32, KEEP), src.pointer, lsrc.handle,
                scalar_ref(0.0, np.float32, KEEP), None, None, tiled.pointer, ltiled.handle, None) == SUCCESS, \
        recent_error()
    assert call("mcblasLtMatrixTransform", lt, transform, scalar_ref(0.5, np.float32, KEEP), tiled.pointer,
                ltiled.handle, scalar_ref(0.0, np.float32, KEEP), None, None, back.pointer, lsrc.handle,
                None) == SUCCESS, recent_error()
    synchronize()
    np.testing.assert_array_equal(read_column_major(back, m, n), a)
    if order == ORDER_ROW:
        np.testing.assert_array_equal(tiled.read()[:m * n].reshape(m, n), 2 * a)
    assert lib().mcblasLtMatrixTransformDescDestroy(transform) == SUCCESS


def test_versions_and_status_names():
    assert lib().mcblasLtGetVersion() > 0
    assert lib().mcblasLtGetStatusName(7) == b"MCBLAS_STATUS_INVALID_VALUE"
