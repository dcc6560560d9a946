"""Level-2 BLAS: matrix-vector routines (gemv, ger/geru/gerc, symv/hemv, trmv, trsv). Checks in
cuBLAS's order: enums, sizes >= 0, the leading dimension, then increments (level 2 rejects 0)."""
import numpy as np

from opemu.core.mcblas import (DIAGS, FILLS, LOWER, N, T, TRANSPOSES, TYPES, UNIT, Scalar, batch_of, blend, blended,
                               leading, matrix, nonnegative, nonzero_increment, one_of, op, pointer_arrays, vector,
                               view)
from opemu.ops.mcblas import family, letters


def _gemv_check(c):
    one_of("trans", c.trans, TRANSPOSES)
    nonnegative(m=c.m, n=c.n)
    leading("lda", c.lda, c.m)
    nonzero_increment(incx=c.incx, incy=c.incy)


def gemv_into(yv, av, xv, trans, alpha, beta):
    """y = alpha*op(A)*x + beta*y on views (one or a batch: A (b, m, n), x and y (b, len))."""
    product = np.matmul(op(av, trans), xv[..., None])[..., 0]
    blend(yv, product, alpha, beta)


GEMVS = {}
for _layout, _suffix in (("single", ""), ("strided", "StridedBatched"), ("batched", "Batched")):
    GEMVS.update({"mcblas%sgemv%s" % (_l, _suffix): (_l, _layout) for _l in "SDCZ"})


@family({name: name for name in GEMVS})
def gemv(name, c):
    """y = alpha*op(A)*x + beta*y, A m x n: once, or batchCount times with operands `stride` elements
    apart ("strided") or at the addresses of device pointer arrays ("batched")."""
    letter, layout = GEMVS[name]
    t = TYPES[letter]
    one_of("trans", c.trans, TRANSPOSES)
    nonnegative(m=c.m, n=c.n)
    leading("lda", c.lda, c.m)
    nonzero_increment(incx=c.incx, incy=c.incy)
    batch = 1 if layout == "single" else c.batchCount
    nonnegative(batchCount=batch)
    alpha, beta = Scalar(c, "alpha", c.alpha, t), Scalar(c, "beta", c.beta, t)
    if c.m == 0 or c.n == 0 or batch == 0:
        return None
    rows, cols = (c.m, c.n) if c.trans == N else (c.n, c.m)
    ga, gx, gy = (matrix(None, c.m, c.n, c.lda, t)[1], vector(None, cols, c.incx, t)[1],
                  vector(None, rows, c.incy, t)[1])
    if layout == "strided":
        ga, gx, gy = (batch_of(None, g, batch, stride)[1] for g, stride in ((ga, c.strideA), (gx, c.stridex),
                                                                              (gy, c.stridey)))

    def addresses():
        if layout == "batched":
            return pointer_arrays(batch, c.yarray, c.Aarray, c.xarray)
        return [(c.y, c.A, c.x)]

    def run():
        av, bv = alpha.value(), beta.value()
        for py, pa, px in addresses():
            yv = view((py, gy), blended(bv))
            blend(yv, np.matmul(op(view((pa, ga)), c.trans), view((px, gx))[..., None])[..., 0], av, bv)
    return run


@family({"mcblasSger": "S", "mcblasDger": "D", "mcblasCgeru": "C", "mcblasZgeru": "Z",
         "mcblasCgerc": "Cc", "mcblasZgerc": "Zc"})
def ger(letter, c):
    """A += alpha*x*y^T (gerc: y^H), A m x n."""
    t = TYPES[letter[0]]
    nonnegative(m=c.m, n=c.n)
    nonzero_increment(incx=c.incx, incy=c.incy)
    leading("lda", c.lda, c.m)
    alpha = Scalar(c, "alpha", c.alpha, t)
    if c.m == 0 or c.n == 0:
        return None
    a = matrix(c.A, c.m, c.n, c.lda, t)
    x, y = vector(c.x, c.m, c.incx, t), vector(c.y, c.n, c.incy, t)

    def run():
        yv = view(y)
        av = view(a, "rw")
        av += np.outer(alpha.value() * view(x), np.conj(yv) if letter.endswith("c") else yv)
    return run


RANK_UPDATES = {}
for _l in "SDCZ":
    RANK_UPDATES.update({"mcblas%ssyr" % _l: (_l, False, False), "mcblas%ssyr2" % _l: (_l, True, False)})
for _l in "CZ":
    RANK_UPDATES.update({"mcblas%sher" % _l: (_l, False, True), "mcblas%sher2" % _l: (_l, True, True)})


@family({name: name for name in RANK_UPDATES})
def rank_update(name, c):
    """A's uplo triangle += alpha*x*x^T (syr), alpha*(x*y^T + y*x^T) (syr2), alpha*x*x^H with real
    alpha (her) or alpha*x*y^H + conj(alpha)*y*x^H (her2); the other triangle is not touched."""
    letter, two, hermitian = RANK_UPDATES[name]
    t = TYPES[letter]
    one_of("uplo", c.uplo, FILLS)
    nonnegative(n=c.n)
    nonzero_increment(incx=c.incx, **({"incy": c.incy} if two else {}))
    leading("lda", c.lda, c.n)
    real = TYPES["S" if letter == "C" else "D"]
    alpha = Scalar(c, "alpha", c.alpha, real if hermitian and not two else t)
    if c.n == 0:
        return None
    a, x = matrix(c.A, c.n, c.n, c.lda, t), vector(c.x, c.n, c.incx, t)
    y = vector(c.y, c.n, c.incy, t) if two else x

    def run():
        update = rank_update_product(view(x), view(y), alpha.value(), two, hermitian)
        av = view(a, "rw")
        mask = np.tri(c.n, dtype=bool) if c.uplo == LOWER else np.tri(c.n, dtype=bool).T
        av[mask] += update[mask].astype(t)
        if hermitian:
            diagonal = np.arange(c.n)
            av[diagonal, diagonal] = av[diagonal, diagonal].real
    return run


