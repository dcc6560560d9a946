"""mcDNN backward routines at N=32, C=64, H=W=56 fp32 against their PyTorch CPU equivalents (target:
each <= 1.2x torch), and softmax forward, listed without a target. The routines are driven through the
real C ABI in-process (ctypes), work on the default stream, and each call is followed by
mcStreamSynchronize."""
import ctypes

import numpy as np
import torch
import torch.nn.functional as F

import opemu
from common import best_of, row

N, C, H, W = 32, 64, 56, 56
TARGET = 1.2
_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(str(opemu.prefix() / "lib" / "libmcdnn.so"), mode=ctypes.RTLD_GLOBAL)
        _lib.mcMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        _lib.mcMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        _lib.mcdnnSetActivationDescriptor.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_double]
        _lib.mcdnnSetLRNDescriptor.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_double, ctypes.c_double,
                                               ctypes.c_double]
    return _lib


def check(status, what):
    if status != 0:
        raise RuntimeError("%s returned %d" % (what, status))


def descriptor(dims):
    d = ctypes.c_void_p()
    check(lib().mcdnnCreateTensorDescriptor(ctypes.byref(d)), "mcdnnCreateTensorDescriptor")
    check(lib().mcdnnSetTensor4dDescriptor(d, 0, 0, *dims), "mcdnnSetTensor4dDescriptor")
    return d


def device(array):
    array = np.ascontiguousarray(array, np.float32)
    p = ctypes.c_void_p()
    check(lib().mcMalloc(ctypes.byref(p), array.nbytes), "mcMalloc")
    check(lib().mcMemcpy(p, array.ctypes.data, array.nbytes, 1), "mcMemcpy")
    return p


