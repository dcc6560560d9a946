"""mcDNN LRN cross-channel and divisive normalization through the C ABI: numerics against PyTorch CPU where it
has the operation and a float64 reference (central differences for the backward) where it has not."""
import numpy as np
import pytest
import torch.nn.functional as F

from mc import (DOUBLE, FLOAT_TYPES, Desc, DeviceTensor, c_int, call, handle, layout_strides, recent_error, rounded,
                scale)
from mc_ops import DIMS, TYPE_IDS, close, divnorm_reference, make_lrn, torch_pair, untouched_outside


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
