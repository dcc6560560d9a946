"""The training flash attention of ops-transformer attention/flash_attention_score(_grad):
aclnnFlashAttentionScore (V2), aclnnFlashAttentionVarLenScore (V2-V4), aclnnFlashAttentionScoreGrad (V2)
and aclnnFlashAttentionUnpaddingScoreGrad (V2-V4).

    attention_out = Dropout(Softmax(Mask(scale * qk + pse)), keepProb) * value

pse is added after the scaling (pseType 1, the V1 operators' only form) or inside it (pseType 0:
scale * (qk + pse)); pseType 2/3 (alibi generated inside the kernel) is not emulated. The forward
writes the softmax max and sum, (B, N, Sq, 8) fp32 with the value repeated eight times ((T, N, 8) for
TND), which the grad reads back to recompute the probabilities. The variable-length forms read TND
with cumulative actualSeqQLen/actualSeqKvLen; the V3 forms add queryRope/keyRope, concatenated to
query/key along D for the scores. dropMask holds one bit per position (little-endian bits of uint8).
Check order and texts: the op_api (aclnn_flash_attention_score.cpp, aclnn_flash_attention_score_grad.cpp)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.attention import core
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

LINES = ("A2", "A3")
QKV_DTYPES = (P.FLOAT16, P.BF16, P.FLOAT)
MASK_DTYPES = (dtypes.acl("BOOL"), dtypes.acl("UINT8"))
LAYOUT_DIMS = {"BSH": 3, "SBH": 3, "BSND": 4, "BNSD": 4, "TND": 3}
HEAD_DIM_MAX = 768
STAT_WIDTH = 8
PSE_OUTSIDE, PSE_INSIDE = 1, 0


def check_axes(a, query, key, value):
    """AnalysisInput: headNum, the layout against the rank, qD == kD >= vD, D <= 768; (B, N, Sq, D) of each."""
    if a.headNum <= 0:
        raise core.param_invalid("head_num must > 0, but got %d" % a.headNum)
    layout = a.inputLayout
    if LAYOUT_DIMS.get(layout) != query.ndim:
        raise core.param_invalid("not support input_layout %s with dim_num %d" % (layout, query.ndim))
    q = core.split_heads(query.shape, layout, a.headNum)
    kv_heads = key.shape[1] if layout in ("TND", "BNSD") else key.shape[2] if layout == "BSND" else None
    if kv_heads is None:  # BSH/SBH: N2 = H2 / D
        kv_heads = key.shape[2] // q[3] if q[3] else 0
    k = core.split_heads(key.shape, layout, kv_heads)
    v = core.split_heads(value.shape, layout, kv_heads)
    if q[3] != k[3]:
        raise core.param_invalid("qD and kD should be same, but got qD=%d kD=%d" % (q[3], k[3]))
    if q[3] < v[3]:
        raise core.param_invalid("only support kD >= vD, but got kD=%d vD=%d" % (q[3], v[3]))
    if q[3] > HEAD_DIM_MAX:
        raise core.param_invalid("Head dim must <= 768, but got %d" % q[3])
    if kv_heads <= 0 or q[1] % kv_heads:
        raise core.param_invalid("N1 %d must be a multiple of N2 %d." % (q[1], kv_heads))
    a.kv_heads = kv_heads
    return q, k, v


def check_dtypes(query, key, value, pse, pse_type):
    for name, t in (("query", query), ("key", key), ("value", value)):
        checks.dtype_in(name, t, QKV_DTYPES)
    if query.dtype != key.dtype or key.dtype != value.dtype:
        raise core.param_invalid("The data type of query[%s], key[%s], value[%s] are not equal."
                                 % tuple(dtypes.serial_name(t.dtype) for t in (query, key, value)))
    if pse_type in (2, 3):
        raise status.runtime_error("pseType %d (the kernel's own alibi pse) is not emulated by opemu." % pse_type)
    if pse is not None and pse.dtype != query.dtype:
        raise core.param_invalid("The data type %s of pse is not equal to the data type %s of query, key and value."
                                 % (dtypes.serial_name(pse.dtype), dtypes.serial_name(query.dtype)))


def sequences(a, layout, q_total, kv_total, batch):
    """[(q rows, kv rows)] per batch: the cumulative actual lengths of TND, else whole sequences."""
    if layout != "TND":
        return None
    q_ends = list(getattr(a, "actualSeqQLenOptional", None) or ())
    kv_ends = list(getattr(a, "actualSeqKvLenOptional", None) or ())
    if not q_ends or len(q_ends) != len(kv_ends):
        raise core.param_invalid("TND needs actualSeqQLen and actualSeqKvLen of the same size.")
    spans = []
    for ends, total in ((q_ends, q_total), (kv_ends, kv_total)):
        if any(e < s for s, e in zip([0] + ends, ends)) or ends[-1] > total:
            raise core.param_invalid("actual sequence lengths %s must be cumulative and within %d." % (ends, total))
        spans.append([slice(s, e) for s, e in zip([0] + ends[:-1], ends)])
    return list(zip(*spans))


class FlashAttentionScore(AclnnOp):
    name = "aclnnFlashAttentionScore"
    inputs = ("query", "key", "value", "realShiftOptional", "dropMaskOptional", "paddingMaskOptional",
              "attenMaskOptional")
    outputs = ("softmaxMaxOut", "softmaxSumOut", "softmaxOutOut", "attentionOutOut")
    products = _products.describe(LINES)
    default_pse_type = PSE_OUTSIDE

    def dtype_table(self):
        return {"query": list(QKV_DTYPES), "key": list(QKV_DTYPES), "value": list(QKV_DTYPES),
                "attenMaskOptional": list(MASK_DTYPES), "softmaxMaxOut": [P.FLOAT], "softmaxSumOut": [P.FLOAT],
                "attentionOutOut": list(QKV_DTYPES)}

    def check(self, a):
        for name in ("query", "key", "value", "softmaxMaxOut", "softmaxSumOut", "attentionOutOut"):
            checks.not_null(a, name)
        if a.inputLayout is None:
            raise status.param_nullptr("Expected a proper inputLayout but got null.")
        query, key = self.scored(a, "query"), self.scored(a, "key")
        pse_type = getattr(a, "pseType", self.default_pse_type)
        check_dtypes(a.query, a.key, a.value, a.realShiftOptional, pse_type)
        q, k, v = check_axes(a, a.query, a.key, a.value)
        if a.attenMaskOptional is not None:
            checks.dtype_in("attenMaskOptional", a.attenMaskOptional, MASK_DTYPES)
        if not 0 < a.keepProb <= 1:
            raise core.param_invalid("keepProb must be in (0, 1], but got %s." % a.keepProb)
        if a.keepProb < 1 and a.dropMaskOptional is None:
            raise core.param_invalid("keepProb %s < 1 needs dropMaskOptional." % a.keepProb)
        if a.sparseMode not in range(9) or (a.sparseMode in (7, 8) and a.inputLayout != "TND"):
            raise core.param_invalid("sparseMode %d is not supported." % a.sparseMode)
        out_shape = a.query.shape[:-1] + (q[1] * v[3] if a.inputLayout in ("BSH", "SBH") else v[3],)
        if tuple(a.attentionOutOut.shape) != tuple(out_shape):
            raise core.param_invalid("attentionOutOut shape %s does not match query %s and value %s."
                                     % tuple(checks.shape_text(t.shape) for t in (a.attentionOutOut, a.query, a.value)))
        stat_shape = ((a.query.shape[0], q[1], STAT_WIDTH) if a.inputLayout == "TND"
                      else (q[0], q[1], q[2], STAT_WIDTH))
        for name in ("softmaxMaxOut", "softmaxSumOut"):
            t = getattr(a, name)
            checks.dtype_in(name, t, [P.FLOAT])
            if tuple(t.shape) != stat_shape:
                raise core.param_invalid("%s shape %s should be %s." % (name, checks.shape_text(t.shape),
                                                                      checks.shape_text(stat_shape)))
        a.spans = sequences(a, a.inputLayout, a.query.shape[0], a.key.shape[0], q[0])
        a.pse_inside = pse_type == PSE_INSIDE
        a.batch = q[0] if a.spans is None else 1
        del query, key
        _products.check_supported(self.name, LINES)

    @staticmethod
    def scored(a, name):
        """query or key, with its rope part (V3) when given."""
        return getattr(a, name)

    def compute(self, a, v, workspace):
        layout, heads = a.inputLayout, a.headNum
        outs = {}
        for name in ("query", "key", "value", "attentionOutOut"):
            n = heads if name in ("query", "attentionOutOut") else a.kv_heads
            outs[name] = v[name] if layout == "TND" else core.bnsd(v[name], layout, n)
        rope_q, rope_k = v.get("queryRope"), v.get("keyRope")
        if rope_q is not None:
            rope_q = rope_q if layout == "TND" else core.bnsd(rope_q, layout, heads)
            rope_k = rope_k if layout == "TND" else core.bnsd(rope_k, layout, a.kv_heads)
        maxes, sums = v["softmaxMaxOut"], v["softmaxSumOut"]
        for b, q, k, val, out, qr, kr, rows in self.blocks(a, outs, rope_q, rope_k):
            q, k = (q, k) if qr is None else (np.concatenate((q, qr), -1), np.concatenate((k, kr), -1))
            masked, pse, keep = self.extras(a, v, b, q.shape[2], k.shape[2], rows)
            result, peak, total = core.attend(q, k, val, a.scaleValue, masked, pse, a.pse_inside, keep, a.keepProb,
                                              stats=True)
            P.store(out, result)
            self.store_stats(a, maxes, b, rows, peak)
            self.store_stats(a, sums, b, rows, total)

    @staticmethod
    def blocks(a, views, rope_q, rope_k):
        """(batch, q, k, v, out, query rope, key rope, TND rows) as (1, N, S, D) blocks per sequence (TND) or
        the whole (B, N, S, D) once."""
        if a.spans is None:
            yield None, views["query"], views["key"], views["value"], views["attentionOutOut"], rope_q, rope_k, None
            return
        def per(t, rows):
            return None if t is None else t[rows].transpose(1, 0, 2)[None]
        for b, (q_rows, kv_rows) in enumerate(a.spans):
            yield (b, per(views["query"], q_rows), per(views["key"], kv_rows), per(views["value"], kv_rows),
                   per(views["attentionOutOut"], q_rows), per(rope_q, q_rows), per(rope_k, kv_rows), q_rows)

    @staticmethod
    def store_stats(a, target, b, rows, values):
        if rows is None:
            target[...] = values[..., None]
        else:
            target[rows] = values[0].T[..., None]

    @staticmethod
    def extras(a, v, b, sq, skv, rows):
        """The masked positions, pse and kept positions of one block (batch b of TND, or all)."""
        prefix = tuple(getattr(a, "prefixOptional", None) or ())
        mask = v.get("attenMaskOptional")
        mode = a.sparseMode
        if b is not None and mask is not None and mode in (0, 1) and mask.ndim == 4:
            mask = mask[b:b + 1]
        mask = core.mask_view(mask, 0, 0, sq, skv)
        if mode in (5, 6) and prefix:
            pieces = [core.band(sq, skv, mode, a.preTokens, a.nextTokens, p) for p in prefix]
            masked = np.stack(pieces)[:, None] if mask is not None else None
        else:
            masked = core.masked_positions(mask, sq, skv, mode, a.preTokens, a.nextTokens)
        pse = v.get("realShiftOptional", v.get("pseShiftOptional"))
        if pse is not None:
            pse = pse.astype(np.float32)[..., :sq, :skv] if b is None else pse[b:b + 1].astype(np.float32)
        keep = None
        drop = v.get("dropMaskOptional")
        if drop is not None and a.keepProb < 1:
            bits = np.unpackbits(drop.reshape(-1), bitorder="little").astype(bool)
            size = a.batch * a.headNum * sq * skv
            if bits.size < size:
                raise core.param_invalid("dropMaskOptional holds %d bits, fewer than the %d positions." % (bits.size, size))
            keep = bits[:size].reshape(a.batch, a.headNum, sq, skv)
        return masked, pse, keep


class FlashAttentionScoreV2(FlashAttentionScore):
    name = "aclnnFlashAttentionScoreV2"


class FlashAttentionVarLenScore(FlashAttentionScore):
    name = "aclnnFlashAttentionVarLenScore"


class FlashAttentionVarLenScoreV2(FlashAttentionScore):
    name = "aclnnFlashAttentionVarLenScoreV2"


class FlashAttentionVarLenScoreV3(FlashAttentionScore):
    name = "aclnnFlashAttentionVarLenScoreV3"
    inputs = FlashAttentionScore.inputs + ("queryRope", "keyRope")

    @staticmethod
    def scored(a, name):
        rope = getattr(a, name + "Rope")
        if (rope is None) != (getattr(a, "keyRope" if name == "query" else "queryRope") is None):
            raise core.param_invalid("queryRope and keyRope must be given together.")
        return getattr(a, name)


class FlashAttentionVarLenScoreV4(FlashAttentionScore):
    name = "aclnnFlashAttentionVarLenScoreV4"
