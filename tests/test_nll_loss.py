"""aclnnNLLLoss, aclnnNLLLoss2d, aclnnNLLLossBackward, aclnnNLLLoss2dBackward (reference §4.7-4.8,
seed 002) through the C ABI: values against PyTorch CPU's nll_loss / nll_loss2d forward and backward
for every dtype, target dtype and reduction, with ignored targets; where the kernel rounds; empty
tensors; views; out-of-range targets; every phase-1 check of each op in its order; the samples."""
import ctypes
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
import torch

import opemu.api
from acl import DeviceTensor, lib, recent_error, run_two_phase
from conftest import ROOT, opemu_only, ops_nn_compile, run_program

NULLPTR, INVALID, RUNTIME, AICORE = 161001, 161002, 361001, 507015
BF16 = np.dtype(ml_dtypes.bfloat16)
SELF_DTYPES = [np.float32, np.float16, BF16]
TARGET_DTYPES = [np.int64, np.int32, np.uint8]
ULP = {np.dtype(np.float32): 2.0 ** -23, np.dtype(np.float16): 2.0 ** -10, BF16: 2.0 ** -7}
P = ctypes.c_void_p
FORWARD = ("aclnnNLLLoss", "aclnnNLLLoss2d")
BACKWARD = ("aclnnNLLLossBackward", "aclnnNLLLoss2dBackward")


def handle(t):
    return P(None) if t is None else P(t.handle)


def forward(op, t, reduction, ignore=-100):
    return run_two_phase(op, handle(t["self"]), handle(t["target"]), handle(t["weight"]), ctypes.c_int64(reduction),
                         ctypes.c_int64(ignore), handle(t["out"]), handle(t["totalWeightOut"]))


def backward(op, t, reduction, ignore=-100):
    return run_two_phase(op, handle(t["gradOutput"]), handle(t["self"]), handle(t["target"]), handle(t["weight"]),
                         ctypes.c_int64(reduction), ctypes.c_int64(ignore), handle(t["totalWeight"]), handle(t["out"]))


def torch_of(array):
    return torch.from_numpy(np.asarray(array, np.float32).copy())


def problem(op, dtype, target_dtype, reduction, rng, ignore):
    """self, target (with some ignored entries), weight for the 1-d/2-d op."""
    shape = (7, 5) if op in ("aclnnNLLLoss", "aclnnNLLLossBackward") else (2, 5, 3, 4)
    x = rng.standard_normal(shape).astype(dtype)
    target_shape = (shape[0],) + shape[2:]
    target = rng.integers(0, 5, target_shape)
    target.reshape(-1)[::4] = ignore
    weight = (rng.random(5) + 0.5).astype(dtype)
    return x, target.astype(target_dtype), weight


def torch_forward(op, x, target, weight, reduction, ignore):
    f = torch.ops.aten.nll_loss_forward if op == "aclnnNLLLoss" else torch.ops.aten.nll_loss2d_forward
    loss, total = f(torch_of(x), torch.from_numpy(target.astype(np.int64)), torch_of(weight), reduction, ignore)
    return loss.numpy(), total.numpy()


def ignore_for(target_dtype):
    return 2 if np.dtype(target_dtype) == np.uint8 else -100  # uint8 cannot hold -100: ignore class 2


# ---- forward values ---------------------------------------------------------------------------

@pytest.mark.parametrize("target_dtype", TARGET_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", SELF_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", FORWARD)
def test_forward_matches_torch_for_every_dtype_and_reduction(op, dtype, reduction, target_dtype):
    rng = np.random.default_rng(10)
    ignore = ignore_for(target_dtype)
    x, target, weight = problem(op, dtype, target_dtype, reduction, rng, ignore)
    loss, total = torch_forward(op, x, target, weight, reduction, ignore)
    t = {"self": DeviceTensor(x), "target": DeviceTensor(target), "weight": DeviceTensor(weight),
         "out": DeviceTensor(np.zeros(loss.shape if reduction == 0 else (1,), dtype)),
         "totalWeightOut": DeviceTensor(np.full(1, 9, dtype))}
    assert forward(op, t, reduction, ignore) == (0, 0, 0), recent_error()
    # fp32 products and sums (summation order differs from torch's), one rounding to self's dtype
    tol = 8 * ULP[np.dtype(dtype)] + (1e-5 if np.dtype(dtype) == np.float32 else 0)
    got = t["out"].storage().astype(np.float32).reshape(loss.shape)
    np.testing.assert_allclose(got, loss.astype(dtype).astype(np.float32), rtol=tol, atol=tol)
    if reduction:
        np.testing.assert_allclose(t["totalWeightOut"].storage().astype(np.float32),
                                   np.float32(total).astype(dtype).astype(np.float32), rtol=tol)


