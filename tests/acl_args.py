"""The non-tensor aclnn arguments from a test: aclScalar, host arrays and tensor lists, through
the real C ABI (ctypes), plus the oracle conversions to and from PyTorch."""
import ctypes

import ml_dtypes
import numpy as np
import torch

from acl import lib
from opemu.core import dtypes


def scalar(value, dtype):
    """An aclScalar holding `value` as NumPy dtype `dtype`."""
    raw = np.asarray(value, dtype)
    create = lib().aclCreateScalar
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_int]
    handle = create(raw.ctypes.data, dtypes.ACL_OF[raw.dtype])
    assert handle
    return ctypes.c_void_p(handle)


def int_array(values):
    create = lib().aclCreateIntArray
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    raw = (ctypes.c_int64 * max(len(values), 1))(*values)
    return ctypes.c_void_p(create(raw, len(values)))


def tensor_list(tensors):
    create = lib().aclCreateTensorList
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    raw = (ctypes.c_void_p * max(len(tensors), 1))(*[t.handle if t is not None else None for t in tensors])
    return ctypes.c_void_p(create(raw, len(tensors)))


def handle(tensor):
    return ctypes.c_void_p(tensor.handle if tensor is not None else None)


def to_torch(array):
    if array.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(array.view(np.uint16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array).copy())


def from_torch(tensor):
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.uint16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def random(shape, dtype, rng, low=-3, high=3):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(max(low, 0) if dtype.kind == "u" else low, high + 1, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


def tolerance(dtype):
    """Where the kernel rounds once into `dtype`: half an ulp of it, plus fp32 arithmetic noise."""
    return {np.dtype(np.float16): 1e-3, np.dtype(ml_dtypes.bfloat16): 8e-3,
            np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}.get(np.dtype(dtype), 0)


def call(op, *arguments):
    """run_two_phase with DeviceTensors passed as their handles."""
    from acl import DeviceTensor, run_two_phase
    return run_two_phase(op, *[handle(x) if isinstance(x, DeviceTensor) else x for x in arguments])


def result(tensor, shape=None):
    """The tensor's contiguous storage as an array of its view shape."""
    return tensor.storage().reshape(shape if shape is not None else tensor.shape)
