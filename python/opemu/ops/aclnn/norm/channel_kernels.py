"""The per-channel normalisations on the C kernels mcDNN's batch norm runs (csrc/kernels/batchnorm.c through
ops/mcdnn/bn_channels: one implementation of the arithmetic for both libraries): statistics of (N, C, spatial)
rows in float64, y = (x - mean) · invstd · scale + bias in fp32, and the backward sums.

Used for fp32 data laid out channel-major (NCHW/ND, rows dense per channel); other dtypes and layouts take the
NumPy paths of their operators. GroupNorm is a batch norm of the (1, N·G, C/G·HxW) view followed by the
per-channel affine on (N, C, HxW)."""
import numpy as np

from opemu.core import kernels

F32 = np.dtype(np.float32)


def _rows(view, shape):
    """`view` as `shape` without a copy, or None."""
    try:
        return view.reshape(shape, copy=False)
    except ValueError:
        return None


def usable(*views):
    return kernels.lib() is not None and all(v.dtype == F32 for v in views)


def batch_forward(x, y, n, c, spatial, scale, bias, eps):
    """(mean, biased variance, invstd) float64 per channel of fp32 x seen as (n, c, spatial), y written; None
    when the kernel cannot take the views (the caller's NumPy path runs)."""
    from opemu.ops.mcdnn import bn_channels, bn_common
    shape = (n, c, spatial)
    xr, yr = _rows(x, shape), _rows(y, shape)
    if xr is None or yr is None or not usable(xr, yr):
        return None
    layout = bn_common.Layout(shape, True, True)
    return bn_channels.forward_by_channels(layout, xr, yr, np.asarray(scale, np.float64).reshape(-1),
                                           np.asarray(bias, np.float64).reshape(-1), float(eps), F32, 1.0, 0.0)


def affine(x, y, n, c, spatial, a, b):
    """y = x · a_c + b_c of fp32 (n, c, spatial) views by the kernel; False when it cannot take them."""
    from opemu.ops.mcdnn import bn_channels, bn_common
    shape = (n, c, spatial)
    xr, yr = _rows(x, shape), _rows(y, shape)
    if xr is None or yr is None or not usable(xr, yr):
        return False
    return bn_channels.affine_by_channels(bn_common.Layout(shape, True, True), xr, yr,
                                          np.asarray(a, np.float64), np.asarray(b, np.float64), F32, 0.0)


def batch_backward(x, dy, dx, n, c, spatial, scale, mean, invstd, eps):
    """dx of a training batch norm and (dScale, dBias) float64 per channel; None when the kernel cannot take
    the views."""
    from opemu.ops.mcdnn import bn_channels, bn_common
    shape = (n, c, spatial)
    rows = [_rows(t, shape) for t in (x, dy, dx)]
    if any(r is None for r in rows) or not usable(*rows):
        return None
    layout = bn_common.Layout(shape, True, True)
    return bn_channels.backward_by_channels(layout, *rows, np.asarray(scale, np.float64).reshape(-1),
                                            np.asarray(mean, np.float64).reshape(-1),
                                            np.asarray(invstd, np.float64).reshape(-1), float(eps), F32, 1.0, 0.0)
