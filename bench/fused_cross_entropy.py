"""Vocab-parallel cross-entropy at BT=2048, H=1024, V=32000, bf16 (issue 3's targets).

Each operator runs through opemu.api (the kernel the C path runs, without the C calls around it),
with its workspace allocated once and reused, as an app or a framework's caching allocator does.
Floors are NumPy fp32 GEMMs of the same shapes; the peer is PyTorch CPU autograd of the same
math (fp32 logits from the bf16 operands, as the kernel computes them)."""
import tracemalloc

import ml_dtypes
import numpy as np

from common import median_seconds, row
from opemu import api

BT, H, V = 2048, 1024, 32000
WORKSPACE = np.empty(256 << 20, np.uint8)


def operands():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((BT, H)) * 0.5).astype(ml_dtypes.bfloat16)
    w = (rng.standard_normal((V, H)) * 0.05).astype(ml_dtypes.bfloat16)
    target = rng.integers(0, V, BT).astype(np.int64)
    return x, w, target


def online_max_sum(x, w, target):
    outs = dict(logitsMaxLocalOut=np.zeros(BT, np.float32), sumExpLogitsLocalOut=np.zeros(BT, np.float32),
                predictedLogitsLocalOut=np.zeros(BT, np.float32), targetMaskOut=np.zeros(BT // 8, np.uint8),
                maskedTargetOut=np.zeros(BT, np.int64), vocabParallelLogitsOutOptional=None)
    return api.call("aclnnFusedLinearOnlineMaxSum", workspace=WORKSPACE, input=x, weight=w, target=target, vocabStartIndex=0,
                    vocabEndIndex=V, **outs)


def loss_grad(x, w, stats, grad, softmax=None, workspace=WORKSPACE):
    return api.call("aclnnFusedLinearCrossEntropyLossGrad", workspace=workspace, grad=grad, input=x, weight=w,
                    targetMask=stats["targetMaskOut"], maskedTarget=stats["maskedTargetOut"], labelSmoothing=0.0,
                    logitsMaxOptional=None if softmax is not None else stats["logitsMaxLocalOut"],
                    sumExpLogitsOptional=None if softmax is not None else stats["sumExpLogitsLocalOut"],
                    softmaxOptional=softmax, inputGradOut=np.empty((BT, H), x.dtype),
                    weightGradOut=np.empty((V, H), x.dtype))


def torch_autograd(x, w, target, grad):
    import torch
    xt = torch.from_numpy(x.view(np.uint16)).view(torch.bfloat16).float().requires_grad_()
    wt = torch.from_numpy(w.view(np.uint16)).view(torch.bfloat16).float().requires_grad_()
    t, g = torch.from_numpy(target), torch.from_numpy(grad)

    def step():
        xt.grad = wt.grad = None
        loss = torch.nn.functional.cross_entropy(xt @ wt.T, t, reduction="none")
        (loss * g).sum().backward()
    return step


def peak_extra_bytes(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    WORKSPACE[::4096] = 0  # touched once, as a reused device allocation is
    x, w, target = operands()
    grad = np.full(BT, 1.0 / BT, np.float32)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    logits = np.empty((BT, V), np.float32)
    gemm = median_seconds(lambda: np.matmul(x32, w32.T, out=logits), repeat=3)
    g = logits  # any BT×V fp32 operand costs the same
    dx = median_seconds(lambda: g @ w32, repeat=3)
    dw = median_seconds(lambda: g.T @ x32, repeat=3)
    del logits, g

    stats = online_max_sum(x, w, target)
    t = median_seconds(lambda: online_max_sum(x, w, target), repeat=3)
    row("FusedLinearOnlineMaxSum", t, "s", reference=gemm, reference_name="floor: one fp32 GEMM", ratio=1.10)

    t = median_seconds(lambda: loss_grad(x, w, stats, grad), repeat=3)
    row("FusedLinearCrossEntropyLossGrad, memory-saving", t, "s", reference=gemm + dx + dw,
        reference_name="floor: three fp32 GEMMs", ratio=1.10)
    peer = median_seconds(torch_autograd(x, w, target, grad), repeat=3)
    row("FusedLinearCrossEntropyLossGrad, memory-saving", t, "s", reference=peer,
        reference_name="peer: torch CPU autograd", ratio=0.8)
    peak = peak_extra_bytes(lambda: loss_grad(x, w, stats, grad, workspace=None))  # its own workspace
    outputs = (BT * H + V * H) * 2
    row("  peak extra memory (workspace + temporaries)", (peak - outputs) / 2 ** 20, "MiB",
        target=0.1 * BT * V * 4 / 2 ** 20)

    row_max, sums = stats["logitsMaxLocalOut"], stats["sumExpLogitsLocalOut"]
    softmax = np.exp((x32 @ w32.T) - row_max[:, None]) / sums[:, None]
    t = median_seconds(lambda: loss_grad(x, w, stats, grad, softmax=softmax), repeat=3)
    row("FusedLinearCrossEntropyLossGrad, high-performance", t, "s", reference=dx + dw,
        reference_name="floor: two fp32 GEMMs", ratio=1.10)
