"""mcDNN batch normalization Ex routines and the normalization family through the C ABI: the fused ReLU ops,
the reserve space, workspace and sizes, against PyTorch CPU (mcdnn.md §3.1, §3.9)."""
import ctypes

import numpy as np
import pytest
import torch

from mc import BFLOAT16, DOUBLE, FLOAT, HALF, Desc, DeviceTensor, c_int, handle, lib, nhwc_strides, recent_error
from mc_batchnorm import (DIMS, EPS, NORM_PER_ACTIVATION, NORM_PER_CHANNEL, OPS_ACTIVATION, OPS_ADD_ACTIVATION, OPS_BN,
                          PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT, TYPE_IDS, bn, close, derived, device_bytes,
                          ex_backward, ex_forward, fused_reference, make_activation, norm_backward, norm_inference,
                          norm_size_query, norm_training, size_query, torch_reference)


def test_ex_with_the_nulls_pytorch_passes_matches_the_plain_routines(bn):
    """PyTorch's cuDNN path: bnOps BN, NULL z/y/dz/bias/activation, the queried workspace, a reserve of
    the queried size (0 bytes here)."""
    b = bn(FLOAT, DIMS, SPATIAL_PERSISTENT)
    status, ws = size_query("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", b.handle, c_int(b.mode),
                            c_int(OPS_BN), b.xd.handle, None, b.xd.handle, b.pd.handle, None)
    assert status == 0, recent_error()
    status, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(b.mode),
                            c_int(OPS_BN), None, b.xd.handle)
    assert status == 0 and rs == 0
    W = device_bytes(ws)
    assert ex_forward(b, workspace=W.address, ws_size=ws, reserve=W.address, rs_size=0) == 0, recent_error()
    status, bws = size_query("mcdnnGetBatchNormalizationBackwardExWorkspaceSize", b.handle, c_int(b.mode),
                             c_int(OPS_BN), b.xd.handle, b.xd.handle, b.xd.handle, None, b.xd.handle, b.pd.handle,
                             None)
    assert status == 0, recent_error()
    assert ex_backward(b, workspace=W.address, ws_size=min(ws, bws)) == 0, recent_error()
    y, rm, rv, (xt, w, bias, _) = torch_reference(b.x, True, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    y.backward(torch.tensor(b.dy))
    close(b.Y.read(), y.detach().numpy(), FLOAT)
    close(b.RV.read().ravel(), rv, FLOAT)
    close(b.DX.read(), xt.grad.numpy(), FLOAT)
    close(b.DS.read().ravel(), w.grad.numpy(), FLOAT, atol_scale=10)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_ex_workspace_holds_the_statistics_and_null_workspace_acts_like_the_plain_routine(bn, layout):
    b = bn(FLOAT, DIMS, SPATIAL, layout)
    assert b.training() == 0
    plain_y, plain_sm = b.Y.read(), b.SI.read()
    _, ws = size_query("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", b.handle, c_int(SPATIAL),
                       c_int(OPS_BN), b.xd.handle, None, b.xd.handle, b.pd.handle, None)
    n, c = DIMS[:2]
    # NCHW walks channel blocks: (mean, variance) per channel; NHWC walks images: (sum, centre, M2) per image
    # and channel
    assert ws == (16 * c if layout == "nchw" else 24 * n * c)
    W = device_bytes(ws, fill=0xFF)                           # NaN bit patterns: the routine must not read them
    b.Y = DeviceTensor(b.xd)
    assert ex_forward(b, workspace=W.address, ws_size=ws) == 0, recent_error()
    np.testing.assert_array_equal(b.Y.read(), plain_y)
    np.testing.assert_array_equal(b.SI.read(), plain_sm)
    assert (W.storage() != -1).any()                           # it was written
    b.Y = DeviceTensor(b.xd)
    assert ex_forward(b) == 0, recent_error()                  # NULL workspace, size 0
    np.testing.assert_array_equal(b.Y.read(), plain_y)


def test_workspace_and_reserve_sizes_reflect_what_the_routines_use(bn):
    act = make_activation()
    b = bn(FLOAT, DIMS, PER_ACTIVATION, "nhwc")
    n, c, h, w = DIMS
    args = (b.handle, c_int(PER_ACTIVATION), c_int(OPS_BN), b.xd.handle, None, b.xd.handle, b.pd.handle, None)
    assert size_query("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", *args) == (0, 16 * c * h * w)
    assert size_query("mcdnnGetBatchNormalizationBackwardExWorkspaceSize", b.handle, c_int(SPATIAL), c_int(OPS_BN),
                      b.xd.handle, None, b.xd.handle, None, b.xd.handle, derived(b.xd, SPATIAL).handle,
                      None) == (0, 16 * n * c)
    mask_bytes = -(-n * -(-c * h * w // 8) // 16) * 16       # one bit per element, whole bytes per image
    for ops in (OPS_ACTIVATION, OPS_ADD_ACTIVATION):
        assert size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(SPATIAL),
                          c_int(ops), act, b.xd.handle) == (0, mask_bytes)
        assert norm_size_query("mcdnnGetNormalizationTrainingReserveSpaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                               c_int(ops), c_int(0), act, b.xd.handle) == (0, mask_bytes)
    assert norm_size_query("mcdnnGetNormalizationTrainingReserveSpaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                           c_int(OPS_BN), c_int(0), None, b.xd.handle) == (0, 0)
    spatial = derived(b.xd, SPATIAL)
    assert norm_size_query("mcdnnGetNormalizationForwardTrainingWorkspaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                           c_int(OPS_BN), c_int(1), b.xd.handle, None, b.xd.handle, spatial.handle, None,
                           spatial.handle) == (0, 24 * n * c)
    assert norm_size_query("mcdnnGetNormalizationBackwardWorkspaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                           c_int(OPS_BN), c_int(1), b.xd.handle, None, b.xd.handle, None, b.xd.handle,
                           spatial.handle, None, spatial.handle) == (0, 16 * n * c)


@pytest.mark.parametrize("code", [FLOAT, HALF], ids=TYPE_IDS.get)
def test_ex_bn_activation_is_relu_of_the_normalization_with_its_mask_in_the_reserve(bn, code):
    b = bn(code, DIMS, SPATIAL_PERSISTENT, "nhwc")
    act = make_activation()
    _, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(b.mode),
                       c_int(OPS_ACTIVATION), act, b.xd.handle)
    R = device_bytes(rs)
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs) == 0, recent_error()
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs, y=b.Y.address, yd=b.xd.handle,
                       bias=b.B.address) == 0, recent_error()
    y, (xt, w, bias, _) = fused_reference(b, add=False)
    close(b.Y.read(), y, code)
    close(b.DX.read(), xt.grad.numpy(), code)
    close(b.DS.read().ravel(), w.grad.numpy(), code, atol_scale=10)
    close(b.DB.read().ravel(), bias.grad.numpy(), code, atol_scale=10)


def test_ex_bn_add_activation_adds_z_before_relu_and_returns_dz(bn):
    b = bn(HALF, DIMS, SPATIAL_PERSISTENT, "nhwc")         # ForwardTrainingEx takes z with HALF data only
    act = make_activation()
    _, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(b.mode),
                       c_int(OPS_ADD_ACTIVATION), act, b.xd.handle)
    R = device_bytes(rs)
    assert ex_forward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=rs, z=b.Z.address,
                      zd=b.xd.handle) == 0, recent_error()
    assert ex_backward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=rs, y=b.Y.address, yd=b.xd.handle,
                       dz=b.DZ.address, dzd=b.xd.handle, bias=b.B.address) == 0, recent_error()
    y, (xt, w, bias, zt) = fused_reference(b, add=True)
    close(b.Y.read(), y, HALF)
    close(b.DZ.read(), zt.grad.numpy(), HALF)
    close(b.DX.read(), xt.grad.numpy(), HALF)
    close(b.DB.read().ravel(), bias.grad.numpy(), HALF, atol_scale=10)


