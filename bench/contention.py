"""opemu's kernels in a process whose other libraries keep their threads busy: the PyTorch adapter's case, where
torch's OpenMP pool and NumPy's OpenBLAS pool spin on the same cores after each of their calls while opemu's
kernel threads want them. Each mcDNN call (N=32, C=64, H=W=56 fp32, with its stream sync) is timed right after
a torch GEMM and right after a NumPy GEMM, against the same call after one of its own; the three kinds of call
take turns, and each figure is the median of its calls. Target: another library's spinning threads cost at
most 20 %."""
import ctypes
import statistics
import time

import numpy as np
import torch

import mcdnn as m
from common import IDLE_SECONDS, row

TARGET = 1.2
ROUNDS = 40
GEMM = 192   # the other libraries' calls: short GEMMs that wake every thread of their pools


def interleaved(ours, before):
    """{condition: median seconds of `ours`} with each condition's call (None: another of ours) just before it,
    the conditions taking turns."""
    times = {name: [] for name in before}
    for _ in range(3):
        ours()
    for r in range(ROUNDS):
        for name in before if r % 2 == 0 else list(before)[::-1]:
            (before[name] or ours)()
            start = time.perf_counter()
            ours()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    rng = np.random.default_rng(0)
    lib = m.lib()
    x = rng.standard_normal((m.N, m.C, m.H, m.W)).astype(np.float32)
    h = ctypes.c_void_p()
    m.check(lib.mcdnnCreate(ctypes.byref(h)), "mcdnnCreate")
    one, zero = ctypes.byref(ctypes.c_float(1)), ctypes.byref(ctypes.c_float(0))
    d = m.descriptor((m.N, m.C, m.H, m.W))
    X, DY, Y, DX = m.device(x), m.device(rng.standard_normal(x.shape)), m.device(x), m.device(np.zeros_like(x))
    sync = lib.mcStreamSynchronize
    sync.argtypes = [ctypes.c_void_p]
    act = ctypes.c_void_p()
    m.check(lib.mcdnnCreateActivationDescriptor(ctypes.byref(act)), "create activation")
    m.check(lib.mcdnnSetActivationDescriptor(act, 1, 0, 0.0), "set activation")
    m.check(lib.mcdnnActivationForward(h, act, one, d, X, zero, d, Y), "mcdnnActivationForward")
    pool = ctypes.c_void_p()
    m.check(lib.mcdnnCreatePoolingDescriptor(ctypes.byref(pool)), "create pooling")
    m.check(lib.mcdnnSetPooling2dDescriptor(pool, 0, 0, 3, 3, 1, 1, 2, 2), "set pooling")
    yd = m.descriptor((m.N, m.C, 28, 28))
    PY, PDY = m.device(np.zeros((m.N, m.C, 28, 28))), m.device(rng.standard_normal((m.N, m.C, 28, 28)))
    m.check(lib.mcdnnPoolingForward(h, pool, one, d, X, zero, yd, PY), "mcdnnPoolingForward")
    calls = {
        "mcdnnActivationBackward relu": lambda: lib.mcdnnActivationBackward(h, act, one, d, Y, d, DY, d, X, zero, d,
                                                                            DX),
        "mcdnnSoftmaxBackward accurate channel": lambda: lib.mcdnnSoftmaxBackward(h, 1, 1, one, d, Y, d, DY, zero, d,
                                                                                  DX),
        "mcdnnPoolingBackward max 3x3/2 pad 1": lambda: lib.mcdnnPoolingBackward(h, pool, one, yd, PY, yd, PDY, d, X,
                                                                                zero, d, DX),
    }
    ta, tb = torch.randn(GEMM, GEMM), torch.randn(GEMM, GEMM)
    na, nb = ta.numpy().copy(), tb.numpy().copy()
    before = {"after one of its own": None, "after a torch GEMM": lambda: torch.mm(ta, tb),
              "after a NumPy GEMM": lambda: na @ nb}
    print("other libraries: torch on %d threads (OpenMP), NumPy's OpenBLAS; %dx%d GEMMs" % (
        torch.get_num_threads(), GEMM, GEMM), flush=True)
    for name, call in calls.items():
        def ours():
            m.check(call(), name)
            sync(None)
        time.sleep(IDLE_SECONDS)
        t = interleaved(ours, before)
        alone = t.pop("after one of its own")
        for condition, seconds in t.items():
            row("%s, %s" % (name, condition), seconds * 1e3, "ms", reference=alone * 1e3,
                reference_name="after its own", ratio=TARGET)
