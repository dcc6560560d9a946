"""The reduction family (ops-math math/reduce_sum, reduce_mean, arg_max_v2; ops-nn norm/lp_norm_v2): one
class, one subclass per operator.

A subclass says how the operator names its axes (an aclIntArray or one int64), its keep-dims and
dtype parameters, the dtype list and the NumPy kernel. Phase 1: nulls → dtypes → axes in range
and distinct → out shape. fp16/bf16 accumulate in fp32 and round once into out (NumPy would sum
bf16 in bf16); an empty axis list reduces every axis, as the vendor's does."""
import functools

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import rowwise as _rowwise


def wrap_dim(dim, ndim):
    """Dims count from the end when negative; a 0-d tensor has the range of a 1-d one."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise status.param_invalid("Dimension out of range (expected to be in range of [%d, %d], but got %d)."
                                   % (-bound, bound - 1, dim))
    return dim % bound


class Reduction(AclnnOp):
    inputs = ("self",)
    outputs = ("out",)
    axes = "dim"          # the parameter naming the axes
    keep = "keepdim"      # the keep-dims parameter
    dtype_param = None    # the result-dtype parameter, if any
    allowed = None        # callable → dtype list of self
    out_allowed = None    # callable → dtype list of out (default: allowed)
    not_null = ("self", "out")

    def dtype_table(self):
        return {"self": self.allowed(), "out": (self.out_allowed or self.allowed)()}

    def check(self, a):
        checks.not_null(a, *self.not_null)
        checks.dtype_in("self", a.self, self.allowed())
        checks.dtype_in("out", a.out, (self.out_allowed or self.allowed)())
        if self.dtype_param is not None and getattr(a, self.dtype_param) != a.out.dtype:
            raise status.param_invalid("The dtype %s should be the same as out's dtype %s."
                                       % (dtypes.serial_name(getattr(a, self.dtype_param)),
                                          dtypes.serial_name(a.out.dtype)))
        self.check_more(a)
        checks.max_dim("self", a.self)
        given = getattr(a, self.axes)
        given = (given,) if isinstance(given, int) else tuple(given or ())
        ndim = a.self.ndim
        a.axes = tuple(sorted({wrap_dim(d, ndim) for d in given})) if given else tuple(range(ndim))
        if len(a.axes) != len(given) and given:
            raise status.param_invalid("Dim appears multiple times in the list of dims.")
        a.axes = tuple(d for d in a.axes if d < ndim)
        keep = getattr(a, self.keep)
        shape = tuple(1 if i in a.axes else n for i, n in enumerate(a.self.shape) if keep or i not in a.axes)
        P.out_shape_is(a.out, shape)
        a.keep = bool(keep)

    def check_more(self, a):
        """Row-specific checks between the dtypes and the axes."""

    def rows_reduce(self, a, x, out):
        rows = _rowwise.rows_in(x, len(a.axes))
        result = _rowwise.RowsOut(out, out.ndim)  # one value per row, whatever out's shape
        block = self._rows_block(rows, result.rows)
        if rows.dtype == np.float32 and _rowwise.sums_in_c(rows):   # the kernel shares the rows among the cores
            block(0, rows.shape[0])
        else:
            _rowwise.each_block(rows.shape[0], rows.shape[1], block, one_pass=rows.dtype == np.float32)
        result.finish()

    def _rows_block(self, rows, result):
        """rows_reduce's function(lo, hi) of a block of rows."""
        def block(lo, hi):
            P.store(result[0, lo:hi], self.row_kernel(_rowwise.in_fp32(rows[lo:hi])))
        return block

    def prepare(self, a, v):
        """compute's one block of a trailing-axis reduction, when self and out are rows without copies."""
        x, out = v["self"], v["out"]
        if self.row_kernel is None or a.out.is_empty() or not _rows_apply(a, x, out):
            return None
        rows, result = _rowwise.as_rows(x, len(a.axes)), _rowwise.as_rows(out, out.ndim)
        if rows is None or result is None or not _rowwise.one_block(*rows.shape):
            return None
        return functools.partial(self._rows_block(rows, result), 0, rows.shape[0])

    row_kernel = None     # (fp32 block of rows) → per-row fp32 result, for trailing-axis reductions

    def compute(self, a, v, workspace):
        if a.out.is_empty():
            return
        x = v["self"]
        if self.row_kernel is not None and _rows_apply(a, x, v["out"]):
            self.rows_reduce(a, x, v["out"])
            return
        ct = np.dtype(np.float32) if x.dtype.itemsize < 4 and x.dtype.kind in "fV" else None
        P.store(v["out"], self.reduce(a, x if ct is None else x.astype(ct), v["out"]))


def _rows_apply(a, x, out):
    """Trailing axes of a float tensor into a float out of at most 4 bytes: the row-block path."""
    trailing = tuple(range(x.ndim - len(a.axes), x.ndim))
    small_float = all(t.dtype.kind in "fV" and t.dtype.itemsize <= 4 for t in (x, out))
    return small_float and 0 < len(a.axes) < x.ndim and a.axes == trailing


def accumulator(out_dtype):
    """The dtype a sum into out accumulates in: fp32 for fp16/bf16 data, out's own otherwise."""
    if out_dtype.kind in "fV" and out_dtype.itemsize < 4:
        return np.float32
    return out_dtype
