"""aclnnPermute (ops-math conversion/transpose): data movement whose result lands through out's view;
the values are copied bit for bit."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

PERMUTABLE = P.codes("FLOAT FLOAT16 INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 BOOL DOUBLE COMPLEX64 "
                     "COMPLEX128 BF16")


class Permute(AclnnOp):
    name = "aclnnPermute"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": PERMUTABLE, "out": PERMUTABLE}

    def check(self, a):
        checks.not_null(a, "self", "dims", "out")
        checks.dtype_in("self", a.self, PERMUTABLE)
        checks.dtype_in("out", a.out, PERMUTABLE)
        if a.self.dtype == P.BF16 and _products.line() not in ("A2", "A3"):
            raise status.param_invalid("Self dtype DT_BFLOAT16 is unsupported by the current SOC version [%s]."
                                       % soc())
        checks.same_dtype("self", a.self, "out", a.out)
        n = a.self.ndim
        if n != a.out.ndim:
            raise status.param_invalid("Permute does not support self shape: %s, output shape: %s"
                                       % (checks.shape_text(a.self.shape), checks.shape_text(a.out.shape)))
        if len(a.dims) != n:
            raise status.param_invalid("The dimension of the dims:%d and the dimension of the input shape:%d are "
                                       "inconsistent" % (len(a.dims), n))
        if len(set(a.dims)) != len(a.dims):
            raise status.param_invalid("Invalid dims and it contains duplicate elements")
        checks.max_dim("self", a.self)
        low, high = min(-n, n - 1), max(-n, n - 1)
        for d in a.dims:
            if not low <= d <= high:
                raise status.param_invalid("The values of dims should be in range [%d, %d]." % (low, high))
        a.axes = tuple(d % n for d in a.dims) if n else ()
        if len(set(a.axes)) != len(a.axes):
            raise status.param_invalid("Each dimension in perm should not be repeated.")
        P.result_shape_is("permuteOut", tuple(a.self.shape[d] for d in a.axes), a.out)

    def compute(self, a, v, workspace):
        if v["out"].size:
            np.copyto(v["out"], np.transpose(v["self"], a.axes))
