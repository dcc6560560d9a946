"""FRACTAL_NZ, the cube's blocked layout of a matrix, as real data (matmul weights, gmm's grouped weights).

A matrix (R, C) is stored as (C1, R1, 16, c0): C cut into column blocks of c0 elements (32 bytes: 16 for
fp16/bf16, 32 for int8/fp8, 8 for fp32, 64 for int4), R into row blocks of 16; element (r, c) lives at
[c // c0, r // 16, r % 16, c % c0], padding unused. Batch axes in front stay as they are. What
aclnnCalculateMatmulWeightSize counts (R rounded up to 16, C to c0) is this storage's size.

An NZ tensor's view names the matrix it holds: its last two axes, in that order when they are laid out
row-major, or transposed when the strides say column-major (llama.cpp converts its (N, K) weights and passes
the (K, N) transposed view)."""
import math

import numpy as np

from opemu.core import dtypes

NZ_FORMATS = frozenset(dtypes.ACL_FORMAT[n] for n in ("ACL_FORMAT_FRACTAL_NZ", "ACL_FORMAT_FRACTAL_NZ_C0_16",
                                                      "ACL_FORMAT_FRACTAL_NZ_C0_32", "ACL_FORMAT_FRACTAL_NZ_C0_2",
                                                      "ACL_FORMAT_FRACTAL_NZ_C0_4", "ACL_FORMAT_FRACTAL_NZ_C0_8")
                       if n in dtypes.ACL_FORMAT)
ROWS = 16


def is_nz(desc):
    return desc.format in NZ_FORMATS


def c0_of(code):
    """Elements per 32-byte column block of type `code`."""
    if code in dtypes.NIBBLE:
        return 64
    return 32 // dtypes.storage_dtype(code).itemsize


def ceil_to(n, block):
    return -(-n // block) * block


def stored_matrix(desc):
    """(batch shape, R, C, transposed) of the matrix an NZ tensor holds (see the module docstring)."""
    shape, strides = tuple(desc.shape), tuple(desc.strides)
    rows, cols = shape[-2], shape[-1]
    transposed = len(shape) >= 2 and strides[-1] != 1 and strides[-2] == 1 and cols > 1
    if transposed:
        rows, cols = cols, rows
    return shape[:-2], rows, cols, transposed


def storage_elements(desc):
    """Elements the NZ storage of `desc` spans."""
    batch, rows, cols, _ = stored_matrix(desc)
    return math.prod(batch) * ceil_to(rows, ROWS) * ceil_to(cols, c0_of(desc.dtype))


def storage_desc(desc):
    """A contiguous 1-D description of the NZ storage under `desc` (what a kernel's view of it reads)."""
    from opemu.core.tensor import TensorDesc
    n = storage_elements(desc)
    return TensorDesc(desc.dtype, (n,), (1,), desc.offset, desc.format)


def to_nd(storage, batch, rows, cols, c0):
    """The (batch..., rows, cols) matrix held by NZ `storage` (a 1-D array of its elements)."""
    r1, c1 = ceil_to(rows, ROWS) // ROWS, ceil_to(cols, c0) // c0
    blocks = storage[:math.prod(batch) * c1 * r1 * ROWS * c0].reshape(tuple(batch) + (c1, r1, ROWS, c0))
    nd = np.moveaxis(blocks, -4, -2).reshape(tuple(batch) + (r1 * ROWS, c1 * c0))
    return nd[..., :rows, :cols]


def to_nz(matrix, c0):
    """NZ storage (1-D, padding zero) of a (batch..., rows, cols) matrix."""
    batch, (rows, cols) = matrix.shape[:-2], matrix.shape[-2:]
    padded = np.zeros(tuple(batch) + (ceil_to(rows, ROWS), ceil_to(cols, c0)), matrix.dtype)
    padded[..., :rows, :cols] = matrix
    r1, c1 = padded.shape[-2] // ROWS, padded.shape[-1] // c0
    blocks = padded.reshape(tuple(batch) + (r1, ROWS, c1, c0))
    return np.ascontiguousarray(np.moveaxis(blocks, -2, -4)).reshape(-1)


def read(storage, desc):
    """The logical matrix (in `desc`'s view order) of an NZ tensor whose storage view is `storage`."""
    batch, rows, cols, transposed = stored_matrix(desc)
    matrix = to_nd(storage, batch, rows, cols, c0_of(desc.dtype))
    return np.swapaxes(matrix, -1, -2) if transposed else matrix
