"""Vocab-parallel cross-entropy at BT=2048, H=1024, V=32000, bf16, against their targets.

Each operator runs through opemu.api (the kernel the C path runs, without the C calls around it),
with its workspace allocated once and reused, as an app or a framework's caching allocator does.
A floor is the operator's GEMMs as GEMM calls on bf16 operands with fp32 sums, the operands lying as
the operator's do, each timed by PyTorch (oneDNN's bf16 GEMM) and by opemu's own bf16 product kernel
(packing its operands, as any GEMM call does, then a row half per core), and the faster of the two
taken. Where the kernels run without the bf16 dot product instruction, the floor is instead the faster
of PyTorch's call and the fp32 route: the operands converted to fp32, then NumPy's OpenBLAS GEMM (what a
bf16 product without bf16 instructions must not be slower than); opemu's call is printed beside.
Printed beside: the kernel's products alone on operands packed beforehand (its inner loop, a
bound no call reaches), and fp32 GEMMs (NumPy's OpenBLAS), the floor before opemu had a bf16 product.
The peer is PyTorch CPU autograd of the same math (fp32 logits from the bf16 operands, as the kernel
computes them). The operators and the floors' calls are timed in turn, one call each a round (medians of
five), so that the host's drift over the seconds between them lands on both sides of each ratio."""
import threading
import time
import tracemalloc

import ml_dtypes
import numpy as np

from common import IDLE_SECONDS, alternating_medians, median_seconds, row
from opemu import api
from opemu.core import bf16_product, kernels

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


def operand(rows, columns, transposed, rng):
    """A rows × columns bf16 operand lying row-major, or stored transposed (its .T view), of normal values (a small
    random block repeated: a whole operand's float64 array would be several times as large)."""
    block = (rng.standard_normal((256, 384)) * 0.5).astype(ml_dtypes.bfloat16)
    shape = (columns, rows) if transposed else (rows, columns)
    stored = np.resize(block, shape)
    return stored.T if transposed else stored


def torch_bf16_gemm(m, n, k, a_transposed, b_transposed):
    """An m × k by k × n bf16 GEMM call in PyTorch (oneDNN; its output bf16), the operands lying as the operator's
    do."""
    import torch
    rng = np.random.default_rng(1)
    a, b = (torch.from_numpy(np.ascontiguousarray(operand(r, c, t, rng)).view(np.uint16)).view(torch.bfloat16)
            for r, c, t in ((m, k, a_transposed), (k, n, b_transposed)))
    a, b = (a.T.contiguous().T if a_transposed else a), (b.T.contiguous().T if b_transposed else b)
    return lambda: a @ b


def opemu_bf16_gemm(m, n, k, a_transposed, b_transposed):
    """(the same GEMM as a call to opemu's bf16 product kernel makes it, its products alone) on two threads: a call
    packs its operands, lying as the operator's do, into the kernel's panels (each thread half of A's rows and half
    of B's columns), then, once both are packed, each thread multiplies its half of the rows (the kernel calls
    release the GIL). The products alone, on operands packed beforehand, are the kernel's inner loop: a bound no
    GEMM call reaches."""
    rng = np.random.default_rng(1)
    pairs = bf16_product.pairs(k)
    a, b = operand(m, k, a_transposed, rng), operand(k, n, b_transposed, rng)
    a_panels = np.zeros(bf16_product.panel_words(m, k, bf16_product.PANEL_ROWS), np.uint32)
    b_panels = np.zeros(bf16_product.panel_words(n, k, bf16_product.PANEL_COLS), np.uint32)
    c = np.empty((m, n), np.float32)
    row_cut = m // 2 // bf16_product.PANEL_ROWS * bf16_product.PANEL_ROWS
    column_cut = n // 2 // bf16_product.PANEL_COLS * bf16_product.PANEL_COLS
    packed = threading.Barrier(2)

    def half(lane, pack):
        r0, r1 = (0, row_cut) if lane == 0 else (row_cut, m)
        if pack:
            c0, c1 = (0, column_cut) if lane == 0 else (column_cut, n)
            bf16_product.pack(a[r0:r1], bf16_product.PANEL_ROWS, a_panels[r0 * pairs:], pairs, 0)
            bf16_product.pack(b.T[c0:c1], bf16_product.PANEL_COLS, b_panels[c0 * pairs:], pairs, 0)
            packed.wait()
        bf16_product.product(r1 - r0, n, pairs, a_panels[r0 * pairs:], b_panels, c[r0:r1])

    def both(pack):
        other = threading.Thread(target=half, args=(1, pack))
        other.start()
        half(0, pack)
        other.join()
    both(True)   # panels for the products alone
    return lambda: both(True), lambda: both(False)


