"""Phase-1 checks with opbase's messages (op_error_check.h), shared by every aclnn operator."""
import functools

from opemu.core import dtypes
from opemu.core.status import param_invalid, param_nullptr

MAX_DIM = 8


def shape_text(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def not_null(a, *names, scalars=()):
    """OP_CHECK_NULL in `names` order: opbase's IsNullptr words its message by the argument's type (an aclScalar
    in `scalars` is "a value of type number")."""
    for name in names:
        if getattr(a, name) is None:
            if name in scalars:
                raise param_nullptr("Expected a value of type number for argument %s but instead found type null."
                                    % name)
            raise param_nullptr("Expected a proper Tensor but got null for argument %s." % name)


def dtype_in(name, tensor, allowed):
    if tensor.dtype not in allowed:
        raise param_invalid("Tensor %s not implemented for %s, should be in dtype support list %s."
                            % (name, dtypes.serial_name(tensor.dtype), dtypes.serial_list(allowed)))


def same_dtype(name_a, a, name_b, b):
    if a.dtype != b.dtype:
        raise param_invalid("Expected both tensors to have same dtype, but found %s %s and %s %s."
                            % (name_a, dtypes.serial_name(a.dtype), name_b, dtypes.serial_name(b.dtype)))


def max_dim(name, tensor, limit=MAX_DIM):
    if tensor.ndim > limit:
        raise param_invalid("The %s tensor cannot be larger than %d dimensions." % (name, limit))


# Bytes one tensor may span: an address-space offset (int64, as the device's and NumPy's are)
MAX_SPAN_BYTES = 2 ** 63 - 1


def layout_supported(name, tensor):
    """What every tensor an op touches must be, whether or not its own check looks at it: a dtype
    with an element size (else a kernel could not address it), no negative sizes, strides or offset
    (the docs require >= 0), and a byte extent that fits an address offset (numel and span)."""
    if not dtypes.has_layout(tensor.dtype):
        raise param_invalid("Tensor %s has dtype %s, which no kernel of this op supports."
                            % (name, dtypes.serial_name(tensor.dtype)))
    if min(tensor.shape + tensor.strides + (tensor.offset,)) < 0:
        raise param_invalid("Tensor %s has a negative dim, stride or offset (shape %s, strides %s, offset %d)."
                            % (name, shape_text(tensor.shape), shape_text(tensor.strides), tensor.offset))
    item = dtypes.storage_dtype(tensor.dtype).itemsize
    last = tensor.offset + sum((d - 1) * s for d, s in zip(tensor.shape, tensor.strides)) if not tensor.is_empty() else 0
    if max(tensor.numel(), last + 1, *tensor.strides, 0) * item > MAX_SPAN_BYTES:
        raise param_invalid("Tensor %s spans more than 2^63 bytes (shape %s, strides %s, offset %d)."
                            % (name, shape_text(tensor.shape), shape_text(tensor.strides), tensor.offset))


def min_dim(name, tensor, limit):
    """OP_CHECK_MIN_DIM."""
    if tensor.ndim < limit:
        raise param_invalid("The %s tensor must have at least %d dimensions." % (name, limit))


def dtype_match(name, tensor, expected):
    """OP_CHECK_DTYPE_NOT_MATCH."""
    if tensor.dtype != expected:
        raise param_invalid("Tensor %s expected dtype is %s but found %s."
                            % (name, dtypes.serial_name(expected), dtypes.serial_name(tensor.dtype)))


def dim_is(name, tensor, ndim):
    """OP_CHECK_WRONG_DIMENSION."""
    if tensor.ndim != ndim:
        raise param_invalid("Expected %d dimension input, but got %s with sizes %s."
                            % (ndim, name, shape_text(tensor.shape)))


def shape_is(name, tensor, expected, expected_name):
    """OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE."""
    if tuple(tensor.shape) != tuple(expected):
        raise param_invalid("Expected tensor for %s to have same size as %s, but got %s."
                            % (name, expected_name, shape_text(tensor.shape)))


def same_shape(name_a, a, name_b, b):
    """OP_CHECK_SHAPE_NOT_EQUAL."""
    if a.shape != b.shape:
        raise param_invalid("Expected tensor for %s to have same size as tensor for %s, but %s does not equal %s."
                            % (name_a, name_b, shape_text(a.shape), shape_text(b.shape)))


def nd_format(name, tensor):
    if tensor.format != dtypes.ACL_FORMAT["ACL_FORMAT_ND"]:
        raise param_invalid("Tensor %s only supports ND format." % name)


_COMPLEX = ("COMPLEX32", "COMPLEX64", "COMPLEX128")
_FLOATING = ("FLOAT", "FLOAT16", "BF16", "DOUBLE", "FLOAT8_E5M2", "FLOAT8_E4M3FN", "HIFLOAT8")
_INTEGRAL = ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "INT4", "UINT1")


def can_cast(source, target):
    """op::CanCast (PyTorch's canCast): no complex → real, floating → integral, or anything → bool."""
    def kind(code, names):
        return any(dtypes.ACL_DTYPE.get("ACL_" + n) == code for n in names)
    if source == target:
        return True
    if kind(source, _COMPLEX) and not kind(target, _COMPLEX):
        return False
    if kind(source, _FLOATING) and kind(target, _INTEGRAL):
        return False
    return not (source != dtypes.acl("BOOL") and target == dtypes.acl("BOOL"))


def result_castable(source, target):
    """OP_CHECK_RESULT_DTYPE_CAST_FAILED."""
    if not can_cast(source, target):
        raise param_invalid("Result type %s can't be cast to the desired output type %s."
                            % (dtypes.serial_name(source), dtypes.serial_name(target)))


_PRIVATE_FORMATS = ("NC1HWC0", "FRACTAL_Z", "NC1HWC0_C04", "FRACTAL_NZ", "NDC1HWC0", "FRACTAL_NZ_C0_16",
                    "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4", "FRACTAL_NZ_C0_8")


def is_private_format(code):
    """op::IsPrivateFormat: the hardware's blocked layouts (C0 / fractal), as opposed to ND-like ones."""
    return code in _private_format_codes()


@functools.lru_cache(maxsize=None)
def _private_format_codes():
    names = ["ACL_FORMAT_" + n for n in _PRIVATE_FORMATS] + ["ACL_FRACTAL_Z_3D"]
    return frozenset(dtypes.ACL_FORMAT[n] for n in names if n in dtypes.ACL_FORMAT)
