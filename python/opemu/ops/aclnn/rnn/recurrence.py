"""The LSTM and GRU recurrences the rnn/ operators share: one layer in one direction over a (T, B, I) sequence,
with per-sequence lengths for packed batches.

Rounding points, as the cube and the vector units meet: the products x·Wᵀ and h·Wᵀ accumulate in fp32, the gates
are computed in fp32, and the states a step writes (h, and c for the LSTM) are rounded to the data dtype before
the next step reads them back (the next product takes them from memory in that dtype). A sequence of length L
runs its steps 0…L−1 (reverse: L−1…0); its outputs past L are zero and its final state is the one at its last
step."""
import numpy as np


def expit(x):
    """The logistic gate, scipy.special.expit, imported at the first call: SciPy's import is more than half of a
    process's start, which every process that lists the operators would pay."""
    from scipy.special import expit as logistic
    return logistic(x)


F32 = np.float32


def _steps(count, reverse):
    return range(count - 1, -1, -1) if reverse else range(count)


def _active(lengths, t, batch):
    return None if lengths is None else np.flatnonzero(lengths > t)


def lstm_direction(x, h0, c0, w_ih, w_hh, bias, reverse, lengths, dtype):
    """x (T, B, I); weights in PyTorch's gate order (i, f, g, o) as (4H, I) and (4H, H); bias (4H,) or None.
    Returns y (T, B, H), the final h and c, and the per-step activations {i, g, f, o, c, tanhc} (T, B, H), all
    fp32 arrays holding values of `dtype`."""
    steps, batch = x.shape[:2]
    hidden = w_hh.shape[1]
    rounded = lambda a: a.astype(dtype).astype(F32)
    projected = np.matmul(x.astype(F32), w_ih.astype(F32).T)
    if bias is not None:
        projected += bias
    w_hh = w_hh.astype(F32)
    h, c = rounded(h0), rounded(c0)
    y = np.zeros((steps, batch, hidden), F32)
    saved = {name: np.zeros((steps, batch, hidden), F32) for name in ("i", "g", "f", "o", "c", "tanhc")}
    for t in _steps(steps, reverse):
        rows = _active(lengths, t, batch)
        take = slice(None) if rows is None else rows
        gates = projected[t, take] + h[take] @ w_hh.T
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, g, o = expit(i), expit(f), np.tanh(g), expit(o)
        c_new = rounded(f * c[take] + i * g)
        tanh_c = np.tanh(c_new)
        h_new = rounded(o * tanh_c)
        c[take], h[take], y[t, take] = c_new, h_new, h_new
        for name, value in (("i", i), ("g", g), ("f", f), ("o", o), ("c", c_new), ("tanhc", tanh_c)):
            saved[name][t, take] = value
    return y, h, c, saved


def gru_direction(x, h0, w_ih, w_hh, b_ih, b_hh, reverse, lengths, dtype):
    """x (T, B, I); weights in PyTorch's gate order (r, z, n) as (3H, I) and (3H, H); biases (3H,) or None.
    n = tanh(x·W_inᵀ + b_in + r·(h·W_hnᵀ + b_hn)), h' = (1 − z)·n + z·h. Returns y (T, B, H), the final h and the
    per-step {r, z, n, hn} (hn: h·W_hnᵀ + b_hn) as (T, B, H)."""
    steps, batch = x.shape[:2]
    hidden = w_hh.shape[1]
    rounded = lambda a: a.astype(dtype).astype(F32)
    projected = np.matmul(x.astype(F32), w_ih.astype(F32).T)
    if b_ih is not None:
        projected += b_ih
    w_hh = w_hh.astype(F32)
    h = rounded(h0)
    y = np.zeros((steps, batch, hidden), F32)
    saved = {name: np.zeros((steps, batch, hidden), F32) for name in ("r", "z", "n", "hn")}
    for t in _steps(steps, reverse):
        rows = _active(lengths, t, batch)
        take = slice(None) if rows is None else rows
        recurrent = h[take] @ w_hh.T
        if b_hh is not None:
            recurrent += b_hh
        xr, xz, xn = np.split(projected[t, take], 3, axis=1)
        hr, hz, hn = np.split(recurrent, 3, axis=1)
        r, z = expit(xr + hr), expit(xz + hz)
        n = np.tanh(xn + r * hn)
        h_new = rounded((1 - z) * n + z * h[take])
        h[take], y[t, take] = h_new, h_new
        for name, value in (("r", r), ("z", z), ("n", n), ("hn", hn)):
            saved[name][t, take] = value
    return y, h, saved


def lengths_of(batch_sizes, batch):
    """Per-sequence lengths from a packed batch's batch sizes (descending, one per step)."""
    sizes = np.asarray(batch_sizes, np.int64).reshape(-1)
    return (sizes[:, None] > np.arange(batch)[None, :]).sum(axis=0)
