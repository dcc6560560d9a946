"""aclnnRepeat (ops-math math/tile): self tiled `repeats` times along each dim, through out's view;
the values are copied bit for bit."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

REPEATABLE = P.per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128 UINT8 INT8 INT16 INT32 INT64 BOOL BF16 UINT32 "
                           "UINT64", "UINT16")


class Repeat(AclnnOp):
    name = "aclnnRepeat"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": REPEATABLE(), "out": REPEATABLE()}

    def check(self, a):
        checks.not_null(a, "self", "repeats", "out")
        checks.dtype_in("self", a.self, REPEATABLE())
        checks.same_dtype("self", a.self, "out", a.out)
        if a.self.ndim > len(a.repeats):
            raise status.param_invalid("Number of dimensions of repeat dims can not be smaller than number of "
                                       "dimensions of input tensor, self %d, repeats %d." % (a.self.ndim, len(a.repeats)))
        for i, r in enumerate(a.repeats):
            if r < 0:
                raise status.param_invalid("repeats expected %dth value > 0, but got %d" % (i + 1, r))
        checks.max_dim("self", a.self)
        if len(a.repeats) > 8:
            raise status.param_invalid("repeats size should not be larger than 8. self %d, repeats %d"
                                       % (a.self.ndim, len(a.repeats)))
        padded = (1,) * (len(a.repeats) - a.self.ndim) + tuple(a.self.shape)
        P.result_shape_is("repeatRes", tuple(d * r for d, r in zip(padded, a.repeats)), a.out)

    def compute(self, a, v, workspace):
        if v["out"].size:
            np.copyto(v["out"], np.tile(v["self"], a.repeats))
