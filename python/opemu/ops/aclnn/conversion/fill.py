"""aclnnInplaceFillScalar, aclnnInplaceFillTensor (ops-math conversion/fill) and aclnnInplaceCopy
(conversion/view_copy): fills of selfRef from an aclScalar, a one-element tensor or a broadcast source
(opemu.ops.aclnn.common.fill)."""
from opemu.core import checks, status
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.fill import Fill

COPYABLE = P.per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL COMPLEX64 COMPLEX128 UINT16 "
                         "UINT32 UINT64", "BF16")


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
