"""Reading a matmul operand as its logical matrix, whatever its storage: FRACTAL_NZ (common/fractal_nz),
4-bit types two per byte (core/packed), INT32 words of eight INT4, HiFloat8 codes; the dequantisation of a
weight ((w + offset) · scale, per tensor, channel or group of K rows). Shared by matmul/ and gmm/.

`narrow_desc(a, name)` is called in check for an operand read this way: it keeps the app's description as
`a.<name>_layout` and, for NZ storage, describes the storage as one contiguous run so the kernel's view spans it;
`matrix(view, layout)` then gives the values (int8 for the integer types, fp32 otherwise)."""
import numpy as np

from opemu.core import dtypes, packed
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import quantize as Q


def narrow_desc(a, name):
    desc = getattr(a, name)
    setattr(a, name + "_layout", desc)
    if desc is not None and fractal_nz.is_nz(desc) and desc.ndim >= 2:
        setattr(a, name, fractal_nz.storage_desc(desc))


def _elements(view, desc):
    """A 1-D run's or a view's values: int8 for integer types, fp32 for floats."""
    code = desc.dtype
    if code in dtypes.NIBBLE:
        codes = packed.codes(view, desc)
        return packed.signed(codes) if code == Q.INT4 else Q.decode(view, desc)
    if code == Q.HIFLOAT8:
        return Q.decode(view, desc)
    if view.dtype.kind in "iu":
        return view
    return Q.widen(view)


def matrix(view, layout):
    """The logical matrix (…, rows, cols) of an operand whose app description is `layout`."""
    if fractal_nz.is_nz(layout) and layout.ndim >= 2:
        storage = TensorDesc(layout.dtype, (fractal_nz.storage_elements(layout),), (1,), layout.offset % 2
                             if layout.dtype in dtypes.NIBBLE else 0, layout.format)
        return fractal_nz.read(_elements(view, storage), layout)
    if layout.dtype == Q.INT32 and view.dtype == np.int32:
        return view
    return _elements(view, layout)


def int4_from_int32(words):
    """An INT32 weight that packs eight INT4 along its last axis, as int8 values."""
    return Q.unpack_int32(words)


def group_expand(param, k, group):
    """A per-group parameter (…, ceil(k/group), n) repeated to (…, k, n); per-channel/tensor ones unchanged."""
    if group <= 0 or param.ndim < 2:
        return param
    return np.repeat(param, group, axis=-2)[..., :k, :]


def dequantize(weight, scale, offset, group, compute):
    """(w + offset) · scale with the vector unit's rounding: fp16 activations dequantise in fp16 (the add and
    the multiply each round), bf16 ones in fp32 rounded once to bf16; returns fp32 holding those values."""
    k = weight.shape[-2]
    w = weight.astype(np.float32)
    scale = group_expand(Q.widen(scale), k, group)
    offset = None if offset is None else group_expand(Q.widen(offset), k, group)
    with np.errstate(over="ignore", invalid="ignore"):
        if compute == np.float16:
            half = w.astype(np.float16)
            if offset is not None:
                half = half + offset.astype(np.float16)
            return (half * scale.astype(np.float16)).astype(np.float32)
        if offset is not None:
            w = w + offset
        result = w * scale
        return result.astype(compute).astype(np.float32) if compute != np.float32 else result
