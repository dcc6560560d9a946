"""aclnnScaledMaskedSoftmax and aclnnScaledMaskedSoftmaxBackward (ops-nn vfusion/scaled_masked_softmax_v2,
scaled_masked_softmax_grad_v2), Megatron's fused attention softmax on [B, N, S, D] scores:

    forward   y = softmax(where(mask, −10000, scale · x)) over the last dim (the kernel's MASK_VAL fills the
              masked places; the doc page writes it as a product with the mask)
    backward  out = scale · (gradOutput · y − Σ(gradOutput · y) · y), 0 where the mask is set

The bool mask broadcasts over the first two dims ([1 or B, 1 or N, S, D]). Phase 1 as the op_api sources
read (hicann/ops-nn@e5c3fa93): nulls (the forward's answer ACLNN_ERR_INNER_NULLPTR, as its source returns)
→ dtypes (FLOAT, FLOAT16, BF16; y's equal to x's; mask BOOL) → 4-D → the mask's broadcast and its last two
dims equal to x's → D in (0, 4096] (8192 on the 950 line) → fixedTriuMask must be false. fp16/bf16 in fp32,
rounded once."""
import numpy as np

from opemu.core import checks, status
from opemu.ops.aclnn.common import products as _products
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

SUPPORTED = P.codes("FLOAT FLOAT16 BF16")
MASK = P.codes("BOOL")
MASK_VALUE = np.float32(-10000.0)
F32 = np.dtype(np.float32)


def _width_limit():
    return 8192 if _products.is_regbase() else 4096


def _mask_broadcasts(mask, shape):
    return all(m in (1, n) for m, n in zip(mask.shape[:2], shape[:2]))


class ScaledMaskedSoftmax(AclnnOp):
    name = "aclnnScaledMaskedSoftmax"
    inputs = ("x", "mask")
    outputs = ("y",)

    def dtype_table(self):
        return {"x": SUPPORTED, "mask": MASK, "y": SUPPORTED}

    def check(self, a):
        for name in ("x", "mask", "y"):
            if getattr(a, name) is None:
                raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                         "Expected a proper Tensor but got null for argument %s." % name)
        checks.dtype_in("x", a.x, SUPPORTED)
        checks.dtype_in("mask", a.mask, MASK)
        checks.dtype_in("y", a.y, SUPPORTED)
        checks.same_dtype("x", a.x, "y", a.y)
        for name in ("x", "mask", "y"):
            checks.dim_is(name, getattr(a, name), 4)
        x, mask = tuple(a.x.shape), tuple(a.mask.shape)
        for k, word in ((0, "first"), (1, "second")):
            if x[k] != mask[k] and mask[k] != 1:
                raise status.param_invalid("When x%s and mask%s are different in the %s dimensions, the broadcast "
                                           "relation needs to be satisfied" % (checks.shape_text(x),
                                                                               checks.shape_text(mask), word))
        if x[2:] != mask[2:]:
            raise status.param_invalid("x and mask should be same in dim3 and dim4")
        if not 0 < x[3] <= _width_limit():
            raise status.param_invalid("Expected x and mask dim4 in range of (0, %d]." % _width_limit())
        if a.fixedTriuMask:
            raise status.param_invalid("the param fixedTriuMask only suppport false.")
        checks.same_shape("x", a.x, "y", a.y)

    def compute(self, a, v, workspace):
        x = v["x"]
        if x.size == 0:
            return
        with np.errstate(all="ignore"):
            scores = np.where(v["mask"], MASK_VALUE, P.as_compute(x, F32) * np.float32(a.scale))
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True, dtype=F32)
        P.store(v["y"], scores)


class ScaledMaskedSoftmaxBackward(AclnnOp):
    name = "aclnnScaledMaskedSoftmaxBackward"
    inputs = ("gradOutput", "y", "mask")
    outputs = ("out",)

    def dtype_table(self):
        return {"gradOutput": SUPPORTED, "y": SUPPORTED, "mask": MASK, "out": SUPPORTED}

    def check(self, a):
        checks.not_null(a, "gradOutput", "y", "mask", "out")
        checks.dtype_in("gradOutput", a.gradOutput, SUPPORTED)
        checks.dtype_in("y", a.y, SUPPORTED)
        checks.dtype_in("mask", a.mask, MASK)
        checks.dtype_in("out", a.out, SUPPORTED)
        shape = tuple(a.gradOutput.shape)
        if len(shape) != 4:
            raise status.param_invalid("gradOutput only support 4 dims, but current is %d" % len(shape))
        if shape[3] > _width_limit():
            raise status.param_invalid("shape of gradOutput is not true, current is %s" % checks.shape_text(shape))
        for name in ("y", "out"):
            if tuple(getattr(a, name).shape) != shape:
                raise status.param_invalid("shape of %s should equal to gradOutput, gradOutput is %s, %s is %s"
                                           % (name, checks.shape_text(shape), name,
                                              checks.shape_text(getattr(a, name).shape)))
        mask = tuple(a.mask.shape)
        if len(mask) != 4:
            raise status.param_invalid("mask only support 4 dims, but current is %d" % len(mask))
        if mask[2:] != shape[2:]:
            raise status.param_invalid("shape of mask is not true, current is %s" % checks.shape_text(mask))
        if not _mask_broadcasts(a.mask, shape):
            raise status.param_invalid("mask should broadcast to gradOutput, gradOutput is %s, mask is %s"
                                       % (checks.shape_text(shape), checks.shape_text(mask)))
        if a.fixTriuMask:
            raise status.param_invalid("fixTriuMask only support false")

    def compute(self, a, v, workspace):
        grad = v["gradOutput"]
        if grad.size == 0:
            return
        g, y = P.as_compute(grad, F32), P.as_compute(v["y"], F32)
        with np.errstate(all="ignore"):
            product = g * y
            result = (product - product.sum(axis=-1, keepdims=True, dtype=F32) * y) * np.float32(a.scale)
        P.store(v["out"], np.where(v["mask"], np.float32(0), result))
