"""aclnnSoftmax and aclnnLogSoftmax (ops-nn activation/softmax_v2, log_softmax_v2).

Phase 1 as softmax_v2's op_api: nulls → an empty self succeeds at once → dtypes of self and out →
dim in range → rank ≤ 8 and out's shape equal to self's. The kernel computes in fp32 (fp16/bf16
widened), writes self's dtype, and the op_api then casts that into out's dtype: two rounding points
when out's dtype differs from self's, as on the hardware."""
import functools

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import rowwise as _rowwise

SOFTMAXABLE = P.per_product("FLOAT FLOAT16 DOUBLE", "BF16")


def softmax_rows(x, out, log, self_dtype):
    """(Log-)softmax of each row of x (rows, cols) into out: max-subtracted, in fp32, rounded
    through self's dtype when out's differs."""
    _rowwise.each_block(x.shape[0], x.shape[1], _softmax_block(x, out, log, self_dtype))


def _softmax_block(x, out, log, self_dtype):
    """softmax_rows' function(lo, hi) of a block of rows."""
    direct = x.dtype == np.float32 and out.dtype == np.float32

    def block(lo, hi):
        xb = _rowwise.in_fp32(x[lo:hi], 1)
        work = out[lo:hi] if direct else _rowwise.scratch(hi - lo, x.shape[1])
        np.subtract(xb, np.maximum.reduce(xb, axis=1, keepdims=True), out=work)
        if log:
            exps = np.exp(work, out=_rowwise.scratch(hi - lo, x.shape[1], 2))
            work -= np.log(_rowwise.row_sums(exps))[:, None]
        else:
            np.exp(work, out=work)
            work *= 1 / _rowwise.row_sums(work)[:, None]
        if not direct:
            P.store(out[lo:hi], work if out.dtype == self_dtype else work.astype(self_dtype))

    return block


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
        if x.ndim == 0:
            x, out = x.reshape(1), out.reshape(1)
        axis = a.dim % x.ndim
        if axis != x.ndim - 1:
            x, out = np.moveaxis(x, axis, -1), np.moveaxis(out, axis, -1)
        rows_out = _rowwise.RowsOut(out, 1)
        softmax_rows(_rowwise.rows_in(x, 1), rows_out.rows, self.log, x.dtype)
        rows_out.finish()

    def prepare(self, a, v):
        """compute's one block over the last axis, when self and out are rows without copies."""
        x, out = v["self"], v["out"]
        if a.empty or x.ndim == 0 or a.dim % x.ndim != x.ndim - 1:
            return None
        rows, rows_out = _rowwise.as_rows(x, 1), _rowwise.as_rows(out, 1)
        if rows is None or rows_out is None or not _rowwise.one_block(*rows.shape):
            return None
        return functools.partial(_softmax_block(rows, rows_out, self.log, x.dtype), 0, rows.shape[0])


class LogSoftmax(Softmax):
    name = "aclnnLogSoftmax"
    log = True
