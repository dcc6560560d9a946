"""aclnnApplyFusedEmaAdam (reference §4.9, seed 003) through the C ABI: the update against a float64
reference of the seed's formula (written here, apart from the kernel) for every dtype, mode and bias
correction; step read from device memory as given; in-place views; every phase-1 check; the sample."""
import ctypes
import types

import ml_dtypes
import numpy as np
import pytest

import opemu.api
from acl import DeviceTensor, lib, recent_error, run_two_phase
from conftest import ROOT, ops_nn_compile, run_program
from opemu.core import dtypes

NULLPTR, INVALID, TILING, RUNTIME = 161001, 161002, 561002, 361001
BF16 = np.dtype(ml_dtypes.bfloat16)
INT64 = dtypes.acl("INT64")
P = ctypes.c_void_p
NAMES = ("grad", "var", "m", "v", "s")
HYPER = dict(lr=1e-3, ema=0.99, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.05)


def handle(t):
    return P(None) if t is None else P(t.handle)


def apply(t, step, mode=1, bias=True, lr=1e-3, ema=0.99, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.05):
    return run_two_phase("aclnnApplyFusedEmaAdam", *(handle(t[n]) for n in NAMES), handle(step), ctypes.c_double(lr),
                         ctypes.c_double(ema), ctypes.c_double(beta1), ctypes.c_double(beta2), ctypes.c_double(eps),
                         ctypes.c_int64(mode), ctypes.c_bool(bias), ctypes.c_double(weight_decay))


def reference(grad, var, m, v, s, step, mode, bias, lr, ema, beta1, beta2, eps, weight_decay):
    """The seed's formula in float64 (mode other than 0/1: no decay; var's role taken by grad)."""
    grad, var, m, v, s = (np.asarray(x, np.float64) for x in (grad, var, m, v, s))
    c1, c2 = (1 - beta1 ** step, 1 - beta2 ** step) if bias else (1.0, 1.0)
    g = grad + weight_decay * var if mode == 0 else grad
    m_out = beta1 * m + (1 - beta1) * g
    v_out = beta2 * v + (1 - beta2) * g * g
    update = (m_out / c1) / (np.sqrt(v_out / c2) + eps)
    if mode == 1:
        update = update + weight_decay * var
    base = var if mode in (0, 1) else grad
    var_out = base - lr * update
    s_out = ema * s + (1 - ema) * var_out
    return {"var": var_out, "m": m_out, "v": v_out, "s": s_out}


def state(shape, dtype, rng):
    return {"grad": rng.standard_normal(shape).astype(dtype), "var": rng.standard_normal(shape).astype(dtype),
            "m": (0.1 * rng.standard_normal(shape)).astype(dtype), "v": (0.01 * rng.random(shape)).astype(dtype),
            "s": rng.standard_normal(shape).astype(dtype)}


def assert_close(got, expected, dtype):
    """fp32: about ten fp32 operations each rounded; fp16/bf16: the fp32 value rounded once when stored."""
    if np.dtype(dtype) == np.float32:
        tol = 32 * 2.0 ** -24
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, np.abs(expected).max()))
    else:
        ulp = 2.0 ** -10 if np.dtype(dtype) == np.float16 else 2.0 ** -7
        np.testing.assert_allclose(got.astype(np.float64), expected, rtol=ulp, atol=1e-7)


def run(values, step_value, **kw):
    t = {n: DeviceTensor(values[n]) for n in NAMES}
    step = DeviceTensor(np.array([step_value], np.int64))
    assert apply(t, step, **kw) == (0, 0, 0), recent_error()
    shape = values["grad"].shape
    return {n: t[n].storage().reshape(shape) for n in NAMES}, step.storage()


