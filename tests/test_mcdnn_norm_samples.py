"""The batch normalization, normalization, dropout, spatial transformer and training-step samples: built with
the MACA compile line against the prefix, run, and their printed numbers checked against PyTorch CPU."""
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import ROOT, run_program
from test_mc_runtime import maca_compile


def run_sample(build_dir, name):
    executable = maca_compile(ROOT / "samples" / "mcdnn" / (name + ".cpp"), build_dir / ("norm_" + name))
    result = run_program(executable)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def numbers(line):
    return [float(v) for v in re.findall(r"[-+]?\d+\.\d+", line)]


def test_batchnorm_sample_normalizes_each_channel_and_matches_torch_gradients(build_dir):
    out = run_sample(build_dir, "batchnorm")
    n, c, h, w = 2, 3, 4, 4
    i = np.arange(n * c * h * w)
    x = (0.5 * ((i * 37) % 23) - 4.0 + (i // (h * w)) % c).astype(np.float32).reshape(n, c, h, w)
    dy = (0.25 * ((i * 11) % 7) - 0.75).astype(np.float32).reshape(n, c, h, w)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    scale = torch.tensor([1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    bias = torch.tensor([0.0, 1.0, -1.0], dtype=torch.float64, requires_grad=True)
    rm, rv = torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64)
    F.batch_norm(xt, rm, rv, scale, bias, training=True, momentum=0.1, eps=1e-5).backward(torch.tensor(dy))
    lines = out.splitlines()
    for k in range(c):
        stats = numbers(next(line for line in lines if line.startswith("c=%d  batch mean" % k)))
        np.testing.assert_allclose(stats[2:4], [rm[k].item(), rv[k].item()], atol=1e-4)  # printed to 4 places
        assert stats[4] == pytest.approx(bias[k].item(), abs=1e-4)    # y has the bias as mean
        assert stats[6] == pytest.approx(scale[k].item(), rel=1e-4)   # and the scale as std
        grads = numbers(next(line for line in lines if line.startswith("c=%d  dScale" % k)))
        np.testing.assert_allclose(grads, [scale.grad[k].item(), bias.grad[k].item()], rtol=1e-4, atol=1e-5)
    inference = numbers(next(line for line in lines if line.startswith("inference")))
    assert inference[0] == pytest.approx(inference[1], abs=1e-5)
    assert "reserve space 0 bytes" in out


def test_normalization_sample_fuses_the_residual_add_and_relu(build_dir):
    out = run_sample(build_dir, "normalization")
    assert "dz follows the ReLU mask: yes" in out
    n, c, h, w = 2, 8, 3, 3
    i = np.arange(n * c * h * w)
    nhwc = lambda v: torch.tensor(v.astype(np.float32).reshape(n, h, w, c), dtype=torch.float64)  # noqa: E731
    x = nhwc(((i * 29) % 17) / 4.0 - 2.0).permute(0, 3, 1, 2).requires_grad_()
    z = nhwc(((i * 13) % 5) / 2.0 - 1.0).permute(0, 3, 1, 2)
    scale = torch.ones(c, dtype=torch.float64, requires_grad=True)
    y = torch.relu(F.batch_norm(x, None, None, scale, torch.zeros(c, dtype=torch.float64), training=True) + z)
    y.sum().backward()
    assert "%d of %d outputs active" % (int((y > 0).sum()), n * c * h * w) in out
    for k in range(c):
        line = next(line for line in out.splitlines() if line.startswith("c=%d  dScale" % k))
        assert numbers(line)[0] == pytest.approx(scale.grad[k].item(), rel=1e-4)


def test_dropout_sample_keeps_its_mask_between_forward_backward_and_restore(build_dir):
    out = run_sample(build_dir, "dropout")
    assert "backward: dy/(1-p) where kept, 0 elsewhere: yes" in out
    assert "restored states reproduce the mask: yes" in out
    assert "descriptor: dropout 0.25, seed 2024, states ours" in out
    kept = numbers(next(line for line in out.splitlines() if line.startswith("kept")))
    assert abs(kept[0] - 0.75) < 5 * np.sqrt(0.25 * 0.75 / 4096)
    assert kept[2] == pytest.approx(4 / 3, rel=1e-4)


def test_spatial_transformer_sample_rotates_and_matches_torch_gradients(build_dir):
    out = run_sample(build_dir, "spatial_transformer")
    lines = out.splitlines()
    rotated = [numbers(line) for line in lines[lines.index("x rotated:") + 1:][:3]]
    x = torch.arange(1.0, 10.0, dtype=torch.float64).reshape(1, 1, 3, 3).requires_grad_()
    theta = torch.tensor([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]], dtype=torch.float64, requires_grad=True)
    grid = F.affine_grid(theta, (1, 1, 3, 3), align_corners=True)
    y = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    np.testing.assert_allclose(rotated, y[0, 0].detach().numpy())
    grid.retain_grad()
    y.sum().backward()
    centre = numbers(next(line for line in lines if line.startswith("dgrid at the centre")))
    np.testing.assert_allclose(centre, grid.grad[0, 1, 1].numpy(), atol=1e-5)
    dtheta = numbers(next(line for line in lines if line.startswith("dtheta")))
    np.testing.assert_allclose(dtheta, theta.grad.numpy().ravel(), atol=1e-5)
    assert "dx (each input pixel sampled once): 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0 1.0" in out


def test_training_step_sample_prints_the_parameter_gradients_of_torch_autograd(build_dir):
    out = run_sample(build_dir, "training_step")
    n, c, h, w = 4, 3, 8, 8
    i = np.arange(n * c * h * w)
    x = torch.tensor((((i * 37) % 101) / np.float32(25.0) - 2.0).astype(np.float32).reshape(n, c, h, w),
                     dtype=torch.float64)
    scale = torch.tensor([1.0 + 0.1 * k for k in range(c)], dtype=torch.float32).double().requires_grad_()
    bias = torch.tensor([0.05 * k for k in range(c)], dtype=torch.float32).double().requires_grad_()
    rm, rv = torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64)
    y = F.max_pool2d(torch.relu(F.batch_norm(x, rm, rv, scale, bias, training=True, momentum=0.1, eps=1e-5)), 2)
    logp = F.log_softmax(y.reshape(n, -1), dim=1)
    labels = torch.tensor([(k * 7 + 3) % (c * 16) for k in range(n)])
    loss = F.nll_loss(logp, labels)
    loss.backward()
    lines = out.splitlines()
    assert numbers(lines[0])[0] == pytest.approx(loss.item(), rel=1e-5)
    for k in range(c):
        got = numbers(next(line for line in lines if line.startswith("c=%d  dScale" % k)))
        np.testing.assert_allclose(got, [scale.grad[k].item(), bias.grad[k].item(), rm[k].item()], atol=2e-6)
