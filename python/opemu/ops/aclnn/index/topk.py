"""aclnnTopk (ops-nn index/gather_elements op_api): the k largest (or smallest) values along dim
and their int64 indices.

Phase 1: nulls (self, valuesOut, indicesOut) → dim in range and 0 <= k <= size(dim) → dtypes
(values as self, indices INT64) → rank ≤ 8 → output shapes. NaN counts as the largest value, as in
PyTorch; among equal values the lower index comes first; results are always sorted (allowed
when sorted=false)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

BASE = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE"


def sortable():
    line = _products.line()
    if line == "950":
        return P.codes(BASE + " BF16 UINT64 UINT16 UINT32")
    return P.codes(BASE + " BF16") if line in ("A2", "A3") else P.codes(BASE)


class Topk(AclnnOp):
    name = "aclnnTopk"
    inputs = ("self",)
    outputs = ("valuesOut", "indicesOut")

    def dtype_table(self):
        return {"self": sortable(), "valuesOut": sortable(), "indicesOut": [dtypes.acl("INT64")]}

    def check(self, a):
        checks.not_null(a, "self", "valuesOut", "indicesOut")
        n = a.self.ndim
        if n == 0 and a.dim not in (0, -1):
            raise status.param_invalid("Dimension out of range (expected to be in range of [-1, 0], but got %d)" % a.dim)
        if n > 0 and not -n <= a.dim < n:
            raise status.param_invalid("Dimension out of range (expected to be in range of [-%d, %d],but got %d)"
                                       % (n, n - 1, a.dim))
        a.axis = a.dim % n if n else 0
        size = a.self.shape[a.axis] if n else 1
        if not 0 <= a.k <= size:
            raise status.param_invalid("Selected index k out of range (max num of self.size(%d) is %d,but k is %d)"
                                       % (n, size, a.k))
        checks.dtype_in("self", a.self, sortable())
        checks.dtype_match("valuesOut", a.valuesOut, a.self.dtype)
        checks.dtype_match("indicesOut", a.indicesOut, dtypes.acl("INT64"))
        checks.max_dim("self", a.self)
        expected = tuple(a.self.shape[:a.axis]) + (a.k,) + tuple(a.self.shape[a.axis + 1:]) if n else ()
        for name in ("valuesOut", "indicesOut"):
            t = getattr(a, name)
            if tuple(t.shape) != expected:
                raise status.param_invalid("Expected %s to have shape %s, but got %s."
                                           % (name, checks.shape_text(expected), checks.shape_text(t.shape)))

    def compute(self, a, v, workspace):
        x = v["self"]
        if a.k == 0 or x.size == 0:
            return
        if x.ndim == 0:
            P.store(v["valuesOut"], x)
            v["indicesOut"][...] = 0
            return
        order = np.argsort(_sort_key(x, a.largest), axis=a.axis, kind="stable")
        chosen = np.take(order, np.arange(a.k), axis=a.axis)
        P.store(v["indicesOut"], chosen)
        P.store(v["valuesOut"], np.take_along_axis(x, chosen, axis=a.axis))


def _sort_key(x, largest):
    """An ascending key whose stable order is topk's: NaN largest, bitwise-not for descending ints
    (monotonic and overflow-free, unlike negation)."""
    if x.dtype.kind in "fV":
        key = x.astype(np.float64)
        key[np.isnan(key)] = np.inf
        return -key if largest else key
    key = x if x.dtype.kind == "u" else x.astype(np.int64)
    return ~key if largest else key
