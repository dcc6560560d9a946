"""Segment sums for state-space models (ops-math math/segsum, exp_segsum_grad): aclnnExpSegsum writes
out[..., i, j] = exp(x[j+1] + … + x[i]) for j ≤ i (1 on the diagonal) and 0 above it, summed as the kernel
does (a masked cumulative sum along i, then exp); aclnnExpSegsumBackward takes gradOutput and the forward
result (gradSelf) and gives gradInput[k] = Σ_{i ≥ k > j} gradOutput[i, j]·out[i, j]. fp16/bf16 in fp32."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes

SEGSUM = lambda: codes("FLOAT16 FLOAT BF16")


class ExpSegsum(AclnnOp):
    """nulls → self's dtype → out of self's → self 3-D or 4-D, out one dim more, of self's sizes and (…, T, T)."""
    name = "aclnnExpSegsum"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": SEGSUM(), "out": SEGSUM()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, SEGSUM())
        checks.dtype_match("self", a.self, a.out.dtype)
        n, m = a.self.ndim, a.out.ndim
        if n not in (3, 4):
            raise status.param_invalid("It is expected input size equals to 3 or 4, but got sizes %d." % n)
        if m != n + 1:
            raise status.param_invalid("It is expected output size is 1 large than input size, but got input size %d, "
                                       "output size %d." % (n, m))
        expected = tuple(a.self.shape) + (a.self.shape[-1],)
        if tuple(a.out.shape) != expected:
            raise status.param_invalid("It is expected output size equals to input size at index %d , but got input "
                                       "%s, output %s." % (n - 1, checks.shape_text(a.self.shape),
                                                           checks.shape_text(a.out.shape)))

    def compute(self, a, v, workspace):
        if v["self"].size == 0:
            return
        x = P.widened(v["self"])
        t = x.shape[-1]
        below = np.tril(np.ones((t, t), bool), -1)                        # j < i
        sums = np.cumsum(np.where(below, x[..., :, None], 0), axis=-2)   # Σ_{j < k ≤ i} x[k]
        with np.errstate(over="ignore"):
            P.store(v["out"], np.where(np.tril(np.ones((t, t), bool)), np.exp(sums), 0))


class ExpSegsumBackward(AclnnOp):
    """nulls → dtypes → gradInput of gradOutput's → gradOutput 4-D or 5-D, gradSelf of its shape, square last two
    dims, gradInput of gradOutput's shape without the last dim."""
    name = "aclnnExpSegsumBackward"
    inputs, outputs = ("gradOutput", "gradSelf"), ("gradInput",)

    def dtype_table(self):
        return {"gradOutput": SEGSUM(), "gradSelf": SEGSUM(), "gradInput": SEGSUM()}

    def check(self, a):
        checks.not_null(a, "gradOutput", "gradSelf", "gradInput")
        checks.dtype_in("gradOutput", a.gradOutput, SEGSUM())
        checks.dtype_in("gradSelf", a.gradSelf, SEGSUM())
        checks.dtype_match("gradOutput", a.gradOutput, a.gradInput.dtype)
        g = a.gradOutput
        if g.ndim not in (4, 5):
            raise status.param_invalid("It is expected dimNum of gradOutput equals to 4 or 5, but got sizes %d." % g.ndim)
        if g.shape[-1] != g.shape[-2]:
            raise status.param_invalid("It is expected size of the last two dimensions of gradOutput are equal, but "
                                       "got gradOutput: %s." % checks.shape_text(g.shape))
        if tuple(a.gradSelf.shape) != tuple(g.shape):
            raise status.param_invalid("It is expected shape of gradSelf equals to shape of gradOutput, but got "
                                       "gradSelf: %s, gradOutput %s." % (checks.shape_text(a.gradSelf.shape),
                                                                         checks.shape_text(g.shape)))
        expected = tuple(g.shape[:-1])
        checks.shape_is("gradInput", a.gradInput, expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        if v["gradInput"].size == 0:
            return
        g = P.widened(v["gradOutput"]) * P.widened(v["gradSelf"])
        t = g.shape[-1]
        g = np.where(np.tril(np.ones((t, t), bool), -1), g, 0)                 # only j < i depend on x
        from_end = np.flip(np.cumsum(np.flip(g, -2), axis=-2), -2)            # R[k, j] = Σ_{i ≥ k} G[i, j]
        P.store(v["gradInput"], np.sum(np.where(np.tril(np.ones((t, t), bool), -1), from_end, 0), axis=-1))
