"""aclnnFusedCrossEntropyLossWithMaxSum: the loss from the all-reduced max / sum-exp / predicted
logit (reference §4.4; ops-nn loss/fused_cross_entropy_loss_with_max_sum).

    lossOut    = log(sumExpLogits) - predictedLogits
    softMaxOut = exp(vocabParallelLogits - logitsMax[:, None]) * (1 / sumExpLogits[:, None])   # if given

`inputOptional` and `weightOptional` are ignored (`[[maybe_unused]]` in op_api; the doc says they
must be null, the official example passes tensors). Phase 1 follows the op_api version that
requires softMaxOutOptional when vocabParallelLogitsOptional is given: nulls → dtypes → shapes →
labelSmoothing; no format, platform or empty-tensor branch. The op checks vocabParallelLogits'
rows against nothing; a row past logitsMax's length reads past that tensor, which opemu treats as
an access fault. No workspace (the vendor's tiling asks only for the system workspace).
"""
import numpy as np

from opemu.core import checks, device, dtypes, status
from opemu.core.op import AclnnOp

FLOAT = dtypes.acl("FLOAT")
LOGIT_DTYPES = [FLOAT, dtypes.acl("FLOAT16"), dtypes.acl("BF16")]
ROW_BLOCK = 1024


class FusedCrossEntropyLossWithMaxSum(AclnnOp):
    name = "aclnnFusedCrossEntropyLossWithMaxSum"
    inputs = ("logitsMax", "sumExpLogits", "predictedLogits", "vocabParallelLogitsOptional")
    outputs = ("lossOut", "softMaxOutOptional")
    products = "all the products of the seed's table (no platform check in phase 1)"

    def dtype_table(self):
        return {"logitsMax": [FLOAT], "sumExpLogits": [FLOAT], "predictedLogits": [FLOAT], "lossOut": [FLOAT],
                "vocabParallelLogitsOptional": LOGIT_DTYPES, "softMaxOutOptional": [FLOAT]}

    def check(self, a):
        checks.not_null(a, "logitsMax", "sumExpLogits", "predictedLogits", "lossOut")
        vpl = a.vocabParallelLogitsOptional
        if vpl is not None:
            checks.not_null(a, "softMaxOutOptional")
        for name in ("logitsMax", "sumExpLogits", "predictedLogits", "lossOut"):
            checks.dtype_in(name, getattr(a, name), [FLOAT])
        if vpl is not None:
            checks.dtype_in("vocabParallelLogitsOptional", vpl, LOGIT_DTYPES)
            checks.dtype_in("softMaxOutOptional", a.softMaxOutOptional, [FLOAT])
        _exact_dim("logitsMax", a.logitsMax, 1)
        for name in ("sumExpLogits", "predictedLogits", "lossOut"):
            checks.same_shape("logitsMax", a.logitsMax, name, getattr(a, name))
        if vpl is not None:
            _exact_dim("vocabParallelLogitsOptional", vpl, 2)
            checks.same_shape("vocabParallelLogitsOptional", vpl, "softMaxOutOptional", a.softMaxOutOptional)
        if a.labelSmoothing != 0:
            raise status.param_invalid("Currently, only labelSmoothing=0 are supported.")

    def workspace(self, a):
        return 0

    def compute(self, a, v, workspace):
        sum_exp = v["sumExpLogits"]
        np.subtract(np.log(sum_exp), v["predictedLogits"], out=v["lossOut"])
        logits = v.get("vocabParallelLogitsOptional")
        if logits is None:
            return
        if logits.shape[0] > sum_exp.shape[0]:
            raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                     "%s: vocabParallelLogits has %d rows, logitsMax only %d"
                                     % (self.name, logits.shape[0], sum_exp.shape[0]))
        softmax, row_max = v["softMaxOutOptional"], v["logitsMax"]
        reciprocal = np.float32(1) / sum_exp
        for r0 in range(0, logits.shape[0], ROW_BLOCK):
            out = softmax[r0:r0 + ROW_BLOCK]
            np.copyto(out, logits[r0:r0 + ROW_BLOCK], casting="unsafe")
            np.subtract(out, row_max[r0:r0 + ROW_BLOCK, None], out=out)
            np.exp(out, out=out)
            np.multiply(out, reciprocal[r0:r0 + ROW_BLOCK, None], out=out)


def _exact_dim(name, tensor, ndim):
    """OP_CHECK_MAX_DIM then OP_CHECK_MIN_DIM with the same bound."""
    checks.max_dim(name, tensor, ndim)
    if tensor.ndim < ndim:
        raise status.param_invalid("The %s tensor must have at least %d dimensions." % (name, ndim))
