"""ops-math's operators of training steps (BatchNormStats, AmpUpdateScale, GroupedBiasAddGrad(V2), AffineGrid,
CdistBackward, ExpSegsum and its backward, SignBitsPack/Unpack) through the C ABI against PyTorch CPU or a
float64 reference, with their documented checks."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, int_array, random, result

PARAM_INVALID = 161002


def run(op, *arguments):
    assert call(op, *arguments) == (0, 0, 0), recent_error()


def zeros(shape, dtype=np.float32):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return DeviceTensor(np.zeros(shape, dtype), shape=shape)


def code(dtype):
    return ctypes.c_int(DeviceTensor(np.zeros(1, dtype)).code)


def test_batch_norm_stats_like_torch():
    x = random((4, 3, 5), np.float32, np.random.default_rng(0))
    dm, di = zeros(3), zeros(3)
    run("aclnnBatchNormStats", DeviceTensor(x), ctypes.c_double(1e-5), dm, di)
    t = torch.from_numpy(x).double()
    mean = t.mean((0, 2))
    invstd = 1 / torch.sqrt(t.var((0, 2), correction=0) + 1e-5)   # batch_norm_stats has no CPU kernel
    np.testing.assert_allclose(result(dm), mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result(di), invstd.numpy(), rtol=1e-5)


@pytest.mark.parametrize("found_inf,tracker,expected", [(1.0, 3, (0.5, 0)), (0.0, 1, (8.0, 0)), (0.0, 0, (4.0, 1))])
def test_amp_update_scale_like_torch(found_inf, tracker, expected):
    scale, growth = DeviceTensor(np.array([4.0], np.float32)), DeviceTensor(np.array([tracker], np.int32))
    inf = DeviceTensor(np.array([found_inf], np.float32))
    run("aclnnAmpUpdateScale", scale, growth, inf, ctypes.c_double(2.0), ctypes.c_double(0.125), ctypes.c_int64(2),
        scale, growth)
    assert (float(result(scale)[0]), int(result(growth)[0])) == expected


def test_grouped_bias_add_grad_by_groups_and_counts():
    y = random((6, 4), np.float32, np.random.default_rng(1))
    do = zeros((3, 4))
    run("aclnnGroupedBiasAddGradV2", DeviceTensor(y), DeviceTensor(np.array([1, 2, 3], np.int64)), ctypes.c_int64(1), do)
    np.testing.assert_allclose(result(do), [y[:1].sum(0), y[1:3].sum(0), y[3:].sum(0)], rtol=1e-6)
    run("aclnnGroupedBiasAddGrad", DeviceTensor(y), DeviceTensor(np.array([2, 2, 6], np.int32)), do)
    np.testing.assert_allclose(result(do), [y[:2].sum(0), np.zeros(4), y[2:].sum(0)], rtol=1e-6)
    y3 = random((2, 3, 4), np.float32, np.random.default_rng(2))
    d3 = zeros((2, 4))
    run("aclnnGroupedBiasAddGrad", DeviceTensor(y3), None, d3)
    np.testing.assert_allclose(result(d3), y3.sum(1), rtol=1e-6)


def test_grouped_bias_add_grad_needs_3d_without_groups():
    assert call("aclnnGroupedBiasAddGrad", DeviceTensor(np.ones((2, 3), np.float32)), None, zeros((2, 3)))[0] \
        == PARAM_INVALID
    assert "the grad_y of input should be 3D tensor when group_idx is null." in recent_error()


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(2, 1, 3, 4), (1, 1, 2, 3, 4)])
def test_affine_grid_like_torch(size, align):
    rng = np.random.default_rng(3)
    theta = random((size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4), np.float32, rng)
    expected = torch.nn.functional.affine_grid(torch.from_numpy(theta), list(size), align_corners=align)
    do = zeros(tuple(expected.shape))
    run("aclnnAffineGrid", DeviceTensor(theta), int_array(list(size)), ctypes.c_bool(align), do)
    np.testing.assert_allclose(result(do), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_cdist_backward_like_torch(p):
    rng = np.random.default_rng(4)
    x1 = torch.from_numpy(random((4, 3), np.float32, rng)).requires_grad_()
    x2 = torch.from_numpy(random((5, 3), np.float32, rng))
    dist = torch.cdist(x1, x2, p)
    grad = torch.from_numpy(random((4, 5), np.float32, rng))
    dist.backward(grad)
    do = zeros((4, 3))
    run("aclnnCdistBackward", DeviceTensor(grad.numpy()), DeviceTensor(x1.detach().numpy()), DeviceTensor(x2.numpy()),
        DeviceTensor(dist.detach().numpy()), ctypes.c_float(p), do)
    np.testing.assert_allclose(result(do), x1.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_exp_segsum_and_backward_against_float64():
    x = torch.from_numpy(random((2, 3, 5), np.float32, np.random.default_rng(5), -1, 1)).double().requires_grad_()
    t = 5
    cs = torch.cumsum(x, -1)
    out = torch.where(torch.tril(torch.ones(t, t, dtype=torch.bool)), torch.exp(cs[..., :, None] - cs[..., None, :]),
                      torch.zeros((), dtype=torch.float64))
    do = zeros((2, 3, 5, 5))
    run("aclnnExpSegsum", DeviceTensor(x.detach().numpy().astype(np.float32)), do)
    np.testing.assert_allclose(result(do), out.detach().numpy(), rtol=1e-5, atol=1e-6)
    grad = torch.from_numpy(random((2, 3, 5, 5), np.float32, np.random.default_rng(6))).double()
    out.backward(grad)
    dg = zeros((2, 3, 5))
    run("aclnnExpSegsumBackward", DeviceTensor(grad.numpy().astype(np.float32)), DeviceTensor(result(do).copy()), dg)
    np.testing.assert_allclose(result(dg), x.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_sign_bits_pack_and_unpack():
    x = np.array([5, 4, 3, 2, 0, -1, -2, 4, 3, 2, 1, 0, -1, -2], np.float32)
    do = zeros((2, 1), np.uint8)
    run("aclnnSignBitsPack", DeviceTensor(x), ctypes.c_int64(2), do)
    np.testing.assert_array_equal(result(do), [[159], [15]])
    du = zeros((2, 8))
    run("aclnnSignBitsUnpack", DeviceTensor(result(do).reshape(-1).copy()), ctypes.c_int64(2), code(np.float32), du)
    np.testing.assert_array_equal(result(du).reshape(-1)[:14], np.where(x >= 0, 1.0, -1.0))


def test_sign_bits_pack_size_must_divide():
    x = DeviceTensor(np.ones(24, np.float32))
    assert call("aclnnSignBitsPack", x, ctypes.c_int64(2), zeros((2, 1), np.uint8))[0] == PARAM_INVALID
    assert "The number of packed bytes 3 cannot be divided by size 2." in recent_error()


def test_sign_bits_pack_is_refused_on_the_910(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    assert call("aclnnSignBitsPack", DeviceTensor(np.ones(8, np.float32)), ctypes.c_int64(1),
                zeros((1, 1), np.uint8))[0] == PARAM_INVALID
    assert "SignBitsPack is unsupported by the current SOC version" in recent_error()


def test_sinkhorn_balances_rows_and_columns():
    cost = random((4, 6), np.float32, np.random.default_rng(7), -1, 1)
    dp = zeros((4, 6))
    from acl_args import scalar
    run("aclnnSinkhorn", DeviceTensor(cost), scalar(1e-6, np.float32), dp)
    p = result(dp).astype(np.float64)
    np.testing.assert_allclose(p.sum(0), np.full(6, 1 / 6), rtol=1e-4)
    np.testing.assert_allclose(p.sum(1), np.full(4, 1 / 4), rtol=1e-3)


def test_transform_bias_rescale_qkv_like_torch():
    rng = np.random.default_rng(8)
    qkv, bias = random((2, 3, 12), np.float32, rng), random(12, np.float32, rng)
    q, k, v = torch._transform_bias_rescale_qkv(torch.from_numpy(qkv), torch.from_numpy(bias), 2)
    outs = [zeros((2, 2, 3, 2)) for _ in range(3)]
    run("aclnnTransformBiasRescaleQkv", DeviceTensor(qkv), DeviceTensor(bias), ctypes.c_int64(2), *outs)
    for out, expected in zip(outs, (q, k, v)):
        np.testing.assert_allclose(result(out), expected.numpy(), rtol=1e-6)


def test_precision_compare_bitwise():
    x = random(10, np.float32, np.random.default_rng(9))
    do = zeros((), np.uint32)
    run("aclnnPrecisionCompare", DeviceTensor(x), DeviceTensor(x.copy()), do)
    assert int(result(do, ())) == 0
    y = x.copy()
    y[3] = np.nextafter(y[3], np.float32(10))
    run("aclnnPrecisionCompare", DeviceTensor(x), DeviceTensor(y), do)
    assert int(result(do, ())) == 1


def test_add_lora_against_float64():
    rng = np.random.default_rng(10)
    b, h1, r, h2, h3, w, layers = 3, 16, 16, 16, 32, 2, 2
    y, x = random((b, h3), np.float16, rng), random((b, h1), np.float16, rng)
    wa, wb = random((w, layers, r, h1), np.float16, rng, -1, 1), random((w, layers, h2, r), np.float16, rng, -1, 1)
    index = np.array([1, 0, 1], np.int32)
    expected = y.astype(np.float64)
    for i in range(b):
        z = wa[index[i], 1].astype(np.float64) @ x[i].astype(np.float64)
        expected[i, 8:24] += (wb[index[i], 1].astype(np.float64) @ z) * 0.5
    do = zeros((b, h3), np.float16)
    run("aclnnAddLora", DeviceTensor(y), DeviceTensor(x), DeviceTensor(wb), DeviceTensor(index), DeviceTensor(wa),
        ctypes.c_int64(1), ctypes.c_double(0.5), ctypes.c_int64(8), ctypes.c_int64(16), do)
    np.testing.assert_allclose(result(do).astype(np.float64), expected, rtol=2e-3, atol=2e-2)
