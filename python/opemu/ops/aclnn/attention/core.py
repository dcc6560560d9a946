"""What every attention operator of ops-transformer attention/ shares: the layouts, the sparse modes'
masks and the kernel's arithmetic.

Layouts (inputLayout): BSH (B, S, N*D), SBH (S, B, N*D), BSND, BNSD, and TND (T = the sum of the
batch's sequence lengths, with cumulative actual lengths); every form is read as a (B, N, S, D) view.
N of key/value may divide N of query (GQA/MQA): query head h reads key/value head h // (Nq / Nkv).

Masks (attenMask 1 = masked, 0 = computed; sparseMode):
    0  the given mask (any of [S,S], [1,S,S], [B,1,S,S], [B,N,S,S]…) and the band
       i - preTokens <= j <= i + nextTokens, aligned at the top left
    1  the given mask only
    2  causal aligned at the top left: j > i masked
    3  causal aligned at the bottom right: j > i + Skv - Sq masked
    4  band aligned at the bottom right: i + Skv - Sq - preTokens <= j <= i + Skv - Sq + nextTokens
    5, 6  prefix: mode 3, except the first prefix[b] columns, always computed
    7, 8  (variable length) modes 3 and 4 per sequence
With no attenMask, sparseMode, preTokens and nextTokens have no effect: every position is computed (the
docs' rule).

The kernel's arithmetic (flash attention on the cube and vector units): S = Q K^T accumulated in fp32
from the fp16/bf16 inputs, scaled (and pse added) in fp32; the softmax in fp32 (max, exp, row sum); P
rounded to the input dtype for the second matmul, P V accumulated in fp32 and divided by the row sum;
one rounding into the output. A row with every position masked gives zeros (the kernel's
invalid-row handling)."""
import numpy as np

from opemu.core import status

BNSD_OF = {  # how each layout's axes map to (B, N, S, D) once H is split into (N, D)
    "BSND": (0, 2, 1, 3), "BNSD": (0, 1, 2, 3), "BSH": (0, 2, 1, 3), "SBH": (1, 2, 0, 3)}
MASKED = np.float32(-np.inf)


def param_invalid(message):
    return status.param_invalid(message)


