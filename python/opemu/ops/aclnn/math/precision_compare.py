"""aclnnPrecisionCompare (ops-math math/precision_compare): whether golden and realdata are bitwise equal
element by element; out (a UINT32 scalar) is 0 when they are, 1 otherwise. The op_api serves Atlas A2/A3 and the
950 line and refuses the others first."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common.promotion import codes

INPUTS = lambda: codes("FLOAT FLOAT16 BF16")
OUT = lambda: codes("UINT32")


class PrecisionCompare(AclnnOp):
    """product → nulls → dtypes (realdata of golden's) → shapes, rank ≤ 8, a 0-d out."""
    name = "aclnnPrecisionCompare"
    inputs, outputs = ("golden", "realdata"), ("out",)

    def dtype_table(self):
        return {"golden": INPUTS(), "realdata": INPUTS(), "out": OUT()}

    def check(self, a):
        if _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("The function is unsupported by the current SOC version [%s] " % soc())
        checks.not_null(a, "golden", "realdata", "out")
        checks.same_dtype("golden", a.golden, "realdata", a.realdata)
        checks.dtype_in("golden", a.golden, INPUTS())
        checks.dtype_in("out", a.out, OUT())
        checks.same_shape("golden", a.golden, "realdata", a.realdata)
        checks.max_dim("golden", a.golden)
        if a.out.ndim != 0:
            raise status.param_invalid("Out must be scalar, but rank is %d" % a.out.ndim)

    def compute(self, a, v, workspace):
        golden, real = v["golden"], v["realdata"]
        if golden.size == 0 or v["out"].size == 0:
            return
        width = np.dtype("u%d" % golden.dtype.itemsize)
        same = np.array_equal(np.ascontiguousarray(golden).view(width), np.ascontiguousarray(real).view(width))
        v["out"][...] = 0 if same else 1
