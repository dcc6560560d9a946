"""aclnnMatmul, aclnnMm, aclnnBatchMatMul, aclnnAddmm, aclnnInplaceAddmm (ops-nn matmul/mat_mul_v3,
batch_mat_mul_v3; matmul/common cube_util.cpp and matmul_util.cpp's arch rules).

cubeMathType decides the dtype the cube unit reads (CalcPromoteTypeCubeMathTypeNew):
    KEEP_DTYPE (0)                 fp32 stays fp32 (an error where the cube has no fp32: 910, 310P)
    ALLOW_FP32_DOWN_PRECISION (1)  fp32 → HF32 on A2/A3/950, → fp16 elsewhere
    USE_FP16 (2)                   every input → fp16, the product is fp16 before the output cast
    USE_HF32 (3)                   fp32 → HF32 (an error where there is no fp32 cube); fp16/bf16 unchanged
    USE_FP32_ADD (4)               routed to KEEP_DTYPE on DAV_2201 (A2/A3)
The cube accumulates in fp32 and its result is rounded once into the output dtype. HF32 keeps
fp32's exponent and 11 mantissa bits; inputs are rounded to it to nearest even (the vendor does not
document the tie rule; ties are measure-zero for real data)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import weights as W
from opemu.ops.aclnn.common.cube_util import (ALLOW_FP32_DOWN_PRECISION, KEEP_DTYPE, USE_FP16, USE_FP32_ADD, USE_HF32,
                                              cube_dtypes, fp32_cube, round_hf32)


def check_cube_inputs(a, names, cube_math_type):
    """The arch rule's CheckInput and the cube dtype it leads to: sets a.cube ("fp32", "hf32", "fp16")."""
    allowed = cube_dtypes()
    for name in names:
        checks.dtype_in(name, getattr(a, name), allowed)
    fp32_in = any(getattr(a, n).dtype == P.FLOAT for n in names[:-1])
    if cube_math_type == USE_FP32_ADD and fp32_cube():
        cube_math_type = KEEP_DTYPE
    if cube_math_type not in (KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION, USE_FP16, USE_HF32):
        raise status.param_invalid("The value of cubeMathType only support {0: KEEP_DTYPE, 1: ALLOW_FP32_DOWN_PRECISION, "
                                   "2: USE_FP16, 3: USE_HF32, 4: USE_FP32_ADD}, but got %d" % cube_math_type)
    if not fp32_cube() and fp32_in and cube_math_type in (KEEP_DTYPE, USE_HF32):
        raise status.param_invalid("The npu arch does not support FP32 for calculations when the cubeMathType is "
                                   "KEEP_DTYPE or USE_HF32, please change the setting of cubeMathType or the Dtype of "
                                   "input tensor.")
    if cube_math_type == USE_FP16 or (fp32_in and cube_math_type == ALLOW_FP32_DOWN_PRECISION and not fp32_cube()):
        a.cube = "fp16"
    elif fp32_in and cube_math_type in (ALLOW_FP32_DOWN_PRECISION, USE_HF32):
        a.cube = "hf32"
    else:
        a.cube = "fp32"


def cube_inputs(cube, *arrays):
    """The operands as the cube reads them, in fp32."""
    if cube == "hf32":
        return [round_hf32(x) if x.dtype == np.float32 else x.astype(np.float32) for x in arrays]
    if cube == "fp16":
        return [x.astype(np.float16).astype(np.float32) for x in arrays]
    return [x if x.dtype == np.float32 else x.astype(np.float32) for x in arrays]


def cube_matmul(cube, x, y, out):
    """x @ y as the cube computes it, stored into `out` (fp32 accumulation, one rounding)."""
    x, y = cube_inputs(cube, x, y)
    if cube == "fp32" and out.dtype == np.float32:
        np.matmul(x, y, out=out)
        return
    product = np.matmul(x, y)
    if cube == "fp16":
        product = product.astype(np.float16)
    P.store(out, product)


