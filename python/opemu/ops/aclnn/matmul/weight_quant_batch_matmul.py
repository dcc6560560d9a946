"""Weight-quantised matmuls: aclnnWeightQuantBatchMatmulV2 / V3 / Nz (matmul/weight_quant_batch_matmul_v2 op_api)
— llama.cpp's quantised mul_mat — and aclnnWeightQuantBatchMatmul (matmul/weight_quant_batch_matmul).

y = x @ ((weight + antiquantOffset) · antiquantScale) + bias, the weight INT8 or INT4 (ND, any view the app
describes: llama.cpp passes transposed ones; FRACTAL_NZ for the Nz form or an NZ tensor), the parameters per
tensor ([1]), per channel ([n], [1, n]) or per group of antiquantGroupSize K rows ([ceil(k/g), n]). The vector
unit dequantises into x's dtype (common/weights.dequantize: fp16 rounds after the add and the multiply, bf16
once), the cube multiplies those with fp32 sums (NumPy's BLAS), the bias is added in fp32 and y rounded once;
an INT8 y is quantised once more with quantScale (TransQuantParam words or fp32) and quantOffset."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quantize as Q
from opemu.ops.aclnn.common import weights as W

UINT64, INT64 = dtypes.acl("UINT64"), dtypes.acl("INT64")
LINES = ("A2", "A3", "950", "310P")
M_K_N_MAX = 65535


def _x_types():
    return P.codes("FLOAT16") if _products.line() == "310P" else P.codes("FLOAT16 BF16")


def _weight_types():
    line = _products.line()
    if line == "310P":
        return (Q.INT8,)
    if line == "950":
        return (Q.INT8, Q.INT4, Q.FLOAT8_E4M3FN, Q.HIFLOAT8, Q.FLOAT4_E2M1)
    return (Q.INT8, Q.INT4, Q.INT32)


def _y_types():
    line = _products.line()
    return P.codes("FLOAT16") if line == "310P" else P.codes("FLOAT16 BF16") if line == "950" else \
        P.codes("FLOAT16 BF16") + (Q.INT8,)


class WeightQuantBatchMatmulV2(AclnnOp):
    name = "aclnnWeightQuantBatchMatmulV2"
    inputs = ("x", "weight", "antiquantScale", "antiquantOffsetOptional", "quantScaleOptional",
              "quantOffsetOptional", "biasOptional")
    outputs = ("y",)
    products = _products.describe(LINES)
    nz = False

    def dtype_table(self):
        scales = P.codes("FLOAT16 BF16") + (UINT64, INT64)
        return {"x": _x_types(), "weight": _weight_types(), "antiquantScale": scales,
                "antiquantOffsetOptional": P.codes("FLOAT16 BF16 INT32"), "quantScaleOptional": (UINT64, P.FLOAT),
                "quantOffsetOptional": [P.FLOAT], "biasOptional": P.codes("FLOAT16 BF16 FLOAT"), "y": _y_types()}

    def check(self, a):
        checks.not_null(a, "x", "weight", "antiquantScale", "y")

        if a.quantScaleOptional is None and a.quantOffsetOptional is not None:
            raise status.param_nullptr("quantOffsetOptional needs quantScaleOptional.")
        checks.dtype_in("x", a.x, _x_types())
        checks.dtype_in("weight", a.weight, _weight_types())
        checks.dtype_in("y", a.y, _y_types())
        fixpipe = a.antiquantScale.dtype in (UINT64, INT64)
        if not fixpipe and a.antiquantScale.dtype not in (a.x.dtype, Q.FLOAT8_E8M0):
            raise status.param_invalid("antiquantScale's dtype should be equal to x's dtype [%s], actual is [%s]."
                                       % (dtypes.serial_name(a.x.dtype), dtypes.serial_name(a.antiquantScale.dtype)))
        offset = a.antiquantOffsetOptional
        if offset is not None and not fixpipe and offset.dtype != a.antiquantScale.dtype:
            raise status.param_invalid("antiquantOffsetOptional's dtype should be equal to antiquantScale's dtype "
                                       "[%s], actual is [%s]." % (dtypes.serial_name(a.antiquantScale.dtype),
                                                                  dtypes.serial_name(offset.dtype)))
        bias = a.biasOptional
        if bias is not None:
            allowed = P.codes("FLOAT16") if a.x.dtype == P.FLOAT16 else P.codes("BF16 FLOAT")
            checks.dtype_in("biasOptional", bias, allowed)
        if a.y.dtype == Q.INT8:
            checks.not_null(a, "quantScaleOptional")
        elif a.y.dtype != a.x.dtype:
            raise status.param_invalid("y's dtype should be equal to x's dtype [%s], actual is [%s]."
                                       % (dtypes.serial_name(a.x.dtype), dtypes.serial_name(a.y.dtype)))
        nd = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
        for name in ("x", "antiquantScale", "antiquantOffsetOptional", "biasOptional", "y"):
            t = getattr(a, name)
            if t is not None and t.format != nd:
                raise status.param_invalid("%s's format should be ND. actual is [%d]." % (name, t.format))
        if self.nz and not fractal_nz.is_nz(a.weight):
            raise status.param_invalid("weight's format should be FRACTAL_NZ. actual is [%d]." % a.weight.format)
        for name, low, high in (("x", 2, 6), ("weight", 2, 6), ("y", 2, 6)):
            t = getattr(a, name)
            if not low <= t.ndim <= high:
                raise status.param_invalid("%s's dim should be in range [%d, %d]. actual is [%d]."
                                           % (name, low, high, t.ndim))
        group = self.group_size(a)
        k = a.x.shape[-1]
        if group:
            if group < 0:
                raise status.param_invalid("cannot support group_size[%d] less than 0." % group)
            if group % 32:
                raise status.param_invalid("antiquantGroupSize should be an integer multiple of 32, actual is %d."
                                           % group)
            if group + 1 > k:
                raise status.param_invalid("antiquantGroupSize should not be greater than k-1, which is %d.actual "
                                           "antiquantGroupSize is %d." % (k - 1, group))
        packed_n = 8 if a.weight.dtype == Q.INT32 else 1
        k_w, n = a.weight.shape[-2], a.weight.shape[-1] * packed_n
        if k != k_w:
            raise status.param_invalid("x's k and weight's k should be equal, actual x'k is %d, weight's k is %d."
                                       % (k, k_w))
        m = a.x.shape[-2]
        if min(k, m, n) < 1:
            raise status.param_invalid("m,k,n shouldn't be smaller than 1, actual m is %d, k is %d, n is %d." % (m, k, n))
        if _products.line() in ("A2", "A3") and (k > M_K_N_MAX or n > M_K_N_MAX):
            raise status.param_invalid("k,n shouldn't be larger than %d, actual k is %d, n is %d. When x is "
                                       "transposed, m shouldn't be larger than %d, actual m is %d."
                                       % (M_K_N_MAX, k, n, M_K_N_MAX, m))
        if a.weight.dtype == Q.INT4:
            transposed = fractal_nz.stored_matrix(a.weight)[3] if a.weight.ndim >= 2 else False
            if transposed and k % 2:
                raise status.param_invalid("In the int4 scenario, if weight is transposed, k[%d] should be an even "
                                           "number." % k)
            if not transposed and n % 2:
                raise status.param_invalid("In the int4 scenario, if weight is not transposed, n[%d] should be an "
                                           "even number " % n)
        s = a.antiquantScale
        if s.ndim == 1 and (group > 0 or s.shape[0] not in (1, n)):
            raise status.param_invalid("antiquantScale shape must be [1] or [%d] and group size is 0 when the size is "
                                       "1, but it is %s and group size is [%d]" % (n, checks.shape_text(s.shape), group))
        if s.ndim == 2:
            if group == 0 and (s.shape[0] != 1 or s.shape[1] not in (n, 1)):
                raise status.param_invalid("antiquantScale shape must be [1, %d] or [1, 1]when the size is 2 and "
                                           "without group size, but it is %s" % (n, checks.shape_text(s.shape)))
            if group > 0 and (s.shape[0] != -(-k // group) or s.shape[1] != n):
                raise status.param_invalid("antiquantScale shape must be [%d, %d] when the size is 2 and with group "
                                           "size, but it is %s" % (-(-k // group), n, checks.shape_text(s.shape)))
        if s.ndim not in (1, 2):
            raise status.param_invalid("antiquantScale's dim should be in range [1, 2]. actual is [%d]." % s.ndim)
        if offset is not None and tuple(offset.shape) != tuple(s.shape):
            raise status.param_invalid("The ViewShape of antiquant offset must same with scale when it is not null, "
                                       "but they are %s and %s" % (checks.shape_text(offset.shape),
                                                                   checks.shape_text(s.shape)))
        if bias is not None:
            if bias.ndim == 1 and bias.shape[0] not in (0, n):
                raise status.param_invalid("when bias's shape size is 1, it's shape should be [0], or [%d], actual is "
                                           "%s." % (n, checks.shape_text(bias.shape)))
            if bias.ndim == 2 and tuple(bias.shape) != (1, n):
                raise status.param_invalid("when bias's shape size is 2, it's shape should be [1, %d], actual is %s."
                                           % (n, checks.shape_text(bias.shape)))
        for name in ("quantScaleOptional", "quantOffsetOptional"):
            t = getattr(a, name)
            if t is not None and t.numel() not in (1, n):
                raise status.param_invalid("%s's shape should be [1] or [%d], actual is %s."
                                           % (name, n, checks.shape_text(t.shape)))
        try:
            batch = P.broadcast("x", a.x.shape[:-2], "weight", a.weight.shape[:-2])
        except status.VendorError:
            raise status.param_invalid("Broadcast %s and %s failed." % (checks.shape_text(a.x.shape),
                                                                        checks.shape_text(a.weight.shape)))
        if tuple(a.y.shape[-2:]) != (m, n) or math.prod(a.y.shape[:-2]) != math.prod(batch):
            if a.y.shape[-2] != m:
                raise status.param_invalid("y's m and x's m should be equal, actual y's m is %d, x's m is %d."
                                           % (a.y.shape[-2], m))
            raise status.param_invalid("y's n and weight's n should be equal, actual y's n is %d, weight's n is %d."
                                       % (a.y.shape[-1], n))
        self.check_more(a)
        _products.check_supported(self.name, LINES)
        a.group = group
        W.narrow_desc(a, "weight")

    def group_size(self, a):
        return a.antiquantGroupSize

    def check_more(self, a):
        """Form-specific attributes."""

    def compute(self, a, v, workspace):
        if a.y.is_empty():
            return
        x_type = dtypes.numpy_dtype(a.x.dtype)
        weight = W.matrix(v["weight"], a.weight_layout)
        if a.weight_layout.dtype == Q.INT32:
            weight = W.int4_from_int32(weight)
        scale, offset = v["antiquantScale"], v.get("antiquantOffsetOptional")
        if a.antiquantScale.dtype in (UINT64, INT64):   # fixpipe words: the scale's fp19 bits and an int9 offset
            scale, word_offset = Q.quant_param_scale(scale)
            offset = offset if offset is not None else word_offset
        w = W.dequantize(weight, scale.reshape(scale.shape if scale.ndim == 2 else (1, -1)),
                         None if offset is None else offset.reshape(offset.shape if offset.ndim == 2 else (1, -1)),
                         a.group, np.float16 if x_type == np.float16 else np.float32 if x_type == np.float32 else
                         x_type)
        product = np.matmul(Q.widen(v["x"]), w)
        if "biasOptional" in v and v["biasOptional"].size:
            product = product + Q.widen(v["biasOptional"]).reshape(-1)
        product = product.reshape(v["y"].shape)
        if a.y.dtype == Q.INT8:
            words = v["quantScaleOptional"]
            qscale = Q.quant_param_scale(words)[0] if a.quantScaleOptional.dtype == UINT64 else Q.widen(words)
            qoffset = Q.widen(v["quantOffsetOptional"]).reshape(-1) if "quantOffsetOptional" in v else None
            q = Q.static_quantize(product, qscale.reshape(-1), qoffset, Q.INT8)
            v["y"][...] = q
            return
        P.store(v["y"], product)


class WeightQuantBatchMatmulV3(WeightQuantBatchMatmulV2):
    """V2 with innerPrecise (0 high precision, 1 high performance: the kernel's choice, not the arithmetic)."""
    name = "aclnnWeightQuantBatchMatmulV3"

    def check_more(self, a):
        if a.innerPrecise not in (0, 1):
            raise status.param_invalid("cannot support innerPrecise[%d]。only support 0 or 1." % a.innerPrecise)


class WeightQuantBatchMatmulNz(WeightQuantBatchMatmulV2):
    """V2 with the weight in FRACTAL_NZ."""
    name = "aclnnWeightQuantBatchMatmulNz"
    nz = True


class WeightQuantBatchMatmul(AclnnOp):
    """The first form (matmul/weight_quant_batch_matmul op_api): out = x1 @ ((x2 + addOffset) · mulScale) + bias,
    x1 and out fp16, x2 INT8, transposeX1/X2 naming (k, m) / (n, k) operands. The vendor computes m ≤ 64 on its
    fixpipe instead (x1 quantised by antiquantScale/antiquantOffset, dequantised by deqScale/deqOffset), a path
    its docs give no formula for: opemu computes the documented result for every m, and checks the fixpipe
    parameters' shapes as the op_api does."""
    name = "aclnnWeightQuantBatchMatmul"
    inputs = ("x1", "x2", "diagonalMatrix", "deqOffset", "deqScale", "addOffset", "mulScale", "bias")
    outputs = ("out",)
    products = _products.describe(("310P", "A2", "A3"))
    FIXPIPE_M = 64

    def dtype_table(self):
        return {"x1": P.codes("FLOAT16"), "x2": (Q.INT8,), "diagonalMatrix": (Q.INT8,), "deqOffset": P.codes("INT32"),
                "deqScale": (UINT64,), "addOffset": P.codes("FLOAT16"), "mulScale": P.codes("FLOAT16"),
                "bias": [P.FLOAT], "out": P.codes("FLOAT16")}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "out")
        table = self.dtype_table()
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), table[name])
        if a.x1.ndim < 2 or a.x2.ndim < 2:
            raise status.param_invalid("The dims of the two inputs should be same or larger than 2,now the shapes are  "
                                       "%s, %s" % (checks.shape_text(a.x1.shape), checks.shape_text(a.x2.shape)))
        m, k = (a.x1.shape[-1], a.x1.shape[-2]) if a.transposeX1 else a.x1.shape[-2:]
        k2, n = (a.x2.shape[-1], a.x2.shape[-2]) if a.transposeX2 else a.x2.shape[-2:]
        if m <= self.FIXPIPE_M:
            checks.not_null(a, "diagonalMatrix", "deqOffset", "deqScale")
            for name in ("deqOffset", "deqScale"):
                t = getattr(a, name)
                if t.shape and t.shape[-1] not in (1, n):
                    raise status.param_invalid("fixpipe %s's broad cast dim is not equal to one or N, can't "
                                               "broadcast" % ("Offset" if name == "deqOffset" else "Scale"))
            if tuple(a.diagonalMatrix.shape) != (32, 32):
                raise status.param_invalid("diagonalMatrix shape is not equal to [32, 32]")
        else:
            for name, word in (("addOffset", "Offset"), ("mulScale", "Scale")):
                t = getattr(a, name)
                if t is not None and t.numel() not in (1, n):
                    raise status.param_invalid("single op %s's broad cast dim is not equal to one or N, can't "
                                               "broadcast" % word)
        if a.bias is not None and a.bias.shape[-1] not in (1, n):
            raise status.param_invalid("Bias shape last dim need equal to 1 or N")
        checks.max_dim("x1", a.x1)
        checks.max_dim("x2", a.x2)
        if k != k2:
            raise status.param_invalid("The k-axis of the two inputs are different %s, %s"
                                       % (checks.shape_text(a.x1.shape), checks.shape_text(a.x2.shape)))
        if tuple(a.out.shape[-2:]) != (m, n) or tuple(a.out.shape[:-2]) != tuple(a.x1.shape[:-2]):
            raise status.param_invalid("The m-axis or n-axis of inputs %s, %s are not match output %s"
                                       % tuple(checks.shape_text(t.shape) for t in (a.x1, a.x2, a.out)))
        _products.check_supported(self.name, ("310P", "A2", "A3"))

    def compute(self, a, v, workspace):
        if not v["out"].size:
            return
        x1 = np.swapaxes(v["x1"], -1, -2) if a.transposeX1 else v["x1"]
        x2 = np.swapaxes(v["x2"], -1, -2) if a.transposeX2 else v["x2"]
        scale = v["mulScale"].reshape(1, -1) if "mulScale" in v else np.ones((1, 1), np.float16)
        offset = v["addOffset"].reshape(1, -1) if "addOffset" in v else None
        w = W.dequantize(x2, scale, offset, 0, np.float16)
        product = np.matmul(Q.widen(x1), w)
        if "bias" in v:
            product = product + Q.widen(v["bias"]).reshape(-1)
        P.store(v["out"], product.reshape(v["out"].shape))
