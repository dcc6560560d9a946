"""ops-nn's matmul/common cube_util: the cube's dtype lists per product, CheckCubeMathType and the HF32 rounding,
which the operators built on the cube unit share (matmuls, convolutions, AvgPool2d).

    cubeMathType  KEEP_DTYPE 0, ALLOW_FP32_DOWN_PRECISION 1, USE_FP16 2, USE_HF32 3, USE_FP32_ADD 4

CheckCubeMathType refuses a value outside 0..4, and fp32/bf16 data (bf16 only, for 1 and 2) where the cube
has no fp32 (Atlas training 910 and inference 310P parts)."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION, USE_FP16, USE_HF32, USE_FP32_ADD = range(5)


def fp32_cube():
    """IsCubeSupportFp32: the A2/A3 and 950 cubes read fp32 and bf16."""
    return _products.line() in ("A2", "A3", "950")


def cube_dtypes():
    return P.codes("FLOAT FLOAT16 BF16") if fp32_cube() else P.codes("FLOAT FLOAT16")


def conv_dtypes(conv_backward=False, transposed=False):
    """GetDtypeSupportListBySocVersion (…4ConvBackward for the backward of a convolution that is not transposed):
    the 950's lists add its 8-bit float types."""
    if _products.is_regbase():
        return P.codes("FLOAT FLOAT16 BF16 HIFLOAT8" + (" FLOAT8_E4M3FN" if conv_backward and not transposed else ""))
    return cube_dtypes()


def round_hf32(x):
    """fp32 → HF32 (8-bit exponent, 11-bit mantissa) to nearest even, kept in fp32 (the vendor does not document
    the tie rule; ties are measure-zero for real data)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
    keep = (bits >> 12) & 1
    rounded = (bits + (0x7FF + keep)) & np.uint32(0xFFFFF000)
    finite = (bits & 0x7F800000) != 0x7F800000
    return np.where(finite, rounded, bits).view(np.float32)


def check_cube_math_type(dtype, cube_math_type):
    """CheckCubeMathType(dtype, cubeMathType): ACLNN_ERR_PARAM_INVALID with the vendor's texts."""
    if not 0 <= cube_math_type <= USE_FP32_ADD:
        raise status.param_invalid("The value of cubeMathType only support {0: KEEP_DTYPE, 1: ALLOW_FP32_DOWN_PRECISION, "
                                   "2: USE_FP16, 3: USE_HF32, 4: USE_FP32_ADD}, but got %d" % cube_math_type)
    allow_fp32 = cube_math_type in (ALLOW_FP32_DOWN_PRECISION, USE_FP16)
    unsupported = dtype == P.BF16 if allow_fp32 else dtype in (P.FLOAT, P.BF16)
    if unsupported and not fp32_cube():
        raise status.param_invalid("The soc version does not support bf16 / fp32 for calculations, please change the "
                                   "setting of cubeMathType or the Dtype of input tensor.")
