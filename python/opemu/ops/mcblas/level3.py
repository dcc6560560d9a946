"""Level-3 BLAS: gemm in every flavour (typed S/D/C/Z/H, GemmEx with compute types, batched through
pointer arrays or strides), geam, dgmm, trsm, trmm, syrk/herk, symm/hemm.

Where a GEMM rounds: inputs are widened exactly to the compute type (fp16/bf16/int8 → fp32/int64),
except that the fast compute types (and the TF32 math mode for fp32 GEMMs) first round A and B to
fp16 / bf16 / TF32 as tensor cores do; products accumulate in the compute type through NumPy's BLAS
(Hgemm and COMPUTE_16F accumulate in fp32); alpha and beta apply in the compute type; C is rounded
once (to nearest even) into its own type. Checks are cuBLAS's: enums, sizes >= 0, then each
leading dimension against the rows of the matrix it describes."""
import ml_dtypes
import numpy as np

from opemu.core.mcblas import (C, COMPUTE, DATA, DIAGS, FILLS, LEFT, LOWER, MATH, N, SIDES, T, TRANSPOSES, TYPES,
                               Scalar, batch_of, blend, blended, invalid, leading, matrix, nonnegative, not_supported,
                               one_of, op, pointer_arrays, transposed, vector, view)
from opemu.ops.mcblas import family, letters
from opemu.ops.mcblas.level2 import full_from_triangle, solve, triangle

F16, BF16, F32, F64 = (np.dtype(t) for t in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64))
C64, C128, I8, I32, I64 = (np.dtype(t) for t in (np.complex64, np.complex128, np.int8, np.int32, np.int64))


def _tf32(values):
    """float32 values rounded to TF32 (10 mantissa bits), to nearest even."""
    bits = np.ascontiguousarray(values, F32).view(np.uint32).copy()
    bits += np.uint32(0xFFF) + ((bits >> np.uint32(13)) & np.uint32(1))
    bits &= np.uint32(0xFFFFE000)
    return bits.view(F32)


def _through(dtype):
    return lambda values: values.astype(dtype).astype(F32)


ROUND_INPUTS = {"fp16": _through(F16), "bf16": _through(BF16), "tf32": _tf32}


def _rounded(values, how):
    if how is None:
        return values
    if values.dtype.kind == "c":
        return ROUND_INPUTS[how](values.real) + 1j * ROUND_INPUTS[how](values.imag).astype(values.dtype)
    return ROUND_INPUTS[how](values)


class Precision:
    """One GEMM flavour: element types of A/B and C, the scalars' type, the accumulation type and the
    rounding of the inputs (None, "fp16", "bf16" or "tf32")."""

    def __init__(self, ab, c, scalar, compute, inputs=None):
        self.ab, self.c, self.scalar, self.compute, self.inputs = ab, c, scalar, compute, inputs

    def with_inputs(self, inputs):
        return Precision(self.ab, self.c, self.scalar, self.compute, inputs)


TYPED = {"S": Precision(F32, F32, F32, F32), "D": Precision(F64, F64, F64, F64),
         "C": Precision(C64, C64, C64, C64), "Z": Precision(C128, C128, C128, C128),
         "H": Precision(F16, F16, F16, F32)}

# GemmEx: (compute type, Atype = Btype, Ctype) -> precision (cuBLAS's table of supported combinations).
_D = DATA
_EX_32F = {(_D["MACA_R_16F"], _D["MACA_R_16F"]): Precision(F16, F16, F32, F32),
           (_D["MACA_R_16BF"], _D["MACA_R_16BF"]): Precision(BF16, BF16, F32, F32),
           (_D["MACA_R_16F"], _D["MACA_R_32F"]): Precision(F16, F32, F32, F32),
           (_D["MACA_R_16BF"], _D["MACA_R_32F"]): Precision(BF16, F32, F32, F32),
           (_D["MACA_R_8I"], _D["MACA_R_32F"]): Precision(I8, F32, F32, F32),
           (_D["MACA_R_32F"], _D["MACA_R_32F"]): Precision(F32, F32, F32, F32),
           (_D["MACA_C_32F"], _D["MACA_C_32F"]): Precision(C64, C64, C64, C64)}
