"""mcblasLtMatmul: D = epilogue(alpha * op(A) op(B) + beta * C), in batches, with cuBLASLt's epilogues.

Where it rounds: inputs widen exactly to the compute type (the FAST compute types first round them as
tensor cores do), the product accumulates in it, alpha and beta apply in it, the epilogue runs in it
(bias in the compute type, ReLU, GELU by the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
as cuBLASLt's), and D is rounded once into its type. The auxiliary outputs hold what the backward pass
needs: the GELU input in D's type (or EPILOGUE_AUX_DATA_TYPE), the ReLU mask as bits (bit r + c*auxLd of
the buffer, least significant bit first, per batch auxBatchStride bits apart). The gradient epilogues
multiply the product by the activation's derivative at the saved input (DRELU: where the mask bit is set;
DGELU: GELU' at the saved value); BGRAD stores the row sums of that gradient into the bias pointer, BGRADA
the row sums of op(A), BGRADB the column sums of op(B), in D's type (or BIAS_DATA_TYPE).

Scalars: host or device per the descriptor's pointer mode; DEVICE_VECTOR gives alpha and beta per row of
D, ALPHA_DEVICE_VECTOR_BETA_ZERO / _BETA_HOST alpha per row with beta zero / a host value."""
import math

import numpy as np

from opemu.core.mcblas import Scalar, blend, invalid, not_null, transposed, vector, view
from opemu.ops.mcblas import family
from opemu.ops.mcblas.level3 import _operand
from opemu.ops.mcblas.lt_common import (AUX, BGRAD, BGRADA, BGRADB, BIAS, DGELU, DRELU, GELU, NUMPY, POINTER_MODE, RELU,
                                        Layout, MatmulDesc, check_algo, check_problem, handle)

_GELU_C = math.sqrt(2.0 / math.pi)
_BLOCK = 1 << 14  # elements per epilogue block: the block stays in cache between its passes


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(x.dtype.type(_GELU_C) * (x + x.dtype.type(0.044715) * x * x * x)))


def gelu_derivative(x):
    c = x.dtype.type(_GELU_C)
    inner = c * (x + x.dtype.type(0.044715) * x * x * x)
    t = np.tanh(inner)
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + x.dtype.type(3 * 0.044715) * x * x)


class _Scalars:
    """alpha and beta as the pointer mode says: numbers, or per-row vectors of the compute (scale) type."""

    def __init__(self, c, desc, scale, rows, batch):
        mode = desc.pointerMode
        self.mode = mode
        self.alpha_vector = mode in (POINTER_MODE["MCBLASLT_POINTER_MODE_DEVICE_VECTOR"],
                                     POINTER_MODE["MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO"],
                                     POINTER_MODE["MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST"])
        self.beta_vector = mode == POINTER_MODE["MCBLASLT_POINTER_MODE_DEVICE_VECTOR"]
        not_null(alpha=c.alpha)
        stride = desc.alphaVectorBatchStride
        if mode == POINTER_MODE["MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO"] and stride:
            raise invalid("ALPHA_VECTOR_BATCH_STRIDE must be 0 with MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO")
        self.alpha = (vector(c.alpha, (batch - 1) * stride + rows, 1, scale) if self.alpha_vector
                      else _scalar(c, "alpha", c.alpha, scale, mode == POINTER_MODE["MCBLASLT_POINTER_MODE_DEVICE"]))
        self.stride = stride
        if mode == POINTER_MODE["MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO"]:
            self.beta = 0
        elif self.beta_vector:
            not_null(beta=c.beta)
            self.beta = vector(c.beta, rows, 1, scale)
        else:
            self.beta = _scalar(c, "beta", c.beta, scale, mode == POINTER_MODE["MCBLASLT_POINTER_MODE_DEVICE"])

    def values(self, index, rows):
        """alpha and beta for batch entry `index`: numbers, or column vectors broadcasting over D's columns."""
        if self.alpha_vector:
            alpha = view(self.alpha)[index * self.stride:index * self.stride + rows][:, None]
        else:
            alpha = self.alpha.value()
        if self.beta_vector:
            beta = view(self.beta)[:, None]
        else:
            beta = self.beta if isinstance(self.beta, int) else self.beta.value()
        return alpha, beta


