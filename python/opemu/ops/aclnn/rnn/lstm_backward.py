"""aclnnLstmBackward (ops-nn rnn/single_layer_lstm_grad op_api): back-propagation through time of aclnnLSTM, from
the activations its training run saved (i, j = g, f, o, h, c, tanhc per layer and direction).

    per step, from the last: dh = dy_t + dh_next; do = dh·tanhc·o(1 − o); dc = dc_next + dh·o(1 − tanhc²);
    di = dc·g·i(1 − i); dg = dc·i(1 − g²); df = dc·c_prev·f(1 − f); gates = [di, df, dg, do] (PyTorch's order)
    dx_t = gates·W_ih; dh_next = gates·W_hh; dc_next = dc·f; dW_ih += gatesᵀ·x_t; dW_hh += gatesᵀ·h_prev;
    db_ih = db_hh = Σ gates

Layers run from the top: a layer's dx (both directions summed) is the dy of the layer below. dparamsOut is laid out
as params. Everything is fp32 and rounded once per output; dropout is not applied (the forward applies none).
outputMask is accepted and, as the docs say, not yet honoured: every gradient is written."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.rnn import recurrence

DTYPES = P.codes("FLOAT FLOAT16")
SAVED = ("i", "g", "f", "o", "h", "c", "tanhc")
LINES = ("A2", "A3", "950")


def _direction_backward(x, h0, c0, acts, w_ih, w_hh, dy, dh_last, dc_last, reverse, lengths):
    """One layer in one direction. acts: the saved (T, B, H) arrays by name. Returns dx, dh0, dc0, dW_ih, dW_hh,
    db."""
    steps, batch, hidden = acts["h"].shape
    dx = np.zeros(x.shape, np.float32)
    dw_ih, dw_hh = np.zeros(w_ih.shape, np.float32), np.zeros(w_hh.shape, np.float32)
    db = np.zeros(4 * hidden, np.float32)
    dh_next, dc_next = dh_last.copy(), dc_last.copy()
    order = list(range(steps - 1, -1, -1)) if not reverse else list(range(steps))
    for t in order:
        rows = slice(None) if lengths is None else np.flatnonzero(lengths > t)
        earlier = t + 1 if reverse else t - 1
        first = (t == steps - 1) if reverse else (t == 0)
        if lengths is not None and reverse:
            first_rows = lengths - 1 == t
        h_prev = h0 if first else acts["h"][earlier]
        c_prev = c0 if first else acts["c"][earlier]
        if lengths is not None and reverse:   # a sequence's reverse run starts at its own last step
            h_prev = np.where(first_rows[:, None], h0, h_prev)
            c_prev = np.where(first_rows[:, None], c0, c_prev)
        i, g, f, o, tanh_c = (acts[name][t][rows] for name in ("i", "g", "f", "o", "tanhc"))
        dh = dy[t][rows] + dh_next[rows]
        dc = dc_next[rows] + dh * o * (1 - tanh_c * tanh_c)
        gates = np.concatenate([dc * g * i * (1 - i), dc * c_prev[rows] * f * (1 - f), dc * i * (1 - g * g),
                                dh * tanh_c * o * (1 - o)], axis=1)
        dx[t][rows] = gates @ w_ih
        dh_next[rows] = gates @ w_hh
        dc_next[rows] = dc * f
        dw_ih += gates.T @ x[t][rows]
        dw_hh += gates.T @ h_prev[rows]
        db += gates.sum(axis=0)
    return dx, dh_next, dc_next, dw_ih, dw_hh, db


class LstmBackward(AclnnOp):
    name = "aclnnLstmBackward"
    inputs = ("input", "hx", "params", "dy", "dh", "dc") + SAVED + ("batchSizesOptional",)
    outputs = ("dxOut", "dhPrevOut", "dcPrevOut", "dparamsOut")
    products = _products.describe(LINES)
    LISTS = ("i", "g", "f", "o", "h", "c", "tanhc")

    def dtype_table(self):
        table = dict.fromkeys(self.inputs + self.outputs, DTYPES)
        table["batchSizesOptional"] = P.codes("INT64")
        return table

    def check(self, a):
        checks.not_null(a, "input", "params", "dy", *self.LISTS, "dxOut", "dhPrevOut", "dcPrevOut", "dparamsOut")
        checks.dtype_in("input", a.input, DTYPES)
        for name in ("dy", "dh", "dc", "dxOut", "dhPrevOut", "dcPrevOut"):
            if getattr(a, name) is not None:
                checks.dtype_match(name, getattr(a, name), a.input.dtype)
        for name in ("params", "dparamsOut", "hx") + self.LISTS:
            for t in getattr(a, name) or ():
                checks.dtype_match(name, t, a.input.dtype)
        directions = 2 if a.bidirectional else 1
        count = directions * a.numLayers
        hx = a.hx or ()
        if len(hx) not in (0, 2):
            raise status.param_invalid("For inithc tensorlist, the tensor quantities %d should be 2." % len(hx))
        for name in self.LISTS:
            if len(getattr(a, name)) != count:
                raise status.param_invalid("For %s tensorlist, the tensor quantities %d should be %d."
                                           % (name, len(getattr(a, name)), count))
        per_direction = 4 if a.hasBias else 2
        if len(a.params) != per_direction * count or len(a.dparamsOut) != per_direction * count:
            raise status.param_invalid("For tensor lists include params and dparams, the tensor quantities should "
                                       "be %d." % (per_direction * count))
        x = a.input
        if a.batchSizesOptional is None:
            checks.dim_is("input", x, 3)
            batch, steps = (x.shape[0], x.shape[1]) if a.batchFirst else (x.shape[1], x.shape[0])
        else:
            steps = a.batchSizesOptional.numel()
            batch = x.numel() // max(x.shape[-1], 1) // max(steps, 1)
        hidden = a.params[1].shape[-1]
        for name in self.LISTS:
            for t in getattr(a, name):
                checks.shape_is(name, t, (steps, batch, hidden), checks.shape_text((steps, batch, hidden)))
        checks.same_shape("dxOut", a.dxOut, "input", x)
        for k, (p, d) in enumerate(zip(a.params, a.dparamsOut)):
            checks.same_shape("dparamsOut[%d]" % k, d, "params[%d]" % k, p)
        state = (count, batch, hidden)
        for name in ("dh", "dc", "dhPrevOut", "dcPrevOut"):
            if getattr(a, name) is not None:
                checks.shape_is(name, getattr(a, name), state, checks.shape_text(state))
        _products.check_supported(self.name, LINES)
        a.geometry = (steps, batch, x.shape[-1], hidden, directions, per_direction, count)

    def compute(self, a, v, workspace):
        steps, batch, features, hidden, directions, per_direction, count = a.geometry
        f32 = np.float32
        x = np.asarray(v["input"], f32)
        lengths = None
        if v.get("batchSizesOptional") is not None:
            x = x.reshape(steps, batch, features)
            lengths = recurrence.lengths_of(v["batchSizesOptional"], batch)
        elif a.batchFirst:
            x = x.transpose(1, 0, 2)
        dy = np.asarray(v["dy"], f32)
        dy = dy.reshape(steps, batch, -1) if lengths is not None else (dy.transpose(1, 0, 2) if a.batchFirst else dy)
        zeros = np.zeros((count, batch, hidden), f32)
        hx = v.get("hx") or []
        h0, c0 = (np.asarray(hx[0], f32), np.asarray(hx[1], f32)) if len(hx) == 2 else (zeros, zeros)
        dh = zeros if v.get("dh") is None else np.asarray(v["dh"], f32)
        dc = zeros if v.get("dc") is None else np.asarray(v["dc"], f32)
        acts = [{name: np.asarray(v[name][k], f32) for name in self.LISTS} for k in range(count)]
        params = [np.asarray(p, f32) for p in v["params"]]
        grads = [None] * len(params)
        dh_prev, dc_prev = np.zeros_like(zeros), np.zeros_like(zeros)
        for layer in range(a.numLayers - 1, -1, -1):
            below = x if layer == 0 else np.concatenate(
                [acts[(layer - 1) * directions + d]["h"] for d in range(directions)], axis=2)
            dx_layer = np.zeros(below.shape, f32)
            for d in range(directions):
                k = layer * directions + d
                base = k * per_direction
                result = _direction_backward(below, h0[k], c0[k], acts[k], params[base], params[base + 1],
                                             dy[..., d * hidden:(d + 1) * hidden], dh[k], dc[k], d == 1, lengths)
                dx_layer += result[0]
                dh_prev[k], dc_prev[k] = result[1], result[2]
                grads[base], grads[base + 1] = result[3], result[4]
                if a.hasBias:
                    grads[base + 2] = grads[base + 3] = result[5]
            dy = dx_layer
        P.store(v["dxOut"], dy.reshape(v["dxOut"].shape) if lengths is not None else (
            dy.transpose(1, 0, 2) if a.batchFirst else dy))
        P.store(v["dhPrevOut"], dh_prev)
        P.store(v["dcPrevOut"], dc_prev)
        for target, grad in zip(v["dparamsOut"], grads):
            P.store(target, grad)
