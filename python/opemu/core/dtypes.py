"""aclDataType values (from acl_base.h), their NumPy types and the names opbase prints."""
import ml_dtypes
import numpy as np

from opemu.core.headers import enum

ACL_DTYPE = enum("acl/acl_base_rt.h", "aclDataType")
_CODE_NAME = {code: name for name, code in ACL_DTYPE.items()}

_NUMPY = {
    "ACL_FLOAT": np.float32, "ACL_FLOAT16": np.float16, "ACL_BF16": ml_dtypes.bfloat16,
    "ACL_DOUBLE": np.float64, "ACL_INT8": np.int8, "ACL_INT16": np.int16, "ACL_INT32": np.int32,
    "ACL_INT64": np.int64, "ACL_UINT8": np.uint8, "ACL_UINT16": np.uint16, "ACL_UINT32": np.uint32,
    "ACL_UINT64": np.uint64, "ACL_BOOL": np.bool_, "ACL_COMPLEX64": np.complex64,
    "ACL_COMPLEX128": np.complex128, "ACL_FLOAT8_E5M2": ml_dtypes.float8_e5m2,
    "ACL_FLOAT8_E4M3FN": ml_dtypes.float8_e4m3fn, "ACL_FLOAT8_E8M0": ml_dtypes.float8_e8m0fnu,
}
NUMPY_OF = {ACL_DTYPE[name]: np.dtype(t) for name, t in _NUMPY.items()}
ACL_OF = {dtype: code for code, dtype in NUMPY_OF.items()}

# Types NumPy has no dtype of, kept as their raw codes: HiFloat8 one per byte, the 4-bit types two per byte
# (element 2i in the low nibble, as the hardware's int4b_t packs them). Kernels decode them
# (opemu.ops.aclnn.common.quantize); a view of a 4-bit tensor is its storage's bytes (core/packed.py).
RAW_BYTE = frozenset(ACL_DTYPE[n] for n in ("ACL_HIFLOAT8",))
NIBBLE = frozenset(ACL_DTYPE[n] for n in ("ACL_INT4", "ACL_FLOAT4_E2M1", "ACL_FLOAT4_E1M2"))


def has_layout(code):
    """Whether a kernel can address a tensor of this type (an element size, whole or half a byte)."""
    return code in NUMPY_OF or code in RAW_BYTE or code in NIBBLE


def storage_dtype(code):
    """The NumPy dtype a view of this type's memory has (uint8 for the raw and packed types)."""
    return NUMPY_OF[code] if code in NUMPY_OF else np.dtype(np.uint8)


def acl(name):
    """aclDataType value of 'FLOAT', 'BF16', …"""
    return ACL_DTYPE["ACL_" + name]


def serial_name(code):
    """As ge::TypeUtils::DataTypeToSerialString: DT_FLOAT, DT_FLOAT16, DT_BFLOAT16, …"""
    name = _CODE_NAME.get(code)
    if name is None:
        return "DT_UNDEFINED(%d)" % code
    return "DT_" + name[len("ACL_"):].replace("BF16", "BFLOAT16")


def serial_list(codes):
    """opbase prints a dtype list without spaces and with a trailing comma: [DT_A,DT_B,]."""
    return "[" + "".join(serial_name(c) + "," for c in codes) + "]"


def numpy_dtype(code):
    return NUMPY_OF[code]

ACL_FORMAT = enum("acl/acl_base_rt.h", "aclFormat")
