"""Multi-head attention's weight buffer and sequence data, from descriptor snapshots.

Weights (one buffer, mcdnnGetMultiHeadAttnBuffers' size): the Q, K, V and O projection matrices, then, with
MCDNN_ATTN_ENABLE_PROJ_BIASES, the Q, K, V and O biases. A projection of size 0 is disabled and has no
weights (its queries answer NULL). The input projections are (input size) x (heads x projected size)
rows-major, so mcdnnGetMultiHeadAttnWeights describes them as (heads, projected size, input size) with
strides (projected size, 1, heads x projected size); the output projection, which mixes the heads'
results, is (heads x value length) x (output size): dims (heads, output size, value length), strides
(value length x output size, 1, output size). Biases are (heads, projected size, 1) and (1, output
size, 1). The value length is vProjSize, or vSize when V is not projected; the output length oProjSize,
or heads x value length.

Sequence data (mcdnnSetSeqDataDescriptor) is packed in its axes' order, the vector innermost; here it is
viewed as (batch, beam, time, vector)."""
import math

import numpy as np

from opemu.core import mcdnn
from opemu.core.headers import enum

_INFER = "mcdnn/mcdnn_adv_infer.h"
KIND = enum(_INFER, "mcdnnMultiHeadAttnWeightKind_t")
AXIS = enum(_INFER, "mcdnnSeqDataAxis_t")
TIME, BATCH, BEAM, VECT = (AXIS["MCDNN_SEQDATA_%s_DIM" % n] for n in ("TIME", "BATCH", "BEAM", "VECT"))
ONE_TO_ONE = 1 << 0    # MCDNN_ATTN_QUERYMAP_ONE_TO_ONE
PROJ_BIASES = 1 << 1   # MCDNN_ATTN_ENABLE_PROJ_BIASES


class Attention:
    """Sizes of an attention descriptor and where each weight kind lies in the weight buffer."""

    def __init__(self, attn):
        self.attn = attn
        self.heads = attn.heads
        self.dtype = mcdnn.NUMPY[attn.dtype_code]
        self.ct = np.dtype(np.float64) if attn.dtype_code == mcdnn.DATA["MCDNN_DATA_DOUBLE"] else np.dtype(np.float32)
        self.q_len = attn.q_proj or attn.q_size   # the per-head query and key length
        self.v_len = attn.v_proj or attn.v_size
        self.o_len = attn.o_proj or self.heads * self.v_len
        self.biases = bool(attn.mode & PROJ_BIASES)
        self.one_to_one = bool(attn.mode & ONE_TO_ONE)
        h = self.heads
        self.kinds = {}   # kind: (element offset, dims, strides)
        offset = 0
        for name, proj, size in (("Q", attn.q_proj, attn.q_size), ("K", attn.k_proj, attn.k_size),
                                 ("V", attn.v_proj, attn.v_size)):
            if proj:
                self.kinds[KIND["MCDNN_MH_ATTN_%s_WEIGHTS" % name]] = (offset, (h, proj, size), (proj, 1, h * proj))
                offset += h * proj * size
        if attn.o_proj:
            o, v = attn.o_proj, self.v_len
            self.kinds[KIND["MCDNN_MH_ATTN_O_WEIGHTS"]] = (offset, (h, o, v), (v * o, 1, o))
            offset += h * v * o
        if self.biases:
            for name, proj in (("Q", attn.q_proj), ("K", attn.k_proj), ("V", attn.v_proj)):
                if proj:
                    self.kinds[KIND["MCDNN_MH_ATTN_%s_BIASES" % name]] = (offset, (h, proj, 1), (proj, 1, 1))
                    offset += h * proj
            if attn.o_proj:
                self.kinds[KIND["MCDNN_MH_ATTN_O_BIASES"]] = (offset, (1, attn.o_proj, 1), (attn.o_proj, 1, 1))
                offset += attn.o_proj
        self.weight_elements = offset

    def views(self, flat):
        """{name: array} of the weights in `flat`: Q, K, V as (input size, heads, proj), O as
        (heads, value length, output size), biases (heads, proj) and (output size,)."""
        out = {}
        for name in ("Q", "K", "V", "O"):
            place = self.kinds.get(KIND["MCDNN_MH_ATTN_%s_WEIGHTS" % name])
            if place is not None:
                offset, dims, _ = place
                if name == "O":
                    out[name] = flat[offset:offset + math.prod(dims)].reshape(dims[0], dims[2], dims[1])
                else:
                    out[name] = flat[offset:offset + math.prod(dims)].reshape(dims[2], dims[0], dims[1])
            place = self.kinds.get(KIND["MCDNN_MH_ATTN_%s_BIASES" % name])
            if place is not None:
                offset, dims, _ = place
                out["b" + name] = flat[offset:offset + math.prod(dims)].reshape(dims[0] * dims[1] if name == "O"
                                                                               else dims[:2])
        return out

    # ---- the reserve space a training forward keeps ----

    def reserve_fields(self, batch, beam, beam_kv, tq, tk):
        """(name, shape) of what the reserve space holds, in the math type: the projected queries, keys and
        values, the attention weights, the heads' results, then the backward data pass's gradients at the
        projections (for the weight gradients)."""
        h, qk, v = self.heads, self.q_len, self.v_len
        projected = [("Qp", (batch, beam, tq, h, qk)), ("Kp", (batch, beam_kv, tk, h, qk)),
                     ("Vp", (batch, beam_kv, tk, h, v)), ("A", (batch, beam, h, tq, tk)), ("H", (batch, beam, tq, h, v))]
        gradients = [("dQp", (batch, beam, tq, h, qk)), ("dKp", (batch, beam_kv, tk, h, qk)),
                     ("dVp", (batch, beam_kv, tk, h, v)), ("dH", (batch, beam, tq, h, v))]
        return projected + gradients

    def reserve_bytes(self, batch, beam, beam_kv, tq, tk):
        return sum(math.prod(shape) for _, shape in self.reserve_fields(batch, beam, beam_kv, tq, tk)) * self.ct.itemsize

    def max_reserve_bytes(self):
        a = self.attn
        return self.reserve_bytes(a.max_batch, a.max_beam, a.max_beam if self.one_to_one else 1, a.qo_max, a.kv_max)

    def reserve(self, raw, batch, beam, beam_kv, tq, tk):
        space, offset, out = raw.view(self.ct), 0, {}
        for name, shape in self.reserve_fields(batch, beam, beam_kv, tq, tk):
            n = math.prod(shape)
            out[name] = space[offset:offset + n].reshape(shape)
            offset += n
        return out


def seq_shape(seq):
    """(batch, beam, time, vector) of a sequence-data snapshot."""
    d = seq.dims
    return d[BATCH], d[BEAM], d[TIME], d[VECT]


def seq_elements(seq):
    return math.prod(seq.dims)


def canonical(flat, seq):
    """The packed buffer as a (batch, beam, time, vector) view."""
    order = seq.axes
    stored = flat.reshape([seq.dims[axis] for axis in order])
    position = {axis: i for i, axis in enumerate(order)}
    return stored.transpose(position[BATCH], position[BEAM], position[TIME], position[VECT])


def lengths(seq):
    """Sequence lengths as a (batch, beam) array (the descriptor lists them batch-major)."""
    batch, beam, _, _ = seq_shape(seq)
    return np.asarray(seq.lengths, np.intp).reshape(batch, beam)
