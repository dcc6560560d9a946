"""aclnnCast (math/cast) and aclnnSWhere (math/select): elementwise, but with their own checks.

Cast converts as the hardware's Cast does for representable values: floats round to nearest
even into narrower floats, floats truncate toward zero into integers, nonzero becomes true.
SWhere promotes self and other (op::PromoteType), broadcasts the three inputs and picks."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

CASTABLE = P.per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 BOOL "
                         "COMPLEX64 COMPLEX128", "BF16")
SELECTABLE = P.per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL", "BF16")


class Cast(AclnnOp):
    name = "aclnnCast"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": CASTABLE(), "out": CASTABLE()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, CASTABLE())
        checks.dtype_in("out", a.out, CASTABLE())
        if a.dtype != a.out.dtype:
            raise status.param_invalid("The dtype %s should be the same as out's dtype %s."
                                       % (dtypes.serial_name(a.dtype), dtypes.serial_name(a.out.dtype)))
        checks.max_dim("self", a.self)
        checks.same_shape("self", a.self, "out", a.out)

    def compute(self, a, v, workspace):
        if not a.self.is_empty():
            source = v["self"]
            if source.dtype.kind == "c" and v["out"].dtype.kind != "c":
                source = source.real
            P.store(v["out"], source)


class SWhere(AclnnOp):
    name = "aclnnSWhere"
    inputs = ("condition", "self", "other")
    outputs = ("out",)

    def dtype_table(self):
        return {"condition": (P.BOOL, dtypes.acl("UINT8")), "self": SELECTABLE(), "other": SELECTABLE(),
                "out": SELECTABLE()}

    def check(self, a):
        checks.not_null(a, "condition", "self", "other", "out")
        table = self.dtype_table()
        for name in ("condition", "self", "other"):
            checks.dtype_in(name, getattr(a, name), table[name])
        a.result_dtype = P.promote(a.self.dtype, a.other.dtype)
        if a.result_dtype is None:
            raise status.param_invalid("Self dtype %s and other dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.other.dtype)))
        checks.result_castable(a.result_dtype, a.out.dtype)
        for name in ("condition", "self", "other", "out"):
            checks.max_dim(name, getattr(a, name))
        shape = P.broadcast("self", a.self.shape, "other", a.other.shape)
        shape = P.broadcast("condition", a.condition.shape, "self and other", shape)
        P.out_shape_is(a.out, shape)

    def compute(self, a, v, workspace):
        if not a.out.is_empty():
            ct = P.compute_type(a.result_dtype)
            picked = np.where(v["condition"].astype(bool, copy=False), P.as_compute(v["self"], ct),
                              P.as_compute(v["other"], ct))
            P.store(v["out"], picked)
