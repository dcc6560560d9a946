"""Products and comparisons of whole tensors (ops-math math/dot, ger, trace, tensor_equal): aclnnDot (1-D · 1-D
into a 0-d out), aclnnGer (outer product), aclnnTrace (sum of a matrix's diagonal) and aclnnEqual (one bool:
same shape and same values).

fp16/bf16 accumulate in fp32 and round once; Trace of integers sums into INT64 (PyTorch's rule, and the op_api
requires an INT64 out)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_line, per_product

DOT = per_product("FLOAT FLOAT16 INT8 INT32 UINT8", "BF16")
GER = per_line("FLOAT FLOAT16 INT32 DOUBLE INT8 UINT8 INT16 BOOL INT64 COMPLEX64 COMPLEX128",
               regbase="FLOAT FLOAT16 INT32 DOUBLE INT8 UINT8 INT16 BOOL BF16 INT64 COMPLEX64 COMPLEX128")
TRACE = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128 INT32 INT64 INT16 INT8 UINT8 BOOL", "BF16")
EQUAL = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL DOUBLE UINT16 UINT32 UINT64", "BF16")
BOOL_OUT = lambda: codes("BOOL")


class Dot(AclnnOp):
    """nulls → dtypes (tensor and out of self's, self in the list) → 1-D operands of one size → 0-d out."""
    name = "aclnnDot"
    inputs, outputs = ("self", "tensor"), ("out",)

    def dtype_table(self):
        return {"self": DOT(), "tensor": DOT(), "out": DOT()}

    def check(self, a):
        checks.not_null(a, "self", "tensor", "out")
        checks.same_dtype("self", a.self, "tensor", a.tensor)
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, DOT())
        shapes = checks.shape_text(a.self.shape), checks.shape_text(a.tensor.shape)
        if a.self.ndim != 1 or a.tensor.ndim != 1:
            raise status.param_invalid("expected 1D input tensors, but got %s and %s tensors." % shapes)
        if a.self.shape[0] != a.tensor.shape[0]:
            raise status.param_invalid("expected consistent tensor size, but got %s and %s tensors." % shapes)
        if a.out.ndim != 0:
            raise status.param_invalid("expected 0D output tensor, but got %s tensor." % checks.shape_text(a.out.shape))

    def compute(self, a, v, workspace):
        x, y = P.widened(v["self"]), P.widened(v["tensor"])
        P.store(v["out"], np.sum(x * y, dtype=x.dtype if x.dtype.kind == "f" else np.int64))


class Ger(AclnnOp):
    """nulls → dtypes → promotion castable to out → 1-D operands, a 2-D out of their sizes."""
    name = "aclnnGer"
    inputs, outputs = ("self", "vec2"), ("out",)

    def dtype_table(self):
        return {"self": GER(), "vec2": GER(), "out": GER()}

    def check(self, a):
        checks.not_null(a, "self", "vec2", "out")
        checks.dtype_in("self", a.self, GER())
        checks.dtype_in("vec2", a.vec2, GER())
        a.result_dtype = P.promote(a.self.dtype, a.vec2.dtype)
        if a.result_dtype is None:
            raise status.param_invalid("Self dtype %s and vec2 dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.vec2.dtype)))
        checks.result_castable(a.result_dtype, a.out.dtype)
        for name in ("self", "vec2"):
            if getattr(a, name).ndim != 1:
                raise status.param_invalid("Expected 1-D argument, but got %d-D." % getattr(a, name).ndim)
        if a.out.ndim != 2:
            raise status.param_invalid("Expected 2-D argument, but got %d-D." % a.out.ndim)
        if tuple(a.out.shape) != (a.self.shape[0], a.vec2.shape[0]):
            raise status.param_invalid("Expected sizes of out{%d, %d}should be equal to self * vec2 {%d, %d}"
                                       % (tuple(a.out.shape) + (a.self.shape[0], a.vec2.shape[0])))

    def compute(self, a, v, workspace):
        if a.out.is_empty():
            return
        ct = P.compute_type(a.result_dtype)
        x, y = P.as_compute(v["self"], ct), P.as_compute(v["vec2"], ct)
        product = np.logical_and.outer(x, y) if ct == np.bool_ else np.multiply.outer(x, y)
        P.store(v["out"], product.astype(dtypes.numpy_dtype(a.result_dtype)) if ct != v["out"].dtype else product)


class Trace(AclnnOp):
    """nulls → self a matrix, out 0-d → dtypes (out INT64 for integral self, else self's)."""
    name = "aclnnTrace"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": TRACE(), "out": TRACE()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        if a.self.ndim != 2:
            raise status.param_invalid("trace: expected a matrix, but got tensor with dim %d" % a.self.ndim)
        if a.out.ndim != 0:
            raise status.param_invalid("expected 0D output tensor, but got %s tensor." % checks.shape_text(a.out.shape))
        checks.dtype_in("self", a.self, TRACE())
        integral = P.category(a.self.dtype) < 2
        checks.dtype_match("out", a.out, P.INT64 if integral else a.self.dtype)

    def compute(self, a, v, workspace):
        x = P.widened(v["self"])
        diagonal = np.diagonal(x)
        P.store(v["out"], np.sum(diagonal, dtype=np.int64 if x.dtype.kind in "iub" else x.dtype))


class Equal(AclnnOp):
    """nulls → promotion in the list → out BOOL → ranks → out of shape [1]; true when self and other have one
    shape and equal values (NaN is not equal to itself)."""
    name = "aclnnEqual"
    inputs, outputs = ("self", "other"), ("out",)

    def dtype_table(self):
        return {"self": EQUAL(), "other": EQUAL(), "out": BOOL_OUT()}

    def check(self, a):
        checks.not_null(a, "self", "other", "out")
        names = (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.other.dtype))
        a.result_dtype = P.promote(a.self.dtype, a.other.dtype)
        if a.result_dtype is None:
            raise status.param_invalid("Self dtype %s and other dtype %s can not promote dtype." % names)
        if a.result_dtype not in EQUAL():
            raise status.param_invalid("Self dtype %s and other dtype %s get promoteType dtype %s should be in dtype "
                                       "support list %s." % (names + (dtypes.serial_name(a.result_dtype),
                                                                      dtypes.serial_list(EQUAL()))))
        checks.dtype_in("out", a.out, BOOL_OUT())
        for name in ("self", "other", "out"):
            checks.max_dim(name, getattr(a, name))
        checks.shape_is("out", a.out, (1,), "[1]")

    def compute(self, a, v, workspace):
        x, y = v["self"], v["other"]
        same = x.shape == y.shape
        if same and x.size:
            ct = P.compute_type(a.result_dtype)
            same = bool(np.array_equal(P.as_compute(x, ct), P.as_compute(y, ct)))
        v["out"][...] = same