def check_nz_operands(a, first="self", weight="mat2"):
    """The op_api's NZ rules: self and out stay ND; an NZ weight of fp16/bf16 pairs with the same type."""
    if any(fractal_nz.is_nz(getattr(a, n)) for n in (first, "out") if getattr(a, n, None) is not None):
        raise status.param_invalid(" The 'self' or 'out' tensor currently does not support NZ format")
    x, w = getattr(a, first), getattr(a, weight)
    if fractal_nz.is_nz(w) and {x.dtype, w.dtype} == {P.FLOAT16, P.BF16}:
        raise status.param_invalid("The dtypes of self and mat2 must be both DT_BF16 or both DT_FLOAT16, now self's "
                                   "dtype is [%s], mat2's dtype is [%s]" % (dtypes.serial_name(x.dtype),
                                                                           dtypes.serial_name(w.dtype)))


def operand(v, a, name):
    """A matmul operand's logical matrix: its view, or the matrix its FRACTAL_NZ storage holds."""
    layout = getattr(a, name + "_layout", None)
    return v[name] if layout is None or not fractal_nz.is_nz(layout) else W.matrix(v[name], layout)


class _CubeOp(AclnnOp):
    inputs = ("self", "mat2")
    outputs = ("out",)

    def dtype_table(self):
        return {name: cube_dtypes() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, *(self.inputs + self.outputs))
        check_cube_inputs(a, list(self.inputs + self.outputs), a.cubeMathType)
        check_nz_operands(a)
        self.check_shapes(a)
        W.narrow_desc(a, "mat2")

    def compute(self, a, v, workspace):
        if a.out.is_empty():
            return
        if a.self.is_empty() or a.mat2_layout.is_empty():  # k == 0: the vendor fills zeros
            P.store(v["out"], np.zeros((), np.float32))
            return
        cube_matmul(a.cube, v["self"], operand(v, a, "mat2"), v["out"])


class Matmul(_CubeOp):
    """torch.matmul semantics: 1-D operands, batch broadcasting, up to 6 dims."""
    name = "aclnnMatmul"

    def check_shapes(self, a):
        s, m = a.self.shape, a.mat2.shape
        checks.max_dim("self", a.self, 6)
        checks.max_dim("mat2", a.mat2, 6)
        if not s or not m:
            raise status.param_invalid("Matmul not support %s, %s" % (checks.shape_text(s), checks.shape_text(m)))
        k_mat2 = m[0] if len(m) <= 2 else m[-2]
        if s[-1] != k_mat2:
            raise status.param_invalid("The k-axis of the two inputs are different %s, %s"
                                       % (checks.shape_text(s), checks.shape_text(m)))
        batch = ()
        if len(s) >= 2 and len(m) >= 2:
            try:
                batch = P.broadcast("self", s[:-2] or (1,), "mat2", m[:-2] or (1,))
            except status.VendorError:
                raise status.param_invalid("Broadcast %s and %s failed." % (checks.shape_text(s), checks.shape_text(m)))
            batch = batch if len(s) > 2 or len(m) > 2 else ()
        elif len(m) >= 2:
            batch = m[:-2]
        elif len(s) >= 2:
            batch = s[:-2]
        expected = batch + (s[-2:-1] if len(s) >= 2 else ()) + (m[-1:] if len(m) >= 2 else ())
        P.out_shape_is(a.out, expected)


class Mm(_CubeOp):
    name = "aclnnMm"

    def check_shapes(self, a):
        checks.dim_is("mat2", a.mat2, 2)
        checks.dim_is("self", a.self, 2)
        if a.self.shape[1] != a.mat2.shape[0]:
            raise status.param_invalid("The k-axis of the two inputs are different, self Kdim[%d], mat2 Kdim[%d]."
                                       % (a.self.shape[1], a.mat2.shape[0]))
        checks.dim_is("out", a.out, 2)
        if a.out.shape != (a.self.shape[0], a.mat2.shape[1]):
            raise status.param_invalid("output's shape is not match input, out_m[%d] must be same with self_m[%d], "
                                       "out_n[%d] must be same with mat2_n[%d]."
                                       % (a.out.shape[0], a.self.shape[0], a.out.shape[1], a.mat2.shape[1]))


