"""The batched LAPACK-like routines of mcBLAS: LU factorization (getrfBatched), inversion from the LU
factors (getriBatched), solving with them (getrsBatched), inversion in one call (matinvBatched), QR
(geqrfBatched) and least squares (gelsBatched). Each matrix of a batch is at the address its device
array of pointers holds.

The arithmetic is LAPACK's own (scipy.linalg.lapack, the LAPACK NumPy's wheels ship): the same
partial pivoting (the first largest magnitude of a column), the same compact Householder form of QR
with its tau scalars, 1-based pivot indices in P. getrfBatched with P NULL factors without pivoting
(Gaussian elimination in column order). Results per matrix: `info` (device array) is 0, or k when
U(k, k) is exactly zero (the factorization still completes, as LAPACK's); getrs, geqrf and gels report
argument errors through a host `info` (0, or -i for the i-th argument), the status being INVALID_VALUE."""
import numpy as np

from opemu.core import device
from opemu.core.mcblas import (N, TRANSPOSES, TYPES, invalid, leading, matrix, nonnegative, not_supported, one_of,
                               pointer_arrays, vector, view)
from opemu.ops.mcblas import family, letters

_PREFIX = {"S": "s", "D": "d", "C": "c", "Z": "z"}


def _lapack(letter, name):
    import scipy.linalg.lapack   # on first use, as level2.solve
    return getattr(scipy.linalg.lapack, _PREFIX[letter] + name)


def _host_int(pointer, value):
    """Stores `value` in the host int at `pointer` (the argument-check result of getrs/geqrf/gels)."""
    if pointer:
        device.ffi.cast("int *", pointer)[0] = value


def _argument(info, position, message):
    """INVALID_VALUE for argument `position` (1-based, the handle first), -position stored in *info first."""
    _host_int(info, -position)
    return invalid(message)


def lu_without_pivoting(a):
    """The LU factors of a (in one array, L's unit diagonal implicit) and the 1-based index of the first
    zero pivot (0: none), by elimination in column order."""
    lu = np.array(a)
    first_zero = 0
    for k in range(len(lu)):
        pivot = lu[k, k]
        if pivot == 0:
            first_zero = first_zero or k + 1
            continue
        lu[k + 1:, k] /= pivot
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, first_zero


@family(letters("mcblas%sgetrfBatched"))
def getrf_batched(letter, c):
    """A[i] = P*L*U in place, P[i*n ...] the 1-based pivot rows (P NULL: no pivoting), info[i] the first
    zero on U's diagonal."""
    t = TYPES[letter]
    nonnegative(n=c.n, batchSize=c.batchSize)
    leading("lda", c.lda, c.n)
    if c.batchSize == 0:
        return None
    pivoting = bool(c.P)
    ga = matrix(None, c.n, c.n, c.lda, t)[1]
    pivots = vector(c.P, c.n * c.batchSize, 1, np.int32)
    infos = vector(c.info, c.batchSize, 1, np.int32)

    def run():
        info = view(infos, "w")
        p = view(pivots, "w") if pivoting and c.n else None
        for i, (pa,) in enumerate(pointer_arrays(c.batchSize, c.A)):
            if c.n == 0:
                info[i] = 0
                continue
            a = view((pa, ga), "rw")
            if pivoting:
                lu, piv, status = _lapack(letter, "getrf")(a)
                p[i * c.n:(i + 1) * c.n] = piv[:c.n] + 1
                info[i] = status
            else:
                lu, info[i] = lu_without_pivoting(a)
            a[...] = lu
    return run


def _inverse(letter, lu, pivots):
    """inv(A) from its LU factors and 0-based pivots, or None when U is singular."""
    inverse, status = _lapack(letter, "getri")(lu, pivots)
    return inverse if status == 0 else None


def _first_zero_pivot(lu):
    zeros = np.flatnonzero(np.diagonal(lu) == 0)
    return int(zeros[0]) + 1 if len(zeros) else 0


