"""aclnnScatter, aclnnScatterValue, aclnnScatterAdd, aclnnScatterReduce and their Inplace forms (ops-nn
index/scatter_elements_v2 op_api, aclnn_scatter.cpp): PyTorch's scatter_ / scatter_reduce_.

    out = self; for every position p of index: q = p with q[dim] = index[p];
    out[q] = src[p]  (reduce 0, none) | out[q] += src[p]  (1, add) | *= (2, mul) | max (3) | min (4) | mean (5)

A reduce outside 0..5 is `none` for Scatter and ScatterValue (the op_api logs a warning) and an error for
ScatterReduce. ScatterAdd is add with includeSelf. Without includeSelf (ScatterReduce) the old value of a
position some index reaches takes no part. ScatterValue scatters the scalar converted to self's dtype.

Phase 1, as ExecScatterBase runs it: (ScatterReduce on Atlas A2/A3: only FLOAT, add, includeSelf — first
of all) → reduce in 0..5 (ScatterReduce) → nulls → dtypes (self in the product's list, src and out of
self's dtype, index INT32/INT64 unless empty) → an empty index copies self to out and stops → self, index
and src of one rank (the 950 counts a 0-d tensor as 1-d) → out of self's shape (a 0-d out is not compared,
and then the copy into it fails) → index no larger than src, and than self apart from dim → rank ≤ 8 → dim
in range. ScatterValue checks its nulls in one message and a complex value against a real self first.

Duplicates and order (common/addressing.py): positions are updated in index order, row-major, so with
reduce none the last write wins; sums and products of fp16/bf16 data accumulate in fp32 and round once.
An index outside [0, self.size(dim)) addresses memory past the row, as the kernel does."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import addressing

INDEX_DTYPES = P.codes("INT64 INT32")
REDUCTIONS = ("none", "add", "mul", "max", "min", "mean")
_BASE = "UINT8 INT8 INT16 INT32 INT64 BOOL FLOAT16 FLOAT DOUBLE COMPLEX64 COMPLEX128"


def self_dtypes():
    return P.codes(_BASE + " BF16") if _products.line() in ("A2", "A3", "950") else P.codes(_BASE)


class _ScatterBase(AclnnOp):
    """One form: `source` names the tensor scattered (or the aclScalar), `target` the tensor written."""
    source = "src"
    target = "out"
    self_name = "self"
    reduce_kind = "scatter"   # "scatter": any reduce (outside 0..5 is none); "reduce": 0..5 only; "add"
    products = "all (BF16 on A2/A3/950)"

    @property
    def inputs(self):
        return (self.self_name, "index") + ((self.source,) if self.source == "src" else ())

    @property
    def outputs(self):
        return (self.target,)

    def dtype_table(self):
        table = {self.self_name: self_dtypes(), "index": INDEX_DTYPES}
        if self.source == "src":
            table["src"] = self_dtypes()
        return table

    def check(self, a):
        x = getattr(a, self.self_name)
        if self.reduce_kind == "reduce":
            self._check_reduce_products(a, x)
            if not 0 <= a.reduce <= 5:
                raise status.param_invalid("reduce must be one of [0(none), 1(add), 2(mul), 3(max), 4(min), 5(mean)].")
        how = 1 if self.reduce_kind == "add" else a.reduce
        a.how = REDUCTIONS[how] if 0 <= how <= 5 else "none"
        a.include_self = getattr(a, "includeSelf", True)
        names = (self.self_name, "index", self.source) + (() if self.target == self.self_name else (self.target,))
        if self.source == "value":
            if any(getattr(a, n) is None for n in names):
                raise status.param_nullptr("self, index, value, out cannot be nullptr!")
            if a.value.dtype in P.COMPLEXES and x.dtype not in P.COMPLEXES:
                raise status.param_invalid("When value is COMPLEX, the data type of self must be COMPLEX.")
        else:
            checks.not_null(a, *names)
        out = getattr(a, self.target)
        checks.dtype_in("self", x, self_dtypes())
        if self.source == "src":
            checks.dtype_match("src", a.src, x.dtype)
        checks.dtype_match("out", out, x.dtype)
        a.empty_index = a.index.is_empty()
        if a.empty_index:
            self._copy_shape(x, out)
            return
        checks.dtype_in("index", a.index, INDEX_DTYPES)
        src_shape = a.index.shape if self.source == "value" else a.src.shape
        self._check_shapes(a, x, out, src_shape)

    @staticmethod
    def _check_reduce_products(a, x):
        if x is not None and _products.line() in ("A2", "A3"):
            how = REDUCTIONS[a.reduce] if 0 <= a.reduce <= 5 else "none"
            if not (x.dtype == P.FLOAT and how == "add" and a.includeSelf):
                raise status.param_invalid(
                    "scatter_reduce only supports dtype=float32, reduce=sum, include_self=true. Got dtype=%s, "
                    "reduce=%s, include_self=%d." % (dtypes.serial_name(x.dtype), how, 1 if a.includeSelf else 0))

    @staticmethod
    def _copy_shape(x, out):
        if out.shape != x.shape and out.numel() != x.numel():
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"], "viewCopy self failed!")

    def _check_shapes(self, a, x, out, src_shape):
        ranks = [x.ndim, a.index.ndim, len(src_shape)]
        if _products.is_regbase():
            ranks = [max(r, 1) for r in ranks]
        if len(set(ranks)) != 1:
            raise status.param_invalid("expect self, index, src have same number of dimensions.")
        if out.ndim:
            checks.same_shape("self", x, "out", out)
        elif x.numel() != 1:
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"], "viewCopy output failed!")
        n = x.ndim
        final = (a.dim + n if a.dim + n >= 0 else 0) if a.dim < 0 else min(a.dim, n - 1)
        index = a.index.shape
        if any(index[i] > src_shape[i] for i in range(min(len(index), len(src_shape)))):
            raise status.param_invalid("Expect index shape %s should be smaller than src shape %s in each dimension."
                                       % (checks.shape_text(index), checks.shape_text(src_shape)))
        if any(i != final and index[i] > x.shape[i] for i in range(min(len(index), n))):
            raise status.param_invalid("Apart from dimension %d, index shape %s should be smaller than self shape %s "
                                       "in each dimension." % (a.dim, checks.shape_text(index),
                                                               checks.shape_text(x.shape)))
        checks.max_dim("self", x)
        low, high = min(-n, n - 1), max(-n, n - 1)
        if not low <= a.dim <= high:
            raise status.param_invalid("dim must be in range [%d, %d]." % (low, high))
        a.axis = a.dim % max(n, 1)

    def compute(self, a, v, workspace):
        x, out = v[self.self_name], v[self.target]
        if out is not x:
            np.copyto(out, x.reshape(out.shape))
        if a.empty_index or out.size == 0 or v["index"].size == 0:
            return
        target = out.reshape(1) if out.ndim == 0 else out
        index = np.asarray(v["index"], np.int64)
        index = index.reshape(1) if index.ndim == 0 else index
        if self.source == "value":
            values = np.broadcast_to(a.value.as_type(target.dtype), index.shape)
        else:
            src = v["src"].reshape(1) if v["src"].ndim == 0 else v["src"]
            values = src[tuple(slice(0, k) for k in index.shape)]
        scatter_along(self.name, target, a.axis, index, values, a.how, a.include_self)


def scatter_along(op, target, axis, index, values, how, include_self=True):
    """target[p with p[axis] = index[p]] (how)= values[p] for every position p of index, in index order."""
    coordinates = list(np.indices(index.shape, sparse=True))
    coordinates[axis] = index
    size = target.shape[axis]
    what = addressing.describe(op, "index", index, size, axis)
    if how == "none":
        if not addressing.outside(index, size):
            target[tuple(coordinates)] = values
            return
        addressing.assign(target, coordinates, values, what)
        return
    addressing.reduce_at(target, coordinates, values, how, what, include_self)


def _form(name, self_name, target, source="src", reduce_kind="scatter"):
    return type(name[len("aclnn"):], (_ScatterBase,), dict(
        name=name, self_name=self_name, target=target, source=source, reduce_kind=reduce_kind,
        __module__=__name__))


Scatter = _form("aclnnScatter", "self", "out")
InplaceScatter = _form("aclnnInplaceScatter", "selfRef", "selfRef")
ScatterValue = _form("aclnnScatterValue", "self", "out", source="value")
InplaceScatterValue = _form("aclnnInplaceScatterValue", "selfRef", "selfRef", source="value")
ScatterAdd = _form("aclnnScatterAdd", "self", "out", reduce_kind="add")
ScatterReduce = _form("aclnnScatterReduce", "self", "out", reduce_kind="reduce")
InplaceScatterReduce = _form("aclnnInplaceScatterReduce", "selfRef", "selfRef", reduce_kind="reduce")
