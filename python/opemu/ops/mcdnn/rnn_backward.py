"""mcdnnRNNBackwardData_v8 and mcdnnRNNBackwardWeights_v8: the gradients of an RNN's training forward.

BackwardData reads what the forward kept in the reserve space (y is checked, not read: the outputs are
there too), walks each layer and direction back through time from dy, dhy and dcy (NULL: zero), and writes
dx, dhx and dcx (NULL: not written); it leaves the gradients at the gates' inputs in the reserve space.
BackwardWeights must follow it (as in cuDNN): from those gradients, x, hx and the kept states it forms the
gradients of every matrix and bias, added to dweightSpace (MCDNN_WGRAD_MODE_ADD) or written over it
(MCDNN_WGRAD_MODE_SET). Both compute in the math type and round once into their outputs' type."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.headers import enum
from opemu.ops.mcdnn.rnn_cells import Direction
from opemu.ops.mcdnn.rnn_data import (Reserve, check_data, check_rnn, check_spaces, check_states, clip_of,
                                      flat_desc, from_time_major, state_desc, to_time_major, weights_of)
from opemu.ops.mcdnn.rnn_layout import LSTM

WGRAD = enum("mcdnn/mcdnn_adv_train.h", "mcdnnWgradMode_t")


def _check_common(a):
    shape = a._shape = check_rnn(a)
    check_data(shape, a.xDesc, a.yDesc)
    check_states(a, shape, a.xDesc.batch)
    return shape


def _dropped_scale(p, ct):
    return ct.type(1.0 / (1.0 - p)) if p < 1 else ct.type(0)


def layer_inputs(shape, reserve, x_time_major, layer):
    """The input layer `layer` read in the forward: x, or the previous layer's kept outputs (dropped out)."""
    if layer == 0:
        return x_time_major
    outs = [shape.split(reserve.forward[(layer - 1) * shape.dirs + d], shape.forward_fields())["out"]
            for d in range(shape.dirs)]
    inputs = outs[0] if shape.dirs == 1 else np.concatenate(outs, axis=-1)
    if reserve.masks:
        inputs = inputs * reserve.masks[layer - 1] * _dropped_scale(shape.rnn.dropout.p, shape.ct)
    return inputs


class RNNBackwardData(mcdnn.McdnnOp):
    name = "mcdnnRNNBackwardData_v8"
    tensors = {"y": "_y_flat", "dy": "_y_flat", "dx": "_x_flat", "hx": "hDesc", "dhy": "hDesc", "dhx": "hDesc",
               "cx": "cDesc", "dcy": "cDesc", "dcx": "cDesc", "weightSpace": "_weights_desc",
               "workSpace": "_work_desc", "reserveSpace": "_reserve_desc"}
    outputs = ("dx", "dhx", "dcx", "reserveSpace", "workSpace")

    def check(self, a):
        mcdnn.require(a, "rnnDesc", "yDesc", "xDesc", "y", "dy", "dx")
        shape = _check_common(a)
        check_spaces(a, shape, a.xDesc, True)
        a._x_flat, a._y_flat = flat_desc(a.xDesc), flat_desc(a.yDesc)
        if shape.rnn.cell != LSTM:
            a.cx = a.dcy = a.dcx = mcdnn.device.ffi.NULL

    def compute(self, a, v):
        shape, data = a._shape, a.xDesc
        ct, steps, batch = shape.ct, data.max_seq, data.batch
        _, weights = weights_of(shape, v["weightSpace"])
        reserve = Reserve(shape, v["reserveSpace"], steps, batch)
        pl = shape.pseudo_layers
        hx = v["hx"].astype(ct) if v["hx"] is not None else np.zeros((pl, batch, shape.out), ct)
        lstm = shape.rnn.cell == LSTM
        cx = (v["cx"].astype(ct) if v["cx"] is not None else np.zeros((pl, batch, shape.hidden), ct)) if lstm else None
        dhy = v["dhy"].astype(ct) if v["dhy"] is not None else None
        dcy = v["dcy"].astype(ct) if v["dcy"] is not None else None
        dhx = np.zeros((pl, batch, shape.out), ct)
        dcx = np.zeros((pl, batch, shape.hidden), ct) if lstm else None
        clip = clip_of(shape.rnn)
        d_out = to_time_major(v["dy"], a.yDesc, ct)
        g, h = shape.gates, shape.hidden
        for layer in range(shape.layers - 1, -1, -1):
            d_in = None
            for direction in range(shape.dirs):
                pseudo = layer * shape.dirs + direction
                cell = Direction(shape, weights[pseudo], direction == 1, data.lengths, clip)
                part = d_out[..., direction * shape.out:(direction + 1) * shape.out]
                dgates, dh0, dc0 = cell.backward(part, dhy[pseudo] if dhy is not None else None,
                                                 dcy[pseudo] if dcy is not None else None, reserve.forward[pseudo],
                                                 reserve.backward[pseudo], hx[pseudo], cx[pseudo] if lstm else None)
                dhx[pseudo] = dh0
                if lstm:
                    dcx[pseudo] = dc0
                flat = dgates.reshape(steps * batch, g * h)
                if "W" in weights[pseudo]:
                    contribution = flat @ weights[pseudo]["W"].reshape(g * h, -1)
                else:   # MCDNN_SKIP_INPUT: x entered every gate as it is
                    contribution = flat.reshape(steps * batch, g, h).sum(axis=1)
                contribution = contribution.reshape(steps, batch, -1)
                d_in = contribution if d_in is None else d_in + contribution
            if layer > 0 and reserve.masks:
                d_in = d_in * reserve.masks[layer - 1] * _dropped_scale(shape.rnn.dropout.p, ct)
            d_out = d_in
        from_time_major(d_out, v["dx"], a.xDesc)
        if v["dhx"] is not None:
            v["dhx"][...] = dhx
        if lstm and v["dcx"] is not None:
            v["dcx"][...] = dcx


