"""mcDNN batch normalization through the C ABI: numerics of the plain routines against PyTorch CPU (batch_norm
in training and eval with running statistics, autograd for the backward), blending, in-place calls and channel
blocks (seed 3.1.1.2-3.1.1.16, mcdnn.md §3.1)."""
import numpy as np
import pytest
import torch

from mc import BFLOAT16, DOUBLE, FLOAT, HALF, DeviceTensor, c_double, c_int, call, handle, lib, recent_error, rounded
from mc_batchnorm import (DIMS, EPS, MODE_IDS, PER_ACTIVATION, SPATIAL, SPATIAL_PERSISTENT, TYPE_IDS, bn, close,
                          torch_reference)


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