def _scalar(c, name, pointer, dtype, on_device):
    """A Scalar read where the descriptor's pointer mode (not a handle's) says."""
    c.device_scalars = on_device
    return Scalar(c, name, pointer, dtype)


def _reads_c(beta):
    return not (np.isscalar(beta) and beta == 0)


@family({"mcblasLtMatmul": "matmul"})
def matmul(kind, c):
    handle(c)
    desc = MatmulDesc(c.computeDesc)
    a, b = Layout(c.Adesc, "Adesc"), Layout(c.Bdesc, "Bdesc")
    cl, dl = Layout(c.Cdesc, "Cdesc"), Layout(c.Ddesc, "Ddesc")
    m, n, k, precision = check_problem(desc, a, b, cl, dl)
    if c.algo:
        check_algo(c.algo, desc, a, b, cl, dl)
    scale = NUMPY[desc.scaleType]
    scalars = _Scalars(c, desc, scale, m, dl.batch)
    if m == 0 or n == 0 or dl.batch == 0:
        return None
    not_null(A=c.A, B=c.B, D=c.D)
    geometry = {name: layout.geometry() for name, layout in (("A", a), ("B", b), ("C", cl), ("D", dl))}
    epilogue = Epilogue(desc, precision, dl, m, n)

    def run():
        av, bv, dv = view((c.A, geometry["A"])), view((c.B, geometry["B"])), None
        for index in range(dl.batch):
            alpha, beta = scalars.values(index, m)
            reads_c = _reads_c(beta)
            same = c.C == c.D and geometry["C"] == geometry["D"]
            if dv is None:
                dv = view((c.D, geometry["D"]), "rw" if reads_c and same else "w")
            cv = view((c.C, geometry["C"]))[index] if reads_c and not same else None
            product(dv[index], cv, av[index], bv[index], desc, precision, alpha, beta, epilogue, index)
    return run


def product(d, cmat, a, b, desc, precision, alpha, beta, epilogue, index):
    """One matrix of the batch: d (m x n view) = epilogue(alpha op(a) op(b) + beta c); c None: d itself."""
    x, y = _operand(a, desc.transa, precision), _operand(b, desc.transb, precision)
    ct = precision.compute
    plain = np.isscalar(alpha) and alpha == 1 and not _reads_c(beta)
    if plain and d.dtype == ct and epilogue.in_place and transposed(d).flags.c_contiguous:
        # column-major D is the row-major result of op(B)^T op(A)^T: BLAS writes it in place
        np.matmul(transposed(y), transposed(x), out=transposed(d))
        epilogue.apply_in_place(d, index, x, y)
        return
    acc = x @ y
    if not (np.isscalar(alpha) and alpha == 1):
        acc = acc * (alpha.astype(ct) if not np.isscalar(alpha) else ct.type(alpha))
    if _reads_c(beta):
        prior = (cmat if cmat is not None else d).astype(ct)
        acc = acc + prior * (beta.astype(ct) if not np.isscalar(beta) else ct.type(beta))
    blend(d, epilogue.apply(acc, index, x, y), 1, 0)


