"""aclnnAddr and aclnnInplaceAddr (ops-math math/addr): beta·self + alpha·(vec1 ⊗ vec2), beta and alpha 1 when
null; bool operands compute (beta ∧ self) ∨ (alpha ∧ outer). The in-place form runs the out-of-place op_api with
out = selfRef, which must then be the 2-D result itself."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import per_product

ADDR = per_product("DOUBLE FLOAT FLOAT16 INT64 INT32 INT16 INT8 UINT8 BOOL", "BF16")


class Addr(AclnnOp):
    """nulls → dtypes (beta and alpha too, bool only for bool results, integral for integral tensors) →
    vec1, vec2 1-D, self at most 2-D and broadcasting to the outer product → promotion castable → out's shape."""
    name = "aclnnAddr"
    inputs, outputs = ("self", "vec1", "vec2"), ("out",)
    target = "out"

    def dtype_table(self):
        return {name: ADDR() for name in ("self", "vec1", "vec2", self.target)}

    def check(self, a):
        self_name = "selfRef" if self.target != "out" else "self"
        x, out = getattr(a, self_name), getattr(a, self.target)
        checks.not_null(a, self_name, "vec1", "vec2", self.target)
        for name, tensor in (("self", x), ("vec1", a.vec1), ("vec2", a.vec2), ("out", out)):
            checks.dtype_in(name, tensor, ADDR())
        for name in ("betaOptional", "alphaOptional"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), ADDR())
        high = P.promote(x.dtype, P.promote(a.vec2.dtype, a.vec1.dtype))
        integral = all(P.category(t.dtype) < 2 for t in (x, a.vec1, a.vec2))
        for word, name in (("beta", "betaOptional"), ("alpha", "alphaOptional")):
            scalar = getattr(a, name)
            if scalar is not None and high != P.BOOL and scalar.dtype == P.BOOL:
                raise status.param_invalid("Boolean %s only supported for Boolean results." % word)
        for word, name in (("beta", "betaOptional"), ("alpha", "alphaOptional")):
            scalar = getattr(a, name)
            if integral and scalar is not None and P.category(scalar.dtype) >= 2:
                raise status.param_invalid("For integral input tensors, argument %s must not be a floating point "
                                           "number" % word)
        checks.dim_is("vec1", a.vec1, 1)
        checks.dim_is("vec2", a.vec2, 1)
        checks.max_dim("self", x, 2)
        outer = (a.vec1.shape[0], a.vec2.shape[0])
        if self.target != "out":
            checks.dim_is("self", x, 2)
            shape = tuple(x.shape)
        else:
            try:
                shape = tuple(np.broadcast_shapes(tuple(x.shape), outer))
            except ValueError:
                raise status.param_invalid("the size of tensor self %s must match the size of tensor outer %s."
                                           % (checks.shape_text(x.shape), checks.shape_text(outer))) from None
        if shape != outer:
            raise status.param_invalid("size mismatch, input: %s, v1: %s, v2: %s"
                                       % (checks.shape_text(x.shape), checks.shape_text(a.vec1.shape),
                                          checks.shape_text(a.vec2.shape)))
        checks.result_castable(high, out.dtype)
        checks.shape_is("out", out, outer, checks.shape_text(outer))
        a.high = high

    def compute(self, a, v, workspace):
        out = v[self.target]
        if out.size == 0:
            return
        x = v["selfRef" if self.target != "out" else "self"]
        ct = P.compute_type(a.high)
        x, v1, v2 = (P.as_compute(t, ct) for t in (x, v["vec1"], v["vec2"]))
        beta = 1 if a.betaOptional is None else a.betaOptional.as_type(ct)
        alpha = 1 if a.alphaOptional is None else a.alphaOptional.as_type(ct)
        with np.errstate(all="ignore"):
            if ct == np.bool_:
                result = (bool(beta) & x) | (bool(alpha) & np.logical_and.outer(v1, v2))
            else:
                outer = np.multiply.outer(v1, v2)
                result = (outer if alpha == 1 else alpha * outer) + (0 if beta == 0 else (x if beta == 1 else beta * x))
        P.store(out, np.broadcast_to(result, out.shape).astype(dtypes.numpy_dtype(a.high), copy=False))


class InplaceAddr(Addr):
    name = "aclnnInplaceAddr"
    inputs, outputs, target = ("selfRef", "vec1", "vec2"), ("selfRef",), "selfRef"
