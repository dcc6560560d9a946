"""aclnnFusedLinearOnlineMaxSum: the forward half of vocab-parallel cross-entropy, per shard
(reference §4.3; ops-nn matmul/fused_linear_online_max_sum).

    vpl      = input.float() @ weight.float().T        # [m, n] fp32, never held whole unless asked for
    max      = vpl.max(-1);  sumexp = exp(vpl - max).sum(-1)
    outside  = (target < start) | (target >= end)      # compared as float32, END EXCLUSIVE (kernel)
    masked   = where(outside, 0, target - start);  pred = where(outside, 0, (vpl - max)[b, masked])
    targetMaskOut = outside bits of target padded with 0, LSB-first

Doc disagreement (the kernel wins): the docs say `target > vocabEndIndex` and padding bits of 1.

The kernel (op_kernel/fused_linear_online_max_sum.h) is an online softmax: it walks the
vocabulary in column blocks, keeping per row a running max M and a running sum S rescaled to it,
    M' = max(M, max(block));  S' = S·exp(M − M') + Σ exp(block − M')
and predicted = logit[target] − M at the end. opemu walks VOCAB_CHUNK columns at a time the same
way (the hardware combines its cores' (M, S) pairs once more, so its sums may differ in the last
bits). Where the matmul writes its logits differs by product, and the code wins over the golden's
fp32: on Atlas A2/A3 the kernel is instantiated with the matmul output in the input dtype, so the
statistics come from logits rounded to fp16/bf16; only the Ascend 950 (arch35) kernel keeps them
in fp32.

Phase 1 follows op_api/aclnn_fused_linear_online_max_sum.cpp: nulls → dtypes → shapes →
attributes; no format or platform check. The rows are cut into blocks (_vocab_products' row_blocks)
that the cores take turns at, each core walking the vocabulary for its own blocks with its own
products, so a tile's epilogue finds the tile in that core's cache. The workspace holds the input's
operand (an fp32 copy for fp16, the bf16 product kernel's panels for bf16) and, per core at work, one
weight chunk's operand and one logits tile (with its rounding scratch); nothing is BT×V unless
vocabParallelLogitsOutOptional is requested.
"""
import numpy as np

from opemu.core import checks, dtypes, rounding, status
from opemu.core.op import AclnnOp
from opemu.core.workspace import Layout
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.matmul import vocab_parallel as vp
from opemu.ops.aclnn.matmul.vocab_products import for_dtype as products_for

FLOAT = dtypes.acl("FLOAT")


