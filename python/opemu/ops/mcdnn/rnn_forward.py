"""mcdnnRNNForward (v8 API): every layer and direction of an RNN over a batch of sequences.

Layer l reads the input (l = 0) or the previous layer's outputs, both directions side by side (forward
first); in training mode with a dropout descriptor of p > 0 that input is the previous outputs with
dropout applied (drawn from the descriptor's states as mcdnnDropoutForward draws, scaled by 1/(1-p)),
the masks kept in the reserve space. hx, cx NULL start from zeros; hy, cy NULL are not written. Values
are computed in the math type (fp32 for HALF and FLOAT data, fp64 for DOUBLE) and rounded once into the
outputs' type. Training mode fills the reserve space the backward routines read; inference needs none.

Checks (cuDNN's order): NULL descriptors or pointers, descriptors never set; x and y's types, sizes and
sequences; h and c descriptors (layers x directions, batch, size); the weight space, workspace and
reserve space sizes — BAD_PARAM each."""
import numpy as np

from opemu.core import mcdnn
from opemu.ops.mcdnn import dropout
from opemu.ops.mcdnn.bn_common import byte_tensor
from opemu.ops.mcdnn.rnn_cells import Direction
from opemu.ops.mcdnn.rnn_data import (Reserve, check_data, check_rnn, check_spaces, check_states, clip_of,
                                      flat_desc, from_time_major, input_projection, to_time_major, weights_of)
from opemu.ops.mcdnn.rnn_layout import LSTM, TRAINING

_STATE_WORDS = 5


def check_dropout_states(a, shape, training):
    """The dropout descriptor's states, read and advanced when a training pass drops between layers."""
    a._states = a._states_desc = None
    if training and shape.dropout_active():
        a._states = shape.rnn.dropout.states
        a._states_desc = byte_tensor(_STATE_WORDS * 8)


class RNNForward(mcdnn.McdnnOp):
    name = "mcdnnRNNForward"
    tensors = {"x": "_x_flat", "y": "_y_flat", "hx": "hDesc", "hy": "hDesc", "cx": "cDesc", "cy": "cDesc",
               "weightSpace": "_weights_desc", "workSpace": "_work_desc", "reserveSpace": "_reserve_desc",
               "_states": "_states_desc"}
    outputs = ("y", "hy", "cy", "reserveSpace", "workSpace", "_states")

    def check(self, a):
        mcdnn.require(a, "rnnDesc", "xDesc", "yDesc", "x", "y")
        if a.fwdMode not in (0, TRAINING):
            raise mcdnn.bad_param("fwdMode %d is not an mcdnnForwardMode_t" % a.fwdMode)
        shape = a._shape = check_rnn(a)
        check_data(shape, a.xDesc, a.yDesc)
        check_states(a, shape, a.xDesc.batch)
        training = a.fwdMode == TRAINING
        check_spaces(a, shape, a.xDesc, training)
        check_dropout_states(a, shape, training)
        a._x_flat, a._y_flat = flat_desc(a.xDesc), flat_desc(a.yDesc)
        if shape.rnn.cell != LSTM:
            a.cx = a.cy = mcdnn.device.ffi.NULL

    def compute(self, a, v):
        shape, data = a._shape, a.xDesc
        ct = shape.ct
        steps, batch = data.max_seq, data.batch
        _, weights = weights_of(shape, v["weightSpace"])
        reserve = Reserve(shape, v["reserveSpace"], steps, batch) if v["reserveSpace"] is not None else None
        work = (v["workSpace"].view(ct).reshape(steps, batch, -1) if v["workSpace"] is not None
                else np.empty((steps, batch, shape.gates * shape.hidden), ct))
        inputs = to_time_major(v["x"], data, ct)
        hy = np.zeros((shape.pseudo_layers, batch, shape.out), ct)
        cy = np.zeros((shape.pseudo_layers, batch, shape.hidden), ct) if shape.rnn.cell == LSTM else None
        hx = v["hx"].astype(ct) if v["hx"] is not None else np.zeros_like(hy)
        cx = (v["cx"].astype(ct) if v["cx"] is not None else np.zeros_like(cy)) if cy is not None else None
        clip = clip_of(shape.rnn)
        for layer in range(shape.layers):
            if layer > 0 and reserve is not None and reserve.masks:
                inputs = _drop(inputs, reserve.masks[layer - 1], v["_states"], shape.rnn.dropout.p, ct)
            outputs = []
            for direction in range(shape.dirs):
                pseudo = layer * shape.dirs + direction
                cell = Direction(shape, weights[pseudo], direction == 1, data.lengths, clip)
                xproj = input_projection(shape, weights[pseudo], inputs, layer, work)
                kept = reserve.forward[pseudo] if reserve is not None else None
                out, h, c = cell.forward(xproj, hx[pseudo], cx[pseudo] if cx is not None else None, kept)
                outputs.append(out)
                hy[pseudo] = h
                if cy is not None:
                    cy[pseudo] = c
            inputs = outputs[0] if shape.dirs == 1 else np.concatenate(outputs, axis=-1)
        from_time_major(inputs, v["y"], a.yDesc)
        if v["hy"] is not None:
            v["hy"][...] = hy
        if cy is not None and v["cy"] is not None:
            v["cy"][...] = cy


def _drop(inputs, mask, states, p, ct):
    """Dropout of a layer's input: the keep mask drawn from the states into `mask` (1 kept, 0 dropped)."""
    keep = dropout.keep_mask(states, inputs.size, p).reshape(inputs.shape)
    mask[...] = keep
    scale = ct.type(1.0 / (1.0 - p)) if p < 1 else ct.type(0)
    return np.where(keep, inputs * scale, ct.type(0))
