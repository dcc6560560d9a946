"""mcDNN forward/backward pairs through the C ABI: numerics against PyTorch CPU (and a float64 reference
where torch has no equivalent), every data type, NCHW / NHWC / padded strides, beta != 0, and the
statuses the seed and cuDNN document."""
import ctypes
import threading

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BAD_PARAM, BFLOAT16, DOUBLE, FLOAT, FLOAT_TYPES, HALF, INT32, INT8, NOT_SUPPORTED, NUMPY, Desc,
                DeviceTensor, Handle, c_int, c_void_p, call, lib, nhwc_strides, packed_strides, recent_error, scale)

DIMS = (2, 5, 6, 7)
TYPE_IDS = {FLOAT: "float", DOUBLE: "double", HALF: "half", BFLOAT16: "bf16"}
TOLERANCE = {FLOAT: 2e-5, DOUBLE: 1e-12, HALF: 2e-3, BFLOAT16: 1.6e-2}


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def layout_strides(layout, dims):
    if layout == "nchw":
        return packed_strides(dims)
    if layout == "nhwc":
        return nhwc_strides(dims)
    padded = list(dims)
    padded[-1] += 3          # rows padded by 3 elements
    padded[1] += 1           # and a spare channel
    return packed_strides(padded)


def rounded(values, code):
    """The values as the device holds them (rounded to the type), as float64."""
    return np.asarray(values).astype(NUMPY[code]).astype(np.float64)


def close(got, expected, code, scale_of=1.0, floor=0.0):
    tol = max(TOLERANCE[code], floor)
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=tol * 4, atol=tol * 4 * max(scale_of, 1e-3))


def untouched_outside(tensor):
    """The storage elements outside the view still hold the NaN fill."""
    storage = tensor.storage().astype(np.float64)
    inside = np.zeros(storage.size, bool)
    index = np.zeros(tensor.desc.dims, np.int64)
    for axis, (d, s) in enumerate(zip(tensor.desc.dims, tensor.desc.strides)):
        shape = [1] * len(tensor.desc.dims)
        shape[axis] = d
        index = index + (np.arange(d) * s).reshape(shape)
    inside[index.ravel()] = True
    return np.isnan(storage[~inside]).all()




# ---------------- activation ----------------

ACTIVATIONS = {  # mode: (coef, torch forward on float64)
    0: (0.0, torch.sigmoid),
    1: (0.0, torch.relu),
    2: (0.0, torch.tanh),
    3: (1.5, lambda t: F.hardtanh(t, 0.0, 1.5)),
    4: (0.8, lambda t: F.elu(t, 0.8)),
    5: (0.0, lambda t: t),
    6: (0.0, F.silu),
}


def make_activation(mode, coef, nan=0, swish_beta=None):
    desc = c_void_p()
    assert lib().mcdnnCreateActivationDescriptor(ctypes.byref(desc)) == 0
    assert lib().mcdnnSetActivationDescriptor(desc, mode, nan, coef) == 0
    if swish_beta is not None:
        assert lib().mcdnnSetActivationDescriptorSwishBeta(desc, swish_beta) == 0
    return desc


def torch_pair(fn, x, dy):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = fn(xt)
    yt.backward(torch.tensor(dy, dtype=torch.float64))
    return yt.detach().numpy(), xt.grad.numpy()


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


# ---------------- pooling ----------------

def make_pooling(mode, window, padding, stride, nan=0):
    desc = c_void_p()
    assert lib().mcdnnCreatePoolingDescriptor(ctypes.byref(desc)) == 0
    n = len(window)
    assert lib().mcdnnSetPoolingNdDescriptor(desc, mode, nan, n, ints(window), ints(padding), ints(stride)) == 0
    return desc


def ints(values):
    return (ctypes.c_int * len(values))(*values)


def output_dims(pool, desc):
    out = (ctypes.c_int * len(desc.dims))()
    assert lib().mcdnnGetPoolingNdForwardOutputDim(pool, desc.handle, len(desc.dims), out) == 0, recent_error()
    return tuple(out)


POOL_REFERENCE = {
    0: lambda t, k, p, s: (F.max_pool2d if t.dim() == 4 else F.max_pool3d)(t, k, s, p),
    1: lambda t, k, p, s: (F.avg_pool2d if t.dim() == 4 else F.avg_pool3d)(t, k, s, p, count_include_pad=True),
    2: lambda t, k, p, s: (F.avg_pool2d if t.dim() == 4 else F.avg_pool3d)(t, k, s, p, count_include_pad=False),
    3: lambda t, k, p, s: (F.max_pool2d if t.dim() == 4 else F.max_pool3d)(t, k, s, p),
}


