"""ops-nn optim/: ApplyAdam, ApplyAdamW, ApplyAdamWV2, FusedAdamw and FusedSgd through the C ABI against
PyTorch's optimizers (torch.optim.AdamW / SGD on CPU, one step) or the documented formula in float64, with
their documented checks."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, random, result, tensor_list

PARAM_INVALID = 161002
SHAPE = (4, 5)


def one(value):
    return DeviceTensor(np.array([value], np.float32))


def state(seed):
    rng = np.random.default_rng(seed)
    return (random(SHAPE, np.float32, rng), random(SHAPE, np.float32, rng), random(SHAPE, np.float32, rng, 0, 1),
            random(SHAPE, np.float32, rng))


def torch_adamw_step(var, m, v, grad, lr, beta1, beta2, wd, eps, step, amsgrad=False, max_v=None, maximize=False):
    p = torch.from_numpy(var.astype(np.float64)).requires_grad_()
    optimizer = torch.optim.AdamW([p], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=wd, amsgrad=amsgrad,
                                  maximize=maximize)
    p.grad = torch.from_numpy(grad.astype(np.float64))
    optimizer.state[p] = {"step": torch.tensor(float(step - 1)), "exp_avg": torch.from_numpy(m.astype(np.float64)),
                          "exp_avg_sq": torch.from_numpy(v.astype(np.float64))}
    if amsgrad:
        optimizer.state[p]["max_exp_avg_sq"] = torch.from_numpy(max_v.astype(np.float64))
    optimizer.step()
    s = optimizer.state[p]
    return p.detach().numpy(), s["exp_avg"].numpy(), s["exp_avg_sq"].numpy()


def close(tensor, expected, tolerance=1e-5):
    np.testing.assert_allclose(result(tensor), expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("maximize", [False, True])
def test_apply_adam_w_is_torch_adamw(maximize):
    var, m, v, grad = state(0)
    lr, b1, b2, wd, eps, step = 0.01, 0.9, 0.99, 0.1, 1e-8, 3
    tensors = [DeviceTensor(var), DeviceTensor(m), DeviceTensor(v)]
    args = tensors + [one(b1 ** (step - 1)), one(b2 ** (step - 1)), one(lr), one(wd), one(b1), one(b2), one(eps),
                      DeviceTensor(grad), None, ctypes.c_bool(False), ctypes.c_bool(maximize)]
    assert call("aclnnApplyAdamW", *args) == (0, 0, 0), recent_error()
    for tensor, want in zip(tensors, torch_adamw_step(var, m, v, grad, lr, b1, b2, wd, eps, step,
                                                      maximize=maximize)):
        close(tensor, want)


def test_apply_adam_w_with_amsgrad_needs_max_grad_norm():
    var, m, v, grad = state(1)
    args = [DeviceTensor(var), DeviceTensor(m), DeviceTensor(v)] + [one(0.5)] * 7 + [DeviceTensor(grad), None,
                                                                                      ctypes.c_bool(True),
                                                                                      ctypes.c_bool(False)]
    assert call("aclnnApplyAdamW", *args)[0] == 161001


@pytest.mark.parametrize("amsgrad", [False, True])
def test_apply_adam_w_v2_is_torch_adamw(amsgrad):
    var, m, v, grad = state(2)
    max_v = np.abs(random(SHAPE, np.float32, np.random.default_rng(9)))
    lr, b1, b2, wd, eps, step = 0.01, 0.9, 0.99, 0.1, 1e-8, 5
    tensors = [DeviceTensor(var), DeviceTensor(m), DeviceTensor(v)]
    max_tensor = DeviceTensor(max_v) if amsgrad else None
    assert call("aclnnApplyAdamWV2", *tensors, max_tensor, DeviceTensor(grad),
                DeviceTensor(np.array([step], np.int64)), ctypes.c_float(lr), ctypes.c_float(b1), ctypes.c_float(b2),
                ctypes.c_float(wd), ctypes.c_float(eps), ctypes.c_bool(amsgrad), ctypes.c_bool(False)) == (0, 0, 0), \
        recent_error()
    for tensor, want in zip(tensors, torch_adamw_step(var, m, v, grad, lr, b1, b2, wd, eps, step, amsgrad, max_v)):
        close(tensor, want)


def test_apply_adam_w_v2_refuses_a_step_of_two_elements():
    var, m, v, grad = state(3)
    assert call("aclnnApplyAdamWV2", DeviceTensor(var), DeviceTensor(m), DeviceTensor(v), None, DeviceTensor(grad),
                DeviceTensor(np.array([1, 2], np.int64)), ctypes.c_float(0.1), ctypes.c_float(0.9),
                ctypes.c_float(0.99), ctypes.c_float(0), ctypes.c_float(1e-8), ctypes.c_bool(False),
                ctypes.c_bool(False))[0] == PARAM_INVALID
    assert "Numel of step must be 1, but got 2." in recent_error()


@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_adam_on_the_950_line_is_the_documented_step(nesterov, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    var, m, v, grad = state(4)
    lr, b1, b2, eps, b1p, b2p = 0.01, 0.9, 0.99, 1e-8, 0.9 ** 3, 0.99 ** 3
    tensors = [DeviceTensor(var), DeviceTensor(m), DeviceTensor(v)]
    assert call("aclnnApplyAdam", *tensors, one(b1p), one(b2p), one(lr), one(b1), one(b2), one(eps),
                DeviceTensor(grad), ctypes.c_bool(False), ctypes.c_bool(nesterov)) == (0, 0, 0), recent_error()
    g = grad.astype(np.float64)
    m2, v2 = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    step = b1 * m2 + (1 - b1) * g if nesterov else m2
    close(tensors[0], var - lr_t * step / (np.sqrt(v2) + eps), 1e-4)
    close(tensors[1], m2)
    close(tensors[2], v2)


def test_fused_adamw_steps_every_tensor_like_torch():
    params = [state(10 + k) for k in range(3)]
    steps = [2, 5, 9]
    lr, b1, b2, wd, eps = 0.01, 0.9, 0.999, 0.01, 1e-8
    lists = [[DeviceTensor(p[i]) for p in params] for i in (0, 3, 1, 2)]   # params, grads, exp_avg, exp_avg_sq
    step_tensors = [DeviceTensor(np.array([s], np.float32)) for s in steps]
    assert call("aclnnFusedAdamw", *[tensor_list(x) for x in lists], None, tensor_list(step_tensors), None, None,
                ctypes.c_double(lr), ctypes.c_double(b1), ctypes.c_double(b2), ctypes.c_double(wd),
                ctypes.c_double(eps), ctypes.c_bool(False), ctypes.c_bool(False)) == (0, 0, 0), recent_error()
    for k, (var, m, v, grad) in enumerate(params):
        want = torch_adamw_step(var, m, v, grad, lr, b1, b2, wd, eps, steps[k])
        for tensor, expected in zip((lists[0][k], lists[2][k], lists[3][k]), want):
            close(tensor, expected)


def test_fused_adamw_skips_the_step_when_found_inf_is_set():
    var, m, v, grad = state(20)
    p = DeviceTensor(var)
    assert call("aclnnFusedAdamw", tensor_list([p]), tensor_list([DeviceTensor(grad)]),
                tensor_list([DeviceTensor(m)]), tensor_list([DeviceTensor(v)]), None,
                tensor_list([DeviceTensor(np.array([1], np.int64))]), None, one(1.0), ctypes.c_double(0.1),
                ctypes.c_double(0.9), ctypes.c_double(0.99), ctypes.c_double(0), ctypes.c_double(1e-8),
                ctypes.c_bool(False), ctypes.c_bool(False)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(p), var)


def test_fused_adamw_refuses_a_negative_lr():
    var, m, v, grad = state(21)
    assert call("aclnnFusedAdamw", tensor_list([DeviceTensor(var)]), tensor_list([DeviceTensor(grad)]),
                tensor_list([DeviceTensor(m)]), tensor_list([DeviceTensor(v)]), None,
                tensor_list([DeviceTensor(np.array([1], np.int64))]), None, None, ctypes.c_double(-0.1),
                ctypes.c_double(0.9), ctypes.c_double(0.99), ctypes.c_double(0), ctypes.c_double(1e-8),
                ctypes.c_bool(False), ctypes.c_bool(False))[0] == PARAM_INVALID


@pytest.mark.parametrize("nesterov", [False, True])
def test_fused_sgd_with_momentum_is_torch_sgd(nesterov):
    rng = np.random.default_rng(30)
    var, grad, buf = (random(SHAPE, np.float32, rng) for _ in range(3))
    lr, mu, wd = 0.1, 0.9, 0.01
    p = torch.from_numpy(var.astype(np.float64)).requires_grad_()
    optimizer = torch.optim.SGD([p], lr=lr, momentum=mu, weight_decay=wd, nesterov=nesterov)
    p.grad = torch.from_numpy(grad.astype(np.float64))
    optimizer.state[p] = {"momentum_buffer": torch.from_numpy(buf.astype(np.float64))}
    optimizer.step()
    params, buffers = [DeviceTensor(var)], [DeviceTensor(buf)]
    assert call("aclnnFusedSgd", tensor_list(params), tensor_list([DeviceTensor(grad)]), tensor_list(buffers), None,
                ctypes.c_float(wd), ctypes.c_float(mu), ctypes.c_float(lr), ctypes.c_float(0),
                ctypes.c_bool(nesterov), ctypes.c_bool(False), ctypes.c_bool(False)) == (0, 0, 0), recent_error()
    close(params[0], p.detach().numpy())
    close(buffers[0], optimizer.state[p]["momentum_buffer"].numpy())


def test_fused_sgd_with_nesterov_needs_zero_dampening():
    rng = np.random.default_rng(31)
    var, grad, buf = (random(SHAPE, np.float32, rng) for _ in range(3))
    assert call("aclnnFusedSgd", tensor_list([DeviceTensor(var)]), tensor_list([DeviceTensor(grad)]),
                tensor_list([DeviceTensor(buf)]), None, ctypes.c_float(0), ctypes.c_float(0.9), ctypes.c_float(0.1),
                ctypes.c_float(0.5), ctypes.c_bool(True), ctypes.c_bool(False), ctypes.c_bool(False))[0] \
        == PARAM_INVALID
    assert "nesterov[1] momentum requires a momentum" in recent_error()


def test_advance_step_moves_each_query_one_token_and_pads_the_rest():
    tokens, positions = DeviceTensor(np.zeros(4, np.int64)), DeviceTensor(np.full(4, 9, np.int64))
    lengths, slots = DeviceTensor(np.array([5, 8, 3, 7], np.int64)), DeviceTensor(np.zeros(4, np.int64))
    sampled = DeviceTensor(np.array([[11], [12], [13]], np.int64))
    table = DeviceTensor(np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int64))
    assert call("aclnnAdvanceStep", tokens, sampled, positions, lengths, slots, table, ctypes.c_int64(4),
                ctypes.c_int64(3), ctypes.c_int64(4)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(tokens), [11, 12, 13, 0])
    np.testing.assert_array_equal(result(positions), [5, 8, 3, 0])
    np.testing.assert_array_equal(result(lengths), [6, 9, 4, 7])
    np.testing.assert_array_equal(result(slots), [2 * 4 + 1, 5 * 4 + 0, 5 * 4 + 3, -1])   # block 2 of row 1 reads row 2


def test_advance_step_v2_follows_the_accepted_speculative_tokens():
    n, spec = 2, 1
    tokens, positions = DeviceTensor(np.zeros(4, np.int64)), DeviceTensor(np.array([3, 4, 6, 7], np.int64))
    lengths, slots = DeviceTensor(np.zeros(4, np.int64)), DeviceTensor(np.zeros(4, np.int64))
    sampled = DeviceTensor(np.array([[21, 22], [31, -1]], np.int64))
    table = DeviceTensor(np.array([[1, 2, 3], [4, 5, 6]], np.int64))
    spec_token = DeviceTensor(np.array([[23], [32]], np.int64))
    accepted = DeviceTensor(np.array([1, 0], np.int64))
    assert call("aclnnAdvanceStepV2", tokens, sampled, positions, lengths, slots, table, spec_token, accepted,
                ctypes.c_int64(n), ctypes.c_int64(n), ctypes.c_int64(4)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(tokens), [22, 23, 31, 32])
    np.testing.assert_array_equal(result(positions), [5, 6, 7, 8])
    np.testing.assert_array_equal(result(lengths), [6, 7, 8, 9])
    np.testing.assert_array_equal(result(slots), [2 * 4 + 1, 2 * 4 + 2, 5 * 4 + 3, 6 * 4 + 0])

