"""mcDNN batch normalization and normalization families through the C ABI: numerics against PyTorch CPU
(batch_norm in training and eval with running statistics, autograd for the backward), the fused ReLU ops,
the reserve space, workspace and sizes, and every documented status (seed 3.1.1.2-3.1.1.16, mcdnn.md §3.1,
§3.9)."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BAD_PARAM, BFLOAT16, DOUBLE, FLOAT, HALF, INT8, NOT_SUPPORTED, NUMPY, Desc, DeviceTensor, Handle,
                c_double, c_int, c_size_t, c_void_p, call, ints, lib, nhwc_strides, packed_strides, recent_error,
                scale)

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
    padded[-1] += 3
    padded[1] += 1
    return packed_strides(padded)


def rounded(values, code):
    return np.asarray(values).astype(NUMPY[code]).astype(np.float64)


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


# ---------------------------------------------------------------- numerics: training, inference, backward

@pytest.mark.parametrize("layout", ["nchw", "nhwc", "padded"])
@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF, BFLOAT16], ids=TYPE_IDS.get)
@pytest.mark.parametrize("mode", [PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT], ids=MODE_IDS.get)
def test_forward_training_matches_torch_batch_norm_with_running_statistics(bn, mode, code, layout):
    b = bn(code, DIMS, mode, layout)
    assert b.training(factor=0.1) == 0, recent_error()
    y, rm, rv, _ = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    close(b.Y.read(), y.detach().numpy(), code)
    close(b.RM.read().ravel(), rm, FLOAT if code != DOUBLE else DOUBLE)  # the unbiased variance, as torch
    close(b.RV.read().ravel(), rv, FLOAT if code != DOUBLE else DOUBLE)
    axes = (0, 2, 3) if b.per_channel else (0,)
    mean, var = b.x.mean(axis=axes), b.x.var(axis=axes)
    close(b.SM.read().ravel(), mean.ravel(), FLOAT if code != DOUBLE else DOUBLE)
    close(b.SI.read().ravel(), (1 / np.sqrt(var + EPS)).ravel(), FLOAT if code != DOUBLE else DOUBLE)


@pytest.mark.parametrize("mode", [PER_ACTIVATION, SPATIAL], ids=MODE_IDS.get)
def test_five_dimensional_tensors_normalize_like_torch_batch_norm_3d(bn, mode):
    b = bn(FLOAT, (4, 3, 3, 4, 5), mode)
    assert b.training(factor=0.25) == 0, recent_error()
    y, rm, rv, _ = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.25)
    close(b.Y.read(), y.detach().numpy(), FLOAT)
    close(b.RV.read().ravel(), rv, FLOAT)
    assert b.backward() == 0, recent_error()
    y.backward(torch.tensor(b.dy))
    close(b.DX.read(), _[0].grad.numpy(), FLOAT)


@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF, BFLOAT16], ids=TYPE_IDS.get)
@pytest.mark.parametrize("mode", [PER_ACTIVATION, SPATIAL], ids=MODE_IDS.get)
def test_forward_inference_matches_torch_batch_norm_in_eval(bn, mode, code):
    b = bn(code, DIMS, mode, "nhwc")
    assert call("mcdnnBatchNormalizationForwardInference", b.handle, c_int(mode), b.s(1), b.s(0), b.xd.handle,
                b.X.address, b.xd.handle, b.Y.address, b.pd.handle, b.S.address, b.B.address, b.RM.address,
                b.RV.address, c_double(1e-3)) == 0, recent_error()
    y, rm, _, _ = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1, eps=1e-3, training=False)
    close(b.Y.read(), y.detach().numpy(), code)
    np.testing.assert_array_equal(b.RM.read().ravel(), b.rm0.astype(np.float32 if code != DOUBLE else np.float64)
                                  .ravel())  # inference never writes the statistics


@pytest.mark.parametrize("layout", ["nchw", "nhwc", "padded"])
@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF], ids=TYPE_IDS.get)
@pytest.mark.parametrize("mode", [PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT], ids=MODE_IDS.get)
def test_backward_matches_torch_autograd(bn, mode, code, layout):
    b = bn(code, DIMS, mode, layout)
    assert b.training() == 0, recent_error()
    assert b.backward() == 0, recent_error()
    y, _, _, (xt, w, bias, _) = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    y.backward(torch.tensor(b.dy))
    close(b.DX.read(), xt.grad.numpy(), code)
    precision = FLOAT if code != DOUBLE else DOUBLE
    close(b.DS.read().ravel(), w.grad.numpy(), precision if code != HALF else HALF, atol_scale=10)
    close(b.DB.read().ravel(), bias.grad.numpy(), precision if code != HALF else HALF, atol_scale=10)


def test_channel_blocks_on_two_workers_match_torch_far_from_zero_and_one_worker_bit_for_bit(bn, monkeypatch):
    """The NCHW walk over several channel blocks (the last one short), and the C kernels' walk of the whole
    tensor over channel ranges, on one and on two workers. x sits at 4000 ± 1.5: fp32 sums of x·dy, corrected
    by mean·Σdy afterwards, would miss dScale by ~3e-4 of its size (the tolerance allows 9e-5), while sums of
    (x - savedMean)·dy, as the vendor's per-channel kernels form them, stay within ~1e-7 of torch's float64
    backward from the same saved statistics. (The fp32 savedMean itself is up to 1.2e-4 off the exact mean
    here, which moves dScale by ~1e-3: that rounding point is the API's, so the backward oracle takes the
    saved statistics as given.) Neither the walk nor the split changes a bit."""
    from opemu.core import kernels, parallel
    from opemu.ops.mcdnn import bn_channels as kernel, bn_common
    dims = (4, 7, 16, 20)
    monkeypatch.setattr(kernel, "_BLOCK_BYTES", 2 * 4 * 16 * 20 * 4)  # two channels a block: 4 blocks
    monkeypatch.setattr(bn_common, "PARALLEL_MIN", 0)
    walks = []
    real_over_blocks, real_whole = kernel._over_blocks, kernel._whole
    monkeypatch.setattr(kernel, "_over_blocks", lambda layout, blocks, fn: (walks.append(len(blocks)),
                                                                            real_over_blocks(layout, blocks, fn)))
    results = []
    for workers in (1, 2):
        monkeypatch.setattr(parallel, "WORKERS", workers)
        for whole in (real_whole, lambda *tensors: None):
            monkeypatch.setattr(kernel, "_whole", whole)
            b = bn(FLOAT, dims, SPATIAL)
            b.x = rounded(b.x + 4000, FLOAT)
            b.X = DeviceTensor(b.xd, b.x)
            assert b.training() == 0, recent_error()
            assert b.backward() == 0, recent_error()
            results.append([t.read() for t in (b.Y, b.SM, b.SI, b.DX, b.DS, b.DB)])
    assert walks == [4] * (4 if kernels.lib() is not None else 8)
    for other in results[1:]:
        for one, two in zip(results[0], other):
            np.testing.assert_array_equal(one, two)
    y, _, _, _ = torch_reference(b.x, True, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    close(b.Y.read(), y.detach().numpy(), FLOAT)
    saved = [torch.tensor(t.read().ravel(), dtype=torch.float64) for t in (b.SM, b.SI)]
    dx, d_scale, d_bias = torch.ops.aten.native_batch_norm_backward(
        torch.tensor(b.dy), torch.tensor(b.x), torch.tensor(b.scale.ravel()), None, None, *saved, True, EPS,
        [True, True, True])
    close(b.DX.read(), dx.numpy(), FLOAT)
    close(b.DS.read().ravel(), d_scale.numpy(), FLOAT, atol_scale=10)
    close(b.DB.read().ravel(), d_bias.numpy(), FLOAT, atol_scale=10)


@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF], ids=TYPE_IDS.get)
@pytest.mark.parametrize("dims,layout", [((3, 5, 7, 9), "nchw"), ((2, 3, 40, 50), "padded"), ((1, 4, 1, 1), "nchw")])
def test_a_small_tensor_walked_as_one_block_matches_one_channel_blocks_bit_for_bit(bn, monkeypatch, code, dims,
                                                                                    layout):
    """The C kernels' walk of the whole tensor (where the layout allows it), a tensor too small for the
    threads as one block of every channel on the calling thread, and blocks of one channel each (the walk of
    a large tensor) give the same bits: forward, backward from the saved statistics and backward recomputing
    them, with scaling factors."""
    from opemu.core import kernels
    from opemu.ops.mcdnn import bn_channels as kernel
    walks = []
    real_over_blocks, real_whole = kernel._over_blocks, kernel._whole
    monkeypatch.setattr(kernel, "_over_blocks", lambda layout, blocks, fn: (walks.append(len(blocks)),
                                                                            real_over_blocks(layout, blocks, fn)))
    results = []
    for whole, block_bytes in ((real_whole, kernel._BLOCK_BYTES), (None, kernel._BLOCK_BYTES), (None, 1)):
        monkeypatch.setattr(kernel, "_BLOCK_BYTES", block_bytes)   # 1: a block per channel
        monkeypatch.setattr(kernel, "_whole", whole or (lambda *tensors: None))
        b = bn(code, dims, SPATIAL, layout=layout)
        assert b.training(alpha=0.5) == 0, recent_error()
        outputs = [b.Y.read(), b.SM.read(), b.SI.read()]
        for saved in (True, False):
            assert b.backward(alphas=(0.5, 0.0, 2.0, 0.0), saved=saved) == 0, recent_error()
            outputs += [b.DX.read(), b.DS.read(), b.DB.read()]
        results.append(outputs)
    whole_walks = [] if kernels.lib() is not None and code != HALF and layout == "nchw" else [1] * 3
    assert walks == whole_walks + [1] * 3 + [dims[1]] * 3
    for other in results[1:]:
        for one, blocked in zip(results[0], other):
            assert one.tobytes() == blocked.tobytes()


def _refill(tensor, values):
    """New contents for a device tensor, at the same address."""
    storage = tensor.storage()
    tensor.view(storage)[...] = values
    assert lib().mcMemcpy(tensor.address, storage.ctypes.data, storage.nbytes, 1) == 0


@pytest.mark.parametrize("saved", [True, False])
def test_backward_called_again_on_the_same_buffers_reads_what_they_hold_now(bn, saved):
    """A small tensor's backward is prepared once per set of buffers (its kernel arguments are kept); the
    next call on them reads their new x, dy, scale and saved statistics, and its own scaling factors."""
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0 and b.backward(saved=saved) == 0, recent_error()
    rng = np.random.default_rng(7)
    b.x, b.dy = rng.standard_normal(DIMS).astype(np.float32) * 2 - 1, rng.standard_normal(DIMS).astype(np.float32)
    b.scale = (rng.standard_normal(b.pd.dims) * 0.5 + 1).astype(np.float32)
    for tensor, values in ((b.X, b.x), (b.DY, b.dy), (b.S, b.scale)):
        _refill(tensor, values)
    assert b.training() == 0, recent_error()   # the saved statistics of the new x
    assert b.backward(saved=saved, alphas=(0.5, 0.0, 1.0, 0.0)) == 0, recent_error()
    y, _, _, (xt, w, bias, _) = torch_reference(b.x, True, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    y.backward(torch.tensor(b.dy, dtype=torch.float64))
    close(b.DX.read(), 0.5 * xt.grad.numpy(), FLOAT)
    close(b.DS.read().ravel(), w.grad.numpy(), FLOAT, atol_scale=10)
    close(b.DB.read().ravel(), bias.grad.numpy(), FLOAT, atol_scale=10)


def test_backward_without_saved_statistics_recomputes_them_from_x(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert b.backward() == 0
    with_cache = b.DX.read(), b.DS.read(), b.DB.read()
    assert b.backward(saved=False) == 0, recent_error()
    for got, expected in zip((b.DX.read(), b.DS.read(), b.DB.read()), with_cache):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_saved_inverse_std_comes_from_the_biased_variance_and_running_variance_is_unbiased(bn):
    b = bn(DOUBLE, (2, 1, 1, 2), SPATIAL)
    b.x = rounded(np.array([1.0, 2.0, 3.0, 6.0]).reshape(2, 1, 1, 2), DOUBLE)
    b.X = DeviceTensor(b.xd, b.x)
    assert b.training(factor=1.0, eps=0.0) == 0
    assert b.SI.read().item() == pytest.approx(1 / np.sqrt(3.5))   # biased: Σ(x-3)²/4 = 14/4
    assert b.RV.read().item() == pytest.approx(14 / 3)             # unbiased: 14/3
    assert b.RM.read().item() == pytest.approx(3.0)


def test_exponential_average_factor_blends_running_statistics_and_factor_one_ignores_them(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    b.RM = DeviceTensor(b.pd, np.full(b.pd.dims, np.nan))        # garbage: factor 1 must not read it
    b.RV = DeviceTensor(b.pd, np.full(b.pd.dims, np.nan))
    assert b.training(factor=1.0) == 0
    mean = b.x.mean(axis=(0, 2, 3))
    var = b.x.var(axis=(0, 2, 3), ddof=1)
    close(b.RM.read().ravel(), mean, FLOAT)
    close(b.RV.read().ravel(), var, FLOAT)
    assert b.training(factor=0.5) == 0                         # cumulative average of two identical batches
    close(b.RM.read().ravel(), mean, FLOAT)
    b.RM = DeviceTensor(b.pd, np.zeros(b.pd.dims))
    assert b.training(factor=0.25) == 0
    close(b.RM.read().ravel(), 0.25 * mean, FLOAT)


def test_running_and_saved_pointers_may_all_be_null_together(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(running=False, save=False) == 0, recent_error()
    y, _, _, _ = torch_reference(b.x, True, b.scale, b.bias, b.rm0, b.rv0, 0.1)
    close(b.Y.read(), y.detach().numpy(), FLOAT)
    assert np.isnan(b.SM.read()).all()                         # untouched


def test_alpha_beta_blend_the_output_and_beta_zero_never_reads_it(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0                                   # y holds NaN before: beta == 0 ignores it
    plain = b.Y.read()
    assert np.isfinite(plain).all()
    prior = np.random.default_rng(5).standard_normal(DIMS)
    b.Y = DeviceTensor(b.xd, prior)
    assert b.training(alpha=2.0, beta=0.5) == 0
    close(b.Y.read(), 2 * plain + 0.5 * rounded(prior, FLOAT), FLOAT)


def test_data_and_parameter_gradients_blend_separately_and_beta_param_diff_one_accumulates(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert b.backward() == 0
    dx, ds, db = b.DX.read(), b.DS.read(), b.DB.read()
    assert b.backward(alphas=(2.0, 1.0, 1.0, 1.0)) == 0      # dx = 2·g + dx, params accumulate
    close(b.DX.read(), 3 * dx, FLOAT)
    close(b.DS.read(), 2 * ds, FLOAT)
    close(b.DB.read(), 2 * db, FLOAT)
    assert b.backward(alphas=(0.0, 1.0, 0.5, 0.0)) == 0
    close(b.DX.read(), 3 * dx, FLOAT)
    close(b.DS.read(), 0.5 * ds, FLOAT)


def test_in_place_forward_and_backward(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    expected_y = b.Y.read()
    b.Y = b.X
    assert b.training(save=False, running=False) == 0
    close(b.X.read(), expected_y, FLOAT)
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0 and b.backward() == 0
    expected_dx = b.DX.read()
    b.DX = b.DY                                                # dx over dy
    assert b.backward() == 0
    close(b.DY.read(), expected_dx, FLOAT)


# ---------------------------------------------------------------- the Ex routines

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


def fused_reference(b, add):
    y, rm, rv, tensors = torch_reference(b.x, b.per_channel, b.scale, b.bias, b.rm0, b.rv0, 0.1,
                                         z=b.z if add else None, relu=True)
    y.backward(torch.tensor(b.dy))
    return y.detach().numpy(), tensors


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


# ---------------------------------------------------------------- the normalization family

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


# ---------------------------------------------------------------- statuses

@pytest.mark.parametrize("name", ["alpha", "beta", "x", "y", "bnScale", "bnBias"])
def test_forward_training_null_pointer_is_bad_param(bn, name):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(**{name: None}) == BAD_PARAM
    assert name in recent_error()


def test_tensors_outside_4_and_5_dimensions_are_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    d3, d6 = Desc(FLOAT, (3, 4, 30)), Desc(FLOAT, (3, 4, 5, 6, 1, 1))
    assert b.training(xd=d3, yd=d3) == BAD_PARAM
    assert "only 4-D and 5-D" in recent_error()
    assert b.training(xd=d6, yd=d6) == BAD_PARAM
    assert b.backward(xd=d3, dyd=d3, dxd=d3) == BAD_PARAM
    assert lib().mcdnnDeriveBNTensorDescriptor(Desc(FLOAT, DIMS).handle, d3.handle, SPATIAL) == BAD_PARAM


def test_parameter_descriptor_that_does_not_fit_the_mode_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    per_activation = derived(b.xd, PER_ACTIVATION)
    assert b.training(pd=per_activation) == BAD_PARAM
    assert "1, 4, 1, 1" in recent_error()
    assert b.training(mode=PER_ACTIVATION) == BAD_PARAM      # 1xCx1x1 for per-activation
    assert b.backward(pd=per_activation) == BAD_PARAM
    assert b.training(pd=Desc(FLOAT, (1, 4, 1, 1, 1))) == BAD_PARAM


def test_save_pair_with_one_null_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert call("mcdnnBatchNormalizationForwardTraining", b.handle, c_int(SPATIAL), b.s(1), b.s(0), b.xd.handle,
                b.X.address, b.xd.handle, b.Y.address, b.pd.handle, b.S.address, b.B.address, c_double(0.1),
                b.RM.address, b.RV.address, c_double(EPS), b.SM.address, None) == BAD_PARAM
    assert "only together" in recent_error()
    assert b.backward(savedInvVariance=None) == BAD_PARAM


def test_running_pair_with_one_null_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert call("mcdnnBatchNormalizationForwardTraining", b.handle, c_int(SPATIAL), b.s(1), b.s(0), b.xd.handle,
                b.X.address, b.xd.handle, b.Y.address, b.pd.handle, b.S.address, b.B.address, c_double(0.1),
                None, b.RV.address, c_double(EPS), b.SM.address, b.SI.address) == BAD_PARAM
    assert "resultRunningMean" in recent_error()


def test_epsilon_below_the_minimum_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(eps=-1e-7) == BAD_PARAM
    assert "MCDNN_BN_MIN_EPSILON" in recent_error()
    assert b.backward(eps=-1.0) == BAD_PARAM
    assert b.training(eps=float("nan")) == BAD_PARAM
    assert b.training(eps=0.0) == 0                          # MCDNN_BN_MIN_EPSILON is 0.0
    assert norm_training(b, eps=-1e-3) == BAD_PARAM           # the normalization family: epsilon >= 0
    assert norm_backward(b, eps=-1e-3) == BAD_PARAM


def test_x_y_dims_or_data_types_that_differ_are_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    other = Desc(FLOAT, (3, 4, 5, 7))
    assert b.training(yd=other) == BAD_PARAM
    assert b.training(yd=Desc(HALF, DIMS)) == BAD_PARAM
    assert b.backward(dyd=other) == BAD_PARAM
    assert b.backward(dxd=Desc(DOUBLE, DIMS)) == BAD_PARAM


@pytest.mark.parametrize("name", ["alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff", "x", "dy", "dx",
                                  "bnScale", "dBnScaleResult", "dBnBiasResult"])
def test_backward_null_pointer_is_bad_param(bn, name):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert b.backward(**{name: None}) == BAD_PARAM
    assert name in recent_error()


def test_a_call_like_one_that_passed_is_checked_for_what_changed(bn):
    """The verdict of a passing call is kept: a null pointer, a bad epsilon or another descriptor in the same
    call is still refused, and new scaling factors are read."""
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert b.backward() == 0, recent_error()
    dx = b.DX.read()
    for name in ("dx", "betaParamDiff", "savedMean"):
        assert b.backward(**{name: None}) == BAD_PARAM
        assert name in recent_error()
    assert b.backward(eps=-1.0) == BAD_PARAM
    assert b.backward(dxd=Desc(FLOAT, DIMS[:3] + (DIMS[3] + 1,))) == BAD_PARAM
    assert b.backward(alphas=(2.0, 0.0, 1.0, 0.0)) == 0, recent_error()
    np.testing.assert_allclose(b.DX.read(), 2 * dx, rtol=1e-6)


def test_data_type_configurations_outside_the_tables_are_not_supported(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(xd=Desc(INT8, DIMS), yd=Desc(INT8, DIMS)) == NOT_SUPPORTED
    assert b.training(pd=Desc(DOUBLE, (1, 4, 1, 1))) == NOT_SUPPORTED   # FLOAT data needs float parameters
    h = bn(HALF, DIMS, SPATIAL)
    assert h.training(pd=Desc(HALF, (1, 4, 1, 1))) == NOT_SUPPORTED
    bf = bn(BFLOAT16, DIMS, SPATIAL)
    assert bf.training() == 0                                 # ForwardTraining lists PSEUDO_BFLOAT16_CONFIG
    assert bf.backward() == NOT_SUPPORTED                      # Backward does not
    assert ex_forward(bf) == NOT_SUPPORTED                     # nor ForwardTrainingEx
    assert "supported configurations" in recent_error()


def test_invalid_mode_and_ops_are_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training(mode=3) == BAD_PARAM
    assert "mcdnnBatchNormMode_t" in recent_error()
    assert ex_forward(b, ops=3) == BAD_PARAM
    assert lib().mcdnnDeriveBNTensorDescriptor(Desc(FLOAT, DIMS).handle, b.xd.handle, 7) == BAD_PARAM
    assert norm_training(b, algo=2) == BAD_PARAM
    assert "mcdnnNormAlgo_t" in recent_error()


def test_fused_ops_without_an_activation_descriptor_or_their_tensors_are_bad_param(bn):
    b = bn(HALF, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    R = device_bytes(4096)
    assert ex_forward(b, OPS_ACTIVATION, None, reserve=R.address, rs_size=4096) == BAD_PARAM
    assert "activationDesc" in recent_error()
    assert ex_forward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096) == BAD_PARAM  # z missing
    assert ex_forward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096, z=b.Z.address,
                      zd=Desc(HALF, (3, 4, 5, 7)).handle) == BAD_PARAM
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096, bias=b.B.address) == BAD_PARAM
    assert "yData" in recent_error()
    assert ex_backward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096, y=b.Y.address,
                       yd=b.xd.handle) == BAD_PARAM
    assert "bnBiasData" in recent_error()
    assert ex_backward(b, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096, y=b.Y.address, yd=b.xd.handle,
                       bias=b.B.address) == BAD_PARAM                                          # dz missing


def test_a_reserve_space_smaller_than_its_query_is_bad_param(bn):
    b = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    act = make_activation()
    _, rs = size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(b.mode),
                       c_int(OPS_ACTIVATION), act, b.xd.handle)
    R = device_bytes(rs)
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=rs - 1) == BAD_PARAM
    assert "reserveSpaceSizeInBytes" in recent_error()
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=None, rs_size=0) == BAD_PARAM


def test_fused_ops_outside_nhwc_relu_or_the_z_table_are_not_supported(bn):
    b = bn(FLOAT, DIMS, SPATIAL, "nchw")
    act, tanh = make_activation(), make_activation(TANH)
    R = device_bytes(4096)
    assert ex_forward(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096) == NOT_SUPPORTED
    assert "NHWC" in recent_error()
    n = bn(FLOAT, DIMS, SPATIAL, "nhwc")
    assert ex_forward(n, OPS_ACTIVATION, tanh, reserve=R.address, rs_size=4096) == NOT_SUPPORTED
    assert "RELU" in recent_error()
    assert ex_forward(n, OPS_ADD_ACTIVATION, act, reserve=R.address, rs_size=4096, z=n.Z.address,
                      zd=n.xd.handle) == NOT_SUPPORTED               # z only with HALF data
    assert norm_training(b, OPS_ACTIVATION, act, reserve=R.address, rs_size=4096) == NOT_SUPPORTED
    assert size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(SPATIAL),
                      c_int(OPS_ACTIVATION), tanh, n.xd.handle)[0] == NOT_SUPPORTED


def test_group_count_other_than_one_is_not_supported(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert norm_training(b, groups=2) == NOT_SUPPORTED
    assert "groupCnt" in recent_error()
    assert norm_backward(b, groups=0) == NOT_SUPPORTED
    assert norm_inference(b, groups=2) == NOT_SUPPORTED
    assert norm_size_query("mcdnnGetNormalizationTrainingReserveSpaceSize", b.handle, c_int(1), c_int(0), c_int(0),
                           None, b.xd.handle, groups=2)[0] == NOT_SUPPORTED
    sb, mv = Desc(FLOAT, (1, 1, 1, 1)), Desc(FLOAT, (1, 1, 1, 1))
    assert lib().mcdnnDeriveNormTensorDescriptor(sb.handle, mv.handle, b.xd.handle, 1, 2) == NOT_SUPPORTED
    assert lib().mcdnnDeriveNormTensorDescriptor(sb.handle, mv.handle, b.xd.handle, 5, 1) == BAD_PARAM


def test_normalization_mean_var_descriptor_must_fit_the_mode(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert norm_training(b, mvd=derived(b.xd, PER_ACTIVATION)) == BAD_PARAM
    assert "normMeanVarDesc" in recent_error()


def test_size_queries_check_their_descriptors_and_output(bn):
    b = bn(FLOAT, DIMS, SPATIAL)
    args = (b.handle, c_int(SPATIAL), c_int(OPS_BN), b.xd.handle, None, b.xd.handle, b.pd.handle, None)
    assert call("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", *args, None) == BAD_PARAM
    d3 = Desc(FLOAT, (3, 4, 30))
    assert size_query("mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize", b.handle, c_int(SPATIAL),
                      c_int(OPS_BN), d3.handle, None, d3.handle, b.pd.handle, None)[0] == BAD_PARAM
    assert size_query("mcdnnGetBatchNormalizationBackwardExWorkspaceSize", b.handle, c_int(SPATIAL), c_int(OPS_BN),
                      b.xd.handle, None, Desc(FLOAT, (3, 4, 5, 7)).handle, None, b.xd.handle, b.pd.handle,
                      None)[0] == BAD_PARAM
    assert size_query("mcdnnGetBatchNormalizationTrainingExReserveSpaceSize", b.handle, c_int(SPATIAL),
                      c_int(OPS_BN), None, d3.handle)[0] == BAD_PARAM
    assert norm_size_query("mcdnnGetNormalizationForwardTrainingWorkspaceSize", b.handle, c_int(NORM_PER_CHANNEL),
                           c_int(OPS_BN), c_int(0), b.xd.handle, None, b.xd.handle,
                           derived(b.xd, PER_ACTIVATION).handle, None, b.pd.handle) == (BAD_PARAM, 12345)


def _named_call(name, args, null):
    """Calls `name` with (parameter, value) pairs, the parameter named `null` passed as NULL."""
    assert null in dict(args), null
    return call(name, *[None if n == null else v for n, v in args])


def ex_forward_args(b):
    return [("handle", b.handle), ("mode", c_int(b.mode)), ("bnOps", c_int(OPS_BN)), ("alpha", b.s(1)),
            ("beta", b.s(0)), ("xDesc", b.xd.handle), ("xData", b.X.address), ("zDesc", None), ("zData", None),
            ("yDesc", b.xd.handle), ("yData", b.Y.address), ("bnScaleBiasMeanVarDesc", b.pd.handle),
            ("bnScale", b.S.address), ("bnBias", b.B.address), ("factor", c_double(0.1)),
            ("resultRunningMean", b.RM.address), ("resultRunningVariance", b.RV.address), ("epsilon", c_double(EPS)),
            ("resultSaveMean", b.SM.address), ("resultSaveInvVariance", b.SI.address), ("activationDesc", None),
            ("workspace", None), ("workSpaceSizeInBytes", c_size_t(0)), ("reserveSpace", None),
            ("reserveSpaceSizeInBytes", c_size_t(0))]


def ex_backward_args(b):
    return [("handle", b.handle), ("mode", c_int(b.mode)), ("bnOps", c_int(OPS_BN)), ("alphaDataDiff", b.s(1)),
            ("betaDataDiff", b.s(0)), ("alphaParamDiff", b.s(1)), ("betaParamDiff", b.s(0)), ("xDesc", b.xd.handle),
            ("xData", b.X.address), ("yDesc", None), ("yData", None), ("dyDesc", b.xd.handle),
            ("dyData", b.DY.address), ("dzDesc", None), ("dzData", None), ("dxDesc", b.xd.handle),
            ("dxData", b.DX.address), ("dBnScaleBiasDesc", b.pd.handle), ("bnScaleData", b.S.address),
            ("bnBiasData", None), ("dBnScaleData", b.DS.address), ("dBnBiasData", b.DB.address),
            ("epsilon", c_double(EPS)), ("savedMean", b.SM.address), ("savedInvVariance", b.SI.address),
            ("activationDesc", None), ("workSpace", None), ("workSpaceSizeInBytes", c_size_t(0)),
            ("reserveSpace", None), ("reserveSpaceSizeInBytes", c_size_t(0))]


@pytest.mark.parametrize("null", ["alpha", "beta", "xData", "yData", "bnScale", "bnBias", "resultSaveMean",
                                  "resultRunningVariance"])
def test_forward_training_ex_null_pointer_is_bad_param(bn, null):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert _named_call("mcdnnBatchNormalizationForwardTrainingEx", ex_forward_args(b), null) == BAD_PARAM
    assert null in recent_error() or "only together" in recent_error()


@pytest.mark.parametrize("null", ["alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff", "xData",
                                  "dyData", "dxData", "bnScaleData", "dBnScaleData", "dBnBiasData", "savedMean"])
def test_backward_ex_null_pointer_is_bad_param(bn, null):
    b = bn(FLOAT, DIMS, SPATIAL)
    assert b.training() == 0
    assert _named_call("mcdnnBatchNormalizationBackwardEx", ex_backward_args(b), null) == BAD_PARAM
    assert null in recent_error() or "only together" in recent_error()


def test_ex_routines_with_all_their_pointers_succeed(bn):
    """The argument lists the NULL tests start from are valid: each failure above is the NULL's."""
    b = bn(FLOAT, DIMS, SPATIAL)
    assert call("mcdnnBatchNormalizationForwardTrainingEx", *[v for _, v in ex_forward_args(b)]) == 0
    assert call("mcdnnBatchNormalizationBackwardEx", *[v for _, v in ex_backward_args(b)]) == 0


@pytest.mark.parametrize("routine", ["training", "backward"])
def test_normalization_null_pointer_is_bad_param(bn, routine):
    b = bn(FLOAT, DIMS, SPATIAL)
    if routine == "training":
        b.B = type("Null", (), {"address": None})()          # normBias NULL
        assert norm_training(b) == BAD_PARAM
        assert "normBias" in recent_error()
    else:
        assert norm_training(b) == 0
        b.DB = type("Null", (), {"address": None})()         # dNormBiasData NULL
        assert norm_backward(b) == BAD_PARAM
        assert "dNormBiasData" in recent_error()
