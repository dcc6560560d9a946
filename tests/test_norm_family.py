"""ops-nn norm/: group, batch, instance, fused add/RMS/layer norms and their backward through the C ABI, against
PyTorch CPU (autograd for the backward), with their documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
F = np.float32


def close(actual, expected, dtype, scale=4):
    expected = expected.detach().numpy() if isinstance(expected, torch.Tensor) else expected
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


def zeros(shape, dtype=F):
    return DeviceTensor(np.zeros(shape, dtype))


def I64(v):
    return ctypes.c_int64(v)


@pytest.mark.parametrize("dtype", [F, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_group_norm_like_torch(dtype):
    rng = np.random.default_rng(0)
    x, g, b = random((2, 6, 3, 5), dtype, rng), random((6,), dtype, rng), random((6,), dtype, rng)
    out, mean, rstd = zeros(x.shape, dtype), zeros((2, 3), dtype), zeros((2, 3), dtype)
    assert call("aclnnGroupNorm", DeviceTensor(x), DeviceTensor(g), DeviceTensor(b), I64(2), I64(6), I64(15), I64(3),
                ctypes.c_double(1e-5), out, mean, rstd) == (0, 0, 0), recent_error()
    xt = to_torch(x).float()
    expected = torch.nn.functional.group_norm(xt, 3, to_torch(g).float(), to_torch(b).float(), 1e-5)
    close(result(out).astype(F), expected, dtype)
    grouped = xt.reshape(2, 3, -1)
    close(result(mean).astype(F), grouped.mean(-1), dtype)
    close(result(rstd).astype(F), torch.rsqrt(grouped.var(-1, unbiased=False) + 1e-5), dtype)


def test_group_norm_without_gamma_and_beta_is_plain_normalisation():
    x = random((2, 4, 6), F, np.random.default_rng(1))
    out = zeros(x.shape)
    assert call("aclnnGroupNorm", DeviceTensor(x), None, None, I64(2), I64(4), I64(6), I64(2), ctypes.c_double(1e-5),
                out, zeros((2, 2)), zeros((2, 2))) == (0, 0, 0), recent_error()
    close(result(out), torch.nn.functional.group_norm(to_torch(x), 2, eps=1e-5), F)


@pytest.mark.parametrize("n,c,group,message", [
    (2, 6, 0, "Expected group to be greater than 0, got 0."),
    (2, 5, 3, "Expected number of channels in input to be divisible by group"),
    (3, 6, 3, "Expected self.shape[0] == N to be true, but got false."),
], ids=["group_positive", "channels_divisible", "n_matches"])
def test_group_norm_attribute_checks(n, c, group, message):
    x = DeviceTensor(np.zeros((2, 6, 4), F))
    stats = (n, max(group, 1))
    assert call("aclnnGroupNorm", x, None, None, I64(n), I64(c), I64(4), I64(group), ctypes.c_double(1e-5),
                zeros((2, 6, 4)), zeros(stats), zeros(stats))[0] == PARAM_INVALID
    assert message in recent_error()


def test_group_norm_silu_applies_silu_after_the_norm():
    rng = np.random.default_rng(2)
    x, g, b = random((2, 4, 8), F, rng), random((4,), F, rng), random((4,), F, rng)
    out = zeros(x.shape)
    assert call("aclnnGroupNormSiluV2", DeviceTensor(x), DeviceTensor(g), DeviceTensor(b), I64(2),
                ctypes.c_double(1e-5), ctypes.c_bool(True), out, zeros((2, 2)), zeros((2, 2))) == (0, 0, 0), \
        recent_error()
    expected = torch.nn.functional.silu(torch.nn.functional.group_norm(to_torch(x), 2, to_torch(g), to_torch(b), 1e-5))
    close(result(out), expected, F)


def test_group_norm_backward_like_torch_autograd():
    rng = np.random.default_rng(3)
    x, g, dy = random((2, 4, 6), F, rng), random((4,), F, rng), random((2, 4, 6), F, rng)
    xt, gt = to_torch(x).requires_grad_(), to_torch(g).requires_grad_()
    bt = torch.zeros(4, requires_grad=True)
    y = torch.nn.functional.group_norm(xt, 2, gt, bt, 1e-5)
    y.backward(to_torch(dy))
    grouped = to_torch(x).reshape(2, 2, -1)
    mean = grouped.mean(-1).numpy()
    rstd = torch.rsqrt(grouped.var(-1, unbiased=False) + 1e-5).numpy()
    dx, dg, db = zeros(x.shape), zeros((4,)), zeros((4,))
    mask = _bools([True, True, True])
    assert call("aclnnGroupNormBackward", DeviceTensor(dy), DeviceTensor(x), DeviceTensor(mean), DeviceTensor(rstd),
                DeviceTensor(g), I64(2), I64(4), I64(6), I64(2), mask, dx, dg, db) == (0, 0, 0), recent_error()
    close(result(dx), xt.grad, F)
    close(result(dg), gt.grad, F)
    close(result(db), bt.grad, F)


def _bools(values):
    from acl import lib
    create = lib().aclCreateBoolArray
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    raw = (ctypes.c_bool * len(values))(*values)
    return ctypes.c_void_p(create(raw, len(values)))


@pytest.mark.parametrize("dtype", [F, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_add_rms_norm_writes_the_sum_the_norm_and_rstd(dtype):
    rng = np.random.default_rng(4)
    x1, x2, g = random((3, 4, 16), dtype, rng), random((3, 4, 16), dtype, rng), random((16,), dtype, rng)
    y, rstd, xo = zeros(x1.shape, dtype), zeros((3, 4, 1)), zeros(x1.shape, dtype)
    assert call("aclnnAddRmsNorm", DeviceTensor(x1), DeviceTensor(x2), DeviceTensor(g), ctypes.c_double(1e-6), y,
                rstd, xo) == (0, 0, 0), recent_error()
    total = (to_torch(x1) + to_torch(x2)) if dtype == np.float16 else (to_torch(x1).float() + to_torch(x2).float())
    xf = total.float()
    expected_rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
    close(result(rstd), expected_rstd, F, scale=8)
    close(result(xo).astype(F), total.to(to_torch(x1).dtype).float(), dtype)
    close(result(y).astype(F), xf * expected_rstd * to_torch(g).float(), dtype, scale=8)


def test_inplace_add_rms_norm_leaves_the_norm_in_x1_and_the_sum_in_x2():
    rng = np.random.default_rng(5)
    x1, x2, g = random((2, 8), F, rng), random((2, 8), F, rng), random((8,), F, rng)
    d1, d2 = DeviceTensor(x1), DeviceTensor(x2)
    assert call("aclnnInplaceAddRmsNorm", d1, d2, DeviceTensor(g), ctypes.c_double(1e-6), zeros((2, 1))) == (0, 0, 0), \
        recent_error()
    total = torch.from_numpy(x1 + x2)
    close(result(d2), total, F)
    close(result(d1), torch.nn.functional.rms_norm(total, (8,), to_torch(g), 1e-6), F)


def test_gemma_rms_norm_scales_by_one_plus_gamma():
    rng = np.random.default_rng(6)
    x, g = random((3, 8), F, rng), random((8,), F, rng)
    y = zeros(x.shape)
    assert call("aclnnGemmaRmsNorm", DeviceTensor(x), DeviceTensor(g), ctypes.c_double(1e-6), y, zeros((3, 1))) == \
        (0, 0, 0), recent_error()
    close(result(y), torch.nn.functional.rms_norm(to_torch(x), (8,), 1 + to_torch(g), 1e-6), F)


def test_rms_norm_grad_like_torch_autograd():
    rng = np.random.default_rng(7)
    x, g, dy = random((4, 16), F, rng), random((16,), F, rng), random((4, 16), F, rng)
    xt, gt = to_torch(x).requires_grad_(), to_torch(g).requires_grad_()
    torch.nn.functional.rms_norm(xt, (16,), gt, 1e-6).backward(to_torch(dy))
    rstd = torch.rsqrt(to_torch(x).pow(2).mean(-1, keepdim=True) + 1e-6).numpy()
    dx, dg = zeros(x.shape), zeros((16,))
    assert call("aclnnRmsNormGrad", DeviceTensor(dy), DeviceTensor(x), DeviceTensor(rstd), DeviceTensor(g), dx, dg) == \
        (0, 0, 0), recent_error()
    close(result(dx), xt.grad, F)
    close(result(dg), gt.grad, F)


def test_add_layer_norm_like_torch():
    rng = np.random.default_rng(8)
    x1, x2, g, b, bias = (random(s, F, rng) for s in ((3, 8), (3, 8), (8,), (8,), (8,)))
    y, mean, rstd, xo = zeros((3, 8)), zeros((3, 1)), zeros((3, 1)), zeros((3, 8))
    assert call("aclnnAddLayerNorm", DeviceTensor(x1), DeviceTensor(x2), DeviceTensor(g), DeviceTensor(b),
                DeviceTensor(bias), ctypes.c_double(1e-5), ctypes.c_bool(True), y, mean, rstd, xo) == (0, 0, 0), \
        recent_error()
    total = torch.from_numpy(x1 + x2 + bias)
    close(result(xo), total, F)
    close(result(y), torch.nn.functional.layer_norm(total, (8,), to_torch(g), to_torch(b), 1e-5), F)


def test_deep_norm_normalises_alpha_x_plus_gx():
    rng = np.random.default_rng(9)
    x, gx, b, g = (random(s, F, rng) for s in ((3, 8), (3, 8), (8,), (8,)))
    y = zeros((3, 8))
    assert call("aclnnDeepNorm", DeviceTensor(x), DeviceTensor(gx), DeviceTensor(b), DeviceTensor(g),
                ctypes.c_double(0.5), ctypes.c_double(1e-5), zeros((3, 1)), zeros((3, 1)), y) == (0, 0, 0), \
        recent_error()
    close(result(y), torch.nn.functional.layer_norm(torch.from_numpy(0.5 * x + gx), (8,), to_torch(g), to_torch(b),
                                                     1e-5), F)


def test_add_layer_norm_grad_like_torch_autograd():
    rng = np.random.default_rng(10)
    x1, x2, g, dy = (random(s, F, rng) for s in ((3, 8), (3, 8), (8,), (3, 8)))
    xt, gt, bt = torch.from_numpy(x1 + x2).requires_grad_(), to_torch(g).requires_grad_(), torch.zeros(8,
                                                                                                       requires_grad=True)
    torch.nn.functional.layer_norm(xt, (8,), gt, bt, 1e-5).backward(to_torch(dy))
    total = torch.from_numpy(x1 + x2)
    mean = total.mean(-1, keepdim=True).numpy()
    rstd = torch.rsqrt(total.var(-1, unbiased=False, keepdim=True) + 1e-5).numpy()
    dx, dg, db = zeros((3, 8)), zeros((8,)), zeros((8,))
    assert call("aclnnAddLayerNormGrad", DeviceTensor(dy), DeviceTensor(x1), DeviceTensor(x2), DeviceTensor(rstd),
                DeviceTensor(mean), DeviceTensor(g), None, dx, dg, db) == (0, 0, 0), recent_error()
    close(result(dx), xt.grad, F)
    close(result(dg), gt.grad, F)
    close(result(db), bt.grad, F)


@pytest.mark.parametrize("training", [True, False], ids=["training", "inference"])
def test_batch_norm_like_torch_with_running_statistics(training):
    rng = np.random.default_rng(11)
    x, w, b = random((4, 3, 5), F, rng), random((3,), F, rng), random((3,), F, rng)
    rm, rv = random((3,), F, rng), np.abs(random((3,), F, rng)) + 0.5
    drm, drv = DeviceTensor(rm), DeviceTensor(rv)
    out, sm, si = zeros(x.shape), zeros((3,)), zeros((3,))
    assert call("aclnnBatchNorm", DeviceTensor(x), DeviceTensor(w), DeviceTensor(b), drm, drv, ctypes.c_bool(training),
                ctypes.c_double(0.1), ctypes.c_double(1e-5), out, sm, si) == (0, 0, 0), recent_error()
    trm, trv = torch.from_numpy(rm.copy()), torch.from_numpy(rv.copy())
    expected = torch.nn.functional.batch_norm(to_torch(x), trm, trv, to_torch(w), to_torch(b), training, 0.1, 1e-5)
    close(result(out), expected, F)
    close(result(drm), trm, F)
    close(result(drv), trv, F)


@pytest.mark.parametrize("dtype", [F, np.float16], ids=["float32 (mcDNN's kernel)", "float16"])
def test_batch_norm_backward_like_torch_autograd(dtype):
    rng = np.random.default_rng(12)
    x, w, dy = random((4, 3, 2, 5), dtype, rng), random((3,), dtype, rng), random((4, 3, 2, 5), dtype, rng)
    xt, wt = to_torch(x).float().requires_grad_(), to_torch(w).float().requires_grad_()
    bt = torch.zeros(3, requires_grad=True)
    torch.nn.functional.batch_norm(xt, None, None, wt, bt, True, 0.1, 1e-5).backward(to_torch(dy).float())
    mean = to_torch(x).float().mean((0, 2, 3)).numpy()
    invstd = torch.rsqrt(to_torch(x).float().var((0, 2, 3), unbiased=False) + 1e-5).numpy()
    dx, dw, db = zeros(x.shape, dtype), zeros((3,), dtype), zeros((3,), dtype)
    assert call("aclnnBatchNormBackward", DeviceTensor(dy), DeviceTensor(x), DeviceTensor(w), None, None,
                DeviceTensor(mean.astype(dtype)), DeviceTensor(invstd.astype(dtype)), ctypes.c_bool(True),
                ctypes.c_double(1e-5), _bools([True, True, True]), dx, dw, db) == (0, 0, 0), recent_error()
    close(result(dx), xt.grad, dtype)
    close(result(dw), wt.grad, dtype)
    close(result(db), bt.grad, dtype)


def test_batch_norm_backward_writes_only_the_masked_gradients():
    rng = np.random.default_rng(12)
    x, w, dy = random((4, 3, 5), F, rng), random((3,), F, rng), random((4, 3, 5), F, rng)
    mean, invstd = x.mean((0, 2)), 1 / np.sqrt(x.var((0, 2)) + 1e-5)
    dx, dw, db = DeviceTensor(np.full(x.shape, 7, F)), zeros((3,)), zeros((3,))
    assert call("aclnnBatchNormBackward", DeviceTensor(dy), DeviceTensor(x), DeviceTensor(w), None, None,
                DeviceTensor(mean.astype(F)), DeviceTensor(invstd.astype(F)), ctypes.c_bool(True),
                ctypes.c_double(1e-5), _bools([False, True, True]), dx, dw, db) == (0, 0, 0), recent_error()
    assert (result(dx) == 7).all()
    xhat = (x - mean[None, :, None]) * invstd[None, :, None]
    close(result(dw), (dy * xhat).sum((0, 2)), F)
    close(result(db), dy.sum((0, 2)), F)


def test_instance_norm_like_torch():
    rng = np.random.default_rng(13)
    x, g, b = random((2, 3, 4, 5), F, rng), random((3,), F, rng), random((3,), F, rng)
    y = zeros(x.shape)
    assert call("aclnnInstanceNorm", DeviceTensor(x), DeviceTensor(g), DeviceTensor(b), b"NCHW", ctypes.c_double(1e-5),
                y, zeros((2, 3, 1, 1)), zeros((2, 3, 1, 1))) == (0, 0, 0), recent_error()
    close(result(y), torch.nn.functional.instance_norm(to_torch(x), weight=to_torch(g), bias=to_torch(b), eps=1e-5), F)


def test_renorm_like_torch():
    x = random((4, 5), F, np.random.default_rng(14))
    out = zeros(x.shape)
    assert call("aclnnRenorm", DeviceTensor(x), scalar(2.0, F), I64(0), scalar(1.5, F), out) == (0, 0, 0), \
        recent_error()
    close(result(out), torch.renorm(to_torch(x), 2, 0, 1.5), F)


def test_layer_norm_with_impl_mode_keep_fp16_needs_fp16_inputs():
    x = DeviceTensor(np.zeros((2, 4), F))
    from acl_args import int_array
    assert call("aclnnLayerNormWithImplMode", x, int_array([4]), None, None, ctypes.c_double(1e-5),
                zeros((2, 4)), None, None, ctypes.c_int32(2))[0] == PARAM_INVALID
    assert "KEEP_FP16 only support all input dtype float16!" in recent_error()


def test_add_rms_norm_null_gamma_is_refused():
    x = DeviceTensor(np.zeros((2, 4), F))
    assert call("aclnnAddRmsNorm", x, x, None, ctypes.c_double(1e-6), zeros((2, 4)), zeros((2, 1)),
                zeros((2, 4)))[0] == PARAM_NULLPTR
    assert "argument gamma" in recent_error()


def test_rms_norm_quant_rounds_the_scaled_norm_to_int8():
    rng = np.random.default_rng(15)
    x, g, b = random((3, 16), np.float16, rng), random((16,), np.float16, rng), random((16,), np.float16, rng)
    scale, offset = np.array([0.05], np.float16), np.array([3], np.int8)
    y = DeviceTensor(np.zeros((3, 16), np.int8))
    assert call("aclnnRmsNormQuant", DeviceTensor(x), DeviceTensor(g), DeviceTensor(b), DeviceTensor(scale),
                DeviceTensor(offset), ctypes.c_double(1e-6), y) == (0, 0, 0), recent_error()
    xf = x.astype(np.float64)
    norm = xf / np.sqrt((xf ** 2).mean(-1, keepdims=True) + 1e-6) * g + b
    expected = np.clip(np.rint(norm / 0.05 + 3), -128, 127)
    assert np.abs(result(y).astype(np.int64) - expected).max() <= 1


def test_add_rms_norm_dynamic_quant_scales_each_row_by_its_max():
    rng = np.random.default_rng(16)
    x1, x2, g = random((3, 32), np.float16, rng), random((3, 32), np.float16, rng), random((32,), np.float16, rng)
    y1, y2 = DeviceTensor(np.zeros((3, 32), np.int8)), DeviceTensor(np.zeros((3, 32), np.int8))
    s1, s2 = zeros((3,)), zeros((3,))
    assert call("aclnnAddRmsNormDynamicQuant", DeviceTensor(x1), DeviceTensor(x2), DeviceTensor(g), None, None,
                ctypes.c_double(1e-6), y1, y2, zeros((3, 32), np.float16), s1, s2) == (0, 0, 0), recent_error()
    xf = (x1 + x2).astype(np.float64)
    norm = xf / np.sqrt((xf ** 2).mean(-1, keepdims=True) + 1e-6) * g
    expected_scale = np.abs(norm).max(-1) / 127
    np.testing.assert_allclose(result(s1), expected_scale, rtol=4e-3)
    assert np.abs(result(y1) - np.rint(norm / expected_scale[:, None])).max() <= 1


def test_rms_norm_quant_takes_a_2d_gamma_as_its_row():
    rng = np.random.default_rng(17)
    x, g, b = random((3, 5), np.float16, rng), random((1, 5), np.float16, rng), random((1, 5), np.float16, rng)
    y = DeviceTensor(np.zeros((3, 5), np.int8))
    assert call("aclnnRmsNormQuant", DeviceTensor(x), DeviceTensor(g), DeviceTensor(b),
                DeviceTensor(np.array([0.1], np.float16)), DeviceTensor(np.array([0], np.int8)), ctypes.c_double(1e-6),
                y) == (0, 0, 0), recent_error()
    xf = x.astype(np.float64)
    norm = xf / np.sqrt((xf ** 2).mean(-1, keepdims=True) + 1e-6) * g[0] + b[0]
    assert np.abs(result(y) - np.clip(np.rint(norm / np.float16(0.1).astype(np.float64)), -128, 127)).max() <= 1


def test_batch_norm_elemt_backward_like_torch():
    rng = np.random.default_rng(18)
    dy, x, w = random((3, 2, 4), F, rng), random((3, 2, 4), F, rng), random((2,), F, rng)
    mean, invstd = x.mean((0, 2)), 1 / np.sqrt(x.var((0, 2)) + 1e-5)
    sum_dy = dy.sum((0, 2))
    sum_dy_xmu = (dy * (x - mean[None, :, None])).sum((0, 2))
    counter = np.array([12.0], F)
    dx = zeros(x.shape)
    assert call("aclnnBatchNormElemtBackward", DeviceTensor(dy), DeviceTensor(x), DeviceTensor(mean.astype(F)),
                DeviceTensor(invstd.astype(F)), DeviceTensor(w), DeviceTensor(sum_dy.astype(F)),
                DeviceTensor(sum_dy_xmu.astype(F)), DeviceTensor(counter), dx) == (0, 0, 0), recent_error()
    # torch has this operator on CUDA only: its formula (Normalization.cuh) in float64
    mean_dy, mean_dy_xmu = sum_dy / 12, sum_dy_xmu / 12
    xmu = x.astype(np.float64) - mean[None, :, None]
    expected = ((dy - mean_dy[None, :, None] - xmu * (invstd ** 2 * mean_dy_xmu)[None, :, None])
                * (invstd * w)[None, :, None])
    close(result(dx), expected, F)
