"""The other cube products of matmul/: aclnnBaddbmm / aclnnInplaceBaddbmm and aclnnAddbmm / aclnnInplaceAddbmm
(batch_mat_mul_v3 op_api), aclnnMv and aclnnAddmv, aclnnGemm, aclnnMatmulWeightNz, aclnnBatchMatMulWeightNz and
aclnnAddmmWeightNz (mat_mul_v3 / batch_mat_mul_v3 op_api), aclnnFusedMatmul (fused_mat_mul) and aclnnEinsum.

Every product is matmul.py's cube (cubeMathType, fp32 sums, one rounding into out); the affine forms add
beta · self to alpha · product in fp32 and round once (the vendor's Mul/Add after the cube round the product
into out's dtype first when that is fp16/bf16: that rounding is kept)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import weights as W
from opemu.ops.aclnn.matmul import matmul as M


def cube_product(a, x, y, out_dtype):
    """x @ y as the cube makes it (fp32 values; rounded to out's fp16/bf16 when the vendor's product is)."""
    x, y = M.cube_inputs(a.cube, x, y)
    product = np.matmul(x, y)
    if a.cube == "fp16":
        product = product.astype(np.float16).astype(np.float32)
    if out_dtype in (np.float16,) or out_dtype.itemsize == 2:
        product = product.astype(out_dtype).astype(np.float32)
    return product


def affine(product, self_values, alpha, beta):
    """beta · self + alpha · product in fp32 (beta 0 ignores self, NaN included, as torch)."""
    result = product if alpha == 1 else product * np.float32(alpha)
    if beta != 0 and self_values is not None:
        result = result + np.float32(beta) * self_values.astype(np.float32)
    return result


class Baddbmm(AclnnOp):
    """out = beta · self + alpha · (batch1 @ batch2) (3-D operands, self broadcast to the product)."""
    name = "aclnnBaddbmm"
    inputs = ("self", "batch1", "batch2")
    outputs = ("out",)
    target = "out"
    reduce_batch = False

    def dtype_table(self):
        return {name: M.cube_dtypes() for name in ("self", "batch1", "batch2", self.target)}

    def check(self, a):
        checks.not_null(a, self.inputs[0], "batch1", "batch2", "beta", "alpha",
                        *(("out",) if self.target == "out" else ()))
        out = getattr(a, self.target)
        a.self = getattr(a, self.inputs[0])
        a.out = out
        M.check_cube_inputs(a, ["batch1", "batch2", "self", self.target], a.cubeMathType)
        checks.dim_is("batch1", a.batch1, 3)
        checks.dim_is("batch2", a.batch2, 3)
        b1, b2 = a.batch1.shape, a.batch2.shape
        if b1[2] != b2[1]:
            raise status.param_invalid("batch1's last dim and batch2's penultimate dim shoule be same, batch1 [%d], "
                                       "batch2 [%d]." % (b1[2], b2[1]))
        if b1[0] != b2[0]:
            raise status.param_invalid("mat1's batch dim and mat2's batch dim can not broadcast")
        shape = (b1[1], b2[2]) if self.reduce_batch else (b1[0], b1[1], b2[2])
        try:
            if P.broadcast("self", a.self.shape, "batch1@batch2", shape) != shape:
                raise status.param_invalid("")
        except status.VendorError:
            raise status.param_invalid("Shape of self and batch1@batch2 can't broadcast.")
        P.out_shape_is(out, shape)

    def compute(self, a, v, workspace):
        out = v[self.target]
        if out.size == 0:
            return
        product = cube_product(a, v["batch1"], v["batch2"], out.dtype)
        if self.reduce_batch:
            product = product.sum(axis=0, dtype=np.float32)
        self_values = v[self.inputs[0]]
        P.store(out, affine(product, self_values.copy() if self.target != "out" else self_values,
                            a.alpha.to_float(), a.beta.to_float()))


class InplaceBaddbmm(Baddbmm):
    name = "aclnnInplaceBaddbmm"
    inputs = ("selfRef", "batch1", "batch2")
    outputs = ("selfRef",)
    target = "selfRef"


class Addbmm(Baddbmm):
    """out = beta · self + alpha · Σ_b batch1[b] @ batch2[b]."""
    name = "aclnnAddbmm"
    reduce_batch = True


class InplaceAddbmm(InplaceBaddbmm):
    name = "aclnnInplaceAddbmm"
    reduce_batch = True


class Mv(AclnnOp):
    """out = self @ vec (self 2-D, vec and out 1-D)."""
    name = "aclnnMv"
    inputs = ("self", "vec")
    outputs = ("out",)

    def dtype_table(self):
        return {name: M.cube_dtypes() for name in ("self", "vec", "out")}

    def check(self, a):
        checks.not_null(a, "self", "vec", "out")
        M.check_cube_inputs(a, ["self", "vec", "out"], a.cubeMathType)
        checks.same_dtype("out", a.out, "vec", a.vec)
        checks.dim_is("self", a.self, 2)
        checks.dim_is("vec", a.vec, 1)
        checks.dim_is("out", a.out, 1)
        checks.shape_is("vec", a.vec, (a.self.shape[1],), checks.shape_text((a.self.shape[1],)))
        checks.shape_is("out", a.out, (a.self.shape[0],), checks.shape_text((a.self.shape[0],)))

    def compute(self, a, v, workspace):
        if v["out"].size:
            P.store(v["out"], cube_product(a, v["self"], v["vec"], v["out"].dtype))


class Addmv(AclnnOp):
    """out = beta · self + alpha · (mat @ vec)."""
    name = "aclnnAddmv"
    inputs = ("self", "mat", "vec")
    outputs = ("out",)

    def dtype_table(self):
        return {name: M.cube_dtypes() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "self", "mat", "vec", "alpha", "beta", "out")
        M.check_cube_inputs(a, ["mat", "vec", "self", "out"], a.cubeMathType)
        checks.dim_is("mat", a.mat, 2)
        checks.dim_is("vec", a.vec, 1)
        if a.mat.shape[1] != a.vec.shape[0]:
            raise status.param_invalid("size mismatch, got mat %s, vec %s" % (checks.shape_text(a.mat.shape),
                                                                              checks.shape_text(a.vec.shape)))
        n = (a.mat.shape[0],)
        if a.self.ndim > 1 or P.broadcast("self", a.self.shape, "mat @ vec", n) != n:
            raise status.param_invalid("The size of tensor self %s must match the size %s."
                                       % (checks.shape_text(a.self.shape), checks.shape_text(n)))
        P.out_shape_is(a.out, n)

    def compute(self, a, v, workspace):
        if v["out"].size:
            product = cube_product(a, v["mat"], v["vec"], v["out"].dtype)
            P.store(v["out"], affine(product, v["self"], a.alpha.to_float(), a.beta.to_float()))


class Gemm(AclnnOp):
    """out = alpha · op(A) @ op(B) + beta · C, op transposing when transA / transB."""
    name = "aclnnGemm"
    inputs = ("A", "B", "C")
    outputs = ("out",)

    def dtype_table(self):
        return {name: M.cube_dtypes() for name in ("A", "B", "C", "out")}

    def check(self, a):
        checks.not_null(a, "C", "A", "B", "out")
        nd = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
        if any(getattr(a, n).format != nd for n in ("A", "B", "C", "out")):
            raise status.param_invalid("Format only support ND")
        M.check_cube_inputs(a, ["A", "B", "C", "out"], a.cubeMathType)
        checks.dim_is("A", a.A, 2)
        checks.dim_is("B", a.B, 2)
        m, k = a.A.shape[::-1] if a.transA else a.A.shape
        k2, n = a.B.shape[::-1] if a.transB else a.B.shape
        if k != k2:
            raise status.param_invalid("The k-axis of the two inputs are different.")
        try:
            if P.broadcast("C", a.C.shape, "A@B", (m, n)) != (m, n):
                raise status.param_invalid("")
        except status.VendorError:
            raise status.param_invalid("The size of tensor C %s must match the size %s."
                                       % (checks.shape_text(a.C.shape), checks.shape_text((m, n))))
        P.out_shape_is(a.out, (m, n))

    def compute(self, a, v, workspace):
        if not v["out"].size:
            return
        x = v["A"].T if a.transA else v["A"]
        y = v["B"].T if a.transB else v["B"]
        product = cube_product(a, x, y, v["out"].dtype)
        P.store(v["out"], affine(product, v["C"], a.alpha, a.beta))


class MatmulWeightNz(M.Matmul):
    """aclnnMatmul with mat2 in FRACTAL_NZ: 2-D operands, mat2 neither n = 1 nor k = 1."""
    name = "aclnnMatmulWeightNz"

    def check_shapes(self, a):
        if not fractal_nz.is_nz(a.mat2):
            raise status.param_invalid("Format of mat2 must be FRACTAL_NZ, actual is %d." % a.mat2.format)
        checks.dim_is("self", a.self, 2)
        checks.dim_is("mat2", a.mat2, 2)
        if 1 in a.mat2.shape:
            raise status.param_invalid("Not supported mat2 n = 1 or k = 1 when format is FRACTAL_NZ, mat2: %s"
                                       % checks.shape_text(a.mat2.shape))
        super().check_shapes(a)


class BatchMatMulWeightNz(M.BatchMatMul):
    name = "aclnnBatchMatMulWeightNz"

    def check_shapes(self, a):
        if not fractal_nz.is_nz(a.mat2):
            raise status.param_invalid("Format of mat2 must be FRACTAL_NZ, actual is %d." % a.mat2.format)
        super().check_shapes(a)


class AddmmWeightNz(M.Addmm):
    """aclnnAddmm with mat2 in FRACTAL_NZ."""
    name = "aclnnAddmmWeightNz"

    def check(self, a):
        if a.mat2 is not None and not fractal_nz.is_nz(a.mat2):
            raise status.param_invalid("Format of mat2 must be FRACTAL_NZ, actual is %d." % a.mat2.format)
        super().check(a)
        W.narrow_desc(a, "mat2")

    def compute(self, a, v, workspace):
        super().compute(a, dict(v, mat2=M.operand(v, a, "mat2")), workspace)


FUSED_OPS = ("", "add", "mul", "gelu_erf", "gelu_tanh", "relu", "16cast32")


class FusedMatmul(AclnnOp):
    """y = fused(x1 @ x2 + bias, x3) with fusedOpType "" / "add" / "mul" (x3 elementwise), "relu", "gelu_erf",
    "gelu_tanh"; the product rounded to y's dtype before the fused step (the epilogue reads the cube's output)."""
    name = "aclnnFusedMatmul"
    inputs = ("x1", "x2", "bias", "x3")
    outputs = ("y",)

    def dtype_table(self):
        return {name: M.cube_dtypes() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "y")
        op = a.fusedOpType or ""
        if op not in FUSED_OPS:
            raise status.param_invalid("fusedOpType %s is not supported, it should be in %s." % (op, list(FUSED_OPS)))
        if op in ("add", "mul"):
            checks.not_null(a, "x3")
        M.check_cube_inputs(a, ["x1", "x2", "y"], a.cubeMathType)
        if a.x1.ndim < 2 or a.x2.ndim < 2 or a.x1.shape[-1] != a.x2.shape[-2]:
            raise status.param_invalid("The k-axis of the two inputs are different %s, %s"
                                       % (checks.shape_text(a.x1.shape), checks.shape_text(a.x2.shape)))
        batch = P.broadcast("x1", a.x1.shape[:-2], "x2", a.x2.shape[:-2])
        shape = batch + (a.x1.shape[-2], a.x2.shape[-1])
        P.out_shape_is(a.y, shape)
        if a.bias is not None and a.bias.numel() not in (1, shape[-1]):
            raise status.param_invalid("bias must hold n = %d values, but got %s."
                                       % (shape[-1], checks.shape_text(a.bias.shape)))
        if a.x3 is not None and P.broadcast("x3", a.x3.shape, "y", shape) != shape:
            raise status.param_invalid("x3 %s can't broadcast to y %s." % (checks.shape_text(a.x3.shape),
                                                                           checks.shape_text(shape)))

    def compute(self, a, v, workspace):
        y = v["y"]
        if not y.size:
            return
        product = cube_product(a, v["x1"], v["x2"], y.dtype)
        if "bias" in v:
            product = product + v["bias"].astype(np.float32).reshape(-1)
        op = a.fusedOpType or ""
        x3 = v["x3"].astype(np.float32) if "x3" in v else None
        if op == "add":
            product = product + x3
        elif op == "mul":
            product = product * x3
        elif op == "relu":
            product = np.maximum(product, np.float32(0))
        elif op == "gelu_erf":
            from scipy.special import erf
            product = (product * np.float32(0.5) * (1 + erf(product / np.float32(np.sqrt(2))))).astype(np.float32)
        elif op == "gelu_tanh":
            inner = np.float32(np.sqrt(2 / np.pi)) * (product + np.float32(0.044715) * product ** 3)
            product = np.float32(0.5) * product * (1 + np.tanh(inner))
        P.store(y, product)


def unify(equation):
    """The op_api's EquationUnification: letters renamed a, b, c… in order of first appearance."""
    names = {}
    return "".join(names.setdefault(ch, chr(ord("a") + len(names))) if ch.isalpha() else ch for ch in equation)