class Epilogue:
    """The epilogue of one matmul: what it reads and writes besides D, and the function it applies."""

    def __init__(self, desc, precision, dl, m, n):
        self.code, self.m, self.n, self.batch = desc.epilogue, m, n, dl.batch
        self.ct = precision.compute
        out = dl.dtype
        self.bias_type = NUMPY.get(desc.biasDataType, out) if desc.biasDataType != -1 else out
        self.aux_type = NUMPY.get(desc.auxDataType, out) if desc.auxDataType != -1 else out
        code = self.code
        self.bias = self.aux = None
        if code & (BIAS | BGRAD | BGRADA | BGRADB):
            length = n if code & BGRADB else m
            self.bias = vector(desc.bias, (self.batch - 1) * desc.biasBatchStride + length, 1, self.bias_type)
            self.bias_stride, self.bias_length = desc.biasBatchStride, length
        if code & AUX:
            self.aux_ld, self.aux_stride = desc.auxLd, desc.auxBatchStride
            if code & (RELU | DRELU):   # bits: a byte array long enough for every batch's mask
                bits = (self.batch - 1) * self.aux_stride + (n - 1) * self.aux_ld + m
                self.aux = vector(desc.aux, -(-bits // 8), 1, np.uint8)
            else:
                span = (self.batch - 1) * self.aux_stride + (n - 1) * self.aux_ld + m
                self.aux = vector(desc.aux, span, 1, self.aux_type)
        # the fused fast path: nothing but bias and ReLU/GELU, written into D itself
        self.in_place = not code & (AUX | BGRAD | BGRADA | BGRADB | DRELU | DGELU)

    def _bias(self, index, access="r"):
        whole = view(self.bias, access)
        start = index * self.bias_stride
        return whole[start:start + self.bias_length]

    def _aux_matrix(self, index, access):
        """The auxiliary matrix of batch entry `index` as an m x n column-major view of its elements."""
        whole = view(self.aux, access)
        start = index * self.aux_stride
        return np.lib.stride_tricks.as_strided(whole[start:], (self.m, self.n),
                                               (whole.itemsize, self.aux_ld * whole.itemsize))

    def _mask(self, index):
        bits = np.unpackbits(view(self.aux), bitorder="little")
        start = index * self.aux_stride
        rows = np.arange(self.m)[:, None] + np.arange(self.n)[None, :] * self.aux_ld + start
        return bits[rows].astype(bool)

    def _store_mask(self, index, mask):
        bytes_view = view(self.aux, "rw")
        bits = np.unpackbits(bytes_view, bitorder="little")
        start = index * self.aux_stride
        positions = np.arange(self.m)[:, None] + np.arange(self.n)[None, :] * self.aux_ld + start
        bits[positions] = mask
        bytes_view[...] = np.packbits(bits, bitorder="little")[:len(bytes_view)]

    def apply(self, acc, index, x, y):
        """acc (the compute type, m x n) after the epilogue; side outputs written."""
        code = self.code
        if code & BGRADA:
            self._bias(index, "w")[...] = x.sum(axis=1)
        if code & BGRADB:
            self._bias(index, "w")[...] = y.sum(axis=0)
        if code & BIAS and not code & BGRAD:
            acc = acc + self._bias(index).astype(self.ct)[:, None]
        if code & AUX and code & GELU:
            self._aux_matrix(index, "w")[...] = acc
        if code & AUX and code & RELU:
            self._store_mask(index, acc > 0)
        if code & RELU:
            acc = np.maximum(acc, 0)
        elif code & GELU:
            acc = gelu(acc)
        if code & DRELU:
            acc = np.where(self._mask(index), acc, self.ct.type(0))
        elif code & DGELU:
            acc = acc * gelu_derivative(self._aux_matrix(index, "r").astype(self.ct))
        if code & BGRAD:
            self._bias(index, "w")[...] = acc.sum(axis=1)
        return acc

    def apply_in_place(self, d, index, x, y):
        """Bias and activation on D holding the product (D of the compute type), block by block."""
        code = self.code
        if code == 1:   # MCBLASLT_EPILOGUE_DEFAULT
            return
        rows = transposed(d)   # (n, m): bias runs along each row
        bias = self._bias(index).astype(self.ct) if code & BIAS else None
        step = max(1, _BLOCK // max(1, self.m))
        for lo in range(0, self.n, step):
            block = rows[lo:lo + step]
            if bias is not None:
                np.add(block, bias, out=block)
            if code & RELU:
                np.maximum(block, 0, out=block)
            elif code & GELU:
                block[...] = gelu(block)
