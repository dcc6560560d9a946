"""aclnnLogSigmoidForward and aclnnBinaryCrossEntropyWithLogitsTargetBackward (ops-nn activation/log_sigmoid;
aclnnLogSigmoid is a row of activation/elementwise.py).

LogSigmoidForward writes out = log(1 / (1 + exp(−x))) and leaves `buffer` alone (its doc page: "kept for the
forward's intermediate result, unused"). Its phase 1 is LogSigmoid's: nulls → dtypes → shapes.

BinaryCrossEntropyWithLogitsTargetBackward is BCE-with-logits' gradient with respect to the target:

    gradTarget = gradOutput · (logsigmoid(−x) − posWeight · logsigmoid(x)) · weight   (÷ numel for mean)

as the op_api composes it from LogSigmoid, Mul and Sub in the promoted dtype (fp16/bf16 promoted to fp32),
then cast into gradTarget. Phase 1 as its op_api reads (hicann/ops-nn@e5c3fa93): nulls → ranks → dtypes
(gradTarget's equal to target's) → promotion over self, target, gradOutput, weight, posWeight and the cast
into gradTarget → formats → shapes (target and gradTarget equal to self, the others broadcast to it) →
reduction in 0..2."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.elementwise import ROWS
from opemu.ops.aclnn.activation import elementwise as _rows  # noqa: F401  (LogSigmoid's row)

HALF_FLOAT = P.per_product("FLOAT FLOAT16", "BF16")
MEAN = 1


def _log_sigmoid(x):
    return -np.logaddexp(x.dtype.type(0), -x)


class LogSigmoidForward(AclnnOp):
    name = "aclnnLogSigmoidForward"
    inputs = ("self",)
    outputs = ("out", "buffer")

    def dtype_table(self):
        return {"self": HALF_FLOAT(), "out": HALF_FLOAT()}

    def check(self, a):
        checks.not_null(a, "self", "out", "buffer")
        checks.dtype_in("self", a.self, HALF_FLOAT())
        checks.dtype_in("out", a.out, HALF_FLOAT())
        checks.max_dim("self", a.self)
        checks.same_shape("self", a.self, "out", a.out)

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size:
            with np.errstate(all="ignore"):
                P.store(v["out"], ROWS["LogSigmoid"].kernel(P.as_compute(x, P.compute_type(a.self.dtype))))


class BinaryCrossEntropyWithLogitsTargetBackward(AclnnOp):
    name = "aclnnBinaryCrossEntropyWithLogitsTargetBackward"
    inputs = ("gradOutput", "self", "target", "weightOptional", "posWeightOptional")
    outputs = ("gradTarget",)

    def dtype_table(self):
        return {name: HALF_FLOAT() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "gradTarget")
        present = [n for n in self.inputs + self.outputs if getattr(a, n) is not None]
        for name in present:
            checks.max_dim(name, getattr(a, name))
        for name in present:
            checks.dtype_in(name, getattr(a, name), HALF_FLOAT())
        checks.dtype_match("gradTarget", a.gradTarget, a.target.dtype)
        promoted = P.promote(a.self.dtype, a.target.dtype)
        if promoted is None:
            raise status.param_invalid("Self dtype %s and target dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.target.dtype)))
        for name in ("gradOutput", "weightOptional", "posWeightOptional"):
            if getattr(a, name) is not None:
                promoted = P.promote(promoted, getattr(a, name).dtype)
        a.result_dtype = P.FLOAT if promoted in (P.FLOAT16, P.BF16) else promoted
        checks.result_castable(a.result_dtype, a.gradTarget.dtype)
        a.empty = a.self.is_empty()
        if not a.empty:
            checks.same_shape("self", a.self, "target", a.target)
            checks.same_shape("self", a.self, "gradTarget", a.gradTarget)
            for name in ("gradOutput", "weightOptional", "posWeightOptional"):
                tensor = getattr(a, name)
                if tensor is not None and P.broadcast(name, tensor.shape, "self", a.self.shape) != tuple(a.self.shape):
                    raise status.param_invalid("Shape of %s %s can't broadcast to self's %s."
                                               % (name, checks.shape_text(tensor.shape),
                                                  checks.shape_text(a.self.shape)))
        if not 0 <= a.reduction <= 2:
            raise status.param_invalid("Reduction should be between 0 and 2, but current is %d" % a.reduction)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        ct = P.compute_type(a.result_dtype)
        x = P.as_compute(v["self"], ct)
        operand = {n: None if getattr(a, n) is None else P.as_compute(v[n], ct)
                   for n in ("gradOutput", "weightOptional", "posWeightOptional")}
        with np.errstate(all="ignore"):
            positive = _log_sigmoid(x) if operand["posWeightOptional"] is None \
                else operand["posWeightOptional"] * _log_sigmoid(x)
            result = operand["gradOutput"] * (_log_sigmoid(-x) - positive)
            if operand["weightOptional"] is not None:
                result = result * operand["weightOptional"]
            if a.reduction == MEAN:
                result = result * ct.type(1.0 / x.size)
        P.store(v["gradTarget"], np.broadcast_to(result, x.shape))
