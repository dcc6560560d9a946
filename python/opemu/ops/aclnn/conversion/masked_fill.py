"""aclnnInplaceMaskedFillScalar (ops-math conversion/masked_fill), PyTorch's masked_fill_ with a number:
selfRef[i] = value where mask[i] (mask broadcast to selfRef's shape).

Phase 1 as the op_api reads (hicann/ops-math@c4193324): nulls (selfRef, mask, value) → bf16 off the Atlas
A2/A3 parts → selfRef's dtype in FLOAT INT32 INT64 FLOAT16 INT8 BOOL BF16, mask BOOL → ranks ≤ 8 → mask
broadcasts to selfRef's shape itself. An empty selfRef or mask succeeds with nothing written. The value
is converted to selfRef's dtype (ConvertToTensor) before the kernel selects."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp, soc_is_a2_a3
from opemu.ops.aclnn.common import promotion as P

SUPPORTED = P.codes("FLOAT INT32 INT64 FLOAT16 INT8 BOOL BF16")


class InplaceMaskedFillScalar(AclnnOp):
    name = "aclnnInplaceMaskedFillScalar"
    inputs = ("selfRef", "mask")
    outputs = ("selfRef",)

    def dtype_table(self):
        return {"selfRef": SUPPORTED if soc_is_a2_a3() else tuple(c for c in SUPPORTED if c != P.BF16),
                "mask": (P.BOOL,)}

    def check(self, a):
        checks.not_null(a, "selfRef", "mask", "value")
        if a.selfRef.dtype == P.BF16 and not soc_is_a2_a3():
            raise status.param_invalid("Input dtype of aclnnInplaceMaskedFillScalar is not support bfloat16 in "
                                       "current socversion.")
        checks.dtype_in("selfRef", a.selfRef, SUPPORTED)
        checks.dtype_match("mask", a.mask, P.BOOL)
        checks.max_dim("selfRef", a.selfRef)
        checks.max_dim("mask", a.mask)
        shape = P.broadcast("selfRef", a.selfRef.shape, "mask", a.mask.shape)
        if tuple(shape) != tuple(a.selfRef.shape):
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.selfRef.shape)))
        a.fill = a.value.as_type(dtypes.numpy_dtype(a.selfRef.dtype))

    def compute(self, a, v, workspace):
        target, mask = v["selfRef"], v["mask"]
        if target.size == 0 or mask.size == 0:
            return
        np.copyto(target, a.fill, where=np.broadcast_to(mask, target.shape))
