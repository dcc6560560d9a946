"""aclnnCtcLoss and aclnnCtcLossBackward (ops-nn loss/ctc_loss_v2, ctc_loss_v2_grad op_api): PyTorch's ctc_loss,
with the vendor's outputs.

    logProbs (T, N, C) (or (T, C): one sample), targets padded (N, S) or concatenated (Σ targetLengths),
    inputLengths / targetLengths host arrays of N values, blank
    negLogLikelihoodOut (N) (0-d for 2-D logProbs) = −log Σ over the alignments of the extended target
        (blank, l1, blank, l2, …, blank); zeroInfinity turns an infinite loss (and its gradient) into 0
    logAlphaOut (N, T, 2·S + 1, padded to a multiple of 8 except on the 950): the forward variables, −inf where no
        alignment reaches and in the padding
    backward: out[t, n, c] = g_n·(e^lp[t, n, c] − e^(log Σ_{s: l'_s = c} α_t(s)·β_t(s) + nll_n − lp[t, n, c])) for
        t < inputLengths[n], 0 after

The recursions run in the logProbs dtype's compute type (fp32; fp64 for double), time step after time step
(deterministic). Phase 1 follows the op_api files (shapes and values first, dtypes after, as they do)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

TARGET_DTYPES = P.codes("INT32 INT64 BOOL FLOAT FLOAT16")


def _log_probs_dtypes():
    return P.codes("FLOAT FLOAT16 BF16 DOUBLE") if _products.line() in ("A2", "A3", "950") else P.codes("FLOAT DOUBLE")


def _null_array(name):
    return status.param_nullptr("Expected a value of type List[int] for argument %s but instead found type null." % name)


def _targets_of(targets, lengths):
    """Each sample's target labels (a padded 2-D targets or a concatenated 1-D one)."""
    flat = np.asarray(targets).astype(np.int64)
    if flat.ndim == 2:
        return [flat[n, :lengths[n]] for n in range(len(lengths))]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    return [flat[offsets[n]:offsets[n + 1]] for n in range(len(lengths))]


def _logsumexp(*terms):
    stacked = np.stack(terms)
    top = np.max(stacked, axis=0)
    safe = np.where(np.isfinite(top), top, 0)
    return np.log(np.sum(np.exp(stacked - safe), axis=0)) + safe


def _extended(labels, blank):
    extended = np.full(2 * len(labels) + 1, blank, np.int64)
    extended[1::2] = labels
    skip = np.zeros(extended.size, bool)   # s may come from s − 2: a label differing from the one two back
    skip[3::2] = labels[1:] != labels[:-1]
    return extended, skip


def alphas(lp, labels, length, blank, ct):
    """log α (T, 2S+1) of one sample; lp (T, C) in the compute type."""
    extended, skip = _extended(labels, blank)
    width = extended.size
    alpha = np.full((lp.shape[0], width), -np.inf, ct)
    if length == 0:
        return alpha, extended, skip
    alpha[0, 0] = lp[0, blank]
    if width > 1:
        alpha[0, 1] = lp[0, extended[1]]
    for t in range(1, length):
        previous = alpha[t - 1]
        shifted1 = np.concatenate([[-np.inf], previous[:-1]]).astype(ct)
        shifted2 = np.where(skip, np.concatenate([[-np.inf, -np.inf], previous[:-2]]), -np.inf).astype(ct)
        alpha[t] = _logsumexp(previous, shifted1, shifted2) + lp[t, extended]
    return alpha, extended, skip


def betas(lp, extended, skip, length, ct):
    width = extended.size
    beta = np.full((lp.shape[0], width), -np.inf, ct)
    if length == 0:
        return beta
    beta[length - 1, width - 1] = lp[length - 1, extended[width - 1]]
    if width > 1:
        beta[length - 1, width - 2] = lp[length - 1, extended[width - 2]]
    skip_next = np.concatenate([skip[2:], [False, False]])
    for t in range(length - 2, -1, -1):
        following = beta[t + 1]
        shifted1 = np.concatenate([following[1:], [-np.inf]]).astype(ct)
        shifted2 = np.where(skip_next, np.concatenate([following[2:], [-np.inf, -np.inf]]), -np.inf).astype(ct)
        beta[t] = _logsumexp(following, shifted1, shifted2) + lp[t, extended]
    return beta


def _nll(alpha, length, width, ct):
    if length == 0:
        return ct.type(0) if width == 1 else ct.type(np.inf)
    last = [alpha[length - 1, width - 1]] + ([alpha[length - 1, width - 2]] if width > 1 else [])
    return -_logsumexp(*[np.asarray(v, ct) for v in last])


