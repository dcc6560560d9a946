"""The exp the C kernels and their NumPy references share, written out in plain operations.

NumPy's exp is its own SIMD code and libm's is another, and neither can be repeated bit for bit from
the other side; so the kernels that need an exp (csrc/kernels/exp.h: softmax backward's log mode, the
vocab-parallel cross-entropy epilogues) and their NumPy references both compute this one, operation by
operation in the same order, each rounded in the array's type (float32 or float64):

    t = x clamped to [LO, HI], NaN -> LO
    k = (t * log2(e) + 1.5 * 2**mantissa_bits) - 1.5 * 2**mantissa_bits     (t / ln 2 rounded to an integer)
    r = (t - k * ln2_hi) - k * ln2_lo       (ln2_hi has few bits, so k * ln2_hi is exact)
    p = Horner's e^r on the Taylor coefficients 1/i!, degree 7 (float32) or 13 (float64)
    e = (p * 2**(k >> 1)) * 2**(k - (k >> 1))   (the first product is exact: a subnormal rounds once)
    NaN where x is NaN

|r| <= ln2/2, where the Taylor tail is below a tenth of a unit in the last place; measured against
float64/long double exp it is within 2 ulp (tests/test_kernels_exp.py). The device's exp is an
approximation as well (CUDA's __expf is 2 ulp), so the oracle tests' tolerance is what decides."""
import numpy as np


class _Constants:
    def __init__(self, dtype, bits, mantissa, bias, lo, hi, log2e, ln2_hi, ln2_lo, degree):
        self.dtype, self.bits, self.mantissa, self.bias = np.dtype(dtype), bits, mantissa, bias
        t = self.dtype.type
        self.lo, self.hi, self.log2e, self.ln2_hi, self.ln2_lo = t(lo), t(hi), t(log2e), t(ln2_hi), t(ln2_lo)
        self.round = t(1.5 * 2.0 ** mantissa)
        # 1/i! rounded to the type, as the C initialisers (1.0f / 720: the division in the type)
        self.taylor = [t(1)] + [t(1) / t(np.prod(np.arange(1, i + 1, dtype=np.float64))) for i in range(1, degree + 1)]


CONSTANTS = {
    np.dtype(np.float32): _Constants(np.float32, np.uint32, 23, 127, -104.0, 89.0, 1.44269504, 0.693145751953125,
                                     1.428606765330187e-06, 7),
    np.dtype(np.float64): _Constants(np.float64, np.uint64, 52, 1023, -746.0, 710.0, 1.4426950408889634,
                                     0.6931471803691238, 1.9082149292705877e-10, 13),
}


def exp(x):
    """The exp above of a float32 or float64 array, as a new array."""
    c = CONSTANTS[x.dtype]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        t = np.fmax(x, c.lo)     # NaN too goes to LO (the kernel's x > LO ? x : LO)
        np.fmin(t, c.hi, out=t)
        k = t * c.log2e
        k += c.round
        k -= c.round
        r = t - k * c.ln2_hi
        r -= k * c.ln2_lo
        p = np.full_like(t, c.taylor[-1])
        for coefficient in reversed(c.taylor[:-1]):
            p *= r
            p += coefficient
        whole = k.astype(np.int32)
        half = np.right_shift(whole, 1)
        low = ((half + c.bias).astype(c.bits) << c.bits(c.mantissa)).view(c.dtype)
        high = ((whole - half + c.bias).astype(c.bits) << c.bits(c.mantissa)).view(c.dtype)
        p *= low
        p *= high
        nan = np.isnan(x)
        p[nan] = x[nan]
    return p
