"""aclnnStack (ops-math conversion/pack): joins tensors of one shape along a new axis `dim`.

Check order (op_api aclnn_stack.cpp): nulls (the list, out) → every tensor's dtype, by index, then
out's → the dtypes promoted over the list (op::PromoteType) and castable to out → rank ≤ 8, `dim` in
[-(rank+1), rank] (negative counts from the end of the stacked shape), every tensor of tensor 0's
rank and sizes → out of the stacked shape (CheckShapeAndScalarSame: equal shapes, or one element
each). The kernel casts each tensor to the promoted dtype and the stacked result to out's dtype, so
a value goes through both conversions. Empty tensors are skipped: when all are empty nothing is
written and the call succeeds. The vendor dereferences the first element of an empty list and of a
null element; opemu refuses both as parameter errors instead of crashing."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.conversion.cat_split import list_dtypes

STACKABLE = P.per_product("INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 FLOAT16 FLOAT BOOL DOUBLE COMPLEX64 "
                          "COMPLEX128", "BF16")
MAX_DIM = 8


class Stack(AclnnOp):
    name = "aclnnStack"
    inputs = ("tensors",)
    outputs = ("out",)

    def dtype_table(self):
        return {"tensors": STACKABLE(), "out": STACKABLE()}

    def check(self, a):
        if a.tensors is None:
            raise status.param_nullptr("Input of aclnnStack should not be null.")
        checks.not_null(a, "out")
        if not a.tensors:
            raise status.param_invalid("tensors is an empty list: nothing to stack.")
        for item in a.tensors:
            if item is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*tensors)[i].")
        a.promoted = list_dtypes(a.tensors, a.out, STACKABLE())
        first = a.tensors[0]
        rank = first.ndim
        if rank > MAX_DIM:
            raise status.param_invalid("Dim of self is %d, can't be greater than %d." % (rank, MAX_DIM))
        axis = a.dim + rank + 1 if a.dim < 0 else a.dim
        if not 0 <= axis <= rank:
            raise status.param_invalid("dimnum %d exceed the dim range of the [%d, %d]." % (a.dim, -(rank + 1), rank))
        a.axis = axis
        for i, t in enumerate(a.tensors[1:], 1):
            if t.ndim != rank:
                raise status.param_invalid("dimnum of tensor %d is [%d], should be equal to tensor 0 [%d]."
                                           % (i, t.ndim, rank))
            for j in range(rank):
                if t.shape[j] != first.shape[j]:
                    raise status.param_invalid("dim %d of tensor %d is [%d], should be equal to tensor 0 [%d]."
                                               % (j, i, t.shape[j], first.shape[j]))
        a.empty = any(size == 0 for size in first.shape)
        if a.empty:
            return
        stacked = tuple(first.shape[:axis]) + (len(a.tensors),) + tuple(first.shape[axis:])
        if tuple(a.out.shape) != stacked and not (np.prod(stacked) == 1 and np.prod(a.out.shape) == 1):
            raise status.param_invalid("The tensor's shape[%s] is not equal with shape[%s]."
                                       % (",".join(map(str, stacked)), ",".join(map(str, a.out.shape))))

    def compute(self, a, v, workspace):
        if a.empty:
            return
        out = v["out"]
        promoted = dtypes.numpy_dtype(a.promoted)
        parts = [part if part.dtype == promoted else part.astype(promoted) for part in v["tensors"]]
        with np.errstate(over="ignore", invalid="ignore"):
            P.store(out, np.stack(parts, axis=a.axis).reshape(out.shape))
