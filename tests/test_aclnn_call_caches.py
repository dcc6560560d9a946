"""What the per-call shortcuts of the aclnn bridge must not change. Phase 1 reads every tensor argument in one
C call (opemu_tensor_summaries): a destroyed argument is still ACLNN_ERR_PARAM_INVALID naming the first one in
argument order, a tensor or not. A signature seen before is answered by the generated shim from the plan C
remembers (csrc/aclnn/plan_cache.c), without Python: its executor holds this call's tensors, and every argument, the
product, an injected fault and a NULL output pointer are judged again. Phase 2 keeps its views between calls:
memory freed in between still faults; the call an op prepared for them (op.prepare) reads the buffers' contents
at every call."""
import ctypes

import numpy as np
import pytest

from acl import DeviceTensor, lib, recent_error, run_two_phase
from acl_args import call, int_array, tensor_list
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


def _refill(tensor, values):
    values = np.ascontiguousarray(values, tensor.storage_dtype)
    assert lib().aclrtMemcpy(tensor.address, tensor.nbytes, values.ctypes.data, tensor.nbytes, 1) == 0


def _rows(seed, shape=(3, 8)):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)


def _twice_on_the_same_buffers(op, arguments, refills):
    """`op` on `arguments`, then again after `refills` ({tensor: values}) rewrote their device memory: the
    second call is the one a prepared call (op.prepare, kept with the views) answers."""
    assert call(op, *arguments) == (0, 0, 0), recent_error()
    for tensor, values in refills.items():
        _refill(tensor, values)
    assert call(op, *arguments) == (0, 0, 0), recent_error()


def test_rms_norm_called_again_on_the_same_buffers_reads_their_new_contents():
    x, gamma = DeviceTensor(_rows(1)), DeviceTensor(_rows(2, (8,)))
    y, rstd = DeviceTensor(np.zeros((3, 8), np.float32)), DeviceTensor(np.zeros((3, 1), np.float32))
    new_x, new_gamma = _rows(3), _rows(4, (8,))
    _twice_on_the_same_buffers("aclnnRmsNorm", (x, gamma, ctypes.c_double(1e-6), y, rstd), {x: new_x, gamma: new_gamma})
    wide = new_x.astype(np.float64)
    expected_rstd = 1 / np.sqrt((wide * wide).mean(axis=1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(rstd.storage().reshape(3, 1), expected_rstd, rtol=2e-6)
    np.testing.assert_allclose(y.storage().reshape(3, 8), wide * expected_rstd * new_gamma, rtol=2e-6, atol=1e-6)


def test_layer_norm_called_again_on_the_same_buffers_reads_their_new_contents():
    x, weight, bias = DeviceTensor(_rows(5)), DeviceTensor(_rows(6, (8,))), DeviceTensor(_rows(7, (8,)))
    out, mean, rstd = (DeviceTensor(np.zeros(shape, np.float32)) for shape in ((3, 8), (3, 1), (3, 1)))
    new = {x: _rows(8), weight: _rows(9, (8,)), bias: _rows(10, (8,))}
    _twice_on_the_same_buffers("aclnnLayerNorm", (x, int_array([8]), weight, bias, ctypes.c_double(1e-5), out,
                                                      mean, rstd), new)
    wide = new[x].astype(np.float64)
    expected_mean = wide.mean(axis=1, keepdims=True)
    expected_rstd = 1 / np.sqrt(((wide - expected_mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(mean.storage().reshape(3, 1), expected_mean, rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(rstd.storage().reshape(3, 1), expected_rstd, rtol=2e-6)
    np.testing.assert_allclose(out.storage().reshape(3, 8),
                               (wide - expected_mean) * expected_rstd * new[weight] + new[bias], rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("op", ["aclnnSoftmax", "aclnnLogSoftmax"])
def test_softmax_called_again_on_the_same_buffers_reads_their_new_contents(op):
    x, out = DeviceTensor(_rows(11)), DeviceTensor(np.zeros((3, 8), np.float32))
    new_x = _rows(12)
    _twice_on_the_same_buffers(op, (x, ctypes.c_int64(-1), out), {x: new_x})
    wide = new_x.astype(np.float64)
    log_softmax = wide - wide.max(axis=1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(axis=1, keepdims=True))
    expected = log_softmax if op == "aclnnLogSoftmax" else np.exp(log_softmax)
    np.testing.assert_allclose(out.storage().reshape(3, 8), expected, rtol=2e-6, atol=1e-6)


def test_reduce_sum_called_again_on_the_same_buffers_reads_their_new_contents():
    x, out = DeviceTensor(_rows(13)), DeviceTensor(np.zeros((3, 1), np.float32))
    new_x = _rows(14)
    _twice_on_the_same_buffers("aclnnReduceSum", (x, int_array([1]), ctypes.c_bool(True), ctypes.c_int(0), out),
                               {x: new_x})
    np.testing.assert_allclose(out.storage().reshape(3, 1), new_x.astype(np.float64).sum(axis=1, keepdims=True),
                               rtol=2e-6, atol=1e-6)
