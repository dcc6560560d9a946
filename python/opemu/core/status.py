"""Status codes (from the headers) and the exception that carries a vendor status and message."""
from opemu.core.headers import constants

ACLNN = constants("aclnn/opdev/op_errno.h")
ACL = constants("acl/acl_base_rt.h", "acl/error_codes/rt_error_codes.h")


class VendorError(Exception):
    """A failure the vendor reports with `code`; `str(self)` is the retrievable message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def param_invalid(message):
    return VendorError(ACLNN["ACLNN_ERR_PARAM_INVALID"], message)


def param_nullptr(message):
    return VendorError(ACLNN["ACLNN_ERR_PARAM_NULLPTR"], message)


def runtime_error(message):
    return VendorError(ACLNN["ACLNN_ERR_RUNTIME_ERROR"], message)


def tiling_error(message):
    """What a kernel's tiling refuses in phase 1 (ACLNN_ERR_INNER_TILING_ERROR)."""
    return VendorError(ACLNN["ACLNN_ERR_INNER_TILING_ERROR"], message)
