"""Elementwise losses and their reductions (ops-nn loss/: lp_loss, mse_loss, smooth_l1_loss_v2, soft_margin_loss,
binary_cross_entropy, sigmoid_cross_entropy_with_logits_v2 op_api): PyTorch's l1_loss, mse_loss, smooth_l1_loss,
soft_margin_loss, binary_cross_entropy and binary_cross_entropy_with_logits.

    L1Loss             |x − t|                           (INT64 too: computed in int64)
    MseLoss, MseLossOut (x − t)²                         (MseLossOut reduces over dimension 0 only)
    SmoothL1Loss       ½d²/β if |d| < β, else |d| − ½β    (β = 0: |d|)
    SoftMarginLoss     log(1 + e^(−t·x))
    BinaryCrossEntropy −w·(t·log x + (1 − t)·log(1 − x)), each log clamped at −100 (PyTorch's)
    BCEWithLogits      −w·(pw·t·log σ(x) + (1 − t)·log σ(−x)), in PyTorch's stable form

reduction 0 none (out has the broadcast shape), 1 mean, 2 sum (a 0-d out). The kernels compute fp16/bf16 in fp32
(fp64 for double), sum in fp32 (NumPy's pairwise order), divide the mean once and round once into out. An empty
input writes NaN for mean and 0 for sum (the op_apis' CheckFillScalarLoss).

Phase 1 of each op follows its op_api file: the order of the null, reduction, dtype and shape checks differs
from op to op and is kept, message by message."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

NONE, MEAN, SUM = 0, 1, 2


def floats():
    """GetDtypeSupportListV2: FLOAT, FLOAT16, and BF16 on Atlas A2/A3 (and the 950)."""
    return P.codes("FLOAT FLOAT16 BF16") if _products.line() in ("A2", "A3", "950") else P.codes("FLOAT FLOAT16")


def compute_type(*arrays):
    return np.dtype(np.float64) if any(a.dtype == np.float64 for a in arrays) else np.dtype(np.float32)


def reduce(values, reduction, count=None):
    """none: values; mean: Σ / count (default: their number); sum: Σ — in the compute dtype."""
    if reduction == NONE:
        return values
    total = np.add.reduce(values.reshape(-1), dtype=values.dtype)
    if reduction == SUM:
        return total
    with np.errstate(all="ignore"):
        return values.dtype.type(total) / values.dtype.type(values.size if count is None else count)


def fill_empty(out, reduction):
    """CheckFillScalarLoss for an empty input: NaN for mean, 0 for sum, nothing for none."""
    if reduction == MEAN:
        out[...] = np.nan
    elif reduction == SUM:
        out[...] = 0


def broadcast(name_a, a, name_b, b):
    return P.broadcast(name_a, a.shape, name_b, b.shape)


def promote(a, b, message):
    result = P.promote(a, b)
    if result is None:
        raise status.param_invalid(message % (dtypes.serial_name(a), dtypes.serial_name(b)))
    return result


def scalar_out(out):
    if out.ndim >= 1:
        raise status.param_invalid("Expected a 0-dimensional tensor, but Shape of out is %s." % checks.shape_text(out.shape))


class _Loss(AclnnOp):
    inputs = ("self", "target")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": floats(), "target": floats(), "out": floats()}

    def compute(self, a, v, workspace):
        out = v[self.outputs[0]]
        if a.empty:
            fill_empty(out, a.reduction)
            return
        x, t = v["self"], v["target"]
        ct = compute_type(x, t)
        with np.errstate(all="ignore"):
            values = self.formula(x.astype(ct), t.astype(ct), a, v)
            P.store(out, np.asarray(reduce(values, a.reduction)).reshape(out.shape))


class L1Loss(_Loss):
    name = "aclnnL1Loss"

    def dtype_table(self):
        allowed = P.codes("FLOAT FLOAT16 INT64 BF16") if _products.line() in ("A2", "A3") else P.codes(
            "FLOAT FLOAT16 INT64")
        return {"self": allowed, "target": allowed, "out": allowed}

    def check(self, a):
        checks.not_null(a, "self", "target", "out")
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Expected reduction to be 0 or 1 or 2, but got %d." % a.reduction)
        x, t = a.self, a.target
        floating = (P.category(x.dtype) == 2, P.category(t.dtype) == 2)
        if a.reduction == NONE and not floating[0] and floating[1]:
            raise status.param_invalid("Input dtype should be either floating point or complex dtypes. Got %s instead."
                                       % dtypes.serial_name(x.dtype))
        if a.reduction == MEAN and not any(floating):
            raise status.param_invalid("Input dtype should be either floating point or complex dtypes. Got self %s "
                                       "and target %s instead." % (dtypes.serial_name(x.dtype),
                                                                   dtypes.serial_name(t.dtype)))
        a.promoted = promote(x.dtype, t.dtype, "Self dtype %s and target dtype %s can not be promoted.")
        allowed = self.dtype_table()["self"]
        if a.promoted not in allowed:
            raise status.param_invalid("promoteType dtype %s should be in dtype support list %s."
                                       % (dtypes.serial_name(a.promoted), dtypes.serial_list(allowed)))
        checks.result_castable(a.promoted, a.out.dtype)
        checks.max_dim("self", x)
        checks.max_dim("target", t)
        shape = broadcast("self", x, "target", t)
        if a.reduction == NONE and tuple(a.out.shape) != shape:
            raise status.param_invalid("Expected out tensor shape to be %s, but got %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.out.shape)))
        if a.reduction != NONE:
            scalar_out(a.out)
        a.empty = x.is_empty() or t.is_empty()

    def compute(self, a, v, workspace):
        if a.promoted == P.INT64 and not a.empty:
            d = np.abs(np.subtract(v["self"], v["target"], dtype=np.int64))
            P.store(v["out"], np.asarray(d.sum() if a.reduction == SUM else d).reshape(v["out"].shape))
            return
        super().compute(a, v, workspace)

    @staticmethod
    def formula(x, t, a, v):
        return np.abs(x - t)


def _check_mse(a, out_shape_of):
    checks.not_null(a, "self", "target", "out")
    allowed = floats()
    x, t = a.self, a.target
    if P.promote(x.dtype, t.dtype) not in allowed:
        raise status.param_invalid("Expected self dtype [%s] and target dtype [%s] to be promotable but check failed."
                                   % (dtypes.serial_name(x.dtype), dtypes.serial_name(t.dtype)))
    for name in ("self", "target", "out"):
        checks.dtype_in(name, getattr(a, name), allowed)
    if not NONE <= a.reduction <= SUM:
        raise status.param_invalid("Expected reduction to be between 0 and 2, but got %d." % a.reduction)
    checks.max_dim("self", x)
    checks.max_dim("target", t)
    shape = broadcast("self", x, "target", t)
    expected = out_shape_of(shape)
    if expected is None:
        scalar_out(a.out)
    else:
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))
    a.empty = x.is_empty() or t.is_empty()


class MseLoss(_Loss):
    name = "aclnnMseLoss"

    def check(self, a):
        _check_mse(a, lambda shape: shape if a.reduction == NONE else None)

    @staticmethod
    def formula(x, t, a, v):
        return np.square(x - t)


class MseLossOut(_Loss):
    """The squared differences rounded to the promoted dtype (the MseLoss kernel's output), then reduced over
    dimension 0 in fp32 (the op_api's ReduceMean/ReduceSumOp on dim 0)."""
    name = "aclnnMseLossOut"

    def check(self, a):
        _check_mse(a, lambda shape: shape if a.reduction == NONE else shape[1:])

    def compute(self, a, v, workspace):
        out = v["out"]
        if a.empty:
            return
        x, t = v["self"], v["target"]
        ct = compute_type(x, t)
        promoted = dtypes.numpy_dtype(P.promote(a.self.dtype, a.target.dtype))
        with np.errstate(all="ignore"):
            values = np.square(x.astype(ct) - t.astype(ct)).astype(promoted).astype(ct)
            if a.reduction != NONE:
                values = np.add.reduce(values, axis=0, dtype=ct)
                if a.reduction == MEAN:
                    values = values / ct.type(v["self"].shape[0] if x.ndim else 1)
        P.store(out, values.reshape(out.shape))


class SmoothL1Loss(_Loss):
    name = "aclnnSmoothL1Loss"
    outputs = ("result",)

    def dtype_table(self):
        return {"self": floats(), "target": floats(), "result": floats()}

    def check(self, a):
        checks.not_null(a, "self", "target", "result")
        allowed = floats()
        checks.dtype_in("self", a.self, allowed)
        checks.dtype_in("target", a.target, allowed)
        promoted = promote(a.self.dtype, a.target.dtype, "Self dtype %s and target dtype %s can not promote dtype.")
        checks.result_castable(promoted, a.result.dtype)
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Reduction should be between 0 and 2, but current is %d." % a.reduction)
        checks.max_dim("self", a.self)
        checks.max_dim("target", a.target)
        shape = broadcast("self", a.self, "target", a.target)
        expected = shape if a.reduction == NONE else ()
        if tuple(a.result.shape) != expected:
            raise status.param_invalid("Shape of result should be %s, but current is %s."
                                       % (checks.shape_text(expected), checks.shape_text(a.result.shape)))
        if not a.beta >= 0:
            raise status.param_invalid("beta should be greater than or equal to 0")
        a.empty = a.self.is_empty() or a.target.is_empty()

    @staticmethod
    def formula(x, t, a, v):
        d = np.abs(x - t)
        beta = x.dtype.type(a.beta)
        if beta == 0:
            return d
        return np.where(d < beta, x.dtype.type(0.5) * d * d / beta, d - x.dtype.type(0.5) * beta)


class SoftMarginLoss(_Loss):
    name = "aclnnSoftMarginLoss"

    def check(self, a):
        checks.not_null(a, "self", "target", "out")
        allowed = floats()
        for name in ("self", "target", "out"):
            checks.dtype_in(name, getattr(a, name), allowed)
        checks.max_dim("self", a.self)
        checks.max_dim("target", a.target)
        shape = broadcast("self", a.self, "target", a.target)
        if a.reduction == NONE:
            checks.shape_is("out", a.out, shape, checks.shape_text(shape))
        else:
            scalar_out(a.out)
        a.empty = a.self.is_empty() or a.target.is_empty()

    @staticmethod
    def formula(x, t, a, v):
        return np.log1p(np.exp(-t * x))


class BinaryCrossEntropy(_Loss):
    """The op_api's CheckNotNull failure answers ACLNN_ERR_INNER_NULLPTR (its CHECK_RET's code), not PARAM_NULLPTR."""
    name = "aclnnBinaryCrossEntropy"
    inputs = ("self", "target", "weight")

    def dtype_table(self):
        return {"self": floats(), "target": floats(), "weight": floats(), "out": floats()}

    def check(self, a):
        for name in ("self", "target", "out"):
            if getattr(a, name) is None:
                raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                         "Expected a proper Tensor but got null for argument %s." % name)
        allowed = floats()
        for name in ("self", "target", "out"):
            checks.dtype_in(name, getattr(a, name), allowed)
        if a.weight is not None:
            if a.weight.dtype not in allowed:
                raise status.param_invalid("weight dtype %s should be in dtype support list [%s]."
                                           % (dtypes.serial_name(a.weight.dtype), dtypes.serial_list(allowed)))
            checks.dtype_match("self", a.self, a.weight.dtype)
        checks.dtype_match("self", a.self, a.target.dtype)
        checks.dtype_match("self", a.self, a.out.dtype)
        checks.same_shape("self", a.self, "target", a.target)
        if a.weight is not None:
            P.broadcast("weight", a.weight.shape, "self", a.self.shape)
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Reduction only support 0, 1, 2.")
        expected = tuple(a.self.shape) if a.reduction == NONE else ()
        if tuple(a.out.shape) != expected and a.out.numel() != math.prod(expected):
            checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        a.empty = a.self.is_empty()

    @staticmethod
    def formula(x, t, a, v):
        log_x = np.maximum(np.log(x), x.dtype.type(-100))
        log_1mx = np.maximum(np.log1p(-x), x.dtype.type(-100))
        loss = -(t * log_x + (1 - t) * log_1mx)
        if v.get("weight") is not None:
            loss = loss * v["weight"].astype(x.dtype)
        return loss


class BinaryCrossEntropyWithLogits(_Loss):
    name = "aclnnBinaryCrossEntropyWithLogits"
    inputs = ("self", "target", "weightOptional", "posWeightOptional")

    def dtype_table(self):
        return {n: floats() for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "self", "target", "out")
        allowed = floats()
        checks.dtype_in("self", a.self, allowed)
        checks.dtype_in("target", a.target, allowed)
        checks.dtype_in("out", a.out, allowed)
        checks.dtype_match("target", a.target, a.out.dtype)
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Reduction only support [0, 1, 2].")
        for name in ("self", "target", "weightOptional", "posWeightOptional"):
            t = getattr(a, name)
            if t is not None:
                checks.max_dim(name[:-len("Optional")] if name.endswith("Optional") else name, t)
        checks.same_shape("self", a.self, "target", a.target)
        for name in ("weightOptional", "posWeightOptional"):
            t = getattr(a, name)
            if t is not None:
                P.broadcast(name[:-len("Optional")], t.shape, "target", a.target.shape)
        expected = tuple(a.self.shape) if a.reduction == NONE else ()
        if tuple(a.out.shape) != expected and not (a.reduction != NONE and a.out.numel() == 1):
            checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        a.empty = a.self.is_empty()

    @staticmethod
    def formula(x, t, a, v):
        pos = v.get("posWeightOptional")
        log_weight = 1 + (pos.astype(x.dtype) - 1) * t if pos is not None else 1
        loss = (1 - t) * x + log_weight * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))
        if v.get("weightOptional") is not None:
            loss = loss * v["weightOptional"].astype(x.dtype)
        return loss
