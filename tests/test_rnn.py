"""ops-nn rnn/ through the C ABI against PyTorch CPU: the fused LSTM cell and its backward, multi-layer and
bidirectional LSTM (fixed-length, batch-first, packed) with the saved activations, GRU, and the 310P
BidirectionLSTM; the documented phase-1 checks."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, tensor_list

NULLPTR, INVALID, RUNTIME = 161001, 161002, 361001
I64, B, F64 = ctypes.c_int64, ctypes.c_bool, ctypes.c_double
OK = (0, 0, 0)
NULL = ctypes.c_void_p(None)


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# ---- ThnnFusedLstmCell --------------------------------------------------------------------------------------------

def _cell_by_autograd(ig, hg, cx, bi, bh):
    """The cell written with PyTorch's differentiable ops (the fused CPU kernel does not exist)."""
    gates = (torch.from_numpy(ig) + torch.from_numpy(hg) + torch.from_numpy(bi) + torch.from_numpy(bh))
    gates.requires_grad_()
    c = torch.from_numpy(cx).requires_grad_()
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    cy = f * c + i * g
    return gates, c, o * torch.tanh(cy), cy, torch.cat([i, f, g, o], 1)


def test_thnn_fused_lstm_cell_and_backward_match_torch():
    rng = np.random.default_rng(0)
    batch, hidden = 3, 5
    ig, hg, cx = rand(rng, batch, 4 * hidden), rand(rng, batch, 4 * hidden), rand(rng, batch, hidden)
    bi, bh = rand(rng, 4 * hidden), rand(rng, 4 * hidden)
    gates, c, hy, cy, storage = _cell_by_autograd(ig, hg, cx, bi, bh)
    out_h, out_c, out_s = (t(np.zeros(s, np.float32)) for s in ((batch, hidden), (batch, hidden), (batch, 4 * hidden)))
    status = call("aclnnThnnFusedLstmCell", t(ig), t(hg), t(cx), t(bi), t(bh), out_h, out_c, out_s)
    assert status == OK, recent_error()
    for out, expected in ((out_h, hy), (out_c, cy), (out_s, storage)):
        np.testing.assert_allclose(got(out), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    dh, dc = rand(rng, batch, hidden), rand(rng, batch, hidden)
    torch.autograd.backward([hy, cy], [torch.from_numpy(dh), torch.from_numpy(dc)])
    g_out, cx_out, b_out = (t(np.zeros(s, np.float32)) for s in ((batch, 4 * hidden), (batch, hidden), (4 * hidden,)))
    status = call("aclnnThnnFusedLstmCellBackward", t(dh), t(dc), t(cx), t(cy.detach().numpy()),
                  t(storage.detach().numpy()), B(True), g_out, cx_out, b_out)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(g_out), gates.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got(cx_out), c.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got(b_out), gates.grad.numpy().sum(0), rtol=1e-5, atol=1e-5)


def test_thnn_fused_lstm_cell_biases_come_in_pairs():
    x = np.zeros((1, 4), np.float32)
    status = call("aclnnThnnFusedLstmCell", t(x), t(x), t(np.zeros((1, 1), np.float32)), t(np.zeros(4, np.float32)),
                  NULL, t(np.zeros((1, 1), np.float32)), t(np.zeros((1, 1), np.float32)), t(x))
    assert status[0] == NULLPTR and "hiddenBias should not be a nullptr when inputBias is set." in recent_error()


# ---- LSTM ---------------------------------------------------------------------------------------------------------

def _lstm_arguments(module, x, h0, c0, train, batch_first, batch_sizes=None):
    params = [t(p.detach().numpy()) for p in module._flat_weights]
    directions = 2 if module.bidirectional else 1
    count = module.num_layers * directions
    steps, batch = (x.shape[1], x.shape[0]) if batch_first else x.shape[:2]
    hidden = module.hidden_size
    out_shape = ((batch, steps) if batch_first else (steps, batch)) + (directions * hidden,)
    outs = [t(np.zeros(out_shape, np.float32)), t(np.zeros((count, batch, hidden), np.float32)),
            t(np.zeros((count, batch, hidden), np.float32))]
    lists = [[t(np.zeros((steps, batch, hidden), np.float32)) for _ in range(count)] for _ in range(7)]
    arguments = [t(x), tensor_list(params), tensor_list([t(h0), t(c0)]),
                 t(batch_sizes) if batch_sizes is not None else NULL, B(module.bias), I64(module.num_layers),
                 F64(0.0), B(train), B(module.bidirectional), B(batch_first)] + outs + \
                [tensor_list(entries) for entries in lists]
    return arguments, outs, lists


