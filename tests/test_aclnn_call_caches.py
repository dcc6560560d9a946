"""What the per-call shortcuts of the aclnn bridge must not change. Phase 1 reads every tensor argument in one
C call (opemu_tensor_summaries): a destroyed argument is still ACLNN_ERR_PARAM_INVALID naming the first one in
argument order, a tensor or not. Phase 2 keeps its views between calls: memory freed in between still faults."""
import ctypes

import numpy as np

from acl import DeviceTensor, lib, recent_error, run_two_phase

INVALID, AICORE = 161002, 507015
P = ctypes.c_void_p


def scalar(value):
    holder = ctypes.c_float(value)
    lib().aclCreateScalar.restype = ctypes.c_void_p
    lib().aclCreateScalar.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib().aclCreateScalar(ctypes.byref(holder), 0), holder  # 0: ACL_FLOAT


def destroy_scalar(handle):
    lib().aclDestroyScalar.argtypes = [ctypes.c_void_p]
    lib().aclDestroyScalar(handle)


def muls(self_tensor, other, out):
    return run_two_phase("aclnnMuls", P(self_tensor), P(other), P(out))[0]


def test_muls_runs_with_live_arguments():
    x, out = DeviceTensor(np.arange(4, dtype=np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(2.5)
    assert run_two_phase("aclnnMuls", P(x.handle), P(other), P(out.handle)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(out.storage(), np.arange(4, dtype=np.float32) * 2.5)
    destroy_scalar(other)
    x.free()
    out.free()


def test_a_destroyed_tensor_is_param_invalid_naming_it():
    x, out = DeviceTensor(np.ones(4, np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(2.0)
    assert muls(x.handle, other, out.handle) == 0
    lib().aclDestroyTensor(out.handle)
    assert muls(x.handle, other, out.handle) == INVALID
    assert "Argument out is not a live aclTensor" in recent_error()
    destroy_scalar(other)
    x.free()
    lib().aclrtFree(out.address)


def test_a_destroyed_scalar_before_a_destroyed_tensor_is_the_one_reported():
    x, out = DeviceTensor(np.ones(4, np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(2.0)
    destroy_scalar(other)
    lib().aclDestroyTensor(out.handle)
    assert muls(x.handle, other, out.handle) == INVALID
    assert "Argument other is not a live aclScalar" in recent_error()
    x.free()
    lib().aclrtFree(out.address)


def test_an_output_freed_after_a_call_is_an_aicore_exception_at_the_next():
    """Kernel views are kept between calls only while no device memory goes away."""
    x, out = DeviceTensor(np.ones(4, np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(2.0)
    assert run_two_phase("aclnnMuls", P(x.handle), P(other), P(out.handle)) == (0, 0, 0), recent_error()
    lib().aclrtFree(out.address)
    status = run_two_phase("aclnnMuls", P(x.handle), P(other), P(out.handle))
    assert status[0] == 0 and AICORE in status[1:]
    destroy_scalar(other)
    x.free()
    lib().aclDestroyTensor(out.handle)
