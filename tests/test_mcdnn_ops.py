"""What every mcDNN forward/backward pair shares, through the C ABI: beta != 0 accumulates and beta == 0 never
reads, the tensor utilities, the statuses the seed and cuDNN document, launches outside device memory and
the handle's stream."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BAD_PARAM, DOUBLE, FLOAT, FLOAT_TYPES, HALF, INT32, INT8, NOT_SUPPORTED, NUMPY, Desc, DeviceTensor,
                c_int, c_void_p, call, handle, lib, nhwc_strides, recent_error, rounded, scale)
from mc_ops import TYPE_IDS, close, divnorm_reference, make_activation, make_lrn, make_pooling, untouched_outside


def test_every_routine_blends_alpha_and_beta(handle):
    rng = np.random.default_rng(11)
    dims = (2, 4, 4, 4)
    desc = Desc(FLOAT, dims)
    x = rng.standard_normal(dims).astype(np.float32)
    prior = rng.standard_normal(dims).astype(np.float32)
    alpha, beta = 0.7, 0.4
    act = make_activation(1, 0.0)
    lrn = make_lrn(3, 0.5, 0.75, 2.0)
    pool = make_pooling(1, (1, 1), (0, 0), (1, 1))
    T1, T2 = DeviceTensor(desc), DeviceTensor(desc)
    forwards = {
        "activation": (lambda X, Y, a, b: call("mcdnnActivationForward", handle, act, a, desc.handle, X.address, b,
                                               desc.handle, Y.address), np.maximum(x, 0)),
        "softmax": (lambda X, Y, a, b: call("mcdnnSoftmaxForward", handle, c_int(1), c_int(1), a, desc.handle, X.address,
                                            b, desc.handle, Y.address), F.softmax(torch.tensor(x), 1).numpy()),
        "pooling": (lambda X, Y, a, b: call("mcdnnPoolingForward", handle, pool, a, desc.handle, X.address, b,
                                            desc.handle, Y.address), x),
        "lrn": (lambda X, Y, a, b: call("mcdnnLRNCrossChannelForward", handle, lrn, c_int(0), a, desc.handle, X.address,
                                        b, desc.handle, Y.address),
                F.local_response_norm(torch.tensor(x), 3, 0.5, 0.75, 2.0).numpy()),
        "divnorm": (lambda X, Y, a, b: call("mcdnnDivisiveNormalizationForward", handle, lrn, c_int(0), a, desc.handle,
                                            X.address, None, T1.address, T2.address, b, desc.handle, Y.address),
                    divnorm_reference(x.astype(np.float64), None, 3, 0.5, 0.75, 2.0)),
        "transform": (lambda X, Y, a, b: call("mcdnnTransformTensor", handle, a, desc.handle, X.address, b, desc.handle,
                                              Y.address), x),
        "add": (lambda X, Y, a, b: call("mcdnnAddTensor", handle, a, desc.handle, X.address, b, desc.handle, Y.address),
                x),
    }
    for name, (run, result) in forwards.items():
        X = DeviceTensor(desc, x)
        Y = DeviceTensor(desc, prior)
        assert run(X, Y, scale(alpha, FLOAT), scale(beta, FLOAT)) == 0, (name, recent_error())
        np.testing.assert_allclose(Y.read(), alpha * result + beta * prior, rtol=1e-5, atol=1e-6, err_msg=name)
        Z = DeviceTensor(desc)  # NaN-filled: beta == 0 must not read it
        assert run(X, Z, scale(alpha, FLOAT), scale(0, FLOAT)) == 0
        np.testing.assert_allclose(Z.read(), alpha * result, rtol=1e-5, atol=1e-6, err_msg=name)


def test_backward_routines_accumulate_into_dx(handle):
    rng = np.random.default_rng(12)
    dims = (2, 3, 4, 4)
    desc = Desc(DOUBLE, dims)
    x, dy, prior = (rng.standard_normal(dims) for _ in range(3))
    act = make_activation(0, 0.0)
    X, DY = DeviceTensor(desc, x), DeviceTensor(desc, dy)
    Y = DeviceTensor(desc, 1 / (1 + np.exp(-x)))
    DX = DeviceTensor(desc, prior)
    assert call("mcdnnActivationBackward", handle, act, scale(2.0, DOUBLE), desc.handle, Y.address, desc.handle,
                DY.address, desc.handle, X.address, scale(-0.5, DOUBLE), desc.handle, DX.address) == 0
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(DX.read(), 2.0 * dy * s * (1 - s) - 0.5 * prior, rtol=1e-12)


# ---------------- tensor utilities ----------------

@pytest.mark.parametrize("code", FLOAT_TYPES, ids=TYPE_IDS.get)
def test_tensor_utilities(handle, code):
    rng = np.random.default_rng(5)
    dims = (2, 3, 4, 5)
    c = rounded(rng.standard_normal(dims), code)
    bias = rounded(rng.standard_normal((1, 3, 1, 1)), code)
    cd, bd = Desc(code, dims), Desc(code, (1, 3, 1, 1))
    C, B = DeviceTensor(cd, c), DeviceTensor(bd, bias)
    assert call("mcdnnAddTensor", handle, scale(1, code), bd.handle, B.address, scale(1, code), cd.handle,
                C.address) == 0, recent_error()
    close(C.read(), rounded(c + bias, code), code, scale_of=4)
    assert call("mcdnnScaleTensor", handle, cd.handle, C.address, scale(0.5, code)) == 0
    close(C.read(), rounded(rounded(c + bias, code) * 0.5, code), code, scale_of=2)
    nhwc = Desc(code, dims, nhwc_strides(dims))
    Y = DeviceTensor(nhwc)
    assert call("mcdnnTransformTensor", handle, scale(1, code), cd.handle, C.address, scale(0, code), nhwc.handle,
                Y.address) == 0
    np.testing.assert_array_equal(Y.read(), C.read())
    value = np.array([2.5], NUMPY[code])
    assert call("mcdnnSetTensor", handle, nhwc.handle, Y.address, ctypes.c_void_p(value.ctypes.data)) == 0
    assert (Y.read() == 2.5).all() and untouched_outside(Y)


def test_set_tensor_takes_integer_types(handle):
    desc = Desc(INT32, (1, 2, 2, 2))
    Y = DeviceTensor(desc)
    value = np.array([-7], np.int32)
    assert call("mcdnnSetTensor", handle, desc.handle, Y.address, ctypes.c_void_p(value.ctypes.data)) == 0
    assert (Y.read() == -7).all()


# ---------------- statuses ----------------

def test_forward_statuses(handle):
    d4 = Desc(FLOAT, (1, 2, 3, 4))
    other = Desc(FLOAT, (1, 2, 3, 5))
    half = Desc(HALF, (1, 2, 3, 4))
    int8 = Desc(INT8, (1, 2, 3, 4))
    nhwc = Desc(FLOAT, (1, 2, 3, 4), nhwc_strides((1, 2, 3, 4)))
    X, Y = DeviceTensor(d4, np.ones((1, 2, 3, 4))), DeviceTensor(d4)
    act = make_activation(1, 0.0)
    one, zero = scale(1, FLOAT), scale(0, FLOAT)

    def activation(desc_x, desc_y, x=X.address, y=Y.address, a=act, h=handle, alpha=one):
        return call("mcdnnActivationForward", h, a, alpha, desc_x.handle, x, zero, desc_y.handle, y)
    assert activation(d4, d4, h=None) == BAD_PARAM
    assert activation(d4, d4, a=None) == BAD_PARAM
    assert activation(d4, d4, x=None) == BAD_PARAM
    assert activation(d4, d4, alpha=None) == BAD_PARAM
    assert activation(d4, other) == BAD_PARAM
    assert "dimensions" in recent_error()
    assert activation(d4, half) == BAD_PARAM
    assert activation(d4, nhwc, y=X.address) == BAD_PARAM  # in place with different strides
    assert activation(int8, int8) == NOT_SUPPORTED
    assert activation(d4, nhwc) == 0
    for algo, mode in ((3, 0), (0, 2)):
        assert call("mcdnnSoftmaxForward", handle, c_int(algo), c_int(mode), one, d4.handle, X.address, zero,
                    d4.handle, Y.address) == BAD_PARAM
    assert call("mcdnnSoftmaxForward", handle, c_int(0), c_int(0), one, d4.handle, X.address, zero, other.handle,
                Y.address) == BAD_PARAM
    assert call("mcdnnSoftmaxForward", handle, c_int(0), c_int(0), one, d4.handle, X.address, zero, half.handle,
                Y.address) == BAD_PARAM
    # a destroyed descriptor and a foreign pointer are BAD_PARAM, not a crash
    dead = Desc(FLOAT, (1, 2, 3, 4))
    stale = c_void_p(dead.handle.value)
    dead.destroy()
    assert call("mcdnnActivationForward", handle, act, one, stale, X.address, zero, d4.handle, Y.address) == BAD_PARAM
    assert call("mcdnnActivationForward", handle, X.address, one, d4.handle, X.address, zero, d4.handle,
                Y.address) == BAD_PARAM
    never_set = c_void_p()
    lib().mcdnnCreateTensorDescriptor(ctypes.byref(never_set))
    assert call("mcdnnActivationForward", handle, act, one, never_set, X.address, zero, d4.handle, Y.address) == BAD_PARAM


def test_activation_backward_statuses(handle):
    d = Desc(FLOAT, (1, 2, 3, 4))
    nhwc = Desc(FLOAT, (1, 2, 3, 4), nhwc_strides((1, 2, 3, 4)))
    other = Desc(FLOAT, (1, 2, 3, 5))
    half = Desc(HALF, (1, 2, 3, 4))
    T = [DeviceTensor(d, np.ones((1, 2, 3, 4))) for _ in range(4)]
    act = make_activation(1, 0.0)

    def backward(y=d, dy=d, x=d, dx=d, dx_address=None):
        return call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), y.handle, T[0].address, dy.handle,
                    T[1].address, x.handle, T[2].address, scale(0, FLOAT), dx.handle, dx_address or T[3].address)
    assert backward(dx=nhwc, dx_address=T[1].address) == BAD_PARAM         # in place, strides differ
    assert backward(x=other, dx=other) == NOT_SUPPORTED                      # dims differ
    assert backward(dx=half) == NOT_SUPPORTED                                # data types differ
    assert backward(dy=nhwc) == NOT_SUPPORTED                                # y / dy strides differ
    assert backward(dx=nhwc) == NOT_SUPPORTED                                # x / dx strides differ
    assert backward() == 0


def test_softmax_backward_statuses(handle):
    d = Desc(FLOAT, (1, 2, 3, 4))
    nhwc = Desc(FLOAT, (1, 2, 3, 4), nhwc_strides((1, 2, 3, 4)))
    other = Desc(FLOAT, (1, 2, 3, 5))
    half = Desc(HALF, (1, 2, 3, 4))
    T = [DeviceTensor(d, np.ones((1, 2, 3, 4))) for _ in range(3)]

    def backward(y=d, dy=d, dx=d):
        return call("mcdnnSoftmaxBackward", handle, c_int(1), c_int(1), scale(1, FLOAT), y.handle, T[0].address,
                    dy.handle, T[1].address, scale(0, FLOAT), dx.handle, T[2].address)
    assert backward(dx=other) == BAD_PARAM
    assert backward(dy=nhwc) == BAD_PARAM
    assert backward(dx=half) == BAD_PARAM
    assert backward(dx=nhwc) == 0


def test_pooling_statuses(handle):
    dims = (1, 2, 4, 4)
    d, y = Desc(FLOAT, dims), Desc(FLOAT, (1, 2, 2, 2))
    nhwc, y_nhwc = Desc(FLOAT, dims, nhwc_strides(dims)), Desc(FLOAT, (1, 2, 2, 2), nhwc_strides((1, 2, 2, 2)))
    padded_y = Desc(FLOAT, (1, 2, 2, 2), [16, 8, 4, 1])
    y_other_c = Desc(FLOAT, (1, 3, 2, 2))
    half_y = Desc(HALF, (1, 2, 2, 2))
    d5 = Desc(FLOAT, (1, 2, 2, 4, 4))
    X, Y, DY, DX = DeviceTensor(d, np.ones(dims)), DeviceTensor(y_other_c), DeviceTensor(y_other_c), DeviceTensor(d)
    pool = make_pooling(0, (2, 2), (0, 0), (2, 2))
    pool1d = make_pooling(0, (2,), (0,), (2,))

    def forward(xd=d, yd=y, p=pool):
        return call("mcdnnPoolingForward", handle, p, scale(1, FLOAT), xd.handle, X.address, scale(0, FLOAT), yd.handle,
                    Y.address)

    def backward(yd=y, dyd=y, xd=d, dxd=d):
        return call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), yd.handle, Y.address, dyd.handle,
                    DY.address, xd.handle, X.address, scale(0, FLOAT), dxd.handle, DX.address)
    assert forward(p=None) == BAD_PARAM
    assert forward(yd=y_other_c) == BAD_PARAM          # n, c differ
    assert forward(yd=half_y) == BAD_PARAM             # data types differ
    assert forward(xd=d5) == BAD_PARAM                 # 2-D pooling on a 5-D tensor
    assert forward(xd=nhwc, yd=y_nhwc) == NOT_SUPPORTED  # wStride != 1
    assert forward(p=pool1d, xd=Desc(FLOAT, (1, 2, 4)), yd=Desc(FLOAT, (1, 2, 2))) == NOT_SUPPORTED
    assert forward() == 0
    assert backward(dyd=Desc(FLOAT, (1, 2, 3, 3))) == BAD_PARAM   # y / dy dims differ
    assert backward(dyd=padded_y) == BAD_PARAM                    # y / dy strides differ
    assert backward(dxd=Desc(FLOAT, (1, 2, 4, 5))) == BAD_PARAM   # x / dx dims differ
    assert backward(dxd=Desc(FLOAT, dims, [64, 16, 4, 1])) == BAD_PARAM  # x / dx strides differ
    assert backward(yd=half_y, dyd=half_y) == BAD_PARAM           # data types differ
    assert backward(yd=y_nhwc, dyd=y_nhwc, xd=nhwc, dxd=nhwc) == NOT_SUPPORTED
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), None, None, y.handle, DY.address, None, None,
                scale(0, FLOAT), d.handle, DX.address) == BAD_PARAM  # max pooling needs x and y
    assert backward() == 0


def test_lrn_statuses(handle):
    d = Desc(FLOAT, (1, 4, 3, 3))
    d3 = Desc(FLOAT, (1, 4, 3))
    half = Desc(HALF, (1, 4, 3, 3))
    other = Desc(FLOAT, (1, 4, 3, 4))
    d5_strided = Desc(FLOAT, (1, 2, 2, 3, 3), [40, 20, 10, 3, 1])
    X, Y = DeviceTensor(d, np.ones((1, 4, 3, 3))), DeviceTensor(d)
    lrn = make_lrn(3, 1e-4, 0.75, 2.0)
    bad = c_void_p()
    lib().mcdnnCreateLRNDescriptor(ctypes.byref(bad))
    assert lib().mcdnnSetLRNDescriptor(bad, 17, 1e-4, 0.75, 2.0) == BAD_PARAM
    assert lib().mcdnnSetLRNDescriptor(bad, 5, 1e-4, 0.001, 2.0) == BAD_PARAM
    assert lib().mcdnnSetLRNDescriptor(bad, 5, 1e-4, 0.75, 1e-6) == BAD_PARAM

    def forward(xd=d, yd=d, x=X.address, mode=0, desc=lrn):
        return call("mcdnnLRNCrossChannelForward", handle, desc, c_int(mode), scale(1, FLOAT), xd.handle, x,
                    scale(0, FLOAT), yd.handle, Y.address)
    assert forward(x=None) == BAD_PARAM
    assert forward(mode=1) == BAD_PARAM
    assert forward(xd=d3, yd=d3) == NOT_SUPPORTED
    assert forward(xd=d5_strided, yd=d5_strided) == BAD_PARAM
    assert forward(yd=half) == NOT_SUPPORTED
    assert forward(yd=other) == NOT_SUPPORTED
    assert forward() == 0
    DY, DX = DeviceTensor(d), DeviceTensor(d)
    assert call("mcdnnLRNCrossChannelBackward", handle, lrn, c_int(0), scale(1, FLOAT), d.handle, None, d.handle,
                DY.address, d.handle, X.address, scale(0, FLOAT), d.handle, DX.address) == BAD_PARAM
    assert call("mcdnnLRNCrossChannelBackward", handle, lrn, c_int(0), scale(1, FLOAT), d.handle, Y.address, d.handle,
                DY.address, d.handle, X.address, scale(0, FLOAT), other.handle, DX.address) == NOT_SUPPORTED


def test_divisive_normalization_statuses(handle):
    d = Desc(FLOAT, (1, 2, 3, 3))
    d3 = Desc(FLOAT, (1, 2, 9))
    other = Desc(FLOAT, (1, 2, 3, 4))
    strided = Desc(FLOAT, (1, 2, 3, 3), [24, 12, 4, 1])
    T = [DeviceTensor(d, np.ones((1, 2, 3, 3))) for _ in range(6)]
    lrn = make_lrn(3, 1e-4, 0.75, 2.0)

    def forward(xd=d, yd=d, temp=T[2].address, alpha=scale(1, FLOAT), y=T[1].address):
        return call("mcdnnDivisiveNormalizationForward", handle, lrn, c_int(0), alpha, xd.handle, T[0].address, None,
                    temp, T[3].address, scale(0, FLOAT), yd.handle, y)
    assert forward(temp=None) == BAD_PARAM
    assert forward(xd=d3, yd=d3) == BAD_PARAM
    assert forward(yd=other) == BAD_PARAM
    assert forward(yd=strided, y=T[0].address) == BAD_PARAM   # in place, strides differ
    assert forward(alpha=None) == BAD_PARAM
    assert forward(yd=strided) == NOT_SUPPORTED
    assert forward() == 0

    def backward(xd=d, dxd=d, temp2=T[3].address, beta=scale(0, FLOAT), dx=T[4].address):
        return call("mcdnnDivisiveNormalizationBackward", handle, lrn, c_int(0), scale(1, FLOAT), xd.handle,
                    T[0].address, None, T[1].address, T[2].address, temp2, beta, dxd.handle, dx, None)
    assert backward(temp2=None) == BAD_PARAM
    assert backward(dx=None) == BAD_PARAM
    assert backward(xd=d3, dxd=d3) == BAD_PARAM
    assert backward(beta=None) == BAD_PARAM
    assert backward(dxd=other) == BAD_PARAM
    assert backward(dxd=strided) == NOT_SUPPORTED
    assert backward() == 0


def test_tensor_utility_statuses(handle):
    c = Desc(FLOAT, (2, 3, 4, 5))
    bad_bias = Desc(FLOAT, (1, 2, 1, 1))
    half_bias = Desc(HALF, (1, 3, 1, 1))
    C = DeviceTensor(c, np.zeros((2, 3, 4, 5)))
    B = DeviceTensor(half_bias)
    assert call("mcdnnAddTensor", handle, scale(1, FLOAT), bad_bias.handle, B.address, scale(1, FLOAT), c.handle,
                C.address) == BAD_PARAM
    assert call("mcdnnAddTensor", handle, scale(1, FLOAT), half_bias.handle, B.address, scale(1, FLOAT), c.handle,
                C.address) == BAD_PARAM
    assert call("mcdnnTransformTensor", handle, scale(1, FLOAT), c.handle, C.address, scale(0, FLOAT),
                Desc(FLOAT, (2, 3, 4, 6)).handle, C.address) == BAD_PARAM
    assert call("mcdnnSetTensor", handle, c.handle, C.address, None) == BAD_PARAM
    assert call("mcdnnScaleTensor", handle, Desc(INT32, (1, 1, 1, 4)).handle, C.address, scale(1, FLOAT)) == NOT_SUPPORTED


def test_a_tensor_outside_device_memory_fails_the_launch(handle):
    d = Desc(FLOAT, (1, 2, 3, 4))
    host = np.ones(24, np.float32)
    Y = DeviceTensor(d)
    act = make_activation(1, 0.0)
    assert call("mcdnnActivationForward", handle, act, scale(1, FLOAT), d.handle, ctypes.c_void_p(host.ctypes.data),
                scale(0, FLOAT), d.handle, Y.address) == 8  # MCDNN_STATUS_EXECUTION_FAILED
    assert "illegal memory access" in recent_error()
    big = Desc(FLOAT, (1, 2, 3, 400))  # runs past Y's allocation
    assert call("mcdnnActivationForward", handle, act, scale(1, FLOAT), d.handle, Y.address, scale(0, FLOAT),
                big.handle, Y.address) == BAD_PARAM  # dims differ is checked first
    assert call("mcdnnActivationForward", handle, act, scale(1, FLOAT), big.handle, Y.address, scale(0, FLOAT),
                big.handle, Y.address) == 8


def test_work_runs_on_the_handles_stream(handle, monkeypatch):
    monkeypatch.setenv("OPEMU_STREAM", "deferred")
    stream = c_void_p()
    assert lib().mcStreamCreate(ctypes.byref(stream)) == 0
    assert call("mcdnnSetStream", handle, stream) == 0
    try:
        d = Desc(FLOAT, (1, 1, 2, 2))
        X, Y = DeviceTensor(d, -np.ones((1, 1, 2, 2))), DeviceTensor(d)
        act = make_activation(1, 0.0)
        assert call("mcdnnActivationForward", handle, act, scale(1, FLOAT), d.handle, X.address, scale(0, FLOAT),
                    d.handle, Y.address) == 0
        assert lib().mcStreamQuery(stream) == 600      # mcErrorNotReady: queued, not run
        assert lib().mcStreamSynchronize(stream) == 0
        assert (Y.read() == 0).all()
    finally:
        assert call("mcdnnSetStream", handle, None) == 0
        lib().mcStreamDestroy(stream)
