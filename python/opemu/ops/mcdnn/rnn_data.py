"""What the RNN routines share: the RNN-data layouts as padded time-major arrays and back, the checks of the
descriptors every routine takes (in cuDNN's order), and the reserve space carved per pseudo-layer.

Layouts: SEQ_MAJOR_UNPACKED is (maxSeqLength, batch, vector), BATCH_MAJOR_UNPACKED (batch, maxSeqLength,
vector), SEQ_MAJOR_PACKED the steps one after the other holding only the sequences that have them (lengths
in decreasing order, the data descriptor checks that), so its buffer is sum(lengths) vectors. Writing an
unpacked output fills the positions past each sequence with the descriptor's padding fill when it has one,
and leaves them alone otherwise (cuDNN: undefined)."""
import functools

import numpy as np

from opemu.core import mcdnn
from opemu.ops.mcdnn.bn_common import byte_tensor
from opemu.ops.mcdnn.rnn_layout import LAYOUT, LSTM, Shape

PACKED = LAYOUT["MCDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED"]
BATCH_MAJOR = LAYOUT["MCDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED"]


@functools.lru_cache(maxsize=64)
def _packed_index(lengths, steps):
    """(t, b) of each packed row, in packed order."""
    lengths = np.asarray(lengths)
    rows = [(t, b) for t in range(steps) for b in range(len(lengths)) if lengths[b] > t]
    return (np.array([r[0] for r in rows], np.intp), np.array([r[1] for r in rows], np.intp))


def flat_desc(data):
    """A 1-D descriptor of an RNN data buffer: the elements its layout holds."""
    rows = sum(data.lengths) if data.layout == PACKED else data.max_seq * data.batch
    return mcdnn.Tensor(data.dtype_code, (rows * data.vector,), (1,))


def to_time_major(flat, data, ct):
    """The buffer as a (maxSeqLength, batch, vector) array of type ct, zero past each sequence."""
    steps, batch, vector = data.max_seq, data.batch, data.vector
    if data.layout == PACKED:
        out = np.zeros((steps, batch, vector), ct)
        t, b = _packed_index(data.lengths, steps)
        out[t, b] = flat.reshape(-1, vector)
        return out
    if data.layout == BATCH_MAJOR:
        out = flat.reshape(batch, steps, vector).swapaxes(0, 1).astype(ct)
    else:
        out = flat.reshape(steps, batch, vector).astype(ct)
    lengths = np.asarray(data.lengths)
    if (lengths < steps).any():
        out[np.arange(steps)[:, None] >= lengths[None, :]] = 0
    return out


def from_time_major(values, flat, data):
    """Writes (maxSeqLength, batch, vector) values into the buffer in its layout and type."""
    steps, batch, vector = data.max_seq, data.batch, data.vector
    if data.layout == PACKED:
        t, b = _packed_index(data.lengths, steps)
        flat.reshape(-1, vector)[...] = values[t, b]
        return
    target = flat.reshape(batch, steps, vector).swapaxes(0, 1) if data.layout == BATCH_MAJOR else \
        flat.reshape(steps, batch, vector)
    lengths = np.asarray(data.lengths)
    valid = np.arange(steps)[:, None] < lengths[None, :]
    if valid.all():
        target[...] = values
        return
    target[valid] = values[valid]
    if data.fill is not None:
        target[~valid] = data.fill


def check_rnn(a):
    """The RNN descriptor: set and of a supported configuration (dropout with states when it drops)."""
    rnn = a.rnnDesc
    if rnn.dropout is not None and rnn.dropout.p > 0 and rnn.layers > 1 and not rnn.dropout.has_states:
        raise mcdnn.bad_param("the RNN's dropout descriptor has no RNG states (mcdnnSetDropoutDescriptor with states)")
    return Shape(rnn)


def check_data(shape, x, y):
    """xDesc and yDesc: the RNN's type, input and output sizes, and the same sequences."""
    rnn = shape.rnn
    for name, data, size, what in (("xDesc", x, rnn.input_size, "inputSize"),
                                   ("yDesc", y, shape.out * shape.dirs, "output size")):
        if data.dtype_code != rnn.dtype_code:
            raise mcdnn.bad_param("%s has data type %s, the RNN %s" % (name, mcdnn.type_name(data.dtype_code),
                                                                       mcdnn.type_name(rnn.dtype_code)))
        if data.vector != size:
            raise mcdnn.bad_param("%s has vectorSize %d, not the %s %d" % (name, data.vector, what, size))
    if (x.layout, x.max_seq, x.batch, x.lengths) != (y.layout, y.max_seq, y.batch, y.lengths):
        raise mcdnn.bad_param("xDesc and yDesc differ in layout, maxSeqLength, batchSize or sequence lengths")


