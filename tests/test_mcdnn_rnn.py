"""mcDNN's RNN (v8 API) against PyTorch CPU: LSTM, GRU and RNN-tanh/relu, one or two layers, one or two
directions, a recurrent projection, padded and packed layouts with sequences of different lengths; the
forward's outputs and final states, BackwardData's dx, dhx, dcx and BackwardWeights' gradients laid out
back into PyTorch's parameters through mcdnnGetRNNWeightParams. Then the weight-space layout, the size
queries and the documented statuses."""
import ctypes

import numpy as np
import pytest
import torch

from conftest import opemu_only
from mc import (BAD_PARAM, DOUBLE, FLOAT, NOT_SUPPORTED, NUMPY, SUCCESS, Desc, blank, c_int, c_void_p, call,
                flat_device, handle, lib, recent_error)
from rnn import (BATCH_MAJOR_UNPACKED, GRU, INFERENCE, LSTM, NO_BIAS, RELU, RNN, SEQ_MAJOR_PACKED,
                 SEQ_MAJOR_UNPACKED, SKIP_INPUT, TANH, TRAINING, DataDesc, nd_dims, size_t, torch_module)

pytestmark = [opemu_only]
assert handle


def read(tensor, count=None):
    flat = tensor.read().reshape(-1)
    return flat if count is None else flat[:count]


class Case:
    """One RNN problem run through mcdnnRNNForward (training) and both backward routines."""

    def __init__(self, handle, cell, layout=SEQ_MAJOR_UNPACKED, lengths=(5, 5, 5), layers=1, bidirectional=False,
                 proj=None, input_size=4, hidden=6, code=DOUBLE, bias=2, seed=0):
        self.rnn = RNN(handle, cell, input_size, hidden, layers, proj, bidirectional, bias, code)
        assert self.rnn.status == SUCCESS, recent_error()
        self.h, self.code, self.lengths = handle, code, list(lengths)
        t_max, batch = max(lengths), len(lengths)
        out = self.rnn.proj * self.rnn.dirs
        self.x_desc = DataDesc(code, layout, t_max, batch, input_size, lengths)
        self.y_desc = DataDesc(code, layout, t_max, batch, out, lengths, fill=0.0)
        self.module = torch_module(self.rnn, seed=seed)
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((t_max, batch, input_size))
        for b, n in enumerate(lengths):
            self.x[n:, b] = 0
        pl = layers * self.rnn.dirs
        self.hx = rng.standard_normal((pl, batch, self.rnn.proj))
        self.cx = rng.standard_normal((pl, batch, hidden))
        self.h_desc = Desc(code, [pl, batch, self.rnn.proj])
        self.c_desc = Desc(code, [pl, batch, hidden])
        self.space = blank(self.rnn.weight_space_size() // np.dtype(NUMPY[code]).itemsize, code)
        self.rnn.fill_from(self.module, self.space)
        work, reserve = size_t(), size_t()
        assert call("mcdnnGetRNNTempSpaceSizes", handle, self.rnn.handle, c_int(TRAINING), self.x_desc.handle,
                    ctypes.byref(work), ctypes.byref(reserve)) == SUCCESS, recent_error()
        self.work, self.reserve = blank(work.value, 6), blank(reserve.value, 6)   # UINT8
        self.work_bytes, self.reserve_bytes = work.value, reserve.value
        self.seq = flat_device(np.array(lengths, np.int32), 4)

    def forward(self):
        d = self.x_desc
        self.dx_in = flat_device(d.pack(self.x), self.code)
        self.y = blank(self.y_desc.elements, self.code)
        self.dhx_in, self.dcx_in = flat_device(self.hx, self.code), flat_device(self.cx, self.code)
        self.hy, self.cy = blank(self.hx.size, self.code), blank(self.cx.size, self.code)
        lstm = self.rnn.cell == LSTM
        status = call("mcdnnRNNForward", self.h, self.rnn.handle, c_int(TRAINING), self.seq.address, d.handle,
                      self.dx_in.address, self.y_desc.handle, self.y.address, self.h_desc.handle, self.dhx_in.address,
                      self.hy.address, self.c_desc.handle if lstm else None, self.dcx_in.address if lstm else None,
                      self.cy.address if lstm else None, ctypes.c_size_t(self.rnn.weight_space_size()),
                      self.space.address, ctypes.c_size_t(self.work_bytes), self.work.address,
                      ctypes.c_size_t(self.reserve_bytes), self.reserve.address)
        assert status == SUCCESS, recent_error()
        assert lib().mcDeviceSynchronize() == 0
        return self.y_desc.unpack(read(self.y, self.y_desc.elements)), read(self.hy), read(self.cy)

    def torch_forward(self):
        x = torch.tensor(self.x, requires_grad=True)
        hx, cx = torch.tensor(self.hx, requires_grad=True), torch.tensor(self.cx, requires_grad=True)
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, self.lengths, enforce_sorted=False)
        state = (hx, cx) if self.rnn.cell == LSTM else hx
        out, final = self.module(packed, state)
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=max(self.lengths))
        hy, cy = final if self.rnn.cell == LSTM else (final, None)
        return (x, hx, cx), y, hy, cy

    def backward(self, gy, ghy, gcy):
        lstm = self.rnn.cell == LSTM
        dy = flat_device(self.y_desc.pack(gy), self.code)
        dhy, dcy = flat_device(ghy, self.code), flat_device(gcy, self.code)
        dx, dhx, dcx = blank(self.x_desc.elements, self.code), blank(self.hx.size, self.code), blank(self.cx.size,
                                                                                                      self.code)
        assert call("mcdnnRNNBackwardData_v8", self.h, self.rnn.handle, self.seq.address, self.y_desc.handle,
                    self.y.address, dy.address, self.x_desc.handle, dx.address, self.h_desc.handle,
                    self.dhx_in.address, dhy.address, dhx.address, self.c_desc.handle if lstm else None,
                    self.dcx_in.address if lstm else None, dcy.address if lstm else None,
                    dcx.address if lstm else None, ctypes.c_size_t(self.rnn.weight_space_size()), self.space.address,
                    ctypes.c_size_t(self.work_bytes), self.work.address, ctypes.c_size_t(self.reserve_bytes),
                    self.reserve.address) == SUCCESS, recent_error()
        dw = blank(self.space.size, self.code)
        assert call("mcdnnRNNBackwardWeights_v8", self.h, self.rnn.handle, c_int(1), self.seq.address,
                    self.x_desc.handle, self.dx_in.address, self.h_desc.handle, self.dhx_in.address,
                    self.y_desc.handle, self.y.address, ctypes.c_size_t(self.rnn.weight_space_size()), dw.address,
                    ctypes.c_size_t(self.work_bytes), self.work.address, ctypes.c_size_t(self.reserve_bytes),
                    self.reserve.address) == SUCCESS, recent_error()
        assert lib().mcDeviceSynchronize() == 0
        return (self.x_desc.unpack(read(dx, self.x_desc.elements)), read(dhx), read(dcx),
                self.rnn.gradients_to_torch(self.module, read(dw, self.rnn.weight_space_size() //
                                                              np.dtype(NUMPY[self.code]).itemsize)))


