"""mcdnnCTCLoss and mcdnnCTCLoss_v8 against torch.nn.functional.ctc_loss (reduction none; the gradient with
respect to the activations is autograd's of the summed losses at log-softmax inputs), the normalization
modes, impossible alignments under both gradient modes, and the documented statuses."""
import ctypes

import numpy as np
import pytest
import torch

from conftest import opemu_only
from mc import (BAD_PARAM, DOUBLE, FLOAT, NOT_SUPPORTED, SUCCESS, Desc, DeviceTensor, c_int, c_void_p, call, handle,
                lib, recent_error)

pytestmark = [opemu_only]
assert handle
DETERMINISTIC, NON_DETERMINISTIC = 0, 1
NORM_NONE, NORM_SOFTMAX = 0, 1
NOT_PROPAGATE, PROPAGATE = 0, 1
INT32 = 4


class Problem:
    def __init__(self, steps=12, alphabet=6, labels=((1, 2, 2), (3,), (4, 5, 1, 2)), inputs=(12, 9, 12), seed=0):
        rng = np.random.default_rng(seed)
        self.steps, self.batch, self.alphabet = steps, len(labels), alphabet
        self.activations = rng.standard_normal((steps, self.batch, alphabet)).astype(np.float32)
        self.labels = [list(l) for l in labels]
        self.inputs = list(inputs)

    def torch(self):
        x = torch.tensor(self.activations.astype(np.float64), requires_grad=True)
        lp = torch.log_softmax(x, dim=2)
        targets = torch.tensor([v for l in self.labels for v in l])
        losses = torch.nn.functional.ctc_loss(lp, targets, torch.tensor(self.inputs),
                                              torch.tensor([len(l) for l in self.labels]), reduction="none")
        losses.sum().backward()
        return losses.detach().numpy(), x.grad.numpy()


def descriptor(norm=NORM_SOFTMAX, grad=NOT_PROPAGATE, comp=FLOAT, v8=True, max_label=8):
    d = c_void_p()
    assert lib().mcdnnCreateCTCLossDescriptor(ctypes.byref(d)) == 0
    if v8:
        assert call("mcdnnSetCTCLossDescriptor_v8", d, c_int(comp), c_int(norm), c_int(grad), c_int(max_label)) == 0
    else:
        assert call("mcdnnSetCTCLossDescriptorEx", d, c_int(comp), c_int(norm), c_int(grad)) == 0
    return d


def run_v8(handle, p, desc, probs=None, gradient_fill=np.nan):
    probs = p.activations if probs is None else probs
    pdesc = Desc(FLOAT, list(probs.shape))
    dprobs, dgrads = DeviceTensor(pdesc, probs), DeviceTensor(pdesc, np.full(probs.shape, gradient_fill))
    costs = DeviceTensor(Desc(FLOAT, [p.batch, 1, 1]), np.zeros((p.batch, 1, 1)))
    flat = [v for l in p.labels for v in l] or [0]
    labels = DeviceTensor(Desc(INT32, [len(flat), 1, 1]), np.array(flat).reshape(-1, 1, 1))
    lengths = DeviceTensor(Desc(INT32, [p.batch, 1, 1]), np.array([len(l) for l in p.labels]).reshape(-1, 1, 1))
    inputs = DeviceTensor(Desc(INT32, [p.batch, 1, 1]), np.array(p.inputs).reshape(-1, 1, 1))
    size = ctypes.c_size_t()
    assert call("mcdnnGetCTCLossWorkspaceSize_v8", handle, c_int(DETERMINISTIC), desc, pdesc.handle, pdesc.handle,
                ctypes.byref(size)) == SUCCESS, recent_error()
    work = DeviceTensor(Desc(6, [1, 1, max(size.value, 1)]), None, fill=0)
    status = call("mcdnnCTCLoss_v8", handle, c_int(DETERMINISTIC), desc, pdesc.handle, dprobs.address,
                  labels.address, lengths.address, inputs.address, costs.address, pdesc.handle, dgrads.address,
                  ctypes.c_size_t(size.value), work.address)
    assert lib().mcDeviceSynchronize() == 0
    return status, costs.read().reshape(-1), dgrads.read()


