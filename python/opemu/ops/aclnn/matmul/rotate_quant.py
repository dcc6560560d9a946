"""aclnnRotateQuant (matmul/rotate_quant op_api and doc): Y = (x.reshape(*, k) @ rotation).reshape(m, n), rotation
(k, k) (transposed first when `trans`); with alpha in (0, 1) each group of 32 of Y is clamped to ±alpha · its
max|·|; then quantised per row dynamically (INT8, or INT4 packed eight to an INT32: scale = max|row| / 127 or 7)
or MX along `axis` (FLOAT4_E2M1 / FLOAT8 on the 950, E8M0 scales). The product is the cube's (fp32 sums) and is
rounded to x's dtype before the quantisation."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import mx
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.norm.rms_common import round_to

B16 = P.codes("BF16 FLOAT16")
INT_OUT = (Q.INT32, Q.INT8)
MX_OUT = (Q.FLOAT4_E2M1, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2)


class RotateQuant(AclnnOp):
    name = "aclnnRotateQuant"
    inputs = ("x", "rotation", "alpha")
    outputs = ("yOut", "scaleOut")
    products = _products.describe(("A2", "A3", "950"))

    def dtype_table(self):
        return {"x": B16, "rotation": B16, "alpha": [P.FLOAT], "yOut": INT_OUT + MX_OUT,
                "scaleOut": (P.FLOAT, Q.FLOAT8_E8M0)}

    def check(self, a):
        checks.not_null(a, "x", "rotation", "yOut", "scaleOut")
        checks.dtype_in("x", a.x, B16)
        checks.dtype_match("rotation", a.rotation, a.x.dtype)
        line = _products.line()
        outputs = INT_OUT + (MX_OUT if line == "950" else ())
        checks.dtype_in("yOut", a.yOut, outputs)
        a.mx = a.yOut.dtype in MX_OUT
        checks.dtype_match("scaleOut", a.scaleOut, Q.FLOAT8_E8M0 if a.mx else P.FLOAT)
        checks.dim_is("x", a.x, 2)
        checks.dim_is("rotation", a.rotation, 2)
        m, n = a.x.shape
        k = a.rotation.shape[0]
        if a.rotation.shape[1] != k or k == 0 or n % k:
            raise status.param_invalid("rotation %s must be square with k dividing n = %d."
                                       % (checks.shape_text(a.rotation.shape), n))
        pack = 8 if a.yOut.dtype == Q.INT32 else 1
        checks.shape_is("yOut", a.yOut, (m, n // pack), checks.shape_text((m, n // pack)))
        if not a.mx and a.scaleOut.numel() != m:
            raise status.param_invalid("scaleOut must hold one value per row (%d), but got %s."
                                       % (m, checks.shape_text(a.scaleOut.shape)))
        _products.check_supported(self.name, ("A2", "A3", "950"))

    def compute(self, a, v, workspace):
        x = Q.widen(v["x"])
        m, n = x.shape
        rotation = Q.widen(v["rotation"])
        if a.trans:
            rotation = rotation.T
        y = round_to(np.matmul(x.reshape(-1, rotation.shape[0]), rotation).reshape(m, n), a.x.dtype)
        if "alpha" in v:
            alpha = float(v["alpha"].reshape(-1)[0])
            if 0 < alpha < 1:
                groups = y.reshape(m, -1, 32) if n % 32 == 0 else y.reshape(m, 1, n)
                limit = np.float32(alpha) * np.max(np.abs(groups), axis=-1, keepdims=True)
                y = np.clip(groups, -limit, limit).reshape(m, n)
        if a.mx:
            elements, codes = mx.quantize(y, a.axis, 32, a.yOut.dtype, a.roundMode or "rint", a.scaleAlg,
                                          a.dstTypeMax)
            mx.store_elements(v["yOut"], a.yOut, elements)
            v["scaleOut"][...] = codes.reshape(-1)[:v["scaleOut"].size].view(v["scaleOut"].dtype).reshape(
                v["scaleOut"].shape)
            return
        target = Q.INT4 if a.yOut.dtype == Q.INT32 else Q.INT8
        q, scale = Q.dynamic_rows(y, target)
        Q.store(v["yOut"], a.yOut, q)
        P.store(v["scaleOut"], scale.reshape(v["scaleOut"].shape))