def check_against_torch(case, rtol=1e-9):
    y, hy, cy = case.forward()
    (x, hx, cx), ty, thy, tcy = case.torch_forward()
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(hy, thy.detach().numpy().reshape(-1), rtol=rtol, atol=rtol)
    if tcy is not None:
        np.testing.assert_allclose(cy, tcy.detach().numpy().reshape(-1), rtol=rtol, atol=rtol)
    rng = np.random.default_rng(99)
    gy, ghy, gcy = rng.standard_normal(y.shape), rng.standard_normal(case.hx.shape), rng.standard_normal(case.cx.shape)
    for b, n in enumerate(case.lengths):
        gy[n:, b] = 0
    loss = (ty * torch.tensor(gy)).sum() + (thy * torch.tensor(ghy)).sum()
    if tcy is not None:
        loss = loss + (tcy * torch.tensor(gcy)).sum()
    loss.backward()
    dx, dhx, dcx, grads = case.backward(gy, ghy, gcy)
    np.testing.assert_allclose(dx, x.grad.numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(dhx, hx.grad.numpy().reshape(-1), rtol=rtol, atol=rtol)
    if tcy is not None:
        np.testing.assert_allclose(dcx, cx.grad.numpy().reshape(-1), rtol=rtol, atol=rtol)
    for name, p in case.module.named_parameters():
        np.testing.assert_allclose(grads[name], p.grad.numpy(), rtol=rtol, atol=rtol, err_msg=name)


@pytest.mark.parametrize("cell", [LSTM, GRU, TANH, RELU], ids=["lstm", "gru", "rnn-tanh", "rnn-relu"])
def test_one_layer_matches_torch(handle, cell):
    check_against_torch(Case(handle, cell))


@pytest.mark.parametrize("cell", [LSTM, GRU, TANH], ids=["lstm", "gru", "rnn-tanh"])
def test_two_bidirectional_layers_match_torch(handle, cell):
    check_against_torch(Case(handle, cell, layers=2, bidirectional=True, seed=1))


@pytest.mark.parametrize("layout", [SEQ_MAJOR_UNPACKED, SEQ_MAJOR_PACKED, BATCH_MAJOR_UNPACKED],
                         ids=["seq-major", "packed", "batch-major"])
@pytest.mark.parametrize("cell", [LSTM, GRU], ids=["lstm", "gru"])
def test_sequences_of_different_lengths_in_each_layout(handle, layout, cell):
    check_against_torch(Case(handle, cell, layout=layout, lengths=(5, 3, 2), bidirectional=True, seed=2))


def test_lstm_with_a_recurrent_projection(handle):
    check_against_torch(Case(handle, LSTM, proj=4, hidden=7, layers=2, bidirectional=True, seed=3))


def test_float_lstm_within_single_precision(handle):
    check_against_torch(Case(handle, LSTM, code=FLOAT, seed=4), rtol=2e-5)


def test_a_sequence_of_length_zero_keeps_its_initial_state(handle):
    case = Case(handle, GRU, lengths=(4, 0, 2), seed=5)
    y, hy, _ = case.forward()
    np.testing.assert_allclose(hy.reshape(case.hx.shape)[:, 1], case.hx[:, 1])
    assert not y[:, 1].any()


def test_padded_outputs_take_the_descriptors_fill(handle):
    case = Case(handle, TANH, lengths=(3, 1), seed=6)
    y, _, _ = case.forward()
    assert (y[1:, 1] == 0).all()


def test_weight_params_describe_rows_major_matrices_and_null_for_absent_biases(handle):
    rnn = RNN(handle, LSTM, 5, 7, bias=NO_BIAS)
    space = blank(rnn.weight_space_size() // 4, FLOAT)
    m_addr, m_dims, b_addr, b_dims = rnn.params(space, 0, 5)
    assert m_dims == [1, 7, 7] and b_addr is None and b_dims == []
    assert rnn.weight_space_size() == 4 * (4 * 7 * 5 + 4 * 7 * 7)
    m0, dims0, _, _ = rnn.params(space, 0, 0)
    assert m0 == space.address.value and dims0 == [1, 7, 5]


def test_skip_input_has_no_input_matrices_on_the_first_layer(handle):
    rnn = RNN(handle, GRU, 6, 6, input_mode=SKIP_INPUT)
    space = blank(rnn.weight_space_size() // 4, FLOAT)
    m_addr, m_dims, _, _ = rnn.params(space, 0, 0)
    assert m_addr is None and m_dims == []


def test_set_descriptor_statuses(handle):
    assert RNN(handle, LSTM, 4, 6, proj=8).status == BAD_PARAM            # projSize above hiddenSize
    assert RNN(handle, GRU, 4, 6, proj=4).status == NOT_SUPPORTED         # projection is LSTM's
    assert RNN(handle, LSTM, 4, 6, code=FLOAT, math=DOUBLE).status == NOT_SUPPORTED
    assert RNN(handle, LSTM, 4, 6, input_mode=SKIP_INPUT).status == BAD_PARAM  # skip needs input == hidden
    assert RNN(handle, 7, 4, 6).status == BAD_PARAM


def test_forward_statuses(handle):
    case = Case(handle, LSTM, seed=7)
    wrong = DataDesc(DOUBLE, SEQ_MAJOR_UNPACKED, 5, 3, 9, (5, 5, 5))
    x = blank(5 * 3 * 9, DOUBLE)
    status = call("mcdnnRNNForward", handle, case.rnn.handle, c_int(INFERENCE), case.seq.address, wrong.handle,
                  x.address, case.y_desc.handle, blank(case.y_desc.elements, DOUBLE).address, case.h_desc.handle,
                  None, None, case.c_desc.handle, None, None, ctypes.c_size_t(case.rnn.weight_space_size()),
                  case.space.address, ctypes.c_size_t(case.work_bytes), case.work.address, ctypes.c_size_t(0), None)
    assert status == BAD_PARAM and "vectorSize" in recent_error()
    status = call("mcdnnRNNForward", handle, case.rnn.handle, c_int(TRAINING), case.seq.address, case.x_desc.handle,
                  blank(case.x_desc.elements, DOUBLE).address, case.y_desc.handle,
                  blank(case.y_desc.elements, DOUBLE).address, case.h_desc.handle, None, None, case.c_desc.handle,
                  None, None, ctypes.c_size_t(case.rnn.weight_space_size()), case.space.address,
                  ctypes.c_size_t(case.work_bytes), case.work.address, ctypes.c_size_t(case.reserve_bytes - 1),
                  case.reserve.address)
    assert status == BAD_PARAM and "reserveSpaceSize" in recent_error()


def test_data_descriptor_rejects_unsorted_packed_lengths(handle):
    d = c_void_p()
    assert lib().mcdnnCreateRNNDataDescriptor(ctypes.byref(d)) == 0
    assert call("mcdnnSetRNNDataDescriptor", d, c_int(FLOAT), c_int(SEQ_MAJOR_PACKED), c_int(4), c_int(2), c_int(3),
                (c_int * 2)(2, 4), None) == BAD_PARAM
    assert call("mcdnnSetRNNDataDescriptor", d, c_int(FLOAT), c_int(SEQ_MAJOR_UNPACKED), c_int(4), c_int(2), c_int(3),
                (c_int * 2)(2, 5), None) == BAD_PARAM
    assert lib().mcdnnDestroyRNNDataDescriptor(d) == 0


def test_inference_needs_no_reserve_space(handle):
    case = Case(handle, GRU, seed=8)
    work, reserve = size_t(), size_t()
    assert call("mcdnnGetRNNTempSpaceSizes", handle, case.rnn.handle, c_int(INFERENCE), case.x_desc.handle,
                ctypes.byref(work), ctypes.byref(reserve)) == SUCCESS
    assert reserve.value == 0 and work.value > 0
    assert nd_dims(case.h_desc) == [1, 3, 6]
