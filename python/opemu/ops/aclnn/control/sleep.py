"""aclnnSleep (ops-nn control/sleep, an opbuild operator of the 950 line): the stream waits `cycles` clock cycles
of the AI Core (a busy wait on clock(), as CUDA's spin kernel and torch.cuda._sleep), 1.65 GHz on the 950.

cycles is an aclIntArray of one element, read by the tiling: an empty array or a value ≤ 0 is
ACLNN_ERR_INNER_TILING_ERROR in phase 1. The kernel runs under the AI Core's execution timeout (1,080 s by
default): a wait longer than that ends in ACL_ERROR_RT_AICORE_TIMEOUT, which opemu reports at once instead of
spending the timeout first."""
import time

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import opbuild
from opemu.ops.aclnn.common import products as _products

CLOCK_HZ = 1.65e9
AICORE_TIMEOUT_S = 1080.0
LINES = ("950",)


class Sleep(AclnnOp):
    name = "aclnnSleep"
    products = _products.describe(LINES)

    def check(self, a):
        checks.not_null(a, "cycles")
        _products.check_supported(self.name, LINES)
        cycles = list(a.cycles)
        if not cycles:
            raise opbuild.tiling_error("Sleep", "GetData cycles failed")
        if cycles[0] <= 0:
            raise opbuild.tiling_error("Sleep", "cycles must be positive, got: %d" % cycles[0])
        a.seconds = cycles[0] / CLOCK_HZ

    def compute(self, a, v, workspace):
        if a.seconds > AICORE_TIMEOUT_S:
            raise status.VendorError(status.ACL["ACL_ERROR_RT_AICORE_TIMEOUT"],
                                     "aclnnSleep: %.0f s of cycles exceed the AI Core execution timeout (%.0f s)"
                                     % (a.seconds, AICORE_TIMEOUT_S))
        time.sleep(a.seconds)