@pytest.mark.parametrize("layout", ["nchw", "padded"])
@pytest.mark.parametrize("code", FLOAT_TYPES, ids=TYPE_IDS.get)
@pytest.mark.parametrize("geometry", ["2d", "2d-pad", "3d-pad"])
@pytest.mark.parametrize("mode", [0, 1, 2, 3], ids=["max", "avg-include", "avg-exclude", "max-deterministic"])
def test_pooling_matches_torch(handle, mode, geometry, code, layout):
    window, padding, stride = {"2d": ((2, 2), (0, 0), (2, 2)), "2d-pad": ((3, 3), (1, 1), (2, 2)),
                               "3d-pad": ((3, 2, 3), (1, 0, 1), (2, 1, 2))}[geometry]
    dims = DIMS if len(window) == 2 else (2, 3, 4, 5, 6)
    rng = np.random.default_rng(mode)
    # distinct values: no ties, so the max element is unambiguous
    x = rounded(rng.permutation(np.prod(dims)).reshape(dims) / np.prod(dims) * 4 - 2, code)
    if code in (HALF, BFLOAT16):
        x = rounded(rng.permutation(np.prod(dims)).reshape(dims) % 200 / 50 - 2, code)
    pool = make_pooling(mode, window, padding, stride)
    xd = Desc(code, dims, layout_strides(layout, dims))
    out = output_dims(pool, xd)
    yd = Desc(code, out, layout_strides(layout, out))
    fn = POOL_REFERENCE[mode]
    dy = rounded(rng.standard_normal(out), code)
    y_ref, dx_ref = torch_pair(lambda t: fn(t, window, padding, stride), x, dy)
    assert y_ref.shape == out
    X, Y, DY, DX = DeviceTensor(xd, x), DeviceTensor(yd), DeviceTensor(yd, dy), DeviceTensor(xd)
    assert call("mcdnnPoolingForward", handle, pool, scale(1, code), xd.handle, X.address, scale(0, code), yd.handle,
                Y.address) == 0, recent_error()
    close(Y.read(), y_ref, code)
    if code in (HALF, BFLOAT16) and mode in (0, 3):
        # ties after rounding: the device's first-max rule, checked against its own y
        y_dev = Y.read().astype(np.float64)
        dx_ref = first_max_backward(x, y_dev, dy, window, padding, stride)
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, code), yd.handle, Y.address, yd.handle, DY.address,
                xd.handle, X.address, scale(0, code), xd.handle, DX.address) == 0, recent_error()
    close(DX.read(), dx_ref, code, scale_of=np.abs(dy).max())
    assert untouched_outside(Y) and untouched_outside(DX)


def test_max_pooling_backward_of_fewer_images_than_threads_finishes(handle):
    """Two images of 64 planes: the batch split gives each thread one image, whose kernel call then splits its
    planes (once a wait that never ended: each thread's parts queued behind the other's)."""
    dims, window, padding, stride = (2, 64, 56, 56), (3, 3), (1, 1), (2, 2)
    rng = np.random.default_rng(5)
    x = rng.permutation(np.prod(dims)).reshape(dims).astype(np.float32)
    pool = make_pooling(0, window, padding, stride)
    xd = Desc(FLOAT, dims)
    yd = Desc(FLOAT, output_dims(pool, xd))
    dy = rng.standard_normal(output_dims(pool, xd)).astype(np.float32)
    X, Y, DY, DX = DeviceTensor(xd, x), DeviceTensor(yd), DeviceTensor(yd, dy), DeviceTensor(xd)
    assert call("mcdnnPoolingForward", handle, pool, scale(1, FLOAT), xd.handle, X.address, scale(0, FLOAT), yd.handle,
                Y.address) == 0
    statuses = []
    worker = threading.Thread(target=lambda: statuses.append(call(
        "mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), yd.handle, Y.address, yd.handle, DY.address, xd.handle,
        X.address, scale(0, FLOAT), xd.handle, DX.address)), daemon=True)
    worker.start()
    worker.join(120)
    assert statuses == [0], "mcdnnPoolingBackward did not return"
    _, dx_ref = torch_pair(lambda t: F.max_pool2d(t, window, stride, padding), x, dy)
    close(DX.read(), dx_ref, FLOAT, scale_of=np.abs(dy).max())


