"""aclnnSparse4to2QuantMatmulWeightNz (matmul/sparse4to2quant_matmul op_api): out = x @ W^T · sparseWeightScale ·
xScale + bias in bf16, W [n, k] int8 with at most two non-zeros in every four along k, given as the pair
aclnnTransSparse4to2Para writes.

Layout (that host function's): per 8 consecutive k of a row, the 4 kept values in sparseWeight's FRACTAL_NZ
storage [ceil(k_half/32), ceil(n/16), 16, 32] (k_half = ceil(k/8)·8/2), and one index byte in index's storage
[same, 16, 8]; the byte's low nibble places the first two kept values in k's first four, the high nibble the
last two in the next four. A nibble's low two bits are the first value's position; its high two bits count the
second value's position among the three others (the encoding's table read backwards). Integer products sum in
int32, the scales apply in fp32, bf16 bias added, one rounding to bf16."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import quant_matmul as QM
from opemu.ops.aclnn.common import quantize as Q

UINT8 = dtypes.acl("UINT8")
LAST_AXIS_LIMIT = 65535
# (nibble's low two bits, high two bits) -> the second value's position: the high bits count the positions
# other than the first value's
SECOND = np.array([[[p for p in range(4) if p != first][rank] if rank < 3 else 3 for rank in range(4)]
                   for first in range(4)])


def _invalid(message):
    return status.param_invalid(message)


def dense_weight(sparse, index, n, k):
    """W [n, k] int8 from the kept values (storage [K1, N1, 16, 32]) and index bytes (storage [K1, N1, 16, 8])."""
    k1 = sparse.shape[0]
    kept = sparse.transpose(1, 2, 0, 3).reshape(-1, k1 * 8, 4)[:n]          # [n, blocks of 8 k, 4 values]
    codes = index.transpose(1, 2, 0, 3).reshape(-1, k1 * 8)[:n].astype(np.int64)
    dense = np.zeros((n, k1 * 8, 8), np.int8)
    rows, blocks = np.indices(codes.shape)
    for half in range(2):
        nibble = (codes >> (4 * half)) & 0xF
        first, rank = nibble & 3, nibble >> 2
        second = SECOND[first, rank]
        # the second value first: when it is a zero placed on the first's slot, the first's value wins
        dense[rows, blocks, 4 * half + second] = kept[:, :, 2 * half + 1]
        dense[rows, blocks, 4 * half + first] = kept[:, :, 2 * half]
    return dense.reshape(n, -1)[:, :k]


class Sparse4to2QuantMatmulWeightNz(AclnnOp):
    name = "aclnnSparse4to2QuantMatmulWeightNz"
    inputs = ("x", "sparseWeight", "index", "xScale", "sparseWeightScale", "biasOptional")
    outputs = ("out",)
    products = _products.describe(("A2", "A3"))

    def dtype_table(self):
        return {"x": (Q.INT8,), "sparseWeight": (Q.INT8,), "index": (UINT8,), "xScale": (P.FLOAT,),
                "sparseWeightScale": (P.FLOAT,), "biasOptional": (P.BF16,), "out": (P.BF16,)}

    def check(self, a):
        checks.not_null(a, "x", "sparseWeight", "index", "out", "sparseWeightScale", "xScale")
        if a.x.ndim >= 2 and a.x.strides[-2:] == (1, a.x.shape[-2]) and a.x.shape[-2] > 1 and a.x.shape[-1] > 1:
            raise _invalid("Input x not support transpose for now")
        for name, ndim in (("x", 2), ("sparseWeight", 2), ("index", 2), ("out", 2), ("biasOptional", 1),
                           ("xScale", 1), ("sparseWeightScale", 1)):
            if getattr(a, name) is not None:
                checks.dim_is(name, getattr(a, name), ndim)
        self.check_dtypes(a)
        self.check_formats(a)
        self.check_shapes(a)
        if a.x.is_empty() or a.sparseWeight.is_empty():
            raise _invalid("Sparse4to2QuantMatmul not support to process empty tensor for now.")
        _products.check_supported(self.name, ("A2", "A3"))

    def check_dtypes(self, a):
        name = dtypes.serial_name
        if a.x.dtype != Q.INT8 or a.sparseWeight.dtype != Q.INT8:
            raise _invalid("Input x, sparseWeight dtype should be INT8, actual dtype are %s and %s."
                           % (name(a.x.dtype), name(a.sparseWeight.dtype)))
        if a.index.dtype != UINT8:
            raise _invalid("Input index dtype should be UINT8, actual dtype is %s." % name(a.index.dtype))
        if a.biasOptional is not None and a.biasOptional.dtype != P.BF16:
            raise _invalid("Input bias dtype should be BF16, actual dtype is %s." % name(a.biasOptional.dtype))
        if a.xScale.dtype != P.FLOAT:
            raise _invalid("Input xScale dtype should be FLOAT32, actual dtype is %s." % name(a.xScale.dtype))
        if a.sparseWeightScale.dtype != P.FLOAT:
            raise _invalid("Input sparseWeightScale dtype should be FLOAT32, actual dtype is %s."
                           % name(a.sparseWeightScale.dtype))
        if a.out.dtype != P.BF16:
            raise _invalid("Output dtype should be BF16, actual dtype is %s." % name(a.out.dtype))

    def check_formats(self, a):
        nd = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
        for label, t in (("x", a.x), ("sparseWeight", a.sparseWeight), ("index", a.index), ("xScale", a.xScale),
                         ("sparseWeightScale", a.sparseWeightScale), ("bias", a.biasOptional), ("out", a.out)):
            if t is None:
                continue
            wanted_nz = label == "sparseWeight"
            if fractal_nz.is_nz(t) != wanted_nz or (not wanted_nz and t.format != nd):
                raise _invalid("Format of %s must be %s, actual is %d." % (label, "FRACTAL_NZ" if wanted_nz else "ND",
                                                                           t.format))

    def check_shapes(self, a):
        m, kx = a.x.shape
        n, k_half = a.sparseWeight.shape
        aligned = -(-kx // 8) * 8
        if aligned != 2 * k_half:
            raise _invalid("The k dim of x (8-aligned) should be twice that k of sparseWeight, but k dim of x is %d, "
                           "sparseWeight is %d." % (aligned, k_half))
        if kx > LAST_AXIS_LIMIT or k_half > LAST_AXIS_LIMIT:
            raise _invalid("The last dim of x or sparseWeight is larger than 65535, x is %d, sparseWeight is %d."
                           % (kx, k_half))
        if a.biasOptional is not None and a.biasOptional.shape[0] != n:
            raise _invalid("The 1st dim bias should be equal to n dim of x2: %d, but actually is %d."
                           % (n, a.biasOptional.shape[0]))
        if a.sparseWeightScale.shape[0] != n:
            raise _invalid("The last dim of sparseWeightScale should equal to n dim of sparseWeight: %d, but actual "
                           "is %d." % (n, a.sparseWeightScale.shape[0]))
        if a.xScale.shape[0] != m:
            raise _invalid("The 1st dim of xScale should be equal to m dim of x: %d, but actually is %d."
                           % (m, a.xScale.shape[0]))
        if a.out.shape[0] != m:
            raise _invalid("First dimension of out should be equal to m dimension of x, but fir dimension of out is "
                           "%d, m dimension of x is %d." % (a.out.shape[0], m))
        if a.out.shape[1] != n:
            raise _invalid("Second dim of out should be equal to n dim of sparseWeight , but out 2nd dim is %d, n dim "
                           "of sparseWeight is %d." % (a.out.shape[1], n))
        k1, n1 = -(-k_half // 32), -(-n // 16)
        a.storage = (k1, n1)
        # the kernel reads both storages whole: what the app describes must hold them
        for name, per_block in (("sparseWeight", 16 * 32), ("index", 16 * 8)):
            t, needed = getattr(a, name), k1 * n1 * per_block
            if math.prod(t.storage_shape) < needed:
                raise _invalid("%s's storage holds %d elements, fewer than the %d of [%d, %d, 16, %d]."
                               % (name, math.prod(t.storage_shape), needed, k1, n1, per_block // 16))
            setattr(a, name, TensorDesc(t.dtype, (needed,), (1,), t.offset, t.format))
        a.m, a.k, a.n = m, kx, n

    def compute(self, a, v, workspace):
        k1, n1 = a.storage
        sparse = v["sparseWeight"].reshape(k1, n1, 16, 32)
        index = v["index"].reshape(k1, n1, 16, 8)
        weight = dense_weight(sparse, index, a.n, a.k)
        acc = QM.integer_matmul(v["x"], weight.T)
        values = acc.astype(np.float32) * Q.widen(v["sparseWeightScale"])[None, :] * Q.widen(v["xScale"])[:, None]
        if "biasOptional" in v:
            values = values + Q.widen(v["biasOptional"])[None, :]
        P.store(v["out"], values)