_EX_FAST = {key: p for key, p in _EX_32F.items() if key[0] in (_D["MACA_R_32F"], _D["MACA_C_32F"])}
_EX_64F = {(_D["MACA_R_64F"], _D["MACA_R_64F"]): Precision(F64, F64, F64, F64),
           (_D["MACA_C_64F"], _D["MACA_C_64F"]): Precision(C128, C128, C128, C128)}
EX = {}
for _name, _table, _inputs in (("16F", {(_D["MACA_R_16F"], _D["MACA_R_16F"]): TYPED["H"]}, None),
                               ("32F", _EX_32F, None), ("64F", _EX_64F, None),
                               ("32I", {(_D["MACA_R_8I"], _D["MACA_R_32I"]): Precision(I8, I32, I32, I64)}, None),
                               ("32F_FAST_16F", _EX_FAST, "fp16"), ("32F_FAST_16BF", _EX_FAST, "bf16"),
                               ("32F_FAST_TF32", _EX_FAST, "tf32")):
    for _suffix in ("", "_PEDANTIC"):
        _code = COMPUTE.get("MCBLAS_COMPUTE_" + _name + _suffix)
        if _code is not None:
            EX.update({(_code,) + key: p.with_inputs(_inputs) for key, p in _table.items()})
PEDANTIC = {COMPUTE[n] for n in COMPUTE if n.endswith("_PEDANTIC")}
TF32_MATH = MATH["MCBLAS_TF32_TENSOR_OP_MATH"]
ALGOS = set(range(-1, 24)) | set(range(99, 116))


def _math_inputs(c, precision, pedantic=False):
    """The TF32 math mode lets an fp32 GEMM round its inputs to TF32, as cuBLAS's tensor cores do."""
    base = c.math_mode & 0xF
    if not pedantic and precision.inputs is None and precision.ab == F32 and base == TF32_MATH:
        return precision.with_inputs("tf32")
    return precision


def _ex_precision(c):
    if c.algo not in ALGOS:
        raise invalid("algo = %d is not an mcblasGemmAlgo_t" % c.algo)
    if c.Atype != c.Btype:
        raise not_supported("Atype %d and Btype %d differ" % (c.Atype, c.Btype))
    precision = EX.get((c.computeType, c.Atype, c.Ctype))
    if precision is None:
        raise not_supported("computeType %d with Atype/Btype %d and Ctype %d is not a supported combination"
                            % (c.computeType, c.Atype, c.Ctype))
    return _math_inputs(c, precision, c.computeType in PEDANTIC)


def _operand(matrices, trans, precision):
    x = op(matrices, trans)
    if x.dtype != precision.compute:
        x = x.astype(precision.compute)
    return _rounded(x, precision.inputs)


def gemm_into(cv, av, bv, transa, transb, alpha, beta, precision):
    """C = alpha*op(A)*op(B) + beta*C on views (one matrix or a batch)."""
    x, y = _operand(av, transa, precision), _operand(bv, transb, precision)
    if alpha == 1 and beta == 0 and cv.dtype == precision.compute:
        # column-major C is the row-major result of op(B)^T op(A)^T: BLAS writes it in place
        np.matmul(transposed(y), transposed(x), out=transposed(cv))
        return
    blend(cv, x @ y, alpha, beta)


def _gemm_check(c):
    one_of("transa", c.transa, TRANSPOSES)
    one_of("transb", c.transb, TRANSPOSES)
    nonnegative(m=c.m, n=c.n, k=c.k)
    leading("lda", c.lda, c.m if c.transa == N else c.k)
    leading("ldb", c.ldb, c.k if c.transb == N else c.n)
    leading("ldc", c.ldc, c.m)


def _operands(c, precision):
    """Geometries of one A, B and C (the addresses differ between the flavours)."""
    return (matrix(None, *_stored(c.transa, c.m, c.k), c.lda, precision.ab)[1],
            matrix(None, *_stored(c.transb, c.k, c.n), c.ldb, precision.ab)[1],
            matrix(None, c.m, c.n, c.ldc, precision.c)[1])


def _stored(trans, rows, cols):
    return (rows, cols) if trans == N else (cols, rows)


def _scalars(c, precision):
    return Scalar(c, "alpha", c.alpha, precision.scalar), Scalar(c, "beta", c.beta, precision.scalar)


