"""mcdnnCTCLoss and mcdnnCTCLoss_v8 (with their workspace queries): the connectionist temporal
classification loss of each sequence of a batch and its gradient.

probs is (T, N, A): time steps, batch, alphabet, class 0 the blank. With MCDNN_LOSS_NORMALIZATION_SOFTMAX
probs holds activations and the probabilities are their softmax over the alphabet; with NONE (the legacy
setter's mode) it holds the probabilities. The loss of sequence n is -log p(labels | probs over its first
inputLengths[n] steps), summed over every alignment (the forward-backward recursion of Graves et al., in
float64 log space, stored as float); the gradient is with respect to the activations before the softmax,
y - (occupancy of each class) / y at each of the sequence's steps and 0 past them — what PyTorch's
ctc_loss gives for log-softmax inputs. Labels are concatenated, labelLengths[n] of them per sequence: on
the host for the legacy routine (read at the call), on the device for _v8 (read when the task runs).

A sequence no alignment fits (labels plus repeats longer than its input) costs +inf; its gradient is zero
with gradMode MCDNN_NOT_PROPAGATE_NAN and left as it was with MCDNN_PROPAGATE_NAN. gradients NULL: only the
costs. Checks: NULL descriptors or pointers, probs and gradients of other dims, an input length outside
[0, T], a label length outside [0, maxLabelLength] (256 for the legacy setters) or a label outside the
alphabet, a short workspace: BAD_PARAM; data or compute type other than FLOAT: NOT_SUPPORTED."""
import numpy as np

from opemu.core import device, mcdnn
from opemu.ops.mcdnn.bn_common import byte_tensor

_FLOAT = mcdnn.DATA["MCDNN_DATA_FLOAT"]
_INT32 = mcdnn.DATA["MCDNN_DATA_INT32"]
_SOFTMAX = 1   # MCDNN_LOSS_NORMALIZATION_SOFTMAX
_PROPAGATE = 1  # MCDNN_PROPAGATE_NAN


def workspace_bytes(steps, max_label):
    """The alpha and beta tables of one sequence, float64 (2 x T x (2L + 1))."""
    return 2 * steps * (2 * max_label + 1) * 8


def _check_descs(a, probs, gradients):
    mcdnn.require(a, "ctcLossDesc", "probsDesc")
    if a.algo not in (0, 1):
        raise mcdnn.bad_param("algo %d is not an mcdnnCTCLossAlgo_t" % a.algo)
    if a.probsDesc.ndim != 3:
        raise mcdnn.bad_param("probsDesc has %d dimensions, not 3 (T, N, A)" % a.probsDesc.ndim)
    if a.gradientsDesc is not None and a.gradientsDesc.shape != a.probsDesc.shape:
        raise mcdnn.bad_param("the dims of probsDesc %s and gradientsDesc %s differ"
                              % (list(a.probsDesc.shape), list(a.gradientsDesc.shape)))
    if a.ctcLossDesc.comp != _FLOAT or a.probsDesc.dtype_code != _FLOAT or \
            (a.gradientsDesc is not None and a.gradientsDesc.dtype_code != _FLOAT):
        raise mcdnn.not_supported("the CTC loss computes FLOAT data with a FLOAT compute type")


def _check_lengths(steps, batch, alphabet, labels, label_lengths, input_lengths, max_label):
    if (np.asarray(input_lengths) < 0).any() or (np.asarray(input_lengths) > steps).any():
        raise mcdnn.bad_param("inputLengths %s must lie in [0, T = %d]" % (list(input_lengths), steps))
    if (np.asarray(label_lengths) < 0).any() or (np.asarray(label_lengths) > max_label).any():
        raise mcdnn.bad_param("labelLengths %s must lie in [0, maxLabelLength %d]" % (list(label_lengths), max_label))
    if len(labels) and (np.min(labels) < 1 or np.max(labels) >= alphabet):
        raise mcdnn.bad_param("labels must lie in [1, A = %d) (0 is the blank)" % alphabet)


def _logsumexp(*terms):
    stacked = np.stack(terms)
    top = np.max(stacked, axis=0)
    safe = np.where(np.isfinite(top), top, 0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(stacked - safe), axis=0))