class FusedLinearOnlineMaxSum(AclnnOp):
    name = "aclnnFusedLinearOnlineMaxSum"
    inputs = ("input", "weight", "target")
    outputs = ("logitsMaxLocalOut", "sumExpLogitsLocalOut", "predictedLogitsLocalOut", "targetMaskOut",
               "maskedTargetOut", "vocabParallelLogitsOutOptional")
    products = "all the products of the seed's table (no platform check in phase 1)"

    def dtype_table(self):
        return {"input": vp.HALF_DTYPES, "weight": vp.HALF_DTYPES, "target": vp.TARGET_DTYPES,
                "logitsMaxLocalOut": [FLOAT], "sumExpLogitsLocalOut": [FLOAT], "predictedLogitsLocalOut": [FLOAT],
                "targetMaskOut": [dtypes.acl("UINT8")], "maskedTargetOut": vp.TARGET_DTYPES,
                "vocabParallelLogitsOutOptional": vp.HALF_DTYPES}

    def check(self, a):
        checks.not_null(a, "input", "weight", "target", "logitsMaxLocalOut", "sumExpLogitsLocalOut",
                        "predictedLogitsLocalOut", "targetMaskOut", "maskedTargetOut")
        checks.dtype_in("input", a.input, vp.HALF_DTYPES)
        checks.dtype_in("weight", a.weight, vp.HALF_DTYPES)
        checks.dtype_in("target", a.target, vp.TARGET_DTYPES)
        checks.same_dtype("input", a.input, "weight", a.weight)
        for name in ("logitsMaxLocalOut", "sumExpLogitsLocalOut", "predictedLogitsLocalOut"):
            checks.dtype_match(name, getattr(a, name), FLOAT)
        checks.dtype_match("targetMaskOut", a.targetMaskOut, dtypes.acl("UINT8"))
        checks.same_dtype("maskedTargetOut", a.maskedTargetOut, "target", a.target)
        vpl = a.vocabParallelLogitsOutOptional
        if vpl is not None:
            checks.same_dtype("vocabParallelLogitsOutOptional", vpl, "input", a.input)
        for name, ndim in (("input", 2), ("weight", 2), ("target", 1), ("logitsMaxLocalOut", 1),
                           ("sumExpLogitsLocalOut", 1), ("predictedLogitsLocalOut", 1), ("targetMaskOut", 1),
                           ("maskedTargetOut", 1)):
            checks.dim_is(name, getattr(a, name), ndim)
        m, n = a.input.shape[0], a.weight.shape[0]
        if n == 0:
            raise status.param_invalid("weight.size(0) should be greater than 0.")
        if a.input.shape[1] > 65534:
            raise status.param_invalid("input.size(1) should be less than or equal to 65534, but got %d"
                                       % a.input.shape[1])
        if a.weight.shape[1] != a.input.shape[1]:
            # the vendor passes (input, weight) to a message that names them the other way round
            raise status.param_invalid("weight.size(1) should be equal to input.size(1), but got weight %s, input %s"
                                       % (checks.shape_text(a.input.shape), checks.shape_text(a.weight.shape)))
        for name in ("target", "logitsMaxLocalOut", "sumExpLogitsLocalOut", "predictedLogitsLocalOut",
                     "maskedTargetOut"):
            checks.shape_is(name, getattr(a, name), (m,), checks.shape_text((m,)))
        checks.shape_is("targetMaskOut", a.targetMaskOut, ((m + 7) // 8,), checks.shape_text(((m + 7) // 8,)))
        if vpl is not None:
            checks.dim_is("vocabParallelLogitsOutOptional", vpl, 2)
            checks.shape_is("vocabParallelLogitsOutOptional", vpl, (m, n), checks.shape_text((m, n)))
        if a.vocabStartIndex < 0:
            raise status.param_invalid("vocabStartIndex should be greater than or equal to 0, but got %d"
                                       % a.vocabStartIndex)
        if a.vocabEndIndex < a.vocabStartIndex:
            raise status.param_invalid("vocabEndIndex should be greater than or equal to vocabStartIndex, but got "
                                       "vocabEndIndex %d, vocabStartIndex %d" % (a.vocabEndIndex, a.vocabStartIndex))
        a.scratch = self._layout(m, n, a.input.shape[1], dtypes.numpy_dtype(a.input.dtype))

    def _layout(self, m, n, h, dtype):
        if m == 0:
            return Layout()
        products = products_for(dtype)
        chunk = vp.tile(m, n)[0]
        blocks = products.row_blocks(m, n)
        lanes, rows = vp.lanes(blocks), max(r1 - r0 for r0, r1 in blocks)
        layout = products.layout(Layout(), m, h, chunk, lanes, rows, grads=False)
        return layout.add("round", (lanes, rows * chunk), rounding.scratch_dtype(dtype))

    def workspace(self, a):
        return a.scratch.nbytes

    def compute(self, a, v, workspace):
        m = a.input.shape[0]
        if m == 0:
            return
        target = v["target"]
        start, end = np.float32(a.vocabStartIndex), np.float32(a.vocabEndIndex)
        padded = np.zeros(-(-m // 8) * 8, target.dtype)
        padded[:m] = target
        as_float = padded.astype(np.float32)
        outside_padded = (as_float < start) | (as_float >= end)
        v["targetMaskOut"][...] = vp.pack_outside_bits(outside_padded)
        outside = outside_padded[:m]
        # in int64: vocabStartIndex need not fit an INT32 target (rows inside the shard fit either way)
        masked = np.where(outside, 0, target.astype(np.int64) - a.vocabStartIndex).astype(target.dtype)
        v["maskedTargetOut"][...] = masked

        half = dtypes.numpy_dtype(a.input.dtype)
        rounded = _products.line() != "950"  # matmul output in the input dtype (see the module doc)
        s = a.scratch.carve(workspace)
        n = a.weight.shape[0]
        target_column = vp.local_target_columns(masked, ~outside, n, self.name)
        vpl = v.get("vocabParallelLogitsOutOptional")
        running_max = np.full(m, -np.inf, np.float32)
        running_sum = np.zeros(m, np.float32)
        target_logit = np.zeros(m, np.float32)
        chunk = vp.tile(m, n)[0]
        products = products_for(half)
        blocks = products.row_blocks(m, n)
        lanes = vp.lanes(blocks)
        operands = products(s, v["input"], v["weight"], blocks, lanes)

        def walk(lane, meet):
            """Every chunk of lane `lane`'s row blocks, chunk by chunk: a row's statistics follow the vocabulary
            (and are its own: the lanes never need to meet)."""
            operands.input_share(lane)
            for c0 in range(0, n, chunk):
                c1 = min(n, c0 + chunk)
                operands.own_weight(lane, c0, c1)
                for r0, r1 in blocks[lane::lanes]:
                    logits = operands.tile(lane, r0, r1, c1 - c0)
                    operands.logits(lane, logits, r0, r1)
                    vp.online_step(logits, running_max[r0:r1], running_sum[r0:r1], half if rounded else None,
                                   s["round"][lane], target_column[r0:r1], c0, target_logit[r0:r1])
                    if vpl is not None:
                        np.copyto(vpl[r0:r1, c0:c1], logits, casting="unsafe")
        vp.by_lanes(walk, lanes)
        v["logitsMaxLocalOut"][...] = running_max
        v["sumExpLogitsLocalOut"][...] = running_sum
        v["predictedLogitsLocalOut"][...] = np.where(outside, np.float32(0), target_logit - running_max)
