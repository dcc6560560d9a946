"""Matrix decompositions and solves over batches of matrices (ops-math math/logdet, slogdet, cholesky, cross, qr,
svd, triangular_solve), by numpy.linalg / scipy.linalg on the trailing two dims.

Logdet of a matrix with a negative determinant is NaN and of a singular one -inf (PyTorch's values); Slogdet
gives sign and log|det|. Cholesky, QR and SVD of fp16/bf16 run in fp32 (the op_api casts first); the signs of
QR's and SVD's factors are LAPACK's, which PyTorch CPU shares. Svd returns V (not Vᴴ), as torch.svd does."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_product

DET = lambda: codes("FLOAT DOUBLE COMPLEX64 COMPLEX128")
CHOLESKY = lambda: codes("FLOAT BF16 FLOAT16") if _products.line() in ("A2", "A3", "950") else ()
CROSS = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 COMPLEX64 COMPLEX128 UINT8", "BF16")
QR = lambda: codes("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128")
COMPLEX = (P.COMPLEX64, P.COMPLEX128)


def _square(name, tensor):
    checks_min_dim(name, tensor, 2)
    m, n = tensor.shape[-2:]
    if m != n:
        raise status.param_invalid("The last two dimensions of %s must be equal, but they are %d by %d matrices."
                                   % (name, m, n))


def checks_min_dim(name, tensor, low):
    """OP_CHECK_MIN_DIM."""
    if tensor.ndim < low:
        raise status.param_invalid("The %s tensor must have at least %d dimensions." % (name, low))


def _complex_outs(a, source, *names):
    for name in names:
        if a.self.dtype in COMPLEX and getattr(a, name).dtype not in COMPLEX:
            raise status.param_invalid("The self's dtype is %s, %s's dtype should also be complex type but got signOut "
                                       "with dtype %s." % (dtypes.serial_name(a.self.dtype), source or name,
                                                           dtypes.serial_name(getattr(a, name).dtype)))


def _batch_shape_is(name, tensor, expected):
    if tuple(tensor.shape) != tuple(expected):
        raise status.param_invalid("expect shape of %s is %s, but got %s."
                                   % (name, checks.shape_text(expected), checks.shape_text(tensor.shape)))


class Slogdet(AclnnOp):
    name = "aclnnSlogdet"
    inputs, outputs = ("self",), ("signOut", "logOut")

    def dtype_table(self):
        return {"self": DET(), "signOut": DET(), "logOut": DET()}

    def check(self, a):
        checks.not_null(a, "self", *self.outputs)
        for name in ("self",) + self.outputs:
            checks.dtype_in(name, getattr(a, name), DET())
        _complex_outs(a, None, *self.outputs)
        _square("self", a.self)
        for name in self.outputs:
            _batch_shape_is(name, getattr(a, name), a.self.shape[:-2])

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        sign, logabs = np.linalg.slogdet(v["self"])
        P.store(v["signOut"], sign)
        P.store(v["logOut"], logabs)


class Logdet(AclnnOp):
    name = "aclnnLogdet"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": DET(), "out": DET()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, DET())
        checks.dtype_in("out", a.out, DET())
        _complex_outs(a, "out", "out")
        _square("self", a.self)
        _batch_shape_is("out", a.out, a.self.shape[:-2])

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        sign, logabs = np.linalg.slogdet(v["self"])
        with np.errstate(all="ignore"):
            if np.iscomplexobj(sign):
                result = np.log(sign) + logabs
            else:
                result = np.where(sign < 0, np.nan, logabs)
        P.store(v["out"], result)


class LinalgCholesky(AclnnOp):
    """nulls → out of self's dtype, self in the list → rank 2..8, out of self's shape → square, last dim ≤ 8192."""
    name = "aclnnLinalgCholesky"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": CHOLESKY(), "out": CHOLESKY()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.dtype_in("self", a.self, CHOLESKY())
        checks.max_dim("self", a.self)
        checks_min_dim("self", a.self, 2)
        checks.same_shape("self", a.self, "out", a.out)
        if a.self.is_empty():
            return
        m, n = a.self.shape[-2:]
        if m != n:
            raise status.param_invalid("self must be batches of square matrices, but they are [%d] by [%d] matrices"
                                       % (m, n))
        if n > 8192:
            raise status.param_invalid("The last dim must be less than or equal to 8192.")

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        x = P.widened(v["self"]).astype(np.float64)
        with np.errstate(all="ignore"):
            try:
                lower = np.linalg.cholesky(x)
            except np.linalg.LinAlgError:   # not positive definite: the device writes NaN, not an error
                lower = np.full(x.shape, np.nan)
        P.store(v["out"], np.swapaxes(lower, -1, -2).conj() if a.upper else lower)


class LinalgCross(AclnnOp):
    """nulls → dtypes (other and out of self's) → ranks → broadcast, out of that shape → dim → size 3 there."""
    name = "aclnnLinalgCross"
    inputs, outputs = ("self", "other"), ("out",)

    def dtype_table(self):
        return {"self": CROSS(), "other": CROSS(), "out": CROSS()}

    def check(self, a):
        checks.not_null(a, "self", "other", "out")
        checks.dtype_in("self", a.self, CROSS())
        checks.dtype_match("self", a.self, a.other.dtype)
        checks.dtype_match("self", a.self, a.out.dtype)
        for name in ("self", "other", "out"):
            checks.max_dim(name, getattr(a, name))
        shape = P.broadcast("self", a.self.shape, "other", a.other.shape)
        if tuple(a.out.shape) != shape:
            raise status.param_invalid("expected consistent tensor shape for the broadcast shape and out, but got %s "
                                       "and %s respectively." % (checks.shape_text(shape),
                                                                 checks.shape_text(a.out.shape)))
        ndim = len(shape)
        if not -ndim <= a.dim < ndim:
            raise status.param_invalid("Dimension out of range(expected to be in range of [%d, %d], but got %d."
                                       % (-ndim, ndim - 1, a.dim))
        a.axis = a.dim % ndim
        if a.out.is_empty():
            return
        if shape[a.axis] != 3:
            raise status.param_invalid("dimension %d does not have size 3." % a.dim)

    def compute(self, a, v, workspace):
        if a.out.is_empty():
            return
        x, y = P.widened(v["self"]), P.widened(v["other"])
        P.store(v["out"], np.cross(x, y, axis=a.axis))


class Qr(AclnnOp):
    """Qr(some): reduced when `some`, complete otherwise; LinalgQr(mode): 0 reduced, 1 complete, 2 R only (Q of
    shape [0]). Null arguments are ACLNN_ERR_INNER_NULLPTR, as the op_api answers."""
    name = "aclnnQr"
    inputs, outputs = ("self",), ("Q", "R")

    def dtype_table(self):
        return {"self": QR(), "Q": QR(), "R": QR()}

    def mode(self, a):
        return "reduced" if a.some else "complete"

    def check(self, a):
        for name in ("self", "Q", "R"):
            if getattr(a, name) is None:
                raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                         "Expected a proper Tensor but got null for argument %s." % name)
        for name in ("self", "Q", "R"):
            checks.dtype_in(name, getattr(a, name), QR())
        checks_min_dim("self", a.self, 2)
        checks.max_dim("self", a.self)
        a.mode = self.mode(a)
        batch, (m, n) = tuple(a.self.shape[:-2]), a.self.shape[-2:]
        k = min(m, n)
        q_shape = {"reduced": batch + (m, k), "complete": batch + (m, m), "r": (0,)}[a.mode]
        r_shape = batch + ((m, n) if a.mode == "complete" else (k, n))
        for name, shape in (("Q", q_shape), ("R", r_shape)):
            if tuple(getattr(a, name).shape) != shape:
                raise status.param_invalid("The output %s should have the following shape %s, but got %s instead."
                                           % (name, checks.shape_text(shape),
                                              checks.shape_text(getattr(a, name).shape)))

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        q, r = np.linalg.qr(P.widened(v["self"]), mode="complete" if a.mode == "complete" else "reduced")
        if a.mode != "r":
            P.store(v["Q"], q)
        P.store(v["R"], r)