def first_max_backward(x, y, dy, window, padding, stride):
    """dy goes to the first element (row-major) of each window that equals y."""
    dx = np.zeros_like(x)
    spatial = x.shape[2:]
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for o in np.ndindex(*y.shape[2:]):
                starts = [oi * s - p for oi, s, p in zip(o, stride, padding)]
                for k in np.ndindex(*window):
                    pos = tuple(st + ki for st, ki in zip(starts, k))
                    if all(0 <= q < size for q, size in zip(pos, spatial)) and x[(n, c) + pos] == y[(n, c) + o]:
                        dx[(n, c) + pos] += dy[(n, c) + o]
                        break
    return dx


def test_average_backward_takes_null_x_and_y(handle):
    dims = (1, 2, 4, 4)
    pool = make_pooling(1, (2, 2), (0, 0), (2, 2))
    xd, yd = Desc(FLOAT, dims), Desc(FLOAT, (1, 2, 2, 2))
    dy = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2)
    DY, DX = DeviceTensor(yd, dy), DeviceTensor(xd)
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), None, None, yd.handle, DY.address, None, None,
                scale(0, FLOAT), xd.handle, DX.address) == 0, recent_error()
    np.testing.assert_array_equal(DX.read(), np.repeat(np.repeat(dy / 4, 2, 2), 2, 3))


def test_max_backward_ties_go_to_the_first_element(handle):
    x = np.array([[1.0, 2.0], [2.0, 2.0]], np.float32).reshape(1, 1, 2, 2)
    pool = make_pooling(3, (2, 2), (0, 0), (2, 2))
    xd, yd = Desc(FLOAT, x.shape), Desc(FLOAT, (1, 1, 1, 1))
    X, Y, DY, DX = DeviceTensor(xd, x), DeviceTensor(yd, [[[[2.0]]]]), DeviceTensor(yd, [[[[5.0]]]]), DeviceTensor(xd)
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), yd.handle, Y.address, yd.handle, DY.address,
                xd.handle, X.address, scale(0, FLOAT), xd.handle, DX.address) == 0
    np.testing.assert_array_equal(DX.read().ravel(), [0, 5, 0, 0])


def test_max_backward_follows_the_given_y_window_by_window(handle):
    """One call holding a tied window, a window whose y equals none of its elements (it sends nothing) and
    plain windows: each gets the first-equal rule on its own."""
    x = np.array([[3, 3, 1, 0], [0, 1, 2, 5], [4, 0, 7, 1], [1, 2, 0, 6]], np.float32).reshape(1, 1, 4, 4)
    y = np.array([[3, 9], [4, 7]], np.float32).reshape(1, 1, 2, 2)  # tie at (0,0)-(0,1); 9 is nowhere
    dy = np.array([[1, 2], [3, 4]], np.float32).reshape(1, 1, 2, 2)
    pool = make_pooling(0, (2, 2), (0, 0), (2, 2))
    xd, yd = Desc(FLOAT, x.shape), Desc(FLOAT, y.shape)
    X, Y, DY, DX = DeviceTensor(xd, x), DeviceTensor(yd, y), DeviceTensor(yd, dy), DeviceTensor(xd)
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), yd.handle, Y.address, yd.handle, DY.address,
                xd.handle, X.address, scale(0, FLOAT), xd.handle, DX.address) == 0, recent_error()
    np.testing.assert_array_equal(DX.read(), first_max_backward(x, y, dy, (2, 2), (0, 0), (2, 2)))
    np.testing.assert_array_equal(DX.read()[0, 0], [[1, 0, 0, 0], [0, 0, 0, 0], [3, 0, 4, 0], [0, 0, 0, 0]])


def test_output_larger_than_advised_clips_windows(handle):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    pool = make_pooling(0, (2, 2), (0, 0), (2, 2))
    xd, yd = Desc(FLOAT, x.shape), Desc(FLOAT, (1, 1, 3, 3))
    X, Y = DeviceTensor(xd, x), DeviceTensor(yd)
    assert call("mcdnnPoolingForward", handle, pool, scale(1, FLOAT), xd.handle, X.address, scale(0, FLOAT), yd.handle,
                Y.address) == 0
    np.testing.assert_array_equal(Y.read()[0, 0], [[5, 7, -np.inf], [13, 15, -np.inf], [-np.inf] * 3])


# ---------------- LRN ----------------

def make_lrn(n, alpha, beta, k):
    desc = c_void_p()
    assert lib().mcdnnCreateLRNDescriptor(ctypes.byref(desc)) == 0
    assert lib().mcdnnSetLRNDescriptor(desc, n, alpha, beta, k) == 0
    return desc


