"""Level-2 BLAS on banded and packed storage: gbmv, sbmv/hbmv, tbmv/tbsv (band matrices), spmv/hpmv,
spr/spr2/hpr/hpr2, tpmv/tpsv (packed triangles), and the tpttr/trttp conversions.

Storage is BLAS's, column-major. A band matrix with kl sub- and ku super-diagonals keeps A(i, j) in row
ku + i - j of column j of its lda x n array (a symmetric or triangular band with k diagonals: upper
A(i, j) in row k + i - j, lower in row i - j). A packed triangle keeps its columns one after the
other: upper A(i, j), i <= j, at i + j(j+1)/2; lower A(i, j), i >= j, at i + j(2n-j-1)/2. The routines
unpack the matrix they describe and run the dense routine's arithmetic on it (elements outside the
band or triangle are neither read nor written). Checks in cuBLAS's order: enums, sizes >= 0, the
leading dimension against the band's height, then the increments."""
import numpy as np

from opemu.core.mcblas import (DIAGS, FILLS, LOWER, N, TRANSPOSES, TYPES, Scalar, blend, blended, invalid, leading,
                               matrix, nonnegative, nonzero_increment, one_of, op, vector, view)
from opemu.ops.mcblas import family, letters
from opemu.ops.mcblas.level2 import full_from_triangle, rank_update_product, solve, triangle


def _band_positions(rows, cols, lower, upper):
    """(band row, column, i) of every element of a rows x cols band: A(i, j) sits at band row upper + i - j."""
    j = np.repeat(np.arange(cols), lower + upper + 1)
    i = j + np.tile(np.arange(-upper, lower + 1), cols)
    keep = (i >= 0) & (i < rows)
    return upper + i[keep] - j[keep], j[keep], i[keep]


def band_to_dense(band, rows, cols, lower, upper):
    positions = _band_positions(rows, cols, lower, upper)
    dense = np.zeros((rows, cols), band.dtype)
    dense[positions[2], positions[1]] = band[positions[0], positions[1]]
    return dense


def _packed_positions(n, uplo):
    """(packed index, i, j) of every element of the stored triangle."""
    i, j = np.tril_indices(n) if uplo == LOWER else np.triu_indices(n)
    if uplo == LOWER:
        index = i + j * (2 * n - j - 1) // 2
    else:
        index = i + j * (j + 1) // 2
    return index, i, j


def packed_to_dense(packed, n, uplo):
    index, i, j = _packed_positions(n, uplo)
    dense = np.zeros((n, n), packed.dtype)
    dense[i, j] = packed[index]
    return dense


def _band_triangle(band, n, k, uplo):
    """The n x n triangle (with its diagonal) a symmetric or triangular band of k diagonals stores."""
    return band_to_dense(band, n, n, k, 0) if uplo == LOWER else band_to_dense(band, n, n, 0, k)


def _mv(c, t, rows, cols, geometry_a, dense):
    """y = alpha*dense(A)*x + beta*y, A described by geometry_a and unpacked by dense()."""
    alpha, beta = Scalar(c, "alpha", c.alpha, t), Scalar(c, "beta", c.beta, t)
    if rows == 0 or cols == 0:
        return None
    x, y = vector(c.x, cols, c.incx, t), vector(c.y, rows, c.incy, t)

    def run():
        av, bv = alpha.value(), beta.value()
        blend(view(y, blended(bv)), dense(view(geometry_a)) @ view(x), av, bv)
    return run


@family({"mcblas%sgbmv" % letter: letter for letter in "SDCZ"})
def gbmv(letter, c):
    """y = alpha*op(A)*x + beta*y, A an m x n band with kl sub- and ku super-diagonals."""
    t = TYPES[letter]
    one_of("trans", c.trans, TRANSPOSES)
    nonnegative(m=c.m, n=c.n, kl=c.kl, ku=c.ku)
    if c.lda < c.kl + c.ku + 1:
        raise invalid("lda = %d must be at least kl + ku + 1 = %d" % (c.lda, c.kl + c.ku + 1))
    nonzero_increment(incx=c.incx, incy=c.incy)
    rows, cols = (c.m, c.n) if c.trans == N else (c.n, c.m)
    a = matrix(c.A, c.kl + c.ku + 1, c.n, c.lda, t)
    return _mv(c, t, rows, cols, a, lambda band: op(band_to_dense(band, c.m, c.n, c.kl, c.ku), c.trans))


def _symmetric_check(c, band):
    one_of("uplo", c.uplo, FILLS)
    nonnegative(n=c.n, **({"k": c.k} if band else {}))
    if band and c.lda < c.k + 1:
        raise invalid("lda = %d must be at least k + 1 = %d" % (c.lda, c.k + 1))
    nonzero_increment(incx=c.incx, incy=c.incy)


@family({**letters("mcblas%ssbmv", "SD"), "mcblasChbmv": "Ch", "mcblasZhbmv": "Zh"})
def sbmv(letter, c):
    """y = alpha*A*x + beta*y, A n x n symmetric (hbmv: Hermitian) with k diagonals on each side, one
    triangle's band stored."""
    t = TYPES[letter[0]]
    _symmetric_check(c, band=True)
    a = matrix(c.A, c.k + 1, c.n, c.lda, t)
    return _mv(c, t, c.n, c.n, a, lambda band: full_from_triangle(_band_triangle(band, c.n, c.k, c.uplo), c.uplo,
                                                                    hermitian=letter.endswith("h")))


