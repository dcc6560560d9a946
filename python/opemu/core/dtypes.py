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
    "ACL_FLOAT8_E4M3FN": ml_dtypes.float8_e4m3fn,
}
NUMPY_OF = {ACL_DTYPE[name]: np.dtype(t) for name, t in _NUMPY.items()}
ACL_OF = {dtype: code for code, dtype in NUMPY_OF.items()}


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
