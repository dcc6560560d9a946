"""The RNN's weight space and the sizes of its temporary spaces, from an RNN descriptor snapshot.

Weight space (cuDNN's order, which PyTorch's cudnn RNN path relies on when it views the buffer as its own
parameters): one block per pseudo-layer (layer x direction, the reverse direction second), each holding
the input matrices of the gates (linLayerID 0..g-1, each hidden x input rows-major: the matrix applied to
the layer's input), then the recurrent matrices (g..2g-1, hidden x projected size), then the input biases,
then the recurrent biases (present per the bias mode), then, for an LSTM with projSize < hiddenSize, the
recurrent projection (linLayerID 8, projSize x hidden). Gates are cuDNN's and PyTorch's order: LSTM input,
forget, cell, output; GRU reset, update, new; RNN one. Layer 0 with MCDNN_SKIP_INPUT has no input
matrices (their queries answer NULL); a layer past the first reads the previous layer's output, projSize
times the directions long.

Reserve space (what training keeps for the backward routines), per pseudo-layer and time step of the
padded time-major sequence, in the math type: the forward's gate activations, the states, the outputs;
then what mcdnnRNNBackwardData_v8 leaves for mcdnnRNNBackwardWeights_v8 (the gradients at the gates' inputs
and, with a projection, at the projected outputs). The workspace holds a layer's input projections for all
steps (the forward) or the gates' gradients for all steps (the backward), and the dropout masks between
layers."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.headers import enum

_INFER = "mcdnn/mcdnn_adv_infer.h"
MODE = enum(_INFER, "mcdnnRNNMode_t")
BIAS = enum(_INFER, "mcdnnRNNBiasMode_t")
INPUT = enum(_INFER, "mcdnnRNNInputMode_t")
LAYOUT = enum(_INFER, "mcdnnRNNDataLayout_t")
FORWARD = enum(_INFER, "mcdnnForwardMode_t")
LSTM, GRU, RNN_RELU, RNN_TANH = MODE["MCDNN_LSTM"], MODE["MCDNN_GRU"], MODE["MCDNN_RNN_RELU"], MODE["MCDNN_RNN_TANH"]
GATES = {LSTM: 4, GRU: 3, RNN_RELU: 1, RNN_TANH: 1}
PROJECTION_ID = 8
TRAINING = FORWARD["MCDNN_FWD_MODE_TRAINING"]


class Shape:
    """Sizes of an RNN descriptor: gates, hidden and projected sizes, layers, directions, element type."""

    def __init__(self, rnn):
        self.rnn = rnn
        self.gates = GATES[rnn.cell]
        self.hidden, self.proj, self.layers, self.dirs = rnn.hidden, rnn.proj, rnn.layers, rnn.dirs
        self.projected = rnn.cell == LSTM and rnn.proj < rnn.hidden
        self.out = rnn.proj if self.projected else rnn.hidden
        self.dtype = mcdnn.NUMPY[rnn.dtype_code]
        self.ct = np.dtype(np.float64) if rnn.dtype_code == mcdnn.DATA["MCDNN_DATA_DOUBLE"] else np.dtype(np.float32)
        self.input_bias = rnn.bias_mode in (BIAS["MCDNN_RNN_SINGLE_INP_BIAS"], BIAS["MCDNN_RNN_DOUBLE_BIAS"])
        self.recurrent_bias = rnn.bias_mode in (BIAS["MCDNN_RNN_DOUBLE_BIAS"], BIAS["MCDNN_RNN_SINGLE_REC_BIAS"])
        self.pseudo_layers = self.layers * self.dirs
        self.block_sizes = [self._block_size(p) for p in range(self.pseudo_layers)]
        self.weight_elements = sum(self.block_sizes)

    def input_size(self, layer):
        return self.rnn.input_size if layer == 0 else self.out * self.dirs

    def skips_input(self, layer):
        return layer == 0 and self.rnn.input_mode == INPUT["MCDNN_SKIP_INPUT"]

    def _block_size(self, pseudo):
        """Elements of pseudo-layer `pseudo`'s block."""
        layer = pseudo // self.dirs
        g, h = self.gates, self.hidden
        inputs = 0 if self.skips_input(layer) else g * h * self.input_size(layer)
        size = inputs + g * h * self.out + g * h * (self.input_bias + self.recurrent_bias)
        return size + (self.out * h if self.projected else 0)

    def block_start(self, pseudo):
        return sum(self.block_sizes[:pseudo])

    def parts(self, pseudo):
        """{name: (offset in elements, shape)} of one pseudo-layer's matrices and biases: W (gates, hidden,
        input), R (gates, hidden, out), bW, bR (gates, hidden), P (out, hidden); absent ones missing."""
        layer = pseudo // self.dirs
        g, h, o = self.gates, self.hidden, self.out
        offset = self.block_start(pseudo)
        parts = {}
        if not self.skips_input(layer):
            parts["W"] = (offset, (g, h, self.input_size(layer)))
            offset += g * h * self.input_size(layer)
        parts["R"] = (offset, (g, h, o))
        offset += g * h * o
        if self.input_bias:
            parts["bW"] = (offset, (g, h))
            offset += g * h
        if self.recurrent_bias:
            parts["bR"] = (offset, (g, h))
            offset += g * h
        if self.projected:
            parts["P"] = (offset, (o, h))
        return parts

    def weights(self, space, pseudo):
        """Views of pseudo-layer `pseudo`'s parameters in `space` (the weight space as a 1-D array)."""
        views = {}
        for name, (offset, shape) in self.parts(pseudo).items():
            views[name] = space[offset:offset + int(np.prod(shape))].reshape(shape)
        return views

    # ---- temporary spaces ----

    def forward_fields(self):
        """(name, width) of what a training forward keeps per time step and batch entry of a pseudo-layer."""
        g, h, o = self.gates, self.hidden, self.out
        if self.rnn.cell == LSTM:   # gates, cell state, output, the output before the projection
            return [("gates", g * h), ("c", h), ("out", o)] + ([("r", h)] if self.projected else [])
        if self.rnn.cell == GRU:    # gates (r, z, n), the recurrent term of the new gate, output
            return [("gates", g * h), ("hn", h), ("out", h)]
        return [("out", h)]

    def backward_fields(self):
        """(name, width) of what the backward data pass leaves for the weight gradients."""
        g, h, o = self.gates, self.hidden, self.out
        if self.rnn.cell == LSTM:   # gradients at the gates' inputs, at the projected output
            return [("dgates", g * h)] + ([("dout", o)] if self.projected else [])
        if self.rnn.cell == GRU:    # and at the recurrent term of the new gate
            return [("dgates", g * h), ("dhn", h)]
        return [("dgates", h)]

    @staticmethod
    def split(kept, fields):
        """{name: view} of the fields in kept's last axis."""
        views, start = {}, 0
        for name, width in fields:
            views[name] = kept[..., start:start + width]
            start += width
        return views

    def step_fields(self):
        """(forward elements, backward elements) kept per time step and batch entry of a pseudo-layer."""
        return sum(w for _, w in self.forward_fields()), sum(w for _, w in self.backward_fields())

    def reserve_bytes(self, steps, batch):
        forward, backward = self.step_fields()
        per_layer = steps * batch * (forward + backward)
        dropout_masks = steps * batch * self.out * self.dirs * (self.layers - 1) if self.dropout_active() else 0
        return (self.pseudo_layers * per_layer + dropout_masks) * self.ct.itemsize

    def workspace_bytes(self, steps, batch):
        return steps * batch * self.gates * self.hidden * self.ct.itemsize

    def dropout_active(self):
        d = self.rnn.dropout
        return d is not None and d.p > 0 and self.layers > 1
