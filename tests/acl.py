"""The vendor C ABI seen from a test, through ctypes on the installed libascendcl.so.

Loading the library into the pytest process means the embedded entry points reuse this
interpreter, so operator numerics are checked through the real phase-1/phase-2 calls, device
memory, strides and offsets, at in-process speed."""
import ctypes

import numpy as np

import conftest
from opemu.core import dtypes

_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(str(conftest.toolkit() / "lib64" / "libascendcl.so"), mode=ctypes.RTLD_GLOBAL)
        _lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        _lib.aclCreateTensor.restype = ctypes.c_void_p
        _lib.aclCreateTensor.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_void_p]
        for name in ("aclDestroyTensor", "aclrtFree"):
            getattr(_lib, name).argtypes = [ctypes.c_void_p]
        _lib.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        _lib.aclrtSynchronizeStream.argtypes = [ctypes.c_void_p]
        assert _lib.aclrtSetDevice(0) == 0
    return _lib


def recent_error():
    message = lib().aclGetRecentErrMsg()
    return message.decode() if message else None


def _int64s(values):
    return (ctypes.c_int64 * max(len(values), 1))(*values)


class DeviceTensor:
    """Device memory holding `storage` and an aclTensor viewing it with the given layout (and storage format,
    ACL_FORMAT_ND unless given)."""

    def __init__(self, storage, shape=None, strides=None, offset=0, dtype=None, format=2):
        storage = np.ascontiguousarray(storage)
        self.storage_dtype = storage.dtype
        self.code = dtype if dtype is not None else dtypes.ACL_OF[storage.dtype]
        self.nbytes = storage.nbytes
        self.address = ctypes.c_void_p()
        assert lib().aclrtMalloc(ctypes.byref(self.address), max(self.nbytes, 1), 0) == 0
        if self.nbytes:
            assert lib().aclrtMemcpy(self.address, self.nbytes, storage.ctypes.data, self.nbytes, 1) == 0
        self.shape = tuple(storage.shape if shape is None else shape)
        stride_arg = None if strides is None else _int64s(strides)
        self.handle = lib().aclCreateTensor(_int64s(self.shape), len(self.shape), self.code, stride_arg, offset, format,
                                            _int64s([storage.size]), 1, self.address)
        assert self.handle

    def storage(self):
        host = np.empty(self.nbytes // self.storage_dtype.itemsize, self.storage_dtype)
        if self.nbytes:
            assert lib().aclrtMemcpy(host.ctypes.data, self.nbytes, self.address, self.nbytes, 2) == 0
        return host

    def free(self):
        lib().aclDestroyTensor(self.handle)
        lib().aclrtFree(self.address)


def run_two_phase(op, *arguments):
    """Phase 1 with `arguments` (ctypes values), then phase 2 on the default stream and a sync.
    Returns (phase-1 status, phase-2 status, sync status)."""
    workspace_size = ctypes.c_uint64()
    executor = ctypes.c_void_p()
    phase1 = getattr(lib(), op + "GetWorkspaceSize")
    status = phase1(*arguments, ctypes.byref(workspace_size), ctypes.byref(executor))
    if status:
        return status, None, None
    workspace = ctypes.c_void_p()
    if workspace_size.value:
        assert lib().aclrtMalloc(ctypes.byref(workspace), workspace_size.value, 0) == 0
    phase2 = getattr(lib(), op)
    phase2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
    launched = phase2(workspace, workspace_size.value, executor, None)
    synced = lib().aclrtSynchronizeStream(None)
    if workspace_size.value:
        lib().aclrtFree(workspace)
    return status, launched, synced