def _check_common(a, names):
    for name in names:
        value = getattr(a, name)
        if value is None:
            if name in ("inputLengths", "targetLengths", "targetlengths"):
                raise _null_array(name)
            checks.not_null(a, name)


class CtcLoss(AclnnOp):
    name = "aclnnCtcLoss"
    inputs = ("logProbs", "targets")
    outputs = ("negLogLikelihoodOut", "logAlphaOut")

    def dtype_table(self):
        return {"logProbs": _log_probs_dtypes(), "targets": TARGET_DTYPES, "negLogLikelihoodOut": _log_probs_dtypes(),
                "logAlphaOut": _log_probs_dtypes()}

    def check(self, a):
        _check_common(a, ("logProbs", "targets", "inputLengths", "targetlengths", "negLogLikelihoodOut",
                          "logAlphaOut"))
        lp, targets = a.logProbs, a.targets
        if lp.ndim and lp.shape[0] == 0:
            raise status.param_invalid("start (0) + length (1) exceeds dimension size (0).")
        if lp.ndim not in (2, 3):
            raise status.param_invalid("DimNum of logProbs [%d] must equal 2 or 3." % lp.ndim)
        steps, batch, classes = lp.shape[0], (lp.shape[1] if lp.ndim == 3 else 1), lp.shape[-1]
        if not 0 <= a.blank < classes:
            raise status.param_invalid("Attr parameter blank %d must be greater than or equal to 0 and less than %d."
                                       % (a.blank, classes))
        longest = max(a.inputLengths, default=0)
        if len(a.inputLengths) != batch or longest > steps:
            raise status.param_invalid("Inputlengths's size [%d] must equal to [%d], and max value [%d] must be less "
                                       "than or equal to [%d]." % (len(a.inputLengths), batch, longest, steps))
        if len(a.targetlengths) != batch:
            raise status.param_invalid("targetLengths's size [%d] must equal to [%d]." % (len(a.targetlengths), batch))
        longest_target = max(a.targetlengths, default=0)
        if targets.ndim not in (1, 2):
            raise status.param_invalid("DimNum of targets [%d] must equal 1 or 2." % targets.ndim)
        if targets.ndim == 2 and (targets.shape[0] != batch or targets.shape[1] < longest_target):
            raise status.param_invalid("Target's shape expect [%d, >=%d], but get current shape %s."
                                       % (batch, longest_target, checks.shape_text(targets.shape)))
        if targets.ndim == 1 and targets.shape[0] != sum(a.targetlengths):
            raise status.param_invalid("Target's shape expect [%d], but get current shape %s."
                                       % (sum(a.targetlengths), checks.shape_text(targets.shape)))
        width = 2 * longest_target + 1
        alpha_width = width if _products.is_regbase() else (width + 7) // 8 * 8
        nll_shape, alpha_shape = ((batch,) if lp.ndim == 3 else ()), (batch, steps, alpha_width)
        if tuple(a.negLogLikelihoodOut.shape) != nll_shape:
            raise status.param_invalid("Shape of negLogLikelihoodOut %s must equal %s."
                                       % (checks.shape_text(a.negLogLikelihoodOut.shape), checks.shape_text(nll_shape)))
        if tuple(a.logAlphaOut.shape) != alpha_shape:
            raise status.param_invalid("Shape of logAlphaOut %s must equal %s."
                                       % (checks.shape_text(a.logAlphaOut.shape), checks.shape_text(alpha_shape)))
        checks.dtype_in("logProbs", lp, _log_probs_dtypes())
        checks.dtype_in("targets", targets, TARGET_DTYPES)
        checks.dtype_match("negLogLikelihoodOut", a.negLogLikelihoodOut, lp.dtype)
        checks.dtype_match("logAlphaOut", a.logAlphaOut, lp.dtype)

    def compute(self, a, v, workspace):
        lp_all = v["logProbs"]
        ct = np.dtype(np.float64) if lp_all.dtype == np.float64 else np.dtype(np.float32)
        lp_all = np.asarray(lp_all, ct)
        if lp_all.ndim == 2:
            lp_all = lp_all[:, None, :]
        alpha_out = np.full(v["logAlphaOut"].shape, -np.inf, ct)
        labels = _targets_of(v["targets"], a.targetlengths)
        losses = np.empty(lp_all.shape[1], ct)
        with np.errstate(all="ignore"):
            for n in range(lp_all.shape[1]):
                alpha, extended, _ = alphas(lp_all[:, n], labels[n], a.inputLengths[n], a.blank, ct)
                alpha_out[n, :, :extended.size] = alpha
                losses[n] = _nll(alpha, a.inputLengths[n], extended.size, ct)
        if a.zeroInfinity:
            losses[np.isinf(losses)] = 0
        P.store(v["logAlphaOut"], alpha_out)
        P.store(v["negLogLikelihoodOut"], losses.reshape(v["negLogLikelihoodOut"].shape))


