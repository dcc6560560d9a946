"""The rest of ops_infer's tensor routines: mcdnnOpTensor, mcdnnReduceTensor and its size queries,
mcdnnTransformTensorEx and mcdnnTransformFilter.

OpTensor: C = op(alpha1*A, alpha2*B) + beta*C; A has C's dims, every dimension of B is C's or 1; SQRT and
NOT are unary (B not read; NOT is 1 - alpha1*A). The descriptor's compute type must be FLOAT for HALF,
BFLOAT16 and FLOAT data and DOUBLE for DOUBLE data (NOT_SUPPORTED otherwise); MIN/MAX ignore a NaN operand
unless the descriptor propagates NaN.
ReduceTensor: C = alpha*reduce(A) + beta*C over the dimensions where C has extent 1 (each dimension of C is
A's or 1, BAD_PARAM otherwise; a C with A's dims reduces nothing: BAD_PARAM). MIN, MAX and AMAX with
FLATTENED_INDICES also write each result's index among its reduced elements (row-major over the reduced
dimensions, the first on a tie) as 32-bit integers (other index types NOT_SUPPORTED); the indices size is
4 bytes per element of C, the workspace 0 (the reduction needs no device scratch).
TransformTensorEx / TransformFilter: dest = alpha*pad(src) + beta*dest, the transform descriptor's zero
padding before and after each dimension, between any layouts of src and dest (integer data within its
family: INT8 NCHW to NCHW_VECT_C INT8x4 with the channels padded to whole vectors, say); folding (a fold other
than 1) is not emulated (NOT_SUPPORTED)."""
import numpy as np

from opemu.core import device, mcdnn
from opemu.core.headers import enum
from opemu.core.mcdnn import DATA, NAN
from opemu.ops.mcdnn import vector_formats

_INFER = "mcdnn/mcdnn_ops_infer.h"
OP = enum(_INFER, "mcdnnOpTensorOp_t")
REDUCE = enum(_INFER, "mcdnnReduceTensorOp_t")
INDICES = enum(_INFER, "mcdnnReduceTensorIndices_t")
INDICES_TYPE = enum(_INFER, "mcdnnIndicesType_t")


def _compute_type(desc, *tensors):
    for name, t in tensors:
        mcdnn.floating(name, t)
        want = DATA["MCDNN_DATA_DOUBLE"] if t.dtype_code == DATA["MCDNN_DATA_DOUBLE"] else DATA["MCDNN_DATA_FLOAT"]
        if desc.compute != want:
            raise mcdnn.not_supported("%s data with compute type %s is not supported"
                                      % (mcdnn.type_name(t.dtype_code), mcdnn.type_name(desc.compute)))


def _broadcastable(small, big):
    return small.ndim == big.ndim and all(s in (1, b) for s, b in zip(small.shape, big.shape))


class OpTensor(mcdnn.McdnnOp):
    name = "mcdnnOpTensor"
    tensors = {"A": "aDesc", "B": "bDesc", "C": "cDesc"}
    outputs = ("C",)

    def check(self, a):
        mcdnn.require(a, "opTensorDesc", "aDesc", "bDesc", "cDesc", "A", "B", "C")
        a.alpha1_value = mcdnn.scaling(a.alpha1, a.cDesc, "alpha1")
        a.alpha2_value = mcdnn.scaling(a.alpha2, a.cDesc, "alpha2")
        a.beta_value = mcdnn.scaling(a.beta, a.cDesc, "beta")
        mcdnn.same_dims(mcdnn.bad_param, ("cDesc", a.cDesc), ("aDesc", a.aDesc))
        if not _broadcastable(a.bDesc, a.cDesc):
            raise mcdnn.bad_param("every dimension of bDesc %s must equal cDesc's %s or be 1"
                                  % (list(a.bDesc.shape), list(a.cDesc.shape)))
        _compute_type(a.opTensorDesc, ("aDesc", a.aDesc), ("bDesc", a.bDesc), ("cDesc", a.cDesc))

    def compute(self, a, v):
        ct = a.cDesc.compute_dtype.type
        op = a.opTensorDesc.op
        first = v["A"].astype(ct) * ct(a.alpha1_value)
        if op == OP["MCDNN_OP_TENSOR_SQRT"]:
            result = np.sqrt(first)
        elif op == OP["MCDNN_OP_TENSOR_NOT"]:
            result = ct(1) - first
        else:
            second = v["B"].astype(ct) * ct(a.alpha2_value)
            propagate = a.opTensorDesc.nan == NAN["MCDNN_PROPAGATE_NAN"]
            fn = {OP["MCDNN_OP_TENSOR_ADD"]: np.add, OP["MCDNN_OP_TENSOR_MUL"]: np.multiply,
                  OP["MCDNN_OP_TENSOR_MIN"]: np.minimum if propagate else np.fmin,
                  OP["MCDNN_OP_TENSOR_MAX"]: np.maximum if propagate else np.fmax}[op]
            result = fn(first, second)
        mcdnn.write(v["C"], np.array(result, dtype=ct), 1.0, a.beta_value)