def test_the_reserve_space_written_by_forward_is_what_backward_reads(bn):
    b = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    _, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(b.mode),
                       c_int(OPS_ACTIVATION), act, b.xd.handle)
    R = device_bytes(rs)
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs) == 0
    keep = b.Y.read() > 0
    bits = np.unpackbits(R.storage().view(np.uint8)[:DIMS[0] * -(-np.prod(DIMS[1:]) // 8)]
                         .reshape(DIMS[0], -1), axis=1)[:, :np.prod(DIMS[1:])].reshape(DIMS).astype(bool)
    np.testing.assert_array_equal(bits, keep)               # the mask, one bit per element
    lost = device_bytes(rs, fill=0)                          # an app that lost it: every bit 0
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=lost.address, rs_size=rs, y=b.Y.address, yd=b.xd.handle,
                       bias=b.B.address) == 0
    assert (b.DX.read() == 0).all() and (b.DB.read() == 0).all()  # dy' = 0 everywhere: wrong, as on hardware


@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF, BFLOAT16], ids=TYPE_IDS.get)
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_activation", "per_channel"])
def test_normalization_training_and_backward_match_torch(bn, per_channel, code):
    b = bn(code, DIMS, SPATIAL if per_channel else PER_ACTIVATION, "padded")
    assert norm_training(b) == 0, recent_error()
    assert norm_backward(b) == 0, recent_error()
    y, rm, rv, (xt, w, bias, _) = torch_reference(b.x, per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    y.backward(torch.tensor(b.dy))
    close(b.Y.read(), y.detach().numpy(), code)
    close(b.RV.read().ravel(), rv, FLOAT if code != DOUBLE else DOUBLE)
    close(b.DX.read(), xt.grad.numpy(), code)
    close(b.DB.read().ravel(), bias.grad.numpy(), code if code in (HALF, BFLOAT16) else FLOAT, atol_scale=10)


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_activation", "per_channel"])
def test_normalization_inference_matches_torch_in_eval_and_accepts_the_nulls_of_plain_ops(bn, per_channel):
    b = bn(FLOAT, DIMS, SPATIAL if per_channel else PER_ACTIVATION)
    assert norm_inference(b) == 0, recent_error()            # zDesc, z, activationDesc NULL
    y, _, _, _ = torch_reference(b.x, per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1, training=False)
    close(b.Y.read(), y.detach().numpy(), FLOAT)


def test_normalization_add_activation_forward_backward_and_inference(bn):
    b = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    _, rs = norm_size_query("mcdnnGetNormalizationTrainingReserveSpaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                            c_int(OPS_ADD_ACTIVATION), c_int(1), act, b.xd.handle)
    R = device_bytes(rs)
    assert norm_training(b, OPS_ADD_ACTIVATION, act, z=b.Z.address, zd=b.xd.handle, reserve=R.address,
                         rs_size=rs) == 0, recent_error()
    assert norm_backward(b, OPS_ADD_ACTIVATION, act, y=b.Y.address, yd=b.xd.handle, dz=b.DZ.address,
                         dzd=b.xd.handle, bias=b.B.address, reserve=R.address, rs_size=rs) == 0, recent_error()
    y, (xt, w, bias, zt) = fused_reference(b, add=True)
    close(b.Y.read(), y, FLOAT)
    close(b.DZ.read(), zt.grad.numpy(), FLOAT)
    close(b.DX.read(), xt.grad.numpy(), FLOAT)
    close(b.DS.read().ravel(), w.grad.numpy(), FLOAT, atol_scale=10)
    b.RM, b.RV = DeviceTensor(b.pd, b.rm0), DeviceTensor(b.pd, b.rv0)
    assert norm_inference(b, OPS_ADD_ACTIVATION, act, z=b.Z.address, zd=b.xd.handle) == 0, recent_error()
    expected = np.maximum(b.scale[0] * (b.x - b.rm0[0]) / np.sqrt(b.rv0[0] + EPS) + b.bias[0] + b.z, 0)
    close(b.Y.read(), expected, FLOAT)


def test_a_normalization_forward_pairs_with_a_batch_norm_ex_backward(bn):
    """Both families keep the same keep mask in the reserve space."""
    b = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    _, rs = norm_size_query("mcdnnGetNormalizationTrainingReserveSpaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                            c_int(OPS_ACTIVATION), c_int(0), act, b.xd.handle)
    R = device_bytes(rs)
    assert norm_training(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs) == 0, recent_error()
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs, y=b.Y.address, yd=b.xd.handle,
                       bias=b.B.address) == 0, recent_error()
    _, (xt, _, _, _) = fused_reference(b, add=False)
    close(b.DX.read(), xt.grad.numpy(), FLOAT)


def test_derived_descriptors_are_1xCx1x1_or_1xCxHxW_float_or_double(handle):
    for code, expected_code in ((HALF, FLOAT), (BFLOAT16, FLOAT), (FLOAT, FLOAT), (DOUBLE, DOUBLE)):
        xd = Desc(code, (2, 3, 4, 5), nhwc_strides((2, 3, 4, 5)))
        spatial, per_act = derived(xd, SPATIAL), derived(xd, PER_ACTIVATION)
        assert (spatial.code, spatial.dims, spatial.strides) == (expected_code, (1, 3, 1, 1), (3, 1, 1, 1))
        assert (per_act.dims, per_act.strides) == ((1, 3, 4, 5), (60, 20, 5, 1))
    x5 = Desc(FLOAT, (2, 3, 4, 5, 6))
    assert derived(x5, SPATIAL_PERSISTENT).dims == (1, 3, 1, 1, 1)
    sb, mv = Desc(FLOAT, (1, 1, 1, 1)), Desc(FLOAT, (1, 1, 1, 1))
    assert lib().mcdnnDeriveNormTensorDescriptor(sb.handle, mv.handle, x5.handle, NORM_PER_ACTIVATION, 1) == 0
    dims = (ctypes.c_int * 8)()
    for d in (sb, mv):
        n, code = ctypes.c_int(), ctypes.c_int()
        lib().mcdnnGetTensorNdDescriptor(d.handle, 8, ctypes.byref(code), ctypes.byref(n), dims, (ctypes.c_int * 8)())
        assert tuple(dims[:n.value]) == (1, 3, 4, 5, 6)
