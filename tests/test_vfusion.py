"""ops-nn vfusion/: Modulate and its backward, ScaledMaskedSoftmax and its backward, multi-scale deformable
attention and its gradient, through the C ABI against PyTorch CPU (mmcv's grid_sample formulation for the
deformable attention), with their documented checks."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, random, result

PARAM_INVALID = 161002


def f64(array):
    return torch.from_numpy(array.astype(np.float64))


def close(tensor, expected, tolerance=2e-5):
    np.testing.assert_allclose(result(tensor), expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("scale_shape", [(2, 4), (2, 1, 4)])
def test_modulate_scales_and_shifts_each_sample(scale_shape):
    rng = np.random.default_rng(0)
    x, scale, shift = random((2, 3, 4), np.float32, rng), random(scale_shape, np.float32, rng), \
        random(scale_shape, np.float32, rng)
    out = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnModulate", DeviceTensor(x), DeviceTensor(scale), DeviceTensor(shift), out) == (0, 0, 0), \
        recent_error()
    s, t = f64(scale).reshape(2, 1, 4), f64(shift).reshape(2, 1, 4)
    close(out, (f64(x) * (1 + s) + t).numpy())


def test_modulate_needs_scale_or_shift():
    x = DeviceTensor(np.zeros((2, 3, 4), np.float32))
    assert call("aclnnModulate", x, None, None, DeviceTensor(np.zeros((2, 3, 4), np.float32)))[0] == PARAM_INVALID
    assert "scaleOptional and shiftOptional can not be nullptr" in recent_error()


def test_modulate_backward_multiplies_by_scale_and_sums_over_the_sequence():
    rng = np.random.default_rng(1)
    grad, x = random((2, 3, 4), np.float32, rng), random((2, 3, 4), np.float32, rng)
    scale, shift = random((2, 4), np.float32, rng), random((2, 4), np.float32, rng)
    grad_input = DeviceTensor(np.zeros(x.shape, np.float32))
    grad_scale, grad_shift = DeviceTensor(np.zeros((2, 4), np.float32)), DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnModulateBackward", DeviceTensor(grad), DeviceTensor(x), DeviceTensor(scale), DeviceTensor(shift),
                grad_input, grad_scale, grad_shift) == (0, 0, 0), recent_error()
    close(grad_input, grad * scale[:, None, :])
    close(grad_scale, (f64(grad) * f64(x)).sum(1).numpy())
    close(grad_shift, f64(grad).sum(1).numpy())


def test_scaled_masked_softmax_and_its_backward():
    rng = np.random.default_rng(2)
    x = random((2, 3, 4, 8), np.float32, rng)
    mask = rng.integers(0, 2, (1, 3, 4, 8)).astype(np.bool_)
    y = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnScaledMaskedSoftmax", DeviceTensor(x), DeviceTensor(mask), ctypes.c_double(0.5),
                ctypes.c_bool(False), y) == (0, 0, 0), recent_error()
    expected = torch.softmax((f64(x) * 0.5).masked_fill(torch.from_numpy(mask), -10000.0), -1)
    close(y, expected.numpy())
    grad = random(x.shape, np.float32, rng)
    out = DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnScaledMaskedSoftmaxBackward", DeviceTensor(grad), y, DeviceTensor(mask), ctypes.c_double(0.5),
                ctypes.c_bool(False), out) == (0, 0, 0), recent_error()
    yy = expected
    want = ((f64(grad) * yy - (f64(grad) * yy).sum(-1, keepdim=True) * yy) * 0.5).masked_fill(torch.from_numpy(mask), 0)
    close(out, want.numpy())


def test_scaled_masked_softmax_refuses_a_fixed_triangular_mask():
    x = DeviceTensor(np.zeros((1, 1, 4, 8), np.float32))
    mask = DeviceTensor(np.zeros((1, 1, 4, 8), np.bool_))
    assert call("aclnnScaledMaskedSoftmax", x, mask, ctypes.c_double(1.0), ctypes.c_bool(True),
                DeviceTensor(np.zeros((1, 1, 4, 8), np.float32)))[0] == PARAM_INVALID
    assert "the param fixedTriuMask only suppport false." in recent_error()


def mmcv_reference(value, shapes, location, weight):
    """mmcv's multi_scale_deformable_attn_pytorch."""
    bs, _, heads, channels = value.shape
    _, queries, _, levels, points, _ = location.shape
    splits = value.split([int(h * w) for h, w in shapes], dim=1)
    grids = 2 * location - 1
    samples = []
    for level, (h, w) in enumerate(shapes):
        v = splits[level].flatten(2).transpose(1, 2).reshape(bs * heads, channels, int(h), int(w))
        grid = grids[:, :, :, level].transpose(1, 2).flatten(0, 1)
        samples.append(F.grid_sample(v, grid, mode="bilinear", padding_mode="zeros", align_corners=False))
    weight = weight.transpose(1, 2).reshape(bs * heads, 1, queries, levels * points)
    out = (torch.stack(samples, dim=-2).flatten(-2) * weight).sum(-1).view(bs, heads * channels, queries)
    return out.transpose(1, 2)


