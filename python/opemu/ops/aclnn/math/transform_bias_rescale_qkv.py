"""aclnnTransformBiasRescaleQkv (ops-math math/transform_bias_rescale_qkv): PyTorch's
_transform_bias_rescale_qkv: qkv (B, T, 3·H·D) plus qkvBias, split into q, k, v of shape (B, H, T, D), q divided
by sqrt(D). fp16/bf16 add in fp32 and round once."""
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes

QKV = lambda: codes("BF16 FLOAT16 FLOAT")


class TransformBiasRescaleQkv(AclnnOp):
    """nulls → dtypes (all of qkv's) → qkv 3-D, qkvBias 1-D of its last dim, numHeads > 0 dividing it → outputs
    (B, numHeads, T, D)."""
    name = "aclnnTransformBiasRescaleQkv"
    inputs, outputs = ("qkv", "qkvBias"), ("qOut", "kOut", "vOut")

    def dtype_table(self):
        return {name: QKV() for name in self.inputs + self.outputs}

    def check(self, a):
        names = self.inputs + self.outputs
        checks.not_null(a, *names)
        checks.dtype_in("qkv", a.qkv, QKV())
        for name in names[1:]:
            checks.dtype_match(name, getattr(a, name), a.qkv.dtype)
        checks.dim_is("qkv", a.qkv, 3)
        checks.dim_is("qkvBias", a.qkvBias, 1)
        width = a.qkv.shape[2]
        if a.qkvBias.shape[0] != width:
            raise status.param_invalid("The size of qkvBias %s must equal the last dim of qkv %s."
                                       % (checks.shape_text(a.qkvBias.shape), checks.shape_text(a.qkv.shape)))
        if a.numHeads <= 0:
            raise status.param_invalid("numHeads must be greater than 0, but got %d." % a.numHeads)
        if width % (3 * a.numHeads):
            raise status.param_invalid("The last dim of qkv %d must be divisible by 3 * numHeads %d."
                                       % (width, 3 * a.numHeads))
        b, t = a.qkv.shape[:2]
        expected = (b, a.numHeads, t, width // (3 * a.numHeads))
        for name in self.outputs:
            checks.shape_is(name, getattr(a, name), expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        if v["qOut"].size == 0:
            return
        ct = P.compute_type(a.qkv.dtype)
        x = P.as_compute(v["qkv"], ct) + P.as_compute(v["qkvBias"], ct)
        b, t, width = x.shape
        d = width // (3 * a.numHeads)
        parts = np.moveaxis(x.reshape(b, t, 3, a.numHeads, d), 1, 3)   # (B, 3, H, T, D)
        P.store(v["qOut"], parts[:, 0] / ct.type(math.sqrt(d)))
        P.store(v["kOut"], parts[:, 1])
        P.store(v["vOut"], parts[:, 2])
