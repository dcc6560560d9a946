"""cuDNN's newer APIs under MACA names, through the real C ABI in-process (ctypes), each call followed by a
synchronisation:
- an LSTM training step with the RNN v8 API (mcdnnRNNForward in training mode, RNNBackwardData_v8,
  RNNBackwardWeights_v8) at sequence 128, batch 32, input and hidden 512, fp32, against torch.nn.LSTM's
  forward and backward on the CPU (target <= 1.5x);
- a 3x3 convolution forward (N=32, C=K=64, H=W=56, fp32) through the backend graph API (one operation
  graph, its execution plan, mcdnnBackendExecute) against the legacy mcdnnConvolutionForward on the same
  data (target <= 1.05x: one implementation behind both);
- mcblasLtMatmul 1024^3 fp32 with the bias + ReLU epilogue against the GEMM floor (mcblasSgemm of the same
  size) plus one pass over D (NumPy's in-place maximum over the same bytes) (target <= 1.1x)."""
import ctypes

import numpy as np
import torch

import opemu
from common import best_of, row
from mcdnn import check, descriptor, device, lib

T, B, HIDDEN = 128, 32, 512
N, C, H, W = 32, 64, 56, 56
M = 1024
c_void_p, c_int, c_int64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64
_lt = None


def lt():
    """libmcblasLt with libmcblas (mcblasSgemm, the floor) loaded beside it."""
    global _lt
    if _lt is None:
        lib()
        ctypes.CDLL(str(opemu.prefix() / "lib" / "libmcblas.so"), mode=ctypes.RTLD_GLOBAL)
        _lt = ctypes.CDLL(str(opemu.prefix() / "lib" / "libmcblasLt.so"), mode=ctypes.RTLD_GLOBAL)
    return _lt


def sync():
    check(lib().mcDeviceSynchronize(), "mcDeviceSynchronize")


def buffer(nbytes):
    p = c_void_p()
    check(lib().mcMalloc(ctypes.byref(p), ctypes.c_size_t(max(nbytes, 1))), "mcMalloc")
    return p


# ---- LSTM ----

