"""What the ops-math families share: dtype groups, opbase's PromoteType, broadcasting with
opbase's message, per-product dtype lists, and the kernel's compute dtype and rounding point.

Rounding: a kernel on fp16/bf16 data computes in fp32 and rounds once into the output dtype
(ml_dtypes, nearest even); NumPy would otherwise compute bf16 in bf16."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import products as _products


def codes(names):
    return tuple(dtypes.acl(n) for n in names.split())


BOOL = dtypes.acl("BOOL")
FLOAT, FLOAT16, BF16, DOUBLE = codes("FLOAT FLOAT16 BF16 DOUBLE")
INT64 = dtypes.acl("INT64")
COMPLEX64, COMPLEX128 = codes("COMPLEX64 COMPLEX128")
FLOATS = codes("FLOAT16 BF16 FLOAT DOUBLE")
COMPLEXES = codes("COMPLEX64 COMPLEX128")
SIGNED = codes("INT8 INT16 INT32 INT64")
UNSIGNED = codes("UINT8 UINT16 UINT32 UINT64")


def category(code):
    """bool 0 < integral 1 < floating 2 < complex 3 (PyTorch's category order)."""
    if code == BOOL:
        return 0
    if code in FLOATS:
        return 2
    if code in COMPLEXES:
        return 3
    return 1


def per_product(base, a2_extra=""):
    """A dtype list per product line: `base` everywhere, plus `a2_extra` (usually BF16) on the
    Atlas A2/A3 and 950 lines (opbase's DAV_2201 and regbase architectures)."""
    base_codes, extra = codes(base), codes(a2_extra)
    return lambda: base_codes + extra if _products.line() in ("A2", "A3", "950") else base_codes


def per_line(base, a2=None, regbase=None, p310=None):
    """A dtype list per product line where the op_api keeps more than two tables, each a whole list: `base`
    on the 910 (and 310B), `a2` on Atlas A2/A3 (default `base`), `regbase` on the 950 line (default `a2`),
    `p310` on the 310P (default `base`)."""
    base_codes = codes(base)
    a2_codes = base_codes if a2 is None else codes(a2)
    table = {"A2": a2_codes, "A3": a2_codes, "950": a2_codes if regbase is None else codes(regbase),
             "310P": base_codes if p310 is None else codes(p310)}
    return lambda: table.get(_products.line(), base_codes)


# Dtype lists several families share (ops-math's and ops-nn's op_api tables repeat them): the inputs and
# outputs of the transcendental functions, and the floating types of the activations.
MATH_IN = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 BOOL UINT8 COMPLEX64 COMPLEX128", "BF16")
MATH_OUT = per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")
HALF_FLOAT = per_product("FLOAT FLOAT16", "BF16")

_FLOAT_RANK = {FLOAT16: 1, BF16: 1, FLOAT: 2, DOUBLE: 3}
_COMPLEX_OF = {FLOAT16: COMPLEX64, BF16: COMPLEX64, FLOAT: COMPLEX64, DOUBLE: COMPLEX128}


def promote(a, b):
    """op::PromoteType (PyTorch's promoteTypes table); None where the table is undefined."""
    if a == b:
        return a
    if a == BOOL:
        return b
    if b == BOOL:
        return a
    ca, cb = category(a), category(b)
    if ca == 3 or cb == 3:
        if ca == 3 and cb == 3:
            return COMPLEX128 if COMPLEX128 in (a, b) else COMPLEX64
        complex_one, other = (a, b) if ca == 3 else (b, a)
        return COMPLEX128 if other == DOUBLE else complex_one
    if ca == 2 and cb == 2:
        if {a, b} == {FLOAT16, BF16}:
            return FLOAT
        return a if _FLOAT_RANK[a] > _FLOAT_RANK[b] else b
    if ca == 2 or cb == 2:
        return a if ca == 2 else b
    if a in UNSIGNED[1:] or b in UNSIGNED[1:]:
        return None  # uint16/32/64 mix with nothing but themselves and bool
    return dtypes.ACL_OF[np.promote_types(dtypes.numpy_dtype(a), dtypes.numpy_dtype(b))]


def promote_with_scalar(tensor, scalar):
    """A tensor with an aclScalar: the tensor's dtype wins unless the scalar's category is higher;
    then the scalar's category at its default width (float → FLOAT, complex → COMPLEX64) joins."""
    if category(scalar) <= category(tensor):
        return tensor
    default = {2: FLOAT, 3: COMPLEX64}.get(category(scalar), scalar)
    return promote(tensor, default)


def broadcast(name_a, a, name_b, b):
    """OP_CHECK_BROADCAST_AND_INFER_SHAPE."""
    shape = []
    for x, y in zip(((1,) * (len(b) - len(a))) + tuple(a), ((1,) * (len(a) - len(b))) + tuple(b)):
        if x != y and x != 1 and y != 1:
            raise status.param_invalid("The size of tensor %s %s must match the size of tensor %s %s."
                                       % (name_a, checks.shape_text(a), name_b, checks.shape_text(b)))
        shape.append(y if x == 1 else x)
    return tuple(shape)


def out_shape_is(out, expected):
    if tuple(out.shape) != tuple(expected):
        raise status.param_invalid("Shape of out should be %s, but current is %s."
                                   % (checks.shape_text(expected), checks.shape_text(out.shape)))


def result_shape_is(result_name, expected, out):
    """The op_api's final OP_CHECK_SHAPE_NOT_EQUAL between its computed result and out."""
    if tuple(out.shape) != expected:
        raise status.param_invalid("Expected tensor for %s to have same size as tensor for out, but %s does not "
                                   "equal %s." % (result_name, checks.shape_text(expected), checks.shape_text(out.shape)))


def compute_type(code):
    """The NumPy dtype a kernel computes `code` data in: fp16/bf16 in fp32."""
    if code in (FLOAT16, BF16):
        return np.dtype(np.float32)
    return dtypes.numpy_dtype(code)


def store(out, result):
    """The kernel's last step: round/convert into the output dtype, through the output view
    (overflow saturates to inf as the hardware's conversion does; no warning)."""
    if result is not out:
        with np.errstate(over="ignore", invalid="ignore"):
            np.copyto(out, result, casting="unsafe")


def as_compute(view, numpy_type):
    return view if view.dtype == numpy_type else view.astype(numpy_type)


def widened(view):
    """An fp16/bf16 view in fp32 (where a kernel computes them), any other as it is."""
    return view.astype(np.float32) if view.dtype.kind == "V" or view.dtype == np.float16 else view
