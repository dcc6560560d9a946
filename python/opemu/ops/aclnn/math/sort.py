"""aclnnSort and aclnnArgsort (ops-math math/sort): values and INT64 indices along one dim.

Every sort is stable (the hardware's unstable sort may order equal keys either way; a stable one is one of its
results and deterministic). NaN sorts above every number, so first when descending (PyTorch's order);
descending keeps equal keys in their original order. fp16/bf16 keys compare in fp32 (exact)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_line

SORT_SELF = per_line("FLOAT16 FLOAT BF16 UINT8 INT8 INT16 INT32 INT64 BOOL",
                     regbase="FLOAT16 FLOAT BF16 UINT8 INT8 INT16 INT32 INT64 UINT16 UINT32 UINT64 BOOL")
SORT_VALUES = per_line("FLOAT16 FLOAT DOUBLE UINT8 INT8 INT16 INT32 INT64 BF16 BOOL",
                       regbase="FLOAT16 FLOAT BF16 UINT8 INT8 INT16 INT32 INT64 UINT16 UINT32 UINT64 BOOL")
ARGSORT = per_line("FLOAT FLOAT16 INT8 INT16 INT32 INT64 UINT8", a2="FLOAT FLOAT16 INT8 INT16 INT32 INT64 UINT8 BF16",
                   regbase="FLOAT16 FLOAT BF16 UINT8 INT8 INT16 INT32 INT64 UINT16 UINT32 UINT64")
INT64 = lambda: codes("INT64")


def sort_order(x, axis, descending):
    """Stable indices sorting x along axis (NaN largest)."""
    keys = P.widened(x)
    if not descending:
        return np.argsort(keys, axis=axis, kind="stable")
    n = keys.shape[axis]
    backwards = np.argsort(np.flip(keys, axis), axis=axis, kind="stable")   # stable ascending of the reversed row
    return np.flip(n - 1 - backwards, axis)


class Sort(AclnnOp):
    """nulls → dtypes (self, valuesOut, indicesOut INT64) → dim → shapes."""
    name = "aclnnSort"
    inputs, outputs = ("self",), ("valuesOut", "indicesOut")

    def dtype_table(self):
        return {"self": SORT_SELF(), "valuesOut": SORT_VALUES(), "indicesOut": INT64()}

    def check(self, a):
        checks.not_null(a, "self", "valuesOut", "indicesOut")
        checks.dtype_in("self", a.self, SORT_SELF())
        checks.dtype_in("valuesOut", a.valuesOut, SORT_VALUES())
        checks.dtype_in("indicesOut", a.indicesOut, INT64())
        ndim = a.self.ndim
        low, high = min(-ndim, ndim - 1), max(-ndim, ndim - 1)
        if not low <= a.dim <= high:
            raise status.param_invalid("dim should be in range [%d, %d]." % (low, high))
        checks.same_shape("self", a.self, "valuesOut", a.valuesOut)
        checks.same_shape("self", a.self, "indicesOut", a.indicesOut)
        a.axis = a.dim % max(ndim, 1)

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        x = v["self"].reshape(1) if v["self"].ndim == 0 else v["self"]
        order = sort_order(x, a.axis, a.descending)
        P.store(v["valuesOut"], np.take_along_axis(x, order, a.axis).reshape(v["valuesOut"].shape))
        P.store(v["indicesOut"], order.reshape(v["indicesOut"].shape))


class Argsort(AclnnOp):
    """nulls → dim (and the sorted dim's size) → dtypes → rank and shape."""
    name = "aclnnArgsort"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": ARGSORT(), "out": INT64()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        ndim = a.self.ndim
        low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
        if not low <= a.dim <= high:
            raise status.param_invalid("dim must be within the range of [%d, %d], but it is %d." % (low, high, a.dim))
        if ndim:
            size = a.self.shape[a.dim % ndim]
            if size > 2 ** 31 - 1:
                raise status.param_invalid("the dim being sorted can not have more than INT_MAX elements")
            if size == 1 and a.self.dtype == P.BF16 and not _products.is_regbase():
                raise status.param_invalid("The sort axis value is not support 1 when input type is BF16.")
        checks.dtype_in("self", a.self, ARGSORT())
        checks.dtype_in("out", a.out, INT64())
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        checks.same_shape("self", a.self, "out", a.out)
        a.axis = a.dim % max(ndim, 1)

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        x = v["self"].reshape(1) if v["self"].ndim == 0 else v["self"]
        P.store(v["out"], sort_order(x, a.axis, a.descending).reshape(v["out"].shape))
