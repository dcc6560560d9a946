"""aclnnThresholdBackward (ops-nn activation/threshold_grad_v2_d), PyTorch's threshold_backward (ReLU's
backward with threshold 0):

    gradInput = gradOutput where self > threshold, else 0

Phase 1 as the op_api reads (hicann/ops-nn@e5c3fa93): threshold null → out null → gradOutput and self null
(ACLNN_ERR_PARAM_NULLPTR) → gradOutput's and self's dtypes in the product's list, gradOutput's and out's
equal to self's → ranks ≤ 8 → gradOutput and self broadcast, out has the broadcast shape. The list is
FLOAT INT32 FLOAT16 INT8 UINT8, with BF16 on Atlas A2/A3 and the 950 line and INT64 too on the 950 line
when the threshold is 0 (its ReluGrad kernel). The kernel selects by a greater-than comparison, so a NaN in
self gives 0 (PyTorch's `self <= threshold ? 0 : grad` passes the gradient through)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

_BASE = "FLOAT INT32 FLOAT16 INT8 UINT8"


def supported(threshold_is_zero=False):
    line = _products.line()
    if line == "950":
        return P.codes(_BASE + " BF16" + (" INT64" if threshold_is_zero else ""))
    return P.codes(_BASE + " BF16") if line in ("A2", "A3") else P.codes(_BASE)


class ThresholdBackward(AclnnOp):
    name = "aclnnThresholdBackward"
    inputs = ("gradOutput", "self")
    outputs = ("out",)

    def dtype_table(self):
        return {"gradOutput": supported(), "self": supported(), "out": supported()}

    def check(self, a):
        if a.threshold is None:
            raise status.param_nullptr("Expected a proper Scalar but got null for argument threshold.")
        checks.not_null(a, "out", "gradOutput", "self")
        allowed = supported(abs(a.threshold.to_float()) <= np.finfo(np.float32).eps)
        checks.dtype_in("gradOutput", a.gradOutput, allowed)
        checks.dtype_in("self", a.self, allowed)
        checks.dtype_match("gradOutput", a.gradOutput, a.self.dtype)
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.max_dim("gradOutput", a.gradOutput)
        checks.max_dim("self", a.self)
        shape = P.broadcast("self", a.self.shape, "gradOutput", a.gradOutput.shape)
        if tuple(shape) != tuple(a.out.shape):
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.out.shape)))

    def compute(self, a, v, workspace):
        x, out = v["self"], v["out"]
        if out.size == 0:
            return
        # the kernel compares in self's dtype with the threshold converted to float (ThresholdGradV2D's attr)
        threshold = np.float32(a.threshold.to_float())
        keep = x.astype(np.float32) > threshold if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else x > threshold
        P.store(out, np.where(keep, v["gradOutput"], out.dtype.type(0)))