@family({**letters("mcblas%sspmv", "SD"), "mcblasChpmv": "Ch", "mcblasZhpmv": "Zh"})
def spmv(letter, c):
    """y = alpha*A*x + beta*y, A n x n symmetric (hpmv: Hermitian), one triangle packed in AP."""
    t = TYPES[letter[0]]
    _symmetric_check(c, band=False)
    ap = vector(c.AP, c.n * (c.n + 1) // 2, 1, t)
    return _mv(c, t, c.n, c.n, ap, lambda packed: full_from_triangle(packed_to_dense(packed, c.n, c.uplo), c.uplo,
                                                                       hermitian=letter.endswith("h")))


PACKED_UPDATES = {}
for _l in "SD":
    PACKED_UPDATES.update({"mcblas%sspr" % _l: (_l, False, False), "mcblas%sspr2" % _l: (_l, True, False)})
for _l in "CZ":
    PACKED_UPDATES.update({"mcblas%shpr" % _l: (_l, False, True), "mcblas%shpr2" % _l: (_l, True, True)})


@family({name: name for name in PACKED_UPDATES})
def packed_update(name, c):
    """The packed triangle += alpha*x*x^T (spr), alpha*(x*y^T + y*x^T) (spr2), alpha*x*x^H with real alpha
    (hpr) or alpha*x*y^H + conj(alpha)*y*x^H (hpr2); a Hermitian update leaves a real diagonal."""
    letter, two, hermitian = PACKED_UPDATES[name]
    t = TYPES[letter]
    one_of("uplo", c.uplo, FILLS)
    nonnegative(n=c.n)
    nonzero_increment(incx=c.incx, **({"incy": c.incy} if two else {}))
    real = TYPES["S" if letter in "SC" else "D"]
    alpha = Scalar(c, "alpha", c.alpha, real if hermitian and not two else t)
    if c.n == 0:
        return None
    ap, x = vector(c.AP, c.n * (c.n + 1) // 2, 1, t), vector(c.x, c.n, c.incx, t)
    y = vector(c.y, c.n, c.incy, t) if two else x

    def run():
        update = rank_update_product(view(x), view(y), alpha.value(), two, hermitian)
        index, i, j = _packed_positions(c.n, c.uplo)
        packed = view(ap, "rw")
        packed[index] += update[i, j].astype(t)
        if hermitian:
            diagonal = index[i == j]
            packed[diagonal] = packed[diagonal].real
    return run


def _triangular_check(c, band):
    one_of("uplo", c.uplo, FILLS)
    one_of("trans", c.trans, TRANSPOSES)
    one_of("diag", c.diag, DIAGS)
    nonnegative(n=c.n, **({"k": c.k} if band else {}))
    if band and c.lda < c.k + 1:
        raise invalid("lda = %d must be at least k + 1 = %d" % (c.lda, c.k + 1))
    nonzero_increment(incx=c.incx)


@family({"mcblas%st%s%s" % (_l, _storage, _which): (_l, _storage, _which)
         for _l in "SDCZ" for _storage in "bp" for _which in ("mv", "sv")})
def triangular_stored(kind, c):
    """tbmv/tpmv: x = op(A)*x; tbsv/tpsv: solves op(A)*x = b, b given in x (no singularity test, as BLAS).
    A is n x n triangular, a band of k diagonals (tb*) or packed (tp*)."""
    letter, storage, which = kind
    t = TYPES[letter]
    _triangular_check(c, band=storage == "b")
    if c.n == 0:
        return None
    if storage == "b":
        a = matrix(c.A, c.k + 1, c.n, c.lda, t)

        def dense(stored):
            return _band_triangle(stored, c.n, c.k, c.uplo)
    else:
        a = vector(c.AP, c.n * (c.n + 1) // 2, 1, t)

        def dense(stored):
            return packed_to_dense(stored, c.n, c.uplo)
    x = vector(c.x, c.n, c.incx, t)

    def run():
        xv = view(x, "rw")
        full = dense(view(a))
        if which == "mv":
            xv[...] = op(triangle(full, c.uplo, c.diag), c.trans) @ xv
        else:
            xv[...] = solve(full, xv, c.uplo, c.trans, c.diag)
    return run


@family({**{"mcblas%stpttr" % _l: (_l, "tpttr") for _l in "SDCZ"},
         **{"mcblas%strttp" % _l: (_l, "trttp") for _l in "SDCZ"}})
def pack_conversion(kind, c):
    """tpttr: the packed triangle AP into the uplo triangle of A (lda); trttp: the reverse. The other
    triangle of A is not touched."""
    letter, direction = kind
    t = TYPES[letter]
    one_of("uplo", c.uplo, FILLS)
    nonnegative(n=c.n)
    leading("lda", c.lda, c.n)
    if c.n == 0:
        return None
    a, ap = matrix(c.A, c.n, c.n, c.lda, t), vector(c.AP, c.n * (c.n + 1) // 2, 1, t)

    def run():
        index, i, j = _packed_positions(c.n, c.uplo)
        if direction == "tpttr":
            view(a, "w")[i, j] = view(ap)[index]
        else:
            view(ap, "w")[index] = view(a)[i, j]
    return run
