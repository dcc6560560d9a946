"""aclnnInplaceZero (ops-math math/zero_op), aclnnInplaceOne (math/ones_like) and aclnnArange
(math/range): a constant into selfRef (opemu.ops.aclnn.common.fill), a sequence into out."""
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.fill import Fill

RANGE = P.per_product("FLOAT FLOAT16 DOUBLE INT32 INT64", "BF16")


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