@pytest.mark.parametrize("layers,bidirectional,batch_first", [(1, False, False), (2, True, False), (2, False, True)])
def test_lstm_matches_torch(layers, bidirectional, batch_first):
    torch.manual_seed(0)
    module = torch.nn.LSTM(4, 5, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    directions = 2 if bidirectional else 1
    x = torch.randn((3, 6, 4) if batch_first else (6, 3, 4))
    h0, c0 = torch.randn(layers * directions, 3, 5), torch.randn(layers * directions, 3, 5)
    y, (hy, cy) = module(x, (h0, c0))
    arguments, outs, _ = _lstm_arguments(module, x.numpy(), h0.numpy(), c0.numpy(), False, batch_first)
    assert call("aclnnLSTM", *arguments) == OK, recent_error()
    for out, expected in zip(outs, (y, hy, cy)):
        np.testing.assert_allclose(got(out), expected.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_lstm_train_saves_the_gate_activations():
    torch.manual_seed(1)
    module = torch.nn.LSTM(3, 2)
    x, h0, c0 = torch.randn(4, 2, 3), torch.zeros(1, 2, 2), torch.zeros(1, 2, 2)
    arguments, outs, lists = _lstm_arguments(module, x.numpy(), h0.numpy(), c0.numpy(), True, False)
    assert call("aclnnLSTM", *arguments) == OK, recent_error()
    w_ih, w_hh, b_ih, b_hh = (p.detach() for p in module._flat_weights)
    gates = x[0] @ w_ih.T + b_ih + b_hh   # the first step starts from zero states
    i, f, g, o = gates.chunk(4, 1)
    names = dict(zip("ijfohc", range(6)))
    np.testing.assert_allclose(got(lists[names["i"]][0])[0], torch.sigmoid(i).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got(lists[names["j"]][0])[0], torch.tanh(g).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got(lists[names["h"]][0]), got(outs[0]), rtol=0)
    c0_next = torch.sigmoid(i) * torch.tanh(g)
    np.testing.assert_allclose(got(lists[names["c"]][0])[0], c0_next.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got(lists[6][0])[0], torch.tanh(c0_next).numpy(), rtol=1e-5, atol=1e-6)


def test_lstm_packed_sequences_stop_at_their_length():
    torch.manual_seed(2)
    module = torch.nn.LSTM(3, 4)
    lengths = [5, 3, 2]
    x = torch.randn(5, 3, 3)
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths)
    y, (hy, cy) = module(packed)
    padded, _ = torch.nn.utils.rnn.pad_packed_sequence(y)
    h0 = np.zeros((1, 3, 4), np.float32)
    arguments, outs, _ = _lstm_arguments(module, x.numpy(), h0, h0, False, False,
                                         batch_sizes=packed.batch_sizes.numpy().astype(np.int64))
    assert call("aclnnLSTM", *arguments) == OK, recent_error()
    np.testing.assert_allclose(got(outs[0]), padded.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got(outs[1]), hy.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_lstm_params_list_length_is_checked():
    module = torch.nn.LSTM(3, 2)
    x = np.zeros((2, 1, 3), np.float32)
    arguments, _, _ = _lstm_arguments(module, x, np.zeros((1, 1, 2), np.float32), np.zeros((1, 1, 2), np.float32),
                                      False, False)
    arguments[4] = B(False)   # no biases: two tensors per direction expected, four given
    assert call("aclnnLSTM", *arguments)[0] == INVALID
    assert "params lists should be 2, but 4 was obtained." in recent_error()


# ---- GRU ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bidirectional", [False, True])
def test_gru_matches_torch_and_saves_its_gates(bidirectional):
    torch.manual_seed(3)
    module = torch.nn.GRU(4, 3, num_layers=2, bidirectional=bidirectional)
    directions = 2 if bidirectional else 1
    x, h0 = torch.randn(5, 2, 4), torch.randn(2 * directions, 2, 3)
    y, hy = module(x, h0)
    count = 2 * directions
    out, out_h = t(np.zeros(tuple(y.shape), np.float32)), t(np.zeros(tuple(hy.shape), np.float32))
    lists = [[t(np.zeros((5, 2, 3), np.float32)) for _ in range(count)] for _ in range(5)]
    params = tensor_list([t(p.detach().numpy()) for p in module._flat_weights])
    status = call("aclnnGRU", t(x.numpy()), params, t(h0.numpy()), NULL, B(True), I64(2), F64(0), B(True),
                  B(bidirectional), B(False), out, out_h, *[tensor_list(entries) for entries in lists])
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), y.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got(out_h), hy.detach().numpy(), rtol=1e-4, atol=1e-5)
    if not bidirectional:   # the last layer's hOut is the output
        np.testing.assert_allclose(got(lists[4][-1]), got(out), rtol=0)


