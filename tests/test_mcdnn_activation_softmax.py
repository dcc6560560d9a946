"""mcDNN activation and softmax forward/backward through the C ABI: numerics against PyTorch CPU, every data
type, NCHW / NHWC / padded strides, in place, NaN and infinite gradients."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (FLOAT, FLOAT_TYPES, Desc, DeviceTensor, c_int, call, handle, layout_strides, lib, recent_error,
                rounded, scale)
from mc_ops import DIMS, TYPE_IDS, close, make_activation, torch_pair, untouched_outside


ACTIVATIONS = {  # mode: (coef, torch forward on float64)
    0: (0.0, torch.sigmoid),
    1: (0.0, torch.relu),
    2: (0.0, torch.tanh),
    3: (1.5, lambda t: F.hardtanh(t, 0.0, 1.5)),
    4: (0.8, lambda t: F.elu(t, 0.8)),
    5: (0.0, lambda t: t),
    6: (0.0, F.silu),
}


@pytest.mark.parametrize("layout", ["nchw", "nhwc", "padded"])
@pytest.mark.parametrize("code", FLOAT_TYPES, ids=TYPE_IDS.get)
@pytest.mark.parametrize("mode", sorted(ACTIVATIONS))
def test_activation_matches_torch(handle, mode, code, layout):
    rng = np.random.default_rng(mode)
    coef, fn = ACTIVATIONS[mode]
    x = rounded(rng.standard_normal(DIMS) * 2, code)
    dy = rounded(rng.standard_normal(DIMS), code)
    desc = Desc(code, DIMS, layout_strides(layout, DIMS))
    act = make_activation(mode, coef)
    X, Y, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc), DeviceTensor(desc, dy), DeviceTensor(desc)
    assert call("mcdnnActivationForward", handle, act, scale(1, code), desc.handle, X.address, scale(0, code),
                desc.handle, Y.address) == 0, recent_error()
    y_ref, dx_ref = torch_pair(fn, x, dy)
    close(Y.read(), y_ref, code)
    assert call("mcdnnActivationBackward", handle, act, scale(1, code), desc.handle, Y.address, desc.handle,
                DY.address, desc.handle, X.address, scale(0, code), desc.handle, DX.address) == 0, recent_error()
    close(DX.read(), dx_ref, code)
    assert untouched_outside(Y) and untouched_outside(DX)


def test_swish_beta_and_nan_propagation(handle):
    x = np.array([-3.0, -0.5, 0.0, 0.7, 2.5, np.nan], np.float32).reshape(1, 1, 2, 3)
    desc = Desc(FLOAT, x.shape)
    X, Y = DeviceTensor(desc, x), DeviceTensor(desc)
    act = make_activation(6, 0.0, swish_beta=1.7)
    assert call("mcdnnActivationForward", handle, act, scale(1, FLOAT), desc.handle, X.address, scale(0, FLOAT),
                desc.handle, Y.address) == 0
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(Y.read()[..., :5].ravel()[:5], (x64 / (1 + np.exp(-1.7 * x64))).ravel()[:5], rtol=1e-6)
    beta = ctypes.c_double()
    assert lib().mcdnnGetActivationDescriptorSwishBeta(act, ctypes.byref(beta)) == 0 and beta.value == 1.7
    for nan_opt, expected in ((0, 0.0), (1, np.nan)):
        relu = make_activation(1, 0.0, nan=nan_opt)
        assert call("mcdnnActivationForward", handle, relu, scale(1, FLOAT), desc.handle, X.address,
                    scale(0, FLOAT), desc.handle, Y.address) == 0
        np.testing.assert_array_equal(Y.read().ravel()[-1], expected)


def test_activation_in_place(handle):
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(1, 2, 3, 4)
    desc = Desc(FLOAT, x.shape)
    X = DeviceTensor(desc, x)
    act = make_activation(2, 0.0)
    assert call("mcdnnActivationForward", handle, act, scale(1, FLOAT), desc.handle, X.address, scale(0, FLOAT),
                desc.handle, X.address) == 0
    np.testing.assert_allclose(X.read(), np.tanh(x), rtol=1e-6)


# ---------------- softmax ----------------

@pytest.mark.parametrize("layout", ["nchw", "nhwc", "padded"])
@pytest.mark.parametrize("code", FLOAT_TYPES, ids=TYPE_IDS.get)
@pytest.mark.parametrize("mode", [0, 1], ids=["instance", "channel"])
@pytest.mark.parametrize("algo", [0, 1, 2], ids=["fast", "accurate", "log"])
def test_softmax_matches_torch(handle, algo, mode, code, layout):
    rng = np.random.default_rng(algo * 2 + mode)
    x = rounded(rng.standard_normal(DIMS) * 3, code)
    dy = rounded(rng.standard_normal(DIMS), code)
    desc = Desc(code, DIMS, layout_strides(layout, DIMS))
    X, Y, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc), DeviceTensor(desc, dy), DeviceTensor(desc)
    fn = F.log_softmax if algo == 2 else F.softmax

    def reference(t):
        return fn(t.reshape(DIMS[0], -1), 1).reshape(DIMS) if mode == 0 else fn(t, 1)
    assert call("mcdnnSoftmaxForward", handle, c_int(algo), c_int(mode), scale(1, code), desc.handle, X.address,
                scale(0, code), desc.handle, Y.address) == 0, recent_error()
    y_ref, _ = torch_pair(reference, x, dy)
    close(Y.read(), y_ref, code)
    # the backward uses the y the device holds
    y_dev = Y.read().astype(np.float64)
    yt = torch.tensor(y_dev)
    dyt = torch.tensor(dy)
    if algo == 2:
        dims = tuple(range(1, 4)) if mode == 0 else (1,)
        dx_ref = (dyt - torch.exp(yt) * dyt.sum(dims, keepdim=True)).numpy()
    else:
        dims = tuple(range(1, 4)) if mode == 0 else (1,)
        dx_ref = (yt * (dyt - (dyt * yt).sum(dims, keepdim=True))).numpy()
    assert call("mcdnnSoftmaxBackward", handle, c_int(algo), c_int(mode), scale(1, code), desc.handle, Y.address,
                desc.handle, DY.address, scale(0, code), desc.handle, DX.address) == 0, recent_error()
    close(DX.read(), dx_ref, code)
    assert untouched_outside(Y) and untouched_outside(DX)


def test_softmax_fast_overflows_where_accurate_does_not(handle):
    x = np.array([100.0, 0.0], np.float32).reshape(1, 2, 1, 1)
    desc = Desc(FLOAT, x.shape)
    X, Y = DeviceTensor(desc, x), DeviceTensor(desc)
    for algo, finite in ((0, False), (1, True)):
        assert call("mcdnnSoftmaxForward", handle, c_int(algo), c_int(1), scale(1, FLOAT), desc.handle, X.address,
                    scale(0, FLOAT), desc.handle, Y.address) == 0
        assert np.isfinite(Y.read()).all() == finite


def test_relu_backward_blocks_infinite_gradients_where_x_is_not_positive(handle):
    x = np.array([-1.0, 2.0, 0.0, 3.0], np.float32).reshape(1, 1, 2, 2)
    dy = np.array([np.inf, 5.0, np.nan, -np.inf], np.float32).reshape(1, 1, 2, 2)
    desc = Desc(FLOAT, x.shape)
    X, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc, dy), DeviceTensor(desc)
    act = make_activation(1, 0.0)
    assert call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), desc.handle, X.address, desc.handle,
                DY.address, desc.handle, X.address, scale(0, FLOAT), desc.handle, DX.address) == 0
    np.testing.assert_array_equal(DX.read().ravel(), [0, 5, 0, -np.inf])
