"""aclnnMultilabelMarginLoss (ops-nn loss/multilabel_margin_loss op_api), aclnnChamferDistanceBackward
(loss/chamfer_distance_grad op_api) and aclnnCrossEntropySumExpAndIndexLogit (loss/cross_entropy_sum_exp_and_index_logit,
an opbuild operator of the 950 line).

    MultilabelMarginLoss  PyTorch's multilabel_margin_loss: the targets of a row are its leading non-negative
        entries (up to the first −1); l = Σ_{j target} Σ_{i not target} max(0, 1 − (x[j] − x[i])) / C; isTarget
        marks the target classes (1, else 0) in self's dtype
    ChamferDistanceBackward  for point sets xyz1 (B, N, 2), xyz2 (B, M, 2) and the forward's nearest indices:
        gradXyz1[b, i] += 2·g1·(p1_i − p2[idx1]); gradXyz2[b, idx1] −= the same; and symmetrically for idx2 — the
        scattered terms added in index order in fp32, rounded once
    CrossEntropySumExpAndIndexLogit  a vocabulary shard's part of cross-entropy: expLogits = e^(x − max),
        sumExpLogits = Σ_j expLogits, predictedLogits = x[target − start] − max inside the shard (else 0),
        targetOffset, targetMask — FLOAT outputs, BF16 input widened first

Indices (chamfer's idx, the shard's target offsets) address the tensors as the kernels do: outside them they read
or write where the address lands (common/addressing.py)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import addressing, opbuild
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.loss.pointwise import MEAN, NONE, floats


class MultilabelMarginLoss(AclnnOp):
    name = "aclnnMultilabelMarginLoss"
    inputs = ("self", "target")
    outputs = ("out", "isTarget")

    def dtype_table(self):
        return {"self": floats(), "target": P.codes("INT64 INT32"), "out": floats(), "isTarget": floats()}

    def check(self, a):
        checks.not_null(a, "self", "target", "out", "isTarget")
        x, target, out, is_target = a.self, a.target, a.out, a.isTarget
        checks.dtype_in("self", x, floats())
        checks.dtype_in("target", target, P.codes("INT64 INT32"))
        checks.dtype_match("out", out, x.dtype)
        checks.dtype_match("isTarget", is_target, x.dtype)
        ok = (x.ndim == 2 and x.shape[1] != 0) or (x.ndim == 1 and x.shape[0] != 0) or x.ndim == 0
        if not ok:
            raise status.param_invalid("Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s"
                                       % checks.shape_text(x.shape))
        inconsistent = status.param_invalid("inconsistent target size: %s for self of size: %s"
                                            % (checks.shape_text(target.shape), checks.shape_text(x.shape)))
        if x.ndim <= 1:
            if target.ndim > 1 or target.numel() != (x.shape[0] if x.ndim else 1):
                raise inconsistent
        elif target.ndim != 2 or tuple(target.shape) != tuple(x.shape):
            raise inconsistent
        if a.reduction == NONE and x.ndim == 2:
            if out.ndim != 1 or out.shape[0] != x.shape[0]:
                raise status.param_invalid("Expect out shape [%d], but got: %s." % (x.shape[0],
                                                                                    checks.shape_text(out.shape)))
        elif out.ndim > 1 or out.numel() != 1:
            raise status.param_invalid("Expected a single element out tensor, but got: %s" % checks.shape_text(out.shape))
        if x.ndim == 2 and x.shape[0] == 0:
            if is_target.ndim > 2 or is_target.numel() != 0:
                raise status.param_invalid("inconsistent isTarget size: %s for self of size: %s"
                                           % (checks.shape_text(is_target.shape), checks.shape_text(x.shape)))
        else:
            checks.same_shape("isTarget", is_target, "target", target)

    def compute(self, a, v, workspace):
        x = np.asarray(v["self"], np.float64 if v["self"].dtype == np.float64 else np.float32)
        ct = x.dtype
        rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
        target = np.asarray(v["target"], np.int64).reshape(rows.shape)
        classes = rows.shape[1]
        losses = np.zeros(rows.shape[0], ct)
        marks = np.zeros(rows.shape, ct)
        with np.errstate(all="ignore"):
            for n in range(rows.shape[0]):
                stop = np.flatnonzero(target[n] < 0)
                chosen = target[n, :stop[0] if stop.size else classes]
                chosen = chosen[chosen < classes]
                marks[n, chosen] = 1
                others = rows[n][marks[n] == 0]
                margins = np.maximum(ct.type(0), ct.type(1) - (rows[n, chosen][:, None] - others[None, :]))
                losses[n] = np.add.reduce(margins.reshape(-1), dtype=ct) / ct.type(classes)
            P.store(v["isTarget"], marks.reshape(v["isTarget"].shape))
            if a.reduction == NONE and v["self"].ndim == 2:
                P.store(v["out"], losses)
                return
            total = np.add.reduce(losses, dtype=ct)
            if a.reduction == MEAN:
                total = total / ct.type(losses.size)
        P.store(v["out"], np.asarray(total).reshape(v["out"].shape))


class ChamferDistanceBackward(AclnnOp):
    name = "aclnnChamferDistanceBackward"
    inputs = ("xyz1", "xyz2", "idx1", "idx2", "gradDist1", "gradDist2")
    outputs = ("gradXyz1", "gradXyz2")
    PRODUCTS = ("A2", "A3", "950")
    products = _products.describe(PRODUCTS)
    DATA = P.codes("FLOAT FLOAT16")

    def dtype_table(self):
        table = {n: self.DATA for n in self.inputs + self.outputs}
        table.update(idx1=P.codes("INT32"), idx2=P.codes("INT32"))
        return table

    def check(self, a):
        names = self.inputs + self.outputs
        checks.not_null(a, *names)
        for name in names:
            checks.dtype_in(name, getattr(a, name), P.codes("INT32") if name.startswith("idx") else self.DATA)
        _products.check_supported(self.name, self.PRODUCTS)
        b, n, m = a.xyz1.shape[0] if a.xyz1.ndim else 0, a.xyz1.shape[1] if a.xyz1.ndim > 1 else 0, \
            a.xyz2.shape[1] if a.xyz2.ndim > 1 else 0
        expected = {"xyz1": (b, n, 2), "xyz2": (b, m, 2), "idx1": (b, n), "idx2": (b, m), "gradDist1": (b, n),
                    "gradDist2": (b, m), "gradXyz1": (b, n, 2), "gradXyz2": (b, m, 2)}
        for name, shape in expected.items():
            if tuple(getattr(a, name).shape) != shape:
                raise status.tiling_error("ChamferDistanceGrad tiling: %s has shape %s, expected %s" % (
                    name, checks.shape_text(getattr(a, name).shape), checks.shape_text(shape)))

    def compute(self, a, v, workspace):
        p1, p2 = np.asarray(v["xyz1"], np.float32), np.asarray(v["xyz2"], np.float32)
        g1 = np.asarray(v["gradDist1"], np.float32)[..., None]
        g2 = np.asarray(v["gradDist2"], np.float32)[..., None]
        idx1, idx2 = np.asarray(v["idx1"], np.int64), np.asarray(v["idx2"], np.int64)
        batch = np.arange(p1.shape[0])[:, None]
        with np.errstate(all="ignore"):
            d1 = 2 * g1 * (p1 - _gather_points(self.name, v["xyz2"], batch, idx1, "idx1").astype(np.float32))
            d2 = 2 * g2 * (p2 - _gather_points(self.name, v["xyz1"], batch, idx2, "idx2").astype(np.float32))
            dx1, dx2 = d1.copy(), d2.copy()
            _scatter_points(self.name, dx2, batch, idx1, -d1, "idx1")
            _scatter_points(self.name, dx1, batch, idx2, -d2, "idx2")
        P.store(v["gradXyz1"], dx1)
        P.store(v["gradXyz2"], dx2)


def _gather_points(op, points, batch, index, name):
    coordinates = (batch[..., None], index[..., None], np.arange(2)[None, None, :])
    if not addressing.outside(index, points.shape[1]):
        return points[coordinates]
    return addressing.gather(points, coordinates, addressing.describe(op, name, index, points.shape[1], 1))


def _scatter_points(op, target, batch, index, values, name):
    coordinates = (np.broadcast_to(batch[..., None], values.shape), np.broadcast_to(index[..., None], values.shape),
                   np.broadcast_to(np.arange(2), values.shape))
    if not addressing.outside(index, target.shape[1]):
        np.add.at(target, coordinates, values)
        return
    addressing.reduce_at(target, coordinates, values, "add", addressing.describe(op, name, index, target.shape[1], 1))


class CrossEntropySumExpAndIndexLogit(AclnnOp):
    name = "aclnnCrossEntropySumExpAndIndexLogit"
    inputs = ("vocabParallelLogits", "target", "globalLogitsMax")
    outputs = ("predictedLogitsOut", "sumExpLogitsOut", "expLogitsOut", "targetOffsetOut", "targetMaskOut")
    PRODUCTS = ("950",)
    products = _products.describe(PRODUCTS)

    def dtype_table(self):
        return {"vocabParallelLogits": P.codes("FLOAT BF16"), "target": P.codes("INT32"),
                "globalLogitsMax": P.codes("FLOAT BF16"), "predictedLogitsOut": [P.FLOAT], "sumExpLogitsOut": [P.FLOAT],
                "expLogitsOut": [P.FLOAT], "targetOffsetOut": P.codes("INT32"), "targetMaskOut": P.codes("INT32")}

    def check(self, a):
        int32 = dtypes.acl("INT32")
        combos = [(d, int32, d, P.FLOAT, P.FLOAT, P.FLOAT, int32, int32) for d in P.codes("FLOAT BF16")]
        opbuild.check(self.name, a, self.inputs + self.outputs, combos, self.PRODUCTS)
        x, target = a.vocabParallelLogits, a.target
        if x.ndim not in (2, 3):
            raise status.param_invalid("vocabParallelLogits must be 2-D or 3-D, got %s" % checks.shape_text(x.shape))
        if tuple(x.shape[:-1]) != tuple(target.shape):
            raise status.param_invalid("vocabParallelLogits.shape[:-1] %s must equal target's shape %s"
                                       % (checks.shape_text(x.shape[:-1]), checks.shape_text(target.shape)))
        if tuple(a.globalLogitsMax.shape) != tuple(target.shape):
            raise status.param_invalid("globalLogitsMax's shape %s must equal target's shape %s"
                                       % (checks.shape_text(a.globalLogitsMax.shape), checks.shape_text(target.shape)))
        local = x.shape[-1]
        if a.vocabStartIndex < 0 or a.vocabEndIndex <= a.vocabStartIndex \
                or a.vocabEndIndex - a.vocabStartIndex != local:
            raise status.param_invalid("vocabEndIndex - vocabStartIndex (%d - %d) must equal the shard's size %d, with "
                                       "vocabStartIndex >= 0" % (a.vocabEndIndex, a.vocabStartIndex, local))
        align = 16 if x.dtype == P.BF16 else 8
        tokens = target.numel()
        if local % align or not 16 <= local <= 200 * 1024 or not 1 <= tokens <= 32 * 1024:
            raise status.param_invalid("V_local %d must lie in [16, 200K] and be a multiple of %d, N %d in [1, 32K]"
                                       % (local, align, tokens))
        for name, shape in (("predictedLogitsOut", target.shape), ("sumExpLogitsOut", target.shape),
                            ("expLogitsOut", x.shape), ("targetOffsetOut", target.shape), ("targetMaskOut", target.shape)):
            checks.shape_is(name, getattr(a, name), shape, checks.shape_text(shape))

    def compute(self, a, v, workspace):
        x = np.asarray(v["vocabParallelLogits"], np.float32).reshape(-1, a.vocabParallelLogits.shape[-1])
        top = np.asarray(v["globalLogitsMax"], np.float32).reshape(-1, 1)
        target = np.asarray(v["target"], np.int64).reshape(-1)
        with np.errstate(all="ignore"):
            shifted = x - top
            exp = np.exp(shifted)
        P.store(v["expLogitsOut"], exp.reshape(v["expLogitsOut"].shape))
        P.store(v["sumExpLogitsOut"], np.add.reduce(exp, axis=1).reshape(v["sumExpLogitsOut"].shape))
        mask = (target < a.vocabStartIndex) | (target >= a.vocabEndIndex)
        offset = np.where(mask, 0, target - a.vocabStartIndex)
        predicted = np.where(mask, np.float32(0), shifted[np.arange(offset.size), offset])
        P.store(v["predictedLogitsOut"], predicted.reshape(v["predictedLogitsOut"].shape))
        P.store(v["targetOffsetOut"], offset.reshape(v["targetOffsetOut"].shape))
        P.store(v["targetMaskOut"], mask.astype(np.int32).reshape(v["targetMaskOut"].shape))
