"""aclnnFusedAdamw and aclnnFusedSgd (ops-nn optim/fused_adamw, fused_sgd): PyTorch's fused multi-tensor
AdamW and SGD steps over tensor lists, in place.

    FusedAdamw  per tensor i with its own step t_i (stateSteps, FLOAT or INT64, used as given):
                g = grad / gradScale (when given), negated when maximize; nothing changes when foundInf ≠ 0;
                θ ·= 1 − lr·λ;  m = β1·m + (1 − β1)·g;  v = β2·v + (1 − β2)·g²;
                amsgrad: v̂ = max(v̂, v) (maxExpAvgSqsRef) and used for the denominator;
                θ −= lr/(1 − β1^t) · m / (√v/√(1 − β2^t) + ε)
    FusedSgd    g̃ = grad / gradScale; ĝ = −g̃ when maximize; ḡ = ĝ + λ·θ;
                buf = ḡ on the first step, else μ·buf + (1 − dampening)·ḡ (with a momentum buffer list);
                step = ḡ + μ·buf (nesterov), buf (with buffers), ḡ (without); θ −= lr·step; grads ← g̃

Phase 1 as each op_api reads (hicann/ops-nn@e5c3fa93): the attributes first (ranges; amsgrad needs
maxExpAvgSqsRef; nesterov needs momentum > 0 and no dampening; momentum and the buffer list go together),
then nulls of the lists and their tensors, the lists' lengths, dtypes (one across the data; steps FLOAT or
INT64), shapes. fp16/bf16 are computed in fp32 and rounded once into each tensor."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.optim.adam import adamw_step

DATA = P.per_product("FLOAT FLOAT16", "BF16")
STEP = P.codes("FLOAT INT64")
F32 = np.dtype(np.float32)
NEAR_ZERO = 1e-6


def _check_lists(a, names, first):
    """Each list and its tensors non-null, then each list as long as `first`."""
    for name in names:
        if getattr(a, name) is None:
            raise status.param_nullptr("Expected a proper TensorList but got null for argument %s." % name)
        for tensor in getattr(a, name):
            if tensor is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument %s." % name)
    if not getattr(a, first):
        raise status.param_invalid("%s tensor list is empty." % first)
    for name in names[1:]:
        if len(getattr(a, name)) != len(getattr(a, first)):
            raise status.param_invalid("%s tensor count does not match %s." % (name, first))


def _check_same(a, names, first):
    dtype = getattr(a, first)[0].dtype
    for name in names:
        for k, tensor in enumerate(getattr(a, name)):
            if tensor.dtype != dtype:
                raise status.param_invalid("expects all input tensors with the same dtype.")
            if tensor.shape != getattr(a, first)[k].shape:
                raise status.param_invalid("expects all input tensors with the same shape.")
            checks.max_dim(name, tensor)


def _scale_value(a, v, name):
    tensor = getattr(a, name)
    return None if tensor is None or tensor.is_empty() else np.float32(v[name].reshape(-1)[0])


class FusedAdamw(AclnnOp):
    name = "aclnnFusedAdamw"
    inputs = ("paramsRef", "grads", "expAvgsRef", "expAvgSqsRef", "maxExpAvgSqsRef", "stateSteps",
              "gradScaleOptional", "foundInfOptional")
    outputs = ("paramsRef", "expAvgsRef", "expAvgSqsRef", "maxExpAvgSqsRef")

    def dtype_table(self):
        return {"paramsRef": DATA(), "grads": DATA(), "expAvgsRef": DATA(), "expAvgSqsRef": DATA(), "stateSteps": STEP}

    def check(self, a):
        for name in ("lr", "beta1", "beta2", "weightDecay"):
            if getattr(a, name) < 0:
                raise status.param_invalid("The %s[%f] shoule be greater or equal than 0" % (name, getattr(a, name)))
        if a.amsgrad and a.maxExpAvgSqsRef is None:
            raise status.param_invalid("When amsgrad is true, maxExpAvgSqsRef should not be nullptr.")
        lists = ["paramsRef", "grads", "expAvgsRef", "expAvgSqsRef", "stateSteps"]
        _check_lists(a, lists + (["maxExpAvgSqsRef"] if a.maxExpAvgSqsRef is not None else []), "paramsRef")
        checks.dtype_in("paramsRef", a.paramsRef[0], DATA())
        checks.dtype_in("stateSteps", a.stateSteps[0], STEP)
        if any(t.dtype != a.stateSteps[0].dtype for t in a.stateSteps):
            raise status.param_invalid("expects all stateSteps tensors with the same dtype.")
        data = ["grads", "expAvgsRef", "expAvgSqsRef"] + (["maxExpAvgSqsRef"] if a.maxExpAvgSqsRef is not None else [])
        _check_same(a, ["paramsRef"] + data, "paramsRef")

    def compute(self, a, v, workspace):
        found = _scale_value(a, v, "foundInfOptional")
        if found:
            return
        scale = _scale_value(a, v, "gradScaleOptional")
        beta1, beta2 = np.float32(a.beta1), np.float32(a.beta2)
        for k, param in enumerate(v["paramsRef"]):
            if param.size == 0:
                continue
            grad = P.as_compute(v["grads"][k], F32)
            if scale is not None:
                grad = grad / scale
            step = np.float32(v["stateSteps"][k].reshape(-1)[0])
            max_v = P.as_compute(v["maxExpAvgSqsRef"][k], F32) if a.amsgrad else None
            with np.errstate(all="ignore"):
                new = adamw_step(P.as_compute(param, F32), P.as_compute(v["expAvgsRef"][k], F32),
                                 P.as_compute(v["expAvgSqsRef"][k], F32), grad, np.float32(a.lr), beta1, beta2,
                                 np.float32(a.weightDecay), np.float32(a.eps), 1 - np.power(beta1, step),
                                 1 - np.power(beta2, step), a.maximize, max_v)
            for name, value in zip(("paramsRef", "expAvgsRef", "expAvgSqsRef", "maxExpAvgSqsRef"), new):
                if value is not None:
                    P.store(v[name][k], value)


class FusedSgd(AclnnOp):
    name = "aclnnFusedSgd"
    inputs = ("paramsRef", "gradsRef", "momentumBufferListOptionalRef", "gradScaleOptional")
    outputs = ("paramsRef", "gradsRef", "momentumBufferListOptionalRef")

    def dtype_table(self):
        return {"paramsRef": DATA(), "gradsRef": DATA(), "momentumBufferListOptionalRef": DATA()}

    def check(self, a):
        for name in ("weightDecay", "momentum", "lr"):
            if getattr(a, name) < 0:
                raise status.param_invalid("%s[%f] shoule be greater or equal than 0" % (name, getattr(a, name)))
        buffers = a.momentumBufferListOptionalRef
        if a.nesterov and (a.momentum <= 0 or abs(a.dampening) >= NEAR_ZERO):
            raise status.param_invalid("nesterov[%d] momentum requires a momentum[%f] and zero dampening[%f]."
                                       % (a.nesterov, a.momentum, a.dampening))
        if buffers is None and abs(a.momentum) >= NEAR_ZERO:
            raise status.param_invalid("momentum[%f] is invalid. momentum shoube be 0 when "
                                       "momentumBufferListOptionalRef is nullptr." % a.momentum)
        if buffers is not None and abs(a.momentum) < NEAR_ZERO:
            raise status.param_invalid("momentum[%f] is invalid. momentum shoube be greater than 0 when "
                                       "momentumBufferListOptionalRef is not nullptr." % a.momentum)
        lists = ["paramsRef", "gradsRef"] + (["momentumBufferListOptionalRef"] if buffers is not None else [])
        _check_lists(a, lists, "paramsRef")
        checks.dtype_in("paramsRef", a.paramsRef[0], DATA())
        _check_same(a, lists, "paramsRef")

    def compute(self, a, v, workspace):
        scale = _scale_value(a, v, "gradScaleOptional")
        lr, wd, mu = np.float32(a.lr), np.float32(a.weightDecay), np.float32(a.momentum)
        dampening = np.float32(a.dampening)
        with_buffers = a.momentumBufferListOptionalRef is not None
        for k, param in enumerate(v["paramsRef"]):
            if param.size == 0:
                continue
            theta = P.as_compute(param, F32)
            unscaled = P.as_compute(v["gradsRef"][k], F32)
            if scale is not None:
                unscaled = unscaled / scale
            with np.errstate(all="ignore"):
                grad = (-unscaled if a.maximize else unscaled) + wd * theta
                step = grad
                if with_buffers:
                    buffer = grad if a.isFirstStep else (
                        mu * P.as_compute(v["momentumBufferListOptionalRef"][k], F32) + (1 - dampening) * grad)
                    P.store(v["momentumBufferListOptionalRef"][k], buffer)
                    step = grad + mu * buffer if a.nesterov else buffer
                P.store(param, theta - lr * step)
            if scale is not None:
                P.store(v["gradsRef"][k], unscaled)
