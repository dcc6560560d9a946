"""Counting and locating values (ops-math math/histogram_v2, bincount, search_sorted): aclnnHistc, aclnnBincount,
aclnnSearchSorted and aclnnSearchSorteds.

Histc is PyTorch's histc: `bins` equal bins over [min, max] (min == max: the data's own range, widened by 1
when that is a single value), values outside ignored, max itself in the last bin. Bincount counts each
non-negative value (weighted sums when weights are given) into out's leading elements; the length PyTorch
gives is max(self) + 1 or minlength, whichever is larger, and out is that long when the app sized it so.
SearchSorted is numpy.searchsorted per row (left or right), through `sorter` when given."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes

HISTC = lambda: codes("FLOAT FLOAT16 INT64 INT32 INT16 INT8 UINT8")
BINCOUNT_SELF = lambda: codes("INT8 INT16 INT32 INT64 UINT8")
BINCOUNT_WEIGHTS = lambda: codes("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL")
BINCOUNT_OUT = lambda: codes("FLOAT DOUBLE INT32 INT64")
SEARCH = lambda: codes("FLOAT16 FLOAT INT16 INT8 UINT8 INT32 INT64 DOUBLE")


class Histc(AclnnOp):
    """nulls → dtypes → range finite → bins > 0, min ≤ max → castable → out 1-D of `bins` elements."""
    name = "aclnnHistc"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": HISTC(), "out": HISTC()}

    def check(self, a):
        checks.not_null(a, "self", "out", "max", "min", scalars=["max", "min"])
        checks.dtype_in("self", a.self, HISTC())
        checks.dtype_in("out", a.out, HISTC())
        low, high = float(np.float32(np.real(a.min.value))), float(np.float32(np.real(a.max.value)))
        same_infinity = np.isinf(low) and np.isinf(high) and (low > 0) == (high > 0)
        if not same_infinity and not (np.isfinite(low) and np.isfinite(high)):
            raise status.param_invalid("range of [%f, %f] is not finite" % (low, high))
        if a.bins <= 0:
            raise status.param_invalid("The value of bins can not less or equal 0.")
        if low > high:
            raise status.param_invalid("The value of max should greater than or equal to min.")
        checks.result_castable(a.out.dtype, a.self.dtype)
        if a.out.ndim != 1:
            raise status.param_invalid("Expected 1 dimension input, but got out with sizes %s."
                                       % checks.shape_text(a.out.shape))
        checks.max_dim("self", a.self)
        if a.out.numel() != a.bins:
            raise status.param_invalid("The size of out tensor should be same as bins.")
        a.range = (low, high)

    def compute(self, a, v, workspace):
        out = v["out"]
        x = v["self"].astype(np.float64).ravel()
        low, high = a.range
        if low == high and x.size:
            low, high = float(x.min()), float(x.max())
        if low == high:
            low, high = low - 1, high + 1
        x = x[(x >= low) & (x <= high)]
        index = ((x - low) * a.bins / (high - low)).astype(np.int64)
        counts = np.bincount(np.minimum(index, a.bins - 1), minlength=a.bins)[:a.bins]
        P.store(out, counts)


class Bincount(AclnnOp):
    """nulls → dtypes → self 1-D, weights of self's shape."""
    name = "aclnnBincount"
    inputs, outputs = ("self", "weights"), ("out",)

    def dtype_table(self):
        return {"self": BINCOUNT_SELF(), "weights": BINCOUNT_WEIGHTS(), "out": BINCOUNT_OUT()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, BINCOUNT_SELF())
        checks.dtype_in("out", a.out, BINCOUNT_OUT())
        if a.weights is not None:
            checks.dtype_in("weights", a.weights, BINCOUNT_WEIGHTS())
        checks.dim_is("self", a.self, 1)
        if a.weights is not None:
            checks.same_shape("self", a.self, "weights", a.weights)
        if a.minlength < 0:
            raise status.param_invalid("minlength should be >= 0, but got %d." % a.minlength)
        if a.out.ndim != 1:
            raise status.param_invalid("Expected 1 dimension input, but got out with sizes %s."
                                       % checks.shape_text(a.out.shape))

    def compute(self, a, v, workspace):
        out = v["out"]
        out[...] = 0
        x = v["self"].astype(np.int64)
        keep = (x >= 0) & (x < out.shape[0])
        weights = None if a.weights is None else v["weights"].astype(np.float64)[keep]
        counts = np.bincount(x[keep], weights=weights, minlength=out.shape[0])
        P.store(out, counts[:out.shape[0]])