def test_gru_is_refused_off_a2_a3(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    module = torch.nn.GRU(2, 2)
    params = tensor_list([t(p.detach().numpy()) for p in module._flat_weights])
    status = call("aclnnGRU", t(np.zeros((1, 1, 2), np.float32)), params, NULL, NULL, B(True), I64(1), F64(0),
                  B(False), B(False), B(False), t(np.zeros((1, 1, 2), np.float32)),
                  t(np.zeros((1, 1, 2), np.float32)), NULL, NULL, NULL, NULL, NULL)
    assert status[0] == RUNTIME


# ---- BidirectionLSTM (Atlas inference, fp16) ----------------------------------------------------------------------

def test_bidirection_lstm_matches_torch_in_fp16_on_310p(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    torch.manual_seed(4)
    module = torch.nn.LSTM(4, 3, bidirectional=True)
    x, h0, c0 = torch.randn(5, 2, 4), torch.randn(2, 2, 3), torch.randn(2, 2, 3)
    y, (hy, cy) = module(x, (h0, c0))
    half = lambda a: t(a.detach().numpy().astype(np.float16))
    weights = [half(p) for p in module._flat_weights]
    outs = [t(np.zeros(s, np.float16)) for s in ((5, 2, 6), (2, 2, 3), (2, 2, 3))]
    status = call("aclnnBidirectionLSTM", half(x), half(h0), half(c0), *weights, I64(1), B(True), B(False), B(True),
                  *outs)
    assert status == OK, recent_error()
    for out, expected in zip(outs, (y, hy, cy)):
        np.testing.assert_allclose(got(out).astype(np.float32), expected.detach().numpy(), atol=1e-2)


def test_bidirection_lstm_is_refused_off_310p():
    x = np.zeros((1, 1, 4), np.float16)
    status = call("aclnnBidirectionLSTM", t(x), t(np.zeros((1, 1, 1), np.float16)), t(np.zeros((1, 1, 1), np.float16)),
                  t(np.zeros((4, 4), np.float16)), t(np.zeros((4, 1), np.float16)), NULL, NULL, NULL, NULL, NULL, NULL,
                  I64(1), B(False), B(False), B(False), t(np.zeros((1, 1, 1), np.float16)),
                  t(np.zeros((1, 1, 1), np.float16)), t(np.zeros((1, 1, 1), np.float16)))
    assert status[0] == RUNTIME


# ---- LstmBackward -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_lstm_backward_from_the_saved_activations_matches_autograd(layers, bidirectional):
    torch.manual_seed(5)
    module = torch.nn.LSTM(3, 4, num_layers=layers, bidirectional=bidirectional)
    directions = 2 if bidirectional else 1
    x = torch.randn(5, 2, 3, requires_grad=True)
    h0 = torch.randn(layers * directions, 2, 4, requires_grad=True)
    c0 = torch.randn(layers * directions, 2, 4, requires_grad=True)
    y, (hy, cy) = module(x, (h0, c0))
    dy, dh, dc = torch.randn_like(y), torch.randn_like(hy), torch.randn_like(cy)
    torch.autograd.backward([y, hy, cy], [dy, dh, dc])
    arguments, outs, lists = _lstm_arguments(module, x.detach().numpy(), h0.detach().numpy(), c0.detach().numpy(),
                                             True, False)
    assert call("aclnnLSTM", *arguments) == OK, recent_error()
    params = [t(p.detach().numpy()) for p in module._flat_weights]
    dparams = [t(np.zeros(tuple(p.shape), np.float32)) for p in module._flat_weights]
    dx, dh_prev, dc_prev = (t(np.zeros(tuple(s.shape), np.float32)) for s in (x, h0, c0))
    mask = lib_bool_array([True] * 4)
    status = call("aclnnLstmBackward", t(x.detach().numpy()), tensor_list([t(h0.detach().numpy()),
                                                                           t(c0.detach().numpy())]),
                  tensor_list(params), t(dy.numpy()), t(dh.numpy()), t(dc.numpy()),
                  *[tensor_list(entries) for entries in lists], NULL, B(True), I64(layers), F64(0), B(True),
                  B(bidirectional), B(False), mask, dx, dh_prev, dc_prev, tensor_list(dparams))
    assert status == OK, recent_error()
    for out, expected in ((dx, x), (dh_prev, h0), (dc_prev, c0)):
        np.testing.assert_allclose(got(out), expected.grad.numpy(), rtol=1e-4, atol=1e-5)
    for out, p in zip(dparams, module._flat_weights):
        np.testing.assert_allclose(got(out), p.grad.numpy(), rtol=1e-4, atol=1e-5)


def lib_bool_array(values):
    from acl import lib
    create = lib().aclCreateBoolArray
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    raw = (ctypes.c_bool * len(values))(*values)
    return ctypes.c_void_p(create(raw, len(values)))
