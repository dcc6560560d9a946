"""Rounding fp32 values to the precision of a narrower type, where a vendor kernel casts.

Results stay in fp32 arrays (BLAS has no bf16/fp16 GEMM) but hold exactly the values the cast
would produce: round to nearest, ties to even, as the kernels' RINT casts do."""
import ml_dtypes
import numpy as np

from opemu.core import kernels

BF16 = np.dtype(ml_dtypes.bfloat16)
FP16 = np.dtype(np.float16)


def round_in_place(values, dtype, scratch):
    """Round fp32 `values` in place to `dtype` (bfloat16 or float16) precision.
    `scratch` is a buffer of the same shape: uint32 for bfloat16, float16 for float16."""
    if dtype == BF16:
        # RNE on the bit pattern: add 0x7FFF plus the lowest kept bit, then drop 16 bits.
        # NaNs keep a NaN pattern (their high mantissa bit is set), infinities stay infinite.
        lib = kernels.lib() if values.flags.c_contiguous and values.dtype == np.float32 else None
        if lib is not None:   # the same steps in one C pass (csrc/kernels/rounding.c)
            lib.opemu_kernel_round_bf16(kernels.float_pointer(values), values.size)
            return
        bits = values.view(np.uint32)
        np.right_shift(bits, 16, out=scratch)
        np.bitwise_and(scratch, 1, out=scratch)
        np.add(scratch, 0x7FFF, out=scratch)
        np.add(bits, scratch, out=bits)
        np.bitwise_and(bits, np.uint32(0xFFFF0000), out=bits)
    elif dtype == FP16:
        np.copyto(scratch, values, casting="unsafe")
        np.copyto(values, scratch)
    else:
        raise ValueError("no rounding to %s" % dtype)


def scratch_dtype(dtype):
    return np.uint32 if np.dtype(dtype) == BF16 else np.float16
