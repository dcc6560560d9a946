"""aclnnCrossEntropyLoss and aclnnCrossEntropyLossGrad (ops-nn loss/cross_entropy_loss, cross_entropy_loss_grad;
opbuild operators of Atlas A2/A3 and the 950): PyTorch's cross_entropy with class weights, ignoreIndex and label
smoothing, split as the vendor splits it.

    logProb[n, c] = x[n, c] − lse_n                    (lse_n = log Σ_c e^x[n, c], fp32)
    l_n = (1 − ls)·(−w[y_n]·logProb[n, y_n]) + ls·(−Σ_c w_c·logProb[n, c] / C), 0 when y_n = ignoreIndex
    loss = l (reduction "none", shape [N]); Σ l ("sum"); Σ l / Σ_n w[y_n] over kept samples ("mean")
    grad[n, c] = g_n·((1 − ls)·w[y_n]·(p[n, c] − 1{c = y_n}) + ls·(p[n, c]·Σ_k w_k − w_c)/C), p = e^logProb,
                 divided by the kept weight sum for "mean"; 0 for ignored samples

w is 1 without weightOptional. The z-loss outputs (zlossOut, lseForZlossOut, gradZlossOptional) are declared but
"not supported yet" by the vendor: they are not written or read. Phase 1: nulls → product → dtype combination
(the definition's: target INT64 on A2/A3, INT32/INT64 on the 950; weight FLOAT) → the tiling's rules: reduction in
none/mean/sum, labelSmoothing in [0, 1], input's dim 0 equal to target's size, weight's size equal to input's
dim 1 (ACLNN_ERR_INNER_TILING_ERROR with the tiling's texts)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import oplog, opbuild
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

LINES = ("A2", "A3", "950")
DATA = P.codes("FLOAT16 FLOAT BF16")


def _targets():
    return P.codes("INT32 INT64") if _products.is_regbase() else P.codes("INT64")


def _tiling(message_error):
    return status.tiling_error(str(message_error))


def _check_attributes(op, reduction, label_smoothing):
    if reduction not in ("none", "mean", "sum"):
        raise _tiling(oplog.should_be(op, "reduction", "value", reduction, "in ['none', 'mean', 'sum']"))
    if not 0.0 <= label_smoothing <= 1.0:
        raise _tiling(oplog.should_be(op, "label_smoothing", "value", "%f" % label_smoothing, "in [0.0, 1.0]"))


def _check_shapes(op, x, target, weight):
    if x.ndim != 2 or target.ndim != 1 or target.shape[0] != x.shape[0]:
        raise _tiling(oplog.reasons(op, "input and target", "shapes", "%d and %d" % (
            x.shape[0] if x.ndim else 0, target.shape[0] if target.ndim else 0),
            "The dim 0 of input should be same as the shape size of target"))
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != x.shape[1]):
        raise _tiling(oplog.reasons(op, "input and weight", "shapes", "%d and %d" % (
            x.shape[1], weight.shape[0] if weight.ndim else 0),
            "The dim 1 of input should be same as the shape size of weight"))


def _kept(target, weight, ignore, classes):
    """(kept mask, weight of each kept sample's class) — targets outside the classes read weight 0 here (the kernel's
    gather is bounded by its tile)."""
    kept = target != ignore
    safe = np.where(kept & (target >= 0) & (target < classes), target, 0)
    w_target = weight[safe] * kept
    return kept, safe, w_target


class CrossEntropyLoss(AclnnOp):
    name = "aclnnCrossEntropyLoss"
    inputs = ("input", "target", "weightOptional")
    outputs = ("lossOut", "logProbOut", "zlossOut", "lseForZlossOut")
    products = _products.describe(LINES)

    def dtype_table(self):
        return {"input": DATA, "target": _targets(), "weightOptional": [P.FLOAT], "lossOut": DATA,
                "logProbOut": DATA}

    def check(self, a):
        combos = [(d, t, P.FLOAT, d, d, d, d) for d in DATA for t in _targets()]
        opbuild.check(self.name, a, ("input", "target", "weightOptional", "lossOut", "logProbOut", "zlossOut",
                                     "lseForZlossOut"), combos, LINES)
        a.reduction = a.reductionOptional or "mean"
        _check_attributes("CrossEntropyLoss", a.reduction, a.labelSmoothing)
        _check_shapes("CrossEntropyLoss", a.input, a.target, a.weightOptional)
        n = a.input.shape[0]
        expected = (n,) if a.reduction == "none" else (1,)
        if tuple(a.lossOut.shape) != expected and not (a.reduction != "none" and a.lossOut.numel() == 1):
            raise _tiling(oplog.should_be("CrossEntropyLoss", "loss", "shape", checks.shape_text(a.lossOut.shape),
                                          checks.shape_text(expected)))
        checks.same_shape("logProbOut", a.logProbOut, "input", a.input)

    def compute(self, a, v, workspace):
        x = np.asarray(v["input"], np.float32)
        target = np.asarray(v["target"], np.int64)
        classes = x.shape[1]
        weight = np.ones(classes, np.float32) if v.get("weightOptional") is None else \
            np.asarray(v["weightOptional"], np.float32)
        with np.errstate(all="ignore"):
            top = x.max(axis=1, keepdims=True)
            lse = np.log(np.add.reduce(np.exp(x - top), axis=1, keepdims=True)) + top
            log_prob = x - lse
            P.store(v["logProbOut"], log_prob)
            kept, safe, w_target = _kept(target, weight, a.ignoreIndex, classes)
            nll = -w_target * np.take_along_axis(log_prob, safe[:, None], axis=1)[:, 0]
            smooth = -np.add.reduce(log_prob * weight, axis=1) / np.float32(classes) * kept
            ls = np.float32(a.labelSmoothing)
            losses = (np.float32(1) - ls) * nll + ls * smooth if ls else nll
            if a.reduction == "none":
                P.store(v["lossOut"], losses)
                return
            total = np.add.reduce(losses, dtype=np.float32)
            if a.reduction == "mean":
                total = total / np.add.reduce(w_target, dtype=np.float32)
        P.store(v["lossOut"], np.asarray(total, np.float32).reshape(v["lossOut"].shape))


class CrossEntropyLossGrad(AclnnOp):
    name = "aclnnCrossEntropyLossGrad"
    inputs = ("gradLoss", "logProb", "target", "weightOptional", "gradZlossOptional", "lseForZlossOptional")
    outputs = ("out",)
    products = _products.describe(LINES)

    def dtype_table(self):
        return {"gradLoss": DATA, "logProb": DATA, "target": _targets(), "weightOptional": [P.FLOAT], "out": DATA}

    def check(self, a):
        combos = [(d, d, t, P.FLOAT, d, d, d) for d in DATA for t in _targets()]
        opbuild.check(self.name, a, ("gradLoss", "logProb", "target", "weightOptional", "gradZlossOptional",
                                     "lseForZlossOptional", "out"), combos, LINES)
        a.reduction = a.reductionOptional or "mean"
        _check_attributes("CrossEntropyLossGrad", a.reduction, a.labelSmoothing)
        _check_shapes("CrossEntropyLossGrad", a.logProb, a.target, a.weightOptional)
        checks.same_shape("out", a.out, "logProb", a.logProb)

    def compute(self, a, v, workspace):
        log_prob = np.asarray(v["logProb"], np.float32)
        target = np.asarray(v["target"], np.int64)
        n, classes = log_prob.shape
        weight = np.ones(classes, np.float32) if v.get("weightOptional") is None else \
            np.asarray(v["weightOptional"], np.float32)
        g = np.asarray(v["gradLoss"], np.float32).reshape(-1)
        with np.errstate(all="ignore"):
            kept, safe, w_target = _kept(target, weight, a.ignoreIndex, classes)
            p = np.exp(log_prob)
            grad = p * w_target[:, None]
            grad[np.arange(n), safe] -= w_target
            ls = np.float32(a.labelSmoothing)
            if ls:
                smooth = (p * np.add.reduce(weight, dtype=np.float32) - weight) / np.float32(classes) * kept[:, None]
                grad = (np.float32(1) - ls) * grad + ls * smooth
            scale = g[:, None] if a.reduction == "none" else g[0]
            if a.reduction == "mean":
                scale = scale / np.add.reduce(w_target, dtype=np.float32)
            P.store(v["out"], grad * scale)