EINSUM_TYPES = P.codes("FLOAT16 FLOAT INT16 INT32 INT64 UINT16 UINT32 UINT64")


class Einsum(AclnnOp):
    """The two equations the op_api implements (after renaming the letters): "abcd,abced->abce" (a batched
    product of the second operand with the first as a vector; types other than fp16/fp32 are cast to fp16 for
    the cube and back) and "a,b->ab" (the outer product, an elementwise Mul)."""
    name = "aclnnEinsum"
    inputs = ("tensors",)
    outputs = ("output",)
    EQUATIONS = ("abcd,abced->abce", "a,b->ab")

    def dtype_table(self):
        allowed = EINSUM_TYPES if _products.line() in ("A2", "A3", "950") else \
            P.codes("FLOAT16 INT16 INT32 INT64 UINT16 UINT32 UINT64")
        return {"output": allowed}

    def check(self, a):
        checks.not_null(a, "tensors")
        tensors = list(a.tensors)
        for i, t in enumerate(tensors):
            if t is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*tensors)[%d]." % i)
        checks.not_null(a, "output")
        if a.equation is None:
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"], "The equation cannot be nullptr")
        allowed = self.dtype_table()["output"]
        nd = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
        for i, t in enumerate(tensors):
            checks.dtype_in("(*tensors)[%d]" % i, t, allowed)
            if t.format != nd:
                raise status.param_invalid("format should be ND, but is [%d]." % t.format)
        checks.dtype_in("output", a.output, allowed)
        a.unified = unify(a.equation)
        if len(tensors) != 2 or a.unified not in self.EQUATIONS:
            raise status.param_invalid("failed to match equation [%s]" % a.equation)
        if tensors[0].dtype != tensors[1].dtype or tensors[0].dtype != a.output.dtype:
            raise status.param_invalid("all inputs dtype is not equal, please check.")
        first, second = tensors
        if a.unified == "a,b->ab":
            checks.dim_is("(*tensors)[0]", first, 1)
            checks.dim_is("(*tensors)[1]", second, 1)
            checks.dim_is("output", a.output, 2)
            expected = (first.shape[0], second.shape[0])
        else:
            checks.dim_is("(*tensors)[0]", first, 4)
            checks.dim_is("(*tensors)[1]", second, 5)
            for i, j in ((0, 0), (1, 1), (2, 2), (3, 4)):
                if first.shape[i] != second.shape[j]:
                    raise status.param_invalid("tensor0 shape dim%d [%d] and tensor1 shape dim%d [%d] should be same"
                                               % (i, first.shape[i], j, second.shape[j]))
            expected = tuple(first.shape[:3]) + (second.shape[3],)
        P.out_shape_is(a.output, expected)

    def compute(self, a, v, workspace):
        out = v["output"]
        if not out.size:
            return
        first, second = v["tensors"]
        if a.unified == "a,b->ab":
            P.store(out, np.multiply.outer(first, second))
            return
        lowered = first.dtype not in (np.float16, np.float32)
        x, w = (t.astype(np.float16) if lowered else t for t in (first, second))
        product = np.matmul(w.astype(np.float32), x.astype(np.float32)[..., None])[..., 0]
        if lowered or out.dtype == np.float16:
            product = product.astype(np.float16)
        P.store(out, product)
