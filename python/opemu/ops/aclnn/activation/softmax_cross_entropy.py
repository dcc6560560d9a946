"""aclnnSoftmaxCrossEntropyWithLogits (ops-nn activation/softmax_cross_entropy_with_logits): per row of 2-D
features x and labels y

    loss = −Σ_j y_j · log(softmax(x)_j)         backprop = softmax(x) − y

Phase 1 as its op_api (hicann/ops-nn@e5c3fa93): nulls → dtypes (loss's and backprop's equal to features')
→ ranks ≤ 8, features and labels 2-D (its message, with ACLNN_ERR_PARAM_NULLPTR as the source logs it but
returns PARAM_INVALID) → empty features or labels succeed with nothing written. fp16/bf16 in fp32."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

SUPPORTED = P.per_product("FLOAT16 FLOAT", "BF16")


class SoftmaxCrossEntropyWithLogits(AclnnOp):
    name = "aclnnSoftmaxCrossEntropyWithLogits"
    inputs = ("features", "labels")
    outputs = ("loss", "backprop")

    def dtype_table(self):
        return {name: SUPPORTED() for name in self.inputs + self.outputs}

    def check(self, a):
        names = self.inputs + self.outputs
        checks.not_null(a, *names)
        for name in names:
            checks.dtype_in(name, getattr(a, name), SUPPORTED())
        checks.dtype_match("loss", a.loss, a.features.dtype)
        checks.dtype_match("backprop", a.backprop, a.features.dtype)
        for name in names:
            checks.max_dim(name, getattr(a, name))
        if a.features.ndim != 2 or a.labels.ndim != 2:
            raise status.param_invalid("dimNum is %d, must be 2, but check failed." % a.features.ndim)
        a.empty = a.features.is_empty() or a.labels.is_empty()
        if a.empty:
            return
        checks.same_shape("features", a.features, "labels", a.labels)
        checks.same_shape("features", a.features, "backprop", a.backprop)
        if a.loss.numel() != a.features.shape[0]:
            raise status.param_invalid("The shape of loss must be [%d], but got %s."
                                       % (a.features.shape[0], checks.shape_text(a.loss.shape)))

    def compute(self, a, v, workspace):
        if a.empty:
            return
        ct = P.compute_type(a.features.dtype)
        x, y = P.as_compute(v["features"], ct), P.as_compute(v["labels"], ct)
        with np.errstate(all="ignore"):
            shifted = x - x.max(axis=1, keepdims=True)
            log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            P.store(v["loss"], (-(y * log_softmax).sum(axis=1)).reshape(v["loss"].shape))
            P.store(v["backprop"], np.exp(log_softmax) - y)
