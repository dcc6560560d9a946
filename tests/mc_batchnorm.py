"""What the mcDNN batch normalization tests share: the modes and ops codes, the `BN` case (descriptors, device
tensors, the plain routines), the PyTorch reference, tolerances, and the callers of the Ex, normalization and
size-query routines."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BFLOAT16, DOUBLE, FLOAT, HALF, INT8, Desc, DeviceTensor, c_double, c_int, c_size_t, c_void_p, call,
                layout_strides, lib, recent_error, rounded, scale)


PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT = 0, 1, 2
NORM_PER_ACTIVATION, NORM_PER_CHANNEL = 0, 1
OPS_BN, OPS_ACTIVATION, OPS_ADD_ACTIVATION = 0, 1, 2
RELU, TANH = 1, 2
TYPE_IDS = {FLOAT: "float", DOUBLE: "double", HALF: "half", BFLOAT16: "bf16"}
MODE_IDS = {PER_ACTIVATION: "per_activation", SPATIAL: "spatial", SPATIAL_PERSISTENT: "spatial_persistent"}
TOLERANCE = {FLOAT: 2e-5, DOUBLE: 1e-12, HALF: 2e-3, BFLOAT16: 1.6e-2}
DIMS = (3, 4, 5, 6)
EPS = 1e-5
INVALID_VALUE = 5


def close(got, expected, code, atol_scale=1.0):
    tol = TOLERANCE[code]
    np.testing.assert_allclose(np.asarray(got, np.float64), expected, rtol=tol * 4, atol=tol * 4 * atol_scale)


def param_code(code):
    return DOUBLE if code == DOUBLE else FLOAT


def derived(x_desc, mode):
    d = Desc(FLOAT, (1, 1, 1, 1))
    assert lib().mcdnnDeriveBNTensorDescriptor(d.handle, x_desc.handle, mode) == 0, recent_error()
    n = ctypes.c_int()
    dims, strides = (ctypes.c_int * 8)(), (ctypes.c_int * 8)()
    code = ctypes.c_int()
    assert lib().mcdnnGetTensorNdDescriptor(d.handle, 8, ctypes.byref(code), ctypes.byref(n), dims, strides) == 0
    d.code, d.dims, d.strides = code.value, tuple(dims[:n.value]), tuple(strides[:n.value])
    return d


def make_activation(mode=RELU, nan=0):
    desc = c_void_p()
    assert lib().mcdnnCreateActivationDescriptor(ctypes.byref(desc)) == 0
    assert lib().mcdnnSetActivationDescriptor(desc, mode, nan, 0.0) == 0
    return desc


def torch_reference(x, per_channel, scale_, bias, running_mean, running_var, factor, eps=EPS, z=None, relu=False,
                    training=True):
    """float64 torch: (y, y_pre, running mean, running var, module tensors for autograd)."""
    shape = x.shape
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    w = torch.tensor(scale_.reshape(-1), dtype=torch.float64, requires_grad=True)
    b = torch.tensor(bias.reshape(-1), dtype=torch.float64, requires_grad=True)
    rm = torch.tensor(running_mean.reshape(-1), dtype=torch.float64)
    rv = torch.tensor(running_var.reshape(-1), dtype=torch.float64)
    inp = xt if per_channel else xt.reshape(shape[0], -1)
    out = F.batch_norm(inp, rm, rv, w, b, training=training, momentum=factor, eps=eps).reshape(shape)
    zt = None
    if z is not None:
        zt = torch.tensor(z, dtype=torch.float64, requires_grad=True)
        out = out + zt
    y = torch.relu(out) if relu else out
    return y, rm.numpy(), rv.numpy(), (xt, w, b, zt)


class BN:
    """Device tensors of one normalization: x and y of `dims` in `layout`, the derived parameter tensors."""

    def __init__(self, code, dims, mode, layout="nchw", seed=0, per_channel=None):
        rng = np.random.default_rng(seed)
        self.code, self.dims, self.mode = code, tuple(dims), mode
        self.per_channel = (mode != PER_ACTIVATION) if per_channel is None else per_channel
        self.xd = Desc(code, dims, layout_strides(layout, dims))
        self.pd = derived(self.xd, SPATIAL if self.per_channel else PER_ACTIVATION)
        pshape = self.pd.dims
        self.x = rounded(rng.standard_normal(dims) * 1.5 + 0.7, code)
        self.dy = rounded(rng.standard_normal(dims), code)
        self.z = rounded(rng.standard_normal(dims), code)
        self.scale = rng.standard_normal(pshape) * 0.5 + 1
        self.bias = rng.standard_normal(pshape) * 0.3
        self.rm0 = rng.standard_normal(pshape) * 0.1
        self.rv0 = rng.random(pshape) + 0.5
        self.X, self.Y = DeviceTensor(self.xd, self.x), DeviceTensor(self.xd)
        self.DY, self.DX, self.Z = DeviceTensor(self.xd, self.dy), DeviceTensor(self.xd), DeviceTensor(self.xd, self.z)
        self.DZ = DeviceTensor(self.xd)
        P = lambda values=None: DeviceTensor(self.pd, values)  # noqa: E731
        self.S, self.B = P(self.scale), P(self.bias)
        self.RM, self.RV, self.SM, self.SI = P(self.rm0), P(self.rv0), P(), P()
        self.DS, self.DB = P(), P()

    @property
    def pcode(self):
        return param_code(self.code)

    def s(self, value):
        return scale(value, self.code)

    def training(self, factor=0.1, eps=EPS, alpha=1.0, beta=0.0, running=True, save=True, mode=None, xd=None,
                 yd=None, pd=None, **null):
        ptr = lambda name, t: None if name in null else t.address  # noqa: E731
        return call("mcdnnBatchNormalizationForwardTraining", self.handle, c_int(self.mode if mode is None else mode),
                    None if alpha is None else self.s(alpha), None if beta is None else self.s(beta),
                    (xd or self.xd).handle, ptr("x", self.X), (yd or self.xd).handle, ptr("y", self.Y),
                    (pd or self.pd).handle, ptr("bnScale", self.S), ptr("bnBias", self.B), c_double(factor),
                    self.RM.address if running else None, self.RV.address if running else None, c_double(eps),
                    self.SM.address if save else None, self.SI.address if save else None)

    def backward(self, eps=EPS, alphas=(1.0, 0.0, 1.0, 0.0), saved=True, xd=None, dyd=None, dxd=None, pd=None,
                 **null):
        ptr = lambda name, t: None if name in null else t.address  # noqa: E731
        factors = [None if n in null else self.s(v)
                   for n, v in zip(("alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff"), alphas)]
        return call("mcdnnBatchNormalizationBackward", self.handle, c_int(self.mode), *factors,
                    (xd or self.xd).handle, ptr("x", self.X), (dyd or self.xd).handle, ptr("dy", self.DY),
                    (dxd or self.xd).handle, ptr("dx", self.DX), (pd or self.pd).handle, ptr("bnScale", self.S),
                    ptr("dBnScaleResult", self.DS), ptr("dBnBiasResult", self.DB), c_double(eps),
                    None if "savedMean" in null or not saved else self.SM.address,
                    None if "savedInvVariance" in null or not saved else self.SI.address)


@pytest.fixture
def bn(handle):
    def make(*args, **kwargs):
        b = BN(*args, **kwargs)
        b.handle = handle
        return b
    return make


def ex_forward(b, ops=OPS_BN, act=None, workspace=None, ws_size=0, reserve=None, rs_size=0, z=None, zd=None,
               eps=EPS, factor=0.1, alpha=1.0, beta=0.0, running=True, x=None):
    return call("mcdnnBatchNormalizationForwardTrainingEx", b.handle, c_int(b.mode), c_int(ops), b.s(alpha),
                b.s(beta), b.xd.handle, (x or b.X).address, zd, z, b.xd.handle, b.Y.address, b.pd.handle, b.S.address,
                b.B.address, c_double(factor), b.RM.address if running else None,
                b.RV.address if running else None, c_double(eps), b.SM.address, b.SI.address, act, workspace,
                c_size_t(ws_size), reserve, c_size_t(rs_size))


def ex_backward(b, ops=OPS_BN, act=None, workspace=None, ws_size=0, reserve=None, rs_size=0, y=None, yd=None,
                dz=None, dzd=None, bias=None, alphas=(1.0, 0.0, 1.0, 0.0), saved=True):
    return call("mcdnnBatchNormalizationBackwardEx", b.handle, c_int(b.mode), c_int(ops), *[b.s(v) for v in alphas],
                b.xd.handle, b.X.address, yd, y, b.xd.handle, b.DY.address, dzd, dz, b.xd.handle, b.DX.address,
                b.pd.handle, b.S.address, bias, b.DS.address, b.DB.address, c_double(EPS),
                b.SM.address if saved else None, b.SI.address if saved else None, act, workspace, c_size_t(ws_size),
                reserve, c_size_t(rs_size))


def size_query(name, *args):
    size = c_size_t(12345)
    status = call(name, *args, ctypes.byref(size))
    return status, size.value


def norm_size_query(name, *args, groups=1):
    """The normalization size queries: sizeInBytes comes before groupCnt."""
    size = c_size_t(12345)
    status = call(name, *args, ctypes.byref(size), c_int(groups))
    return status, size.value


def device_bytes(nbytes, fill=0xFF):
    d = Desc(INT8, (1, 1, 1, max(nbytes, 1)))
    return DeviceTensor(d, np.full(d.dims, fill - 256 if fill > 127 else fill))


def fused_reference(b, add):
    y, rm, rv, tensors = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1,
                                         z=b.z if add else None, relu=True)
    y.backward(torch.tensor(b.dy))
    return y.detach().numpy(), tensors


def norm_training(b, ops=OPS_BN, act=None, z=None, zd=None, reserve=None, rs_size=0, algo=0, groups=1, eps=EPS,
                  mvd=None, workspace=None, ws_size=0):
    mvd = b.pd if mvd is None else mvd
    return call("mcdnnNormalizationForwardTraining", b.handle, c_int(NORM_PER_CHANNEL if b.per_channel else 0),
                c_int(ops), c_int(algo), b.s(1), b.s(0), b.xd.handle, b.X.address, b.pd.handle, b.S.address,
                b.B.address, c_double(0.1), mvd.handle, b.RM.address, b.RV.address, c_double(eps), b.SM.address,
                b.SI.address, act, zd, z, b.xd.handle, b.Y.address, workspace, c_size_t(ws_size), reserve,
                c_size_t(rs_size), c_int(groups))


def norm_backward(b, ops=OPS_BN, act=None, y=None, yd=None, dz=None, dzd=None, bias=None, reserve=None, rs_size=0,
                  algo=0, groups=1, eps=EPS, saved=True):
    return call("mcdnnNormalizationBackward", b.handle, c_int(NORM_PER_CHANNEL if b.per_channel else 0), c_int(ops),
                c_int(algo), b.s(1), b.s(0), b.s(1), b.s(0), b.xd.handle, b.X.address, yd, y, b.xd.handle,
                b.DY.address, dzd, dz, b.xd.handle, b.DX.address, b.pd.handle, b.S.address, bias, b.DS.address,
                b.DB.address, c_double(eps), b.pd.handle, b.SM.address if saved else None,
                b.SI.address if saved else None, act, None, c_size_t(0), reserve, c_size_t(rs_size), c_int(groups))


def norm_inference(b, ops=OPS_BN, act=None, z=None, zd=None, groups=1, algo=1):
    return call("mcdnnNormalizationForwardInference", b.handle, c_int(NORM_PER_CHANNEL if b.per_channel else 0),
                c_int(ops), c_int(algo), b.s(1), b.s(0), b.xd.handle, b.X.address, b.pd.handle, b.S.address,
                b.B.address, b.pd.handle, b.RM.address, b.RV.address, zd, z, act, b.xd.handle, b.Y.address,
                c_double(EPS), c_int(groups))