class SearchSorted(AclnnOp):
    """nulls → dtypes (out INT32 when outInt32, else INT64; sorter INT64) → promotion in the list → ranks and
    shapes (sortedSequence 1-D or matching self's leading dims)."""
    name = "aclnnSearchSorted"
    inputs, outputs = ("sortedSequence", "self", "sorter"), ("out",)

    def dtype_table(self):
        return {"sortedSequence": SEARCH(), "self": SEARCH(), "out": codes("INT32 INT64")}

    def values(self, a):
        return a.self.dtype, tuple(a.self.shape)

    def check(self, a):
        checks.not_null(a, "sortedSequence", "self", "out")
        checks.dtype_in("sortedSequence", a.sortedSequence, SEARCH())
        if self.name == "aclnnSearchSorted":
            checks.dtype_in("self", a.self, SEARCH())
        checks.dtype_match("out", a.out, dtypes.acl("INT32") if a.outInt32 else dtypes.acl("INT64"))
        if a.sorter is not None:
            checks.dtype_match("sorter", a.sorter, dtypes.acl("INT64"))
        value_dtype, value_shape = self.values(a)
        promoted = P.promote(a.sortedSequence.dtype, value_dtype)
        if promoted is None:
            raise status.param_invalid("sortedSequence dtype %s and self dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.sortedSequence.dtype), dtypes.serial_name(value_dtype)))
        if promoted not in SEARCH():
            raise status.param_invalid("promoteType dtype %s not in dtype support list %s."
                                       % (dtypes.serial_name(promoted), dtypes.serial_list(SEARCH())))
        a.promoted = promoted
        checks.max_dim("sortedSequence", a.sortedSequence)
        if tuple(a.out.shape) != value_shape:
            raise status.param_invalid("Expected tensor for self to have same size as tensor for out, but %s does not "
                                       "equal %s." % (checks.shape_text(value_shape), checks.shape_text(a.out.shape)))
        if a.sorter is not None:
            checks.same_shape("sortedSequence", a.sortedSequence, "sorter", a.sorter)
        seq = tuple(a.sortedSequence.shape)
        if len(seq) != 1 and (len(value_shape) != len(seq) or value_shape[:-1] != seq[:-1]):
            raise status.param_invalid("sortedSequence tensor should be 1 dimension or the first N-1 dimension of "
                                       "sortedSequence tensor and self value tensor must match, but we got "
                                       "sortedSequence tensor %s and self value tensor %s."
                                       % (checks.shape_text(seq), checks.shape_text(value_shape)))

    def value_array(self, a, v):
        return v["self"]

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        ct = P.compute_type(a.promoted)
        seq = P.as_compute(v["sortedSequence"], ct)
        values = P.as_compute(np.asarray(self.value_array(a, v)), ct)
        side = "right" if a.right else "left"
        if a.sorter is not None:
            seq = np.take_along_axis(seq, v["sorter"].astype(np.int64), axis=-1)
        if seq.ndim == 1:
            P.store(out, np.searchsorted(seq, values, side=side).reshape(out.shape))
            return
        rows, row_values = seq.reshape(-1, seq.shape[-1]), values.reshape(-1, values.shape[-1])
        found = np.stack([np.searchsorted(r, x, side=side) for r, x in zip(rows, row_values)])
        P.store(out, found.reshape(out.shape))


class SearchSorteds(SearchSorted):
    """One value (an aclScalar, read as a float in sortedSequence's dtype) searched; out holds one index."""
    name = "aclnnSearchSorteds"
    inputs = ("sortedSequence", "sorter")

    def check(self, a):
        checks.not_null(a, "sortedSequence", "self", "out", scalars=["self"])
        if a.out.is_empty():
            raise status.param_invalid("The shape of out tensor should be {1}.")
        super().check(a)

    def values(self, a):
        return a.sortedSequence.dtype, tuple(a.out.shape) if a.out.numel() == 1 else (1,)

    def value_array(self, a, v):
        return np.full(v["out"].shape, np.float32(np.real(a.self.value)))