def lrn_reference(x, n, alpha, beta, k):
    """float64 cuDNN LRN with the [c-(n-1)//2, c+n-1-(n-1)//2] window (any n)."""
    behind = (n - 1) // 2
    ahead = n - 1 - behind
    C = x.shape[1]
    sq = x * x
    s = np.zeros_like(x)
    for c in range(C):
        s[:, c] = sq[:, max(0, c - behind):min(C, c + ahead + 1)].sum(1)
    return x * (k + alpha / n * s) ** -beta


def numeric_backward(fn, x, dy, eps=1e-6):
    """dL/dx of L = Σ fn(x)*dy by central differences (float64)."""
    g = np.zeros_like(x)
    flat, gf = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = (fn(x) * dy).sum()
        flat[i] = old - eps
        minus = (fn(x) * dy).sum()
        flat[i] = old
        gf[i] = (plus - minus) / (2 * eps)
    return g


@pytest.mark.parametrize("layout", ["nchw", "nhwc", "padded"])
@pytest.mark.parametrize("code", FLOAT_TYPES, ids=TYPE_IDS.get)
def test_lrn_odd_window_matches_torch(handle, code, layout):
    rng = np.random.default_rng(3)
    n, alpha, beta, k = 5, 0.5, 0.75, 2.0
    x = rounded(rng.standard_normal(DIMS), code)
    dy = rounded(rng.standard_normal(DIMS), code)
    desc = Desc(code, DIMS, layout_strides(layout, DIMS))
    lrn = make_lrn(n, alpha, beta, k)
    X, Y, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc), DeviceTensor(desc, dy), DeviceTensor(desc)
    y_ref, dx_ref = torch_pair(lambda t: F.local_response_norm(t, n, alpha, beta, k), x, dy)
    assert call("mcdnnLRNCrossChannelForward", handle, lrn, c_int(0), scale(1, code), desc.handle, X.address,
                scale(0, code), desc.handle, Y.address) == 0, recent_error()
    close(Y.read(), y_ref, code)
    assert call("mcdnnLRNCrossChannelBackward", handle, lrn, c_int(0), scale(1, code), desc.handle, Y.address,
                desc.handle, DY.address, desc.handle, X.address, scale(0, code), desc.handle, DX.address) == 0
    close(DX.read(), dx_ref, code, scale_of=2)
    assert untouched_outside(Y) and untouched_outside(DX)


@pytest.mark.parametrize("n", [2, 4])
def test_lrn_even_window_matches_the_float64_reference(handle, n):
    rng = np.random.default_rng(n)
    dims = (1, 6, 2, 3)
    alpha, beta, k = 0.8, 0.6, 1.0
    x = rng.standard_normal(dims)
    dy = rng.standard_normal(dims)
    desc = Desc(DOUBLE, dims)
    lrn = make_lrn(n, alpha, beta, k)
    X, Y, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc), DeviceTensor(desc, dy), DeviceTensor(desc)
    assert call("mcdnnLRNCrossChannelForward", handle, lrn, c_int(0), scale(1, DOUBLE), desc.handle, X.address,
                scale(0, DOUBLE), desc.handle, Y.address) == 0
    np.testing.assert_allclose(Y.read(), lrn_reference(x, n, alpha, beta, k), rtol=1e-12)
    assert call("mcdnnLRNCrossChannelBackward", handle, lrn, c_int(0), scale(1, DOUBLE), desc.handle, Y.address,
                desc.handle, DY.address, desc.handle, X.address, scale(0, DOUBLE), desc.handle, DX.address) == 0
    np.testing.assert_allclose(DX.read(), numeric_backward(lambda v: lrn_reference(v, n, alpha, beta, k), x.copy(), dy),
                               rtol=1e-6, atol=1e-8)


# ---------------- divisive normalization ----------------

def divnorm_reference(x, means, n, alpha, beta, k):
    """float64: u = x - means, S = k + alpha/n^d Σ_{n^d spatial window} u², y = u S^-beta."""
    u = x - (means if means is not None else 0)
    behind = (n - 1) // 2
    s = np.zeros_like(u)
    spatial = u.shape[2:]
    for pos in np.ndindex(*spatial):
        region = tuple(slice(max(0, p - behind), min(size, p - behind + n)) for p, size in zip(pos, spatial))
        s[(Ellipsis,) + pos] = (u[(Ellipsis,) + region] ** 2).reshape(u.shape[:2] + (-1,)).sum(-1)
    return u * (k + alpha / n ** len(spatial) * s) ** -beta


