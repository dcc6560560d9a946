"""One direction of one RNN layer through time, forward and backward, on padded time-major arrays of the math
type: the cells of cuDNN's documented equations (PyTorch's too).

  RNN    h = act(x W^T + bW + h' R^T + bR), act ReLU or tanh
  LSTM   i, f, o = sigmoid(.), g = tanh(.) of x W^T + bW + h' R^T + bR (one matrix row block per gate)
         c = f c' + i g (clamped to [lclip, rclip] when clipping is on), r = o tanh(c), h = r P^T (projection)
         or h = r
  GRU    r, z = sigmoid(x W_r,z^T + bW + h' R_r,z^T + bR), n = tanh(x W_n^T + bW_n + r (h' R_n^T + bR_n)),
         h = (1 - z) n + z h'

A batch entry whose sequence is shorter than a step keeps its state there and outputs nothing (its output
rows stay zero); the reverse direction starts each sequence at its own last step. The forward pass keeps
what the backward needs in `kept` (reserve-space views, rnn_layout.Shape.step_fields); the backward pass
leaves the gradients at the gates' inputs there for the weight gradients."""
import numpy as np

from opemu.ops.mcdnn.rnn_layout import GRU, LSTM, RNN_RELU


def sigmoid(x):
    out = np.negative(x)
    np.exp(out, out=out)
    out += 1
    np.reciprocal(out, out=out)
    return out


