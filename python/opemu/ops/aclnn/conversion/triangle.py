"""aclnnTriu / aclnnTril and their in-place forms (ops-math conversion/triu, tril): the upper (lower)
triangle of each matrix of the last two axes, from `diagonal` on (0 the main diagonal, > 0 above it,
< 0 below), the rest zero.

Phase 1 as each op_api reads (hicann/ops-math@c4193324): nulls (self, out) → dtypes → formats → shapes.
  Triu  self's dtype in the product's list, out's equal to it → no private storage format, out's format
        self's → rank ≤ 8, at least 2 when self is not empty, out's shape self's
  Tril  self's and out's dtypes in the list, out's equal to self's → out's format self's → a rank of 2 or
        more (even empty), ranks ≤ 8, out's shape self's
An empty self succeeds with nothing written. The in-place forms check selfRef as both."""
from types import SimpleNamespace

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

_COMMON = "DOUBLE FLOAT FLOAT16 INT64 INT32 INT16 UINT8 INT8 BOOL UINT64 UINT32 UINT16"


def supported():
    line = _products.line()
    if line == "950":
        return P.codes(_COMMON + " BF16 COMPLEX64 COMPLEX32")
    return P.codes(_COMMON + " BF16") if line in ("A2", "A3") else P.codes(_COMMON)


def _check_formats(a, private_refused):
    if private_refused and checks.is_private_format(a.self.format):
        raise status.param_invalid("Format only support ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, self [%d]" % a.self.format)
    if a.self.format != a.out.format:
        raise status.param_invalid("self format is different with out format, self [%d], out [%d]."
                                   % (a.self.format, a.out.format))


class Triu(AclnnOp):
    name = "aclnnTriu"
    inputs = ("self",)
    outputs = ("out",)
    upper = True

    def dtype_table(self):
        return {"self": supported(), "out": supported()}

    def arguments(self, a):
        """(self, out) as the op_api names them (the in-place forms pass selfRef as both)."""
        return a

    def check(self, a):
        a = self.arguments(a)
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, supported())
        checks.dtype_match("out", a.out, a.self.dtype)
        _check_formats(a, private_refused=True)
        checks.max_dim("self", a.self)
        if not a.self.is_empty() and a.self.ndim < 2:
            raise status.param_invalid("The self tensor must have at least 2 dimensions.")
        checks.same_shape("self", a.self, "out", a.out)

    def compute(self, a, v, workspace):
        x, out = v[self.inputs[0]], v[self.outputs[0]]
        if x.size == 0:
            return
        rows, cols = x.shape[-2:]
        diagonal = min(max(a.diagonal, -rows), cols)   # the same triangle; an int64 extreme overflows NumPy's
        keep = np.triu(np.ones((rows, cols), bool), diagonal) if self.upper else \
            np.tril(np.ones((rows, cols), bool), diagonal)
        P.store(out, np.where(keep, x, x.dtype.type(0)))


class Tril(Triu):
    name = "aclnnTril"
    upper = False

    def check(self, a):
        a = self.arguments(a)
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, supported())
        checks.dtype_in("out", a.out, supported())
        checks.dtype_match("out", a.out, a.self.dtype)
        _check_formats(a, private_refused=False)
        if a.self.ndim <= 1:
            raise status.param_invalid("Dim of self should be last 2 dims.")
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        checks.same_shape("self", a.self, "out", a.out)


class _InPlace:
    inputs = ("selfRef",)
    outputs = ("selfRef",)

    def arguments(self, a):
        checks.not_null(a, "selfRef")
        return SimpleNamespace(self=a.selfRef, out=a.selfRef)


class InplaceTriu(_InPlace, Triu):
    name = "aclnnInplaceTriu"


class InplaceTril(_InPlace, Tril):
    name = "aclnnInplaceTril"
