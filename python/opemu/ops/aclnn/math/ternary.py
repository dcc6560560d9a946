"""Three-operand elementwise functions (ops-math math/addcdiv, addcmul, lerp): rows of the elementwise family
(opemu.ops.aclnn.common.elementwise) whose op_api checks its own way, so each row's base class says its order.

    Addcdiv/Addcmul  self + value · tensor1 / tensor2,  self + value · tensor1 · tensor2
    Lerp/Lerps       self + weight · (end - self) where weight < 0.5, else end - (1 - weight) · (end - self)

Lerp's kernel selects between the two forms as PyTorch does (exact at weight 0 and 1); its in-place forms and
Addc*'s run the out-of-place op_api with out = selfRef, so their messages name out.

Addc*: the tensors promote (tensor1 with tensor2, then self), value is converted to that type; fp16/bf16 compute
in fp32 and round once. An INT64 Addcdiv divides in double and truncates into INT64 (the op_api accepts it;
its kernel's integer path is not documented). Lerp: end, weight and out have self's dtype; Lerps casts its
result into out (FLOAT16, FLOAT, DOUBLE, BF16)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import Elementwise, Row, generate, into
from opemu.ops.aclnn.common.promotion import per_product

ADDCDIV = per_product("FLOAT INT64 FLOAT16 DOUBLE", "BF16")
ADDCMUL = per_product("FLOAT INT32 INT64 FLOAT16 INT8 UINT8 DOUBLE", "BF16")
LERP = per_product("FLOAT16 FLOAT", "BF16")
LERPS_OUT = per_product("FLOAT16 FLOAT DOUBLE", "BF16")
ADDCMUL_REFUSED = P.codes("INT16 BOOL COMPLEX64 COMPLEX128")   # PROMOTE_UN_SUPPORT_LIST


def _name(code):
    return dtypes.serial_name(code)


class Addc(Elementwise):
    """Addcdiv/Addcmul: nulls → dtypes → promotion → castable → rank → broadcast → out shape."""
    refused = ()    # promoted types the op_api refuses (Addcmul's list)
    messages = {}   # the op_api's broadcast messages (Addcmul words its own)

    def check(self, a):
        self_name, t1, t2 = [n for n, kind in self.params if kind == "T"]
        out_name = self.target if not self.inplace else "out"
        checks.not_null(a, self_name, t1, t2, "value", *([] if self.inplace else [self.target]), scalars=["value"])
        allowed = self.in_dtypes()
        for name in (self_name, t1, t2):
            checks.dtype_in("self" if name == "selfRef" else name, getattr(a, name), allowed)
        x, y, z, out = getattr(a, self_name), getattr(a, t1), getattr(a, t2), getattr(a, self.target)
        product = P.promote(y.dtype, z.dtype)
        if product is None:
            raise status.param_invalid("tensor1 dtype %s and tensor2 dtype %s can not promote dtype."
                                       % (_name(y.dtype), _name(z.dtype)))
        a.result_dtype = P.promote(x.dtype, product)
        if a.result_dtype is None:
            raise status.param_invalid("self dtype %s and tensor1 * tensor2 dtype %s * %s can not promote dtype."
                                       % (_name(x.dtype), _name(y.dtype), _name(z.dtype)))
        if a.result_dtype in self.refused:
            raise status.param_invalid("addcmul can not support promote dtype %s, self dtype is %s and tensor1 * "
                                       "tensor2 dtype is %s * %s" % (_name(a.result_dtype), _name(x.dtype),
                                                                     _name(y.dtype), _name(z.dtype)))
        checks.result_castable(a.result_dtype, out.dtype)
        self.check_shapes(a, x, y, z, out, out_name)
        self.settle(a, out)

    def check_shapes(self, a, x, y, z, out, out_name):
        for name, tensor in (("self", x), ("tensor1", y), ("tensor2", z), (out_name, out)):
            checks.max_dim(name, tensor)
        product = P.broadcast("tensor1", y.shape, "tensor2", z.shape)
        if not _broadcasts(x.shape, product):
            raise status.param_invalid("The size of tensor self %s must match the size %s."
                                       % (checks.shape_text(x.shape), checks.shape_text(product)))
        checks.shape_is(out_name, out, _broadcast(x.shape, product), checks.shape_text(_broadcast(x.shape, product)))


class Addcmul(Addc):
    refused = ADDCMUL_REFUSED

    def check_shapes(self, a, x, y, z, out, out_name):
        for name, tensor in (("self", x), ("tensor1", y), ("tensor2", z)):
            checks.max_dim(name, tensor)
        if not _broadcasts(y.shape, z.shape):
            raise status.param_invalid("Shape of tensor1 and tensor2 can't broadcast.")
        product = _broadcast(y.shape, z.shape)
        if not _broadcasts(x.shape, product):
            raise status.param_invalid("Shape of self and other can't broadcast.")
        P.out_shape_is(out, _broadcast(x.shape, product))


class Lerp(Elementwise):
    """Lerp (weight a tensor): nulls → self's dtype → end, weight, out of self's dtype → broadcast → out shape
    → rank. Lerps (weight an aclScalar): nulls → self, end in the list → end of self's dtype → out in its list →
    broadcast → out shape → rank."""

    def check(self, a):
        start = [n for n, kind in self.params if kind == "T"][0]
        x, end, weight, out = getattr(a, start), a.end, a.weight, getattr(a, self.target)
        scalar_weight = dict(self.params)["weight"] == "S"
        checks.not_null(a, start, "end", "weight", *([] if self.inplace else [self.target]),
                        scalars=["weight"] if scalar_weight else [])
        checks.dtype_in("self", x, self.in_dtypes())
        if scalar_weight:
            checks.dtype_in("end", end, self.in_dtypes())
            checks.dtype_match("end", end, x.dtype)
            if not self.inplace:
                checks.dtype_in("out", out, LERPS_OUT())
        else:
            checks.dtype_match("end", end, x.dtype)
            checks.dtype_match("weight", weight, x.dtype)
            checks.dtype_match("out", out, x.dtype)
        if not _broadcasts(x.shape, end.shape):
            raise status.param_invalid("Shape of self and end can't broadcast.")
        shape = _broadcast(x.shape, end.shape)
        if not scalar_weight:
            if not _broadcasts(shape, weight.shape):
                raise status.param_invalid("Shape of self, end and weight can't broadcast.")
            shape = _broadcast(shape, weight.shape)
        P.out_shape_is(out, shape)
        for name, tensor in (("self", x), ("end", end)) + ((("weight", weight),) if not scalar_weight else ()):
            checks.max_dim(name, tensor)
        a.result_dtype = x.dtype
        self.settle(a, out)


def _broadcasts(a, b):
    try:
        _broadcast(a, b)
        return True
    except ValueError:
        return False


def _broadcast(a, b):
    return tuple(np.broadcast_shapes(tuple(a), tuple(b)))


def _addcdiv(x, y, z, value, out=None):
    if x.dtype.kind in "iu":    # INT64: the quotient in double, truncated toward zero into the result
        return into((x + np.trunc(value * (y / z))).astype(x.dtype), out)
    return np.add(x, value * np.true_divide(y, z), out=out)


def _addcmul(x, y, z, value, out=None):
    return np.add(x, value * np.multiply(y, z), out=out)


def _lerp(start, end, weight, out=None):
    diff = np.subtract(end, start)
    return into(np.where(weight < 0.5, start + weight * diff, end - diff * (1 - weight)), out)


ROWS = (
    Row("Addcdiv", _addcdiv, ADDCDIV, base=Addc),
    Row("Addcmul", _addcmul, ADDCMUL, base=Addcmul),
    Row("Lerp", _lerp, LERP, forms="Lerp Lerps", base=Lerp),
)
generate(__name__, ROWS)
