"""aclnnGRU (ops-nn rnn/gru op_api, Atlas A2/A3): PyTorch's multi-layer GRU.

    per layer and direction (recurrence.py): r, z = σ(x·W_irᵀ + b_ir + h·W_hrᵀ + b_hr), σ(… z …);
    n = tanh(x·W_inᵀ + b_in + r·(h·W_hnᵀ + b_hn)); h = (1 − z)·n + z·h

params = [w_ih, w_hh, (b_ih, b_hh)] per layer and direction, gates in PyTorch's order (r, z, n); hx (D·numLayers,
B, H) or null for zeros. With train the activations go to rOut, zOut, nOut, hnOut (h·W_hnᵀ + b_hn) and hOut, one
(T, B, H) per layer and direction. The packed mode (batchSizes) is refused as the docs say ("not supported yet")."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.rnn import recurrence
from opemu.ops.aclnn.rnn.lstm import RecurrentLayers

LISTS = ("rOut", "zOut", "nOut", "hnOut", "hOut")


class GRU(RecurrentLayers):
    name = "aclnnGRU"
    inputs = ("input", "params", "hx", "batchSizes")
    outputs = ("output", "hy") + LISTS
    gates = 3
    states = ("hy",)
    lists = LISTS
    labels = {name: name for name in LISTS}
    direction_flag = "bidirection"
    LINES = ("A2", "A3")

    def hx_list(self, a):
        return () if a.hx is None else (a.hx,)

    def check_state_arguments(self, a):
        if a.batchSizes is not None:
            raise status.param_invalid("batchSizes is not supported yet: the packed mode of aclnnGRU is not "
                                       "supported.")

    def compute(self, a, v, workspace):
        steps, batch, features, hidden, directions, per_direction, count = a.geometry
        x, lengths = self.sequence(a, v)
        hx = v.get("hx")
        h0 = np.zeros((count, batch, hidden), np.float32) if hx is None else np.asarray(hx, np.float32)
        dtype = v["output"].dtype
        hy, saved, k = [], [], 0
        for entries in self.weights(a, v):
            outputs = []
            for w_ih, w_hh, b_ih, b_hh, reverse in entries:
                bias = [None if b is None else np.asarray(b, np.float32) for b in (b_ih, b_hh)]
                y, h, acts = recurrence.gru_direction(x, h0[k], w_ih, w_hh, bias[0], bias[1], reverse, lengths, dtype)
                acts["h"] = y
                outputs.append(y)
                hy.append(h)
                saved.append(acts)
                k += 1
            x = np.concatenate(outputs, axis=2)
        self.store_output(a, v, x, lengths)
        P.store(v["hy"], np.stack(hy))
        if a.train:
            for name, key in zip(LISTS, ("r", "z", "n", "hn", "h")):
                for k, target in enumerate(v.get(name) or ()):
                    P.store(target, saved[k][key])
