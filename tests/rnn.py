"""mcDNN's RNN (v8 API) from a test: descriptors built through ctypes, the weight space filled from a
torch.nn.LSTM / GRU / RNN through mcdnnGetRNNWeightParams (PyTorch's own mapping), and the routines'
calls on device buffers (tests/mc.py's)."""
import ctypes

import numpy as np
import torch

from mc import (DOUBLE, FLOAT, HALF, NUMPY, Desc, DeviceTensor, c_double, c_int, c_void_p, call, lib, recent_error)

RELU, TANH, LSTM, GRU = 0, 1, 2, 3
NO_BIAS, SINGLE_INP_BIAS, DOUBLE_BIAS, SINGLE_REC_BIAS = 0, 1, 2, 3
LINEAR_INPUT, SKIP_INPUT = 0, 1
SEQ_MAJOR_UNPACKED, SEQ_MAJOR_PACKED, BATCH_MAJOR_UNPACKED = 0, 1, 2
INFERENCE, TRAINING = 0, 1
PADDED_IO = 1
GATES = {RELU: 1, TANH: 1, LSTM: 4, GRU: 3}
TORCH = {RELU: "RNN", TANH: "RNN", LSTM: "LSTM", GRU: "GRU"}


def size_t():
    return ctypes.c_size_t()


class DataDesc:
    """An RNN data descriptor."""

    def __init__(self, code, layout, max_seq, batch, vector, lengths, fill=None):
        self.code, self.layout, self.max_seq, self.batch, self.vector = code, layout, max_seq, batch, vector
        self.lengths = list(lengths)
        self.handle = c_void_p()
        assert lib().mcdnnCreateRNNDataDescriptor(ctypes.byref(self.handle)) == 0
        holder = None if fill is None else np.array([fill], NUMPY[code])
        self._fill = holder
        assert call("mcdnnSetRNNDataDescriptor", self.handle, c_int(code), c_int(layout), c_int(max_seq),
                    c_int(batch), c_int(vector), (c_int * batch)(*self.lengths),
                    None if holder is None else holder.ctypes.data) == 0, recent_error()

    @property
    def elements(self):
        rows = sum(self.lengths) if self.layout == SEQ_MAJOR_PACKED else self.max_seq * self.batch
        return rows * self.vector

    def pack(self, values):
        """(T, B, V) padded values in this descriptor's layout, flat."""
        if self.layout == SEQ_MAJOR_UNPACKED:
            return values.reshape(-1)
        if self.layout == BATCH_MAJOR_UNPACKED:
            return values.swapaxes(0, 1).reshape(-1)
        rows = [values[t, b] for t in range(self.max_seq) for b in range(self.batch) if self.lengths[b] > t]
        return np.concatenate(rows)

    def unpack(self, flat):
        out = np.zeros((self.max_seq, self.batch, self.vector), flat.dtype)
        if self.layout == SEQ_MAJOR_UNPACKED:
            return flat.reshape(self.max_seq, self.batch, self.vector).copy()
        if self.layout == BATCH_MAJOR_UNPACKED:
            return flat.reshape(self.batch, self.max_seq, self.vector).swapaxes(0, 1).copy()
        i = 0
        for t in range(self.max_seq):
            for b in range(self.batch):
                if self.lengths[b] > t:
                    out[t, b] = flat[i * self.vector:(i + 1) * self.vector]
                    i += 1
        return out