def fp32_gemm(m, n, k, a_transposed, b_transposed):
    """The same GEMM by the fp32 route: both bf16 operands, lying as the operator's do, converted to fp32 (in their
    layout), then NumPy's GEMM into an fp32 result."""
    rng = np.random.default_rng(1)
    a, b = operand(m, k, a_transposed, rng), operand(k, n, b_transposed, rng)
    c = np.empty((m, n), np.float32)

    def call():
        a32, b32 = (x.T.astype(np.float32).T if t else x.astype(np.float32)
                    for x, t in ((a, a_transposed), (b, b_transposed)))
        np.matmul(a32, b32, out=c)
    return call


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
    fp32 = [median_seconds(lambda: np.matmul(x32, w32.T, out=logits), repeat=3)]
    g = logits  # any BT×V fp32 operand costs the same
    fp32 += [median_seconds(lambda: g @ w32, repeat=3), median_seconds(lambda: g.T @ x32, repeat=3)]
    stats = online_max_sum(x, w, target)
    softmax = logits   # high-performance mode's input, made in place from the fp32 logits
    np.exp(np.subtract(logits, stats["logitsMaxLocalOut"][:, None], out=softmax), out=softmax)
    softmax /= stats["sumExpLogitsLocalOut"][:, None]
    del x32, w32, logits, g
    time.sleep(IDLE_SECONDS)   # OpenBLAS's pool asleep before the alternating calls

    # the operators' GEMMs with their operands as they lie: input @ weightᵀ, G @ weight and Gᵀ @ input (G: BT × V);
    # each floor the faster call, PyTorch's or opemu's kernel's
    gemms = {"logits": (BT, V, H, False, True), "dx": (BT, H, V, False, False), "dw": (V, H, BT, True, False)}
    sides = {"online max-sum": lambda: online_max_sum(x, w, target),
             "memory-saving": lambda: loss_grad(x, w, stats, grad),
             "high-performance": lambda: loss_grad(x, w, stats, grad, softmax=softmax)}
    dot = kernels.isa() == "avx512bf16"   # else the fp32 route is the floor (the module's docstring)
    for name, shape in gemms.items():
        sides[name + " torch"] = torch_bf16_gemm(*shape)
        sides[name + " call"], sides[name + " alone"] = opemu_bf16_gemm(*shape)
        if not dot:
            sides[name + " fp32 route"] = fp32_gemm(*shape)
    t = alternating_medians(sides)
    del sides
    floor = {name: min(t[name + " torch"], t[name + (" call" if dot else " fp32 route")]) for name in gemms}
    alone = {name: t[name + " alone"] for name in gemms}
    kind = "bf16 GEMM" if dot else "bf16 GEMM or fp32 route"
    if not dot:
        for name in gemms:
            row("  bf16 GEMM %s: opemu's kernel as a call" % name, t[name + " call"], "s", reference=floor[name],
                reference_name="floor: torch or fp32 route")

    row("FusedLinearOnlineMaxSum", t["online max-sum"], "s", reference=floor["logits"],
        reference_name="floor: one " + kind, ratio=1.10)
    row("  (against its product alone)", t["online max-sum"], "s", reference=alone["logits"],
        reference_name="bf16 kernel, prepacked")
    row("  (against one fp32 GEMM)", t["online max-sum"], "s", reference=fp32[0], reference_name="fp32 GEMM")

    row("FusedLinearCrossEntropyLossGrad, memory-saving", t["memory-saving"], "s", reference=sum(floor.values()),
        reference_name="floor: three " + kind + "s", ratio=1.10)
    row("  (against its three products alone)", t["memory-saving"], "s", reference=sum(alone.values()),
        reference_name="bf16 kernel, prepacked")
    row("  (against three fp32 GEMMs)", t["memory-saving"], "s", reference=sum(fp32), reference_name="fp32 GEMMs")
    peer = median_seconds(torch_autograd(x, w, target, grad), repeat=3)
    row("FusedLinearCrossEntropyLossGrad, memory-saving", t["memory-saving"], "s", reference=peer,
        reference_name="peer: torch CPU autograd", ratio=0.8)
    peak = peak_extra_bytes(lambda: loss_grad(x, w, stats, grad, workspace=None))  # its own workspace
    outputs = (BT * H + V * H) * 2
    row("  peak extra memory (workspace + temporaries)", (peak - outputs) / 2 ** 20, "MiB",
        target=0.1 * BT * V * 4 / 2 ** 20)

    row("FusedLinearCrossEntropyLossGrad, high-performance", t["high-performance"], "s",
        reference=floor["dx"] + floor["dw"], reference_name="floor: two " + kind + "s", ratio=1.10)
    row("  (against its two products alone)", t["high-performance"], "s", reference=alone["dx"] + alone["dw"],
        reference_name="bf16 kernel, prepacked")
    row("  (against two fp32 GEMMs)", t["high-performance"], "s", reference=fp32[1] + fp32[2],
        reference_name="fp32 GEMMs")
