"""The convolution samples, built with the MACA compile line (<mcdnn/mcdnn.h>, <mcblas/mcblas.h>, -lmcdnn
-lmcblas -lmcruntime) and run: the grouped / dilated / 3-D sample's sums against PyTorch CPU, the MNIST-style
inference sample classifies, the LeNet-5 training sample's loss falls. BLAS runs on one thread here: the
samples' GEMMs are small, and spinning BLAS threads only slow them down on a busy host."""
import re
import subprocess

import numpy as np
import torch
import torch.nn.functional as F

import opemu
from conftest import ROOT, run_program

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1"}


def build(name, build_dir):
    home = opemu.prefix()
    output = build_dir / ("conv_" + name)
    command = ["g++", str(ROOT / "samples" / "mcdnn" / (name + ".cpp")), "-Wall", "-O2", "-o", str(output),
               "-I%s/include" % home, "-I%s/include/mcr" % home, "-L%s/lib" % home, "-lmcdnn", "-lmcblas",
               "-lmcruntime"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    return output


def run(name, build_dir):
    result = run_program(build(name, build_dir), env=ONE_THREAD, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def pattern(count, a, b, scale):
    return ((np.arange(count) * a) % b).astype(np.float32) * np.float32(scale) - np.float32(1)


CASES = {  # x dims, w dims, pad, stride, dilation, groups, flipped
    "grouped": ((2, 8, 9, 9), (12, 2, 3, 3), (1, 1), (1, 1), (1, 1), 4, False),
    "dilated": ((2, 3, 11, 11), (4, 3, 3, 3), (2, 2), (2, 2), (2, 2), 1, True),
    "3-D": ((1, 2, 6, 7, 5), (3, 2, 3, 3, 3), (1, 1, 0), (1, 2, 1), (1, 1, 1), 1, False),
}


def test_grouped_dilated_3d_sample_matches_torch(build_dir):
    out = run("conv_grouped_dilated_3d", build_dir)
    for name, (xd, wd, pad, stride, dilation, groups, flipped) in CASES.items():
        x = torch.tensor(pattern(int(np.prod(xd)), 7, 13, 0.15).reshape(xd), dtype=torch.float64,
                         requires_grad=True)
        w0 = pattern(int(np.prod(wd)), 5, 11, 0.2).reshape(wd)
        spatial = tuple(range(2, len(wd)))
        w = torch.tensor(np.flip(w0, spatial).copy() if flipped else w0, dtype=torch.float64, requires_grad=True)
        conv = F.conv2d if len(xd) == 4 else F.conv3d
        y = conv(x, w, stride=stride, padding=pad, dilation=dilation, groups=groups)
        dy = torch.tensor(pattern(y.numel(), 3, 7, 0.3).reshape(y.shape), dtype=torch.float64)
        y.backward(dy)
        dw = w.grad.numpy()
        dw = np.flip(dw, spatial) if flipped else dw
        assert "%s: y dims %s" % (name, " ".join(str(d) for d in y.shape)) in out
        sums = [float(v) for v in re.findall(r"[-+]?\d+\.\d+", next(
            line for line in out.splitlines() if line.startswith(name + ": sum")))]
        np.testing.assert_allclose(sums, [y.sum().item(), x.grad.sum().item(), dw.sum()], rtol=1e-5, atol=1e-4)
        runs = next(line for line in out.splitlines() if line.startswith(name + ": forward algorithms"))
        assert sorted(int(a) for a in re.findall(r" (\d) \(", runs)) == [0, 1, 2]


def test_mnist_style_inference_sample_classifies_unseen_digits(build_dir):
    out = run("conv_mnist_inference", build_dir)
    right, total = (int(v) for v in re.search(r"accuracy (\d+)/(\d+)", out).groups())
    assert total == 30 and right >= 27
    assert "feature maps: conv1 20x24x24, conv2 50x8x8, flattened 800" in out


def test_lenet_training_sample_loss_falls(build_dir):
    out = run("lenet_training", build_dir)
    losses = [float(v) for v in re.findall(r"step +\d+ +loss (\d+\.\d+)", out)]
    assert len(losses) == 12
    assert losses[0] < np.log(10) + 0.5           # starts near chance
    assert losses[-1] < losses[0] / 10             # and falls
    assert all(b <= a * 1.5 for a, b in zip(losses, losses[1:]))
    accuracy = float(re.search(r"test accuracy (\d\.\d+)", out).group(1))
    assert accuracy > 0.9