class CtcLossBackward(AclnnOp):
    name = "aclnnCtcLossBackward"
    inputs = ("gradOut", "logProbs", "targets", "negLogLikelihood", "logAlpha")
    outputs = ("out",)

    def dtype_table(self):
        allowed = _log_probs_dtypes()
        return {"gradOut": allowed, "logProbs": allowed, "targets": TARGET_DTYPES, "negLogLikelihood": allowed,
                "logAlpha": allowed, "out": allowed}

    def check(self, a):
        _check_common(a, ("gradOut", "logProbs", "targets", "inputLengths", "targetLengths", "negLogLikelihood",
                          "logAlpha", "out"))
        lp = a.logProbs
        if lp.ndim and lp.shape[0] == 0:
            raise status.param_invalid("start (0) + length (1) exceeds dimension size (0).")
        for name, t, ranks, text in (("gradOut", a.gradOut, (1,), "[1]"), ("negLogLikelihood", a.negLogLikelihood,
                                                                          (1,), "[1]"),
                                     ("logProbs", lp, (3,), "3"), ("logAlpha", a.logAlpha, (3,), "3"),
                                     ("targets", a.targets, (1, 2), "1 or 2"), ("out", a.out, (3,), "3")):
            if t.ndim not in ranks:
                raise status.param_invalid("DimNum of %s [%d] must equal %s." % (name, t.ndim, text))
        steps, batch, classes = lp.shape
        longest_target = max(a.targetLengths, default=0)
        if len(a.inputLengths) != batch or len(a.targetLengths) != batch or max(a.inputLengths, default=0) > steps:
            raise status.param_invalid("Check batchSize failed.")
        if a.logAlpha.shape[2] < 2 * longest_target + 1:
            raise status.param_invalid("S of targets [%d] must be smaller than half of alphaLength [%d]."
                                       % (longest_target, a.logAlpha.shape[2]))
        if a.targets.ndim == 2 and a.targets.shape[1] < longest_target:
            raise status.param_invalid("Targets tensor's size at dim 1 is at least%d" % longest_target)
        if not 0 <= a.blank < classes:
            raise status.param_invalid("Check symbolSet failed.")
        checks.same_shape("out", a.out, "logProbs", lp)
        checks.dtype_in("logProbs", lp, _log_probs_dtypes())
        for name in ("gradOut", "negLogLikelihood", "logAlpha", "out"):
            checks.dtype_match(name, getattr(a, name), lp.dtype)
        checks.dtype_in("targets", a.targets, TARGET_DTYPES)

    def compute(self, a, v, workspace):
        lp_all = v["logProbs"]
        ct = np.dtype(np.float64) if lp_all.dtype == np.float64 else np.dtype(np.float32)
        lp_all = np.asarray(lp_all, ct)
        grad = np.zeros(lp_all.shape, ct)
        labels = _targets_of(v["targets"], a.targetLengths)
        g = np.asarray(v["gradOut"], ct).reshape(-1)
        nll_all = np.asarray(v["negLogLikelihood"], ct).reshape(-1)
        with np.errstate(all="ignore"):
            for n in range(lp_all.shape[1]):
                length = a.inputLengths[n]
                lp = lp_all[:, n]
                alpha, extended, skip = alphas(lp, labels[n], length, a.blank, ct)
                beta = betas(lp, extended, skip, length, ct)
                nll = nll_all[n]
                # the forward zeroes an infinite loss when zeroInfinity is set: the alignment itself says so
                if a.zeroInfinity and (np.isinf(nll) or np.isinf(_nll(alpha, length, extended.size, ct))):
                    continue
                both = alpha[:length] + beta[:length]
                collected = np.full((length, lp.shape[1]), -np.inf, ct)
                for s, c in enumerate(extended):
                    collected[:, c] = _logsumexp(collected[:, c], both[:, s])
                grad[:length, n] = (np.exp(lp[:length]) - np.exp(collected + nll - lp[:length])) * g[n]
        P.store(v["out"], grad)


