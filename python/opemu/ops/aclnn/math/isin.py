"""aclnnIsInScalarTensor and aclnnIsInTensorScalar (ops-math math/equal: aclnn_isin.cpp,
aclnn_isin_tensor_scalar.cpp): whether an element occurs among the test elements, or its negation
(`invert`); `assumeUnique` changes nothing in the answer.

IsInScalarTensor answers one value into a 0-d BOOL out: the scalar and the test elements compare in the
op_api's dtype (the test elements' own when they are floating, or when neither is; op::PromoteType when
there are at least ten of them or the scalar is floating); a NaN scalar or no test elements answers
`invert`. IsInTensorScalar compares each element with the scalar (the element's dtype when floating, else
promoted with a floating scalar)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

SCALAR_TENSOR = P.per_product("FLOAT FLOAT16 INT8 INT32 INT64 UINT8 DOUBLE INT16", "BF16")
TENSOR_SCALAR = P.per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE", "BF16")
ELEMENTS_THRESHOLD = 10   # at least this many test elements: plain op::PromoteType


def _compare_dtype(values, scalar, many):
    if many:
        return P.promote(values, scalar)
    if P.category(values) == 2:
        return values
    if P.category(scalar) == 2:
        return P.promote(values, scalar)
    return values


class IsInScalarTensor(AclnnOp):
    name = "aclnnIsInScalarTensor"
    inputs = ("testElements",)
    outputs = ("out",)

    def dtype_table(self):
        return {"testElements": SCALAR_TENSOR(), "out": (P.BOOL,)}

    def check(self, a):
        checks.not_null(a, "element", "testElements", "out", scalars=("element",))
        checks.dtype_in("element", a.element, SCALAR_TENSOR())
        checks.dtype_in("testElements", a.testElements, SCALAR_TENSOR())
        checks.dtype_match("out", a.out, P.BOOL)
        a.compare = _compare_dtype(a.testElements.dtype, a.element.dtype, a.testElements.numel() >= ELEMENTS_THRESHOLD)
        if a.compare is None:
            raise status.param_invalid("Expected element %s and testElements %s can promote dtype but check failed."
                                       % (dtypes.serial_name(a.element.dtype), dtypes.serial_name(a.testElements.dtype)))
        for source in (a.element.dtype, a.testElements.dtype):
            checks.result_castable(source, a.compare)
        checks.max_dim("testElements", a.testElements)
        checks.dim_is("out", a.out, 0)

    def compute(self, a, v, workspace):
        value = a.element.as_type(dtypes.numpy_dtype(a.compare))
        values = v["testElements"].astype(dtypes.numpy_dtype(a.compare))
        found = bool(np.any(values == value)) if values.size and value == value else False
        v["out"][()] = found != bool(a.invert)


class IsInTensorScalar(AclnnOp):
    name = "aclnnIsInTensorScalar"
    inputs = ("element",)
    outputs = ("out",)

    def dtype_table(self):
        return {"element": TENSOR_SCALAR(), "out": (P.BOOL,)}

    def check(self, a):
        checks.not_null(a, "element", "testElement", "out", scalars=("testElement",))
        checks.dtype_in("element", a.element, TENSOR_SCALAR())
        checks.dtype_in("testElement", a.testElement, TENSOR_SCALAR())
        checks.dtype_match("out", a.out, P.BOOL)
        if _products.is_regbase():
            a.compare = P.promote_with_scalar(a.element.dtype, a.testElement.dtype)
        else:
            a.compare = _compare_dtype(a.element.dtype, a.testElement.dtype, False)
        if a.compare is None:
            raise status.param_invalid("element dtype %s and testElement dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.element.dtype), dtypes.serial_name(a.testElement.dtype)))
        if a.compare not in TENSOR_SCALAR():
            raise status.param_invalid("element dtype %s and testElement dtype %s get promoteType dtype %s should be "
                                       "in dtype support list [%s]."
                                       % (dtypes.serial_name(a.element.dtype), dtypes.serial_name(a.testElement.dtype),
                                          dtypes.serial_name(a.compare), dtypes.serial_list(TENSOR_SCALAR())))
        checks.max_dim("element", a.element)
        checks.max_dim("out", a.out)
        checks.same_shape("out", a.out, "element", a.element)

    def compute(self, a, v, workspace):
        if a.out.is_empty():
            return
        compare = dtypes.numpy_dtype(a.compare)
        test = np.not_equal if a.invert else np.equal
        test(v["element"].astype(compare), a.testElement.as_type(compare), out=v["out"])