def bnsd(view, layout, heads):
    """The (B, N, S, D) view of a BSH/SBH/BSND/BNSD tensor view with `heads` heads."""
    if layout in ("BSH", "SBH"):
        view = view.reshape(view.shape[0], view.shape[1], heads, view.shape[2] // heads)
    return view.transpose(BNSD_OF[layout])


def split_heads(shape, layout, heads):
    """(B, N, S, D) of a tensor shape in `layout` with `heads` heads (TND: (1, N, T, D))."""
    if layout == "TND":
        return 1, shape[1], shape[0], shape[2]
    if layout in ("BSH", "SBH"):
        b, s = (shape[0], shape[1]) if layout == "BSH" else (shape[1], shape[0])
        return b, heads, s, shape[2] // heads if heads else 0
    if layout == "BSND":
        return shape[0], shape[2], shape[1], shape[3]
    return tuple(shape)


def band(sq, skv, mode, pre, nxt, prefix=0):
    """The masked positions of sparse modes 0 (band part), 2, 3, 4, 5/6 for one (Sq, Skv) block."""
    i = np.arange(sq)[:, None]
    j = np.arange(skv)[None, :]
    shift = skv - sq
    if mode == 0:
        return (j - i > nxt) | (i - j > pre)
    if mode == 2:
        return j > i
    if mode in (3, 7):
        return j > i + shift
    if mode in (4, 8):
        return (j > i + shift + nxt) | (j < i + shift - pre)
    if mode in (5, 6):
        return (j > i + shift) & (j >= prefix)
    raise ValueError(mode)


def masked_positions(mask, sq, skv, mode, pre, nxt, prefix=0):
    """Boolean masked positions, 4-D, broadcastable to (B, N, Sq, Skv), or None when all are computed. `mask`
    is the attenMask view (bool/uint8/int8, 1 = masked) already shaped to broadcast (4-D), or None."""
    if mask is None:
        return None
    if mode == 1:
        return mask.astype(bool)
    if mode == 0:
        own = mask.astype(bool)
        if pre >= sq + skv and nxt >= sq + skv:
            return own
        return own | band(sq, skv, 0, pre, nxt)
    return band(sq, skv, mode, pre, nxt, prefix)[None, None]


def mask_view(mask, b, n, sq, skv):
    """An attenMask view shaped to broadcast over (B, N, Sq, Skv): [S,S], [1,S,S]/[B,S,S], [B,1,S,S],
    [B,N,S,S], cut to (Sq, Skv) (the compressed 2048 x 2048 masks of modes 2-4 are not read)."""
    if mask is None:
        return None
    if mask.ndim == 2:
        mask = mask[None, None]
    elif mask.ndim == 3:
        mask = mask[:, None]
    return mask[..., :sq, :skv]


def attend(q, k, v, scale, masked=None, pse=None, pse_inside=False, keep=None, keep_prob=1.0, stats=False):
    """Attention of (B, N, Sq, D) q over (B, Nkv, Skv, D) k and (B, Nkv, Skv, Dv) v, fp32 result (B, N, Sq, Dv)
    before the output rounding; with `stats`, also the softmax max and sum (B, N, Sq) in fp32. `masked`
    broadcasts to (B, N, Sq, Skv); `pse` too: added to the scaled scores, or inside the scaling
    (scale * (qk + pse)) with `pse_inside`; `keep` the dropout's kept positions."""
    bsz, heads, sq, _ = q.shape
    kv_heads, skv, dv = k.shape[1], k.shape[2], v.shape[3]
    group = heads // kv_heads
    half = q.dtype if q.dtype != np.float32 else None
    out = np.empty((bsz, heads, sq, dv), np.float32)
    maxes = np.empty((bsz, heads, sq), np.float32) if stats else None
    sums = np.empty((bsz, heads, sq), np.float32) if stats else None
    for b in range(bsz):
        for h in range(kv_heads):
            heads_of = slice(h * group, (h + 1) * group)
            scores = _scores(q[b, heads_of].astype(np.float32), k[b, h].astype(np.float32), b, heads_of, scale,
                             masked, pse, pse_inside)
            peak = scores.max(axis=-1, keepdims=True)
            dead = ~np.isfinite(peak)
            peak[dead] = 0
            np.subtract(scores, peak, out=scores)
            np.exp(scores, out=scores)
            total = scores.sum(axis=-1, dtype=np.float32, keepdims=True)
            if keep is not None:
                scores *= np.broadcast_to(_pick(keep, b, heads_of), scores.shape) / np.float32(keep_prob)
            if half is not None:
                scores = scores.astype(half).astype(np.float32)
            vg = v[b, h].astype(np.float32)
            result = (scores.reshape(group * sq, skv) @ vg).reshape(group, sq, dv)
            total[dead] = 1
            result /= total
            result[dead[..., 0]] = 0
            out[b, heads_of] = result
            if stats:
                maxes[b, heads_of] = np.where(dead[..., 0], np.float32(np.finfo(np.float32).min), peak[..., 0])
                sums[b, heads_of] = np.where(dead[..., 0], 0, total[..., 0])
    return (out, maxes, sums) if stats else out


def attend_grad(q, k, v, dy, out, maxes, sums, scale, masked=None, pse=None, pse_inside=False, keep=None,
                keep_prob=1.0):
    """(dq, dk, dv, dpse) in fp32 of attend's forward, recomputing P from the saved softmax max and sum
    (B, N, Sq) as the grad kernel does; dk/dv summed over the query heads sharing a key/value head."""
    bsz, heads, sq, _ = q.shape
    kv_heads, skv = k.shape[1], k.shape[2]
    group = heads // kv_heads
    dq = np.empty(q.shape, np.float32)
    dk = np.zeros(k.shape, np.float32)
    dv = np.zeros(v.shape, np.float32)
    dpse = np.zeros((bsz, heads, sq, skv), np.float32) if pse is not None else None
    for b in range(bsz):
        for h in range(kv_heads):
            heads_of = slice(h * group, (h + 1) * group)
            qg = q[b, heads_of].astype(np.float32)
            kg, vg = k[b, h].astype(np.float32), v[b, h].astype(np.float32)
            scores = _scores(qg, kg, b, heads_of, scale, masked, pse, pse_inside)
            total = sums[b, heads_of][..., None]
            probs = np.exp(scores - maxes[b, heads_of][..., None])
            probs = np.divide(probs, total, out=np.zeros_like(probs), where=total > 0)
            dropped = probs
            factor = None
            if keep is not None:
                factor = np.broadcast_to(_pick(keep, b, heads_of), probs.shape) / np.float32(keep_prob)
                dropped = probs * factor
            grad_out = dy[b, heads_of].astype(np.float32)
            dv[b, h] = np.einsum("gqk,gqd->kd", dropped, grad_out)
            dprobs = grad_out @ vg.T
            if factor is not None:
                dprobs *= factor
            delta = (grad_out * out[b, heads_of].astype(np.float32)).sum(axis=-1, keepdims=True)
            dscores = probs * (dprobs - delta)
            if dpse is not None:
                dpse[b, heads_of] = dscores * np.float32(scale) if pse_inside else dscores
            dscores *= np.float32(scale)
            dq[b, heads_of] = dscores @ kg
            dk[b, h] = np.einsum("gqk,gqd->kd", dscores, qg)
    return dq, dk, dv, dpse


def _scores(qg, kg, b, heads_of, scale, masked, pse, pse_inside):
    """The (group, Sq, Skv) fp32 scores of one key/value head's query group: qk scaled, pse added outside or
    inside the scaling, masked positions -inf."""
    group, sq, _ = qg.shape
    scores = (qg.reshape(group * sq, -1) @ kg.T).reshape(group, sq, kg.shape[0])
    if pse is not None and pse_inside:
        scores += _pick(pse, b, heads_of)
    scores *= np.float32(scale)
    if pse is not None and not pse_inside:
        scores += _pick(pse, b, heads_of)
    if masked is not None:
        np.copyto(scores, MASKED, where=_pick(masked, b, heads_of))
    return scores


def _pick(array, b, heads):
    """array[b, heads] of an array broadcastable to (B, N, …): size-1 leading axes broadcast."""
    array = array[b if array.shape[0] > 1 else 0]
    return array[heads] if array.shape[0] > 1 else array
