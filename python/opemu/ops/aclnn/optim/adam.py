"""aclnnApplyAdam, aclnnApplyAdamW and aclnnApplyAdamWV2 (ops-nn optim/apply_adam, apply_adam_w,
apply_adam_w_v2): one Adam(W) step, in place on var, m and v.

    ApplyAdam    lr_t = lr·√(1 − β2^t)/(1 − β1^t);  m = β1·m + (1 − β1)·g;  v = β2·v + (1 − β2)·g²
                 var −= lr_t·m/(√v + ε)   (nesterov: lr_t·(β1·m + (1 − β1)·g)/(√v + ε))
                 beta1Power/beta2Power are β^t, given.
    ApplyAdamW   g = −g when maximize; m, v as above; var ·= 1 − lr·λ;  β^t = betaPower·β (the inputs are
                 β^(t−1)); v̂ = max(maxGradNorm, v) when amsgrad; var −= lr·(m/(1 − β1^t))/(√(v̂/(1 − β2^t)) + ε)
    ApplyAdamWV2 the same with lr, β1, β2, λ, ε as floats and β^t = β^step (step a FLOAT or INT64 tensor of one
                 element); with amsgrad maxGradNormOptionalRef = max(maxGradNorm, v) is written back.

As the kernels compute: fp16/bf16 data widened to fp32, every scalar in fp32, each output rounded once.
Phase 1: ApplyAdam (generated, the 950 line only): nulls → dtypes (var, m, v, grad one of FLOAT, FLOAT16, BF16;
the scalar tensors FLOAT) → shapes equal. ApplyAdamW (its op_api): nulls (maxGradNorm when amsgrad) → dtypes
in the list, all equal to var's → shapes equal. ApplyAdamWV2 (its op_api): nulls → dtypes (var, m, v,
maxGradNorm, grad in the list; step FLOAT or INT64) → shapes equal to var's, step one element."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

DATA = P.per_product("FLOAT FLOAT16", "BF16")
FLOAT = P.codes("FLOAT")
STEP = P.codes("FLOAT INT64")
F32 = np.dtype(np.float32)


def _value(view):
    return np.float32(view.reshape(-1)[0])


class AdamBase(AclnnOp):
    data = ()        # the tensors of var's shape
    scalars = ()     # one-element tensors read as fp32 values
    optional = ()

    def dtype_table(self):
        return {name: DATA() for name in self.data}

    def check_shapes(self, a, first):
        for name in self.data:
            tensor = getattr(a, name)
            if tensor is not None and name != first:
                checks.same_shape(name, tensor, first, getattr(a, first))

    def arrays(self, a, v):
        """The data tensors in fp32 (None when absent) and the scalar tensors' values."""
        data = {n: None if getattr(a, n) is None else P.as_compute(v[n], F32).copy() for n in self.data}
        return data, {n: _value(v[n]) for n in self.scalars}


class ApplyAdam(AdamBase):
    name = "aclnnApplyAdam"
    data = ("varRef", "m", "v", "grad")
    scalars = ("beta1Power", "beta2Power", "lr", "beta1", "beta2", "epsilon")
    inputs = data + scalars
    outputs = ("varRef", "m", "v")
    products = _products.describe(("950",))

    def check(self, a):
        checks.not_null(a, *self.inputs)
        for name in self.data:
            checks.dtype_in(name, getattr(a, name), P.codes("FLOAT FLOAT16 BF16"))
            checks.dtype_match(name, getattr(a, name), a.varRef.dtype)
        for name in self.scalars:
            checks.dtype_in(name, getattr(a, name), FLOAT)
        self.check_shapes(a, "varRef")
        _products.check_supported(self.name, ("950",))

    def compute(self, a, v, workspace):
        if v["varRef"].size == 0:
            return
        d, s = self.arrays(a, v)
        g = d["grad"]
        with np.errstate(all="ignore"):
            lr_t = s["lr"] * np.sqrt(1 - s["beta2Power"]) / (1 - s["beta1Power"])
            m = s["beta1"] * d["m"] + (1 - s["beta1"]) * g
            vv = s["beta2"] * d["v"] + (1 - s["beta2"]) * g * g
            step = (s["beta1"] * m + (1 - s["beta1"]) * g) if a.useNesterov else m
            var = d["varRef"] - lr_t * step / (np.sqrt(vv) + s["epsilon"])
        P.store(v["m"], m)
        P.store(v["v"], vv)
        P.store(v["varRef"], var)


