"""What the per-call shortcuts of the aclnn bridge must not change. Phase 1 reads every tensor argument in one
C call (opemu_tensor_summaries): a destroyed argument is still ACLNN_ERR_PARAM_INVALID naming the first one in
argument order, a tensor or not. A signature seen before is answered by the generated shim from the plan C
remembers (csrc/plan_cache.c), without Python: its executor holds this call's tensors, and every argument, the
product, an injected fault and a NULL output pointer are judged again. Phase 2 keeps its views between calls:
memory freed in between still faults."""
import ctypes

import numpy as np
import pytest

from acl import DeviceTensor, lib, recent_error, run_two_phase
from acl_args import call, tensor_list
from opemu import bridge

NULLPTR, INVALID, INNER, AICORE = 161001, 161002, 561000, 507015
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


@pytest.fixture
def python_phase_1_refused(monkeypatch):
    """After this, a phase 1 that enters Python fails the test: what passes came from the remembered plan."""
    def refuse(*_):
        raise AssertionError("phase 1 entered Python")
    return lambda: monkeypatch.setattr(bridge._Phase1, "_signature", refuse)


def test_a_signature_seen_before_is_answered_without_python(python_phase_1_refused):
    x, out = DeviceTensor(np.arange(6, dtype=np.float32)), DeviceTensor(np.zeros(6, np.float32))
    other, _ = scalar(1.5)
    assert muls(x.handle, other, out.handle) == 0
    python_phase_1_refused()
    y, out2 = DeviceTensor(np.arange(6, dtype=np.float32) + 10), DeviceTensor(np.zeros(6, np.float32))
    assert run_two_phase("aclnnMuls", P(y.handle), P(other), P(out2.handle)) == (0, 0, 0), recent_error()
    # the executor holds this call's tensors, not the ones the plan was made with
    np.testing.assert_array_equal(out2.storage(), (np.arange(6, dtype=np.float32) + 10) * np.float32(1.5))
    np.testing.assert_array_equal(out.storage(), np.arange(6, dtype=np.float32) * np.float32(1.5))
    destroy_scalar(other)
    for t in (x, out, y, out2):
        t.free()


def test_a_new_scalar_value_is_a_new_plan():
    x, out = DeviceTensor(np.arange(5, dtype=np.float32)), DeviceTensor(np.zeros(5, np.float32))
    for value in (2.0, 3.0, 2.0):
        other, _ = scalar(value)
        assert run_two_phase("aclnnMuls", P(x.handle), P(other), P(out.handle)) == (0, 0, 0), recent_error()
        np.testing.assert_array_equal(out.storage(), np.arange(5, dtype=np.float32) * np.float32(value))
        destroy_scalar(other)
    x.free()
    out.free()


def test_a_product_change_between_calls_is_judged_again(monkeypatch):
    bf16 = DeviceTensor(np.zeros(3, np.uint16), dtype=27)  # ACL_BF16
    assert call("aclnnMul", bf16, bf16, bf16)[0] == 0, recent_error()
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")  # no bf16 on the 910
    assert call("aclnnMul", bf16, bf16, bf16)[0] == INVALID
    assert "DT_BFLOAT16" in recent_error()
    bf16.free()


def test_a_fault_injected_after_a_remembered_plan_is_raised(monkeypatch):
    x, out = DeviceTensor(np.ones(4, np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(2.0)
    assert muls(x.handle, other, out.handle) == 0
    monkeypatch.setenv("OPEMU_FAULT", "aclnnMulsGetWorkspaceSize")
    assert muls(x.handle, other, out.handle) == INNER
    assert "fault injected by OPEMU_FAULT" in recent_error()
    destroy_scalar(other)
    x.free()
    out.free()


@pytest.mark.parametrize("missing", ["workspaceSize", "executor"])
def test_a_null_output_pointer_after_a_remembered_plan_is_nullptr(missing):
    x, out = DeviceTensor(np.ones(4, np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(2.0)
    assert muls(x.handle, other, out.handle) == 0
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    outputs = (None, ctypes.byref(executor)) if missing == "workspaceSize" else (ctypes.byref(size), None)
    assert lib().aclnnMulsGetWorkspaceSize(P(x.handle), P(other), P(out.handle), *outputs) == NULLPTR
    assert "workspaceSize and executor must not be nullptr" in recent_error()
    destroy_scalar(other)
    x.free()
    out.free()


def _launch_muls(executor, size):
    lib().aclnnMuls.argtypes = [P, ctypes.c_uint64, P, P]
    assert lib().aclnnMuls(None, size, executor, None) == 0, recent_error()
    assert lib().aclrtSynchronizeStream(None) == 0


def test_a_repeatable_executor_from_a_remembered_plan_runs_until_destroyed():
    x, out = DeviceTensor(np.arange(4, dtype=np.float32)), DeviceTensor(np.zeros(4, np.float32))
    other, _ = scalar(4.0)
    assert muls(x.handle, other, out.handle) == 0
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    assert lib().aclnnMulsGetWorkspaceSize(P(x.handle), P(other), P(out.handle), ctypes.byref(size),
                                           ctypes.byref(executor)) == 0
    assert lib().aclSetAclOpExecutorRepeatable(executor) == 0
    for _ in range(2):
        _launch_muls(executor, size.value)
    moved = DeviceTensor(np.full(4, 3, np.float32))
    lib().aclSetInputTensorAddr.argtypes = [P, ctypes.c_size_t, P, P]
    assert lib().aclSetInputTensorAddr(executor, 0, P(x.handle), moved.address) == 0
    _launch_muls(executor, size.value)
    np.testing.assert_array_equal(out.storage(), np.full(4, 12, np.float32))
    lib().aclDestroyAclOpExecutor.argtypes = [P]
    assert lib().aclDestroyAclOpExecutor(executor) == 0
    # destroying it leaves the plan to the next call
    assert run_two_phase("aclnnMuls", P(moved.handle), P(other), P(out.handle)) == (0, 0, 0), recent_error()
    destroy_scalar(other)
    for t in (out, moved):
        t.free()
    lib().aclDestroyTensor(x.handle)
    lib().aclrtFree(x.address)


def test_a_tensor_list_of_a_remembered_plan_is_this_calls_list(python_phase_1_refused):
    first = [DeviceTensor(np.full((1, 3), k, np.float32)) for k in (1, 2)]
    second = [DeviceTensor(np.full((1, 3), k, np.float32)) for k in (7, 8)]
    out = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnCat", tensor_list(first), ctypes.c_int64(0), out) == (0, 0, 0), recent_error()
    python_phase_1_refused()
    assert call("aclnnCat", tensor_list(second), ctypes.c_int64(0), out) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(out.storage().reshape(2, 3), [[7, 7, 7], [8, 8, 8]])
    for t in first + second + [out]:
        t.free()