def deformable_case():
    rng = np.random.default_rng(3)
    shapes = np.array([[4, 5], [2, 3]], np.int64)
    starts = np.array([0, 20], np.int64)
    bs, queries, heads, levels, points, channels = 1, 32, 2, 2, 2, 8
    value = random((bs, 26, heads, channels), np.float32, rng)
    location = rng.uniform(-0.1, 1.1, (bs, queries, heads, levels, points, 2)).astype(np.float32)
    weight = rng.uniform(0, 1, (bs, queries, heads, levels, points)).astype(np.float32)
    return value, shapes, starts, location, weight


def test_multi_scale_deformable_attention_is_mmcvs():
    value, shapes, starts, location, weight = deformable_case()
    out = DeviceTensor(np.zeros((1, 32, 16), np.float32))
    assert call("aclnnMultiScaleDeformableAttnFunction", DeviceTensor(value), DeviceTensor(shapes),
                DeviceTensor(starts), DeviceTensor(location), DeviceTensor(weight), out) == (0, 0, 0), recent_error()
    close(out, mmcv_reference(f64(value), shapes, f64(location), f64(weight)).numpy(), 1e-5)


def test_multi_scale_deformable_attention_grad_is_autograds():
    value, shapes, starts, location, weight = deformable_case()
    grad = random((1, 32, 16), np.float32, np.random.default_rng(4))
    tv, tl, tw = (f64(a).requires_grad_() for a in (value, location, weight))
    mmcv_reference(tv, shapes, tl, tw).backward(f64(grad))
    outs = [DeviceTensor(np.zeros(a.shape, np.float32)) for a in (value, location, weight)]
    assert call("aclnnMultiScaleDeformableAttentionGrad", DeviceTensor(value), DeviceTensor(shapes),
                DeviceTensor(starts), DeviceTensor(location), DeviceTensor(weight), DeviceTensor(grad), *outs) \
        == (0, 0, 0), recent_error()
    close(outs[0], tv.grad.numpy(), 1e-4)
    close(outs[1], tl.grad.numpy(), 1e-3)
    close(outs[2], tw.grad.numpy(), 1e-4)


def test_multi_scale_deformable_attention_needs_32_queries():
    value, shapes, starts, location, weight = deformable_case()
    location, weight = location[:, :16].copy(), weight[:, :16].copy()
    assert call("aclnnMultiScaleDeformableAttnFunction", DeviceTensor(value), DeviceTensor(shapes),
                DeviceTensor(starts), DeviceTensor(location), DeviceTensor(weight),
                DeviceTensor(np.zeros((1, 16, 16), np.float32)))[0] == PARAM_INVALID
    assert "numQueries must be greater than or equal to 32" in recent_error()