class LinalgQr(Qr):
    name = "aclnnLinalgQr"

    def mode(self, a):
        if a.mode not in (0, 1, 2):
            raise status.param_invalid("mode should be 0 (reduced), 1 (complete) or 2 (r), but got %d." % a.mode)
        return ("reduced", "complete", "r")[a.mode]


class Svd(AclnnOp):
    """nulls → dtypes (all of input's) → rank 2..8 → shapes of sigma (and u, v when computeUV)."""
    name = "aclnnSvd"
    inputs, outputs = ("input",), ("sigma", "u", "v")

    def dtype_table(self):
        return {name: DET() for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "input", "sigma", "u", "v")
        for name in ("input", "sigma", "u", "v"):
            checks.dtype_in(name, getattr(a, name), DET())
        for name in ("sigma", "u", "v"):
            checks.same_dtype("input", a.input, name, getattr(a, name))
        if a.input.ndim < 2:
            raise status.param_invalid("Input dim num should be greater than or equal to 2.")
        if a.input.ndim > 8:
            raise status.param_invalid("Input dim num should be less than or equal to 8.")
        batch, (m, n) = tuple(a.input.shape[:-2]), a.input.shape[-2:]
        k = min(m, n)
        full = bool(a.fullMatrices)
        expected = {"sigma": batch + (k,), "u": batch + (m, m if full else k), "v": batch + (n, n if full else k)}
        for name in ("sigma",) + (("u", "v") if a.computeUV else ()):
            if tuple(getattr(a, name).shape) != expected[name]:
                raise status.param_invalid("Shape of output tensor %s is invalid." % name)

    def compute(self, a, v, workspace):
        if a.input.is_empty():
            return
        if not a.computeUV:
            P.store(v["sigma"], np.linalg.svd(v["input"], compute_uv=False))
            return
        u, s, vh = np.linalg.svd(v["input"], full_matrices=bool(a.fullMatrices))
        P.store(v["sigma"], s)
        P.store(v["u"], u)
        P.store(v["v"], np.swapaxes(vh, -1, -2).conj())