def _gemm(c, precision, layout="single", into=gemm_into):
    """One GEMM ("single"), or batchCount of them with operands `stride` elements apart ("strided") or
    at the addresses of device pointer arrays ("batched"); `into` computes each product into C."""
    _gemm_check(c)
    batch = 1 if layout == "single" else c.batchCount
    nonnegative(batchCount=batch)
    alpha, beta = _scalars(c, precision)
    if c.m == 0 or c.n == 0 or batch == 0:
        return None
    ga, gb, gc = _operands(c, precision)
    if layout == "strided":
        ga, gb, gc = (batch_of(None, g, batch, stride)[1] for g, stride in ((ga, c.strideA), (gb, c.strideB),
                                                                              (gc, c.strideC)))

    def addresses():
        if layout == "batched":
            return pointer_arrays(batch, c.Carray, c.Aarray, c.Barray)
        return [(c.C, c.A, c.B)]

    def run():
        av, bv = alpha.value(), beta.value()
        for pc, pa, pb in addresses():
            into(view((pc, gc), blended(bv)), view((pa, ga)), view((pb, gb)), c.transa, c.transb, av, bv, precision)
    return run


GEMMS = {}
for _layout, _suffix in (("single", ""), ("strided", "StridedBatched"), ("batched", "Batched")):
    GEMMS.update({"mcblas%sgemm%s" % (_l, _suffix): (_l, _layout) for _l in "SDCZH"})


@family({name: name for name in GEMMS})
def gemm(name, c):
    letter, layout = GEMMS[name]
    return _gemm(c, _math_inputs(c, TYPED[letter]), layout)


@family({"mcblasGemmEx": "single", "mcblasGemmStridedBatchedEx": "strided", "mcblasGemmBatchedEx": "batched"})
def gemm_ex(layout, c):
    return _gemm(c, _ex_precision(c), layout)


@family({"mcblasSgemmEx": "S", "mcblasCgemmEx": "C"})
def gemm_typed_ex(letter, c, into=gemm_into):
    """SgemmEx / CgemmEx: GemmEx with COMPUTE_32F and float (complex) scalars."""
    c.computeType, c.algo = COMPUTE["MCBLAS_COMPUTE_32F"], -1
    precision = _ex_precision(c)
    if precision.scalar != TYPES[letter]:
        raise not_supported("Atype %d / Ctype %d are not %s data" % (c.Atype, c.Ctype, "complex" if letter == "C"
                                                                      else "real"))
    return _gemm(c, precision, into=into)


@family(letters("mcblas%sgeam"))
def geam(letter, c):
    """C = alpha*op(A) + beta*op(B), all m x n; C may be A or B (in place)."""
    t = TYPES[letter]
    one_of("transa", c.transa, TRANSPOSES)
    one_of("transb", c.transb, TRANSPOSES)
    nonnegative(m=c.m, n=c.n)
    leading("lda", c.lda, c.m if c.transa == N else c.n)
    leading("ldb", c.ldb, c.m if c.transb == N else c.n)
    leading("ldc", c.ldc, c.m)
    alpha, beta = Scalar(c, "alpha", c.alpha, t), Scalar(c, "beta", c.beta, t)
    if c.m == 0 or c.n == 0:
        return None
    a = matrix(c.A, *_stored(c.transa, c.m, c.n), c.lda, t)
    b = matrix(c.B, *_stored(c.transb, c.m, c.n), c.ldb, t)
    out = matrix(c.C, c.m, c.n, c.ldc, t)

    def run():
        av, bv = alpha.value(), beta.value()
        # a zero scalar's matrix is not read (it may be the uninitialised output)
        result = av * op(view(a), c.transa) if av != 0 else np.zeros((c.m, c.n), t)
        if bv != 0:
            result = result + bv * op(view(b), c.transb)
        view(out, "w")[...] = result
    return run