def test_total_weight_out_is_not_written_for_reduction_none():
    rng = np.random.default_rng(11)
    x, target, weight = problem("aclnnNLLLoss", np.float32, np.int64, 0, rng, -100)
    t = {"self": DeviceTensor(x), "target": DeviceTensor(target), "weight": DeviceTensor(weight),
         "out": DeviceTensor(np.zeros(7, np.float32)), "totalWeightOut": DeviceTensor(np.full(1, 9, np.float32))}
    assert forward("aclnnNLLLoss", t, 0) == (0, 0, 0), recent_error()
    assert t["totalWeightOut"].storage()[0] == 9


@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
def test_one_dimensional_self_with_a_scalar_target(reduction):
    x = np.array([-0.5, -1.5, -2.5, -0.1], np.float32)
    weight = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    t = {"self": DeviceTensor(x), "target": DeviceTensor(np.array([2]), shape=()), "weight": DeviceTensor(weight),
         "out": DeviceTensor(np.zeros(1, np.float32), shape=()), "totalWeightOut": DeviceTensor(np.zeros(1, np.float32))}
    assert forward("aclnnNLLLoss", t, reduction) == (0, 0, 0), recent_error()
    loss, total = torch.ops.aten.nll_loss_forward(torch_of(x), torch.tensor(2), torch_of(weight), reduction, -100)
    assert t["out"].storage()[0] == pytest.approx(float(loss))
    if reduction:
        assert t["totalWeightOut"].storage()[0] == pytest.approx(float(total))


def test_out_dtype_may_differ_from_self_and_bf16_results_are_rounded_first():
    rng = np.random.default_rng(12)
    x, target, weight = problem("aclnnNLLLoss", np.float32, np.int64, 2, rng, -100)
    loss, _ = torch_forward("aclnnNLLLoss", x, target, weight, 2, -100)
    t = {"self": DeviceTensor(x), "target": DeviceTensor(target), "weight": DeviceTensor(weight),
         "out": DeviceTensor(np.zeros(1, np.float16)), "totalWeightOut": DeviceTensor(np.zeros(1, np.float64))}
    assert forward("aclnnNLLLoss", t, 2) == (0, 0, 0), recent_error()
    assert t["out"].storage()[0] == np.float16(loss)
    # bf16 self: the kernel's result is bf16; casting it to an fp32 out keeps the bf16 value
    xb, wb = x.astype(BF16), weight.astype(BF16)
    loss_b, _ = torch_forward("aclnnNLLLoss", xb, target, wb, 2, -100)
    t = {"self": DeviceTensor(xb), "target": DeviceTensor(target), "weight": DeviceTensor(wb),
         "out": DeviceTensor(np.zeros(1, np.float32)), "totalWeightOut": DeviceTensor(np.zeros(1, np.float32))}
    assert forward("aclnnNLLLoss", t, 2) == (0, 0, 0), recent_error()
    got = t["out"].storage()[0]
    assert got == np.float32(BF16.type(got)), "an fp32 out of a bf16 self holds a bf16 value"
    assert got == pytest.approx(float(loss_b), rel=2 * ULP[BF16])


@pytest.mark.parametrize("op", FORWARD)
@pytest.mark.parametrize("reduction, expected", [(1, np.nan), (2, 0.0)], ids=["mean_nan", "sum_zero"])
def test_empty_self_writes_nan_for_mean_and_zero_for_sum(op, reduction, expected):
    x = np.zeros((0, 4) if op == "aclnnNLLLoss" else (0, 4, 2, 2), np.float32)
    target = np.zeros((0,) if op == "aclnnNLLLoss" else (0, 2, 2), np.int64)
    t = {"self": DeviceTensor(x), "target": DeviceTensor(target), "weight": DeviceTensor(np.ones(4, np.float32)),
         "out": DeviceTensor(np.full(1, 5, np.float32)), "totalWeightOut": DeviceTensor(np.full(1, 5, np.float32))}
    assert forward(op, t, reduction) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(t["out"].storage(), [expected])
    np.testing.assert_array_equal(t["totalWeightOut"].storage(), [0.0])


def test_strided_self_and_weight_views():
    rng = np.random.default_rng(13)
    storage = rng.standard_normal(2 + 5 * 7).astype(np.float32)
    x = np.lib.stride_tricks.as_strided(storage[2:], (7, 5), (4, 28))  # transpose of a (5, 7) storage
    weight_storage = (rng.random(10) + 0.5).astype(np.float32)
    target = rng.integers(0, 5, 7)
    t = {"self": DeviceTensor(storage, shape=(7, 5), strides=(1, 7), offset=2), "target": DeviceTensor(target),
         "weight": DeviceTensor(weight_storage, shape=(5,), strides=(2,)),
         "out": DeviceTensor(np.zeros(1, np.float32)), "totalWeightOut": DeviceTensor(np.zeros(1, np.float32))}
    assert forward("aclnnNLLLoss", t, 1) == (0, 0, 0), recent_error()
    loss, _ = torch_forward("aclnnNLLLoss", np.ascontiguousarray(x), target, weight_storage[::2], 1, -100)
    assert t["out"].storage()[0] == pytest.approx(float(loss), rel=1e-6)


# ---- backward values --------------------------------------------------------------------------

