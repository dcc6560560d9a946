"""The fill family (ops-math conversion/fill, view_copy; math/zero_op, ones_like): operators that write
a value or another tensor into `selfRef` through its view (strides and offset honoured, elements
between them untouched). One class; each operator says where its value comes from."""
from opemu.core import checks
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

FILLABLE = P.per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL COMPLEX64 COMPLEX128", "BF16")


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