def sequence_loss(lp, labels, length, table):
    """-log p and the log occupancy (length, A) of one sequence: lp (T, A) log-probabilities, labels its
    labels, length its input length; table a float64 buffer (2, T, S) for alpha and beta."""
    ext = np.zeros(2 * len(labels) + 1, np.intp)
    ext[1::2] = labels
    s = len(ext)
    alpha, beta = table[0, :length, :s], table[1, :length, :s]
    alpha.fill(-np.inf)
    beta.fill(-np.inf)
    if length == 0:
        return (0.0 if len(labels) == 0 else np.inf), None
    skip = np.zeros(s, bool)
    skip[2:] = (ext[2:] != 0) & (ext[2:] != ext[:-2])
    emit = lp[:length][:, ext]
    alpha[0, 0] = emit[0, 0]
    if s > 1:
        alpha[0, 1] = emit[0, 1]
    for t in range(1, length):
        prev = alpha[t - 1]
        one = np.concatenate([[-np.inf], prev[:-1]])
        two = np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), -np.inf)
        alpha[t] = _logsumexp(prev, one, two) + emit[t]
    beta[length - 1, s - 1] = emit[length - 1, s - 1]
    if s > 1:
        beta[length - 1, s - 2] = emit[length - 1, s - 2]
    skip_back = np.zeros(s, bool)
    skip_back[:-2] = skip[2:]
    for t in range(length - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate([nxt[1:], [-np.inf]])
        two = np.where(skip_back, np.concatenate([nxt[2:], [-np.inf, -np.inf]]), -np.inf)
        beta[t] = _logsumexp(nxt, one, two) + emit[t]
    ends = [alpha[length - 1, s - 1]] + ([alpha[length - 1, s - 2]] if s > 1 else [])
    log_p = _logsumexp(*ends)
    if not np.isfinite(log_p):
        return np.inf, None
    both = alpha + beta - emit   # each path's y at t counted once
    occupancy = np.full((length, lp.shape[1]), -np.inf)
    for k in np.unique(ext):
        occupancy[:, k] = _logsumexp(*both[:, ext == k].T) if (ext == k).sum() > 1 else both[:, ext == k][:, 0]
    return -log_p, occupancy - log_p


def ctc(probs, labels, label_lengths, input_lengths, softmax, table):
    """(costs (N,), gradients (T, N, A) or None per sequence when no alignment fits) in float64."""
    x = probs.astype(np.float64)
    if softmax:
        top = x.max(axis=2, keepdims=True)
        lp = x - top - np.log(np.exp(x - top).sum(axis=2, keepdims=True))
    else:
        with np.errstate(divide="ignore"):
            lp = np.log(x)
    steps, batch, _ = x.shape
    costs, grads = np.zeros(batch), []
    starts = np.concatenate([[0], np.cumsum(label_lengths)])
    for n in range(batch):
        length = int(input_lengths[n])
        cost, occupancy = sequence_loss(lp[:, n], labels[starts[n]:starts[n + 1]], length, table)
        costs[n] = cost
        if occupancy is None:
            grads.append(None)
            continue
        g = np.zeros((steps, x.shape[2]))
        g[:length] = np.exp(lp[:length, n]) - np.exp(occupancy)
        grads.append(g)
    return costs, grads


def _write(a, v, costs, grads):
    v["costs"][...] = costs.astype(np.float32)
    if v.get("gradients") is None:
        return
    out = v["gradients"]
    for n, g in enumerate(grads):
        if g is None:
            if a.ctcLossDesc.grad != _PROPAGATE:
                out[:, n] = 0
            continue
        out[:, n] = g.astype(np.float32)


class _CTCLoss(mcdnn.McdnnOp):
    outputs = ("costs", "gradients", "workspace")

    def spaces(self, a, max_label, given):
        steps, batch, _ = a.probsDesc.shape
        need = workspace_bytes(steps, max_label)
        if given < need:
            raise mcdnn.bad_param("workSpaceSizeInBytes %d is less than the %d bytes the size query returns"
                                  % (given, need))
        mcdnn.require(a, "workspace")
        a._work_desc = byte_tensor(need)
        a._costs_desc = mcdnn.Tensor(_FLOAT, (batch,), (1,))

    def run(self, a, v, labels, label_lengths, input_lengths):
        steps, batch, alphabet = a.probsDesc.shape
        _check_lengths(steps, batch, alphabet, labels, label_lengths, input_lengths, a.ctcLossDesc.max_label)
        s = 2 * a.ctcLossDesc.max_label + 1
        table = v["workspace"].view(np.float64)[:2 * steps * s].reshape(2, steps, s)
        costs, grads = ctc(v["probs"], np.asarray(labels, np.intp), label_lengths, input_lengths,
                           a.ctcLossDesc.norm == _SOFTMAX, table)
        _write(a, v, costs, grads)


class CTCLoss(_CTCLoss):
    name = "mcdnnCTCLoss"
    tensors = {"probs": "probsDesc", "costs": "_costs_desc", "gradients": "gradientsDesc", "workspace": "_work_desc"}

    def check(self, a):
        _check_descs(a, a.probs, a.gradients)
        mcdnn.require(a, "probs", "costs", "hostLabels", "hostLabelLengths", "hostInputLengths")
        steps, batch, alphabet = a.probsDesc.shape
        ffi = device.ffi
        a._label_lengths = list(ffi.unpack(ffi.cast("int *", a.hostLabelLengths), batch))
        a._input_lengths = list(ffi.unpack(ffi.cast("int *", a.hostInputLengths), batch))
        _check_lengths(steps, batch, alphabet, [], a._label_lengths, a._input_lengths, a.ctcLossDesc.max_label)
        a._labels = list(ffi.unpack(ffi.cast("int *", a.hostLabels), sum(a._label_lengths)))
        _check_lengths(steps, batch, alphabet, a._labels, a._label_lengths, a._input_lengths, a.ctcLossDesc.max_label)
        self.spaces(a, a.ctcLossDesc.max_label, a.workSpaceSizeInBytes)

    def compute(self, a, v):
        self.run(a, v, a._labels, a._label_lengths, a._input_lengths)


class CTCLossV8(_CTCLoss):
    name = "mcdnnCTCLoss_v8"
    tensors = {"probs": "probsDesc", "costs": "_costs_desc", "gradients": "gradientsDesc", "workspace": "_work_desc",
               "labelLengths": "_batch_ints", "inputLengths": "_batch_ints", "labels": "_labels_desc"}

    def check(self, a):
        _check_descs(a, a.probs, a.gradients)
        mcdnn.require(a, "probs", "costs", "labels", "labelLengths", "inputLengths")
        steps, batch, _ = a.probsDesc.shape
        self.spaces(a, a.ctcLossDesc.max_label, a.workSpaceSizeInBytes)
        a._batch_ints = mcdnn.Tensor(_INT32, (batch,), (1,))
        # the labels' count is known only when the lengths are read: the view spans batch x maxLabelLength
        # labels at most, and the kernel reads the first sum(labelLengths) of them
        a._labels_desc = mcdnn.Tensor(_INT32, (1,), (1,))

    def compute(self, a, v):
        label_lengths, input_lengths = np.array(v["labelLengths"]), np.array(v["inputLengths"])
        count = int(np.clip(label_lengths, 0, None).sum())
        labels = device.view_at(a.labels, ((count,), np.dtype(np.int32), 0, (4,), 4 * count)) if count else []
        self.run(a, v, np.array(labels), label_lengths, input_lengths)


class GetCTCLossWorkspaceSize(mcdnn.McdnnOp):
    name = "mcdnnGetCTCLossWorkspaceSize"
    host_only = True

    def check(self, a):
        _check_descs(a, None, None)
        mcdnn.require(a, "labels", "labelLengths", "inputLengths", "sizeInBytes")

    def compute(self, a, v):
        device.ffi.cast("size_t *", a.sizeInBytes)[0] = workspace_bytes(a.probsDesc.shape[0], a.ctcLossDesc.max_label)


class GetCTCLossWorkspaceSizeV8(mcdnn.McdnnOp):
    name = "mcdnnGetCTCLossWorkspaceSize_v8"
    host_only = True

    def check(self, a):
        _check_descs(a, None, None)
        mcdnn.require(a, "sizeInBytes")

    def compute(self, a, v):
        device.ffi.cast("size_t *", a.sizeInBytes)[0] = workspace_bytes(a.probsDesc.shape[0], a.ctcLossDesc.max_label)