def torch_backward(op, grad, x, target, weight, reduction, ignore, total):
    f = torch.ops.aten.nll_loss_backward if op == "aclnnNLLLossBackward" else torch.ops.aten.nll_loss2d_backward
    g = torch_of(grad) if reduction == 0 else torch_of(grad).reshape(())
    return f(g, torch_of(x), torch.from_numpy(target.astype(np.int64)), torch_of(weight), reduction, ignore,
             torch_of(total).reshape(())).numpy()


@pytest.mark.parametrize("target_dtype", TARGET_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", SELF_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", BACKWARD)
def test_backward_matches_torch_for_every_dtype_and_reduction(op, dtype, reduction, target_dtype):
    rng = np.random.default_rng(14)
    ignore = ignore_for(target_dtype)
    x, target, weight = problem(op, dtype, target_dtype, reduction, rng, ignore)
    grad = rng.standard_normal(target.shape if reduction == 0 else (1,)).astype(dtype)
    total = np.array([3.75], dtype)  # taken as given, not recomputed
    t = {"gradOutput": DeviceTensor(grad), "self": DeviceTensor(x), "target": DeviceTensor(target),
         "weight": DeviceTensor(weight), "totalWeight": DeviceTensor(total), "out": DeviceTensor(np.full(x.shape, 7, dtype))}
    assert backward(op, t, reduction, ignore) == (0, 0, 0), recent_error()
    # one fp32 product (and quotient), rounded once to self's dtype: exactly torch's fp32 value rounded
    expected = torch_backward(op, grad, x, target, weight, reduction, ignore, total).astype(dtype)
    np.testing.assert_array_equal(t["out"].storage().reshape(x.shape), expected)


def test_mean_backward_takes_total_weight_as_given():
    x = np.zeros((2, 3), np.float32)
    t = {"gradOutput": DeviceTensor(np.array([2.0], np.float32)), "self": DeviceTensor(x),
         "target": DeviceTensor(np.array([1, 2])), "weight": DeviceTensor(np.array([1.0, 2.0, 3.0], np.float32)),
         "totalWeight": DeviceTensor(np.array([8.0], np.float32)), "out": DeviceTensor(x)}
    assert backward("aclnnNLLLossBackward", t, 1) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(t["out"].storage().reshape(2, 3), [[0, -0.5, 0], [0, 0, -0.75]])


def test_backward_one_dimensional_self_with_a_scalar_target():
    t = {"gradOutput": DeviceTensor(np.array([3.0], np.float32), shape=()), "self": DeviceTensor(np.zeros(4, np.float32)),
         "target": DeviceTensor(np.array([1], np.int32), shape=()), "weight": DeviceTensor(np.arange(1, 5, dtype=np.float32)),
         "totalWeight": DeviceTensor(np.array([1.0], np.float32)), "out": DeviceTensor(np.full(4, 7, np.float32))}
    assert backward("aclnnNLLLossBackward", t, 0) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(t["out"].storage(), [0, -6, 0, 0])


def test_backward_one_dimensional_self_with_c_targets_uses_the_first():
    # self (C) with a (C,) target passes the vendor's check (it compares C with the target's size);
    # the kernel sees one sample and reads the first target.
    t = {"gradOutput": DeviceTensor(np.array([1.0], np.float32)), "self": DeviceTensor(np.zeros(3, np.float32)),
         "target": DeviceTensor(np.array([2, 0, 0])), "weight": DeviceTensor(np.ones(3, np.float32)),
         "totalWeight": DeviceTensor(np.array([1.0], np.float32)), "out": DeviceTensor(np.zeros(3, np.float32))}
    assert backward("aclnnNLLLossBackward", t, 2) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(t["out"].storage(), [0, 0, -1])


def test_backward_out_dtype_may_differ_from_self():
    x = np.zeros((2, 3), np.float32)
    t = {"gradOutput": DeviceTensor(np.array([1.0 / 3], np.float32)), "self": DeviceTensor(x),
         "target": DeviceTensor(np.array([0, 2])), "weight": DeviceTensor(np.ones(3, np.float32)),
         "totalWeight": DeviceTensor(np.array([1.0], np.float32)), "out": DeviceTensor(np.zeros((2, 3), np.float16))}
    assert backward("aclnnNLLLossBackward", t, 2) == (0, 0, 0), recent_error()
    assert t["out"].storage()[0] == np.float16(-np.float32(1.0 / 3))


@pytest.mark.parametrize("op", BACKWARD)
def test_backward_empty_self_is_a_no_op(op):
    shape = (0, 3) if op == "aclnnNLLLossBackward" else (0, 3, 2, 2)
    t = {"gradOutput": DeviceTensor(np.ones(1, np.float32)), "self": DeviceTensor(np.zeros(shape, np.float32)),
         "target": DeviceTensor(np.zeros(shape[:1] + shape[2:], np.int64)), "weight": DeviceTensor(np.ones(3, np.float32)),
         "totalWeight": DeviceTensor(np.ones(1, np.float32)), "out": DeviceTensor(np.zeros(shape, np.float32))}
    assert backward(op, t, 1) == (0, 0, 0), recent_error()


