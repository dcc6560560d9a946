"""aclnnPrelu and aclnnPreluBackward (ops-nn activation/p_relu, p_relu_grad_update): one learned slope per
channel (dim 1; a 0-D or 1-D self is one channel), or one for all.

    out = max(0, x) + w[c] · min(0, x)
    gradInput = gradOutput where x > 0, else gradOutput · w[c];  gradWeight[c] = Σ gradOutput · x where x ≤ 0

Phase 1 as the op_api sources read (hicann/ops-nn@e5c3fa93):
  Prelu          nulls → self's, weight's, out's dtypes → promotion, castable into out → ranks ≤ 8 → out's
                 shape equal to self's → weight's element count 1 or the channels
  PreluBackward  nulls → self's dtype, the other four equal to it → ranks → gradInput's shape equal to self's
                 → weight 1 element (gradWeight its shape) or the channels (gradWeight [C]) → gradOutput
                 broadcast to self's shape
fp16/bf16 compute in fp32; gradWeight sums in fp32 and rounds once."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

PRELU = P.per_product("FLOAT FLOAT16", "BF16")


def _channels(shape):
    return 1 if len(shape) <= 1 else shape[1]


def _slopes(weight, ndim):
    """weight as an array broadcasting over an input of `ndim` dims along dim 1."""
    w = weight.reshape(-1)
    if w.size == 1 or ndim <= 1:
        return w.reshape(()) if w.size == 1 else w
    return w.reshape((1, -1) + (1,) * (ndim - 2))


class Prelu(AclnnOp):
    name = "aclnnPrelu"
    inputs = ("self", "weight")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": PRELU(), "weight": PRELU(), "out": PRELU()}

    def check(self, a):
        checks.not_null(a, "self", "weight", "out")
        for name in ("self", "weight", "out"):
            checks.dtype_in(name, getattr(a, name), PRELU())
        a.result_dtype = P.promote(a.self.dtype, a.weight.dtype)
        if a.result_dtype is None:
            raise status.param_invalid("Self dtype %s and weight dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.weight.dtype)))
        checks.result_castable(a.result_dtype, a.out.dtype)
        for name in ("self", "weight", "out"):
            checks.max_dim(name, getattr(a, name))
        checks.same_shape("self", a.self, "out", a.out)
        channels = _channels(a.self.shape)
        if a.weight.numel() not in (1, channels):
            raise status.param_invalid("expected weight tensor size equal input channels, but found %d does not "
                                       "equal %d" % (a.weight.numel(), channels))

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            return
        ct = P.compute_type(a.result_dtype)
        x = P.as_compute(x, ct)
        w = _slopes(P.as_compute(v["weight"], ct), x.ndim)
        P.store(v["out"], np.where(x > 0, x, x * w))


class PreluBackward(AclnnOp):
    name = "aclnnPreluBackward"
    inputs = ("gradOutput", "self", "weight")
    outputs = ("gradInput", "gradWeight")

    def dtype_table(self):
        return {name: PRELU() for name in self.inputs + self.outputs}

    def check(self, a):
        names = ("gradOutput", "self", "weight", "gradInput", "gradWeight")
        checks.not_null(a, *names)
        checks.dtype_in("self", a.self, PRELU())
        for name in ("gradOutput", "weight", "gradInput", "gradWeight"):
            checks.same_dtype(name, getattr(a, name), "self", a.self)
        for name in names:
            checks.max_dim(name, getattr(a, name))
        checks.same_shape("gradInput", a.gradInput, "self", a.self)
        if a.weight.numel() != 1:
            if a.self.ndim < 1:
                raise status.param_invalid("Expected self to have at least 1 dimension, but got 0.")
            channels = _channels(a.self.shape)
            if a.weight.numel() != channels:
                raise status.param_invalid("the number of weight elements must be 1 or self channel size")
            checks.shape_is("gradWeight", a.gradWeight, (channels,), "[%d]" % channels)
        else:
            checks.same_shape("weight", a.weight, "gradWeight", a.gradWeight)
        shape = P.broadcast("self", a.self.shape, "gradOutput", a.gradOutput.shape)
        if tuple(shape) != tuple(a.self.shape):
            raise status.param_invalid("the broadcastShape[%s] of gradOutput and self must be equal with "
                                       "selfShape[%s]." % (checks.shape_text(shape), checks.shape_text(a.self.shape)))

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            P.store(v["gradWeight"], np.zeros(v["gradWeight"].shape, np.float32))
            return
        ct = P.compute_type(a.self.dtype)
        x = P.as_compute(x, ct)
        grad = np.broadcast_to(P.as_compute(v["gradOutput"], ct), x.shape)
        w = _slopes(P.as_compute(v["weight"], ct), x.ndim)
        P.store(v["gradInput"], np.where(x > 0, grad, grad * w))
        contribution = np.where(x > 0, ct.type(0), grad * x)
        if v["weight"].size == 1:
            total = contribution.sum(dtype=ct)
        elif x.ndim <= 1:
            total = contribution
        else:
            total = contribution.sum(axis=tuple(k for k in range(x.ndim) if k != 1), dtype=ct)
        P.store(v["gradWeight"], np.asarray(total).reshape(v["gradWeight"].shape))
