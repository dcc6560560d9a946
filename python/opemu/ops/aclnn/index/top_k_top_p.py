"""aclnnApplyTopKTopP (ops-nn index/apply_top_k_top_p_with_sorted op_api): the top-k and top-p (nucleus) filter a
sampler applies to logits (vLLM's apply_top_k_top_p).

    per row b: sort ascending (stable); keep the values ≥ the k[b]-th largest; softmax what is kept, add up the
    probabilities from the smallest; drop the positions whose running sum is ≤ 1 − p[b] (never the largest);
    out = logits with every dropped position set to −inf

p (FLOAT/FLOAT16/BF16, logits' dtype) and k (INT32) are per row; either may be null. Both null: the op_api logs
"should not be nullptr at the same time" and goes on, and nothing is filtered. A last dimension of 1 is copied.
The softmax and the running sum are fp32 (the kernel's). A k outside [1, V] is taken as V (keep every value)
when larger and as 1 when smaller: the kernel reads sortedValue[V − k], which only those bounds keep inside the
row."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

DTYPES = P.codes("FLOAT FLOAT16 BF16")
K_DTYPES = P.codes("INT32")
LINES = ("A2", "A3", "950")


class ApplyTopKTopP(AclnnOp):
    name = "aclnnApplyTopKTopP"
    inputs = ("logits", "p", "k")
    outputs = ("out",)
    products = _products.describe(LINES)

    def dtype_table(self):
        return {"logits": DTYPES, "p": DTYPES, "k": K_DTYPES, "out": DTYPES}

    def check(self, a):
        checks.not_null(a, "logits", "out")
        logits, p, k = a.logits, a.p, a.k
        checks.dtype_in("logits", logits, DTYPES)
        if p is not None:
            checks.dtype_in("p", p, DTYPES)
        if k is not None:
            checks.dtype_in("k", k, K_DTYPES)
        checks.dtype_in("out", a.out, DTYPES)
        if p is not None:
            checks.dtype_match("p", p, logits.dtype)
        checks.dtype_match("out", a.out, logits.dtype)
        checks.dim_is("logits", logits, 2)
        checks.same_shape("out", a.out, "logits", logits)
        for name, t in (("p", p), ("k", k)):
            if t is not None:
                checks.dim_is(name, t, 1)
        for name, t in (("p", p), ("k", k)):
            if t is not None and t.shape[0] != logits.shape[0]:
                raise status.param_invalid("expected %s.size(0) is equal to logits.size(0), but got %d."
                                           % (name, t.shape[0]))
        for name in ("logits", "p", "k", "out"):
            t = getattr(a, name)
            if t is not None and t.format != dtypes.ACL_FORMAT["ACL_FORMAT_ND"]:
                raise status.param_invalid("%s format only support ND" % name)
        _products.check_supported(self.name, LINES)
        a.empty = logits.is_empty() or (p is not None and p.is_empty()) or (k is not None and k.is_empty())

    def compute(self, a, v, workspace):
        if a.empty:
            return
        logits = v["logits"]
        rows, width = logits.shape
        if width == 1 or (v.get("p") is None and v.get("k") is None):
            np.copyto(v["out"], logits)
            return
        values = np.asarray(logits, np.float32)
        order = np.argsort(values, axis=1, kind="stable")
        ordered = np.take_along_axis(values, order, axis=1)
        dropped = np.zeros(ordered.shape, bool)
        if v.get("k") is not None:
            k = np.clip(np.asarray(v["k"], np.int64), 1, width)
            threshold = ordered[np.arange(rows), width - k][:, None]
            dropped |= ordered < threshold
        if v.get("p") is not None:
            kept = np.where(dropped, -np.inf, ordered)
            shifted = np.exp(kept - kept[:, -1:])
            probabilities = shifted / shifted.sum(axis=1, keepdims=True, dtype=np.float32)
            running = np.cumsum(probabilities, axis=1, dtype=np.float32)
            top_p = np.asarray(v["p"], np.float32)[:, None]
            nucleus = running <= np.float32(1) - top_p
            nucleus[:, -1] = False
            dropped |= nucleus
        out = np.array(logits, copy=True)
        positions = np.zeros(dropped.shape, bool)
        np.put_along_axis(positions, order, dropped, axis=1)
        out[positions] = -np.inf
        np.copyto(v["out"], out)
