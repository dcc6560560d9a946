"""ops-nn loss/ through the C ABI, the losses with structure: cross-entropy with weights, ignoreIndex and label
smoothing and its gradient, CTC and its gradient, multilabel margin, Chamfer distance's gradient and the
vocabulary-shard cross-entropy piece, against PyTorch CPU or a direct formula."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from acl import DeviceTensor, recent_error
from acl_args import call, int_array

INVALID, TILING = 161002, 561002
I64, B, F64 = ctypes.c_int64, ctypes.c_bool, ctypes.c_double
OK = (0, 0, 0)
NULL = ctypes.c_void_p(None)


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def text(value):
    return ctypes.c_char_p(value.encode())


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_loss_and_grad_match_torch(reduction, smoothing):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    target, weight = np.array([1, 3, -100, 6, 0]), rng.uniform(0.5, 2, 7).astype(np.float32)
    xt = torch.from_numpy(x).requires_grad_()
    expected = F.cross_entropy(xt, torch.from_numpy(target), torch.from_numpy(weight), reduction=reduction,
                               label_smoothing=smoothing)
    loss = t(np.zeros(5 if reduction == "none" else 1, np.float32))
    log_prob = t(np.zeros_like(x))
    status = call("aclnnCrossEntropyLoss", t(x), t(target), t(weight), text(reduction), I64(-100), F64(smoothing),
                  F64(0), B(False), loss, log_prob, t(np.zeros(1, np.float32)), t(np.zeros(5, np.float32)))
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(loss).reshape(-1), expected.detach().numpy().reshape(-1), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got(log_prob), torch.log_softmax(xt, 1).detach().numpy(), rtol=1e-6, atol=1e-6)
    grad = torch.full(expected.shape, 0.6)
    expected.backward(grad)
    out = t(np.zeros_like(x))
    g = t(grad.numpy().reshape(-1) if reduction == "none" else np.full(1, 0.6, np.float32))
    status = call("aclnnCrossEntropyLossGrad", g, log_prob, t(target), t(weight), NULL, NULL, text(reduction),
                  I64(-100), F64(smoothing), F64(0), out)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), xt.grad.numpy(), rtol=2e-6, atol=1e-7)


def test_cross_entropy_loss_reduction_is_checked_by_the_tiling():
    x = np.zeros((2, 3), np.float32)
    status = call("aclnnCrossEntropyLoss", t(x), t(np.array([0, 1])), NULL, text("avg"), I64(-100), F64(0), F64(0),
                  B(False), t(np.zeros(1, np.float32)), t(x), t(np.zeros(1, np.float32)), t(np.zeros(2, np.float32)))
    assert status[0] == TILING and "reduction" in recent_error()


def test_cross_entropy_loss_target_int32_only_on_the_950(monkeypatch):
    x = np.zeros((2, 3), np.float32)
    arguments = (t(x), t(np.array([0, 1], np.int32)), NULL, text("mean"), I64(-100), F64(0), F64(0), B(False),
                 t(np.zeros(1, np.float32)), t(x), t(np.zeros(1, np.float32)), t(np.zeros(2, np.float32)))
    assert call("aclnnCrossEntropyLoss", *arguments)[0] == INVALID
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    assert call("aclnnCrossEntropyLoss", *arguments) == OK, recent_error()


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_and_backward_match_torch(zero_infinity):
    rng = np.random.default_rng(2)
    steps, batch, classes = 12, 3, 6
    lp = torch.log_softmax(torch.from_numpy(rng.standard_normal((steps, batch, classes)).astype(np.float32)),
                           -1).requires_grad_()
    lengths, inputs = [3, 4, 5], [12, 10, 4]   # the last cannot align: an infinite loss
    targets = torch.from_numpy(rng.integers(1, classes, (batch, 5)))
    loss = F.ctc_loss(lp, targets, inputs, lengths, reduction="none", zero_infinity=zero_infinity)
    nll, alpha = t(np.zeros(batch, np.float32)), t(np.zeros((batch, steps, 16), np.float32))
    status = call("aclnnCtcLoss", t(lp.detach().numpy()), t(targets.numpy()), int_array(inputs), int_array(lengths),
                  I64(0), B(zero_infinity), nll, alpha)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(nll), loss.detach().numpy(), rtol=1e-5)
    grad = torch.tensor([1.0, 0.5, 2.0])
    loss.backward(grad)
    out = t(np.zeros((steps, batch, classes), np.float32))
    status = call("aclnnCtcLossBackward", t(grad.numpy()), t(lp.detach().numpy()), t(targets.numpy()),
                  int_array(inputs), int_array(lengths), nll, alpha, I64(0), B(zero_infinity), out)
    assert status == OK, recent_error()
    expected = lp.grad.numpy()
    if not zero_infinity:
        expected, actual = expected[:, :2], got(out)[:, :2]   # torch's gradient of an infinite loss is NaN
    else:
        actual = got(out)
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)


def test_ctc_loss_blank_out_of_range():
    lp = np.zeros((4, 1, 3), np.float32)
    status = call("aclnnCtcLoss", t(lp), t(np.array([[1]])), int_array([4]), int_array([1]), I64(3), B(False),
                  t(np.zeros(1, np.float32)), t(np.zeros((1, 4, 8), np.float32)))
    assert status[0] == INVALID and "Attr parameter blank 3 must be greater than or equal to 0 and less than 3." \
        in recent_error()


@pytest.mark.parametrize("reduction,name", [(0, "none"), (1, "mean"), (2, "sum")])
def test_multilabel_margin_loss_matches_torch(reduction, name):
    x = np.random.default_rng(3).standard_normal((3, 5)).astype(np.float32)
    target = np.array([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [4, -1, 0, 0, 0]])
    expected = F.multilabel_margin_loss(torch.from_numpy(x), torch.from_numpy(target), reduction=name).numpy()
    out = t(np.zeros(3, np.float32)) if reduction == 0 else t(np.zeros(1, np.float32), shape=())
    is_target = t(np.zeros_like(x))
    assert call("aclnnMultilabelMarginLoss", t(x), t(target), I64(reduction), out, is_target) == OK, recent_error()
    np.testing.assert_allclose(got(out), expected, rtol=1e-6)
    assert got(is_target)[0].tolist() == [1, 0, 0, 1, 0]


def test_chamfer_distance_backward_matches_autograd():
    rng = np.random.default_rng(4)
    p1 = torch.from_numpy(rng.standard_normal((2, 5, 2)).astype(np.float32)).requires_grad_()
    p2 = torch.from_numpy(rng.standard_normal((2, 4, 2)).astype(np.float32)).requires_grad_()
    distances = ((p1[:, :, None] - p2[:, None]) ** 2).sum(-1)
    idx1, idx2 = distances.argmin(2), distances.argmin(1)
    dist1 = distances.gather(2, idx1[..., None])[..., 0]
    dist2 = distances.gather(1, idx2[:, None])[:, 0]
    g1, g2 = torch.rand(2, 5), torch.rand(2, 4)
    ((dist1 * g1).sum() + (dist2 * g2).sum()).backward()
    dx1, dx2 = t(np.zeros((2, 5, 2), np.float32)), t(np.zeros((2, 4, 2), np.float32))
    status = call("aclnnChamferDistanceBackward", t(p1.detach().numpy()), t(p2.detach().numpy()),
                  t(idx1.numpy().astype(np.int32)), t(idx2.numpy().astype(np.int32)), t(g1.numpy()), t(g2.numpy()),
                  dx1, dx2)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(dx1), p1.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got(dx2), p2.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_cross_entropy_sum_exp_and_index_logit_on_the_950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 16)).astype(np.float32)
    top = x.max(axis=1) + 1
    target = np.array([20, 40, 33], np.int32)   # the shard holds 20..35
    outs = [t(np.zeros(3, np.float32)), t(np.zeros(3, np.float32)), t(np.zeros_like(x)), t(np.zeros(3, np.int32)),
            t(np.zeros(3, np.int32))]
    status = call("aclnnCrossEntropySumExpAndIndexLogit", t(x), t(target), t(top), I64(20), I64(36), *outs)
    assert status == OK, recent_error()
    exp = np.exp(x - top[:, None])
    np.testing.assert_allclose(got(outs[2]), exp, rtol=1e-6)
    np.testing.assert_allclose(got(outs[1]), exp.sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(got(outs[0]), [x[0, 0] - top[0], 0, x[2, 13] - top[2]], rtol=1e-6)
    assert got(outs[3]).tolist() == [0, 0, 13] and got(outs[4]).tolist() == [0, 1, 0]