def lstm_step():
    h = c_void_p()
    check(lib().mcdnnCreate(ctypes.byref(h)), "mcdnnCreate")
    rnn = c_void_p()
    check(lib().mcdnnCreateRNNDescriptor(ctypes.byref(rnn)), "mcdnnCreateRNNDescriptor")
    check(lib().mcdnnSetRNNDescriptor_v8(rnn, 0, 2, 2, 0, 0, 0, 0, 0, HIDDEN, HIDDEN, HIDDEN, 1, None,
                                         ctypes.c_uint32(1)), "mcdnnSetRNNDescriptor_v8")
    lengths = (c_int * B)(*[T] * B)
    data = []
    for _ in range(2):
        d = c_void_p()
        check(lib().mcdnnCreateRNNDataDescriptor(ctypes.byref(d)), "mcdnnCreateRNNDataDescriptor")
        check(lib().mcdnnSetRNNDataDescriptor(d, 0, 0, T, B, HIDDEN, lengths, None), "mcdnnSetRNNDataDescriptor")
        data.append(d)
    x_desc, y_desc = data
    h_desc = c_void_p()
    check(lib().mcdnnCreateTensorDescriptor(ctypes.byref(h_desc)), "mcdnnCreateTensorDescriptor")
    check(lib().mcdnnSetTensorNdDescriptor(h_desc, 0, 3, (c_int * 3)(1, B, HIDDEN), (c_int * 3)(B * HIDDEN, HIDDEN, 1)),
          "mcdnnSetTensorNdDescriptor")
    space, work, reserve = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
    check(lib().mcdnnGetRNNWeightSpaceSize(h, rnn, ctypes.byref(space)), "mcdnnGetRNNWeightSpaceSize")
    check(lib().mcdnnGetRNNTempSpaceSizes(h, rnn, 1, x_desc, ctypes.byref(work), ctypes.byref(reserve)),
          "mcdnnGetRNNTempSpaceSizes")
    rng = np.random.default_rng(0)
    weights = device(rng.uniform(-0.04, 0.04, space.value // 4))
    grads = buffer(space.value)
    x, dy = (device(rng.standard_normal(T * B * HIDDEN)) for _ in range(2))
    y, dx = buffer(T * B * HIDDEN * 4), buffer(T * B * HIDDEN * 4)
    ws, rs = buffer(work.value), buffer(reserve.value)
    seq = device(np.full(B, T, np.int32).view(np.float32))

    def step():
        check(lib().mcdnnRNNForward(h, rnn, 1, seq, x_desc, x, y_desc, y, h_desc, None, None, h_desc, None, None,
                                    space, weights, work, ws, reserve, rs), "mcdnnRNNForward")
        check(lib().mcdnnRNNBackwardData_v8(h, rnn, seq, y_desc, y, dy, x_desc, dx, h_desc, None, None, None, h_desc,
                                            None, None, None, space, weights, work, ws, reserve, rs),
              "mcdnnRNNBackwardData_v8")
        check(lib().mcdnnRNNBackwardWeights_v8(h, rnn, 1, seq, x_desc, x, h_desc, None, y_desc, y, space, grads, work,
                                               ws, reserve, rs), "mcdnnRNNBackwardWeights_v8")
        sync()

    module = torch.nn.LSTM(HIDDEN, HIDDEN)
    xt = torch.randn(T, B, HIDDEN, requires_grad=True)
    dyt = torch.randn(T, B, HIDDEN)

    def peer():
        out, _ = module(xt)
        out.backward(dyt)

    mine, theirs = best_of(step, peer, rounds=2, calls=2)
    row("LSTM fwd+bwd seq %d batch %d hidden %d (RNN v8)" % (T, B, HIDDEN), mine, "ms", reference=theirs,
        reference_name="torch", ratio=1.5)


# ---- backend-API convolution ----

def backend(kind, attributes):
    """A finalized backend descriptor: attributes (name, type, ctypes type, values)."""
    d = c_void_p()
    check(lib().mcdnnBackendCreateDescriptor(kind, ctypes.byref(d)), "mcdnnBackendCreateDescriptor %d" % kind)
    for name, type_code, ctype, values in attributes:
        array = (ctype * len(values))(*values)
        check(lib().mcdnnBackendSetAttribute(d, name, type_code, c_int64(len(values)), array),
              "mcdnnBackendSetAttribute %d" % name)
    check(lib().mcdnnBackendFinalize(d), "mcdnnBackendFinalize %d" % kind)
    return d


def tensor(uid, dims):
    strides = [int(np.prod(dims[i + 1:])) for i in range(len(dims))]
    return backend(17, [(901, 1, c_int, [0]), (902, 3, c_int64, dims), (903, 3, c_int64, strides),
                        (906, 3, c_int64, [uid]), (900, 3, c_int64, [16])])


def convolutions():
    h = c_void_p()
    check(lib().mcdnnCreate(ctypes.byref(h)), "mcdnnCreate")
    rng = np.random.default_rng(1)
    X = device(rng.standard_normal((N, C, H, W)))
    Wt = device(rng.standard_normal((C, C, 3, 3)))
    Y = device(np.zeros((N, C, H, W)))
    one, zero = ctypes.byref(ctypes.c_float(1)), ctypes.byref(ctypes.c_float(0))
    xd = descriptor((N, C, H, W))
    fd, cd = c_void_p(), c_void_p()
    check(lib().mcdnnCreateFilterDescriptor(ctypes.byref(fd)), "mcdnnCreateFilterDescriptor")
    check(lib().mcdnnSetFilter4dDescriptor(fd, 0, 0, C, C, 3, 3), "mcdnnSetFilter4dDescriptor")
    check(lib().mcdnnCreateConvolutionDescriptor(ctypes.byref(cd)), "mcdnnCreateConvolutionDescriptor")
    check(lib().mcdnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, 1, 0), "mcdnnSetConvolution2dDescriptor")

    def legacy():
        check(lib().mcdnnConvolutionForward(h, one, xd, X, fd, Wt, cd, 1, None, ctypes.c_size_t(0), zero, xd, Y),
              "mcdnnConvolutionForward")
        sync()

    conv = backend(1, [(100, 1, c_int, [0]), (101, 7, c_int, [1]), (106, 3, c_int64, [2]),
                       (102, 3, c_int64, [1, 1]), (103, 3, c_int64, [1, 1]), (104, 3, c_int64, [1, 1]),
                       (105, 3, c_int64, [1, 1])])
    op = backend(10, [(704, 15, c_void_p, [tensor(1, [N, C, H, W]).value]),
                      (703, 15, c_void_p, [tensor(2, [C, C, 3, 3]).value]),
                      (705, 15, c_void_p, [tensor(3, [N, C, H, W]).value]), (702, 15, c_void_p, [conv.value]),
                      (700, 4, ctypes.c_float, [1.0]), (701, 4, ctypes.c_float, [0.0])])
    graph = backend(15, [(800, 0, c_void_p, [h.value]), (801, 15, c_void_p, [op.value])])
    heur = backend(4, [(201, 15, c_void_p, [graph.value]), (200, 8, c_int, [0])])
    config, count = c_void_p(), c_int64()
    check(lib().mcdnnBackendCreateDescriptor(3, ctypes.byref(config)), "mcdnnBackendCreateDescriptor")
    check(lib().mcdnnBackendGetAttribute(heur, 202, 15, c_int64(1), ctypes.byref(count), ctypes.byref(config)),
          "engine heuristics")
    plan = backend(5, [(400, 0, c_void_p, [h.value]), (401, 15, c_void_p, [config.value])])
    pack = backend(16, [(1000, 3, c_int64, [1, 2, 3]), (1001, 6, c_void_p, [X.value, Wt.value, Y.value]),
                        (1003, 6, c_void_p, [None])])

    def graph_api():
        check(lib().mcdnnBackendExecute(h, plan, pack), "mcdnnBackendExecute")
        sync()

    mine, theirs = best_of(graph_api, legacy, rounds=3, calls=3)
    row("conv 3x3 forward N=%d C=K=%d %dx%d, backend API" % (N, C, H, W), mine, "ms", reference=theirs,
        reference_name="legacy API", ratio=1.05)


# ---- mcblasLtMatmul with bias + ReLU ----

def lt_matmul():
    rng = np.random.default_rng(2)
    A, Bm = device(rng.uniform(-0.5, 0.5, M * M)), device(rng.uniform(-0.5, 0.5, M * M))
    D, bias = buffer(M * M * 4), device(rng.uniform(-1, 1, M))
    handle, blas = c_void_p(), c_void_p()
    check(lt().mcblasLtCreate(ctypes.byref(handle)), "mcblasLtCreate")
    check(ctypes.CDLL(str(opemu.prefix() / "lib" / "libmcblas.so")).mcblasCreate(ctypes.byref(blas)), "mcblasCreate")
    desc, layout = c_void_p(), c_void_p()
    check(lt().mcblasLtMatmulDescCreate(ctypes.byref(desc), 68, 0), "mcblasLtMatmulDescCreate")   # COMPUTE_32F, R_32F
    epilogue, pointer = ctypes.c_uint32(6), c_void_p(bias.value)   # MCBLASLT_EPILOGUE_RELU_BIAS
    check(lt().mcblasLtMatmulDescSetAttribute(desc, 7, ctypes.byref(epilogue), ctypes.c_size_t(4)), "epilogue")
    check(lt().mcblasLtMatmulDescSetAttribute(desc, 8, ctypes.byref(pointer), ctypes.c_size_t(8)), "bias pointer")
    check(lt().mcblasLtMatrixLayoutCreate(ctypes.byref(layout), 0, ctypes.c_uint64(M), ctypes.c_uint64(M),
                                          c_int64(M)), "mcblasLtMatrixLayoutCreate")
    alpha, beta = ctypes.c_float(1), ctypes.c_float(0)
    sgemm = ctypes.CDLL(str(opemu.prefix() / "lib" / "libmcblas.so")).mcblasSgemm

    def epilogue_matmul():
        check(lt().mcblasLtMatmul(handle, desc, ctypes.byref(alpha), A, layout, Bm, layout, ctypes.byref(beta), D,
                                  layout, D, layout, None, None, ctypes.c_size_t(0), None), "mcblasLtMatmul")
        sync()

    def gemm():
        check(sgemm(blas, 0, 0, M, M, M, ctypes.byref(alpha), A, M, Bm, M, ctypes.byref(beta), D, M),
              "mcblasSgemm")
        sync()

    host = np.zeros((M, M), np.float32)
    mine, floor = best_of(epilogue_matmul, gemm, rounds=3, calls=3)
    one_pass, _ = best_of(lambda: np.maximum(host, 0, out=host), lambda: None, rounds=2, calls=5)
    row("mcblasLtMatmul %d^3 fp32, bias+ReLU epilogue" % M, mine, "ms", reference=floor + one_pass,
        reference_name="mcblasSgemm + one pass", ratio=1.1)


def main():
    print("targets: LSTM <= 1.5x torch (%d threads), backend conv <= 1.05x legacy, Lt epilogue <= 1.1x "
          "GEMM + one pass" % torch.get_num_threads(), flush=True)
    lstm_step()
    convolutions()
    lt_matmul()


if __name__ == "__main__":
    main()
