"""Gradients of the elementwise losses (ops-nn loss/: l1_loss_grad, mse_loss_grad_v2, smooth_l1_loss_grad_v2,
soft_margin_loss_grad, binary_cross_entropy_grad, sigmoid_cross_entropy_with_logits_grad_v2, kl_div_loss_grad,
kl_div_target_loss_grad op_api), PyTorch's formulas:

    L1LossBackward                   g·sign(x − t)
    MseLossBackward                  2·(x − t)·g
    SmoothL1LossBackward             g·(x − t)/β if |x − t| < β, else g·sign(x − t)
    SoftMarginLossBackward           −t·g·e^(−tx)/(1 + e^(−tx))
    BinaryCrossEntropyBackward       w·g·(x − t)/max(x·(1 − x), 1e-12)
    BinaryCrossEntropyWithLogitsBackward  w·g·(((pw − 1)·t + 1)·σ(x) − pw·t)
    KlDivBackward                    −g·t (t > 0, else 0), or −g·e^t with logTarget
    KlDivTargetBackward              g·(log t + 1 − x) (t > 0, else 0), or g·e^t·(t + 1 − x) with logTarget

reduction 1 (mean) divides by the element count (3, batchmean, for KL: by self.size(0)); gradOutput broadcasts
against the inputs. Computed in fp32 (fp64 for double), rounded once into the gradient."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.loss.pointwise import MEAN, NONE, SUM, compute_type, floats

BATCHMEAN = 3


def _grad_out_broadcasts(grad, shape):
    try:
        return np.broadcast_shapes(tuple(grad.shape), tuple(shape)) == tuple(shape)
    except ValueError:
        return False


class _LossBackward(AclnnOp):
    grad_name = "gradOutput"
    out_name = "out"

    @property
    def inputs(self):
        return (self.grad_name, "self", "target") + self.extra_inputs

    extra_inputs = ()

    @property
    def outputs(self):
        return (self.out_name,)

    def dtype_table(self):
        return {n: floats() for n in self.inputs + self.outputs}

    def compute(self, a, v, workspace):
        out = v[self.out_name]
        if out.size == 0:
            return
        g, x, t = v[self.grad_name], v["self"], v["target"]
        ct = compute_type(g, x, t)
        with np.errstate(all="ignore"):
            shape = out.shape
            g = np.broadcast_to(g.astype(ct), shape)
            x = np.broadcast_to(x.astype(ct), shape)
            t = np.broadcast_to(t.astype(ct), shape)
            result = self.formula(g, x, t, a, v)
            count = self.divisor(a, v)
            if count:
                result = result / ct.type(count)
        P.store(out, result)

    @staticmethod
    def divisor(a, v):
        return v["self"].size if a.reduction == MEAN else None


def _promote_three(a, first, second, third, texts):
    promoted = P.promote(first.dtype, second.dtype)
    if promoted is None:
        raise status.param_invalid(texts[0] % (dtypes.serial_name(first.dtype), dtypes.serial_name(second.dtype)))
    result = P.promote(promoted, third.dtype)
    if result is None:
        raise status.param_invalid(texts[1] % (dtypes.serial_name(third.dtype), dtypes.serial_name(first.dtype),
                                               dtypes.serial_name(second.dtype)))
    return result


class L1LossBackward(_LossBackward):
    name = "aclnnL1LossBackward"
    out_name = "gradInput"

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "gradInput")
        promoted = _promote_three(a, a.gradOutput, a.self, a.target, (
            "GradOutput dtype %s and Self dtype %s can not be promoted.",
            "Target dtype %s, GradOutput dtype %s and Self dtype %s can not be promoted."))
        checks.result_castable(promoted, a.gradInput.dtype)
        if promoted not in floats():
            raise status.param_invalid("promoteType dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(promoted), dtypes.serial_list(floats())))
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Expected reduction to be 0 or 1 or 2, but got %d." % a.reduction)
        for name in ("self", "target", "gradOutput", "gradInput"):
            checks.max_dim(name, getattr(a, name))
        shape = P.broadcast("self", a.self.shape, "gradOutput", a.gradOutput.shape)
        shape = P.broadcast("target", a.target.shape, "broadcast", shape)
        if tuple(a.gradInput.shape) != shape:
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.gradInput.shape)))

    @staticmethod
    def formula(g, x, t, a, v):
        return g * np.sign(x - t)


class MseLossBackward(_LossBackward):
    name = "aclnnMseLossBackward"

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "out")
        checks.same_dtype("gradOutput", a.gradOutput, "self", a.self)
        checks.same_dtype("target", a.target, "self", a.self)
        checks.dtype_in("self", a.self, floats())
        checks.dtype_in("out", a.out, floats())
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Expected reduction to be between 0 and 2, but got %d." % a.reduction)
        for name in ("gradOutput", "self", "target"):
            checks.max_dim(name, getattr(a, name))
        shape = P.broadcast("gradOutput", a.gradOutput.shape, "self", a.self.shape)
        shape = P.broadcast("target", a.target.shape, "broadcast", shape)
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))

    @staticmethod
    def formula(g, x, t, a, v):
        return 2 * (x - t) * g


class SmoothL1LossBackward(_LossBackward):
    name = "aclnnSmoothL1LossBackward"
    grad_name = "gradOut"
    out_name = "gradInput"

    def check(self, a):
        checks.not_null(a, "gradOut", "self", "target", "gradInput")
        for name in ("gradOut", "self", "target", "gradInput"):
            checks.dtype_in(name, getattr(a, name), floats())
        promoted = P.promote(a.gradOut.dtype, a.self.dtype)
        if promoted is None:
            raise status.param_invalid("GradOut dtype %s and self dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.gradOut.dtype), dtypes.serial_name(a.self.dtype)))
        promoted = P.promote(promoted, a.target.dtype)
        checks.result_castable(promoted, a.gradInput.dtype)
        for name in ("gradOut", "self", "target"):
            if getattr(a, name).ndim > 8:
                raise status.param_invalid("expected tensor must have at most 8 dimensions, but got %d."
                                           % getattr(a, name).ndim)
        try:
            shape = np.broadcast_shapes(tuple(a.gradOut.shape), tuple(a.self.shape), tuple(a.target.shape))
        except ValueError:
            raise status.param_invalid("Broadcast %s and %s failed." % (checks.shape_text(a.gradOut.shape),
                                                                        checks.shape_text(a.self.shape)))
        checks.shape_is("gradInput", a.gradInput, shape, checks.shape_text(shape))
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Reduction should be between 0 and 2, but got %d" % a.reduction)
        if not a.beta >= 0:
            raise status.param_invalid("beta should be greater than or equal to 0")

    @staticmethod
    def formula(g, x, t, a, v):
        d = x - t
        beta = x.dtype.type(a.beta)
        if beta == 0:
            return g * np.sign(d)
        return g * np.where(np.abs(d) < beta, d / beta, np.sign(d))


class SoftMarginLossBackward(_LossBackward):
    name = "aclnnSoftMarginLossBackward"

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "out")
        for name in ("gradOutput", "self", "target", "out"):
            checks.dtype_in(name, getattr(a, name), floats())
        for name in ("gradOutput", "self", "target"):
            checks.max_dim(name, getattr(a, name))
        shape = P.broadcast("gradOutput", a.gradOutput.shape, "self", a.self.shape)
        shape = P.broadcast("target", a.target.shape, "broadcast", shape)
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))

    @staticmethod
    def formula(g, x, t, a, v):
        e = np.exp(-t * x)
        return -t * g * e / (1 + e)


class BinaryCrossEntropyBackward(_LossBackward):
    name = "aclnnBinaryCrossEntropyBackward"
    extra_inputs = ("weightOptional",)

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "out")
        for name in ("gradOutput", "self", "target", "weightOptional", "out"):
            t = getattr(a, name)
            if t is not None:
                checks.max_dim(name, t)
        promoted = P.promote(a.self.dtype, a.target.dtype)
        if promoted is None:
            raise status.param_invalid("Self dtype %s and target dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.target.dtype)))
        promoted = P.promote(promoted, a.gradOutput.dtype)
        checks.result_castable(promoted, a.out.dtype)
        for name in ("self", "gradOutput", "target", "out", "weightOptional"):
            t = getattr(a, name)
            if t is not None:
                checks.dtype_in(name, t, floats())
        if a.self.format != a.target.format:
            raise status.param_invalid("Format of self and target can't be different, self [%d], target [%d]."
                                       % (a.self.format, a.target.format))
        checks.same_shape("out", a.out, "self", a.self)
        shape = P.broadcast("self", a.self.shape, "target", a.target.shape)
        if not _grad_out_broadcasts(a.gradOutput, shape):
            P.broadcast("gradOutput", a.gradOutput.shape, "self", shape)
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Reduction only support 0, 1, 2.")

    @staticmethod
    def formula(g, x, t, a, v):
        result = g * (x - t) / np.maximum((1 - x) * x, x.dtype.type(1e-12))
        if v.get("weightOptional") is not None:
            result = result * np.broadcast_to(v["weightOptional"].astype(x.dtype), result.shape)
        return result


class BinaryCrossEntropyWithLogitsBackward(_LossBackward):
    name = "aclnnBinaryCrossEntropyWithLogitsBackward"
    extra_inputs = ("weightOptional", "posWeightOptional")

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "out")
        for name in ("gradOutput", "self", "target", "weightOptional", "posWeightOptional", "out"):
            t = getattr(a, name)
            if t is not None:
                checks.max_dim(name, t)
        promoted = P.promote(a.self.dtype, a.target.dtype)
        if promoted is None:
            raise status.param_invalid("Self dtype %s and target dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.target.dtype)))
        checks.result_castable(promoted, a.out.dtype)
        for name in ("gradOutput", "self", "target", "weightOptional", "posWeightOptional", "out"):
            t = getattr(a, name)
            if t is not None:
                checks.dtype_in(name, t, floats())
        checks.dtype_match("out", a.out, a.target.dtype)
        checks.same_shape("self", a.self, "target", a.target)
        checks.same_shape("out", a.out, "self", a.self)
        for name in ("gradOutput", "weightOptional", "posWeightOptional"):
            t = getattr(a, name)
            if t is not None and not _grad_out_broadcasts(t, a.self.shape):
                P.broadcast(name, t.shape, "self", a.self.shape)
        if not NONE <= a.reduction <= SUM:
            raise status.param_invalid("Reduction only support [0, 1, 2].")

    @staticmethod
    def formula(g, x, t, a, v):
        sigmoid = 1 / (1 + np.exp(-x))
        pos = v.get("posWeightOptional")
        if pos is not None:
            pw = np.broadcast_to(pos.astype(x.dtype), x.shape)
            result = ((pw - 1) * t + 1) * sigmoid - pw * t
        else:
            result = sigmoid - t
        result = result * g
        if v.get("weightOptional") is not None:
            result = result * np.broadcast_to(v["weightOptional"].astype(x.dtype), x.shape)
        return result


def _check_kl(a, out_name):
    checks.not_null(a, "gradOutput", "self", "target", out_name)
    out = getattr(a, out_name)
    source = a.self if out_name == "out" else a.self
    checks.result_castable(source.dtype, out.dtype)
    for name in ("gradOutput", "self", "target"):
        checks.dtype_in(name, getattr(a, name), floats())
    checks.dtype_in("gradTarget" if out_name != "out" else "out", out, floats())
    if out_name != "out":
        checks.dtype_match("gradTarget", out, a.target.dtype)
    for name in ("gradOutput", "self", "target", out_name):
        checks.max_dim(name, getattr(a, name))
    shape = P.broadcast("self", a.self.shape, "target", a.target.shape)
    if not _grad_out_broadcasts(a.gradOutput, shape):
        raise status.param_invalid("Except shape of gradOutput must broadcast to %s, but current is %s."
                                   % (checks.shape_text(shape), checks.shape_text(a.gradOutput.shape)))
    if out_name == "out":
        checks.same_shape("self", a.self, "out", out)
    else:
        checks.same_shape("target", a.target, "gradTarget", out)


class KlDivBackward(_LossBackward):
    name = "aclnnKlDivBackward"

    def check(self, a):
        _check_kl(a, "out")

    @staticmethod
    def formula(g, x, t, a, v):
        if a.logTarget:
            return -np.exp(t) * g
        return np.where(t > 0, -t * g, 0)

    @staticmethod
    def divisor(a, v):
        if a.reduction == MEAN:
            return v["self"].size
        if a.reduction == BATCHMEAN:
            return v["self"].shape[0] if v["self"].ndim else 1
        return None


class KlDivTargetBackward(KlDivBackward):
    name = "aclnnKlDivTargetBackward"
    out_name = "gradTarget"

    def check(self, a):
        _check_kl(a, "gradTarget")

    @staticmethod
    def formula(g, x, t, a, v):
        if a.logTarget:
            return g * np.exp(t) * (t + 1 - x)
        return np.where(t > 0, g * (np.log(t) + 1 - x), 0)