@pytest.mark.parametrize("code", FLOAT_TYPES, ids=TYPE_IDS.get)
@pytest.mark.parametrize("with_means", [False, True], ids=["means-null", "means"])
@pytest.mark.parametrize("dims,n", [((2, 3, 5, 4), 3), ((1, 2, 3, 4, 3), 2)], ids=["4d-n3", "5d-n2"])
def test_divisive_normalization_matches_the_float64_reference(handle, code, with_means, dims, n):
    rng = np.random.default_rng(7)
    alpha, beta, k = 1.2, 0.75, 1.5
    x = rounded(rng.standard_normal(dims), code)
    means = rounded(rng.standard_normal(dims) * 0.3, code) if with_means else None
    dy = rounded(rng.standard_normal(dims), code)
    desc = Desc(code, dims)
    lrn = make_lrn(n, alpha, beta, k)
    X, Y, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc), DeviceTensor(desc, dy), DeviceTensor(desc)
    M = DeviceTensor(desc, means) if with_means else None
    DM = DeviceTensor(desc)
    T1, T2 = DeviceTensor(desc), DeviceTensor(desc)
    m_address = M.address if with_means else None
    params = [rounded(v, code).item() for v in (alpha, beta, k)]
    assert call("mcdnnDivisiveNormalizationForward", handle, lrn, c_int(0), scale(1, code), desc.handle, X.address,
                m_address, T1.address, T2.address, scale(0, code), desc.handle, Y.address) == 0, recent_error()
    close(Y.read(), divnorm_reference(x, means, n, *params), code)
    assert call("mcdnnDivisiveNormalizationBackward", handle, lrn, c_int(0), scale(1, code), desc.handle, X.address,
                m_address, DY.address, T1.address, T2.address, scale(0, code), desc.handle, DX.address,
                DM.address) == 0, recent_error()
    dx_ref = numeric_backward(lambda v: divnorm_reference(v, means, n, *params), x.copy(), dy)
    close(DX.read(), dx_ref, code, scale_of=2, floor=1e-7)  # central differences are good to ~1e-8
    close(DM.read(), -dx_ref, code, scale_of=2, floor=1e-7)


# ---------------- beta != 0 accumulates, beta == 0 never reads ----------------

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


@pytest.mark.parametrize("nan_opt", [0, 1], ids=["not-propagate", "propagate"])
def test_max_pooling_nan_propagation_forward_and_backward(handle, nan_opt):
    x = np.array([[1.0, np.nan], [3.0, 2.0]], np.float32).reshape(1, 1, 2, 2)
    pool = make_pooling(0, (2, 2), (0, 0), (2, 2), nan=nan_opt)
    xd, yd = Desc(FLOAT, x.shape), Desc(FLOAT, (1, 1, 1, 1))
    X, Y, DY, DX = DeviceTensor(xd, x), DeviceTensor(yd), DeviceTensor(yd, [[[[np.inf]]]]), DeviceTensor(xd)
    assert call("mcdnnPoolingForward", handle, pool, scale(1, FLOAT), xd.handle, X.address, scale(0, FLOAT), yd.handle,
                Y.address) == 0
    assert (np.isnan(Y.read()).all() if nan_opt else Y.read().item() == 3.0)
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, FLOAT), yd.handle, Y.address, yd.handle, DY.address,
                xd.handle, X.address, scale(0, FLOAT), xd.handle, DX.address) == 0
    expected = [0, np.inf, 0, 0] if nan_opt else [0, 0, np.inf, 0]  # an infinite dy stays where it belongs
    np.testing.assert_array_equal(DX.read().ravel(), expected)


def test_relu_backward_blocks_infinite_gradients_where_x_is_not_positive(handle):
    x = np.array([-1.0, 2.0, 0.0, 3.0], np.float32).reshape(1, 1, 2, 2)
    dy = np.array([np.inf, 5.0, np.nan, -np.inf], np.float32).reshape(1, 1, 2, 2)
    desc = Desc(FLOAT, x.shape)
    X, DY, DX = DeviceTensor(desc, x), DeviceTensor(desc, dy), DeviceTensor(desc)
    act = make_activation(1, 0.0)
    assert call("mcdnnActivationBackward", handle, act, scale(1, FLOAT), desc.handle, X.address, desc.handle,
                DY.address, desc.handle, X.address, scale(0, FLOAT), desc.handle, DX.address) == 0
    np.testing.assert_array_equal(DX.read().ravel(), [0, 5, 0, -np.inf])
