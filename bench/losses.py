"""Losses and optimizer against their targets: EmbeddingDenseBackward, NLLLossBackward, ApplyFusedEmaAdam.

Each operator runs through opemu.api (the kernel phase 2 runs, on NumPy arrays, without the C calls
around it). Buffers are allocated and touched once before timing, as device memory is, and reused.
Peers are PyTorch CPU (same thread count); floors are passes over the same memory (a C streaming loop on the same threads, or
memset for a zero-fill). Figures are medians; ratios are printed, never asserted."""
import ctypes
import functools
import mmap
import statistics
import threading

import numpy as np
import torch

import opemu
from common import median_seconds, row
from opemu import api
from opemu.core import kernels, parallel


def touched(shape, dtype, value=0):
    """An array in memory already mapped (huge pages where the kernel gives them), like device memory."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    buffer = mmap.mmap(-1, max(size, 1))
    if hasattr(mmap, "MADV_HUGEPAGE"):
        buffer.madvise(mmap.MADV_HUGEPAGE)
    array = np.frombuffer(buffer, dtype, int(np.prod(shape))).reshape(shape)
    array.fill(value)
    return array


def device_array(shape, dtype, value=0):
    """An array in device memory from aclrtMalloc, placed as an app's buffers are. Equal blocks of 2^28 bytes
    mmap'd back to back (as touched() places them) share every address bit from 12 to 27, which on AMD Zen
    keeps their lines from sharing the L1 (docs/DESIGN-NOTES.md, "Measuring on a shared host"): a loop over
    five of them ran 15x slower there, a placement the device allocator does not make."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    address = ctypes.c_void_p()
    assert _acl().aclrtMalloc(ctypes.byref(address), ctypes.c_size_t(count * dtype.itemsize), 0) == 0
    array = np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(address.value), dtype).reshape(shape)
    array.fill(value)
    return array


@functools.cache
def _acl():
    lib = ctypes.CDLL(str(opemu.prefix() / "lib64" / "libascendcl.so"), mode=ctypes.RTLD_GLOBAL)
    assert lib.aclrtSetDevice(0) == 0
    return lib


def ms(*fns, repeat=5):
    """Median milliseconds of each function, the functions taking turns round by round so that a
    burst of load on this shared machine falls on all of them alike."""
    for fn in fns:
        fn()  # warm-up
    times = [[median_seconds(fn, repeat=1, warmup=0) * 1e3 for fn in fns] for _ in range(repeat)]
    medians = [statistics.median(column) for column in zip(*times)]
    return medians if len(fns) > 1 else medians[0]


def embedding_dense_backward():
    n, rows, dim = 262144, 32000, 1024
    rng = np.random.default_rng(0)
    grad = touched((n, dim), np.float32)
    grad[...] = rng.random((n, dim), dtype=np.float32) - 0.5
    indices = rng.integers(0, rows, n)
    out = touched((rows, dim), np.float32)

    def ours():
        api.call("aclnnEmbeddingDenseBackward", grad=grad, indices=indices, numWeights=rows, paddingIdx=(1 << 64) - 1,
                 scaleGradByFreq=False, out=out)
    g, i = torch.from_numpy(grad), torch.from_numpy(indices)
    mine, peer = ms(ours, lambda: torch.ops.aten.embedding_dense_backward(g, i, rows, -1, False))
    row("EmbeddingDenseBackward 262144 idx -> 32000x1024 fp32", mine, "ms", reference=peer,
        reference_name="peer torch embedding_dense_backward", ratio=0.9)


