"""aclnnForeachNonFiniteCheckAndUnscale (ops-nn foreach/foreach_non_finite_check_and_unscale), the AMP
grad scaler's step (PyTorch's _amp_foreach_non_finite_check_and_unscale_):

    foundInf = 1.0 if any scaledGrads[i] holds Inf or NaN (else left as it is);  scaledGrads[i] *= invScale

scaledGrads is read and written in place (FLOAT, FLOAT16, BF16, one dtype across the list, at most 256
tensors); foundInf and invScale are FLOAT tensors of one element. Generated check (opbuild): nulls → product
(Atlas A2/A3, the 950 line, Atlas inference 310P) → dtypes → the tiling's rules. The product is computed in
fp32 and rounded once into each gradient."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

GRADS = P.codes("FLOAT FLOAT16 BF16")
FLOAT = P.codes("FLOAT")
LINES = ("A2", "A3", "950", "310P")
MAX_TENSORS = 256


class ForeachNonFiniteCheckAndUnscale(AclnnOp):
    name = "aclnnForeachNonFiniteCheckAndUnscale"
    inputs = ("scaledGrads", "foundInf", "invScale")
    outputs = ("scaledGrads", "foundInf")
    products = _products.describe(LINES)

    def dtype_table(self):
        return {"scaledGrads": GRADS, "foundInf": FLOAT, "invScale": FLOAT}

    def check(self, a):
        checks.not_null(a, "scaledGrads", "foundInf", "invScale")
        for k, tensor in enumerate(a.scaledGrads):
            if tensor is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument scaledGrads[%d]." % k)
        _products.check_supported(self.name, LINES)
        for k, tensor in enumerate(a.scaledGrads):
            checks.dtype_in("scaledGrads[%d]" % k, tensor, GRADS)
        checks.dtype_in("foundInf", a.foundInf, FLOAT)
        checks.dtype_in("invScale", a.invScale, FLOAT)
        tiling = status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"]
        if len(a.scaledGrads) > MAX_TENSORS:
            raise status.VendorError(tiling, "%s tiling: scaledGrads holds %d tensors, at most %d are supported."
                                     % (self.name, len(a.scaledGrads), MAX_TENSORS))
        if any(t.dtype != a.scaledGrads[0].dtype for t in a.scaledGrads):
            raise status.VendorError(tiling, "%s tiling: the tensors of scaledGrads must have one dtype." % self.name)
        for name in ("foundInf", "invScale"):
            if getattr(a, name).numel() != 1:
                raise status.param_invalid("%s must hold one element, but holds %d."
                                           % (name, getattr(a, name).numel()))

    def compute(self, a, v, workspace):
        scale = v["invScale"].reshape(-1)[0]
        found = False
        with np.errstate(all="ignore"):
            for grad in v["scaledGrads"]:
                if grad.size == 0:
                    continue
                values = P.as_compute(grad, np.dtype(np.float32))
                found = found or not np.isfinite(values).all()
                P.store(grad, values * scale)
        if found:
            v["foundInf"].flat[0] = np.float32(1.0)
