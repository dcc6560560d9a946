"""mcDNN pooling forward/backward through the C ABI: numerics against PyTorch CPU, every mode and data type,
padded strides, ties, clipped windows and NaN propagation."""
import threading

import numpy as np
import pytest
import torch.nn.functional as F

from mc import (BFLOAT16, FLOAT, FLOAT_TYPES, HALF, Desc, DeviceTensor, call, handle, layout_strides, recent_error,
                rounded, scale)
from mc_ops import DIMS, TYPE_IDS, close, make_pooling, output_dims, torch_pair, untouched_outside


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
