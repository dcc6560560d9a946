"""aclnnSoftmaxBackward and aclnnLogSoftmaxBackward (ops-nn activation/softmax_grad, log_softmax_grad),
PyTorch's _softmax_backward_data and _log_softmax_backward_data.

    softmax:      gradInput = output * (gradOutput - sum(gradOutput * output, dim))
    log-softmax:  gradInput = gradOutput - exp(output) * sum(gradOutput, dim)

Phase 1 as each op_api (hicann/ops-nn@e5c3fa93) reads; they differ in order:
  SoftmaxBackward     nulls (gradOutput, output, out) → empty succeeds → bf16 off A2/A3 → gradOutput's and
                      output's dtypes in FLOAT, FLOAT16, BF16, output's equal to gradOutput's → dim in range
                      → rank ≤ 8, output's and out's shapes equal to gradOutput's
  LogSoftmaxBackward  nulls (output, gradOutput, out) → empty succeeds → bf16 off A2/A3 (either input) →
                      output's then gradOutput's dtype in the list, the two the same → rank ≤ 8, shapes
                      equal → dim in range
out's dtype is not checked: the kernel writes gradOutput's dtype and the op_api casts that into out's (two
roundings when they differ). The kernels compute fp16/bf16 in fp32 and round once into the input dtype."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp, soc_is_a2_a3
from opemu.ops.aclnn.common import promotion as P

SUPPORTED = P.codes("FLOAT FLOAT16 BF16")
BF16 = P.codes("BF16")[0]


def _check_dim(a):
    n = max(a.gradOutput.ndim, 1)
    if not -n <= a.dim < n:
        raise status.param_invalid("provided dim %d not in the range of input size %d." % (a.dim, n))


def _check_shapes(a):
    checks.max_dim("gradOutput", a.gradOutput)
    checks.same_shape("gradOutput", a.gradOutput, "output", a.output)
    checks.same_shape("gradOutput", a.gradOutput, "out", a.out)


class SoftmaxBackward(AclnnOp):
    name = "aclnnSoftmaxBackward"
    inputs = ("gradOutput", "output")
    outputs = ("out",)
    log = False

    def dtype_table(self):
        supported = P.per_product("FLOAT FLOAT16", "BF16")()
        return {"gradOutput": supported, "output": supported}

    def check(self, a):
        checks.not_null(a, "gradOutput", "output", "out")
        a.empty = a.gradOutput.is_empty() or a.output.is_empty()
        if a.empty:
            return
        if a.gradOutput.dtype == BF16 and not soc_is_a2_a3():
            raise status.param_invalid("Input dtype of aclnnSoftmaxBackward is not support bfloat16 in current "
                                       "socversion.")
        checks.dtype_in("gradOutput", a.gradOutput, SUPPORTED)
        checks.dtype_in("output", a.output, SUPPORTED)
        checks.dtype_match("output", a.output, a.gradOutput.dtype)
        _check_dim(a)
        _check_shapes(a)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        grad, output, out = v["gradOutput"], v["output"], v["out"]
        axis = a.dim % max(grad.ndim, 1) if grad.ndim else None
        g, y = grad.astype(np.float32), output.astype(np.float32)
        with np.errstate(all="ignore"):  # inf and NaN are results on the device
            if self.log:
                result = g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)
            else:
                result = y * (g - np.sum(g * y, axis=axis, keepdims=True))
            result = result.astype(grad.dtype)
        P.store(out, result if out.dtype == grad.dtype else result.astype(out.dtype))


class LogSoftmaxBackward(SoftmaxBackward):
    name = "aclnnLogSoftmaxBackward"
    log = True

    def check(self, a):
        checks.not_null(a, "output", "gradOutput", "out")
        a.empty = a.gradOutput.is_empty() or a.output.is_empty()
        if a.empty:
            return
        if BF16 in (a.gradOutput.dtype, a.output.dtype) and not soc_is_a2_a3():
            raise status.param_invalid("aclnnLogSoftmaxBackward is not support bfloat16 in current socversion.")
        checks.dtype_in("output", a.output, SUPPORTED)
        checks.dtype_in("gradOutput", a.gradOutput, SUPPORTED)
        checks.same_dtype("gradOutput", a.gradOutput, "output", a.output)
        if a.gradOutput.ndim > checks.MAX_DIM or a.output.ndim > checks.MAX_DIM:
            raise status.param_invalid("Dim of input tensor can't be greater than 8.")
        _check_shapes(a)
        _check_dim(a)