def test_backward_into_a_strided_out():
    out_storage = np.full(3 + 2 * 5 * 2 * 3, 9, np.float32)  # (2, 5, 2, 2) inside rows of 3 pixels
    t = {"gradOutput": DeviceTensor(np.array([1.0], np.float32)), "self": DeviceTensor(np.zeros((2, 5, 2, 2), np.float32)),
         "target": DeviceTensor(np.array([[[0, 4], [1, -100]], [[2, 3], [4, 4]]])),
         "weight": DeviceTensor(np.arange(1, 6, dtype=np.float32)), "totalWeight": DeviceTensor(np.ones(1, np.float32)),
         "out": DeviceTensor(out_storage, shape=(2, 5, 2, 2), strides=(30, 6, 3, 1), offset=3)}
    assert backward("aclnnNLLLoss2dBackward", t, 2) == (0, 0, 0), recent_error()
    result = t["out"].storage()
    got = np.lib.stride_tricks.as_strided(result[3:], (2, 5, 2, 2), (120, 24, 12, 4))
    expected = torch_backward("aclnnNLLLoss2dBackward", np.ones(1), np.zeros((2, 5, 2, 2)),
                              np.array([[[0, 4], [1, -100]], [[2, 3], [4, 4]]]), np.arange(1, 6), 2, -100, np.ones(1))
    np.testing.assert_array_equal(got, expected)
    assert (result[3:].reshape(10, 2, 3)[:, :, 2] == 9).all() and (result[:3] == 9).all()


# ---- targets outside [0, C) -------------------------------------------------------------------

STRAY = 3.0039215087890625  # float32 of the bytes 0x40404040 written past a tensor


def fill_past(tensor, byte=0x40):
    """Writes `byte` over the allocator's rounding past a tensor (32-byte rounding + 32 bytes)."""
    end = tensor.nbytes
    lib().aclrtMemset(ctypes.c_void_p(tensor.address.value + end), 32, byte, 32)


def out_of_range_call(op, x, target, weight, soc=None):
    """Runs `op` (reduction none, gradOutput ones) on float32 data; (status, launched, outputs)."""
    if op in FORWARD:
        t = {"self": DeviceTensor(x), "target": DeviceTensor(target), "weight": DeviceTensor(weight),
             "out": DeviceTensor(np.full(target.shape, 7, np.float32)),
             "totalWeightOut": DeviceTensor(np.full(1, 7, np.float32))}
        fill_past(t["self"]), fill_past(t["weight"])
        status, launched, _ = forward(op, t, 0)
        return status, launched, [t["out"], t["totalWeightOut"]]
    t = {"gradOutput": DeviceTensor(np.ones(target.shape, np.float32)), "self": DeviceTensor(x),
         "target": DeviceTensor(target), "weight": DeviceTensor(weight),
         "totalWeight": DeviceTensor(np.ones(1, np.float32)), "out": DeviceTensor(np.full(x.shape, 7, np.float32))}
    fill_past(t["weight"])
    status, launched, _ = backward(op, t, 0)
    return status, launched, [t["out"]]


def test_target_equal_to_c_reads_past_self_and_weight_as_the_device_does():
    # the vendor's aclnnNLLLoss2d example: C = 2 and pixel 4 (h = 2, w = 0) has target 2, whose
    # self[0, 2, 2, 0] lies 16 bytes past self and weight[2] just past weight, both inside the rounding
    x = (np.arange(12, dtype=np.float32) + np.float32(0.1)).reshape(1, 2, 3, 2)
    target = np.array([1, 0, 1, 1, 2, 1], np.int32).reshape(1, 3, 2)
    weight = np.array([1.1, 1.2], np.float32)
    status, launched, (out, _) = out_of_range_call("aclnnNLLLoss2d", x, target, weight)
    assert (status, launched) == (0, 0), recent_error()
    flat, kept = target.reshape(-1), [0, 1, 2, 3, 5]
    expected = -weight[flat[kept]] * x[0, flat[kept], [0, 0, 1, 1, 2], [0, 1, 0, 1, 1]]
    np.testing.assert_allclose(out.storage()[kept], expected, rtol=1e-6)
    assert out.storage()[4] == np.float32(-STRAY * STRAY)


def test_target_equal_to_c_reads_the_next_rows_class_0_in_nll_loss():
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)  # sample 0's class 4 is sample 1's class 0
    status, launched, (out, _) = out_of_range_call("aclnnNLLLoss", x, np.array([4, 1, 2]), np.ones(4, np.float32))
    assert (status, launched) == (0, 0), recent_error()
    np.testing.assert_array_equal(out.storage(), [-STRAY * x[1, 0], -x[1, 1], -x[2, 2]])


