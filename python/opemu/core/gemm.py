"""out = a @ b or out += a @ b in fp32, the sum accumulated by BLAS itself (beta = 1).

NumPy's matmul can only overwrite its output, so accumulating a sum of products over chunks would
need a partial-product buffer the size of the output and one more pass over it per chunk.
SciPy's sgemm wrapper takes beta, and with C-contiguous operands handed over as their
Fortran-contiguous transposes nothing is copied. SciPy links its own OpenBLAS, whose worker
threads spin for a while after each call: a loop that alternated NumPy's and SciPy's GEMMs would
have two thread pools fighting over the cores, so a kernel that uses this module does every one
of its GEMMs here."""
import numpy as np


def _column_major(m):
    """(array, trans) such that op(array) == m.T, with array Fortran-contiguous."""
    if m.flags.c_contiguous:
        return m.T, 0
    if m.flags.f_contiguous:
        return m, 1
    return np.ascontiguousarray(m).T, 0


def product(out, a, b, accumulate=False):
    """out = a @ b, or out += a @ b, for fp32 matrices; `out` must be C-contiguous."""
    from scipy.linalg.blas import sgemm  # imported on first use: only the chunked kernels need it
    # column-major BLAS sees out.T, so out.T (+)= b.T @ a.T
    b_t, trans_b = _column_major(b)
    a_t, trans_a = _column_major(a)
    result = sgemm(1.0, b_t, a_t, beta=1.0 if accumulate else 0.0, c=out.T, trans_a=trans_b, trans_b=trans_a,
                   overwrite_c=True)
    if not np.shares_memory(result, out):  # the wrapper had to copy: put the sum where it belongs
        out[...] = result.T
