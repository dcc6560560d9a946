"""aclnnNorm (ops-nn norm/lp_norm_v2): the p-norm over dims, a row of the reduction family
(opemu.ops.aclnn.common.reduction)."""
import numpy as np

from opemu.ops.aclnn.common.promotion import per_product
from opemu.ops.aclnn.common.reduction import Reduction

NORMABLE = per_product("FLOAT FLOAT16", "BF16")


class Norm(Reduction):
    name = "aclnnNorm"
    allowed = staticmethod(NORMABLE)
    not_null = ("self", "pScalar", "dim", "out")

    def check_more(self, a):
        a.p = a.pScalar.to_float()

    def reduce(self, a, x, out):
        p = a.p
        magnitude = np.abs(x)
        if p == np.inf:
            return np.max(magnitude, axis=a.axes, keepdims=a.keep, initial=0)
        if p == -np.inf:
            return np.min(magnitude, axis=a.axes, keepdims=a.keep, initial=np.inf)
        if p == 0:
            return np.sum(magnitude != 0, axis=a.axes, keepdims=a.keep, dtype=magnitude.dtype)
        if p == 1:
            return np.sum(magnitude, axis=a.axes, keepdims=a.keep)
        if p == 2:
            return np.sqrt(np.sum(magnitude * magnitude, axis=a.axes, keepdims=a.keep))
        return np.power(np.sum(np.power(magnitude, p), axis=a.axes, keepdims=a.keep), 1 / p)