@pytest.mark.parametrize("op", BACKWARD)
def test_backward_target_equal_to_c_writes_where_the_device_does(op):
    rng = np.random.default_rng(16)
    x, target, weight = problem(op, np.float32, np.int64, 0, rng, -100)
    target[...] = 1
    target.reshape(-1)[0] = 5  # sample/pixel 0's class 5 is the next sample's class 0 (1-d) or pixel's
    status, launched, (out,) = out_of_range_call(op, x, target, weight)
    assert (status, launched) == (0, 0), recent_error()
    expected = np.zeros(x.shape, np.float32)
    expected[(slice(None), 1) + (slice(None),) * (x.ndim - 2)] = -weight[1]
    expected[(0, 1) + (0,) * (x.ndim - 2)] = 0
    expected.reshape(-1)[5 * int(np.prod(x.shape[2:], dtype=np.int64))] = -STRAY
    np.testing.assert_array_equal(out.storage().reshape(x.shape), expected)


@pytest.mark.parametrize("op", FORWARD + BACKWARD)
@pytest.mark.parametrize("bad", [2 ** 31 - 1, -2 ** 40])
def test_target_outside_every_allocation_is_an_aicore_exception_and_outputs_are_untouched(op, bad):
    rng = np.random.default_rng(15)
    x, target, weight = problem(op, np.float32, np.int64, 0, rng, -100)
    target.reshape(-1)[3] = bad
    status, launched, outputs = out_of_range_call(op, x, target, weight)
    assert (status, launched) == (0, AICORE)
    assert "target[3] = %d is outside the 5 classes" % bad in recent_error()
    assert all((u.storage() == 7).all() for u in outputs)


@pytest.mark.parametrize("op", FORWARD + BACKWARD)
def test_950_kernel_traps_on_a_target_equal_to_c(monkeypatch, op):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    rng = np.random.default_rng(17)
    x, target, weight = problem(op, np.float32, np.int64, 0, rng, -100)
    target.reshape(-1)[3] = 5
    status, launched, outputs = out_of_range_call(op, x, target, weight)
    assert (status, launched) == (0, AICORE)
    assert "target[3] = 5 is outside the 5 classes" in recent_error()
    assert all((u.storage() == 7).all() for u in outputs)


@pytest.fixture(scope="module")
def nll_target_probe(build_dir):
    return ops_nn_compile(ROOT / "tests" / "c" / "nll_target_probe.cpp", build_dir / "nll_target_probe")


def test_vendor_example_with_target_equal_to_c_runs(nll_target_probe):
    result = run_program(nll_target_probe)
    assert result.returncode == 0 and "status 0" in result.stdout, result.stdout + result.stderr
    assert "out[0] = -7.320000" in result.stdout  # -weight[1] * self[0, 1, 0, 0] = -1.2 * 6.1


