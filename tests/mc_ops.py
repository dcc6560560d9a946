"""What the mcDNN activation, softmax, pooling, LRN and divisive-normalization tests share: the shape,
tolerances, the descriptor makers and the float64 references more than one family checks against."""
import ctypes

import numpy as np
import torch

from mc import BFLOAT16, DOUBLE, FLOAT, HALF, c_void_p, ints, lib, recent_error


DIMS = (2, 5, 6, 7)
TYPE_IDS = {FLOAT: "float", DOUBLE: "double", HALF: "half", BFLOAT16: "bf16"}
TOLERANCE = {FLOAT: 2e-5, DOUBLE: 1e-12, HALF: 2e-3, BFLOAT16: 1.6e-2}


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


def make_pooling(mode, window, padding, stride, nan=0):
    desc = c_void_p()
    assert lib().mcdnnCreatePoolingDescriptor(ctypes.byref(desc)) == 0
    n = len(window)
    assert lib().mcdnnSetPoolingNdDescriptor(desc, mode, nan, n, ints(window), ints(padding), ints(stride)) == 0
    return desc


def output_dims(pool, desc):
    out = (ctypes.c_int * len(desc.dims))()
    assert lib().mcdnnGetPoolingNdForwardOutputDim(pool, desc.handle, len(desc.dims), out) == 0, recent_error()
    return tuple(out)


def make_lrn(n, alpha, beta, k):
    desc = c_void_p()
    assert lib().mcdnnCreateLRNDescriptor(ctypes.byref(desc)) == 0
    assert lib().mcdnnSetLRNDescriptor(desc, n, alpha, beta, k) == 0
    return desc


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
