"""The RNN's size and address queries (v8 API): mcdnnGetRNNWeightSpaceSize, mcdnnGetRNNTempSpaceSizes,
mcdnnGetRNNWeightParams. They answer at the call, on the host (rnn_layout.py says what the spaces hold).

mcdnnGetRNNWeightParams describes a matrix as a 3-D tensor (1, rows, columns), rows-major, and a bias as
(1, hidden, 1), of the RNN's data type, and gives its address inside the weight space. A matrix or bias the
configuration does not have (no biases, the skipped input of layer 0) answers NULL and a descriptor of no
dimensions. BAD_PARAM: a pseudo-layer or linLayerID outside the configuration, a weight space smaller than
mcdnnGetRNNWeightSpaceSize's, NULL outputs."""
import math

from opemu.core import device, mcdnn
from opemu.ops.mcdnn.rnn_layout import PROJECTION_ID, TRAINING, Shape


def _out(pointer, name):
    if mcdnn.is_null(pointer):
        raise mcdnn.bad_param("%s is null" % name)
    return device.ffi.cast("size_t *", pointer)


class GetRNNWeightSpaceSize(mcdnn.McdnnOp):
    name = "mcdnnGetRNNWeightSpaceSize"
    host_only = True

    def check(self, a):
        mcdnn.require(a, "rnnDesc")
        a._size = _out(a.weightSpaceSize, "weightSpaceSize")

    def compute(self, a, v):
        shape = Shape(a.rnnDesc)
        a._size[0] = shape.weight_elements * shape.dtype.itemsize


def check_data_matches(rnn, data, name, size, what):
    if data.dtype_code != rnn.dtype_code:
        raise mcdnn.bad_param("%s has data type %s, the RNN descriptor %s" % (name, mcdnn.type_name(data.dtype_code),
                                                                              mcdnn.type_name(rnn.dtype_code)))
    if data.vector != size:
        raise mcdnn.bad_param("%s has vectorSize %d, not the %s %d" % (name, data.vector, what, size))


class GetRNNTempSpaceSizes(mcdnn.McdnnOp):
    name = "mcdnnGetRNNTempSpaceSizes"
    host_only = True

    def check(self, a):
        mcdnn.require(a, "rnnDesc", "xDesc")
        if a.fMode not in (0, TRAINING):
            raise mcdnn.bad_param("fMode %d is not an mcdnnForwardMode_t" % a.fMode)
        check_data_matches(a.rnnDesc, a.xDesc, "xDesc", a.rnnDesc.input_size, "inputSize")
        if mcdnn.is_null(a.workSpaceSize) and mcdnn.is_null(a.reserveSpaceSize):
            raise mcdnn.bad_param("workSpaceSize and reserveSpaceSize are both null")

    def compute(self, a, v):
        shape = Shape(a.rnnDesc)
        steps, batch = a.xDesc.max_seq, a.xDesc.batch
        if not mcdnn.is_null(a.workSpaceSize):
            device.ffi.cast("size_t *", a.workSpaceSize)[0] = shape.workspace_bytes(steps, batch)
        if not mcdnn.is_null(a.reserveSpaceSize):
            training = a.fMode == TRAINING
            device.ffi.cast("size_t *", a.reserveSpaceSize)[0] = shape.reserve_bytes(steps, batch) if training else 0


def describe(desc, dtype_code, dims):
    """Fills tensor descriptor `desc` (the C object) with packed dims, or no dims at all."""
    if desc is None:
        return
    d = device.ffi.cast("struct mcdnnTensorStruct *", desc)
    d.dataType = dtype_code
    d.nbDims = len(dims)
    stride = 1
    for i in reversed(range(len(dims))):
        d.dimA[i], d.strideA[i] = dims[i], stride
        stride *= dims[i]
    for i in range(len(dims), len(d.dimA)):
        d.dimA[i] = d.strideA[i] = 0
    d.is_set = 1


class GetRNNWeightParams(mcdnn.McdnnOp):
    name = "mcdnnGetRNNWeightParams"
    host_only = True
    raw = ("mDesc", "bDesc")

    def check(self, a):
        mcdnn.require(a, "rnnDesc")
        shape = a._shape = Shape(a.rnnDesc)
        if not 0 <= a.pseudoLayer < shape.pseudo_layers:
            raise mcdnn.bad_param("pseudoLayer %d is outside [0, %d)" % (a.pseudoLayer, shape.pseudo_layers))
        valid = a.linLayerID in range(2 * shape.gates) or (shape.projected and a.linLayerID == PROJECTION_ID)
        if not valid:
            raise mcdnn.bad_param("linLayerID %d is not a linear layer of this configuration (0..%d%s)"
                                  % (a.linLayerID, 2 * shape.gates - 1, ", 8" if shape.projected else ""))
        need = shape.weight_elements * shape.dtype.itemsize
        if a.weightSpaceSize < need:
            raise mcdnn.bad_param("weightSpaceSize %d is less than mcdnnGetRNNWeightSpaceSize's %d"
                                  % (a.weightSpaceSize, need))
        if mcdnn.is_null(a.weightSpace):
            raise mcdnn.bad_param("weightSpace is null")
        if (a.mDesc is not None and mcdnn.is_null(a.mAddr)) or (a.bDesc is not None and mcdnn.is_null(a.bAddr)):
            raise mcdnn.bad_param("a descriptor is given without its address output")

    def compute(self, a, v):
        shape, item = a._shape, a._shape.dtype.itemsize
        parts, g = shape.parts(a.pseudoLayer), shape.gates
        base = int(device.ffi.cast("uintptr_t", a.weightSpace))
        matrix = bias = None
        if a.linLayerID == PROJECTION_ID and shape.projected:
            matrix = ("P", None)
        elif a.linLayerID < g:
            matrix, bias = ("W", a.linLayerID), ("bW", a.linLayerID)
        else:
            matrix, bias = ("R", a.linLayerID - g), ("bR", a.linLayerID - g)
        for desc, address, part in ((a.mDesc, a.mAddr, matrix), (a.bDesc, a.bAddr, bias)):
            if mcdnn.is_null(address):
                continue
            where = device.ffi.cast("void **", address)
            found = parts.get(part[0]) if part is not None else None
            if found is None:
                where[0] = device.ffi.NULL
                describe(desc, shape.rnn.dtype_code, ())
                continue
            offset, dims = found
            if part[1] is None:   # the projection: one matrix
                start, piece = offset, dims
            else:
                piece = dims[1:]
                start = offset + part[1] * math.prod(piece)
            where[0] = device.ffi.cast("void *", base + start * item)
            describe(desc, shape.rnn.dtype_code, (1,) + tuple(piece) + ((1,) if len(piece) == 1 else ()))