class TriangularSolve(AclnnOp):
    """X with op(A)·X = self (A triangular, op transposes when `transpose`), and mOut = A broadcast (a copy)."""
    name = "aclnnTriangularSolve"
    inputs, outputs = ("self", "A"), ("xOut", "mOut")

    def dtype_table(self):
        return {name: DET() for name in self.inputs + self.outputs}

    def check(self, a):
        for name in ("self", "A", "xOut"):
            if getattr(a, name) is None:
                raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                         "Expected a proper Tensor but got null for argument %s." % name)
        for name in ("self", "A", "xOut"):
            checks.dtype_in(name, getattr(a, name), DET())
        checks.same_dtype("self", a.self, "A", a.A)
        checks.same_dtype("self", a.self, "xOut", a.xOut)
        if a.mOut is not None:
            checks.dtype_in("mOut", a.mOut, DET())
            checks.same_dtype("self", a.self, "mOut", a.mOut)
        for name in ("self", "A", "xOut"):
            checks_min_dim(name, getattr(a, name), 2)
        for name in ("self", "A", "xOut"):
            checks.max_dim(name, getattr(a, name))
        (am, an), (bm, bn) = a.A.shape[-2:], a.self.shape[-2:]
        if am != an:
            raise status.param_invalid("A must be batchs of square matrices, but they are %d by %d matrices." % (am, an))
        if bm != am:
            raise status.param_invalid("Incompatible matrix sizes for triangular_solve: each A matrix is %d by %d but "
                                       "each b matrix is %d by %d." % (am, an, bm, bn))
        try:
            a.batch = tuple(np.broadcast_shapes(tuple(a.A.shape[:-2]), tuple(a.self.shape[:-2])))
        except ValueError:
            raise status.param_invalid("Broadcast fail, the size of tensor a must match the size of tensor b at "
                                       "non-singleton diemnsion.") from None
        x_shape = a.batch + (bm, bn)
        checks.shape_is("xOut", a.xOut, x_shape, checks.shape_text(x_shape))
        if a.mOut is not None:
            checks_min_dim("mOut", a.mOut, 2)
            checks.max_dim("mOut", a.mOut)
            m_shape = a.batch + (am, am)
            checks.shape_is("mOut", a.mOut, m_shape, checks.shape_text(m_shape))

    def compute(self, a, v, workspace):
        if a.self.is_empty() or a.A.is_empty():
            return
        import scipy.linalg   # at the first solve: scipy costs every other program its import time
        A = np.broadcast_to(v["A"], a.batch + v["A"].shape[-2:])
        b = np.broadcast_to(v["self"], a.batch + v["self"].shape[-2:])
        x = np.empty(np.broadcast_shapes(A.shape[:-2] + (1, 1), b.shape), np.result_type(A, b))
        for index in np.ndindex(*a.batch):
            with np.errstate(all="ignore"):
                try:
                    x[index] = scipy.linalg.solve_triangular(A[index], b[index], lower=not a.upper,
                                                             trans=1 if a.transpose else 0,
                                                             unit_diagonal=bool(a.unitriangular), check_finite=False)
                except np.linalg.LinAlgError:   # a zero on the diagonal: the device divides by it
                    x[index] = np.nan
        P.store(v["xOut"], x)
        if a.mOut is not None:
            P.store(v["mOut"], A)
