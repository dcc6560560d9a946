"""Batch normalization's Ex routines with every mcdnnBatchNormOps_t in every mode (PER_ACTIVATION, SPATIAL,
SPATIAL_PERSISTENT), 4-D and 5-D, with the scaling pairs, against PyTorch's batch_norm + add + ReLU and
autograd; and pooling with every padding cuDNN accepts (any padding below the window, beyond PyTorch's
half-window limit) against a float64 reference: PyTorch pooling of the input explicitly padded (with -inf
for max, zeros for average; the excluding average divides by the pooled mask)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import opemu_only
from mc import (DOUBLE, FLOAT, HALF, Desc, DeviceTensor, call, handle, recent_error, scale)
from mc_batchnorm import (BN, OPS_ACTIVATION, OPS_ADD_ACTIVATION, OPS_BN, PER_ACTIVATION, SPATIAL,
                          SPATIAL_PERSISTENT, device_bytes, ex_backward, ex_forward, make_activation,
                          size_query, torch_reference)
from mc_ops import make_pooling, output_dims
from mc import c_int

pytestmark = [opemu_only]
assert handle
MODES = {PER_ACTIVATION: "per-activation", SPATIAL: "spatial", SPATIAL_PERSISTENT: "spatial-persistent"}
OPS = {OPS_BN: "bn", OPS_ACTIVATION: "bn-relu", OPS_ADD_ACTIVATION: "bn-add-relu"}


@pytest.mark.parametrize("dims", [(3, 4, 5, 6), (2, 3, 4, 3, 5)], ids=["4d", "5d"])
@pytest.mark.parametrize("ops", list(OPS), ids=OPS.get)
@pytest.mark.parametrize("mode", list(MODES), ids=MODES.get)
def test_ex_ops_in_every_mode_match_torch(handle, mode, ops, dims):
    code = HALF if ops == OPS_ADD_ACTIVATION else FLOAT     # ForwardTrainingEx takes z with HALF data
    b = BN(code, dims, mode, "nhwc")                         # the fused ops run on NHWC tensors
    b.handle = handle
    act = make_activation() if ops != OPS_BN else None
    _, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", handle, c_int(mode), c_int(ops), act,
                       b.xd.handle)
    reserve = device_bytes(rs)
    prior = np.random.default_rng(7).standard_normal(dims)
    b.Y, b.DX, b.DZ = DeviceTensor(b.xd, prior), DeviceTensor(b.xd, prior), DeviceTensor(b.xd, prior)
    prior = b.Y.read().astype(np.float64)
    z = dict(z=b.Z.address, zd=b.xd.handle) if ops == OPS_ADD_ACTIVATION else {}
    assert ex_forward(b, ops, act, reserve=reserve.address, rs_size=rs, alpha=0.5, beta=0.25, **z) == 0, recent_error()
    y_got = b.Y.read().astype(np.float64)
    dz = dict(dz=b.DZ.address, dzd=b.xd.handle) if ops == OPS_ADD_ACTIVATION else {}
    fused = dict(y=b.Y.address, yd=b.xd.handle, bias=b.B.address) if ops != OPS_BN else {}
    assert ex_backward(b, ops, act, reserve=reserve.address, rs_size=rs, alphas=(0.5, 0.25, 1.0, 0.0), **fused,
                       **dz) == 0, recent_error()
    y, rm, rv, (xt, w, bias, zt) = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1,
                                                   z=b.z if ops == OPS_ADD_ACTIVATION else None, relu=ops != OPS_BN)
    y.backward(torch.tensor(b.dy))
    tol = 4e-3 if code == HALF else 2e-5
    np.testing.assert_allclose(y_got, 0.5 * y.detach().numpy() + 0.25 * prior, rtol=tol, atol=tol)
    np.testing.assert_allclose(b.RM.read().ravel(), rm.ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.RV.read().ravel(), rv.ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.DX.read(), 0.5 * xt.grad.numpy() + 0.25 * prior, rtol=tol, atol=tol * 4)
    np.testing.assert_allclose(b.DS.read().ravel(), w.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.DB.read().ravel(), bias.grad.numpy(), rtol=1e-4, atol=1e-4)
    if ops == OPS_ADD_ACTIVATION:
        # dz takes the data-gradient pair, as dx
        np.testing.assert_allclose(b.DZ.read(), 0.5 * zt.grad.numpy() + 0.25 * prior, rtol=tol, atol=tol * 4)


def padded_reference(x, mode, window, padding, stride, dy):
    """(y, dx) in float64 of cuDNN's pooling with the advised output size."""
    t = torch.tensor(x, requires_grad=True)
    pads = [p for p in reversed(padding) for _ in (0, 1)]
    pool = F.max_pool3d if len(window) == 3 else F.max_pool2d
    average = F.avg_pool3d if len(window) == 3 else F.avg_pool2d
    if mode in (0, 3):
        y = pool(F.pad(t, pads, value=-float("inf")), window, stride)
    elif mode == 1:
        y = average(F.pad(t, pads), window, stride)
    else:
        y = average(F.pad(t, pads), window, stride) / average(F.pad(torch.ones_like(t), pads), window, stride)
    y.backward(torch.tensor(dy))
    return y.detach().numpy(), t.grad.numpy()


@pytest.mark.parametrize("code", [FLOAT, DOUBLE], ids=["float", "double"])
@pytest.mark.parametrize("geometry", [((3, 3), (2, 2), (1, 1)), ((3, 3), (2, 2), (2, 2)), ((4, 4), (3, 3), (2, 2)),
                                      ((5, 5), (4, 4), (3, 3)), ((2, 3), (1, 2), (1, 2)),
                                      ((3, 3, 3), (2, 2, 2), (1, 2, 1))],
                         ids=["3-pad2", "3-pad2-stride2", "4-pad3", "5-pad4-stride3", "2x3-pad1x2", "3d-pad2"])
@pytest.mark.parametrize("mode", [0, 1, 2, 3], ids=["max", "avg-include", "avg-exclude", "max-deterministic"])
def test_pooling_with_padding_just_below_the_window(handle, mode, geometry, code):
    window, padding, stride = geometry
    dims = (2, 5, 9, 8) if len(window) == 2 else (2, 3, 6, 5, 7)
    rng = np.random.default_rng(11)
    x = (rng.permutation(np.prod(dims)).reshape(dims) / np.prod(dims) * 4 - 2).astype(np.float32).astype(np.float64)
    pool = make_pooling(mode, window, padding, stride)
    xd = Desc(code, dims)
    out = output_dims(pool, xd)
    yd = Desc(code, out)
    dy = rng.standard_normal(out).astype(np.float32).astype(np.float64)
    y_ref, dx_ref = padded_reference(x, mode, window, padding, stride, dy)
    assert y_ref.shape == out
    X, Y, DY, DX = DeviceTensor(xd, x), DeviceTensor(yd), DeviceTensor(yd, dy), DeviceTensor(xd)
    assert call("mcdnnPoolingForward", handle, pool, scale(1, code), xd.handle, X.address, scale(0, code), yd.handle,
                Y.address) == 0, recent_error()
    assert call("mcdnnPoolingBackward", handle, pool, scale(1, code), yd.handle, Y.address, yd.handle, DY.address,
                xd.handle, X.address, scale(0, code), xd.handle, DX.address) == 0, recent_error()
    tol = 1e-5 if code == FLOAT else 1e-12
    np.testing.assert_allclose(Y.read(), y_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(DX.read(), dx_ref, rtol=tol, atol=tol * 10)
