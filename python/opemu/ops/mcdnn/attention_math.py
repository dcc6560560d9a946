"""Multi-head attention's arithmetic on (batch, beam, time, vector) arrays of the math type.

Per head h, query step t and key step s inside the window [loWinIdx[t], hiWinIdx[t]) and the key
sequence's length:  Qp = q W_Q[h] + b_Q[h] (q itself when Q is not projected), Kp, Vp likewise,
score = smScaler <Qp_t, Kp_s>, a = softmax over s of the scores, H_t = sum_s a_s Vp_s, and the output
sum_h H W_O[h] + b_O (the heads' results side by side when O is not projected), plus the residuals. A
query whose window holds no key gets a zero result. With MCDNN_ATTN_QUERYMAP_ALL_TO_ONE every beam of a
query reads the batch entry's one set of keys and values; ONE_TO_ONE beam j reads beam j's."""
import numpy as np


def project(x, weight, bias, heads):
    """(b, j, t, heads, p) from x (b, j, t, i) and a (i, heads, p) weight; no weight: x for every head."""
    if weight is None:
        return np.broadcast_to(x[..., None, :], x.shape[:3] + (heads, x.shape[-1])).copy()
    out = np.einsum("bjti,ihp->bjthp", x, weight, optimize=True)
    if bias is not None:
        out += bias
    return out


def project_back(d, weight):
    """The gradient at x of project(): (b, j, t, i) from d (b, j, t, heads, p)."""
    if weight is None:
        return d.sum(axis=3)
    return np.einsum("bjthp,ihp->bjti", d, weight, optimize=True)


def beam_map(one_to_one, beams):
    """For each query beam, the key/value beam it reads."""
    return np.arange(beams) if one_to_one else np.zeros(beams, np.intp)


def key_mask(len_kv_for_query, lo, hi, tk):
    """(b, j, 1, tq, tk): whether query step t may read key step s."""
    s = np.arange(tk)
    window = (s[None, :] >= lo[:, None]) & (s[None, :] < hi[:, None])            # (tq, tk)
    valid = s[None, None, :] < len_kv_for_query[:, :, None]                       # (b, j, tk)
    return (valid[:, :, None, :] & window[None, None])[:, :, None]


def attend(qp, kp, vp, mask, scaler):
    """Attention weights (b, j, h, tq, tk) and the heads' results (b, j, tq, h, v); kp, vp already mapped to
    the query beams."""
    scores = np.einsum("bjthp,bjshp->bjhts", qp, kp, optimize=True) * qp.dtype.type(scaler)
    scores = np.where(mask, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    weights = np.exp(scores - top)
    total = weights.sum(axis=-1, keepdims=True)
    weights = np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
    heads = np.einsum("bjhts,bjshv->bjthv", weights, vp, optimize=True)
    return weights, heads


def output(heads, weight, bias):
    """(b, j, t, o) from the heads' results: through the output projection, or side by side."""
    if weight is None:
        return heads.reshape(heads.shape[:3] + (-1,)).copy()
    out = np.einsum("bjthv,hvo->bjto", heads, weight, optimize=True)
    if bias is not None:
        out += bias
    return out


def output_back(dout, weight, heads_count, v_len):
    """The gradient at the heads' results."""
    if weight is None:
        return dout.reshape(dout.shape[:3] + (heads_count, v_len))
    return np.einsum("bjto,hvo->bjthv", dout, weight, optimize=True)


def attend_back(dheads, weights, qp, kp, vp, scaler):
    """Gradients at qp, at kp and vp as read by the query beams (b, j, ...), from those at the heads' results."""
    da = np.einsum("bjthv,bjshv->bjhts", dheads, vp, optimize=True)
    dvp = np.einsum("bjhts,bjthv->bjshv", weights, dheads, optimize=True)
    ds = weights * (da - (weights * da).sum(axis=-1, keepdims=True))
    ds *= qp.dtype.type(scaler)
    dqp = np.einsum("bjhts,bjshp->bjthp", ds, kp, optimize=True)
    dkp = np.einsum("bjhts,bjthp->bjshp", ds, qp, optimize=True)
    return dqp, dkp, dvp


def gather_beams(x, beams):
    """x (b, jk, ...) read by each query beam: (b, j, ...)."""
    return x[:, beams]


def scatter_beams(d, beams, kv_beams):
    """The gradient at (b, jk, ...) of gather_beams from (b, j, ...): summed over the query beams reading it."""
    out = np.zeros((d.shape[0], kv_beams) + d.shape[2:], d.dtype)
    np.add.at(out, (slice(None), beams), d)
    return out
