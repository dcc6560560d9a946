"""aclnnSoftmax and aclnnLogSoftmax (ops-nn activation/softmax_v2, log_softmax_v2).

Phase 1 as softmax_v2's op_api: nulls → an empty self succeeds at once → dtypes of self and out →
dim in range → rank ≤ 8 and out's shape equal to self's. The kernel computes in fp32 (fp16/bf16
widened), writes self's dtype, and the op_api then casts that into out's dtype: two rounding points
when out's dtype differs from self's, as on the hardware."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn import _promotion as P

SOFTMAXABLE = P.per_product("FLOAT FLOAT16 DOUBLE", "BF16")


def softmax(x, axis, out=None, log=False):
    """Max-subtracted (log-)softmax along `axis`, into `out` when given (same dtype as x)."""
    shifted = np.subtract(x, np.max(x, axis=axis, keepdims=True), out=out)
    if log:
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        return np.subtract(shifted, np.log(total), out=shifted)
    np.exp(shifted, out=shifted)
    return np.divide(shifted, np.sum(shifted, axis=axis, keepdims=True), out=shifted)


class Softmax(AclnnOp):
    name = "aclnnSoftmax"
    inputs = ("self",)
    outputs = ("out",)
    log = False

    def dtype_table(self):
        return {"self": SOFTMAXABLE(), "out": SOFTMAXABLE()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        a.empty = a.self.is_empty()
        if a.empty:
            return
        checks.dtype_in("self", a.self, SOFTMAXABLE())
        checks.dtype_in("out", a.out, SOFTMAXABLE())
        n = max(a.self.ndim, 1)
        if not -n <= a.dim < n:
            raise status.param_invalid("provided dim %d not in the range of input size %d." % (a.dim, n))
        checks.max_dim("self", a.self)
        checks.same_shape("self", a.self, "out", a.out)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = v["self"], v["out"]
        axis = a.dim % max(x.ndim, 1) if x.ndim else None
        if x.dtype == out.dtype and x.dtype.kind == "f" and x.dtype.itemsize >= 4:
            softmax(x, axis, out=out, log=self.log)
            return
        result = softmax(x.astype(np.float32) if x.dtype.itemsize < 4 else x.copy(), axis, log=self.log)
        P.store(out, result.astype(x.dtype) if out.dtype != x.dtype else result)


class LogSoftmax(Softmax):
    name = "aclnnLogSoftmax"
    log = True