def compare(name, ours, theirs):
    mine, peer = best_of(ours, theirs)
    row(name, mine, "ms", reference=peer, reference_name="torch", ratio=TARGET)


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    dy = rng.standard_normal((N, C, H, W)).astype(np.float32)
    xt, dyt = torch.from_numpy(x), torch.from_numpy(dy)
    h = ctypes.c_void_p()
    check(lib().mcdnnCreate(ctypes.byref(h)), "mcdnnCreate")
    one, zero = ctypes.byref(ctypes.c_float(1)), ctypes.byref(ctypes.c_float(0))
    d = descriptor((N, C, H, W))
    X, DY, Y, DX = device(x), device(dy), device(x), device(np.zeros_like(x))
    sync = lib().mcStreamSynchronize
    sync.argtypes = [ctypes.c_void_p]
    print("target: each ratio <= %.1f (torch on %d threads)" % (TARGET, torch.get_num_threads()), flush=True)

    # activation
    for mode, name, torch_fn in ((1, "relu", lambda: torch.ops.aten.threshold_backward(dyt, xt, 0)),
                                 (0, "sigmoid", lambda: torch.ops.aten.sigmoid_backward(dyt, yt_sig)),
                                 (2, "tanh", lambda: torch.ops.aten.tanh_backward(dyt, yt_tanh))):
        act = ctypes.c_void_p()
        check(lib().mcdnnCreateActivationDescriptor(ctypes.byref(act)), "create activation")
        check(lib().mcdnnSetActivationDescriptor(act, mode, 0, 0.0), "set activation")
        check(lib().mcdnnActivationForward(h, act, one, d, X, zero, d, Y), "mcdnnActivationForward")
        yt_sig, yt_tanh = torch.sigmoid(xt), torch.tanh(xt)

        def ours():
            check(lib().mcdnnActivationBackward(h, act, one, d, Y, d, DY, d, X, zero, d, DX), "ActivationBackward")
            sync(None)
        compare("mcdnnActivationBackward %s" % name, ours, torch_fn)

    # softmax
    for algo, name in ((1, "accurate"), (2, "log")):
        for mode, mode_name in ((1, "channel"), (0, "instance")):
            check(lib().mcdnnSoftmaxForward(h, algo, mode, one, d, X, zero, d, Y), "mcdnnSoftmaxForward")
            t = xt.reshape(N, -1) if mode == 0 else xt
            yt = (F.log_softmax if algo == 2 else F.softmax)(t, 1)
            dyv = dyt.reshape(yt.shape)
            backward = torch._log_softmax_backward_data if algo == 2 else torch._softmax_backward_data

            def ours():
                check(lib().mcdnnSoftmaxBackward(h, algo, mode, one, d, Y, d, DY, zero, d, DX), "SoftmaxBackward")
                sync(None)
            compare("mcdnnSoftmaxBackward %s %s" % (name, mode_name), ours,
                    lambda: backward(dyv, yt, 1, torch.float32))

            def ours_forward():
                check(lib().mcdnnSoftmaxForward(h, algo, mode, one, d, X, zero, d, Y), "mcdnnSoftmaxForward")
                sync(None)
            mine, peer = best_of(ours_forward, lambda: (F.log_softmax if algo == 2 else F.softmax)(t, 1))
            row("mcdnnSoftmaxForward %s %s (listed, no target)" % (name, mode_name), mine, "ms", reference=peer,
                reference_name="torch")

    # pooling 3x3 stride 2 pad 1 (56 -> 28), and 2x2 stride 2
    for (k, s, p) in ((3, 2, 1), (2, 2, 0)):
        out = (N, C, 1 + (H + 2 * p - k) // s, 1 + (W + 2 * p - k) // s)
        yd = descriptor(out)
        PY, PDY = device(np.zeros(out)), device(rng.standard_normal(out))
        pdy = torch.from_numpy(rng.standard_normal(out).astype(np.float32))
        for mode, name in ((0, "max"), (3, "max deterministic"), (1, "avg include pad"), (2, "avg exclude pad")):
            pool = ctypes.c_void_p()
            check(lib().mcdnnCreatePoolingDescriptor(ctypes.byref(pool)), "create pooling")
            check(lib().mcdnnSetPooling2dDescriptor(pool, mode, 0, k, k, p, p, s, s), "set pooling")
            check(lib().mcdnnPoolingForward(h, pool, one, d, X, zero, yd, PY), "mcdnnPoolingForward")
            if mode in (0, 3):
                _, indices = torch.ops.aten.max_pool2d_with_indices(xt, [k, k], [s, s], [p, p], [1, 1], False)

                def theirs():
                    torch.ops.aten.max_pool2d_with_indices_backward(pdy, xt, [k, k], [s, s], [p, p], [1, 1], False,
                                                                    indices)
            else:
                def theirs():
                    torch.ops.aten.avg_pool2d_backward(pdy, xt, [k, k], [s, s], [p, p], False, mode == 1, None)

            def ours():
                check(lib().mcdnnPoolingBackward(h, pool, one, yd, PY, yd, PDY, d, X, zero, d, DX), "PoolingBackward")
                sync(None)
            compare("mcdnnPoolingBackward %s %dx%d/%d pad %d" % (name, k, k, s, p), ours, theirs)

    # LRN n=5, against autograd through torch's local_response_norm
    lrn = ctypes.c_void_p()
    check(lib().mcdnnCreateLRNDescriptor(ctypes.byref(lrn)), "create LRN")
    check(lib().mcdnnSetLRNDescriptor(lrn, 5, 1e-4, 0.75, 2.0), "set LRN")
    check(lib().mcdnnLRNCrossChannelForward(h, lrn, 0, one, d, X, zero, d, Y), "LRN forward")
    xg = xt.clone().requires_grad_()
    yg = F.local_response_norm(xg, 5, 1e-4, 0.75, 2.0)

    def ours_lrn():
        check(lib().mcdnnLRNCrossChannelBackward(h, lrn, 0, one, d, Y, d, DY, d, X, zero, d, DX), "LRN backward")
        sync(None)
    compare("mcdnnLRNCrossChannelBackward n=5", ours_lrn,
            lambda: torch.autograd.grad(yg, xg, dyt, retain_graph=True))

    # divisive normalization 3x3, means given; torch: the same formula through autograd (avg_pool2d)
    check(lib().mcdnnSetLRNDescriptor(lrn, 3, 1.0, 0.75, 2.0), "set LRN")
    M, T1, T2, DM = device(x * 0.1), device(x), device(x), device(x)
    xm = (xt * 0.1).clone().requires_grad_()
    xg2 = xt.clone().requires_grad_()
    u = xg2 - xm
    yg2 = u * (2.0 + 1.0 * F.avg_pool2d(u * u, 3, 1, 1, count_include_pad=True)) ** -0.75

    def ours_divnorm():
        check(lib().mcdnnDivisiveNormalizationBackward(h, lrn, 0, one, d, X, M, DY, T1, T2, zero, d, DX, DM),
              "DivisiveNormalizationBackward")
        sync(None)
    compare("mcdnnDivisiveNormalizationBackward 3x3 means", ours_divnorm,
            lambda: torch.autograd.grad(yg2, (xg2, xm), dyt, retain_graph=True))
    lib().mcdnnDestroy(h)