def state_desc(shape, desc, name, width, batch):
    """hDesc / cDesc: (layers x directions, batch, width), packed, of the RNN's type."""
    expected = (shape.pseudo_layers, batch, width)
    if desc.shape != expected:
        raise mcdnn.bad_param("%s has dims %s, not %s" % (name, list(desc.shape), list(expected)))
    if desc.dtype_code != shape.rnn.dtype_code:
        raise mcdnn.bad_param("%s has data type %s, the RNN %s" % (name, mcdnn.type_name(desc.dtype_code),
                                                                   mcdnn.type_name(shape.rnn.dtype_code)))
    if desc.strides != (batch * width, width, 1):
        raise mcdnn.not_supported("%s is not packed (strides %s)" % (name, list(desc.strides)))


def check_states(a, shape, batch):
    mcdnn.require(a, "hDesc")
    state_desc(shape, a.hDesc, "hDesc", shape.out, batch)
    if shape.rnn.cell == LSTM:
        mcdnn.require(a, "cDesc")
        state_desc(shape, a.cDesc, "cDesc", shape.hidden, batch)


def check_spaces(a, shape, x, need_reserve, weights="weightSpace", weights_size="weightSpaceSize"):
    """The weight space, workspace and reserve space: large enough, given when needed. Sets the byte
    descriptors the task views them through."""
    item = shape.dtype.itemsize
    need = shape.weight_elements * item
    if getattr(a, weights_size) < need:
        raise mcdnn.bad_param("%s %d is less than mcdnnGetRNNWeightSpaceSize's %d" % (weights_size,
                                                                                     getattr(a, weights_size), need))
    mcdnn.require(a, weights)
    a._weights_desc = mcdnn.Tensor(shape.rnn.dtype_code, (shape.weight_elements,), (1,))
    work = shape.workspace_bytes(x.max_seq, x.batch)
    if a.workSpaceSize < work:
        raise mcdnn.bad_param("workSpaceSize %d is less than mcdnnGetRNNTempSpaceSizes' %d" % (a.workSpaceSize, work))
    if work:
        mcdnn.require(a, "workSpace")
    a._work_desc = byte_tensor(work) if work else None
    reserve = shape.reserve_bytes(x.max_seq, x.batch)
    a._reserve_desc = None
    if need_reserve:
        if a.reserveSpaceSize < reserve:
            raise mcdnn.bad_param("reserveSpaceSize %d is less than mcdnnGetRNNTempSpaceSizes' %d"
                                  % (a.reserveSpaceSize, reserve))
        mcdnn.require(a, "reserveSpace")
        a._reserve_desc = byte_tensor(reserve)


class Reserve:
    """The reserve space carved per pseudo-layer into (steps, batch, fields) arrays of the math type, and
    the dropout masks between layers."""

    def __init__(self, shape, raw, steps, batch):
        space = raw.view(shape.ct)
        forward, backward = shape.step_fields()
        per = steps * batch
        self.forward, self.backward = [], []
        offset = 0
        for _ in range(shape.pseudo_layers):
            self.forward.append(space[offset:offset + per * forward].reshape(steps, batch, forward))
            offset += per * forward
            self.backward.append(space[offset:offset + per * backward].reshape(steps, batch, backward))
            offset += per * backward
        width = shape.out * shape.dirs
        self.masks = []
        if shape.dropout_active():
            for _ in range(shape.layers - 1):
                self.masks.append(space[offset:offset + per * width].reshape(steps, batch, width))
                offset += per * width


def weights_of(shape, space):
    """The weight space in the math type (a copy unless it already is) and each pseudo-layer's views of it."""
    flat = space if space.dtype == shape.ct else space.astype(shape.ct)
    return flat, [shape.weights(flat, p) for p in range(shape.pseudo_layers)]


def clip_of(rnn):
    mode, nan, lo, hi = rnn.clip
    return (lo, hi, bool(nan)) if mode and rnn.cell == LSTM else None


def input_projection(shape, weights, inputs, layer, out):
    """x W^T + bW for every step of a layer's input (T, B, in) into out (T, B, g h); MCDNN_SKIP_INPUT adds x
    itself to each gate."""
    steps, batch = inputs.shape[:2]
    g, h = shape.gates, shape.hidden
    target = out.reshape(steps * batch, g * h)
    flat = inputs.reshape(steps * batch, -1)
    if "W" in weights:
        np.matmul(flat, weights["W"].reshape(g * h, -1).T, out=target)
    else:
        for k in range(g):
            target[:, k * h:(k + 1) * h] = flat
    if "bW" in weights:
        target += weights["bW"].reshape(g * h)
    return out
