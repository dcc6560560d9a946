"""The common aclnn operators (issue 13): per-call host cost of tiny two-phase calls from C, and
large calls against the NumPy ufunc / PyTorch CPU / NumPy matmul doing the same work."""
import tempfile
from pathlib import Path

import numpy as np
import torch

from common import HERE, build, median_seconds, row, run

ELEMENTS = 16 * 1024 * 1024
ROWS = COLS = 4096
GEMM = 2048


def peers():
    """Milliseconds of the same work in NumPy (elementwise, matmul) and PyTorch CPU (reductions, norms)."""
    rng = np.random.default_rng(0)
    x, y, out = (rng.random(ELEMENTS, np.float32) for _ in range(3))
    grid = rng.random((ROWS, COLS), np.float32)
    t = torch.from_numpy(grid)
    gamma = torch.from_numpy(rng.random(COLS, np.float32))
    a, b = rng.random((GEMM, GEMM), np.float32), rng.random((GEMM, GEMM), np.float32)
    c = np.empty((GEMM, GEMM), np.float32)
    figures = {
        "add": lambda: np.add(x, y, out=out), "mul": lambda: np.multiply(x, y, out=out),
        "muls": lambda: np.multiply(x, np.float32(1), out=out), "exp": lambda: np.exp(x, out=out),
        "relu": lambda: np.maximum(x, np.float32(0), out=out),
        "reduce_sum": lambda: torch.sum(t, 1, keepdim=True), "softmax": lambda: torch.softmax(t, -1),
        "rms_norm": lambda: torch.nn.functional.rms_norm(t, (COLS,), gamma, 1e-6),
        "layer_norm": lambda: torch.nn.functional.layer_norm(t, (COLS,), gamma, gamma, 1e-5),
        "matmul": lambda: np.matmul(a, b, out=c), "cat": lambda: torch.cat([t[:ROWS // 2], t[ROWS // 2:]]),
    }
    return {name: median_seconds(fn, repeat=5) * 1e3 for name, fn in figures.items()}  # as ours: median of 5


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(HERE / "c" / "aclnn_ops_speed.cpp", Path(tmp) / "aclnn_ops_speed")
        tiny = run(exe, "tiny", "2000")
        big = run(exe, "big", "5")
    for name, us in tiny.items():
        row("tiny aclnn %s, phase 1+2+sync (median)" % name, us, "us", target=20)
    reference = peers()
    targets = {"matmul": 1.1}
    for name, ms in big.items():
        peer = "NumPy" if name in ("add", "mul", "muls", "exp", "relu", "matmul") else "PyTorch CPU"
        size = {"matmul": "fp32 2048^3", "reduce_sum": "4096x4096 fp32", "softmax": "4096x4096 fp32",
                "rms_norm": "4096x4096 fp32", "layer_norm": "4096x4096 fp32", "cat": "2x 2048x4096 fp32"}
        row("aclnn %s %s (median of 5)" % (name, size.get(name, "16M fp32")), ms, "ms",
            target=targets.get(name, 1.2) * reference[name], reference=reference[name], reference_name=peer)
