"""Complex GEMM by the 3M (Gauss) method: cgemm3m / zgemm3m and their batched, strided and Ex forms.

With op(A) = Ar + i Ai and op(B) = Br + i Bi, the product takes three real GEMMs instead of four:
T1 = Ar Br, T2 = Ai Bi, T3 = (Ar + Ai)(Br + Bi); real part T1 - T2, imaginary part T3 - T1 - T2,
each in the real compute type. The sums round differently from the four-product form (the imaginary
part loses accuracy where T3 is much larger than the result), which is what the method trades for speed;
the checks and scalars are gemm's."""
import numpy as np

from opemu.ops.mcblas import family
from opemu.ops.mcblas.level3 import TYPED, _gemm, _math_inputs, _operand, blend, gemm_typed_ex


def gemm3m_into(cv, av, bv, transa, transb, alpha, beta, precision):
    x, y = _operand(av, transa, precision), _operand(bv, transb, precision)
    t1 = x.real @ y.real
    t2 = x.imag @ y.imag
    t3 = (x.real + x.imag) @ (y.real + y.imag)
    product = np.empty(t1.shape, precision.compute)
    product.real = t1 - t2
    product.imag = t3 - t1 - t2
    blend(cv, product, alpha, beta)


GEMM3MS = {"mcblasCgemm3m": ("C", "single"), "mcblasZgemm3m": ("Z", "single"),
           "mcblasCgemm3mBatched": ("C", "batched"), "mcblasCgemm3mStridedBatched": ("C", "strided")}


@family({name: name for name in GEMM3MS})
def gemm3m(name, c):
    letter, layout = GEMM3MS[name]
    return _gemm(c, _math_inputs(c, TYPED[letter]), layout, into=gemm3m_into)


@family({"mcblasCgemm3mEx": "C"})
def gemm3m_ex(letter, c):
    """Cgemm3mEx: CgemmEx's type table, the product by the 3M method."""
    return gemm_typed_ex(letter, c, into=gemm3m_into)
