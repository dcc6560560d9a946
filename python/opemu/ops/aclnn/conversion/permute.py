"""aclnnRepeat (ops-math math/tile) and aclnnPermute (conversion/transpose): data movement whose
result lands through out's view; the values are copied bit for bit."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn import _products
from opemu.ops.aclnn import _promotion as P

REPEATABLE = P.per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128 UINT8 INT8 INT16 INT32 INT64 BOOL BF16 UINT32 "
                           "UINT64", "UINT16")
PERMUTABLE = P.codes("FLOAT FLOAT16 INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 BOOL DOUBLE COMPLEX64 "
                     "COMPLEX128 BF16")


def _result_shape_is(result_name, expected, out):
    """The op_api's final OP_CHECK_SHAPE_NOT_EQUAL between its computed result and out."""
    if tuple(out.shape) != expected:
        raise status.param_invalid("Expected tensor for %s to have same size as tensor for out, but %s does not "
                                   "equal %s." % (result_name, checks.shape_text(expected), checks.shape_text(out.shape)))


class Repeat(AclnnOp):
    name = "aclnnRepeat"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": REPEATABLE(), "out": REPEATABLE()}

    def check(self, a):
        checks.not_null(a, "self", "repeats", "out")
        checks.dtype_in("self", a.self, REPEATABLE())
        checks.same_dtype("self", a.self, "out", a.out)
        if a.self.ndim > len(a.repeats):
            raise status.param_invalid("Number of dimensions of repeat dims can not be smaller than number of "
                                       "dimensions of input tensor, self %d, repeats %d." % (a.self.ndim, len(a.repeats)))
        for i, r in enumerate(a.repeats):
            if r < 0:
                raise status.param_invalid("repeats expected %dth value > 0, but got %d" % (i + 1, r))
        checks.max_dim("self", a.self)
        if len(a.repeats) > 8:
            raise status.param_invalid("repeats size should not be larger than 8. self %d, repeats %d"
                                       % (a.self.ndim, len(a.repeats)))
        padded = (1,) * (len(a.repeats) - a.self.ndim) + tuple(a.self.shape)
        _result_shape_is("repeatRes", tuple(d * r for d, r in zip(padded, a.repeats)), a.out)

    def compute(self, a, v, workspace):
        if v["out"].size:
            np.copyto(v["out"], np.tile(v["self"], a.repeats))


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
        _result_shape_is("permuteOut", tuple(a.self.shape[d] for d in a.axes), a.out)

    def compute(self, a, v, workspace):
        if v["out"].size:
            np.copyto(v["out"], np.transpose(v["self"], a.axes))