def _returns_indices(r):
    return (r.indices == INDICES["MCDNN_REDUCE_TENSOR_FLATTENED_INDICES"]
            and r.op in (REDUCE["MCDNN_REDUCE_TENSOR_MIN"], REDUCE["MCDNN_REDUCE_TENSOR_MAX"],
                         REDUCE["MCDNN_REDUCE_TENSOR_AMAX"]))


def _reduce_check(a):
    mcdnn.require(a, "reduceTensorDesc", "aDesc", "cDesc")
    if not _broadcastable(a.cDesc, a.aDesc):
        raise mcdnn.bad_param("every dimension of cDesc %s must equal aDesc's %s or be 1"
                              % (list(a.cDesc.shape), list(a.aDesc.shape)))
    if _returns_indices(a.reduceTensorDesc) and a.reduceTensorDesc.indices_type != INDICES_TYPE["MCDNN_32BIT_INDICES"]:
        raise mcdnn.not_supported("only MCDNN_32BIT_INDICES are supported")


def _indices_bytes(a):
    return int(np.prod(a.cDesc.shape)) * 4 if _returns_indices(a.reduceTensorDesc) else 0


class _ReductionSize(mcdnn.McdnnOp):
    host_only = True

    def check(self, a):
        mcdnn.require(a, "sizeInBytes")
        _reduce_check(a)

    def compute(self, a, v):
        device.ffi.cast("size_t *", a.sizeInBytes)[0] = self.size(a)


class GetReductionIndicesSize(_ReductionSize):
    name = "mcdnnGetReductionIndicesSize"

    def size(self, a):
        return _indices_bytes(a)


class GetReductionWorkspaceSize(_ReductionSize):
    name = "mcdnnGetReductionWorkspaceSize"

    def size(self, a):
        return 0


class ReduceTensor(mcdnn.McdnnOp):
    name = "mcdnnReduceTensor"
    tensors = {"A": "aDesc", "C": "cDesc", "indices": "indices_desc"}
    outputs = ("C", "indices")

    def check(self, a):
        _reduce_check(a)
        mcdnn.require(a, "A", "C")
        a.alpha_value = mcdnn.scaling(a.alpha, a.cDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.cDesc, "beta")
        if a.cDesc.shape == a.aDesc.shape:
            raise mcdnn.bad_param("cDesc has aDesc's dims %s: nothing is reduced" % list(a.aDesc.shape))
        _compute_type(a.reduceTensorDesc, ("aDesc", a.aDesc), ("cDesc", a.cDesc))
        need = _indices_bytes(a)
        if need and (mcdnn.is_null(a.indices) or a.indicesSizeInBytes < need):
            raise mcdnn.bad_param("the indices need %d bytes, got %d" % (need, a.indicesSizeInBytes))
        a.indices_desc = mcdnn.Tensor(DATA["MCDNN_DATA_INT32"], a.cDesc.shape,
                                      [int(s) for s in np.cumprod((1,) + a.cDesc.shape[:0:-1])[::-1]]) if need else None

    def compute(self, a, v):
        r = a.reduceTensorDesc
        ct = a.cDesc.compute_dtype
        axes = tuple(i for i, (c, s) in enumerate(zip(a.cDesc.shape, a.aDesc.shape)) if c == 1 and s != 1)
        values = v["A"].astype(ct)
        propagate = r.nan == NAN["MCDNN_PROPAGATE_NAN"]
        if r.op == REDUCE["MCDNN_REDUCE_TENSOR_AMAX"]:
            values = np.abs(values)
        if r.op in (REDUCE["MCDNN_REDUCE_TENSOR_MIN"], REDUCE["MCDNN_REDUCE_TENSOR_MAX"],
                    REDUCE["MCDNN_REDUCE_TENSOR_AMAX"]):
            result, index = _extreme(values, axes, r.op == REDUCE["MCDNN_REDUCE_TENSOR_MIN"], propagate)
            if v.get("indices") is not None:
                v["indices"][...] = index
        elif r.op == REDUCE["MCDNN_REDUCE_TENSOR_MUL_NO_ZEROS"]:
            result = np.prod(np.where(values == 0, ct.type(1), values), axis=axes, keepdims=True)
            result[~np.any(values != 0, axis=axes, keepdims=True)] = 0
        else:
            result = {REDUCE["MCDNN_REDUCE_TENSOR_ADD"]: lambda: values.sum(axes, keepdims=True),
                      REDUCE["MCDNN_REDUCE_TENSOR_MUL"]: lambda: values.prod(axes, keepdims=True),
                      REDUCE["MCDNN_REDUCE_TENSOR_AVG"]: lambda: values.mean(axes, keepdims=True),
                      REDUCE["MCDNN_REDUCE_TENSOR_NORM1"]: lambda: np.abs(values).sum(axes, keepdims=True),
                      REDUCE["MCDNN_REDUCE_TENSOR_NORM2"]: lambda: np.sqrt((values * values).sum(axes, keepdims=True)),
                      }[r.op]()
        mcdnn.write(v["C"], np.array(result, dtype=ct), a.alpha_value, a.beta_value)