@family(letters("mcblas%sdgmm"))
def dgmm(letter, c):
    """C = A*diag(x) (mode right) or diag(x)*A (mode left), A and C m x n."""
    t = TYPES[letter]
    one_of("mode", c.mode, SIDES)
    nonnegative(m=c.m, n=c.n)
    leading("lda", c.lda, c.m)
    leading("ldc", c.ldc, c.m)
    if c.m == 0 or c.n == 0:
        return None
    left = c.mode == LEFT
    a, out = matrix(c.A, c.m, c.n, c.lda, t), matrix(c.C, c.m, c.n, c.ldc, t)
    x = vector(c.x, c.m if left else c.n, c.incx, t)

    def run():
        xv = view(x)
        view(out, "w")[...] = view(a) * (xv[:, None] if left else xv[None, :])
    return run


def _side_check(c, with_trans):
    one_of("side", c.side, SIDES)
    one_of("uplo", c.uplo, FILLS)
    if with_trans:
        one_of("trans", c.trans, TRANSPOSES)
        one_of("diag", c.diag, DIAGS)
    nonnegative(m=c.m, n=c.n)
    leading("lda", c.lda, c.m if c.side == LEFT else c.n)
    leading("ldb", c.ldb, c.m)


def _trsm_into(bv, av, alpha, c):
    solver = solve if c.side == LEFT else _solve_right
    bv[...] = solver(av, alpha * bv, c.uplo, c.trans, c.diag)


@family(letters("mcblas%strsm"))
def trsm(letter, c):
    """Solves op(A)*X = alpha*B (left) or X*op(A) = alpha*B (right) for X, written over B."""
    t = TYPES[letter]
    _side_check(c, True)
    alpha = Scalar(c, "alpha", c.alpha, t)
    if c.m == 0 or c.n == 0:
        return None
    size = c.m if c.side == LEFT else c.n
    a, b = matrix(c.A, size, size, c.lda, t), matrix(c.B, c.m, c.n, c.ldb, t)
    return lambda: _trsm_into(view(b, "rw"), view(a), alpha.value(), c)


@family(letters("mcblas%strsmBatched"))
def trsm_batched(letter, c):
    """trsm on each (A[i], B[i]) of two device arrays of pointers."""
    t = TYPES[letter]
    _side_check(c, True)
    nonnegative(batchCount=c.batchCount)
    alpha = Scalar(c, "alpha", c.alpha, t)
    if c.m == 0 or c.n == 0 or c.batchCount == 0:
        return None
    size = c.m if c.side == LEFT else c.n
    ga, gb = matrix(None, size, size, c.lda, t)[1], matrix(None, c.m, c.n, c.ldb, t)[1]

    def run():
        alpha_value = alpha.value()
        for pa, pb in pointer_arrays(c.batchCount, c.A, c.B):
            _trsm_into(view((pb, gb), "rw"), view((pa, ga)), alpha_value, c)
    return run


def _solve_right(a, rhs, uplo, trans, diag):
    """X with X*op(A) = rhs, from op(A)^T X^T = rhs^T: op(A)^T is A^T, A or conj(A) for N, T, C."""
    r = transposed(rhs)
    if trans == C:  # conj(A) y = r  <=>  A conj(y) = conj(r)
        return transposed(np.conj(solve(a, np.conj(r), uplo, N, diag)))
    return transposed(solve(a, r, uplo, T if trans == N else N, diag))


@family(letters("mcblas%strmm"))
def trmm(letter, c):
    """C = alpha*op(A)*B (left) or alpha*B*op(A) (right), A triangular; C may be B."""
    t = TYPES[letter]
    _side_check(c, True)
    leading("ldc", c.ldc, c.m)
    alpha = Scalar(c, "alpha", c.alpha, t)
    if c.m == 0 or c.n == 0:
        return None
    size = c.m if c.side == LEFT else c.n
    a, b = matrix(c.A, size, size, c.lda, t), matrix(c.B, c.m, c.n, c.ldb, t)
    out = matrix(c.C, c.m, c.n, c.ldc, t)

    def run():
        tri = op(triangle(view(a), c.uplo, c.diag), c.trans)
        bv = view(b)
        view(out, "w")[...] = alpha.value() * (tri @ bv if c.side == LEFT else bv @ tri)
    return run