class RNN:
    """An RNN descriptor and its weight space."""

    def __init__(self, handle, cell, input_size, hidden, layers=1, proj=None, bidirectional=False, bias=DOUBLE_BIAS,
                 code=FLOAT, math=None, input_mode=LINEAR_INPUT, aux=PADDED_IO, dropout=None):
        self.h, self.cell, self.input_size, self.hidden, self.layers = handle, cell, input_size, hidden, layers
        self.proj = proj or hidden
        self.dirs = 2 if bidirectional else 1
        self.code, self.bias = code, bias
        self.handle = c_void_p()
        assert lib().mcdnnCreateRNNDescriptor(ctypes.byref(self.handle)) == 0
        self.status = call("mcdnnSetRNNDescriptor_v8", self.handle, c_int(0), c_int(cell), c_int(bias),
                           c_int(1 if bidirectional else 0), c_int(input_mode), c_int(code),
                           c_int(math if math is not None else (FLOAT if code == HALF else code)), c_int(0),
                           c_int(input_size), c_int(hidden), c_int(self.proj), c_int(layers), dropout,
                           ctypes.c_uint32(aux))

    def weight_space_size(self):
        size = size_t()
        assert call("mcdnnGetRNNWeightSpaceSize", self.h, self.handle, ctypes.byref(size)) == 0, recent_error()
        return size.value

    def params(self, space, pseudo, lin):
        """(matrix address, dims, bias address, dims) from mcdnnGetRNNWeightParams."""
        m, b = Desc(FLOAT, [1, 1, 1]), Desc(FLOAT, [1, 1, 1])
        m_addr, b_addr = c_void_p(), c_void_p()
        assert call("mcdnnGetRNNWeightParams", self.h, self.handle, c_int(pseudo), ctypes.c_size_t(self.weight_space_size()), space.address, c_int(lin), m.handle, ctypes.byref(m_addr), b.handle,
                    ctypes.byref(b_addr)) == 0, recent_error()
        return m_addr.value, nd_dims(m), b_addr.value, nd_dims(b)

    def fill_from(self, module, space):
        """Copies a torch RNN module's parameters into the weight space (device tensor `space`)."""
        dtype = np.dtype(NUMPY[self.code])
        host = np.zeros(self.weight_space_size() // dtype.itemsize, dtype)
        base = space.address.value
        g, hidden = GATES[self.cell], self.hidden
        for layer in range(self.layers):
            for d in range(self.dirs):
                suffix = "_l%d%s" % (layer, "_reverse" if d else "")
                pseudo = layer * self.dirs + d
                lins = list(range(2 * g)) + ([8] if self.proj < hidden else [])
                for lin in lins:
                    m_addr, _, b_addr, _ = self.params(space, pseudo, lin)
                    if lin == 8:
                        matrix, bias = getattr(module, "weight_hr" + suffix), None
                    else:
                        kind = "ih" if lin < g else "hh"
                        gate = lin % g
                        matrix = getattr(module, "weight_%s%s" % (kind, suffix))[gate * hidden:(gate + 1) * hidden]
                        bias = getattr(module, "bias_%s%s" % (kind, suffix), None)
                        bias = None if bias is None else bias[gate * hidden:(gate + 1) * hidden]
                    for address, value in ((m_addr, matrix), (b_addr, bias)):
                        if address and value is not None:
                            start = (address - base) // dtype.itemsize
                            flat = value.detach().numpy().reshape(-1)
                            host[start:start + flat.size] = flat
        space_bytes = host.view(np.uint8)
        assert lib().mcMemcpy(space.address, space_bytes.ctypes.data, space_bytes.nbytes, 1) == 0

    def gradients_to_torch(self, module, host):
        """The weight-space gradients (host array) as {parameter name: array} laid out as the module's."""
        out = {name: np.zeros(p.shape) for name, p in module.named_parameters()}
        g, hidden = GATES[self.cell], self.hidden
        dtype = host.dtype
        space = DeviceTensor(Desc(self.code, [1, 1, host.size]), host.reshape(1, 1, -1))
        base = space.address.value
        for layer in range(self.layers):
            for d in range(self.dirs):
                suffix = "_l%d%s" % (layer, "_reverse" if d else "")
                pseudo = layer * self.dirs + d
                for lin in list(range(2 * g)) + ([8] if self.proj < hidden else []):
                    m_addr, m_dims, b_addr, _ = self.params(space, pseudo, lin)
                    m_start = (m_addr - base) // dtype.itemsize if m_addr else None
                    if lin == 8:
                        out["weight_hr" + suffix][...] = host[m_start:m_start + self.proj * hidden].reshape(
                            self.proj, hidden)
                        continue
                    kind, gate = ("ih" if lin < g else "hh"), lin % g
                    if m_addr:
                        rows = out["weight_%s%s" % (kind, suffix)]
                        n = rows.shape[1]
                        rows[gate * hidden:(gate + 1) * hidden] = host[m_start:m_start + hidden * n].reshape(hidden, n)
                    if b_addr and "bias_%s%s" % (kind, suffix) in out:
                        start = (b_addr - base) // dtype.itemsize
                        out["bias_%s%s" % (kind, suffix)][gate * hidden:(gate + 1) * hidden] = host[start:start + hidden]
        return out


def nd_dims(desc):
    code, nb = c_int(), c_int()
    dims, strides = (c_int * 8)(), (c_int * 8)()
    assert lib().mcdnnGetTensorNdDescriptor(desc.handle, 8, ctypes.byref(code), ctypes.byref(nb), dims, strides) == 0
    return list(dims[:nb.value])


def torch_module(rnn, dtype=torch.float64, seed=0):
    """The torch module of the same configuration, with random parameters."""
    torch.manual_seed(seed)
    kwargs = dict(input_size=rnn.input_size, hidden_size=rnn.hidden, num_layers=rnn.layers,
                  bidirectional=rnn.dirs == 2, bias=rnn.bias != NO_BIAS, dtype=dtype)
    if rnn.cell in (RELU, TANH):
        kwargs["nonlinearity"] = "relu" if rnn.cell == RELU else "tanh"
    if rnn.proj < rnn.hidden:
        kwargs["proj_size"] = rnn.proj
    return getattr(torch.nn, TORCH[rnn.cell])(**kwargs)
