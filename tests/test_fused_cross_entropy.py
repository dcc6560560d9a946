"""The vocab-parallel cross-entropy operators (reference §4.2–4.4, §5; seed 000) through the C ABI:
the whole sharded pipeline against PyTorch CPU autograd over the full vocabulary, the mask bits
and masked targets against the kernel's golden formula, every check path, the workspace, and the
samples."""
import ctypes
import os

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, lib, recent_error, run_two_phase
from conftest import ROOT, ops_nn_compile, run_program
from opemu.core import parallel

BF16, FP16 = np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)
UNIT_ROUNDOFF = {BF16: 2.0 ** -8, FP16: 2.0 ** -11}
NULLPTR, INVALID, RUNTIME, AICORE = 161001, 161002, 361001, 507015
P = ctypes.c_void_p


def handle(t):
    return P(t.handle) if t is not None else P(None)


# ---- the operators through the C ABI -------------------------------------------------------

def online_max_sum(x, w, target, start, end, want_logits=False):
    m, n = x.shape[0], w.shape[0]
    t = dict(input=DeviceTensor(x), weight=DeviceTensor(w), target=DeviceTensor(target),
             mx=DeviceTensor(np.zeros(m, np.float32)), se=DeviceTensor(np.zeros(m, np.float32)),
             pred=DeviceTensor(np.zeros(m, np.float32)), mask=DeviceTensor(np.zeros((m + 7) // 8, np.uint8)),
             mt=DeviceTensor(np.zeros(m, target.dtype)),
             vpl=DeviceTensor(np.zeros((m, n), x.dtype)) if want_logits else None)
    status = run_two_phase("aclnnFusedLinearOnlineMaxSum", handle(t["input"]), handle(t["weight"]), handle(t["target"]),
                           ctypes.c_int64(start), ctypes.c_int64(end), *(handle(t[k]) for k in
                                                                          ("mx", "se", "pred", "mask", "mt", "vpl")))
    assert status == (0, 0, 0), recent_error()
    out = {k: t[k].storage() for k in ("mx", "se", "pred", "mask", "mt")}
    if want_logits:
        out["vpl"] = t["vpl"].storage().reshape(m, n)
    return out


def loss_with_max_sum(row_max, sum_exp, predicted, logits=None):
    m = row_max.shape[0]
    t = [DeviceTensor(row_max), DeviceTensor(sum_exp), DeviceTensor(predicted)]
    loss = DeviceTensor(np.zeros(m, np.float32))
    vpl = DeviceTensor(logits) if logits is not None else None
    softmax = DeviceTensor(np.zeros(logits.shape, np.float32)) if logits is not None else None
    status = run_two_phase("aclnnFusedCrossEntropyLossWithMaxSum", *(handle(x) for x in t), ctypes.c_float(0),
                           P(None), P(None), handle(vpl), handle(loss), handle(softmax))
    assert status == (0, 0, 0), recent_error()
    return loss.storage(), (softmax.storage().reshape(logits.shape) if logits is not None else None)


def loss_grad(grad, x, w, mask, masked_target, row_max=None, sum_exp=None, softmax=None):
    bt, h = x.shape
    t = [DeviceTensor(grad), DeviceTensor(x), DeviceTensor(w), DeviceTensor(mask), DeviceTensor(masked_target)]
    stats = [DeviceTensor(a) if a is not None else None for a in (row_max, sum_exp, softmax)]
    dx, dw = DeviceTensor(np.zeros((bt, h), x.dtype)), DeviceTensor(np.zeros(w.shape, x.dtype))
    status = run_two_phase("aclnnFusedLinearCrossEntropyLossGrad", *(handle(a) for a in t), ctypes.c_float(0),
                           *(handle(a) for a in stats), handle(dx), handle(dw))
    assert status == (0, 0, 0), recent_error()
    return dx.storage().reshape(bt, h), dw.storage().reshape(w.shape)


# ---- the pipeline over shards, with the host all-reduce ------------------------------------

def sharded_forward_backward(x, w, target, grad, splits, high_performance):
    shards = []
    for start, end in zip(splits[:-1], splits[1:]):
        out = online_max_sum(x, w[start:end], target, start, end, want_logits=high_performance)
        shards.append((start, end, out))
    global_max = np.max([o["mx"] for _, _, o in shards], axis=0)
    sum_exp = np.zeros_like(global_max)
    predicted = np.zeros_like(global_max)
    for start, end, o in shards:
        sum_exp += o["se"] * np.exp(o["mx"] - global_max)
        inside = ~np.unpackbits(o["mask"], bitorder="little")[:len(target)].astype(bool)
        predicted += np.where(inside, o["pred"] + o["mx"] - global_max, 0).astype(np.float32)
    loss, _ = loss_with_max_sum(global_max, sum_exp, predicted)
    dx = np.zeros(x.shape, np.float64)
    dw = []
    for start, end, o in shards:
        if high_performance:
            _, softmax = loss_with_max_sum(global_max, sum_exp, predicted, o["vpl"])
            part = loss_grad(grad, x, w[start:end], o["mask"], o["mt"], softmax=softmax)
        else:
            part = loss_grad(grad, x, w[start:end], o["mask"], o["mt"], row_max=global_max, sum_exp=sum_exp)
        dx += part[0].astype(np.float64)
        dw.append(part[1].astype(np.float64))
    return loss, dx, np.concatenate(dw)


def torch_reference(x, w, target, grad):
    """PyTorch CPU autograd of linear + cross_entropy over the full vocabulary, in float64."""
    xt = torch.tensor(x.astype(np.float64), requires_grad=True)
    wt = torch.tensor(w.astype(np.float64), requires_grad=True)
    loss = torch.nn.functional.cross_entropy(xt @ wt.T, torch.tensor(target.astype(np.int64)), reduction="none")
    (loss * torch.tensor(grad.astype(np.float64))).sum().backward()
    return loss.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()


def logits_rounded():
    """FusedLinearOnlineMaxSum's matmul writes its logits in the input dtype on every product but the
    Ascend 950, so the statistics it returns come from rounded logits."""
    return not os.environ.get("OPEMU_SOC", "Ascend910B1").startswith("Ascend950")


def softmax64(x, w):
    logits = x.astype(np.float64) @ w.astype(np.float64).T
    p = np.exp(logits - logits.max(1, keepdims=True))
    return logits, p / p.sum(1, keepdims=True)


def loss_bound(x, w, target, dtype):
    """A logit rounded to the input dtype moves by at most u·|l|, so log Σ exp(l) - l_target moves
    by at most u·(Σ p·|l| + |l_target|); fp32 arithmetic adds a few ulps."""
    logits, p = softmax64(x, w)
    u = UNIT_ROUNDOFF[dtype] * logits_rounded()
    l_target = np.abs(logits[np.arange(len(target)), target])
    return u * ((p * np.abs(logits)).sum(1) + l_target) + 1e-5 * (1 + np.abs(logits).max(1))


def gradient_bound(x, w, target, grad, shards, dtype, high_performance):
    """Where the kernel rounds: G to the half dtype (|error| ≤ u|G| each) before both matmuls,
    each shard's result to the half dtype (≤ u|result|); so per element
    |error| ≤ u·(|G|@|W|) + u·Σ_shards |partial| (input grad) and u·(|G|ᵀ@|X|) + u·|dW| (weight grad).
    G also inherits the rounding of the logits its statistics (and, in high-performance mode, its
    softmax) came from: a logit off by u|l| moves p by p·u·(|l| + Σ p|l|)."""
    u = UNIT_ROUNDOFF[dtype]
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    logits, p = softmax64(x, w)
    inherited = high_performance or logits_rounded()
    logit_error = p * u * (np.abs(logits) + (p * np.abs(logits)).sum(1, keepdims=True)) * inherited
    p[np.arange(len(target)), target] -= 1
    g = np.abs(p * grad[:, None])
    moved = 2 * logit_error * grad[:, None]
    partials = sum(np.abs(g[:, a:b] @ w64[a:b]) for a, b in zip(shards[:-1], shards[1:]))
    slack = 1e-6  # fp32 accumulation and the statistics' own fp32 rounding
    bound_dx = 2 * u * (g @ np.abs(w64)) + u * partials + moved @ np.abs(w64) + slack
    bound_dw = 2 * u * (g.T @ np.abs(x64)) + u * np.abs(g.T @ x64) + moved.T @ np.abs(x64) + slack
    return bound_dx, bound_dw


@pytest.mark.parametrize("high_performance", [False, True], ids=["memory_saving", "high_performance"])
@pytest.mark.parametrize("dtype", [BF16, FP16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("splits", [(0, 300), (0, 128, 300), (0, 150, 151, 300)], ids=["1shard", "2shards", "3shards"])
def test_sharded_pipeline_matches_torch_autograd(dtype, splits, high_performance):
    rng = np.random.default_rng(len(splits))
    bt, h = 37, 48  # BT not a multiple of 8
    x = rng.standard_normal((bt, h)).astype(dtype)
    w = (rng.standard_normal((splits[-1], h)) * 0.3).astype(dtype)
    target = rng.integers(0, splits[-1], bt).astype(np.int32)
    target[:3] = [0, splits[-1] - 1, 150]  # edges of the shards
    grad = rng.uniform(0.5, 1.5, bt).astype(np.float32)
    if high_performance and min(np.diff(splits)) < 128:
        with pytest.raises(AssertionError, match=r"weight.size\(0\) < 128 is not supported"):
            sharded_forward_backward(x, w, target, grad, splits, high_performance)  # V < 128 with softmax
        return
    loss, dx, dw = sharded_forward_backward(x, w, target, grad, splits, high_performance)
    ref_loss, ref_dx, ref_dw = torch_reference(x, w, target, grad)
    assert (np.abs(loss - ref_loss) <= loss_bound(x, w, target, dtype)).all()
    bound_dx, bound_dw = gradient_bound(x, w, target, grad, splits, dtype, high_performance)
    assert (np.abs(dx - ref_dx) <= bound_dx).all(), np.max(np.abs(dx - ref_dx) / bound_dx)
    assert (np.abs(dw - ref_dw) <= bound_dw).all(), np.max(np.abs(dw - ref_dw) / bound_dw)


@pytest.mark.parametrize("high_performance", [False, True], ids=["memory_saving", "high_performance"])
def test_several_vocabulary_chunks_row_blocks_and_slabs_match_torch_autograd(high_performance):
    """V = 1300 is one full 1024-column chunk and a partial one (bf16 walks 1024-column chunks in both modes);
    BT = 1100 is six row blocks of the G tile and many 64-row slabs, so every accumulation seam is crossed."""
    rng = np.random.default_rng(12)
    bt, h, v = 1100, 8, 1300
    x = rng.standard_normal((bt, h)).astype(BF16)
    w = (rng.standard_normal((v, h)) * 0.5).astype(BF16)
    target = rng.integers(0, v, bt).astype(np.int64)
    grad = rng.uniform(0.5, 1.5, bt).astype(np.float32)
    loss, dx, dw = sharded_forward_backward(x, w, target, grad, (0, v), high_performance)
    ref_loss, ref_dx, ref_dw = torch_reference(x, w, target, grad)
    assert (np.abs(loss - ref_loss) <= loss_bound(x, w, target, BF16)).all()
    bound_dx, bound_dw = gradient_bound(x, w, target, grad, (0, v), BF16, high_performance)
    assert (np.abs(dx - ref_dx) <= bound_dx).all(), np.max(np.abs(dx - ref_dx) / bound_dx)
    assert (np.abs(dw - ref_dw) <= bound_dw).all(), np.max(np.abs(dw - ref_dw) / bound_dw)


@pytest.mark.parametrize("target_dtype", [np.int32, np.int64])
def test_mask_bits_and_masked_targets_follow_the_kernel(target_dtype):
    rng = np.random.default_rng(7)
    bt, start, end = 29, 40, 90
    target = rng.integers(0, 130, bt).astype(target_dtype)
    target[:4] = [start - 1, start, end - 1, end]  # end is exclusive (the docs' `>` is wrong)
    out = online_max_sum(rng.standard_normal((bt, 16)).astype(BF16), rng.standard_normal((end - start, 16)).astype(BF16),
                         target, start, end)
    padded = np.concatenate([target, np.zeros(-bt % 8, target_dtype)])  # padding targets are 0, not 1s
    bits = ((padded < start) | (padded >= end)).reshape(-1, 8)
    golden = np.packbits(np.flip(bits, 1))  # the Huawei golden's packing: LSB-first
    np.testing.assert_array_equal(out["mask"], golden)
    outside = (target < start) | (target >= end)
    np.testing.assert_array_equal(out["mt"], np.where(outside, 0, target - start))
    assert out["mt"].dtype == target_dtype


def test_predicted_logits_and_statistics_in_fp32_on_ascend_950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((20, 32)).astype(FP16), rng.standard_normal((1100, 32)).astype(FP16)
    target = rng.integers(0, 1400, 20).astype(np.int64)
    out = online_max_sum(x, w, target, 100, 1200, want_logits=True)
    logits = x.astype(np.float64) @ w.astype(np.float64).T
    np.testing.assert_allclose(out["mx"], logits.max(1), rtol=1e-5)
    np.testing.assert_allclose(out["se"], np.exp(logits - logits.max(1, keepdims=True)).sum(1), rtol=1e-5)
    inside = (target >= 100) & (target < 1200)
    expected = np.where(inside, logits[np.arange(20), np.clip(target - 100, 0, 1099)] - logits.max(1), 0)
    np.testing.assert_allclose(out["pred"], expected, rtol=1e-5, atol=1e-5)
    # fp32 accumulation, then one rounding to fp16
    np.testing.assert_allclose(out["vpl"].astype(np.float64), logits, rtol=2.0 ** -10, atol=1e-6)


@pytest.mark.parametrize("soc,rounded", [("Ascend910B1", True), ("Ascend910_9391", True), ("Ascend950PR_9599", False)])
def test_statistics_come_from_logits_in_the_input_dtype_except_on_ascend_950(monkeypatch, soc, rounded):
    """Operands on a 1/8 grid with H=32 give logits that fp32 holds exactly and bf16 (8 bits) must
    round above 32: the statistics show which logits the kernel reduced."""
    monkeypatch.setenv("OPEMU_SOC", soc)
    rng = np.random.default_rng(11)
    x = (rng.integers(-16, 17, (12, 32)) / 2).astype(BF16)
    w = (rng.integers(-16, 17, (700, 32)) / 4).astype(BF16)
    target = rng.integers(0, 700, 12).astype(np.int32)
    out = online_max_sum(x, w, target, 0, 700)
    logits = x.astype(np.float64) @ w.astype(np.float64).T
    assert not np.array_equal(logits.astype(BF16).astype(np.float64), logits)  # the grid does need rounding
    if rounded:
        logits = logits.astype(BF16).astype(np.float64)
    np.testing.assert_array_equal(out["mx"], logits.max(1))
    np.testing.assert_allclose(out["se"], np.exp(logits - logits.max(1, keepdims=True)).sum(1), rtol=1e-5)
    np.testing.assert_array_equal(out["pred"], logits[np.arange(12), target] - logits.max(1))


def test_loss_ignores_input_and_weight_optional():
    rng = np.random.default_rng(4)
    mx, se, pred = (rng.uniform(1, 2, 6).astype(np.float32) for _ in range(3))
    ignored = DeviceTensor(np.full((6, 6), np.nan, np.float32))
    loss = DeviceTensor(np.zeros(6, np.float32))
    assert run_two_phase("aclnnFusedCrossEntropyLossWithMaxSum", *(P(DeviceTensor(a).handle) for a in (mx, se, pred)),
                         ctypes.c_float(0), P(ignored.handle), P(ignored.handle), P(None), P(loss.handle), P(None)) \
        == (0, 0, 0)
    np.testing.assert_allclose(loss.storage(), np.log(se) - pred, rtol=1e-6)


def test_bool_target_mask_is_accepted():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((9, 16)).astype(BF16), rng.standard_normal((130, 16)).astype(BF16)
    target = rng.integers(0, 130, 9).astype(np.int64)
    out = online_max_sum(x, w, target, 0, 130)
    bits = np.unpackbits(out["mask"], bitorder="little")[:9].astype(bool)
    grad = np.ones(9, np.float32)
    packed = loss_grad(grad, x, w, out["mask"], out["mt"], row_max=out["mx"], sum_exp=out["se"])
    as_bool = loss_grad(grad, x, w, bits, out["mt"], row_max=out["mx"], sum_exp=out["se"])
    np.testing.assert_array_equal(packed[0], as_bool[0])
    np.testing.assert_array_equal(packed[1], as_bool[1])


def test_results_are_deterministic():
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((70, 24)).astype(BF16), rng.standard_normal((600, 24)).astype(BF16)
    target = rng.integers(0, 600, 70)
    out = online_max_sum(x, w, target, 0, 600)
    args = (rng.standard_normal(70).astype(np.float32), x, w, out["mask"], out["mt"])
    first = loss_grad(*args, row_max=out["mx"], sum_exp=out["se"])
    second = loss_grad(*args, row_max=out["mx"], sum_exp=out["se"])
    assert first[0].tobytes() == second[0].tobytes() and first[1].tobytes() == second[1].tobytes()


# ---- phase-1 checks of aclnnFusedLinearCrossEntropyLossGrad, in the vendor's order ----------

def grad_call(**change):
    bt, h, v = 16, 8, 128
    tensors = dict(grad=np.ones(bt, np.float32), input=np.ones((bt, h), BF16), weight=np.ones((v, h), BF16),
                   targetMask=np.zeros(2, np.uint8), maskedTarget=np.zeros(bt, np.int64),
                   logitsMaxOptional=np.zeros(bt, np.float32), sumExpLogitsOptional=np.ones(bt, np.float32),
                   softmaxOptional=None, inputGradOut=np.zeros((bt, h), BF16), weightGradOut=np.zeros((v, h), BF16))
    label_smoothing = change.pop("labelSmoothing", 0.0)
    tensors.update(change)
    order = ["grad", "input", "weight", "targetMask", "maskedTarget", "logitsMaxOptional", "sumExpLogitsOptional",
             "softmaxOptional", "inputGradOut", "weightGradOut"]
    device = {k: DeviceTensor(a) if a is not None else None for k, a in tensors.items()}
    args = [handle(device[k]) for k in order]
    return run_two_phase("aclnnFusedLinearCrossEntropyLossGrad", *args[:5], ctypes.c_float(label_smoothing),
                         *args[5:])[0]


GRAD_CHECKS = [
    ("null_statistics_without_softmax", dict(logitsMaxOptional=None), NULLPTR,
     "softmaxOptional can not be nullptr when logitsMaxOptional or sumExpLogitsOptional is nullptr"),
    ("null_grad", dict(grad=None, input=np.ones((16, 8), np.float32)), NULLPTR,
     "Expected a proper Tensor but got null for argument grad."),
    ("grad_dtype", dict(grad=np.ones(16, np.float16)), INVALID,
     "Tensor grad not implemented for DT_FLOAT16, should be in dtype support list [DT_FLOAT,]."),
    ("input_dtype", dict(input=np.ones((16, 8), np.float32)), INVALID,
     "Tensor input not implemented for DT_FLOAT, should be in dtype support list [DT_FLOAT16,DT_BFLOAT16,]."),
    ("target_mask_dtype", dict(targetMask=np.zeros(2, np.int8)), INVALID,
     "Tensor targetMask not implemented for DT_INT8, should be in dtype support list [DT_BOOL,DT_UINT8,]."),
    ("masked_target_dtype", dict(maskedTarget=np.zeros(16, np.int16)), INVALID, "Tensor maskedTarget not implemented"),
    ("weight_dtype_differs", dict(weight=np.ones((128, 8), FP16)), INVALID,
     "Expected both tensors to have same dtype, but found input DT_BFLOAT16 and weight DT_FLOAT16."),
    ("output_dtype_differs", dict(inputGradOut=np.zeros((16, 8), FP16)), INVALID,
     "Expected both tensors to have same dtype, but found input DT_BFLOAT16 and inputGradOut DT_FLOAT16."),
    ("label_smoothing", dict(labelSmoothing=0.1), INVALID,
     "aclnnFusedLinearCrossEntropyLossGrad currently only support labelSmoothing equals 0."),
    ("grad_rank", dict(grad=np.ones((16, 1), np.float32)), INVALID, "Expected 1 dimension input, but got grad"),
    ("rows_differ", dict(grad=np.ones(15, np.float32)), INVALID, "input.size(0) should be equal to grad.size(0)"),
    ("small_vocab_with_softmax", dict(weight=np.ones((100, 8), BF16), weightGradOut=np.zeros((100, 8), BF16),
                                      softmaxOptional=np.zeros((16, 100), np.float32)), INVALID,
     "weight.size(0) < 128 is not supported"),
    ("hidden_differs", dict(weight=np.ones((128, 9), BF16)), INVALID, "weight.size(1) should be equal to input.size(1)"),
    ("bool_mask_length", dict(targetMask=np.zeros(15, np.bool_)), INVALID,
     "targetMask.size(0) should be equal to grad.size(0) when targetMask is in BOOL"),
    ("uint8_mask_too_short", dict(targetMask=np.zeros(1, np.uint8)), INVALID,
     "targetMask.size(0) * 8 should not be less than grad.size(0) when targetMask is in UINT8"),
    ("masked_target_length", dict(maskedTarget=np.zeros(17, np.int64)), INVALID,
     "maskedTarget.size(0) should be equal to grad.size(0)"),
    ("weight_grad_shape_is_v_by_h", dict(weightGradOut=np.zeros((128, 16), BF16)), INVALID,
     "Expected tensor for weightGradOut to have same size as [128, 8], but got [128, 16]."),
]


@pytest.mark.parametrize("change,code,message", [c[1:] for c in GRAD_CHECKS], ids=[c[0] for c in GRAD_CHECKS])
def test_grad_check_paths(change, code, message):
    assert grad_call(**change) == code
    assert message in recent_error()


def test_grad_small_vocab_is_fine_in_memory_saving_mode():
    assert grad_call(weight=np.ones((100, 8), BF16), weightGradOut=np.zeros((100, 8), BF16)) == 0


def test_grad_unsupported_product_is_runtime_error(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert grad_call() == RUNTIME
    assert "Current platform is not supported" in recent_error()


def test_grad_empty_input_needs_no_workspace():
    assert grad_call(input=np.ones((0, 8), BF16), grad=np.ones(0, np.float32), maskedTarget=np.zeros(0, np.int64),
                     logitsMaxOptional=np.zeros(0, np.float32), sumExpLogitsOptional=np.zeros(0, np.float32),
                     inputGradOut=np.zeros((0, 8), BF16)) == 0


ONLINE_CHECKS = [
    ("null_target", dict(target=None), NULLPTR, "Expected a proper Tensor but got null for argument target."),
    ("input_dtype", dict(input=np.ones((9, 8), np.float32)), INVALID, "Tensor input not implemented for DT_FLOAT"),
    ("stat_dtype", dict(logitsMaxLocalOut=np.zeros(9, FP16)), INVALID,
     "Tensor logitsMaxLocalOut expected dtype is DT_FLOAT but found DT_FLOAT16."),
    ("mask_dtype", dict(targetMaskOut=np.zeros(2, np.int8)), INVALID,
     "Tensor targetMaskOut expected dtype is DT_UINT8 but found DT_INT8."),
    ("masked_target_dtype", dict(maskedTargetOut=np.zeros(9, np.int32)), INVALID,
     "Expected both tensors to have same dtype, but found maskedTargetOut DT_INT32 and target DT_INT64."),
    ("empty_vocabulary", dict(weight=np.ones((0, 8), BF16)), INVALID, "weight.size(0) should be greater than 0."),
    ("hidden_differs", dict(weight=np.ones((4, 7), BF16)), INVALID,
     "weight.size(1) should be equal to input.size(1), but got weight [9, 8], input [4, 7]"),
    ("mask_length", dict(targetMaskOut=np.zeros(1, np.uint8)), INVALID,
     "Expected tensor for targetMaskOut to have same size as [2], but got [1]."),
    ("logits_shape", dict(vocabParallelLogitsOutOptional=np.zeros((9, 5), BF16)), INVALID,
     "Expected tensor for vocabParallelLogitsOutOptional to have same size as [9, 4], but got [9, 5]."),
    ("negative_start", dict(vocabStartIndex=-1), INVALID, "vocabStartIndex should be greater than or equal to 0"),
    ("end_before_start", dict(vocabStartIndex=5, vocabEndIndex=4), INVALID,
     "vocabEndIndex should be greater than or equal to vocabStartIndex, but got vocabEndIndex 4, vocabStartIndex 5"),
]


@pytest.mark.parametrize("change,code,message", [c[1:] for c in ONLINE_CHECKS], ids=[c[0] for c in ONLINE_CHECKS])
def test_online_max_sum_check_paths(change, code, message):
    values = dict(input=np.ones((9, 8), BF16), weight=np.ones((4, 8), BF16), target=np.zeros(9, np.int64),
                  logitsMaxLocalOut=np.zeros(9, np.float32), sumExpLogitsLocalOut=np.zeros(9, np.float32),
                  predictedLogitsLocalOut=np.zeros(9, np.float32), targetMaskOut=np.zeros(2, np.uint8),
                  maskedTargetOut=np.zeros(9, np.int64), vocabParallelLogitsOutOptional=None,
                  vocabStartIndex=0, vocabEndIndex=4)
    values.update(change)
    tensors = [handle(DeviceTensor(values[k]) if values[k] is not None else None)
               for k in ("input", "weight", "target", "logitsMaxLocalOut", "sumExpLogitsLocalOut",
                         "predictedLogitsLocalOut", "targetMaskOut", "maskedTargetOut",
                         "vocabParallelLogitsOutOptional")]
    status = run_two_phase("aclnnFusedLinearOnlineMaxSum", *tensors[:3], ctypes.c_int64(values["vocabStartIndex"]),
                           ctypes.c_int64(values["vocabEndIndex"]), *tensors[3:])[0]
    assert status == code
    assert message in recent_error()


LOSS_CHECKS = [
    ("null_loss", dict(lossOut=None), NULLPTR, "Expected a proper Tensor but got null for argument lossOut."),
    ("softmax_required_with_logits", dict(vocabParallelLogitsOptional=np.zeros((5, 3), np.float32)), NULLPTR,
     "Expected a proper Tensor but got null for argument softMaxOutOptional."),
    ("stat_dtype", dict(sumExpLogits=np.ones(5, FP16)), INVALID, "Tensor sumExpLogits not implemented for DT_FLOAT16"),
    ("stat_rank", dict(logitsMax=np.zeros((5, 1), np.float32)), INVALID,
     "The logitsMax tensor cannot be larger than 1 dimensions."),
    ("stat_shapes_differ", dict(predictedLogits=np.zeros(4, np.float32)), INVALID,
     "Expected tensor for logitsMax to have same size as tensor for predictedLogits, but [5] does not equal [4]."),
    ("label_smoothing", dict(labelSmoothing=0.5), INVALID, "Currently, only labelSmoothing=0 are supported."),
]


@pytest.mark.parametrize("change,code,message", [c[1:] for c in LOSS_CHECKS], ids=[c[0] for c in LOSS_CHECKS])
def test_loss_with_max_sum_check_paths(change, code, message):
    values = dict(logitsMax=np.zeros(5, np.float32), sumExpLogits=np.ones(5, np.float32),
                  predictedLogits=np.zeros(5, np.float32), vocabParallelLogitsOptional=None,
                  lossOut=np.zeros(5, np.float32), softMaxOutOptional=None, labelSmoothing=0.0)
    values.update(change)
    t = {k: handle(DeviceTensor(a) if a is not None else None) for k, a in values.items() if k != "labelSmoothing"}
    status = run_two_phase("aclnnFusedCrossEntropyLossWithMaxSum", t["logitsMax"], t["sumExpLogits"],
                           t["predictedLogits"], ctypes.c_float(values["labelSmoothing"]), P(None), P(None),
                           t["vocabParallelLogitsOptional"], t["lossOut"], t["softMaxOutOptional"])[0]
    assert status == code
    assert message in recent_error()


# ---- workspace and faults --------------------------------------------------------------------

def _grad_phase1(bt=300, v=700, h=40):
    rng = np.random.default_rng(9)
    tensors = [DeviceTensor(a) for a in (rng.standard_normal(bt).astype(np.float32), np.ones((bt, h), BF16),
                                         np.ones((v, h), BF16), np.zeros(-(-bt // 8), np.uint8),
                                         np.zeros(bt, np.int64), np.zeros(bt, np.float32), np.ones(bt, np.float32))]
    outs = [DeviceTensor(np.zeros((bt, h), BF16)), DeviceTensor(np.zeros((v, h), BF16))]
    size, executor = ctypes.c_uint64(), P()
    status = lib().aclnnFusedLinearCrossEntropyLossGradGetWorkspaceSize(
        *(P(t.handle) for t in tensors[:5]), ctypes.c_float(0), P(tensors[5].handle), P(tensors[6].handle), P(None),
        *(P(t.handle) for t in outs), ctypes.byref(size), ctypes.byref(executor))
    assert status == 0
    return size.value, executor


def panel_words(count, inner, width):
    """Words of a bf16 product operand in panels `width` wide, one word per pair of inner elements."""
    return -(-count // width) * width * -(-inner // 2)


def test_memory_saving_workspace_follows_the_chunk_rule():
    size, _ = _grad_phase1(bt=300, v=700, h=40)
    # bf16 chunks of twice VOCAB_CHUNK columns (here the whole 700); 300 rows in two blocks of 156 (multiples of the
    # 12 panel rows), one per lane for up to two cores; panels of 12 rows or 32 columns for each operand of the
    # three products, the input's a block at a time; weightGrad in pieces of 96 columns; a 64-row rounding slab
    # per lane
    chunk, block, slab, lanes = 700, 156, 64, min(2, parallel.WORKERS)
    buffers = [300 * 40,                                                  # inputGrad, fp32
               lanes * panel_words(block, 40, 12), panel_words(chunk, 40, 32),   # the logits' operands
               lanes * block * chunk,                                     # each lane's G tile, fp32
               panel_words(40, 300, 32), panel_words(40, chunk, 32),          # input and weight chunk for the gradients
               lanes * panel_words(block, chunk, 12), panel_words(chunk, 300, 12),   # G for inputGrad, weightGrad
               lanes * 96 * 40,                                           # each lane's weightGrad piece, fp32
               lanes * slab * chunk]                                      # rounding scratch (uint32 for bf16)
    expected = 0
    for n in buffers:
        expected = -(-expected // 64) * 64 + n * 4
    assert size == expected


def test_smaller_workspace_is_an_error_not_a_crash():
    size, executor = _grad_phase1()
    small = ctypes.c_void_p()
    assert lib().aclrtMalloc(ctypes.byref(small), size // 4, 2) == 0  # NORMAL_ONLY: no 2 MiB rounding
    phase2 = lib().aclnnFusedLinearCrossEntropyLossGrad
    phase2.argtypes = [P, ctypes.c_uint64, P, P]
    assert phase2(small, size // 4, executor, None) == INVALID
    assert "cannot hold the %d bytes phase 1 asked for" % size in recent_error()


def test_masked_target_outside_the_shard_is_an_access_fault():
    x, w = np.ones((4, 8), BF16), np.ones((130, 8), BF16)
    t = [DeviceTensor(a) for a in (np.ones(4, np.float32), x, w, np.zeros(1, np.uint8), np.array([0, 1, 130, 2]),
                                   np.zeros(4, np.float32), np.ones(4, np.float32))]
    outs = [DeviceTensor(np.zeros((4, 8), BF16)), DeviceTensor(np.zeros((130, 8), BF16))]
    status = run_two_phase("aclnnFusedLinearCrossEntropyLossGrad", *(P(a.handle) for a in t[:5]), ctypes.c_float(0),
                           P(t[5].handle), P(t[6].handle), P(None), *(P(o.handle) for o in outs))
    assert status[:2] == (0, AICORE)
    assert "maskedTarget[2] = 130 addresses outside the 130 local vocabulary columns" in recent_error()


# ---- samples -----------------------------------------------------------------------------------

def test_documented_sample_runs_unchanged(build_dir):
    shared = ROOT.parent / "shared" / "samples" / "fused_linear_cross_entropy_loss_grad_doc.cpp"
    ours = ROOT / "samples" / "aclnn" / "fused_linear_cross_entropy_loss_grad.cpp"
    if shared.exists():
        assert ours.read_text() == shared.read_text()
    result = run_program(ops_nn_compile(ours, build_dir / "flce_doc"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("result[")]
    assert lines == ["result[%d] is: 0.000000" % i for i in range(16)]


def test_companion_samples_print_their_results(build_dir):
    result = run_program(ops_nn_compile(ROOT / "samples" / "aclnn" / "fused_linear_online_max_sum.cpp",
                                        build_dir / "online"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "targetMask[0] is: 81" in result.stdout and "targetMask[1] is: 254" in result.stdout
    result = run_program(ops_nn_compile(ROOT / "samples" / "aclnn" / "fused_cross_entropy_loss_with_max_sum.cpp",
                                        build_dir / "loss"))
    assert result.returncode == 0, result.stdout + result.stderr
    softmax = [float(line.split()[-1]) for line in result.stdout.splitlines() if line.startswith("softmax[")]
    assert sum(softmax) == pytest.approx(4.0, rel=1e-5)  # 4 rows of probabilities


def _figures(output):
    values = {}
    for line in output.splitlines():
        key, _, rest = line.partition(":")
        values[key] = [float(x) for x in rest.replace("abs", "").split()]
    return values


def test_tensor_parallel_sample_equals_the_single_device_result(build_dir):
    executable = ops_nn_compile(ROOT / "samples" / "aclnn" / "vocab_parallel_cross_entropy.cpp", build_dir / "tp")
    single, parallel = (run_program(executable, str(n)) for n in (1, 4))
    assert single.returncode == 0 and parallel.returncode == 0, parallel.stdout + parallel.stderr
    one, four = _figures(single.stdout), _figures(parallel.stdout)
    assert four["devices"] == [4.0]
    assert four["loss"][0] == pytest.approx(one["loss"][0], rel=1e-6)
    for key in ("input grad checksum", "weight grad checksum"):
        checksum, magnitude = one[key]
        # the shards' partial input gradients are each rounded to fp16 before the host sums them
        assert abs(four[key][0] - checksum) <= 2.0 ** -11 * magnitude
        assert four[key][1] == pytest.approx(magnitude, rel=1e-3)