def _products(kind, hermitian):
    """The n x n update of each rank-k routine from op(A) = x, op(B) = y and alpha."""
    h = (lambda m: m.T.conj()) if hermitian else (lambda m: m.T)
    if kind == "k":     # syrk / herk: alpha x x^T
        return lambda x, y, alpha: alpha * (x @ h(x))
    if kind == "kx":    # syrkx / herkx: alpha x y^T
        return lambda x, y, alpha: alpha * (x @ h(y))
    if hermitian:       # her2k: alpha x y^H + conj(alpha) y x^H
        return lambda x, y, alpha: alpha * (x @ h(y)) + np.conj(alpha) * (y @ h(x))
    return lambda x, y, alpha: alpha * (x @ h(y) + y @ h(x))    # syr2k


RANK_K = {}
for _kind, _pattern, _herm in (("k", "syrk", "herk"), ("kx", "syrkx", "herkx"), ("2k", "syr2k", "her2k")):
    RANK_K.update({"mcblas%s%s" % (_l, _pattern): (_l, _kind, False) for _l in "SDCZ"})
    RANK_K.update({"mcblas%s%s" % (_l, _herm): (_l, _kind, True) for _l in "CZ"})


@family({name: name for name in RANK_K})
def rank_k(name, c):
    """C = update + beta*C on C's uplo triangle only (the other is not touched): syrk/herk (A only),
    syrkx/herkx and syr2k/her2k (A and B). The Hermitian forms take a real beta (and herk a real
    alpha), accept N or C and keep C's diagonal real; the complex symmetric ones accept N or T."""
    letter, kind, hermitian = RANK_K[name]
    t = TYPES[letter]
    one_of("uplo", c.uplo, FILLS)
    one_of("trans", c.trans, (N, C) if hermitian else ((N, T) if t.kind == "c" else TRANSPOSES))
    nonnegative(n=c.n, k=c.k)
    rows = c.n if c.trans == N else c.k
    leading("lda", c.lda, rows)
    if kind != "k":
        leading("ldb", c.ldb, rows)
    leading("ldc", c.ldc, c.n)
    real = TYPES["S" if t == C64 else "D"]
    alpha = Scalar(c, "alpha", c.alpha, real if hermitian and kind == "k" else t)
    beta = Scalar(c, "beta", c.beta, real if hermitian else t)
    if c.n == 0:
        return None
    a = matrix(c.A, *_stored(c.trans, c.n, c.k), c.lda, t)
    b = matrix(c.B, *_stored(c.trans, c.n, c.k), c.ldb, t) if kind != "k" else a
    out = matrix(c.C, c.n, c.n, c.ldc, t)
    update = _products(kind, hermitian)

    def run():
        x = op(view(a), c.trans)
        y = op(view(b), c.trans) if kind != "k" else x
        beta_value = beta.value()
        cv = view(out, blended(beta_value))
        mask = np.tri(c.n, dtype=bool) if c.uplo == LOWER else np.tri(c.n, dtype=bool).T
        values = update(x, y, alpha.value())[mask].astype(t)
        prior = cv[mask] if beta_value != 0 else np.zeros_like(values)  # beta 0: C is not read
        blend(prior, values, 1, beta_value)
        cv[mask] = prior
        if hermitian:  # the Hermitian updates' diagonal is real by definition
            diagonal = np.arange(c.n)
            cv[diagonal, diagonal] = cv[diagonal, diagonal].real
    return run


@family({**letters("mcblas%ssymm"), "mcblasChemm": "Ch", "mcblasZhemm": "Zh"})
def symm(letter, c):
    """C = alpha*A*B + beta*C (left) or alpha*B*A + beta*C (right), A symmetric (hemm: Hermitian)."""
    t = TYPES[letter[0]]
    _side_check(c, False)
    leading("ldc", c.ldc, c.m)
    alpha, beta = Scalar(c, "alpha", c.alpha, t), Scalar(c, "beta", c.beta, t)
    if c.m == 0 or c.n == 0:
        return None
    size = c.m if c.side == LEFT else c.n
    a, b = matrix(c.A, size, size, c.lda, t), matrix(c.B, c.m, c.n, c.ldb, t)
    out = matrix(c.C, c.m, c.n, c.ldc, t)

    def run():
        full = full_from_triangle(view(a), c.uplo, hermitian=letter.endswith("h"))
        other = view(b)
        alpha_value, beta_value = alpha.value(), beta.value()
        blend(view(out, blended(beta_value)), full @ other if c.side == LEFT else other @ full, alpha_value,
              beta_value)
    return run
