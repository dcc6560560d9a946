"""aclnnFusedLinearCrossEntropyLossGrad: the backward of vocab-parallel linear + cross-entropy
(reference §4.2; ops-nn matmul/fused_linear_cross_entropy_loss_grad; seed 000).

    G = softmax                                              # high-performance mode (softmax given)
    G = exp(input @ weight.T - logitsMax) * (1 / sumExpLogits)   # memory-saving mode (softmax null)
    G[i, maskedTarget[i]] -= 1      where bit i of targetMask is 0 (the target is in this shard)
    G = round_to_input_dtype(G * grad[:, None])              # the kernel casts G before both matmuls
    inputGradOut  = round(G @ weight)        weightGradOut = round(G.T @ input)   # fp32 accumulation

Doc disagreements (the kernel wins): the high-performance formula writes softmax·weightᵀ (the
shapes only work as G @ weight); the table gives weightGradOut as [V, BT] (the code checks
[V, H]) and targetMask as UINT8 only (BOOL is accepted too). The kernel overwrites the softmax
input in place as scratch; opemu leaves it intact (the reference allows either).

Memory: neither mode holds the BT×V matrix. The vocabulary is walked in chunks of VOCAB_CHUNK
columns (HIGH_PERFORMANCE_WIDTH times that in high-performance mode or for bf16), by every core at once, each
core with its own row blocks (_vocab_parallel.by_lanes); the products are _vocab_products' (fp32
copies and OpenBLAS for fp16, the bf16 product kernel for bf16):
    the cores prepare the weight chunk's operands, half each; meet;
    each makes G for its row blocks (the logits product in memory-saving mode, then the elementwise
    steps as one C pass per row, _vocab_parallel.gradient_tile) and adds G @ weight into its rows of
    the fp32 input gradient; meet;
    each makes its share of the chunk's columns of weightGrad = Gᵀ @ input, over all rows at once
    (fixed shares: the bits do not depend on the thread count), and rounds them into weightGradOut.
Every scratch buffer lives in the workspace phase 1 sizes from (BT, V, H), the dtype and the mode
(_vocab_products' layouts), 24.6 MiB at BT = 2048, H = 1024, V = 32000 in bf16 memory-saving mode.
Accumulation follows a fixed order, so results are deterministic.
"""
import numpy as np

from opemu.core import checks, dtypes, rounding, status
from opemu.core.op import AclnnOp, soc
from opemu.core.workspace import Layout
from opemu.ops.aclnn.matmul import vocab_parallel as vp
from opemu.ops.aclnn.matmul.vocab_products import for_dtype as products_for

FLOAT = dtypes.acl("FLOAT")
MASK_DTYPES = [dtypes.acl("BOOL"), dtypes.acl("UINT8")]
SUPPORTED_SOCS = ("Ascend910B", "Ascend910_93", "Ascend950")


