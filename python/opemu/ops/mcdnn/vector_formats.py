"""Integer tensors and the vectorised layout MCDNN_TENSOR_NCHW_VECT_C.

An element of INT8x4, UINT8x4 or INT8x32 data is a vector of 4 or 32 consecutive channels: memory holds
N x C/v x spatial… x v bytes, the descriptor's dims are the logical ones (C a multiple of v) and its strides
count vectors (csrc/mcdnn/vector_formats.c). A routine sees such a tensor as its storage, an
(N, C/v, spatial…, v) view (opemu.core.mcdnn); `logical` gives the (N, C, spatial…) values and `store`
writes them back.

Integer results are computed in floating point, then rounded to nearest (ties to even) and saturated to
the destination's range, as the device's converting stores do. TransformTensor moves data between the
layouts of one integer family: INT8, INT8x4 and INT8x32 (signed), UINT8 and UINT8x4 (unsigned), INT32."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.mcdnn import DATA

INT8, UINT8, INT32 = (DATA[n] for n in ("MCDNN_DATA_INT8", "MCDNN_DATA_UINT8", "MCDNN_DATA_INT32"))
INT8x4, UINT8x4, INT8x32 = (DATA[n] for n in ("MCDNN_DATA_INT8x4", "MCDNN_DATA_UINT8x4", "MCDNN_DATA_INT8x32"))
FAMILY = {INT8: INT8, INT8x4: INT8, INT8x32: INT8, UINT8: UINT8, UINT8x4: UINT8, INT32: INT32}


def integer(tensor):
    return tensor.dtype_code in FAMILY


def vector(tensor):
    return tensor.dtype_code in mcdnn.VECTOR


def element_dtype(tensor):
    """The NumPy type of one channel's value."""
    return mcdnn.VECTOR[tensor.dtype_code][1] if vector(tensor) else tensor.dtype


def logical(array, tensor):
    """(N, C, spatial…) values of a routine's view of `tensor` (a storage view of a vector type, or an array
    already of the logical shape)."""
    if array.ndim == tensor.ndim:
        return array
    moved = np.moveaxis(array, -1, 2)   # (N, C/v, v, spatial…)
    return moved.reshape(tensor.shape)


def store(view, tensor, values):
    """Writes logical values (already of the element type) into a view of `tensor`."""
    if view.ndim == tensor.ndim:
        view[...] = values
        return
    n, c = tensor.shape[:2]
    v = view.shape[-1]
    grouped = values.reshape((n, c // v, v) + tuple(tensor.shape[2:]))
    view[...] = np.moveaxis(grouped, 2, -1)


def rounded(values, dtype):
    """values converted to dtype: integers rounded to nearest (ties to even) and saturated."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        return values.astype(dtype)
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)


def write(view, tensor, result, alpha, beta):
    """view = alpha * result + beta * view, in float (double for DOUBLE data), converted to the tensor's
    element type; the old values are not read when beta is 0."""
    ct = np.float64 if tensor.dtype_code == DATA["MCDNN_DATA_DOUBLE"] else np.float32
    total = result.astype(ct) * ct(alpha) if alpha != 1 else result.astype(ct)
    if beta != 0:
        total += logical(view, tensor).astype(ct) * ct(beta)
    store(view, tensor, rounded(total, element_dtype(tensor)))


def same_family(first, second):
    """BAD_PARAM unless the two integer tensors hold the same kind of integer."""
    (name0, t0), (name1, t1) = first, second
    if FAMILY.get(t0.dtype_code, -1) != FAMILY.get(t1.dtype_code, -2):
        raise mcdnn.bad_param("%s (%s) and %s (%s) do not hold the same integers" % (
            name0, mcdnn.type_name(t0.dtype_code), name1, mcdnn.type_name(t1.dtype_code)))


def transform(x_view, x, y_view, y, alpha, beta):
    """TransformTensor between two layouts of one integer family."""
    write(y_view, y, logical(x_view, x), alpha, beta)