@family(letters("mcblas%sgetriBatched"))
def getri_batched(letter, c):
    """C[i] = inv(A[i]) from getrfBatched's factors and pivots (P NULL: factored without pivoting); info[i]
    = k when U(k, k) is zero (C[i] is then left as it was)."""
    t = TYPES[letter]
    nonnegative(n=c.n, batchSize=c.batchSize)
    leading("lda", c.lda, c.n)
    leading("ldc", c.ldc, c.n)
    if c.batchSize == 0:
        return None
    ga, gc = matrix(None, c.n, c.n, c.lda, t)[1], matrix(None, c.n, c.n, c.ldc, t)[1]
    pivots = vector(c.P, c.n * c.batchSize, 1, np.int32)
    infos = vector(c.info, c.batchSize, 1, np.int32)

    def run():
        info = view(infos, "w")
        p = view(pivots) if c.P and c.n else None
        for i, (pa, pc) in enumerate(pointer_arrays(c.batchSize, c.A, c.C)):
            if c.n == 0:
                info[i] = 0
                continue
            lu = np.array(view((pa, ga)))
            info[i] = _first_zero_pivot(lu)
            if info[i]:
                continue
            piv = p[i * c.n:(i + 1) * c.n] - 1 if p is not None else np.arange(c.n, dtype=np.int32)
            view((pc, gc), "w")[...] = _inverse(letter, lu, piv)
    return run


@family(letters("mcblas%sgetrsBatched"))
def getrs_batched(letter, c):
    """Solves op(A[i]) X = B[i] in place of B[i] from getrfBatched's factors (devIpiv NULL: no pivoting)."""
    t = TYPES[letter]
    if c.trans not in TRANSPOSES:
        raise _argument(c.info, 2, "trans = %d is not a valid value" % c.trans)
    for position, name, value, least in ((3, "n", c.n, 0), (4, "nrhs", c.nrhs, 0), (6, "lda", c.lda, max(1, c.n)),
                                         (9, "ldb", c.ldb, max(1, c.n)), (11, "batchSize", c.batchSize, 0)):
        if value < least:
            raise _argument(c.info, position, "%s = %d must be at least %d" % (name, value, least))
    _host_int(c.info, 0)
    if c.n == 0 or c.nrhs == 0 or c.batchSize == 0:
        return None
    ga, gb = matrix(None, c.n, c.n, c.lda, t)[1], matrix(None, c.n, c.nrhs, c.ldb, t)[1]
    pivots = vector(c.devIpiv, c.n * c.batchSize, 1, np.int32)

    def run():
        p = view(pivots) if c.devIpiv else None
        for i, (pa, pb) in enumerate(pointer_arrays(c.batchSize, c.Aarray, c.Barray)):
            piv = p[i * c.n:(i + 1) * c.n] - 1 if p is not None else np.arange(c.n, dtype=np.int32)
            b = view((pb, gb), "rw")
            with np.errstate(all="ignore"):
                solution, _ = _lapack(letter, "getrs")(np.array(view((pa, ga))), piv, b, trans=c.trans)
            b[...] = solution
    return run


MATINV_MAX_N = 32


@family(letters("mcblas%smatinvBatched"))
def matinv_batched(letter, c):
    """Ainv[i] = inv(A[i]) for n <= 32, by LU with partial pivoting; info[i] = k when A[i] is singular
    (U(k, k) = 0; Ainv[i] is then left as it was)."""
    t = TYPES[letter]
    nonnegative(n=c.n, batchSize=c.batchSize)
    if c.n > MATINV_MAX_N:
        raise invalid("n = %d: matinvBatched takes n <= %d" % (c.n, MATINV_MAX_N))
    leading("lda", c.lda, c.n)
    leading("lda_inv", c.lda_inv, c.n)
    if c.batchSize == 0:
        return None
    ga, gi = matrix(None, c.n, c.n, c.lda, t)[1], matrix(None, c.n, c.n, c.lda_inv, t)[1]
    infos = vector(c.info, c.batchSize, 1, np.int32)

    def run():
        info = view(infos, "w")
        for i, (pa, pi) in enumerate(pointer_arrays(c.batchSize, c.A, c.Ainv)):
            if c.n == 0:
                info[i] = 0
                continue
            lu, piv, status = _lapack(letter, "getrf")(np.array(view((pa, ga))))
            info[i] = status
            if status == 0:
                view((pi, gi), "w")[...] = _inverse(letter, lu, piv)
    return run