class FusedLinearCrossEntropyLossGrad(AclnnOp):
    name = "aclnnFusedLinearCrossEntropyLossGrad"
    inputs = ("grad", "input", "weight", "targetMask", "maskedTarget", "logitsMaxOptional", "sumExpLogitsOptional",
              "softmaxOptional")
    outputs = ("inputGradOut", "weightGradOut")
    products = "Atlas A2, Atlas A3, Ascend 950 (the seed's table lists A2 and A3)"

    def dtype_table(self):
        return {"grad": [FLOAT], "input": vp.HALF_DTYPES, "weight": vp.HALF_DTYPES, "targetMask": MASK_DTYPES,
                "maskedTarget": vp.TARGET_DTYPES, "logitsMaxOptional": [FLOAT], "sumExpLogitsOptional": [FLOAT],
                "softmaxOptional": [FLOAT], "inputGradOut": vp.HALF_DTYPES, "weightGradOut": vp.HALF_DTYPES}

    def check(self, a):
        softmax = a.softmaxOptional
        if softmax is None and (a.logitsMaxOptional is None or a.sumExpLogitsOptional is None):
            raise status.param_nullptr(
                "softmaxOptional can not be nullptr when logitsMaxOptional or sumExpLogitsOptional is nullptr")
        checks.not_null(a, "grad", "input", "weight", "targetMask", "maskedTarget", "inputGradOut", "weightGradOut")
        # when softmax is given, logitsMax and sumExpLogits are not read, so not checked either
        statistics = ["softmaxOptional"] if softmax is not None else ["logitsMaxOptional", "sumExpLogitsOptional"]
        table = self.dtype_table()
        checked = ["grad", "input", "weight", "targetMask", "maskedTarget"] + statistics
        for name in checked:
            checks.dtype_in(name, getattr(a, name), table[name])
        for name in ("weight", "inputGradOut", "weightGradOut"):
            checks.same_dtype("input", a.input, name, getattr(a, name))
        for name in checked + ["inputGradOut", "weightGradOut"]:
            checks.nd_format(name, getattr(a, name))
        if a.labelSmoothing != 0:
            raise status.param_invalid(
                "aclnnFusedLinearCrossEntropyLossGrad currently only support labelSmoothing equals 0.")
        dims = dict(grad=1, input=2, weight=2, targetMask=1, maskedTarget=1, softmaxOptional=2, logitsMaxOptional=1,
                    sumExpLogitsOptional=1)
        for name in ["grad", "input", "weight", "targetMask", "maskedTarget"] + statistics:
            checks.dim_is(name, getattr(a, name), dims[name])
        checks.dim_is("inputGradOut", a.inputGradOut, 2)
        checks.dim_is("weightGradOut", a.weightGradOut, 2)
        bt, h, v = a.grad.shape[0], a.input.shape[1], a.weight.shape[0]
        if a.input.shape[0] != bt:
            raise status.param_invalid("input.size(0) should be equal to grad.size(0)")
        if v < 128 and softmax is not None:
            raise status.param_invalid("weight.size(0) < 128 is not supported")
        if a.weight.shape[1] != h:
            raise status.param_invalid("weight.size(1) should be equal to input.size(1)")
        if a.targetMask.dtype == dtypes.acl("BOOL"):
            if a.targetMask.shape[0] != bt:
                raise status.param_invalid(
                    "targetMask.size(0) should be equal to grad.size(0) when targetMask is in BOOL")
        elif a.targetMask.shape[0] * 8 < bt:
            raise status.param_invalid(
                "targetMask.size(0) * 8 should not be less than grad.size(0) when targetMask is in UINT8")
        if a.maskedTarget.shape[0] != bt:
            raise status.param_invalid("maskedTarget.size(0) should be equal to grad.size(0)")
        if softmax is not None:
            checks.shape_is("softmaxOptional", softmax, (bt, v), checks.shape_text((bt, v)))
        else:
            checks.shape_is("logitsMaxOptional", a.logitsMaxOptional, (bt,), checks.shape_text((bt,)))
            checks.shape_is("sumExpLogitsOptional", a.sumExpLogitsOptional, (bt,), checks.shape_text((bt,)))
        checks.shape_is("inputGradOut", a.inputGradOut, (bt, h), checks.shape_text((bt, h)))
        checks.shape_is("weightGradOut", a.weightGradOut, (v, h), checks.shape_text((v, h)))
        a.skip = a.input.is_empty() or a.weight.is_empty()
        if not a.skip and not soc().startswith(SUPPORTED_SOCS):
            raise status.runtime_error("Current platform is not supported")
        high_performance = softmax is not None
        a.scratch = Layout() if a.skip else self._layout(bt, v, h, dtypes.numpy_dtype(a.input.dtype), high_performance)

    def _layout(self, bt, v, h, dtype, high_performance):
        products = products_for(dtype)
        chunk = _chunk(bt, v, high_performance, products)
        blocks = products.row_blocks(bt, v)
        lanes, rows = vp.lanes(blocks), max(r1 - r0 for r0, r1 in blocks)
        layout = Layout().add("input_grad", (bt, h), np.float32)
        products.layout(layout, bt, h, chunk, lanes, rows, grads=True, logits=not high_performance)
        return layout.add("round", (lanes, min(rows, vp.SLAB_ROWS) * chunk), rounding.scratch_dtype(dtype))

    def workspace(self, a):
        return a.scratch.nbytes

    def compute(self, a, v, workspace):
        if a.skip:
            return
        bt, vocab = a.grad.shape[0], a.weight.shape[0]
        half = dtypes.numpy_dtype(a.input.dtype)
        s = a.scratch.carve(workspace)
        dx = s["input_grad"]
        dx[...] = 0
        grad = v["grad"].astype(np.float32)
        inside = ~vp.outside_shard(v["targetMask"], bt)
        target_column = vp.local_target_columns(v["maskedTarget"], inside, vocab, self.name)
        softmax = v.get("softmaxOptional")
        row_max = reciprocal = None   # high-performance mode reads neither
        if softmax is None:
            row_max = v["logitsMaxOptional"].astype(np.float32)
            reciprocal = np.float32(1) / v["sumExpLogitsOptional"]
        products = products_for(half)
        chunk = _chunk(bt, vocab, softmax is not None, products)
        blocks = products.row_blocks(bt, vocab)
        lanes = vp.lanes(blocks)
        operands = products(s, v["input"], v["weight"], blocks, lanes)

        def walk(lane, meet):
            """Chunk by chunk: the lane's share of the weight chunk's operands; G and dx for its row blocks; once
            every lane's G is whole, its share of the chunk's dw = Gᵀ @ input (over all rows at once)."""
            operands.input_share(lane)
            for c0 in range(0, vocab, chunk):
                c1 = min(vocab, c0 + chunk)
                operands.weight_share(lane, c0, c1, logits=softmax is None)
                meet()   # the chunk's operands whole; and every lane is done with the previous chunk's G
                for r0, r1 in blocks[lane::lanes]:
                    g = operands.tile(lane, r0, r1, c1 - c0)
                    if softmax is None:
                        operands.logits(lane, g, r0, r1)
                    vp.gradient_tile(g, None if softmax is None else softmax[r0:r1, c0:c1],
                                     None if row_max is None else row_max[r0:r1],
                                     None if reciprocal is None else reciprocal[r0:r1],
                                     target_column[r0:r1] - c0, grad[r0:r1],
                                     half, s["round"][lane])
                    operands.add_input_grad(lane, dx[r0:r1], g, r0, r1)
                meet()   # G whole
                for p0, p1 in operands.weight_grad_shares(c1 - c0)[lane::lanes]:
                    operands.weight_grad(lane, p0, p1, v["weightGradOut"][c0 + p0:c0 + p1])
        vp.by_lanes(walk, lanes)
        np.copyto(v["inputGradOut"], dx, casting="unsafe")


# High-performance mode makes no logits and its app holds the BT×V softmax already, so a few MiB more of workspace
# are nothing to it: its chunks are this many times wider, which halves what each chunk costs the GEMMs (dx's adds
# into its accumulator, dw's packing of the whole input): 1.19 -> 1.11x its two GEMMs (bench, 4 paired runs).
# Memory-saving mode keeps VOCAB_CHUNK with fp16 operands, within its 25 MiB; with bf16 operands (_vocab_products'
# Paired) its buffers are small enough for the wide chunks too.
HIGH_PERFORMANCE_WIDTH = 2


def _chunk(bt, vocab, high_performance, products):
    chunk = vp.tile(bt, vocab)[0]
    wide = high_performance or products.wide_chunks
    return min(vocab, chunk * HIGH_PERFORMANCE_WIDTH) if wide else chunk
