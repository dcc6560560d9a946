"""aclnnOneHot (ops-math math/one_hot): onValue where the class index matches along a new `axis`, offValue
elsewhere; indices outside [0, numClasses) give a row of offValue (PyTorch would refuse; the kernel writes)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes


def _indices():
    return codes("INT32 INT64 UINT8") if _products.is_regbase() else codes("INT32 INT64")


def _values():
    return codes("FLOAT16 FLOAT INT32 INT64 INT8 UINT8") if _products.is_regbase() else codes("FLOAT16 FLOAT INT32 INT64")


class OneHot(AclnnOp):
    """nulls → dtypes (onValue, offValue of out's) → ranks → numClasses → axis in [-1, ndim] → out's shape."""
    name = "aclnnOneHot"
    inputs, outputs = ("self", "onValue", "offValue"), ("out",)

    def dtype_table(self):
        return {"self": _indices(), "onValue": _values(), "offValue": _values(), "out": _values()}

    def check(self, a):
        checks.not_null(a, "self", "onValue", "offValue", "out")
        checks.dtype_in("self", a.self, _indices())
        for name in ("out", "onValue", "offValue"):
            checks.dtype_in(name, getattr(a, name), _values())
        checks.dtype_match("onValue", a.onValue, a.out.dtype)
        checks.dtype_match("offValue", a.offValue, a.out.dtype)
        checks.max_dim("self", a.self, 7 if _products.is_regbase() else checks.MAX_DIM)
        for name in ("onValue", "offValue", "out"):
            checks.max_dim(name, getattr(a, name))
        if a.self.is_empty() and a.numClasses <= 0:
            raise status.param_invalid("NumClasses should be greater than 0, but got %d." % a.numClasses)
        if not a.self.is_empty() and a.numClasses < 0:
            raise status.param_invalid("NumClasses should be greater and equal than 0, but got %d." % a.numClasses)
        if a.axis < -1:
            raise status.param_invalid("The axis should be greater and equal than -1, but got %d." % a.axis)
        ndim = a.self.ndim
        if a.axis > ndim:
            raise status.param_invalid("The axis should be lower and equal than %d, but got %d." % (ndim, a.axis))
        checks.dim_is("out", a.out, ndim + 1)
        a.position = a.axis if a.axis >= 0 else ndim
        shape = tuple(a.self.shape[:a.position]) + (a.numClasses,) + tuple(a.self.shape[a.position:])
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        on, off = v["onValue"].reshape(-1)[:1], v["offValue"].reshape(-1)[:1]
        index = v["self"].astype(np.int64)
        classes = np.arange(a.numClasses).reshape((-1,) + (1,) * (index.ndim - a.position))
        hit = np.expand_dims(index, a.position) == classes
        P.store(out, np.where(hit, on[0] if on.size else 0, off[0] if off.size else 0))