class BatchMatMul(_CubeOp):
    name = "aclnnBatchMatMul"

    def check_shapes(self, a):
        for name in ("self", "mat2", "out"):
            checks.dim_is(name, getattr(a, name), 3)
        s, m, o = a.self.shape, a.mat2.shape, a.out.shape
        if s[2] != m[1]:
            raise status.param_invalid("self's last dim and mat2's penultimate dim shoule be same, self [%d], mat2 [%d]."
                                       % (s[2], m[1]))
        if s[0] != m[0] and 1 not in (s[0], m[0]):
            raise status.param_invalid("self's first dim and mat2's first dim shoule be same, or at least one of the "
                                       "self's first dim and mat2's first dim is 1.Now self [%d], mat2 [%d]." % (s[0], m[0]))
        batch = max(s[0], m[0])
        if o != (batch, s[1], m[2]):
            raise status.param_invalid("output's shape is not match input, out_m[%d] must be same with self_m[%d], "
                                       "out_n[%d] must be same with other_n[%d], out_batch[%d] must be same with "
                                       "input_batch[%d]." % (o[1], s[1], o[2], m[2], o[0], batch))


class Addmm(AclnnOp):
    """out = beta * self + alpha * (mat1 @ mat2); self broadcasts to the product's shape."""
    name = "aclnnAddmm"
    inputs = ("self", "mat1", "mat2")
    outputs = ("out",)
    target = "out"

    def dtype_table(self):
        return {name: cube_dtypes() for name in ("self", "mat1", "mat2", self.target)}

    def check(self, a):
        checks.not_null(a, self.inputs[0], "mat1", "mat2", "beta", "alpha", *(("out",) if self.target == "out" else ()))
        out = getattr(a, self.target)
        a.out = out
        check_cube_inputs(a, ["mat1", "mat2", "self", self.target], a.cubeMathType)
        checks.dim_is("mat1", a.mat1, 2)
        checks.dim_is("mat2", a.mat2, 2)
        if a.mat1.shape[1] != a.mat2.shape[0]:
            raise status.param_invalid("The k-axis of the two inputs are different.")
        if a.self.ndim > 2:
            raise status.param_invalid("The dim of self should be less than 3.")
        n, p = a.mat1.shape[0], a.mat2.shape[1]
        if P.broadcast("self", a.self.shape, "mat1 @ mat2", (n, p)) != (n, p):
            raise status.param_invalid("The size of tensor self %s must match the size %s."
                                       % (checks.shape_text(a.self.shape), checks.shape_text((n, p))))
        if out.shape != (n, p):
            raise status.param_invalid("Shape of out should be [%d,%d], but the current is %s."
                                       % (n, p, checks.shape_text(out.shape)))

    def compute(self, a, v, workspace):
        out = v[self.target]
        if a.out.is_empty():
            return
        x, y = cube_inputs(a.cube, v["mat1"], v["mat2"])
        product = np.matmul(x, y)
        if a.cube == "fp16":
            product = product.astype(np.float16).astype(np.float32)
        beta, alpha = a.beta.to_float(), a.alpha.to_float()
        result = product if alpha == 1 else product * np.float32(alpha)
        if beta != 0:
            result = result + np.float32(beta) * v["self"].astype(np.float32)
        P.store(out, result)


class InplaceAddmm(Addmm):
    name = "aclnnInplaceAddmm"
    inputs = ("selfRef", "mat1", "mat2")
    outputs = ("selfRef",)
    target = "selfRef"

    def check(self, a):
        a.self = a.selfRef  # the addend is the in-place target itself
        super().check(a)

    def compute(self, a, v, workspace):
        super().compute(a, dict(v, self=v["selfRef"].copy()), workspace)
