"""aclnnExpand (ops-math math/expand): self broadcast to `size` (-1 keeps self's dim) into out."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import per_product

EXPAND = per_product("FLOAT16 FLOAT UINT8 INT8 INT32 INT64 BOOL", "BF16")


class Expand(AclnnOp):
    """nulls → out of self's dtype, self in the list → size against self, out of the expanded shape → ranks."""
    name = "aclnnExpand"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": EXPAND(), "out": EXPAND()}

    def check(self, a):
        checks.not_null(a, "self", "size", "out")
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, EXPAND())
        size, shape = tuple(a.size), tuple(a.self.shape)
        if not (shape == size and tuple(a.out.shape) == size):
            if len(size) < len(shape):
                raise status.param_invalid("the number of size %d must be greater than or equal to the number of "
                                           "dimensions in the self %d." % (len(size), len(shape)))
            offset = len(size) - len(shape)
            expected = list(size)
            for i, n in enumerate(shape):
                if size[offset + i] == -1:
                    expected[offset + i] = n
                elif n != size[offset + i] and n != 1:
                    raise status.param_invalid("the self shape [%s] does not match size [%s]."
                                               % (checks.shape_text(shape)[1:-1], checks.shape_text(size)[1:-1]))
            if tuple(a.out.shape) != tuple(expected):
                raise status.param_invalid("expect out shape to be same as expectShape, but got out shape [%s], expect "
                                           "shape [%s]" % (checks.shape_text(a.out.shape)[1:-1],
                                                           checks.shape_text(expected)[1:-1]))
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)

    def compute(self, a, v, workspace):
        if a.self.is_empty() or a.out.is_empty():
            return
        P.store(v["out"], np.broadcast_to(v["self"], v["out"].shape))
