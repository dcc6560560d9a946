"""Snapshots of the RNN, RNN-data, CTC-loss, attention and sequence-data descriptors (C objects,
csrc/mcdnn/rnn_objects.c and attention_objects.c), read once at the call, and the raw backend descriptor;
`kinds` gives the bridge one converter per descriptor type."""
import numpy as np

from opemu.core import device, mcdnn


def _set(name, d):
    if not d.is_set:
        raise mcdnn.bad_param("%s was created but never set" % name)


def dropout(pointer):
    """The dropout descriptor a descriptor refers to (probability, states), or None."""
    if not pointer:
        return None
    d = device.ffi.cast("struct mcdnnDropoutStruct *", pointer)
    return mcdnn.Struct(is_set=d.is_set, has_states=d.has_states, p=d.dropout, states=d.states,
                        state_bytes=d.stateSizeInBytes)


def _fill(dtype_code, has_fill, raw):
    dtype = mcdnn.NUMPY.get(dtype_code)
    if not has_fill or dtype is None:
        return None
    return np.frombuffer(bytes(device.ffi.buffer(raw, 8))[:dtype.itemsize], dtype)[0]


def _rnn(name, d):
    _set(name, d)
    return mcdnn.Struct(algo=d.algo, cell=d.cellMode, bias_mode=d.biasMode, dirs=2 if d.dirMode else 1,
                        input_mode=d.inputMode, dtype_code=d.dataType, math=d.mathPrec, math_type=d.mathType,
                        input_size=d.inputSize, hidden=d.hiddenSize, proj=d.projSize, layers=d.numLayers,
                        aux_flags=d.auxFlags, clip=(d.clipMode, d.clipNanOpt, d.lclip, d.rclip),
                        dropout=dropout(d.dropoutDesc))


def _rnn_data(name, d):
    _set(name, d)
    return mcdnn.Struct(dtype_code=d.dataType, layout=d.layout, max_seq=d.maxSeqLength, batch=d.batchSize,
                        vector=d.vectorSize, lengths=tuple(device.ffi.unpack(d.seqLengthArray, d.batchSize)),
                        fill=_fill(d.dataType, d.has_fill, d.paddingFill))


def _ctc(name, d):
    _set(name, d)
    return mcdnn.Struct(comp=d.compType, norm=d.normMode, grad=d.gradMode, max_label=d.maxLabelLength)


def _attention(name, d):
    _set(name, d)
    return mcdnn.Struct(mode=d.attnMode, heads=d.nHeads, sm_scaler=d.smScaler, dtype_code=d.dataType,
                        compute=d.computePrec, math_type=d.mathType, attn_dropout=dropout(d.attnDropoutDesc),
                        post_dropout=dropout(d.postDropoutDesc), q_size=d.qSize, k_size=d.kSize, v_size=d.vSize,
                        q_proj=d.qProjSize, k_proj=d.kProjSize, v_proj=d.vProjSize, o_proj=d.oProjSize,
                        qo_max=d.qoMaxSeqLength, kv_max=d.kvMaxSeqLength, max_batch=d.maxBatchSize,
                        max_beam=d.maxBeamSize)


def _seq_data(name, d):
    _set(name, d)
    n = d.seqLengthArraySize
    return mcdnn.Struct(dtype_code=d.dataType, dims=tuple(d.dimA), axes=tuple(d.axes),
                        lengths=tuple(device.ffi.unpack(d.seqLengthArray, n)) if n else (),
                        fill=_fill(d.dataType, d.has_fill, d.paddingFill))


def _raw(name, d):
    """The C object itself: routines that fill descriptors (mcdnnGetRNNWeightParams' mDesc) or read the
    backend's attribute store."""
    return d


def kinds(lib):
    return {
        "mcdnnRNNDescriptor_t": (lib.OPEMU_KIND_MCDNN_RNN, _rnn),
        "mcdnnRNNDataDescriptor_t": (lib.OPEMU_KIND_MCDNN_RNN_DATA, _rnn_data),
        "mcdnnCTCLossDescriptor_t": (lib.OPEMU_KIND_MCDNN_CTC_LOSS, _ctc),
        "mcdnnAttnDescriptor_t": (lib.OPEMU_KIND_MCDNN_ATTENTION, _attention),
        "mcdnnSeqDataDescriptor_t": (lib.OPEMU_KIND_MCDNN_SEQ_DATA, _seq_data),
        "mcdnnBackendDescriptor_t": (lib.OPEMU_KIND_MCDNN_BACKEND, _raw),
    }


RAW = _raw