def nll_loss_backward():
    n, classes = 65536, 32000
    rng = np.random.default_rng(1)
    out = touched((n, classes), np.float32)
    self_ = np.broadcast_to(np.zeros(1, np.float32), (n, classes))  # read for its shape only
    target = rng.integers(0, classes, n)
    weight = rng.random(classes, dtype=np.float32)
    grad, total = np.ones(1, np.float32), np.array([float(weight[target].sum())], np.float32)

    def ours():
        api.call("aclnnNLLLossBackward", gradOutput=grad, self=self_, target=target, weight=weight, reduction=1,
                 ignoreIndex=-100, totalWeight=total, out=out)

    def zero_fill():  # one pass of zero-filling out on every core, by the fastest fill there is: memset
        half = out.nbytes // 2  # (it stores without loading first; NumPy's fill loads every line it writes)
        threads = [threading.Thread(target=ctypes.memset, args=(out.ctypes.data + a, 0, half)) for a in (0, half)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    out_t, self_t = torch.from_numpy(out), torch.zeros(1, 1).expand(n, classes)
    args = (torch.tensor(1.0), self_t, torch.from_numpy(target), torch.from_numpy(weight), 1, -100,
            torch.tensor(float(total[0])))
    mine, peer, floor = ms(ours, lambda: torch.ops.aten.nll_loss_backward.grad_input(*args, grad_input=out_t),
                           zero_fill, repeat=3)
    name = "NLLLossBackward N=65536 C=32000 mean fp32"
    row(name, mine, "ms", target=1.0 * peer, reference=peer, reference_name="peer torch nll_loss_backward(out=)")
    row(name, mine, "ms", target=1.2 * floor, reference=floor, reference_name="floor zero-fill of out")


def streaming_floor(inputs, outputs):
    """One pass of opemu's streaming loop (csrc/kernels/stream.c) over the arrays, split over the pool's
    workers as the op's kernel is: the fair floor of a memory-bound op."""
    lib = kernels.lib()
    n = inputs[0].size

    def piece(lo, hi):
        lib.opemu_kernel_stream([kernels.address(x[lo:hi]) for x in inputs + outputs], len(inputs), len(outputs), hi - lo)
    parallel.split(n, piece)


def apply_fused_ema_adam():
    n = 64 << 20
    rng = np.random.default_rng(2)
    grad, var, m, v, s = (device_array((n,), np.float32) for _ in range(5))
    grad[...] = rng.random(n, dtype=np.float32) - 0.5
    var[...], s[...] = 1.0, 1.0
    step = np.array([10])
    lr, ema, b1, b2, eps, wd = 1e-3, 0.999, 0.9, 0.999, 1e-8, 0.01

    def ours():
        api.call("aclnnApplyFusedEmaAdam", grad=grad, varRef=var, mRef=m, vRef=v, sRef=s, step=step, lr=lr,
                 emaDecay=ema, beta1=b1, beta2=b2, eps=eps, mode=1, biasCorrection=True, weightDecay=wd)

    def floor():  # the same bytes, read 5 arrays and write 4, by a C loop on the same threads
        streaming_floor([grad, var, m, v, s], [var, m, v, s])
    tg, tvar, tm, tv, ts = (torch.from_numpy(x) for x in (grad, var, m, v, s))
    c1, c2 = 1 - b1 ** 10, 1 - b2 ** 10

    def peer():  # the seed's formula with PyTorch CPU in-place ops (AdamW mode)
        tm.mul_(b1).add_(tg, alpha=1 - b1)
        tv.mul_(b2).addcmul_(tg, tg, value=1 - b2)
        update = (tm / c1).div_((tv / c2).sqrt_().add_(eps)).add_(tvar, alpha=wd)
        tvar.add_(update, alpha=-lr)
        ts.mul_(ema).add_(tvar, alpha=1 - ema)
    mine, low, other = ms(ours, floor, peer)
    name = "ApplyFusedEmaAdam 64M fp32"
    row(name, mine, "ms", reference=low, reference_name="streaming floor: C read 5 write 4", ratio=1.2)
    row(name, mine, "ms", target=1.0 * other, reference=other, reference_name="peer torch in-place formula")


def main():
    print("(opemu through opemu.api; torch threads: %d)" % torch.get_num_threads(), flush=True)
    embedding_dense_backward()
    nll_loss_backward()
    apply_fused_ema_adam()


if __name__ == "__main__":
    main()