class RNNBackwardWeights(mcdnn.McdnnOp):
    name = "mcdnnRNNBackwardWeights_v8"
    tensors = {"x": "_x_flat", "hx": "hDesc", "y": "_y_flat", "dweightSpace": "_weights_desc",
               "workSpace": "_work_desc", "reserveSpace": "_reserve_desc"}
    outputs = ("dweightSpace",)

    def check(self, a):
        mcdnn.require(a, "rnnDesc", "xDesc", "yDesc", "x", "y")
        if a.addGrad not in WGRAD.values():
            raise mcdnn.bad_param("addGrad %d is not an mcdnnWgradMode_t" % a.addGrad)
        mcdnn.require(a, "hDesc")
        shape = a._shape = check_rnn(a)
        check_data(shape, a.xDesc, a.yDesc)
        state_desc(shape, a.hDesc, "hDesc", shape.out, a.xDesc.batch)
        check_spaces(a, shape, a.xDesc, True, weights="dweightSpace", weights_size="weightSpaceSize")
        a._x_flat, a._y_flat = flat_desc(a.xDesc), flat_desc(a.yDesc)

    def compute(self, a, v):
        shape, data = a._shape, a.xDesc
        ct, steps, batch = shape.ct, data.max_seq, data.batch
        reserve = Reserve(shape, v["reserveSpace"], steps, batch)
        hx = v["hx"].astype(ct) if v["hx"] is not None else np.zeros((shape.pseudo_layers, batch, shape.out), ct)
        x = to_time_major(v["x"], data, ct)
        target = v["dweightSpace"]
        gradients = np.zeros(shape.weight_elements, ct)
        views = [shape.weights(gradients, p) for p in range(shape.pseudo_layers)]
        clip = clip_of(shape.rnn)
        for layer in range(shape.layers):
            inputs = layer_inputs(shape, reserve, x, layer)
            for direction in range(shape.dirs):
                pseudo = layer * shape.dirs + direction
                cell = Direction(shape, views[pseudo], direction == 1, data.lengths, clip)
                grads = cell.weight_gradients(inputs, reserve.forward[pseudo], reserve.backward[pseudo], hx[pseudo])
                for name, value in grads.items():
                    views[pseudo][name][...] = value
        if a.addGrad == WGRAD["MCDNN_WGRAD_MODE_ADD"]:
            gradients += target.astype(ct)
        target[...] = gradients
