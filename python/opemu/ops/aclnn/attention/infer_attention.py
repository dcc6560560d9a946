"""The inference attentions of ops-transformer attention/: aclnnPromptFlashAttention (V1-V3, prefill),
aclnnIncreFlashAttention (V1-V4, decode over a KV cache) and aclnnFusedInferAttentionScore (V1-V4, either,
by the query's S: 1 runs the incremental path).

Layouts (inputLayout): BSH, BSND, BNSD, and BNSD_BSND (BNSD in, BSND out). key/value are a tensor list
(aclTensorList): one tensor holding every batch, one tensor per batch (sequences of different
lengths), or, with blockTable, the paged cache — (blockNum, blockSize, H) or (blockNum, Nkv, blockSize,
D) blocks, batch b reading blocks blockTable[b, :ceil(len_b / blockSize)]. actualSeqLengths are the
query's valid rows (prefill) and actualSeqLengthsKv the cache's valid rows; the incremental operator's
actualSeqLengths are the cache's. Rows past a query's length come out zero. The masks and the
arithmetic are core.py's (fp32 scores and softmax, P rounded to the input dtype, one rounding out);
softmaxLse = max + log(sum) in fp32, (B, N, Sq, 1).

Quantised paths (deqScale/quantScale, antiquant, int8 caches), shared prefixes, MLA rope inputs and
learnable sinks are not emulated: phase 1 answers ACLNN_ERR_RUNTIME_ERROR naming the argument."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.attention import core
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

LINES = ("A2", "A3")
DTYPES = (P.FLOAT16, P.BF16)
MASK_DTYPES = (dtypes.acl("BOOL"), dtypes.acl("INT8"), dtypes.acl("UINT8"), P.FLOAT16)
LAYOUTS = ("BSH", "BSND", "BNSD", "BNSD_BSND")
NOT_EMULATED = ("deqScale1", "quantScale1", "deqScale2", "quantScale2", "quantOffset2", "dequantScale1",
                "dequantScale2", "antiquantScale", "antiquantOffset", "keyAntiquantScale", "keyAntiquantOffset",
                "valueAntiquantScale", "valueAntiquantOffset", "keySharedPrefix", "valueSharedPrefix", "queryRope",
                "keyRope", "keyRopeAntiquantScale", "dequantScaleQuery", "learnableSink", "queryPaddingSize",
                "kvPaddingSize")
MAX_TOKENS = 2147483647


def arg(a, name):
    """An argument by its name with or without the Optional suffix the later versions add."""
    value = getattr(a, name, None)
    return getattr(a, name + "Optional", None) if value is None else value


class InferAttention(AclnnOp):
    """Shared by every version: `incremental` says whether actualSeqLengths counts the cache's rows."""
    inputs = ("query", "key", "value", "pseShift", "attenMask")
    outputs = ("attentionOut",)
    products = _products.describe(LINES)
    incremental = False

    def dtype_table(self):
        return {"query": list(DTYPES), "key": list(DTYPES), "value": list(DTYPES), "attenMask": list(MASK_DTYPES),
                "attentionOut": list(DTYPES)}

    def check(self, a):
        checks.not_null(a, "query", "key", "value", "attentionOut")
        if a.inputLayout is None:
            raise status.param_nullptr("Expected a proper inputLayout but got null.")
        for name in NOT_EMULATED:
            if arg(a, name) is not None:
                raise status.runtime_error("%s: %s (a quantised, shared-prefix or MLA path) is not emulated by opemu."
                                           % (self.name, name))
        keys, values = (t if isinstance(t, tuple) else (t,) for t in (a.key, a.value))  # lists, or PFA's tensors
        if not keys or len(keys) != len(values) or any(t is None for t in keys + values):
            raise core.param_invalid("key and value must be tensor lists of the same, non-zero size.")
        checks.dtype_in("query", a.query, DTYPES)
        for name, t in (("key", keys[0]), ("value", values[0]), ("attentionOut", a.attentionOut)):
            checks.dtype_in(name, t, DTYPES)
            checks.same_dtype("query", a.query, name, t)
        if a.inputLayout not in LAYOUTS:
            raise core.param_invalid("inputLayout %s is not supported, it should be BSH, BSND, BNSD or BNSD_BSND."
                                     % a.inputLayout)
        layout = a.inputLayout.split("_")[0]
        if a.query.ndim != (3 if layout == "BSH" else 4):
            raise core.param_invalid("query's dim num %d does not match inputLayout %s." % (a.query.ndim, layout))
        if a.numHeads <= 0:
            raise core.param_invalid("numHeads must be greater than 0, but got %d." % a.numHeads)
        kv_heads = a.numKeyValueHeads or a.numHeads
        if kv_heads < 0 or a.numHeads % kv_heads:
            raise core.param_invalid("numHeads %d must be a multiple of numKeyValueHeads %d." % (a.numHeads, kv_heads))
        b, n, sq, d = core.split_heads(a.query.shape, layout, a.numHeads)
        if n != a.numHeads:
            raise core.param_invalid("query's N %d is not numHeads %d." % (n, a.numHeads))
        a.layout, a.kv_heads, a.shape = layout, kv_heads, (b, n, sq, d)
        a.paged = arg(a, "blockTable") is not None or arg(a, "blocktable") is not None
        a.kv_lengths = self.kv_lengths(a, keys, layout, b, kv_heads, d)
        q_lengths = None if self.incremental else arg(a, "actualSeqLengths")
        if q_lengths is not None and (len(q_lengths) not in (1, b) or any(not 0 <= x <= sq for x in q_lengths)):
            raise core.param_invalid("actualSeqLengths %s must hold B (%d) values within [0, %d]."
                                     % (list(q_lengths), b, sq))
        a.q_lengths = None if q_lengths is None else [q_lengths[i if len(q_lengths) > 1 else 0] for i in range(b)]
        mode = getattr(a, "sparseMode", 0)
        if mode not in range(5):
            raise core.param_invalid("sparseMode %d is not supported, it should be in [0, 4]." % mode)
        mask = arg(a, "attenMask")
        if mask is not None:
            checks.dtype_in("attenMask", mask, MASK_DTYPES)
        out_shape = (b, sq, n * d) if layout == "BSH" else (b, sq, n, d) if a.inputLayout in ("BSND", "BNSD_BSND") \
            else (b, n, sq, d)
        if tuple(a.attentionOut.shape) != out_shape:
            raise core.param_invalid("attentionOut shape %s should be %s." % (checks.shape_text(a.attentionOut.shape),
                                                                           checks.shape_text(out_shape)))
        lse = getattr(a, "softmaxLse", None)
        a.lse = bool(getattr(a, "softmaxLseFlag", False)) and lse is not None
        if a.lse and (lse.dtype != P.FLOAT or tuple(lse.shape) != (b, n, sq, 1)):
            raise core.param_invalid("softmaxLse must be FLOAT (%d, %d, %d, 1)." % (b, n, sq))
        _products.check_supported(self.name, LINES)

    def kv_lengths(self, a, keys, layout, b, kv_heads, d):
        """The valid cache rows per batch, after checking the cache's form."""
        lengths = arg(a, "actualSeqLengths" if self.incremental else "actualSeqLengthsKv")
        if a.paged:
            table = arg(a, "blockTable") if arg(a, "blockTable") is not None else arg(a, "blocktable")
            cache = keys[0]
            if table.ndim != 2 or table.shape[0] != b or table.dtype != dtypes.acl("INT32"):
                raise core.param_invalid("blockTable must be INT32 (B, maxBlockNumPerSeq).")
            if a.blockSize <= 0 or a.blockSize > 512:
                raise core.param_invalid("blockSize %d must be in (0, 512] with a blockTable." % a.blockSize)
            if lengths is None:
                raise core.param_invalid("page attention needs actualSeqLengths.")
            if cache.ndim not in (3, 4) or cache.shape[-2 if cache.ndim == 4 else 1] != a.blockSize:
                raise core.param_invalid("the paged key %s must be (blockNum, blockSize, H) or (blockNum, N, "
                                         "blockSize, D)." % checks.shape_text(cache.shape))
            need = max(math.ceil(x / a.blockSize) for x in lengths)
            if need > table.shape[1]:
                raise core.param_invalid("blockTable's second dim %d is less than maxBlockNumPerSeq %d."
                                         % (table.shape[1], need))
            return [lengths[i if len(lengths) > 1 else 0] for i in range(b)]
        sizes = []
        for t in keys:
            tb, tn, ts, td = core.split_heads(t.shape, layout, kv_heads)
            if td != d or tn != kv_heads:
                raise core.param_invalid("key %s does not match query's D %d and numKeyValueHeads %d."
                                         % (checks.shape_text(t.shape), d, kv_heads))
            sizes += [ts] * tb
        if len(sizes) != b:
            raise core.param_invalid("key/value hold %d batches, query %d." % (len(sizes), b))
        if lengths is None:
            return sizes
        lengths = [lengths[i if len(lengths) > 1 else 0] for i in range(b)]
        if any(not 0 <= x <= s for x, s in zip(lengths, sizes)):
            raise core.param_invalid("actual kv lengths %s exceed the cache's S %s." % (lengths, sizes))
        return lengths

    def batch_kv(self, a, v, b):
        """(1, Nkv, len_b, D) key and value of batch b."""
        length = a.kv_lengths[b]
        if a.paged:
            table = v.get("blockTable")
            table = v.get("blocktable") if table is None else table
            blocks = table[b, :math.ceil(length / a.blockSize)]
            out = []
            for cache in (v["key"][0], v["value"][0]):
                picked = cache[blocks]
                if cache.ndim == 4:  # (blocks, N, blockSize, D) -> (N, S, D)
                    rows = picked.transpose(1, 0, 2, 3).reshape(cache.shape[1], -1, cache.shape[3])
                else:  # (blocks, blockSize, H) -> (N, S, D)
                    rows = picked.reshape(-1, a.kv_heads, cache.shape[2] // a.kv_heads).transpose(1, 0, 2)
                out.append(rows[None, :, :length])
            return out
        out = []
        for name in ("key", "value"):
            tensors = v[name]
            if len(tensors) == 1:
                view = core.bnsd(tensors[0], a.layout, a.kv_heads)[b:b + 1]
            else:
                view = core.bnsd(tensors[b], a.layout, a.kv_heads)
            out.append(view[:, :, :length])
        return out

    @staticmethod
    def batch_mask(mask, b, bsz, sq):
        """Batch b's (Sq, Skv) mask: prefill masks are (Sq, Skv), (1 or B, Sq, Skv), (1 or B, 1, Sq, Skv);
        decode masks (B, Skv), (B, 1, Skv), (B, 1, 1, Skv)."""
        if sq == 1:
            rows = mask.reshape(mask.shape[0], -1)
            return rows[b if rows.shape[0] == bsz else 0][None]
        if mask.ndim == 2:
            return mask
        return mask[b if mask.shape[0] == bsz else 0].reshape(-1, *mask.shape[-2:])[0]

    def compute(self, a, v, workspace):
        v = {name.replace("Optional", ""): view for name, view in v.items()}
        v["key"], v["value"] = ([t] if isinstance(t, np.ndarray) else t for t in (v["key"], v["value"]))
        bsz, heads, sq, _ = a.shape
        query = core.bnsd(v["query"], a.layout, heads)
        out_layout = "BSND" if a.inputLayout == "BNSD_BSND" else a.layout
        out = core.bnsd(v["attentionOut"], out_layout, heads)
        lse = v.get("softmaxLse") if a.lse else None
        mask = v.get("attenMask")
        pse = v.get("pseShift")
        mode = getattr(a, "sparseMode", 0)
        pre = getattr(a, "preTokens", MAX_TOKENS)
        nxt = getattr(a, "nextTokens", MAX_TOKENS)
        for b in range(bsz):
            k, val = self.batch_kv(a, v, b)
            rows = sq if a.q_lengths is None else a.q_lengths[b]
            skv = k.shape[2]
            q = query[b:b + 1, :, :rows]
            block_mask = None
            if mask is not None:
                block_mask = core.masked_positions(self.batch_mask(mask, b, bsz, sq)[:rows, :skv][None, None], rows,
                                                   skv, mode, pre, nxt)
            block_pse = None
            if pse is not None:
                block_pse = pse[b if pse.shape[0] > 1 else 0][None].astype(np.float32)[..., :rows, :skv]
            result, peak, total = core.attend(q, k, val, a.scaleValue, block_mask, block_pse, stats=True)
            P.store(out[b:b + 1, :, :rows], result)
            out[b:b + 1, :, rows:] = 0
            if lse is not None:
                with np.errstate(divide="ignore"):
                    lse[b, :, :rows, 0] = peak[0] + np.log(total[0])
                lse[b, :, rows:, 0] = np.inf


class PromptFlashAttention(InferAttention):
    name = "aclnnPromptFlashAttention"


class PromptFlashAttentionV2(InferAttention):
    name = "aclnnPromptFlashAttentionV2"


class PromptFlashAttentionV3(InferAttention):
    name = "aclnnPromptFlashAttentionV3"


class IncreFlashAttention(InferAttention):
    name = "aclnnIncreFlashAttention"
    incremental = True


class IncreFlashAttentionV2(IncreFlashAttention):
    name = "aclnnIncreFlashAttentionV2"


class IncreFlashAttentionV3(IncreFlashAttention):
    name = "aclnnIncreFlashAttentionV3"
    inputs = InferAttention.inputs + ("blocktable",)


class IncreFlashAttentionV4(IncreFlashAttentionV3):
    name = "aclnnIncreFlashAttentionV4"


class FusedInferAttentionScore(InferAttention):
    name = "aclnnFusedInferAttentionScore"
    inputs = InferAttention.inputs + ("blockTable",)
    outputs = ("attentionOut", "softmaxLse")


class FusedInferAttentionScoreV2(FusedInferAttentionScore):
    name = "aclnnFusedInferAttentionScoreV2"
    inputs = ("query", "key", "value", "pseShiftOptional", "attenMaskOptional", "blockTableOptional")


class FusedInferAttentionScoreV3(FusedInferAttentionScoreV2):
    name = "aclnnFusedInferAttentionScoreV3"


class FusedInferAttentionScoreV4(FusedInferAttentionScoreV2):
    name = "aclnnFusedInferAttentionScoreV4"
