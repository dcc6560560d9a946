"""aclnnTransposeBatchMatMul / WeightNz (matmul/transpose_batch_mat_mul op_api) and aclnnTransposeQuantBatchMatMul
/ WeightNz: 3-D products whose operands arrive permuted (permX1, permX2 name the axes as (B, M, K) / (B, K, N))
and whose result is written permuted (permY), optionally scaled per column (scale: INT8 output through
TransQuantParam words) or with the batch split into batchSplitFactor parts.

out = permute(x1ᵖ @ x2ᵖ, permY); with scale, out (M, 1, B·N) = int8(round(y · scale)); batchSplitFactor > 1
gives (factor, M, B·N / factor)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quant_matmul as QM
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.common import weights as W
from opemu.ops.aclnn.matmul import matmul as M
from opemu.ops.aclnn.matmul.matmul_forms import cube_product

UINT64, INT64 = dtypes.acl("UINT64"), dtypes.acl("INT64")
PERMS_X1 = ((0, 1, 2), (1, 0, 2))
PERMS_X2 = ((0, 1, 2), (0, 2, 1))
PERMS_Y = ((1, 0, 2),)


def _check_perm(name, perm, allowed):
    perm = tuple(perm) if perm is not None else None
    if perm not in allowed:
        raise status.param_invalid("%s should be one of %s, but got %s." % (name, [list(p) for p in allowed],
                                                                          list(perm) if perm else perm))
    return perm


def _permuted_shape(shape, perm):
    """The (B, M, K) / (B, K, N) shape of an operand given in perm's order."""
    result = [0] * 3
    for position, axis in enumerate(perm):
        result[axis] = shape[position]
    return tuple(result)


def _logical(values, perm):
    """The operand as (B, ·, ·) from its stored order."""
    return np.transpose(values, np.argsort(perm))


