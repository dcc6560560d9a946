"""Fill and copy (ops-math conversion/fill, math/zero_op, math/ones_like, math/range,
conversion/view_copy): operators that write a value, a sequence or another tensor into `selfRef`
/ `out` through its view (strides and offset honoured, elements between them untouched)."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn import _promotion as P
from opemu.ops.aclnn._promotion import per_product

FILLABLE = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL COMPLEX64 COMPLEX128", "BF16")
RANGE = per_product("FLOAT FLOAT16 DOUBLE INT32 INT64", "BF16")
COPYABLE = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL COMPLEX64 COMPLEX128 UINT16 "
                       "UINT32 UINT64", "BF16")


class Fill(AclnnOp):
    """One row: the in-place fills differ only in where the value comes from."""
    outputs = ("selfRef",)
    allowed = staticmethod(FILLABLE)
    value_param = None

    def dtype_table(self):
        return {"selfRef": self.allowed()}

    def check(self, a):
        checks.not_null(a, "selfRef", *([self.value_param] if self.value_param else []))
        checks.dtype_in("selfRef", a.selfRef, self.allowed())
        self.check_value(a)
        checks.max_dim("selfRef", a.selfRef)

    def check_value(self, a):
        """Row-specific checks of the value."""

    def compute(self, a, v, workspace):
        if not a.selfRef.is_empty():
            P.store(v["selfRef"], self.value(a, v))


class InplaceZero(Fill):
    name = "aclnnInplaceZero"
    inputs = ("selfRef",)

    def value(self, a, v):
        return np.zeros((), v["selfRef"].dtype)


class InplaceOne(Fill):
    name = "aclnnInplaceOne"
    inputs = ("selfRef",)

    def value(self, a, v):
        return np.ones((), v["selfRef"].dtype)


class InplaceFillScalar(Fill):
    name = "aclnnInplaceFillScalar"
    inputs = ("selfRef",)
    value_param = "value"

    def value(self, a, v):
        return a.value.as_type(v["selfRef"].dtype)


class InplaceFillTensor(Fill):
    name = "aclnnInplaceFillTensor"
    inputs = ("selfRef", "value")
    value_param = "value"

    def check_value(self, a):
        checks.dtype_in("value", a.value, self.allowed())
        if a.value.numel() != 1 or a.value.ndim > 1:
            raise status.param_invalid("fill_ only supports 0-dimension value tensor but got tensor with %d "
                                       "dimensions." % a.value.ndim)

    def value(self, a, v):
        return v["value"].reshape(())


class InplaceCopy(Fill):
    name = "aclnnInplaceCopy"
    inputs = ("selfRef", "src")
    value_param = "src"
    allowed = staticmethod(COPYABLE)

    def check_value(self, a):
        checks.dtype_in("src", a.src, self.allowed())
        checks.max_dim("src", a.src)
        shape = P.broadcast("selfRef", a.selfRef.shape, "src", a.src.shape)
        if shape != tuple(a.selfRef.shape):
            raise status.param_invalid("The size of tensor src %s must match the size %s."
                                       % (checks.shape_text(a.src.shape), checks.shape_text(a.selfRef.shape)))

    def value(self, a, v):
        return v["src"].real if v["src"].dtype.kind == "c" and v["selfRef"].dtype.kind != "c" else v["src"]


class Arange(AclnnOp):
    name = "aclnnArange"
    inputs = ()
    outputs = ("out",)

    def dtype_table(self):
        return {"out": RANGE()}

    def check(self, a):
        checks.not_null(a, "start", "end", "step", "out")
        checks.dtype_in("out", a.out, RANGE())
        start, end, step = (float(np.real(s.value)) for s in (a.start, a.end, a.step))
        if step == 0:
            raise status.param_invalid("step must be nonzero.")
        if not (math.isfinite(start) and math.isfinite(end)) or math.isnan(step):   # no element count to give
            raise status.param_invalid("unsupported range: %s -> %s." % (start, end))
        if (step > 0 and end < start) or (step < 0 and end > start):
            raise status.param_invalid("upper bound and larger bound inconsistent with step sign.")
        integral = all(P.category(s.dtype) < 2 for s in (a.start, a.end, a.step))
        size = (int(a.end.value) - int(a.start.value) + int(a.step.value) - (1 if step > 0 else -1)) \
            // int(a.step.value) if integral else math.ceil((end - start) / step)
        if a.out.ndim != 1 or a.out.shape[0] != size:
            raise status.param_invalid("The out tensor should be 1-dimensional with %d elements, but its shape is %s."
                                       % (size, checks.shape_text(a.out.shape)))
        a.values = (start, step, integral)

    def compute(self, a, v, workspace):
        start, step, integral = a.values
        n = v["out"].shape[0]
        if integral:
            sequence = int(a.start.value) + np.arange(n, dtype=np.int64) * int(a.step.value)
        else:
            sequence = start + np.arange(n, dtype=np.float64) * step
        P.store(v["out"], sequence)
