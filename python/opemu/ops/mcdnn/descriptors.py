"""Snapshots of the filter, convolution, op-tensor, reduce-tensor and tensor-transform descriptors
(C objects, csrc/mcdnn/conv.c and csrc/mcdnn/opdesc.c), read once at the call as the library reads
them; `kinds` gives the bridge one converter per descriptor type."""
import numpy as np

from opemu.core import device, mcdnn
from opemu.core.headers import enum

FORMAT = enum("mcdnn/mcdnn_ops_infer.h", "mcdnnTensorFormat_t")
NHWC = FORMAT["MCDNN_TENSOR_NHWC"]


class Filter(mcdnn.Tensor):
    """A filter descriptor as a tensor: dims K, C/groups, spatial…; packed in its format (NCHW: KCRS,
    NHWC: KRSC, NCHW_VECT_C: K x C/v x RS x v with strides counting vectors), so its strides follow from the
    format."""
    __slots__ = ("format",)

    def __init__(self, dtype_code, shape, fmt):
        shape = tuple(shape)
        order = [0] + list(range(2, len(shape))) + [1] if fmt == NHWC else list(range(len(shape)))
        strides = [0] * len(shape)
        step, vector = 1, mcdnn.VECTOR.get(dtype_code, (1,))[0]
        for axis in reversed(order):
            strides[axis] = step
            step *= shape[axis] // vector if axis == 1 else shape[axis]
        super().__init__(dtype_code, shape, strides)
        self.format = fmt

    def __repr__(self):
        return "Filter(%s, dims=%s, format=%d)" % (mcdnn.type_name(self.dtype_code), list(self.shape), self.format)


def _set(name, d):
    if not d.is_set:
        raise mcdnn.bad_param("%s was created but never set" % name)


def _filter(name, d):
    _set(name, d)
    return Filter(d.dataType, device.ffi.unpack(d.dimA, d.nbDims), d.format)


def _convolution(name, d):
    _set(name, d)
    n, unpack = d.arrayLength, device.ffi.unpack
    return mcdnn.Struct(mode=d.mode, compute=d.computeType, math=d.mathType, groups=d.groupCount,
                        reorder=d.reorderType, pad=tuple(unpack(d.padA, n)), stride=tuple(unpack(d.strideA, n)),
                        dilation=tuple(unpack(d.dilationA, n)))


def _op_tensor(name, d):
    _set(name, d)
    return mcdnn.Struct(op=d.op, compute=d.compType, nan=d.nanOpt)


def _reduce_tensor(name, d):
    _set(name, d)
    return mcdnn.Struct(op=d.op, compute=d.compType, nan=d.nanOpt, indices=d.indices, indices_type=d.indicesType)


def _tensor_transform(name, d):
    _set(name, d)
    n, unpack = d.nbDims, device.ffi.unpack
    return mcdnn.Struct(format=d.destFormat, direction=d.direction, pad_before=tuple(unpack(d.padBeforeA, n)),
                        pad_after=tuple(unpack(d.padAfterA, n)), fold=tuple(unpack(d.foldA, n)))


def kinds(lib):
    return {
        "mcdnnFilterDescriptor_t": (lib.OPEMU_KIND_MCDNN_FILTER, _filter),
        "mcdnnConvolutionDescriptor_t": (lib.OPEMU_KIND_MCDNN_CONVOLUTION, _convolution),
        "mcdnnOpTensorDescriptor_t": (lib.OPEMU_KIND_MCDNN_OP_TENSOR, _op_tensor),
        "mcdnnReduceTensorDescriptor_t": (lib.OPEMU_KIND_MCDNN_REDUCE_TENSOR, _reduce_tensor),
        "mcdnnTensorTransformDescriptor_t": (lib.OPEMU_KIND_MCDNN_TENSOR_TRANSFORM, _tensor_transform),
    }


class Bytes:
    """A device buffer described by its size alone (a workspace, an im2col buffer): its view is bytes."""

    def __init__(self, nbytes):
        self.nbytes = int(nbytes)

    def geometry(self):
        return (self.nbytes,), np.dtype(np.uint8), 0, (1,), self.nbytes