class TransposeBatchMatMul(AclnnOp):
    name = "aclnnTransposeBatchMatMul"
    inputs = ("x1", "x2", "bias", "scale")
    outputs = ("out",)
    nz = False

    def dtype_table(self):
        return {"x1": M.cube_dtypes(), "x2": M.cube_dtypes(), "bias": M.cube_dtypes(), "scale": (UINT64, INT64),
                "out": M.cube_dtypes() + (Q.INT8,)}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "out")
        self.check_types(a)
        for name in ("x1", "x2"):
            checks.dim_is(name, getattr(a, name), 3)
        a.p1 = _check_perm("permX1", a.permX1, PERMS_X1)
        a.p2 = _check_perm("permX2", a.permX2, PERMS_X2)
        a.py = _check_perm("permY", a.permY, PERMS_Y)
        if self.nz and not fractal_nz.is_nz(a.x2):
            raise status.param_invalid("Format of x2 must be FRACTAL_NZ, actual is %d." % a.x2.format)
        b, m, k = _permuted_shape(a.x1.shape, a.p1)
        b2, k2, n = _permuted_shape(a.x2.shape, a.p2)
        if k != k2 or b != b2:
            raise status.param_invalid("x1 %s and x2 %s do not multiply after permX1 %s and permX2 %s."
                                       % (checks.shape_text(a.x1.shape), checks.shape_text(a.x2.shape),
                                          list(a.p1), list(a.p2)))
        factor = a.batchSplitFactor
        if factor < 1 or (b * n) % factor:
            raise status.param_invalid("batchSplitFactor %d must be positive and divide B * N = %d." % (factor, b * n))
        if a.scale is not None:
            expected = (m, 1, b * n)
            if a.scale.numel() != b * n:
                raise status.param_invalid("scale must hold B * N = %d values, but got %s."
                                           % (b * n, checks.shape_text(a.scale.shape)))
        elif factor > 1:
            expected = (factor, m, b * n // factor)
        else:
            expected = (m, b, n)
        P.out_shape_is(a.out, expected)
        a.b, a.m, a.k, a.n = b, m, k, n
        W.narrow_desc(a, "x2")

    def check_types(self, a):
        M.check_cube_inputs(a, ["x1", "x2"], a.cubeMathType)
        if a.scale is not None:
            checks.dtype_in("scale", a.scale, (UINT64, INT64))
            checks.dtype_in("out", a.out, (Q.INT8,))
        else:
            checks.dtype_in("out", a.out, M.cube_dtypes())

    def product(self, a, v):
        x1 = _logical(v["x1"], a.p1)
        x2 = _logical(M.operand(v, a, "x2").reshape(a.x2_layout.shape), a.p2)
        return cube_product(a, x1, x2, np.dtype(np.float32) if a.scale is not None else v["out"].dtype)

    def compute(self, a, v, workspace):
        out = v["out"]
        if not out.size:
            return
        y = self.product(a, v)                           # (B, M, N)
        if "bias" in v:
            y = y + Q.widen(v["bias"]).reshape(-1)
        y = np.transpose(y, (1, 0, 2))                   # (M, B, N)
        if a.scale is not None:
            scale, offset = Q.quant_param_scale(v["scale"].reshape(-1))
            flat = y.reshape(a.m, 1, a.b * a.n)
            out[...] = Q.quantize(flat * scale + offset, Q.INT8)
            return
        if a.batchSplitFactor > 1:
            y = np.ascontiguousarray(y).reshape(a.m, a.batchSplitFactor, -1).transpose(1, 0, 2)
        P.store(out, y.reshape(out.shape))


class TransposeBatchMatMulWeightNz(TransposeBatchMatMul):
    name = "aclnnTransposeBatchMatMulWeightNz"
    nz = True


class TransposeQuantBatchMatMul(TransposeBatchMatMul):
    """Quantised: INT8 / float8 operands, x1Scale per token (M) and x2Scale per channel (N) or MX per K group;
    out (M, B, N) in `dtype`."""
    name = "aclnnTransposeQuantBatchMatMul"
    inputs = ("x1", "x2", "bias", "x1Scale", "x2Scale")

    def dtype_table(self):
        operands = (Q.INT8, Q.FLOAT8_E4M3FN, Q.FLOAT8_E5M2, Q.HIFLOAT8)
        return {"x1": operands, "x2": operands, "bias": P.codes("FLOAT INT32 BF16"), "x1Scale": (P.FLOAT,
                                                                                              Q.FLOAT8_E8M0),
                "x2Scale": (P.FLOAT, UINT64, INT64, Q.FLOAT8_E8M0), "out": P.codes("FLOAT16 BF16")}

    def check(self, a):
        a.scale, a.cubeMathType = None, 0
        super().check(a)

    def check_types(self, a):
        table = self.dtype_table()
        for name in ("x1", "x2", "bias", "x1Scale", "x2Scale"):
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), table[name])
        checks.dtype_in("out", a.out, table["out"])
        if a.dtype != a.out.dtype:
            raise status.param_invalid("dtype %d must be the dtype of out %s." % (a.dtype,
                                                                                  dtypes.serial_name(a.out.dtype)))
        a.cube = "fp32"

    def product(self, a, v):
        x1 = _logical(Q.decode(v["x1"], a.x1) if a.x1.dtype != Q.INT8 else v["x1"], a.p1)
        x2 = _logical(W.matrix(v["x2"], a.x2_layout).reshape(a.x2_layout.shape), a.p2)
        integer = a.x1.dtype == Q.INT8
        acc = QM.integer_matmul(x1, x2) if integer else QM.float_matmul(x1, x2)
        s2 = QM.scale_values(v["x2Scale"], a.x2Scale)[0].reshape(-1) if "x2Scale" in v else None
        s1 = QM.scale_values(v["x1Scale"], a.x1Scale)[0].reshape(-1, 1) if "x1Scale" in v else None
        if s2 is not None and s2.size not in (1, a.n):
            s2 = None if s2.size != a.b * a.n else s2.reshape(a.b, 1, a.n)
        if s1 is not None and s1.size not in (1, a.m):
            s1 = None
        return QM.epilogue(acc, s2, s1)


class TransposeQuantBatchMatMulWeightNz(TransposeQuantBatchMatMul):
    name = "aclnnTransposeQuantBatchMatMulWeightNz"
    nz = True