@opemu_only
def test_opemu_check_reports_a_target_outside_the_classes(nll_target_probe):
    result = subprocess.run([sys.executable, "-m", "opemu.cli", "check", "--", str(nll_target_probe)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert ("opemu check: [out-of-bounds] aclnnNLLLoss2d: target[4] = 2 is outside the 2 classes (and is not "
            "ignoreIndex -100): outside the tensor") in result.stderr, result.stderr


# ---- phase 1 ------------------------------------------------------------------------------------

def valid(op, reduction=1):
    """{parameter: (shape, dtype)} of a valid call."""
    if op in ("aclnnNLLLoss", "aclnnNLLLossBackward"):
        x, target, pixels = (3, 4), (3,), (3,)
    else:
        x, target, pixels = (2, 4, 3, 2), (2, 3, 2), (2, 3, 2)
    spec = {"self": (x, np.float32), "target": (target, np.int64), "weight": ((4,), np.float32)}
    if op in FORWARD:
        spec["out"] = (pixels if reduction == 0 else (1,), np.float32)
        spec["totalWeightOut"] = ((1,), np.float32)
    else:
        spec["gradOutput"] = (pixels if reduction == 0 else (1,), np.float32)
        spec["totalWeight"] = ((1,), np.float32)
        spec["out"] = (x, np.float32)
    return spec


def zeros_tensor(shape, dtype):
    # DeviceTensor keeps NumPy's at-least-1-d storage; a 0-d tensor needs its shape said
    return DeviceTensor(np.zeros(shape, dtype), shape=shape)


def phase1(op, reduction=1, **changes):
    spec = valid(op, reduction)
    for name, change in changes.items():
        spec[name] = change if change is None else (change[0] or spec[name][0], change[1] or spec[name][1])
    tensors = {k: (None if s is None else zeros_tensor(*s)) for k, s in spec.items()}
    call = forward if op in FORWARD else backward
    return call(op, tensors, reduction)[0]


NULLS = [(op, name) for op, names in [
    ("aclnnNLLLoss", ("self", "target", "weight", "out", "totalWeightOut")),
    ("aclnnNLLLoss2d", ("self", "target", "weight", "out", "totalWeightOut")),
    ("aclnnNLLLossBackward", ("gradOutput", "self", "target", "weight", "totalWeight", "out")),
    ("aclnnNLLLoss2dBackward", ("gradOutput", "self", "target", "weight", "out", "totalWeight"))] for name in names]


@pytest.mark.parametrize("op, missing", NULLS, ids=["%s-%s" % n for n in NULLS])
def test_null_tensor_is_param_nullptr_in_the_vendors_order(op, missing):
    # every later tensor is null too: the first null in the vendor's order is the one reported
    names = [name for o, name in NULLS if o == op]
    changes = {name: None for name in names[names.index(missing):]}
    changes.setdefault("target", (None, np.float64))  # a dtype error too: nulls are checked first
    assert phase1(op, **changes) == NULLPTR
    assert "Expected a proper Tensor but got null for argument %s." % missing in recent_error()


F32, F16 = np.float32, np.float16
CHECKS = [
    # (id, op, reduction, changes, message)
    ("weight_dtype_differs_from_self", "aclnnNLLLoss", 1, dict(weight=(None, F16), target=(None, np.int16)),
     "Tensor weight expected dtype is DT_FLOAT but found DT_FLOAT16."),
    ("out_not_castable", "aclnnNLLLoss", 1, dict(out=(None, np.int32)),
     "Result type DT_FLOAT can't be cast to the desired output type DT_INT32."),
    ("total_weight_out_not_castable", "aclnnNLLLoss", 1, dict(totalWeightOut=(None, np.bool_)),
     "Result type DT_FLOAT can't be cast to the desired output type DT_BOOL."),
    ("self_dtype", "aclnnNLLLoss", 1, dict(self=(None, np.float64), weight=(None, np.float64), out=(None, np.float64),
                                           totalWeightOut=(None, np.float64)),
     "Tensor self not implemented for DT_DOUBLE, should be in dtype support list [DT_FLOAT,DT_FLOAT16,DT_BFLOAT16,]."),
    ("target_dtype", "aclnnNLLLoss", 1, dict(target=(None, np.int16)),
     "Tensor target not implemented for DT_INT16, should be in dtype support list [DT_INT64,DT_UINT8,DT_INT32,]."),
    ("reduction", "aclnnNLLLoss", 3, dict(self=((3, 4, 1), None)), "Reduction should be between 0 and 2, but current is 3."),
    ("self_rank", "aclnnNLLLoss", 1, dict(self=((3, 4, 1), None)), "Input tensor should be 1D or 2D."),
    ("target_rank", "aclnnNLLLoss", 1, dict(target=((3, 1), None)),
     "0D or 1D target tensor expected, multi-target not supported."),
    ("batch_mismatch", "aclnnNLLLoss", 1, dict(target=((2,), None)),
     "when self is 1D, target need be 0D; when self is 2D, target need be 1D, and target first dimension need equal "
     "to self first dimension, but (got self: [3, 4], target: [2])"),
    ("weight_shape", "aclnnNLLLoss", 1, dict(weight=((5,), None)),
     "Weight tensor should be defined for all 4 classes but got weight tensor of shape: [5]"),
    ("out_shape_none", "aclnnNLLLoss", 0, dict(out=((2,), None)), "Expect out shape [3], but got: [2]."),
    ("out_single_element", "aclnnNLLLoss", 1, dict(out=((2,), None)), "Expected a single element out tensor, but got: [2]"),
    ("total_weight_out_shape", "aclnnNLLLoss", 2, dict(totalWeightOut=((2,), None)),
     "Shape of totalWeightOut tensor should be [1], but current is [2]."),
    ("no_classes", "aclnnNLLLoss", 1, dict(self=((3, 0), None), weight=((0,), None)), "Target is out of bounds"),
    # NLLLoss2d: self's dtype first, then self against weight
    ("2d_self_dtype_first", "aclnnNLLLoss2d", 1, dict(self=(None, np.float64), weight=(None, F16)),
     "Tensor self not implemented for DT_DOUBLE"),
    ("2d_self_dtype_differs_from_weight", "aclnnNLLLoss2d", 1, dict(weight=(None, F16)),
     "Tensor self expected dtype is DT_FLOAT16 but found DT_FLOAT."),
    ("2d_out_not_castable", "aclnnNLLLoss2d", 1, dict(out=(None, np.int64)),
     "Result type DT_FLOAT can't be cast to the desired output type DT_INT64."),
    ("2d_target_dtype", "aclnnNLLLoss2d", 1, dict(target=(None, np.float32)), "Tensor target not implemented for DT_FLOAT"),
    ("2d_reduction", "aclnnNLLLoss2d", -1, {}, "Reduction should be between 0 and 2, but current is [-1]."),
    ("2d_self_rank", "aclnnNLLLoss2d", 1, dict(self=((2, 4, 3), None)),
     "Input tensor dim should be 4D, other dim not supported."),
    ("2d_weight_classes", "aclnnNLLLoss2d", 1, dict(weight=((5,), None)), "Input tensor x[1] should be equal to weight[0]."),
    ("2d_target_rank", "aclnnNLLLoss2d", 1, dict(target=((2, 6), None)),
     "target tensor dim should be 3D, other dim not supported."),
    ("2d_size_mismatch", "aclnnNLLLoss2d", 1, dict(target=((2, 2, 3), None)),
     "size mismatch got input: [[2, 4, 3, 2]], target: [[2, 2, 3]]."),
    ("2d_out_shape_none", "aclnnNLLLoss2d", 0, dict(out=((2, 6), None)),
     "Expected tensor for out to have same size as tensor for target, but [2, 6] does not equal [2, 3, 2]."),
    ("2d_out_single_element", "aclnnNLLLoss2d", 1, dict(out=((2,), None)),
     "Shape of out tensor should be [1], but current is [2]."),
    ("2d_total_weight_out_shape", "aclnnNLLLoss2d", 1, dict(totalWeightOut=((1, 2), None)),
     "Shape of totalWeightOut tensor should be [1], but current is [1, 2]."),
    # NLLLossBackward
    ("bwd_weight_dtype", "aclnnNLLLossBackward", 1, dict(weight=(None, F16), gradOutput=(None, F16)),
     "Tensor weight expected dtype is DT_FLOAT but found DT_FLOAT16."),
    ("bwd_grad_output_dtype", "aclnnNLLLossBackward", 1, dict(gradOutput=(None, F16)),
     "Tensor gradOutput expected dtype is DT_FLOAT but found DT_FLOAT16."),
    ("bwd_total_weight_dtype", "aclnnNLLLossBackward", 1, dict(totalWeight=(None, F16)),
     "Tensor totalWeight expected dtype is DT_FLOAT but found DT_FLOAT16."),
    ("bwd_out_not_castable", "aclnnNLLLossBackward", 1, dict(out=(None, np.uint8)),
     "Result type DT_FLOAT can't be cast to the desired output type DT_UINT8."),
    ("bwd_target_dtype", "aclnnNLLLossBackward", 1, dict(target=(None, np.uint64)), "Tensor target not implemented for DT_UINT64"),
    ("bwd_reduction", "aclnnNLLLossBackward", 5, dict(out=((4, 3), None)), "Reduction should be between 0 and 2, but current is 5."),
    ("bwd_self_rank", "aclnnNLLLossBackward", 1, dict(self=((3, 4, 1), None)), "Input tensor should be 1D or 2D."),
    ("bwd_target_rank", "aclnnNLLLossBackward", 1, dict(target=((3, 1), None)),
     "0D or 1D target tensor expected, multi-target not supported."),
    ("bwd_size_mismatch", "aclnnNLLLossBackward", 1, dict(target=((2,), None)),
     "Size mismatch (got input: [3, 4], target: [2]) "),
    ("bwd_weight_shape", "aclnnNLLLossBackward", 1, dict(weight=((2, 2), None)),
     "Weight tensor should be defined for all 4 classes but got weight tensor of shape: [2, 2]"),
    ("bwd_total_weight_shape", "aclnnNLLLossBackward", 1, dict(totalWeight=((2,), None)),
     "Expected totalWeight to be a single element tensor, but current is [2]."),
    ("bwd_grad_output_shape_none", "aclnnNLLLossBackward", 0, dict(gradOutput=((1,), None)),
     "Expect gradOutput shape [3], but got: [1]."),
    ("bwd_grad_output_single_element", "aclnnNLLLossBackward", 2, dict(gradOutput=((3,), None)),
     "Expected a single element grad_output tensor, but got: [3]"),
    ("bwd_out_shape", "aclnnNLLLossBackward", 1, dict(out=((4, 3), None)),
     "Expected tensor for self to have same size as tensor for out, but [3, 4] does not equal [4, 3]."),
    # NLLLoss2dBackward: dtypes all equal to self's, shapes before the reduction
    ("2d_bwd_self_dtype_first", "aclnnNLLLoss2dBackward", 1, dict(self=(None, np.int32), gradOutput=(None, F16)),
     "Tensor self not implemented for DT_INT32"),
    ("2d_bwd_grad_output_dtype", "aclnnNLLLoss2dBackward", 1, dict(gradOutput=(None, F16)),
     "Tensor self expected dtype is DT_FLOAT16 but found DT_FLOAT."),
    ("2d_bwd_out_dtype", "aclnnNLLLoss2dBackward", 1, dict(out=(None, F16)),
     "Tensor self expected dtype is DT_FLOAT16 but found DT_FLOAT."),
    ("2d_bwd_total_weight_dtype", "aclnnNLLLoss2dBackward", 1, dict(totalWeight=(None, np.float64)),
     "Tensor self expected dtype is DT_DOUBLE but found DT_FLOAT."),
    ("2d_bwd_grad_output_shape_none", "aclnnNLLLoss2dBackward", 0, dict(gradOutput=((2, 6), None)),
     "Size mismatch (got gradOutput: [2, 6], target: [2, 3, 2]) "),
    ("2d_bwd_grad_output_single_element", "aclnnNLLLoss2dBackward", 1, dict(gradOutput=((1, 1), None)),
     "Expected a single element grad_output tensor, but got: [1, 1]"),
    ("2d_bwd_shape_before_reduction", "aclnnNLLLoss2dBackward", 7, dict(self=((2, 4, 6), None)), "Input tensor should be 4D."),
    ("2d_bwd_target_rank", "aclnnNLLLoss2dBackward", 1, dict(target=((2, 6), None)), "target tensor should be 3D."),
    ("2d_bwd_size_mismatch", "aclnnNLLLoss2dBackward", 1, dict(target=((2, 2, 3), None)),
     "Size mismatch (got input: [2, 4, 3, 2], target: [2, 2, 3]) "),
    ("2d_bwd_weight_numel", "aclnnNLLLoss2dBackward", 1, dict(weight=((5,), None)),
     "Weight tensor should be defined for all 4 classes but got weight tensor of shape: [5]"),
    ("2d_bwd_out_shape", "aclnnNLLLoss2dBackward", 1, dict(out=((2, 4, 2, 3), None)),
     "Shape of Out tensor should be [2, 4, 3, 2], but current is [2, 4, 2, 3]."),
    ("2d_bwd_total_weight_shape", "aclnnNLLLoss2dBackward", 1, dict(totalWeight=((2,), None)),
     "Shape of totalWeight tensor should be [1], but current is [2]."),
    ("2d_bwd_reduction_last", "aclnnNLLLoss2dBackward", 3, {}, "Reduction should be between 0 and 2, but current is 3."),
]


@pytest.mark.parametrize("op, reduction, changes, message", [c[1:] for c in CHECKS], ids=[c[0] for c in CHECKS])
def test_phase1_check_is_param_invalid_with_the_vendors_message(op, reduction, changes, message):
    assert phase1(op, reduction, **changes) == INVALID
    assert message in recent_error()


@pytest.mark.parametrize("op", FORWARD + BACKWARD)
def test_bf16_needs_an_a2_a3_or_950_product(monkeypatch, op):
    bf16 = {name: (None, BF16) for name in valid(op) if name != "target"}
    assert phase1(op, **bf16) == 0, recent_error()
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProB")
    assert phase1(op, **bf16) == INVALID
    assert "should be in dtype support list [DT_FLOAT,DT_FLOAT16,]." in recent_error()


@pytest.mark.parametrize("op, soc, supported", [
    ("aclnnNLLLoss", "Ascend310P3", True), ("aclnnNLLLoss", "Ascend310B1", False),
    ("aclnnNLLLoss2d", "Ascend910_9391", True), ("aclnnNLLLoss2d", "Ascend310B1", False),
    ("aclnnNLLLossBackward", "Ascend310P3", True), ("aclnnNLLLossBackward", "Ascend310B4", False),
    ("aclnnNLLLoss2dBackward", "Ascend910ProB", True), ("aclnnNLLLoss2dBackward", "Ascend310P3", False)])
def test_product_support_follows_the_tables_and_is_checked_last(monkeypatch, op, soc, supported):
    monkeypatch.setenv("OPEMU_SOC", soc)
    assert phase1(op, target=((9,), None)) == INVALID  # parameter errors come first
    assert phase1(op) == (0 if supported else RUNTIME)
    if not supported:
        assert "%s is not supported on %s." % (op, soc) in recent_error()


def test_python_api_runs_the_same_kernels():
    x = np.array([[-1.0, -2.0], [-3.0, -4.0]], np.float32)
    out, total = np.zeros(1, np.float32), np.zeros(1, np.float32)
    opemu.api.call("aclnnNLLLoss", self=x, target=np.array([1, 0]), weight=np.ones(2, np.float32), reduction=2,
                   ignoreIndex=-100, out=out, totalWeightOut=total)
    assert (out[0], total[0]) == (5.0, 2.0)


# ---- samples ------------------------------------------------------------------------------------

def sample_values(build_dir, name):
    result = run_program(ops_nn_compile(ROOT / "samples" / "aclnn" / (name + ".cpp"), build_dir / name))
    assert result.returncode == 0, result.stdout + result.stderr
    values = {}
    for line in result.stdout.splitlines():
        if " result[" in line:
            values.setdefault(line.split()[0], []).append(float(line.split()[-1]))
    return values


def test_nll_loss_sample_prints_the_mean_loss_and_total_weight(build_dir):
    values = sample_values(build_dir, "nll_loss")
    assert values == {"out": pytest.approx([(0.5 * 2.0 + 2.0 * 0.9) / 2.5]), "totalWeightOut": [2.5]}


def test_nll_loss_backward_sample_prints_the_gradient(build_dir):
    expected = np.zeros((3, 4))
    expected[0, 2], expected[2, 1] = -0.5 / 2.5, -2.0 / 2.5
    assert sample_values(build_dir, "nll_loss_backward")["out"] == pytest.approx(expected.reshape(-1).tolist())


def test_nll_loss2d_sample_prints_per_pixel_losses(build_dir):
    assert sample_values(build_dir, "nll_loss2d")["out"] == pytest.approx([0.5, 10.0, 0.0, 3.5])


def test_nll_loss2d_backward_sample_prints_the_gradient(build_dir):
    expected = np.zeros((1, 3, 2, 2))
    expected[0, 0, 0, 0], expected[0, 2, 0, 1], expected[0, 1, 1, 1] = -0.5, -2.0, -1.0
    assert sample_values(build_dir, "nll_loss2d_backward")["out"] == pytest.approx(expected.reshape(-1).tolist())
