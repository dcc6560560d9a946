"""aclnnSinkhorn (ops-math math/sinkhorn): the Sinkhorn balancing of exp(cost) that MoE routers use, as its
doc gives it: d0, d1 rescaled in turn until the mean change of d1 is at most tol; p = d1·exp(cost)·d0[:, None].
Computed in FLOAT (the op_api casts fp16/bf16 first); at most 10,000 rounds, where the device would loop on."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import per_product

SINKHORN = per_product("FLOAT FLOAT16", "BF16")
MAX_COLUMNS = 4096
MAX_ROUNDS = 10000
EPS = np.float32(1e-8)


class Sinkhorn(AclnnOp):
    """nulls → dtypes → cost 2-D, p of its shape, at most 4096 columns."""
    name = "aclnnSinkhorn"
    inputs, outputs = ("cost",), ("p",)

    def dtype_table(self):
        return {"cost": SINKHORN(), "p": SINKHORN()}

    def check(self, a):
        checks.not_null(a, "cost", "p")
        checks.dtype_in("cost", a.cost, SINKHORN())
        checks.dtype_in("p", a.p, SINKHORN())
        checks.dim_is("cost", a.cost, 2)
        checks.same_shape("cost", a.cost, "p", a.p)
        if a.cost.shape[1] > MAX_COLUMNS:
            raise status.param_invalid("the column number of cost is %d, it cannot be larger than %d."
                                       % (a.cost.shape[1], MAX_COLUMNS))

    def compute(self, a, v, workspace):
        if v["cost"].size == 0:
            return
        tol = np.float32(0.0001 if a.tol is None else np.real(a.tol.value))
        with np.errstate(all="ignore"):
            cost = np.exp(v["cost"].astype(np.float32))
            rows, cols = cost.shape
            d0, d1 = np.ones(rows, np.float32), np.ones(cols, np.float32)
            for _ in range(MAX_ROUNDS):
                d1_old = d1
                d0 = 1 / (rows * (np.sum(d1 * cost, axis=1) + EPS))
                d1 = 1 / (cols * (np.sum(d0[:, None] * cost, axis=0) + EPS))
                if not np.mean(np.abs(d1_old - d1)) > tol:
                    break
            P.store(v["p"], d1 * cost * d0[:, None])