@pytest.mark.parametrize("bias", [True, False], ids=["bias_correction", "no_bias_correction"])
@pytest.mark.parametrize("mode", [0, 1], ids=["l2", "adamw"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_update_matches_the_float64_formula(dtype, mode, bias):
    rng = np.random.default_rng(20)
    values = state((8, 125), dtype, rng)
    got, _ = run(values, 3, mode=mode, bias=bias)
    expected = reference(*(values[n] for n in NAMES), 3, mode, bias, **HYPER)
    for name in ("var", "m", "v", "s"):
        assert_close(got[name], expected[name], dtype)
    np.testing.assert_array_equal(got["grad"], values["grad"])  # grad is read only


def test_step_is_read_from_device_as_int64_and_used_as_given():
    rng = np.random.default_rng(21)
    values = state((300,), np.float32, rng)
    got, step_after = run(values, 7)
    assert step_after[0] == 7  # the caller increments step, not the op
    expected = reference(*(values[n] for n in NAMES), 7, 1, True, **HYPER)
    assert_close(got["var"], expected["var"], np.float32)
    other = reference(*(values[n] for n in NAMES), 8, 1, True, **HYPER)
    assert not np.allclose(got["m"] / (1 - 0.9 ** 7), other["m"] / (1 - 0.9 ** 8))


def test_step_of_any_shape_holding_floats_as_in_the_official_sample():
    # The vendor's sample fills a (2, 2) INT64 step with four floats 10.0 (16 bytes): the kernel
    # reads one int64, 0x4120000041200000, so beta^step is 0 and both corrections are 1.
    rng = np.random.default_rng(22)
    values = state((2, 2, 2), np.float32, rng)
    t = {n: DeviceTensor(values[n]) for n in NAMES}
    step = DeviceTensor(np.full(4, 10.0, np.float32), shape=(2, 2), dtype=INT64)
    assert apply(t, step) == (0, 0, 0), recent_error()
    huge = int(np.full(2, 10.0, np.float32).view(np.int64)[0])
    expected = reference(*(values[n] for n in NAMES), huge, 1, True, **HYPER)
    assert_close(t["var"].storage().reshape(2, 2, 2), expected["var"], np.float32)
    assert_close(t["var"].storage().reshape(2, 2, 2),
                 reference(*(values[n] for n in NAMES), 1, 1, False, **HYPER)["var"], np.float32)


def test_only_the_first_element_of_a_longer_step_is_read():
    rng = np.random.default_rng(23)
    values = state((50,), np.float32, rng)
    t = {n: DeviceTensor(values[n]) for n in NAMES}
    assert apply(t, DeviceTensor(np.array([4, 1000, 1000]))) == (0, 0, 0), recent_error()
    assert_close(t["m"].storage(), reference(*(values[n] for n in NAMES), 4, 1, True, **HYPER)["m"], np.float32)
    empty = DeviceTensor(np.array([5]), shape=(0,))  # an empty step still has its int64 at the address
    t = {n: DeviceTensor(values[n]) for n in NAMES}
    assert apply(t, empty) == (0, 0, 0), recent_error()
    assert_close(t["var"].storage(), reference(*(values[n] for n in NAMES), 5, 1, True, **HYPER)["var"], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, BF16], ids=lambda d: np.dtype(d).name)
def test_a_mode_other_than_0_or_1_updates_from_grad_without_decay(dtype):
    rng = np.random.default_rng(24)
    values = state((64,), dtype, rng)
    got, _ = run(values, 2, mode=2)
    expected = reference(*(values[n] for n in NAMES), 2, 2, True, **HYPER)
    for name in ("var", "m", "v", "s"):
        assert_close(got[name], expected[name], dtype)


def test_updates_strided_views_in_place_and_nothing_else():
    rng = np.random.default_rng(25)
    dense = state((6, 4), np.float32, rng)
    t = {}
    for n in NAMES:  # each tensor: the transpose of a (4, 6) storage, 5 elements in, inside a padded buffer
        storage = np.full(5 + 24 + 3, -7, np.float32)
        storage[5:29] = dense[n].T.reshape(-1)
        t[n] = DeviceTensor(storage, shape=(6, 4), strides=(1, 6), offset=5)
    assert apply(t, DeviceTensor(np.array([2]))) == (0, 0, 0), recent_error()
    expected = reference(*(dense[n] for n in NAMES), 2, 1, True, **HYPER)
    for name in ("var", "m", "v", "s"):
        storage = t[name].storage()
        assert_close(storage[5:29].reshape(4, 6).T, expected[name], np.float32)
        assert (storage[:5] == -7).all() and (storage[29:] == -7).all()


def test_large_tensors_split_across_cores_give_the_same_update():
    rng = np.random.default_rng(26)
    values = state((1 << 19,), np.float32, rng)
    got, _ = run(values, 9, mode=0)
    expected = reference(*(values[n] for n in NAMES), 9, 0, True, **HYPER)
    for name in ("var", "m", "v", "s"):
        assert_close(got[name], expected[name], np.float32)


def _repeatable(t, step):
    """Phase 1 of an AdamW step made repeatable: (executor, workspace size)."""
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    status = lib().aclnnApplyFusedEmaAdamGetWorkspaceSize(
        *(handle(t[n]) for n in NAMES), handle(step), *(ctypes.c_double(HYPER[k]) for k in ("lr", "ema", "beta1")),
        ctypes.c_double(HYPER["beta2"]), ctypes.c_double(HYPER["eps"]), ctypes.c_int64(1), ctypes.c_bool(True),
        ctypes.c_double(HYPER["weight_decay"]), ctypes.byref(size), ctypes.byref(executor))
    assert status == 0, recent_error()
    assert lib().aclSetAclOpExecutorRepeatable(executor) == 0
    return executor, size.value


def _launch(executor, size):
    lib().aclnnApplyFusedEmaAdam.argtypes = [P, ctypes.c_uint64, P, P]
    assert lib().aclnnApplyFusedEmaAdam(None, size, executor, None) == 0, recent_error()
    assert lib().aclrtSynchronizeStream(None) == 0


@pytest.mark.parametrize("setter", ["aclSetInputTensorAddr", "aclSetTensorAddr"])
def test_a_new_address_for_a_ref_input_moves_its_output_too(setter):
    # nnopbase (NnopbaseSetInputTensorAddr → NnopbaseSetRefTensorAddr) gives the new address of
    # var/m/v/s, inputs 1-4, to their outputs as well: the next run reads and updates the new memory.
    rng = np.random.default_rng(27)
    first, second = state((40,), np.float32, rng), state((40,), np.float32, rng)
    t = {n: DeviceTensor(first[n]) for n in NAMES}
    step = DeviceTensor(np.array([3]))
    executor, size = _repeatable(t, step)
    _launch(executor, size)
    once = {n: t[n].storage() for n in NAMES}
    moved = {n: DeviceTensor(second[n]) for n in NAMES}
    for index, name in enumerate(NAMES):  # aclSetTensorAddr counts inputs first: the same indices
        set_addr = getattr(lib(), setter)
        set_addr.argtypes = [P, ctypes.c_size_t, P, P]
        assert set_addr(executor, index, P(t[name].handle), moved[name].address) == 0, recent_error()
    _launch(executor, size)
    assert lib().aclDestroyAclOpExecutor(executor) == 0
    expected = reference(*(second[n] for n in NAMES), 3, 1, True, **HYPER)
    for name in ("var", "m", "v", "s"):
        assert_close(moved[name].storage(), expected[name], np.float32)
    for name in NAMES:  # the first buffers keep the first run's results
        np.testing.assert_array_equal(t[name].storage(), once[name])


def test_empty_tensors_change_nothing():
    t = {n: DeviceTensor(np.zeros((0, 3), np.float32)) for n in NAMES}
    assert apply(t, DeviceTensor(np.array([1]))) == (0, 0, 0), recent_error()


# ---- phase 1 ------------------------------------------------------------------------------------

def tensors(dtype=np.float32, **overrides):
    t = {n: DeviceTensor(np.zeros((2, 3), dtype)) for n in NAMES}
    t["step"] = DeviceTensor(np.array([1]))
    t.update(overrides)
    return t


def check(t, **kw):
    return apply(t, t["step"], **kw)[0]


@pytest.mark.parametrize("missing", ["grad", "varRef", "mRef", "vRef", "sRef", "step"])
def test_null_tensor_is_param_nullptr_in_parameter_order(missing):
    key = {"varRef": "var", "mRef": "m", "vRef": "v", "sRef": "s"}.get(missing, missing)
    order = list(NAMES) + ["step"]
    t = tensors(dtype=np.float64)  # a dtype error too: nulls come first
    for name in order[order.index(key):]:
        t[name] = None
    assert check(t) == NULLPTR
    assert "Check %s != nullptr failed" % missing in recent_error()


def test_mixed_data_dtypes_are_param_invalid_with_the_io_list():
    t = tensors(var=DeviceTensor(np.zeros((2, 3), np.float16)))
    assert check(t) == INVALID
    assert ("Io input dtype or format is not supported, get io input info is grad(DT_FLOAT, ND) var(DT_FLOAT16, ND) "
            "m(DT_FLOAT, ND) v(DT_FLOAT, ND) s(DT_FLOAT, ND) step(DT_INT64, ND) var(DT_FLOAT16, ND)") in recent_error()


@pytest.mark.parametrize("dtype", [np.float64, np.int32], ids=["double", "int32"])
def test_data_dtype_outside_fp32_fp16_bf16_is_param_invalid(dtype):
    assert check(tensors(dtype=dtype)) == INVALID
    assert "Io input dtype or format is not supported" in recent_error()


def test_step_must_be_int64():
    assert check(tensors(step=DeviceTensor(np.array([1], np.int32)))) == INVALID
    assert "step(DT_INT32, ND)" in recent_error()


def test_step_with_a_negative_dim_is_param_invalid():
    """Only step's first element is read, but a negative dim is refused as for every tensor (the fuzz suite's
    finding: the read-one-element view had hidden it)."""
    step = DeviceTensor(np.array([1], np.int64), shape=(-1,), strides=(1,))
    assert check(tensors(step=step)) == INVALID
    assert "Tensor step has a negative dim, stride or offset" in recent_error()


def test_private_format_is_param_invalid():
    t = tensors()
    dims = (ctypes.c_int64 * 2)(2, 3)
    nz = lib().aclCreateTensor(dims, 2, 0, None, 0, 29, dims, 2, t["m"].address)  # ACL_FORMAT_FRACTAL_NZ
    t["m"] = types.SimpleNamespace(handle=nz)
    assert check(t) == INVALID
    assert "m(DT_FLOAT, FRACTAL_NZ)" in recent_error()
    lib().aclDestroyTensor(nz)


def test_shapes_that_differ_fail_in_tiling():
    assert check(tensors(s=DeviceTensor(np.zeros((3, 2), np.float32)))) == TILING
    assert "Input grad, var, m, v, s should keep equal shape." in recent_error()


def test_scalars_are_not_range_checked():
    assert check(tensors(), lr=-5.0, beta1=3.0, eps=0.0, mode=-4) == 0, recent_error()


@pytest.mark.parametrize("soc, code", [("Ascend910B4", 0), ("Ascend910_9372", 0), ("Ascend910ProB", RUNTIME),
                                       ("Ascend310P3", RUNTIME), ("Ascend310B1", RUNTIME)])
def test_product_support_follows_the_seed_table_and_is_checked_last(monkeypatch, soc, code):
    monkeypatch.setenv("OPEMU_SOC", soc)
    assert check(tensors(step=DeviceTensor(np.array([1], np.int32)))) == INVALID
    assert check(tensors()) == code
    if code:
        assert "aclnnApplyFusedEmaAdam is not supported on %s." % soc in recent_error()


def test_python_api_updates_in_place():
    rng = np.random.default_rng(27)
    values = state((40,), np.float32, rng)
    arrays = {n: values[n].copy() for n in NAMES}
    opemu.api.call("aclnnApplyFusedEmaAdam", grad=arrays["grad"], varRef=arrays["var"], mRef=arrays["m"],
                   vRef=arrays["v"], sRef=arrays["s"], step=np.array([2]), lr=1e-3, emaDecay=0.99, beta1=0.9,
                   beta2=0.999, eps=1e-8, mode=1, biasCorrection=True, weightDecay=0.05)
    assert_close(arrays["s"], reference(*(values[n] for n in NAMES), 2, 1, True, **HYPER)["s"], np.float32)


def test_sample_prints_one_adamw_step(build_dir):
    result = run_program(ops_nn_compile(ROOT / "samples" / "aclnn" / "apply_fused_ema_adam.cpp", build_dir / "ema"))
    assert result.returncode == 0, result.stdout + result.stderr
    values = {}
    for line in result.stdout.splitlines():
        if " result[" in line:
            values.setdefault(line.split()[0], []).append(float(line.split()[-1]))
    grad, var = np.array([0.1, -0.2, 0.3, -0.4]), np.array([1.0, 2.0, 3.0, 4.0])
    expected = reference(grad, var, np.zeros(4), np.zeros(4), var, 1, 1, True, lr=0.01, ema=0.9, beta1=0.9,
                         beta2=0.999, eps=1e-8, weight_decay=0.5)
    for name in ("var", "m", "v", "s"):
        assert values[name] == pytest.approx(expected[name].tolist(), abs=2e-6)
