"""The arithmetic of the quantised matmuls (matmul/'s QuantMatmul family, gmm/'s grouped forms): integer products
with int32 sums, products of float8/float4 operands with fp32 sums, K-group (per-block and MX) scaling, and
the dequantising epilogue.

Integer products: int8/int4 operands multiply exactly and sum in int32 as the cube does. They go through
NumPy's sgemm on fp32 copies in slices of K_EXACT along K (each slice's sums stay below 2^24, so exact), the
slices added in int64 (a wrap past int32 is the cube's: the result is reduced modulo 2^32)."""
import numpy as np

from opemu.core import dtypes
from opemu.ops.aclnn.common import quantize as Q

K_EXACT = 1024   # 127 · 128 · 1024 < 2^24: an fp32 sum of this many int8 products is exact


def integer_matmul(x1, x2):
    """x1 @ x2 of integer arrays (…, m, k) and (…, k, n) with int32 sums (wrapping), as int64."""
    k = x1.shape[-1]
    a, b = x1.astype(np.float32), x2.astype(np.float32)
    if k <= K_EXACT:
        total = np.matmul(a, b).astype(np.int64)
    else:
        total = None
        for lo in range(0, k, K_EXACT):
            part = np.matmul(a[..., lo:lo + K_EXACT], b[..., lo:lo + K_EXACT, :]).astype(np.int64)
            total = part if total is None else total + part
    return ((total + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int64)


def float_matmul(x1, x2):
    """x1 @ x2 of float8/float4/hif8 values (as fp32): exact products, fp32 sums."""
    return np.matmul(x1.astype(np.float32), x2.astype(np.float32))


def scale_values(view, desc):
    """A scale operand's fp32 values: TransQuantParam words (UINT64/INT64) give their fp19 scale, FLOAT8_E8M0
    codes their power of two; (values, the words' offsets or None)."""
    code = desc.dtype
    if code in (dtypes.acl("UINT64"), dtypes.acl("INT64")):
        scale, offset = Q.quant_param_scale(view)
        return scale, offset
    if code == Q.FLOAT8_E8M0:
        codes = view.view(np.uint8).astype(np.float32)
        return np.where(codes == 255, np.nan, np.exp2(codes - 127)).astype(np.float32), None
    return Q.widen(view), None


def grouped_matmul(x1, x2, s1, s2, group_k, integer):
    """Σ over K groups of (x1_g @ x2_g) · s1[…, m, g] · s2[…, g, n] in fp32 (per-block / MX scaling)."""
    k = x1.shape[-1]
    total = None
    for g, lo in enumerate(range(0, k, group_k)):
        part = (integer_matmul if integer else float_matmul)(x1[..., lo:lo + group_k], x2[..., lo:lo + group_k, :])
        part = part.astype(np.float32) * s1[..., :, g:g + 1] * s2[..., g:g + 1, :]
        total = part if total is None else total + part
    return total


def epilogue(acc, scale=None, token_scale=None, bias=None, bias_first=False, offset=None, out_code=None):
    """The dequantisation after the cube, in fp32: ((acc [+ int bias]) · scale [· token scale]) [+ float bias]
    [+ offset]; an INT8/INT4 out is rounded (nearest even) and saturated, an INT32 out keeps acc (+ bias)."""
    if out_code == Q.INT32:
        return acc + (bias.astype(np.int64) if bias is not None else 0)
    values = (acc + bias.astype(np.int64)).astype(np.float32) if bias is not None and bias_first else \
        acc.astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        if scale is not None:
            values = values * scale
        if token_scale is not None:
            values = values * token_scale
        if bias is not None and not bias_first:
            values = values + Q.widen(bias)
        if offset is not None:
            values = values + offset
    if out_code in (Q.INT8, Q.INT4):
        return Q.quantize(values, out_code)
    return values