class Direction:
    """One pseudo-layer: its weights (views in the math type), the direction, the batch's sequence lengths."""

    def __init__(self, shape, weights, reverse, lengths, clip):
        self.shape, self.w, self.reverse = shape, weights, reverse
        self.cell = shape.rnn.cell
        g, h, o = shape.gates, shape.hidden, shape.out
        self.R = weights["R"].reshape(g * h, o)
        self.RT = np.ascontiguousarray(self.R.T)
        self.bR = weights["bR"].reshape(g * h) if "bR" in weights else None
        self.P = weights.get("P")
        self.lengths = np.asarray(lengths)
        self.steps = None
        self.clip = clip   # (lclip, rclip, propagate NaN) or None

    def order(self, steps):
        return range(steps - 1, -1, -1) if self.reverse else range(steps)

    def active(self, t):
        """The batch rows that have step t, or None when all do."""
        act = self.lengths > t
        return None if act.all() else act

    def _fields(self, kept_forward):
        return self.shape.split(kept_forward, self.shape.forward_fields())

    def _backward_fields(self, kept_backward):
        return self.shape.split(kept_backward, self.shape.backward_fields())

    def _clip(self, c):
        lo, hi, propagate = self.clip
        clipped = np.clip(c, lo, hi)
        if not propagate:
            clipped = np.where(np.isnan(c), lo, clipped)   # NOT_PROPAGATE_NAN: a NaN cell takes the lower bound
        return clipped

    # ---- forward ----

    def forward(self, xproj, h0, c0, kept):
        """xproj (T, B, g h): x W^T + bW of every step; h0 (B, out), c0 (B, h) or None. Returns the outputs
        (T, B, out) and the final states; fills `kept` (T, B, fields) when given."""
        steps, batch = xproj.shape[:2]
        g, hidden = self.shape.gates, self.shape.hidden
        ct = xproj.dtype
        outputs = np.zeros((steps, batch, self.shape.out), ct)
        fields = self._fields(kept) if kept is not None else None
        h = h0.copy()
        c = c0.copy() if c0 is not None else None
        for t in self.order(steps):
            act = self.active(t)
            pre = h @ self.RT
            if self.bR is not None:
                pre += self.bR
            if self.cell == LSTM:
                pre += xproj[t]
                gates = sigmoid(pre)
                gates[:, 2 * hidden:3 * hidden] = np.tanh(pre[:, 2 * hidden:3 * hidden])
                i, f, gg, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
                c_new = f * c + i * gg
                if self.clip is not None:
                    c_new = self._clip(c_new)
                r = o * np.tanh(c_new)
                h_new = r @ self.P.T if self.P is not None else r
                if fields is not None:
                    fields["gates"][t] = gates
                    fields["c"][t] = c_new
                    if "r" in fields:
                        fields["r"][t] = r
            elif self.cell == GRU:
                x = xproj[t]
                gates = sigmoid(x[:, :2 * hidden] + pre[:, :2 * hidden])
                hn = pre[:, 2 * hidden:]
                rr, z = gates[:, :hidden], gates[:, hidden:]
                n = np.tanh(x[:, 2 * hidden:] + rr * hn)
                h_new = (1 - z) * n + z * h
                if fields is not None:
                    fields["gates"][t] = np.concatenate([gates, n], axis=1)
                    fields["hn"][t] = hn
            else:
                pre += xproj[t]
                h_new = np.maximum(pre, 0) if self.cell == RNN_RELU else np.tanh(pre)
            if act is None:
                h = h_new
                if self.cell == LSTM:
                    c = c_new
                outputs[t] = h
            else:
                h = np.where(act[:, None], h_new, h)
                if self.cell == LSTM:
                    c = np.where(act[:, None], c_new, c)
                outputs[t][act] = h[act]
            if fields is not None:
                fields["out"][t] = outputs[t]
        return outputs, h, c

    # ---- backward ----

    def backward(self, dout, dhy, dcy, kept_forward, kept_backward, h0, c0):
        """dout (T, B, out): the gradient at each step's output; dhy, dcy at the final states (None: zero).
        Returns the gradients at the gates' inputs from x (T, B, g h) and at h0, c0; keeps the gradients the
        weights need in kept_backward."""
        steps, batch = dout.shape[:2]
        g, hidden = self.shape.gates, self.shape.hidden
        ct = dout.dtype
        f = self._fields(kept_forward)
        b = self._backward_fields(kept_backward)
        dgates_x = np.zeros((steps, batch, g * hidden), ct)
        dh = np.zeros((batch, self.shape.out), ct) if dhy is None else dhy.astype(ct)
        dc = None
        if self.cell == LSTM:
            dc = np.zeros((batch, hidden), ct) if dcy is None else dcy.astype(ct)
        for t in reversed(list(self.order(steps))):
            act = self.active(t)
            d = dh + dout[t]
            if act is not None:
                d = np.where(act[:, None], d, 0)
            prev_t = t + 1 if self.reverse else t - 1
            first = prev_t < 0 or prev_t >= steps
            # in reverse, a sequence shorter than prev_t + 1 starts at t: its row reads h0 there
            starts = self.lengths <= prev_t if self.reverse and not first else None
            h_prev = h0 if first else f["out"][prev_t]
            if starts is not None and starts.any():
                h_prev = np.where(starts[:, None], h0, h_prev)
            if self.cell == LSTM:
                c_prev = c0 if first else f["c"][prev_t]
                if starts is not None and starts.any():
                    c_prev = np.where(starts[:, None], c0, c_prev)
                gates = f["gates"][t]
                i, ff, gg, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
                c = f["c"][t]
                if self.P is not None:
                    b["dout"][t] = d
                    dr = d @ self.P
                else:
                    dr = d
                tc = np.tanh(c)
                dcell = (dc if act is None else np.where(act[:, None], dc, 0)) + dr * o * (1 - tc * tc)
                if self.clip is not None:
                    unclipped = ff * c_prev + i * gg
                    dcell = np.where((unclipped >= self.clip[0]) & (unclipped <= self.clip[1]), dcell, 0)
                dG = np.concatenate([dcell * gg * i * (1 - i), dcell * c_prev * ff * (1 - ff),
                                     dcell * i * (1 - gg * gg), dr * tc * o * (1 - o)], axis=1)
                dc_next = dcell * ff
                dh_next = dG @ self.R
                if act is not None:
                    dc = np.where(act[:, None], dc_next, dc)
                else:
                    dc = dc_next
                dgx = dG
            elif self.cell == GRU:
                gates = f["gates"][t]
                rr, z, n = gates[:, :hidden], gates[:, hidden:2 * hidden], gates[:, 2 * hidden:]
                hn = f["hn"][t]
                dn = d * (1 - z)
                dN = dn * (1 - n * n)
                dR = dN * hn * rr * (1 - rr)
                dZ = d * (h_prev - n) * z * (1 - z)
                dhn = dN * rr
                dgx = np.concatenate([dR, dZ, dN], axis=1)
                b["dhn"][t] = dhn
                dh_next = d * z + np.concatenate([dR, dZ, dhn], axis=1) @ self.R
            else:
                out = f["out"][t]
                dgx = d * (out > 0) if self.cell == RNN_RELU else d * (1 - out * out)
                dh_next = dgx @ self.R
            if act is not None:
                dgx = np.where(act[:, None], dgx, 0)
                dh = np.where(act[:, None], dh_next, dh)
            else:
                dh = dh_next
            b["dgates"][t] = dgx
            dgates_x[t] = dgx
        return dgates_x, dh, dc

    # ---- weight gradients ----

    def weight_gradients(self, inputs, kept_forward, kept_backward, h0):
        """Gradients of this pseudo-layer's W, R, bW, bR, P as a dict like its weights (math type)."""
        steps, batch = inputs.shape[:2]
        g, hidden, out = self.shape.gates, self.shape.hidden, self.shape.out
        f = self._fields(kept_forward)
        b = self._backward_fields(kept_backward)
        dG = b["dgates"].reshape(steps * batch, g * hidden)
        # the state each step read: the previous step's output in this direction's order, or h0
        h_prev = np.empty((steps, batch, out), inputs.dtype)
        for t in self.order(steps):
            prev_t = t + 1 if self.reverse else t - 1
            if prev_t < 0 or prev_t >= steps:
                h_prev[t] = h0
            else:
                h_prev[t] = f["out"][prev_t]
                if self.reverse:
                    starts = self.lengths <= prev_t
                    if starts.any():
                        h_prev[t][starts] = h0[starts]
        dGh = dG
        if self.cell == GRU:
            dGh = np.concatenate([b["dgates"][..., :2 * hidden], b["dhn"]], axis=-1).reshape(steps * batch, g * hidden)
        grads = {}
        if "W" in self.w:
            grads["W"] = (dG.T @ inputs.reshape(steps * batch, -1)).reshape(self.w["W"].shape)
        grads["R"] = (dGh.T @ h_prev.reshape(steps * batch, out)).reshape(self.w["R"].shape)
        if "bW" in self.w:
            grads["bW"] = dG.sum(axis=0).reshape(self.w["bW"].shape)
        if "bR" in self.w:
            grads["bR"] = dGh.sum(axis=0).reshape(self.w["bR"].shape)
        if "P" in self.w:
            grads["P"] = b["dout"].reshape(steps * batch, out).T @ f["r"].reshape(steps * batch, hidden)
        return grads
