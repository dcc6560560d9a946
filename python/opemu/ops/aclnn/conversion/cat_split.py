"""aclnnCat (ops-math conversion/concat_d) and aclnnSplitWithSize (conversion/split_v): the two
operators whose tensors come as an aclTensorList (one executor slot per list element).

Cat: nulls (the list, each element, out) → each element's dtype (message names it by index) → the
promoted dtype (op::PromoteType over the list, COMPLEX128 refused) castable to out → formats →
rank ≤ 8, dim in range, equal ranks and sizes off the cat dim. SplitWithSize: nulls → dtypes →
ranks, dim in range, sizes summing to the split dim, one output per size."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

CATABLE = P.per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE COMPLEX64 BOOL", "BF16")
SPLITTABLE = P.per_product("DOUBLE FLOAT FLOAT16 BF16 INT64 INT32 INT16 INT8 UINT8 BOOL COMPLEX128 COMPLEX64")


def list_dtypes(tensors, out, allowed):
    """The dtype checks Cat and Stack share, in their op_apis' order: each tensor's dtype (named by index),
    out's, then the dtype promoted over the list (op::PromoteType), castable to out; returns it."""
    for i, t in enumerate(tensors):
        if t.dtype not in allowed:
            raise status.param_invalid("tensor %d not implemented for %s, should be in dtype support list %s."
                                       % (i, dtypes.serial_name(t.dtype), dtypes.serial_list(allowed)))
    checks.dtype_in("out", out, allowed)
    promoted = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        next_type = P.promote(t.dtype, promoted)
        if next_type is None:
            raise status.param_invalid("tensor %d dtype %s and dtype %s can not promote dtype."
                                       % (i, dtypes.serial_name(t.dtype), dtypes.serial_name(promoted)))
        promoted = next_type
    checks.result_castable(promoted, out.dtype)
    return promoted


class Cat(AclnnOp):
    name = "aclnnCat"
    inputs = ("tensors",)
    outputs = ("out",)

    def dtype_table(self):
        return {"tensors": CATABLE(), "out": CATABLE()}

    def check(self, a):
        checks.not_null(a, "tensors")
        for item in a.tensors:
            if item is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*tensors)[i].")
        checks.not_null(a, "out")
        if not a.tensors:
            raise status.param_invalid("tensors is an empty list: nothing to concatenate.")
        list_dtypes(a.tensors, a.out, CATABLE())
        first = a.tensors[0]
        checks.max_dim("(*tensors)[0]", first)
        n = first.ndim
        if not -n <= a.dim < n:
            raise status.param_invalid("dimnum %d exceed the dim range of the tensor %d." % (a.dim, n))
        a.axis = a.dim % n
        for i, t in enumerate(a.tensors[1:], 1):
            if t.ndim != n:
                raise status.param_invalid("dimnum of tensor %d is [%d], should be equal to tensor 0 [%d]." % (i, t.ndim, n))
            for j in range(n):
                if j != a.axis and t.shape[j] != first.shape[j]:
                    raise status.param_invalid("dim %d of tensor %d is [%d], should be equal to tensor 0 [%d]."
                                               % (j, i, t.shape[j], first.shape[j]))
        expected = list(first.shape)
        expected[a.axis] = sum(t.shape[a.axis] for t in a.tensors)
        P.out_shape_is(a.out, expected)

    def compute(self, a, v, workspace):
        out = v["out"]
        start = 0
        for part in v["tensors"]:
            width = part.shape[a.axis]
            if width:
                index = (slice(None),) * a.axis + (slice(start, start + width),)
                P.store(out[index], part)
            start += width


class SplitWithSize(AclnnOp):
    name = "aclnnSplitWithSize"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": SPLITTABLE(), "out": SPLITTABLE()}

    def check(self, a):
        checks.not_null(a, "self", "splitSize", "out")
        for item in a.out:
            if item is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*out)[index].")
        allowed = SPLITTABLE()
        checks.dtype_in("self", a.self, allowed)
        for t in a.out:
            checks.dtype_in("(*out)[index]", t, allowed)
        checks.max_dim("self", a.self)
        if a.self.ndim < 1:
            raise status.param_invalid("The self tensor must have at least 1 dimensions.")
        for t in a.out:
            checks.max_dim("(*out)[index]", t)
        n = a.self.ndim
        if not -n <= a.dim < n:
            raise status.param_invalid("Expected aclnnSplitWithSize dim value [%d] to be in range [%d, %d) but check "
                                       "failed." % (a.dim, -n, n))
        a.axis = a.dim % n
        total = sum(a.splitSize)
        if total != a.self.shape[a.axis]:
            raise status.param_invalid("Expected aclnnSplitWithSize all split value sum [%d] to be equal to split "
                                       "dimIndex [%d] value [%d] but check failed." % (total, a.axis, a.self.shape[a.axis]))
        if len(a.splitSize) != len(a.out):
            raise status.param_invalid("Expected aclnnSplitWithSize splitSize num [%d] to be equal to output num [%d] "
                                       "but check failed." % (len(a.splitSize), len(a.out)))
        for i, (size, t) in enumerate(zip(a.splitSize, a.out)):
            expected = a.self.shape[:a.axis] + (size,) + a.self.shape[a.axis + 1:]
            if size < 0 or tuple(t.shape) != expected:
                raise status.param_invalid("Expected out[%d] to have shape %s, but got %s."
                                           % (i, checks.shape_text(expected), checks.shape_text(t.shape)))

    def compute(self, a, v, workspace):
        x = v["self"]
        start = 0
        for size, out in zip(a.splitSize, v["out"]):
            if size:
                P.store(out, x[(slice(None),) * a.axis + (slice(start, start + size),)])
            start += size
