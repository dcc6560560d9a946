"""ops-nn loss/ through the C ABI: the elementwise losses and their backward against PyTorch CPU for every
reduction, where fp16 rounds, empty inputs, and the phase-1 checks each op_api makes in its order; Logit."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, to_torch

NULLPTR, INVALID, INNER_NULLPTR = 161001, 161002, 561103
I64, B, F32, F64 = ctypes.c_int64, ctypes.c_bool, ctypes.c_float, ctypes.c_double
BF16 = np.dtype(ml_dtypes.bfloat16)
OK = (0, 0, 0)
REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
NULL = ctypes.c_void_p(None)


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def probabilities(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).uniform(0.05, 0.95, shape).astype(dtype)


def out_for(reference, dtype=np.float32):
    return t(np.zeros(reference.shape, dtype)) if reference.ndim else t(np.zeros(1, dtype), shape=())


FORWARD = {
    "aclnnL1Loss": (lambda x, y, r: F.l1_loss(x, y, reduction=r), lambda s, tg, r, o: (s, tg, I64(r), o)),
    "aclnnMseLoss": (lambda x, y, r: F.mse_loss(x, y, reduction=r), lambda s, tg, r, o: (s, tg, I64(r), o)),
    "aclnnSmoothL1Loss": (lambda x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.3),
                          lambda s, tg, r, o: (s, tg, I64(r), F32(0.3), o)),
    "aclnnSoftMarginLoss": (lambda x, y, r: F.soft_margin_loss(x, y, reduction=r),
                            lambda s, tg, r, o: (s, tg, I64(r), o)),
    "aclnnBinaryCrossEntropy": (lambda x, y, r: F.binary_cross_entropy(x, y, reduction=r),
                                lambda s, tg, r, o: (s, tg, NULL, I64(r), o)),
    "aclnnBinaryCrossEntropyWithLogits": (lambda x, y, r: F.binary_cross_entropy_with_logits(x, y, reduction=r),
                                          lambda s, tg, r, o: (s, tg, NULL, NULL, I64(r), o)),
}


@pytest.mark.parametrize("reduction", [0, 1, 2], ids=REDUCTIONS.values())
@pytest.mark.parametrize("op", sorted(FORWARD))
def test_loss_matches_torch(op, reduction):
    reference, arguments = FORWARD[op]
    x, y = probabilities((3, 5), 1), probabilities((3, 5), 2)
    expected = reference(torch.from_numpy(x), torch.from_numpy(y), REDUCTIONS[reduction]).numpy()
    out = out_for(expected)
    assert call(op, *arguments(t(x), t(y), reduction, out)) == OK, recent_error()
    np.testing.assert_allclose(got(out), expected, rtol=2e-6, atol=2e-7)


def test_mse_loss_of_fp16_sums_in_fp32_and_rounds_once():
    x = np.full(4096, 0.1, np.float16)
    y = np.zeros(4096, np.float16)
    out = t(np.zeros(1, np.float16), shape=())
    assert call("aclnnMseLoss", t(x), t(y), I64(2), out) == OK, recent_error()
    expected = np.float16(np.sum(np.square(x.astype(np.float32))))
    assert got(out) == expected


def test_l1_loss_broadcasts_self_and_target():
    x, y = probabilities((3, 1), 3), probabilities((1, 4), 4)
    out = t(np.zeros((3, 4), np.float32))
    assert call("aclnnL1Loss", t(x), t(y), I64(0), out) == OK, recent_error()
    np.testing.assert_allclose(got(out), np.abs(x - y), rtol=1e-7)


@pytest.mark.parametrize("reduction,value", [(1, np.nan), (2, 0.0)])
def test_empty_loss_writes_nan_for_mean_and_zero_for_sum(reduction, value):
    out = t(np.full(1, 7, np.float32), shape=())
    assert call("aclnnMseLoss", t(np.zeros((0, 3), np.float32)), t(np.zeros((0, 3), np.float32)), I64(reduction),
                out) == OK, recent_error()
    np.testing.assert_equal(got(out), np.float32(value))


def test_mse_loss_out_reduces_over_dimension_zero():
    x, y = probabilities((4, 3), 5), probabilities((4, 3), 6)
    out = t(np.zeros(3, np.float32))
    assert call("aclnnMseLossOut", t(x), t(y), I64(1), out) == OK, recent_error()
    np.testing.assert_allclose(got(out), np.square(x - y).mean(axis=0), rtol=1e-6)


def test_loss_reduction_out_of_range():
    x = probabilities((2, 2), 7)
    assert call("aclnnL1Loss", t(x), t(x), I64(3), t(np.zeros(1, np.float32), shape=()))[0] == INVALID
    assert "Expected reduction to be 0 or 1 or 2, but got 3." in recent_error()


def test_mse_loss_reduced_out_must_be_0d():
    x = probabilities((2, 2), 8)
    assert call("aclnnMseLoss", t(x), t(x), I64(1), t(np.zeros(1, np.float32)))[0] == INVALID
    assert "Expected a 0-dimensional tensor, but Shape of out is [1]." in recent_error()


def test_smooth_l1_loss_beta_must_not_be_negative():
    x = probabilities((2, 2), 9)
    assert call("aclnnSmoothL1Loss", t(x), t(x), I64(0), F32(-1), t(np.zeros((2, 2), np.float32)))[0] == INVALID
    assert "beta should be greater than or equal to 0" in recent_error()


def test_binary_cross_entropy_null_self_is_an_inner_nullptr():
    x = probabilities((2, 2), 10)
    assert call("aclnnBinaryCrossEntropy", NULL, t(x), NULL, I64(0), t(x))[0] == INNER_NULLPTR


def test_binary_cross_entropy_shapes_must_match():
    status = call("aclnnBinaryCrossEntropy", t(probabilities((2, 2), 11)), t(probabilities((2, 3), 12)), NULL,
                  I64(0), t(np.zeros((2, 2), np.float32)))
    assert status[0] == INVALID and "to have same size as tensor for target" in recent_error()


def test_bce_with_logits_pos_weight_matches_torch():
    x, y = np.random.default_rng(13).standard_normal((3, 4)).astype(np.float32), probabilities((3, 4), 14)
    pos, weight = probabilities(4, 15) * 3, probabilities((3, 1), 16)
    expected = F.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(weight),
                                                  reduction="sum", pos_weight=torch.from_numpy(pos))
    out = t(np.zeros(1, np.float32), shape=())
    assert call("aclnnBinaryCrossEntropyWithLogits", t(x), t(y), t(weight), t(pos), I64(2), out) == OK, recent_error()
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-6)


BACKWARD = {
    "aclnnL1LossBackward": (F.l1_loss, lambda g, s, tg, r, o: (g, s, tg, I64(r), o)),
    "aclnnMseLossBackward": (F.mse_loss, lambda g, s, tg, r, o: (g, s, tg, I64(r), o)),
    "aclnnSmoothL1LossBackward": (lambda x, y, reduction: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.3),
                                  lambda g, s, tg, r, o: (g, s, tg, I64(r), F32(0.3), o)),
    "aclnnSoftMarginLossBackward": (F.soft_margin_loss, lambda g, s, tg, r, o: (g, s, tg, I64(r), o)),
    "aclnnBinaryCrossEntropyBackward": (F.binary_cross_entropy, lambda g, s, tg, r, o: (g, s, tg, NULL, I64(r), o)),
    "aclnnBinaryCrossEntropyWithLogitsBackward": (F.binary_cross_entropy_with_logits,
                                                  lambda g, s, tg, r, o: (g, s, tg, NULL, NULL, I64(r), o)),
}


@pytest.mark.parametrize("reduction", [0, 1, 2], ids=REDUCTIONS.values())
@pytest.mark.parametrize("op", sorted(BACKWARD))
def test_loss_backward_matches_torch(op, reduction):
    reference, arguments = BACKWARD[op]
    x = torch.from_numpy(probabilities((3, 5), 17)).requires_grad_()
    y = torch.from_numpy(probabilities((3, 5), 18))
    loss = reference(x, y, reduction=REDUCTIONS[reduction])
    grad = torch.full(loss.shape, 0.7)
    loss.backward(grad)
    g = t(grad.numpy()) if grad.ndim else t(np.full(1, 0.7, np.float32), shape=())
    out = t(np.zeros((3, 5), np.float32))
    assert call(op, *arguments(g, t(x.detach().numpy()), t(y.numpy()), reduction, out)) == OK, recent_error()
    np.testing.assert_allclose(got(out), x.grad.numpy(), rtol=2e-6, atol=1e-8)


@pytest.mark.filterwarnings("ignore:reduction")
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("reduction,name", [(0, "none"), (1, "mean"), (2, "sum"), (3, "batchmean")])
def test_kl_div_backward_for_self_and_target_match_torch(reduction, name, log_target):
    x = torch.from_numpy(np.log(probabilities((3, 5), 19))).requires_grad_()
    target = probabilities((3, 5), 20)
    y = torch.from_numpy(np.log(target) if log_target else target).requires_grad_()
    loss = F.kl_div(x, y, reduction=name, log_target=log_target)
    grad = torch.full(loss.shape, 0.5)
    loss.backward(grad)
    g = t(grad.numpy()) if grad.ndim else t(np.full(1, 0.5, np.float32), shape=())
    for op, expected in (("aclnnKlDivBackward", x.grad), ("aclnnKlDivTargetBackward", y.grad)):
        out = t(np.zeros((3, 5), np.float32))
        status = call(op, g, t(x.detach().numpy()), t(y.detach().numpy()), I64(reduction), B(log_target), out)
        assert status == OK, recent_error()
        np.testing.assert_allclose(got(out), expected.numpy(), rtol=2e-6, atol=1e-8)


def test_mse_loss_backward_wants_one_dtype():
    x = probabilities((2, 2), 21)
    status = call("aclnnMseLossBackward", t(x.astype(np.float16)), t(x), t(x), I64(0), t(np.zeros_like(x)))
    assert status[0] == INVALID and "Expected both tensors to have same dtype" in recent_error()


@pytest.mark.parametrize("eps", [-1.0, 0.1])
def test_logit_and_its_grad_match_torch(eps):
    x = torch.from_numpy(probabilities(11, 22) * 1.1 - 0.05).requires_grad_()
    y = torch.logit(x, None if eps < 0 else eps)
    out = t(np.zeros(11, np.float32))
    assert call("aclnnLogit", t(x.detach().numpy()), F64(eps), out) == OK, recent_error()
    np.testing.assert_allclose(got(out), y.detach().numpy(), rtol=1e-5, equal_nan=True)
    dy = torch.full((11,), 0.3)
    y.backward(dy)
    dx = t(np.zeros(11, np.float32))
    assert call("aclnnLogitGrad", t(x.detach().numpy()), t(dy.numpy()), F64(eps), dx) == OK, recent_error()
    np.testing.assert_allclose(got(dx), x.grad.numpy(), rtol=1e-5, equal_nan=True)


def test_logit_is_refused_on_atlas_training(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProA")
    x = probabilities(3, 23)
    assert call("aclnnLogit", t(x), F64(0), t(np.zeros(3, np.float32)))[0] == 361001