def _extreme(values, axes, smallest, propagate):
    """(min or max over axes, the flattened index of the first one among the reduced elements)."""
    kept = [i for i in range(values.ndim) if i not in axes]
    moved = np.moveaxis(values, axes, range(values.ndim - len(axes), values.ndim))
    flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
    if propagate:   # NumPy's argmin/argmax stop at the first NaN, which is then the result
        index = (np.argmin if smallest else np.argmax)(flat, axis=-1)
    else:
        filled = np.where(np.isnan(flat), np.inf if smallest else -np.inf, flat)
        index = (np.argmin if smallest else np.argmax)(filled, axis=-1)
    result = np.take_along_axis(flat, index[..., None], axis=-1)[..., 0]
    shape = tuple(1 if i in axes else values.shape[i] for i in range(values.ndim))
    return result.reshape(shape), index.astype(np.int32).reshape(shape)


class _Transform(mcdnn.McdnnOp):
    """dest = alpha * (src zero-padded by the transform descriptor) + beta * dest."""
    tensors = {"srcData": "srcDesc", "destData": "destDesc"}
    outputs = ("destData",)
    vector_types = True

    def check(self, a):
        mcdnn.require(a, "transDesc", "srcDesc", "destDesc", "srcData", "destData")
        a.alpha_value = mcdnn.scaling(a.alpha, a.destDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.destDesc, "beta")
        t, src, dst = a.transDesc, a.srcDesc, a.destDesc
        if len(t.fold) != src.ndim:
            raise mcdnn.bad_param("the transform has %d dimensions, srcDesc %d" % (len(t.fold), src.ndim))
        if any(f != 1 for f in t.fold):
            raise mcdnn.not_supported("folding (a fold other than 1) is not emulated by opemu")
        padded = tuple(s + b + e for s, b, e in zip(src.shape, t.pad_before, t.pad_after))
        if dst.shape != padded:
            raise mcdnn.bad_param("destDesc has dims %s, the transform gives %s" % (list(dst.shape), list(padded)))
        a.integer = vector_formats.integer(src) or vector_formats.integer(dst)
        if a.integer:
            vector_formats.same_family(("srcDesc", src), ("destDesc", dst))
            return
        mcdnn.same_type(mcdnn.bad_param, ("srcDesc", src), ("destDesc", dst))
        mcdnn.floating("srcDesc", src)

    def compute(self, a, v):
        t = a.transDesc
        result = np.zeros(a.destDesc.shape, np.float32 if a.integer else a.destDesc.compute_dtype)
        inside = tuple(slice(b, b + s) for b, s in zip(t.pad_before, a.srcDesc.shape))
        if a.integer:
            result[inside] = vector_formats.logical(v["srcData"], a.srcDesc)
            vector_formats.write(v["destData"], a.destDesc, result, a.alpha_value, a.beta_value)
            return
        result[inside] = v["srcData"]
        mcdnn.write(v["destData"], result, a.alpha_value, a.beta_value)


class TransformTensorEx(_Transform):
    name = "mcdnnTransformTensorEx"


class TransformFilter(_Transform):
    name = "mcdnnTransformFilter"
