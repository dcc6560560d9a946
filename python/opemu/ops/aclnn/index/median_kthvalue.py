"""aclnnMedian, aclnnMedianDim, aclnnNanMedian, aclnnNanMedianDim and aclnnKthvalue (ops-nn index/gather_v2 op_api,
aclnn_median.cpp and aclnn_kthvalue.cpp): PyTorch's median, nanmedian and kthvalue, which the vendor builds on a
stable sort.

    Median / MedianDim        the lower median (element (n − 1) // 2 of the sorted values); NaN sorts last and a
                              NaN anywhere makes the median NaN (its index: the first NaN's)
    NanMedian / NanMedianDim  the lower median of the values that are not NaN (NaN when all are)
    Kthvalue                  the k-th smallest (1-based) along dim
The index is the chosen element's position along dim in a stable ascending sort (the first of equal values). An
empty self gives NaN for the whole-tensor medians."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

INT64 = P.INT64


def _median_dtypes():
    base = "FLOAT FLOAT16 UINT8 INT8 INT16 INT32 INT64"
    return P.codes(base + " BF16") if _products.line() in ("A2", "A3", "950") else P.codes(base)


def _sort_key(x):
    """An ascending key with NaN last (float), for a stable argsort."""
    return x.astype(np.float64) if x.dtype.kind in "fV" else x


def _select(x, axis, position_of, nan_policy):
    """(values, indices) of the element `position_of(valid count)` of each sorted row along axis; nan_policy "median"
    (a NaN row gives its first NaN) or "ignore" (NaNs do not count)."""
    moved = np.moveaxis(x, axis, -1)
    key = _sort_key(moved)
    order = np.argsort(key, axis=-1, kind="stable")
    ordered = np.take_along_axis(moved, order, axis=-1)
    n = moved.shape[-1]
    if key.dtype.kind == "f":
        nans = np.isnan(key).sum(axis=-1)
    else:
        nans = np.zeros(moved.shape[:-1], np.int64)
    valid = n - nans if nan_policy == "ignore" else np.full(nans.shape, n)
    position = np.clip(position_of(valid), 0, max(n - 1, 0))
    if nan_policy == "median":
        position = np.where(nans > 0, n - nans, position)   # the first NaN in sorted order
    index = np.take_along_axis(order, position[..., None], axis=-1)[..., 0]
    values = np.take_along_axis(ordered, position[..., None], axis=-1)[..., 0]
    return values, index


def _check_median(a, name_out):
    checks.not_null(a, "self", name_out)
    allowed = _median_dtypes()
    checks.dtype_in("self", a.self, allowed)
    checks.dtype_in("valuesOut", getattr(a, name_out), allowed)
    checks.dtype_match("valuesOut", getattr(a, name_out), a.self.dtype)
    checks.max_dim("self", a.self)
    checks.max_dim("valuesOut", getattr(a, name_out))


class Median(AclnnOp):
    name = "aclnnMedian"
    inputs = ("self",)
    outputs = ("valuesOut",)
    out_name = "valuesOut"
    nan_policy = "median"

    def dtype_table(self):
        return {"self": _median_dtypes(), self.out_name: _median_dtypes()}

    def check(self, a):
        _check_median(a, self.out_name)
        out = getattr(a, self.out_name)
        if out.numel() != 1 and tuple(out.shape) != ():
            raise status.param_invalid("The out tensor's shape[%s] is not equal with inferOut shape[[]]."
                                       % checks.shape_text(out.shape))

    def compute(self, a, v, workspace):
        x = np.asarray(v["self"]).reshape(-1)
        out = v[self.out_name]
        if x.size == 0:
            out[...] = np.nan
            return
        values, _ = _select(x, 0, lambda valid: (valid - 1) // 2, self.nan_policy)
        if self.nan_policy == "ignore" and _sort_key(x).dtype.kind == "f" and np.isnan(_sort_key(x)).all():
            values = np.asarray(np.nan, x.dtype)
        out[...] = np.asarray(values).reshape(out.shape)


class NanMedian(Median):
    name = "aclnnNanMedian"
    outputs = ("out",)
    out_name = "out"
    nan_policy = "ignore"


class MedianDim(AclnnOp):
    name = "aclnnMedianDim"
    inputs = ("self",)
    outputs = ("valuesOut", "indicesOut")
    nan_policy = "median"

    def dtype_table(self):
        return {"self": _median_dtypes(), "valuesOut": _median_dtypes(), "indicesOut": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "valuesOut")
        if a.indicesOut is None:
            raise status.param_nullptr("indicesOut should not be null.")
        allowed = _median_dtypes()
        checks.dtype_in("self", a.self, allowed)
        checks.dtype_in("valuesOut", a.valuesOut, allowed)
        checks.dtype_match("valuesOut", a.valuesOut, a.self.dtype)
        if a.indicesOut.dtype != INT64:
            raise status.param_invalid("indicesOut dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(a.indicesOut.dtype), "op::DataType::DT_INT64"))
        n = a.self.ndim
        low, high = min(-n, n - 1), max(-n, n - 1)
        if not low <= a.dim <= high:
            raise status.param_invalid("dim should be in range [%d, %d]." % (low, high))
        for name in ("self", "valuesOut", "indicesOut"):
            checks.max_dim(name, getattr(a, name))
        expected = n if a.keepDim or n == 0 else n - 1
        checks.dim_is("valuesOut", a.valuesOut, expected)
        checks.dim_is("indicesOut", a.indicesOut, expected)
        a.axis = a.dim % max(n, 1)
        if n and a.self.dtype == P.BF16 and a.self.shape[a.axis] == 1:
            raise status.param_invalid("The dim axis value is not support 1 when input type is BF16.")

    def compute(self, a, v, workspace):
        x = np.asarray(v["self"])
        if x.size == 0 or v["valuesOut"].size == 0:
            return
        x = x.reshape(1) if x.ndim == 0 else x
        values, index = _select(x, a.axis, lambda valid: (valid - 1) // 2, self.nan_policy)
        v["valuesOut"][...] = values.reshape(v["valuesOut"].shape)
        v["indicesOut"][...] = index.reshape(v["indicesOut"].shape)


class NanMedianDim(MedianDim):
    name = "aclnnNanMedianDim"
    nan_policy = "ignore"


def _kth_dtypes():
    line = _products.line()
    base = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8"
    if line == "950":
        return P.codes(base + " BF16 UINT16 UINT32 UINT64")
    return P.codes(base + " BF16") if line in ("A2", "A3") else P.codes(base)


class Kthvalue(AclnnOp):
    name = "aclnnKthvalue"
    inputs = ("self",)
    outputs = ("valuesOut", "indicesOut")

    def dtype_table(self):
        return {"self": _kth_dtypes(), "valuesOut": _kth_dtypes(), "indicesOut": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "valuesOut", "indicesOut")
        n = a.self.ndim
        if n == 0 and a.dim not in (0, -1):
            raise status.param_invalid("The shape of input is invalid")
        if n > 0 and not -n <= a.dim < n:
            raise status.param_invalid("Dimension out of range (expected to be in range of [-%d, %d], but got %d)"
                                       % (n, n - 1, a.dim))
        a.axis = a.dim % n if n else 0
        size = a.self.shape[a.axis] if n else 1
        if not 0 < a.k <= size:
            raise status.param_invalid("Selected index k out or range (max num of self.size(%d) is %d, but k is %d)"
                                       % (n, size, a.k))
        checks.dtype_in("self", a.self, _kth_dtypes())
        checks.dtype_match("values", a.valuesOut, a.self.dtype)
        checks.dtype_match("indices", a.indicesOut, INT64)
        checks.max_dim("self", a.self)
        expected = tuple(a.self.shape[:a.axis]) + ((1,) if a.keepdim else ()) + tuple(a.self.shape[a.axis + 1:]) \
            if n else ()
        for name in ("valuesOut", "indicesOut"):
            t = getattr(a, name)
            if tuple(t.shape) != expected and not (t.numel() == 1 and int(np.prod(expected)) == 1):
                raise status.param_invalid("The out tensor's shape[%s] is not equal with inferOut shape[%s]."
                                           % (checks.shape_text(t.shape), checks.shape_text(expected)))

    def compute(self, a, v, workspace):
        x = np.asarray(v["self"])
        if x.size == 0:
            return
        x = x.reshape(1) if x.ndim == 0 else x
        values, index = _select(x, a.axis, lambda valid: np.full(valid.shape, a.k - 1), "sort")
        v["valuesOut"][...] = values.reshape(v["valuesOut"].shape)
        v["indicesOut"][...] = index.reshape(v["indicesOut"].shape)
