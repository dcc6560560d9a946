"""The family samples and the inference-step program in samples/aclnn compile with the vendor's
example build line, run, and print what PyTorch CPU computes for the same inputs (to the 6
decimals printf("%f") keeps)."""
import re

import numpy as np
import pytest
import torch

from conftest import ROOT, ops_nn_compile, run_program


def sample_output(build_dir, name):
    result = run_program(ops_nn_compile(ROOT / "samples" / "aclnn" / (name + ".cpp"), build_dir / name))
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def values(stdout):
    found = {}
    for line in stdout.splitlines():
        if " result[" in line:
            found.setdefault(line.split()[0], []).append(float(line.split()[-1]))
    return found


def test_elementwise_sample(build_dir):
    got = values(sample_output(build_dir, "elementwise"))
    added = torch.add(torch.tensor([[1., 2, 3], [4, 5, 6]]), torch.tensor([1, 0.5, 0.25]), alpha=2.0)
    assert got["add"] == pytest.approx(added.flatten().tolist())
    assert got["sqrt"] == pytest.approx(torch.sqrt(added * 0.5).flatten().tolist(), rel=1e-6)


def test_comparison_sample(build_dir):
    got = values(sample_output(build_dir, "comparison"))
    x = torch.tensor([[1., 2, 3], [4, 2, 0]])
    assert got["gt"] == (x > torch.tensor([[2., 2, 2]])).float().flatten().tolist()
    assert got["eq"] == (x == 2).float().flatten().tolist()


def test_reduction_sample(build_dir):
    got = values(sample_output(build_dir, "reduction"))
    x = torch.tensor([[1., 5, 2, 0], [-1, -2, 7, 3]])
    assert got["sum"] == x.sum(1).tolist()
    assert got["argmax"] == x.argmax(-1).float().tolist()


def test_fill_sample_writes_only_the_strided_view(build_dir):
    got = values(sample_output(build_dir, "fill"))
    expected = torch.arange(0.5, 4.5, 0.5)
    expected[::2] = -1
    assert got["out"] == expected.tolist()


def test_matmul_sample(build_dir):
    got = values(sample_output(build_dir, "matmul"))
    a = torch.tensor([[1., 2, 3], [4, 5, 6]])
    b = torch.tensor([[0.5, -1], [0.25, 2], [1, 0]])
    assert got["matmul"] == (a.half().float() @ b.half().float()).half().float().flatten().tolist()
    assert got["addmm"] == pytest.approx(torch.addmm(torch.tensor([10., 20]), a, b, alpha=0.5).flatten().tolist(),
                                         rel=1e-3)


def test_normalization_sample(build_dir):
    got = values(sample_output(build_dir, "normalization"))
    x = torch.tensor([[1., 2, 3, 4], [-1, 0, 1, 6]])
    gamma = torch.tensor([1, 0.5, 2, 1])
    assert got["softmax"] == pytest.approx(torch.softmax(x, -1).flatten().tolist(), rel=1e-5, abs=1e-6)
    assert got["rmsnorm"] == pytest.approx(torch.nn.functional.rms_norm(x, (4,), gamma, 1e-6).flatten().tolist(),
                                           rel=1e-5, abs=1e-6)
    assert got["layernorm"] == pytest.approx(torch.nn.functional.layer_norm(x, (4,), gamma, None, 1e-5)
                                             .flatten().tolist(), rel=1e-5, abs=1e-6)
    assert got["mean"] == x.mean(1).tolist()


def test_cat_split_sample(build_dir):
    got = values(sample_output(build_dir, "cat_split"))
    joined = torch.cat([torch.tensor([[1, 2, 3]], dtype=torch.int32), torch.arange(0.5, 6, 1.0).reshape(2, 3)])
    assert got["cat"] == joined.flatten().tolist()
    first, second = torch.split(joined, [2, 1])
    assert got["first"] == first.flatten().tolist() and got["second"] == second.flatten().tolist()


def weights(shape, seed):
    n = int(np.prod(shape))
    return torch.from_numpy((np.sin(0.37 * np.arange(n, dtype=np.float64) + seed) * 0.5).astype(np.float32)
                            .reshape(shape))


def test_inference_step_prints_the_greedy_next_tokens(build_dir):
    stdout = sample_output(build_dir, "inference_step")
    pairs = [tuple(map(int, m)) for m in re.findall(r"token (\d+) -> next token (\d+)", stdout)]
    tokens = torch.tensor([3, 7, 1, 12])
    S, H, V = 4, 8, 16
    x = weights((V, H), 0.0)[tokens]
    h = torch.nn.functional.rms_norm(x, (H,), weights((H,), 1.0), 1e-6)
    q, k, v = (h @ weights((H, H), seed) for seed in (2.0, 3.0, 4.0))
    attention = torch.softmax((q @ k.T) * (1 / np.sqrt(np.float32(H))), -1) @ v
    logits = (x + attention) @ weights((H, V), 5.0)
    assert pairs == list(zip(tokens.tolist(), logits.argmax(-1).tolist()))
