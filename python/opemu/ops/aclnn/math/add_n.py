"""The sums of a tensor list (ops-math math/add_n, accumulate_nv2): aclnnAddN (tensors of one shape and dtype)
and aclnnSum (tensors that broadcast). fp16/bf16 add in fp32 and round once."""
import functools

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes

ADD_N = lambda: codes("INT32 INT64 FLOAT16 BF16 FLOAT")
SUM = lambda: codes("FLOAT16 FLOAT INT8 INT32 UINT8")


def _list_not_null(a, word):
    checks.not_null(a, "tensors")
    for i, tensor in enumerate(a.tensors):
        if tensor is None:
            raise status.param_nullptr("%s a proper Tensor but got null for tensor %d." % (word, i))
    checks.not_null(a, "out")


def _total(views, out_dtype):
    acc = np.float32 if out_dtype.kind in "fV" and out_dtype.itemsize < 4 else None
    return functools.reduce(np.add, (x.astype(acc) if acc else x for x in views))


class AddN(AclnnOp):
    """nulls → the first tensor's dtype is out's, all of one dtype → dtypes → ranks and one shape."""
    name = "aclnnAddN"
    inputs, outputs = ("tensors",), ("out",)

    def dtype_table(self):
        return {"tensors": ADD_N(), "out": ADD_N()}

    def check(self, a):
        _list_not_null(a, "Expected")
        tensors = list(a.tensors)
        if tensors:
            checks.same_dtype("tensors[0]", tensors[0], "out", a.out)
        for tensor in tensors[1:]:
            if tensor.dtype != tensors[0].dtype:
                raise status.param_invalid("Input tensors should have same dtype.")
        for i, tensor in enumerate(tensors):
            if tensor.dtype not in ADD_N():
                raise status.param_invalid("Tensor %d not implemented for %s, should be in dtype support list %s."
                                           % (i, dtypes.serial_name(tensor.dtype), dtypes.serial_list(ADD_N())))
        checks.dtype_in("out", a.out, ADD_N())
        for i, tensor in enumerate(tensors):
            if tensor.ndim > checks.MAX_DIM:
                raise status.param_invalid("Dim of tensor %d is %d, can't be greater than %d."
                                           % (i, tensor.ndim, checks.MAX_DIM))
        checks.max_dim("out", a.out)
        if any(tuple(t.shape) != tuple(tensors[0].shape) for t in tensors):
            raise status.param_invalid("Input tensors should have same shape.")
        if tensors and tuple(tensors[0].shape) != tuple(a.out.shape):
            raise status.param_invalid("Input tensors should have same shape with output.")

    def compute(self, a, v, workspace):
        views = v["tensors"]
        if not views or v["out"].size == 0:
            return
        P.store(v["out"], _total(views, v["out"].dtype))


class Sum(AclnnOp):
    """nulls → dtypes → ranks → the tensors broadcast, out of that shape."""
    name = "aclnnSum"
    inputs, outputs = ("tensors",), ("out",)

    def dtype_table(self):
        return {"tensors": SUM(), "out": SUM()}

    def check(self, a):
        _list_not_null(a, "expected")
        tensors = list(a.tensors)
        for i, tensor in enumerate(tensors):
            if tensor.dtype not in SUM():
                raise status.param_invalid("tensor %d not implemented for %s." % (i, dtypes.serial_name(tensor.dtype)))
        checks.dtype_in("out", a.out, SUM())
        for i, tensor in enumerate(tensors):
            if tensor.ndim > checks.MAX_DIM:
                raise status.param_invalid("Dim of tensor %d is %d, can't be greater than %d."
                                           % (i, tensor.ndim, checks.MAX_DIM))
        checks.max_dim("out", a.out)
        try:
            shape = tuple(np.broadcast_shapes(*[tuple(t.shape) for t in tensors])) if tensors else ()
        except ValueError:
            raise status.param_invalid("Input tensors can not broadcast.") from None
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))
        a.dtype_of = functools.reduce(P.promote, [t.dtype for t in tensors]) if tensors else a.out.dtype

    def compute(self, a, v, workspace):
        views = v["tensors"]
        if not views or v["out"].size == 0:
            return
        ct = P.compute_type(a.dtype_of) if a.dtype_of is not None else v["out"].dtype
        P.store(v["out"], _total([P.as_compute(x, ct) for x in views], v["out"].dtype))
