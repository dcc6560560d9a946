"""aclnnFlatQuant / V2 (quant/flat_quant): x [M, N1, N2] rotated by two Kronecker factors, x'' = P1 @ x_m @ P2,
then quantised per token (per m) to INT4: quantScale[m] = max|x''[m]| / (qmax / clipRatio), out = x'' / quantScale
(nearest even, saturated; INT32 outputs pack eight INT4). The products are the cube's (x's dtype in, fp32 sums,
x' rounded to x's dtype between the two products)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.norm.rms_common import round_to

B16 = P.codes("FLOAT16 BF16")


class FlatQuant(AclnnOp):
    name = "aclnnFlatQuant"
    inputs = ("x", "kroneckerP1", "kroneckerP2")
    outputs = ("out", "quantScale")
    products = _products.describe(("A2", "A3"))

    def dtype_table(self):
        return {"x": B16, "kroneckerP1": B16, "kroneckerP2": B16, "out": (Q.INT4, Q.INT32), "quantScale": [P.FLOAT]}

    def dst_max(self, a):
        return 0.0

    def check(self, a):
        checks.not_null(a, "x", "kroneckerP1", "kroneckerP2", "out", "quantScale")
        checks.dtype_in("x", a.x, B16)
        for name in ("kroneckerP1", "kroneckerP2"):
            checks.dtype_match(name, getattr(a, name), a.x.dtype)
        checks.dtype_in("out", a.out, (Q.INT4, Q.INT32))
        checks.dtype_match("quantScale", a.quantScale, P.FLOAT)
        checks.dim_is("x", a.x, 3)
        m, n1, n2 = a.x.shape
        checks.shape_is("kroneckerP1", a.kroneckerP1, (n1, n1), checks.shape_text((n1, n1)))
        checks.shape_is("kroneckerP2", a.kroneckerP2, (n2, n2), checks.shape_text((n2, n2)))
        if not 0 < a.clipRatio <= 1:
            raise status.param_invalid("clipRatio should be in (0, 1], but got %f." % a.clipRatio)
        pack = 8 if a.out.dtype == Q.INT32 else 1
        if n2 % (8 if pack == 8 else 2):
            raise status.param_invalid("N2 (%d) must be a multiple of %d for out %s." % (n2, 8 if pack == 8 else 2,
                                                                                       P.dtypes.serial_name(a.out.dtype)))
        checks.shape_is("out", a.out, (m, n1, n2 // pack), checks.shape_text((m, n1, n2 // pack)))
        checks.shape_is("quantScale", a.quantScale, (m,), checks.shape_text((m,)))
        _products.check_supported(self.name, ("A2", "A3", "950"))

    def compute(self, a, v, workspace):
        code = a.x.dtype
        x = Q.widen(v["x"])
        first = round_to(np.matmul(x, Q.widen(v["kroneckerP2"])), code)
        rotated = np.matmul(Q.widen(v["kroneckerP1"]), first)
        qmax = self.dst_max(a) or 7.0
        amax = np.max(np.abs(rotated), axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = (amax / np.float32(qmax / a.clipRatio)).astype(np.float32)
            q = Q.quantize(rotated / scale[:, None, None], Q.INT4)
        Q.store(v["out"], a.out, q)
        P.store(v["quantScale"], scale)


class FlatQuantV2(FlatQuant):
    name = "aclnnFlatQuantV2"

    def dst_max(self, a):
        return float(a.dstTypeMax)