def rank_update_product(x, y, alpha, two, hermitian):
    """alpha*x*y^T, plus alpha*y*x^T for the rank-2 updates; y (and x, and the second alpha) conjugated for the
    Hermitian ones."""
    h = np.conj if hermitian else (lambda v: v)
    update = np.outer(alpha * x, h(y))
    if two:
        update = update + np.outer((np.conj(alpha) if hermitian else alpha) * y, h(x))
    return update


def full_from_triangle(a, uplo, hermitian=False):
    """The symmetric (Hermitian) matrix whose uplo triangle is stored in a; the other one is not read."""
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    strict = np.tril(a, -1) if uplo == LOWER else np.triu(a, 1)
    other = strict.T.conj() if hermitian else strict.T
    if hermitian:
        tri = tri.copy()
        np.fill_diagonal(tri, tri.diagonal().real)
    return tri + other


@family({**letters("mcblas%ssymv"), "mcblasChemv": "Ch", "mcblasZhemv": "Zh"})
def symv(letter, c):
    """y = alpha*A*x + beta*y with A n x n symmetric (hemv: Hermitian), one triangle stored."""
    t = TYPES[letter[0]]
    one_of("uplo", c.uplo, FILLS)
    nonnegative(n=c.n)
    leading("lda", c.lda, c.n)
    nonzero_increment(incx=c.incx, incy=c.incy)
    alpha, beta = Scalar(c, "alpha", c.alpha, t), Scalar(c, "beta", c.beta, t)
    if c.n == 0:
        return None
    a = matrix(c.A, c.n, c.n, c.lda, t)
    x, y = vector(c.x, c.n, c.incx, t), vector(c.y, c.n, c.incy, t)

    def run():
        full = full_from_triangle(view(a), c.uplo, hermitian=letter.endswith("h"))
        av, bv = alpha.value(), beta.value()
        blend(view(y, blended(bv)), full @ view(x), av, bv)
    return run


def triangle(a, uplo, diag):
    """The triangular matrix stored in a's uplo triangle (unit diagonal: 1s, a's diagonal not read)."""
    tri = np.tril(a) if uplo == LOWER else np.triu(a)
    if diag == UNIT:
        np.fill_diagonal(tri, 1)
    return tri


def _triangular_check(c):
    one_of("uplo", c.uplo, FILLS)
    one_of("trans", c.trans, TRANSPOSES)
    one_of("diag", c.diag, DIAGS)
    nonnegative(n=c.n)
    leading("lda", c.lda, c.n)
    nonzero_increment(incx=c.incx)


@family({"mcblas%str%s" % (_l, _which): (_l, _which) for _l in "SDCZ" for _which in ("mv", "sv")})
def triangular(kind, c):
    """trmv: x = op(A)*x; trsv: solves op(A)*x = b for x, b given in x (no singularity test, as
    BLAS). A is n x n triangular."""
    letter, which = kind
    t = TYPES[letter]
    _triangular_check(c)
    if c.n == 0:
        return None
    a, x = matrix(c.A, c.n, c.n, c.lda, t), vector(c.x, c.n, c.incx, t)

    def run():
        xv = view(x, "rw")
        if which == "mv":
            xv[...] = op(triangle(view(a), c.uplo, c.diag), c.trans) @ xv
        else:
            xv[...] = solve(view(a), xv, c.uplo, c.trans, c.diag)
    return run


def solve(a, b, uplo, trans, diag):
    """op(T)^-1 b for the triangle T stored in a (b a vector or a matrix of columns). cuBLAS does not test
    for singularity: a zero on the diagonal divides by zero (inf, NaN), which LAPACK's solver refuses, so
    that case is plain substitution."""
    import scipy.linalg   # on first use: importing it costs a process's first call ~170 ms
    t = triangle(a, uplo, diag)
    with np.errstate(all="ignore"):
        try:
            return scipy.linalg.solve_triangular(t, b, trans=trans,  # N/T/C = 0/1/2 in both
                                                 lower=uplo == LOWER, check_finite=False)
        except np.linalg.LinAlgError:
            op = t if trans == N else t.T if trans == T else t.T.conj()
            return _substitute(op, b, lower=(uplo == LOWER) == (trans == N))


def _substitute(t, b, lower):
    """x with t x = b for a lower or upper triangular t, row after row."""
    x = np.array(b, dtype=np.result_type(t, b))
    rows = range(len(t)) if lower else range(len(t) - 1, -1, -1)
    for i in rows:
        done = slice(0, i) if lower else slice(i + 1, len(t))
        x[i] = (x[i] - t[i, done] @ x[done]) / t[i, i]
    return x