@family(letters("mcblas%sgeqrfBatched"))
def geqrf_batched(letter, c):
    """A[i] = Q*R in place (R above the diagonal, the Householder vectors below), Tau[i] the min(m, n)
    scalars of the reflectors."""
    t = TYPES[letter]
    for position, name, value, least in ((2, "m", c.m, 0), (3, "n", c.n, 0), (5, "lda", c.lda, max(1, c.m)),
                                         (8, "batchSize", c.batchSize, 0)):
        if value < least:
            raise _argument(c.info, position, "%s = %d must be at least %d" % (name, value, least))
    _host_int(c.info, 0)
    if c.m == 0 or c.n == 0 or c.batchSize == 0:
        return None
    ga, gt = matrix(None, c.m, c.n, c.lda, t)[1], vector(None, min(c.m, c.n), 1, t)[1]

    def run():
        for pa, pt in pointer_arrays(c.batchSize, c.Aarray, c.TauArray):
            a = view((pa, ga), "rw")
            qr, tau, _, _ = _lapack(letter, "geqrf")(np.array(a))
            a[...] = qr
            view((pt, gt), "w")[...] = tau
    return run


@family(letters("mcblas%sgelsBatched"))
def gels_batched(letter, c):
    """The least-squares solution of A[i] X = C[i] (m >= n, A of full rank, trans N only): X in the first
    n rows of C[i], A[i] overwritten by its QR factors; devInfoArray[i] = j when R(j, j) is zero."""
    t = TYPES[letter]
    if c.trans not in TRANSPOSES:
        raise _argument(c.info, 2, "trans = %d is not a valid value" % c.trans)
    for position, name, value, least in ((3, "m", c.m, 0), (4, "n", c.n, 0), (5, "nrhs", c.nrhs, 0),
                                         (7, "lda", c.lda, max(1, c.m)), (9, "ldc", c.ldc, max(1, c.m)),
                                         (12, "batchSize", c.batchSize, 0)):
        if value < least:
            raise _argument(c.info, position, "%s = %d must be at least %d" % (name, value, least))
    if c.trans != N or c.m < c.n:
        _host_int(c.info, 0)
        raise not_supported("only trans = MCBLAS_OP_N with m >= n is supported (trans %d, m %d, n %d)"
                            % (c.trans, c.m, c.n))
    _host_int(c.info, 0)
    if c.batchSize == 0:
        return None
    ga, gc = matrix(None, c.m, c.n, c.lda, t)[1], matrix(None, c.m, c.nrhs, c.ldc, t)[1]
    infos = vector(c.devInfoArray, c.batchSize, 1, np.int32)

    def run():
        info = view(infos, "w") if c.devInfoArray else np.zeros(c.batchSize, np.int32)
        for i, (pa, pc) in enumerate(pointer_arrays(c.batchSize, c.Aarray, c.Carray)):
            if c.m == 0 or c.n == 0 or c.nrhs == 0:
                info[i] = 0
                continue
            a, rhs = view((pa, ga), "rw"), view((pc, gc), "rw")
            qr, solution, status = _lapack(letter, "gels")(np.array(a), np.array(rhs))
            info[i] = status
            if status == 0:
                a[...] = qr
                rhs[...] = solution
    return run