def adamw_step(var, m, v, g, lr, beta1, beta2, weight_decay, eps, bias1, bias2, maximize, max_v=None):
    """One AdamW step in fp32 (bias1 = 1 − β1^t, bias2 = 1 − β2^t); returns (var, m, v, v̂ or None)."""
    g = -g if maximize else g
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    var = var * (1 - lr * weight_decay)
    second = v if max_v is None else np.maximum(max_v, v)
    var = var - lr * (m / bias1) / (np.sqrt(second / bias2) + eps)
    return var, m, v, (None if max_v is None else second)


class ApplyAdamW(AdamBase):
    name = "aclnnApplyAdamW"
    data = ("varRef", "mRef", "vRef", "grad", "maxGradNormOptional")
    scalars = ("beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps")
    inputs = ("varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps",
              "grad", "maxGradNormOptional")
    outputs = ("varRef", "mRef", "vRef")

    def check(self, a):
        checks.not_null(a, *[n for n in self.inputs if n != "maxGradNormOptional"])
        if a.amsgrad:
            checks.not_null(a, "maxGradNormOptional")
        present = [n for n in self.inputs if getattr(a, n) is not None]
        for name in present:
            checks.dtype_in(name, getattr(a, name), DATA())
        for name in present[1:]:
            checks.same_dtype("varRef", a.varRef, name, getattr(a, name))
        self.check_shapes(a, "varRef")

    def compute(self, a, v, workspace):
        if v["varRef"].size == 0:
            return
        d, s = self.arrays(a, v)
        with np.errstate(all="ignore"):
            bias1, bias2 = 1 - s["beta1Power"] * s["beta1"], 1 - s["beta2Power"] * s["beta2"]
            var, m, vv, _ = adamw_step(d["varRef"], d["mRef"], d["vRef"], d["grad"], s["lr"], s["beta1"], s["beta2"],
                                       s["weightDecay"], s["eps"], bias1, bias2, a.maximize,
                                       d["maxGradNormOptional"] if a.amsgrad else None)
        P.store(v["mRef"], m)
        P.store(v["vRef"], vv)
        P.store(v["varRef"], var)


class ApplyAdamWV2(AdamBase):
    name = "aclnnApplyAdamWV2"
    data = ("varRef", "mRef", "vRef", "maxGradNormOptionalRef", "grad")
    inputs = data + ("step",)
    outputs = ("varRef", "mRef", "vRef", "maxGradNormOptionalRef")

    def dtype_table(self):
        return dict(super().dtype_table(), step=STEP)

    def check(self, a):
        checks.not_null(a, "varRef", "mRef", "vRef")
        if a.amsgrad:
            checks.not_null(a, "maxGradNormOptionalRef")
        checks.not_null(a, "grad", "step")
        for name in self.data:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), DATA())
        checks.dtype_in("step", a.step, STEP)
        self.check_shapes(a, "varRef")
        if a.step.numel() != 1:
            raise status.param_invalid("Numel of step must be 1, but got %d." % a.step.numel())

    def compute(self, a, v, workspace):
        if v["varRef"].size == 0:
            return
        d, _ = self.arrays(a, v)
        step = np.float32(v["step"].reshape(-1)[0])
        beta1, beta2 = np.float32(a.beta1), np.float32(a.beta2)
        amsgrad = a.amsgrad and d["maxGradNormOptionalRef"] is not None
        with np.errstate(all="ignore"):
            var, m, vv, second = adamw_step(d["varRef"], d["mRef"], d["vRef"], d["grad"], np.float32(a.lr), beta1,
                                            beta2, np.float32(a.weightDecay), np.float32(a.eps),
                                            1 - np.power(beta1, step), 1 - np.power(beta2, step), a.maximize,
                                            d["maxGradNormOptionalRef"] if amsgrad else None)
        P.store(v["mRef"], m)
        P.store(v["vRef"], vv)
        if amsgrad:
            P.store(v["maxGradNormOptionalRef"], second)
        P.store(v["varRef"], var)
