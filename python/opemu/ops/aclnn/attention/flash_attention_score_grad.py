"""The backward of the training flash attention (ops-transformer attention/flash_attention_score_grad):
aclnnFlashAttentionScoreGrad (V2) and aclnnFlashAttentionUnpaddingScoreGrad (V2-V4, TND).

From the forward's softmax max and sum the kernel recomputes P = exp(scale * qk + pse - max) / sum,
then, in fp32: dV = P_drop^T dy, dP = dy V^T (dropped as the forward), D = rowsum(dy * attentionIn),
dS = P (dP - D), dQ = scale dS K, dK = scale dS^T Q (dK, dV summed over the query heads sharing a
key/value head), dpse = dS (times scale when pse sits inside the scaling); one rounding into each
output. The V3 form's rope parts get their share of dQ/dK (the columns past D).
Check order and texts: the op_api (aclnn_flash_attention_score_grad.cpp)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.attention import core
from opemu.ops.aclnn.attention import flash_attention_score as forward
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P


class FlashAttentionScoreGrad(AclnnOp):
    name = "aclnnFlashAttentionScoreGrad"
    inputs = ("query", "keyIn", "value", "dy", "pseShiftOptional", "dropMaskOptional", "paddingMaskOptional",
              "attenMaskOptional", "softmaxMaxOptional", "softmaxSumOptional", "softmaxInOptional",
              "attentionInOptional")
    outputs = ("dqOut", "dkOut", "dvOut", "dpseOut")
    products = _products.describe(forward.LINES)
    default_pse_type = forward.PSE_OUTSIDE

    def dtype_table(self):
        table = {n: list(forward.QKV_DTYPES) for n in ("query", "keyIn", "value", "dy", "dqOut", "dkOut", "dvOut")}
        table.update({"attenMaskOptional": list(forward.MASK_DTYPES), "softmaxMaxOptional": [P.FLOAT],
                      "softmaxSumOptional": [P.FLOAT]})
        return table

    def check(self, a):
        checks.not_null(a, "query", "keyIn", "value", "dy", "dqOut", "dkOut", "dvOut")
        if a.inputLayout is None:
            raise status.param_nullptr("Expected a proper inputLayout but got null.")
        for name in ("query", "keyIn", "value", "dy", "dqOut", "dkOut", "dvOut"):
            if getattr(a, name).ndim < 3:
                raise core.param_invalid("The input or output of FAG does not support tensors with dim less than 3.")
        forward.check_dtypes(a.query, a.keyIn, a.value, a.pseShiftOptional, getattr(a, "pseType", self.default_pse_type))
        if a.headNum <= 0:
            raise core.param_invalid("Invalid HeadNum, pls check input attr")
        q, k, v = forward.check_axes(a, a.query, a.keyIn, a.value)
        if a.softmaxMaxOptional is None or a.softmaxSumOptional is None or a.attentionInOptional is None:
            raise status.param_nullptr("softmaxMax, softmaxSum and attentionIn of the forward are required.")
        for name, source in (("dy", a.attentionInOptional), ("dqOut", a.query), ("dkOut", a.keyIn),
                             ("dvOut", a.value)):
            if tuple(getattr(a, name).shape) != tuple(source.shape):
                raise core.param_invalid("Invalid input, pls check input shape.")
        if a.sparseMode not in range(9) or not 0 < a.keepProb <= 1:
            raise core.param_invalid("sparseMode %d or keepProb %s is not supported." % (a.sparseMode, a.keepProb))
        layout = getattr(a, "softmaxInLayout", None)
        if layout not in (None, "", "same_as_input"):
            raise core.param_invalid("softmaxInLayout %s is not same_as_input or Empty string, invalid "
                                     "softmaxInLayout, please check" % layout)
        a.spans = forward.sequences(a, a.inputLayout, a.query.shape[0], a.keyIn.shape[0], q[0])
        a.pse_inside = getattr(a, "pseType", self.default_pse_type) == forward.PSE_INSIDE
        a.batch = q[0] if a.spans is None else 1
        _products.check_supported(self.name, forward.LINES)

    def compute(self, a, v, workspace):
        layout = a.inputLayout
        views = {}
        for name, heads in (("query", a.headNum), ("keyIn", a.kv_heads), ("value", a.kv_heads), ("dy", a.headNum),
                            ("attentionInOptional", a.headNum), ("dqOut", a.headNum), ("dkOut", a.kv_heads),
                            ("dvOut", a.kv_heads), ("queryRope", a.headNum), ("keyInRope", a.kv_heads),
                            ("dqRopeOut", a.headNum), ("dkRopeOut", a.kv_heads)):
            view = v.get(name)
            views[name] = None if view is None else view if layout == "TND" else core.bnsd(view, layout, heads)
        for b, rows_q, rows_kv in self.blocks(a):
            part = {n: self.cut(views[n], rows_q if n in ("query", "dy", "attentionInOptional", "dqOut", "queryRope",
                                                          "dqRopeOut") else rows_kv) for n in views}
            q, k = part["query"], part["keyIn"]
            if part["queryRope"] is not None:
                q, k = np.concatenate((q, part["queryRope"]), -1), np.concatenate((k, part["keyInRope"]), -1)
            sq, skv = q.shape[2], k.shape[2]
            masked, pse, keep = forward.FlashAttentionScore.extras(a, {**v, "realShiftOptional": v.get("pseShiftOptional")},
                                                                   b, sq, skv, rows_q)
            maxes = self.stats(v["softmaxMaxOptional"], rows_q)
            sums = self.stats(v["softmaxSumOptional"], rows_q)
            dq, dk, dv, dpse = core.attend_grad(q, k, part["value"], part["dy"], part["attentionInOptional"], maxes,
                                                sums, a.scaleValue, masked, pse, a.pse_inside, keep, a.keepProb)
            d = part["dqOut"].shape[-1]
            P.store(part["dqOut"], dq[..., :d])
            P.store(part["dkOut"], dk[..., :d])
            P.store(part["dvOut"], dv)
            if part["dqRopeOut"] is not None:
                P.store(part["dqRopeOut"], dq[..., d:])
                P.store(part["dkRopeOut"], dk[..., d:])
            if dpse is not None and v.get("dpseOut") is not None and b is None:
                P.store(v["dpseOut"], dpse.reshape(v["dpseOut"].shape) if dpse.size == v["dpseOut"].size
                        else dpse.sum(axis=0, keepdims=True)[..., :v["dpseOut"].shape[-2], :])

    @staticmethod
    def blocks(a):
        if a.spans is None:
            yield None, None, None
            return
        for b, (rows_q, rows_kv) in enumerate(a.spans):
            yield b, rows_q, rows_kv

    @staticmethod
    def cut(view, rows):
        """The (1, N, S, D) block of TND rows, or the whole (B, N, S, D) view."""
        if view is None or rows is None:
            return view
        return view[rows].transpose(1, 0, 2)[None]

    @staticmethod
    def stats(view, rows):
        """(B, N, Sq) of the forward's repeated statistics."""
        if rows is None:
            return view[..., 0]
        return view[rows][..., 0].T[None]


class FlashAttentionScoreGradV2(FlashAttentionScoreGrad):
    name = "aclnnFlashAttentionScoreGradV2"


class FlashAttentionUnpaddingScoreGrad(FlashAttentionScoreGrad):
    name = "aclnnFlashAttentionUnpaddingScoreGrad"


class FlashAttentionUnpaddingScoreGradV2(FlashAttentionScoreGrad):
    name = "aclnnFlashAttentionUnpaddingScoreGradV2"


class FlashAttentionUnpaddingScoreGradV3(FlashAttentionScoreGrad):
    name = "aclnnFlashAttentionUnpaddingScoreGradV3"
    inputs = FlashAttentionScoreGrad.inputs + ("queryRope", "keyInRope")
    outputs = ("dqOut", "dqRopeOut", "dkOut", "dkRopeOut", "dvOut", "dpseOut")


class FlashAttentionUnpaddingScoreGradV4(FlashAttentionScoreGrad):
    name = "aclnnFlashAttentionUnpaddingScoreGradV4"