def test_v8_softmax_normalization_matches_torch(handle):
    p = Problem()
    status, costs, grads = run_v8(handle, p, descriptor())
    assert status == SUCCESS, recent_error()
    losses, expected = p.torch()
    np.testing.assert_allclose(costs, losses, rtol=1e-5)
    np.testing.assert_allclose(grads, expected, rtol=1e-5, atol=1e-6)


def test_legacy_routine_takes_host_labels_and_probabilities(handle):
    p = Problem(seed=1)
    probs = np.exp(p.activations) / np.exp(p.activations).sum(axis=2, keepdims=True)
    desc = descriptor(norm=NORM_NONE, v8=False)
    pdesc = Desc(FLOAT, list(probs.shape))
    dprobs, dgrads = DeviceTensor(pdesc, probs), DeviceTensor(pdesc, None)
    costs = DeviceTensor(Desc(FLOAT, [p.batch, 1, 1]), np.zeros((p.batch, 1, 1)))
    flat = (c_int * sum(len(l) for l in p.labels))(*[v for l in p.labels for v in l])
    lengths, inputs = (c_int * p.batch)(*[len(l) for l in p.labels]), (c_int * p.batch)(*p.inputs)
    size = ctypes.c_size_t()
    assert call("mcdnnGetCTCLossWorkspaceSize", handle, pdesc.handle, pdesc.handle, flat, lengths, inputs,
                c_int(DETERMINISTIC), desc, ctypes.byref(size)) == SUCCESS, recent_error()
    work = DeviceTensor(Desc(6, [1, 1, size.value]), None, fill=0)
    assert call("mcdnnCTCLoss", handle, pdesc.handle, dprobs.address, flat, lengths, inputs, costs.address,
                pdesc.handle, dgrads.address, c_int(NON_DETERMINISTIC), desc, work.address,
                ctypes.c_size_t(size.value)) == SUCCESS, recent_error()
    assert lib().mcDeviceSynchronize() == 0
    losses, expected = p.torch()
    np.testing.assert_allclose(costs.read().reshape(-1), losses, rtol=1e-5)
    np.testing.assert_allclose(dgrads.read(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("grad_mode", [NOT_PROPAGATE, PROPAGATE])
def test_an_impossible_alignment_costs_infinity(handle, grad_mode):
    p = Problem(labels=((1, 1, 1, 1), (2,)), inputs=(5, 4), steps=5, seed=2)  # 1,1,1,1 needs 7 steps
    status, costs, grads = run_v8(handle, p, descriptor(grad=grad_mode), gradient_fill=7.0)
    assert status == SUCCESS
    assert np.isinf(costs[0]) and np.isfinite(costs[1])
    if grad_mode == NOT_PROPAGATE:
        assert (grads[:, 0] == 0).all()
    else:
        assert (grads[:, 0] == 7.0).all()


def test_steps_past_an_input_length_get_no_gradient(handle):
    p = Problem(seed=3)
    _, _, grads = run_v8(handle, p, descriptor())
    assert (grads[9:, 1] == 0).all()


def test_double_data_is_not_supported(handle):
    p = Problem(seed=4)
    pdesc = Desc(DOUBLE, [p.steps, p.batch, p.alphabet])
    size = ctypes.c_size_t()
    assert call("mcdnnGetCTCLossWorkspaceSize_v8", handle, c_int(DETERMINISTIC), descriptor(), pdesc.handle,
                pdesc.handle, ctypes.byref(size)) == NOT_SUPPORTED


def test_label_longer_than_the_maximum_is_bad_param(handle):
    p = Problem(labels=((1, 2, 3, 4, 5),), inputs=(12,), seed=5)
    status, _, _ = run_v8(handle, p, descriptor(max_label=4))
    assert status != SUCCESS


def test_gradient_dims_must_match_probs(handle):
    p = Problem(seed=6)
    pdesc, gdesc = Desc(FLOAT, [p.steps, p.batch, p.alphabet]), Desc(FLOAT, [p.steps, p.batch, p.alphabet + 1])
    size = ctypes.c_size_t()
    assert call("mcdnnGetCTCLossWorkspaceSize_v8", handle, c_int(DETERMINISTIC), descriptor(), pdesc.handle,
                gdesc.handle, ctypes.byref(size)) == BAD_PARAM
