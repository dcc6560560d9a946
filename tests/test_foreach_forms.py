"""Every form of the Foreach table through the C ABI against PyTorch's _foreach_* functions (or the row's torch
function per tensor): unary rows, lists, an aclScalar, a tensor holding the scalar, an aclScalarList, the
in-place forms of the 950 line, and the forms with a kernel of their own (Copy, ZeroInplace,
RoundOffNumber, Norm, NonFiniteCheckAndUnscale)."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, lib, recent_error
from acl_args import call, from_torch, random, result, scalar, tensor_list, to_torch, tolerance

PARAM_INVALID, TILING_ERROR = 161002, 561002
SHAPES = [(3, 4), (5,), (2, 1, 3)]


def device_list(arrays):
    return [DeviceTensor(a) for a in arrays]


def arrays(dtype=np.float32, seed=0, low=-3, high=3):
    rng = np.random.default_rng(seed)
    return [random(shape, dtype, rng, low, high) for shape in SHAPES]


def outputs_like(values):
    return device_list([np.zeros(v.shape, v.dtype) for v in values])


def close(tensors, expected, dtype=np.float32, scale=2):
    for tensor, want in zip(tensors, expected):
        want = from_torch(want) if isinstance(want, torch.Tensor) else np.asarray(want)
        got = result(tensor)
        if np.dtype(dtype).kind in "iu":
            np.testing.assert_array_equal(got, want.astype(got.dtype))
        else:
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                       rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


def torch_list(values):
    return [to_torch(v) for v in values]


def scalar_list(values, dtype=np.float32):
    create = lib().aclCreateScalarList
    create.restype = ctypes.c_void_p
    create.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    handles = [scalar(value, dtype) for value in values]
    raw = (ctypes.c_void_p * len(handles))(*[h.value for h in handles])
    return ctypes.c_void_p(create(raw, len(handles)))


UNARY = {"Cos": torch.cos, "Sin": torch.sin, "Tanh": torch.tanh, "Exp": torch.exp, "Neg": torch.neg,
         "Sigmoid": torch.sigmoid, "Log": torch.log}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_forms_compute_like_torch(name):
    values = arrays(low=0.1 if name == "Log" else -3)
    out = outputs_like(values)
    assert call("aclnnForeach" + name, tensor_list(device_list(values)), tensor_list(out)) == (0, 0, 0), \
        recent_error()
    close(out, [UNARY[name](t) for t in torch_list(values)])


LISTS = {"ForeachMulList": torch._foreach_mul, "ForeachDivList": torch._foreach_div,
         "ForeachMaximumList": torch._foreach_maximum, "ForeachMinimumList": torch._foreach_minimum,
         "ForeachPowList": torch._foreach_pow, "ForeachSubList": torch._foreach_sub}


@pytest.mark.parametrize("op", sorted(LISTS))
def test_list_forms_compute_like_torch(op):
    first, second = arrays(seed=1, low=0.5, high=2), arrays(seed=2, low=0.5, high=2)
    out = outputs_like(first)
    args = [tensor_list(device_list(first)), tensor_list(device_list(second))]
    if op == "ForeachSubList":
        args.append(DeviceTensor(np.array([1.0], np.float32)))
    assert call("aclnn" + op, *args, tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, LISTS[op](torch_list(first), torch_list(second)))


def test_add_list_takes_alpha_in_a_tensor():
    first, second = arrays(seed=3), arrays(seed=4)
    out = outputs_like(first)
    alpha = DeviceTensor(np.array([2.5], np.float32))
    assert call("aclnnForeachAddList", tensor_list(device_list(first)), tensor_list(device_list(second)), alpha,
                tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, torch._foreach_add(torch_list(first), torch_list(second), alpha=2.5))


SCALARS = {"Add": torch._foreach_add, "Sub": torch._foreach_sub, "Mul": torch._foreach_mul,
           "Div": torch._foreach_div, "Maximum": torch._foreach_maximum, "Minimum": torch._foreach_minimum,
           "Pow": torch._foreach_pow}


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar_v2_forms_compute_like_torch(name, dtype):
    values = arrays(dtype, seed=5, low=0.5, high=2)
    out = outputs_like(values)
    assert call("aclnnForeach%sScalarV2" % name, tensor_list(device_list(values)), scalar(0.75, np.float64),
                tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, SCALARS[name](torch_list(values), 0.75), dtype)


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar_tensor_forms_compute_like_torch(name):
    values = arrays(seed=6, low=0.5, high=2)
    out = outputs_like(values)
    held = DeviceTensor(np.array([0.75], np.float32))
    assert call("aclnnForeach%sScalar" % name, tensor_list(device_list(values)), held, tensor_list(out)) \
        == (0, 0, 0), recent_error()
    close(out, SCALARS[name](torch_list(values), 0.75))


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar_list_forms_take_one_scalar_per_tensor(name):
    values, factors = arrays(seed=7, low=0.5, high=2), [0.5, 1.5, 2.0]
    out = outputs_like(values)
    assert call("aclnnForeach%sScalarList" % name, tensor_list(device_list(values)), scalar_list(factors),
                tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, SCALARS[name](torch_list(values), factors))


def test_div_scalar_list_is_torch_foreach_div_by_scalars():
    """torch_npu's _foreach_div(list, scalars) (its header is missing from the vendor's package)."""
    values = arrays(np.float16, seed=8)
    out = outputs_like(values)
    assert call("aclnnForeachDivScalarList", tensor_list(device_list(values)), scalar_list([2.0, 4.0, 0.5]),
                tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, torch._foreach_div(torch_list(values), [2.0, 4.0, 0.5]), np.float16)


def test_a_scalar_list_shorter_than_the_tensors_fails_in_tiling():
    values = arrays()
    assert call("aclnnForeachDivScalarList", tensor_list(device_list(values)), scalar_list([2.0]),
                tensor_list(outputs_like(values)))[0] == TILING_ERROR


def test_pow_scalar_and_tensor_raises_the_scalar_to_each_tensor():
    values = arrays(seed=9)
    out = outputs_like(values)
    assert call("aclnnForeachPowScalarAndTensor", scalar(2.0, np.float32), tensor_list(device_list(values)),
                tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, torch._foreach_pow(2.0, torch_list(values)))


def test_add_scalar_v2_on_an_int32_list_takes_an_integer_scalar():
    values = arrays(np.int32, seed=10)
    out = outputs_like(values)
    assert call("aclnnForeachAddScalarV2", tensor_list(device_list(values)), scalar(3, np.int64),
                tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, torch._foreach_add(torch_list(values), 3), np.int32)


def test_add_scalar_v2_refuses_a_float_scalar_for_an_int32_list():
    values = arrays(np.int32)
    assert call("aclnnForeachAddScalarV2", tensor_list(device_list(values)), scalar(3.0, np.float32),
                tensor_list(outputs_like(values)))[0] == PARAM_INVALID


@pytest.mark.parametrize("op, oracle", [("aclnnForeachMulListInplace", torch._foreach_mul),
                                        ("aclnnForeachDivListInplace", torch._foreach_div)])
def test_list_inplace_forms_on_the_950_line_write_x1(op, oracle, monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    first, second = arrays(seed=11, low=0.5, high=2), arrays(seed=12, low=0.5, high=2)
    x1 = device_list(first)
    assert call(op, tensor_list(x1), tensor_list(device_list(second))) == (0, 0, 0), recent_error()
    close(x1, oracle(torch_list(first), torch_list(second)))


def test_inplace_forms_are_950_only(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910B1")
    values = device_list(arrays())
    assert call("aclnnForeachLogInplace", tensor_list(values))[0] != 0


def test_copy_zero_and_round_off_number():
    values = arrays(seed=13)
    out = device_list([np.zeros(v.shape, np.float16) for v in values])
    assert call("aclnnForeachCopy", tensor_list(device_list(values)), tensor_list(out)) == (0, 0, 0), recent_error()
    close(out, [v.astype(np.float16) for v in values], np.float16)
    rounded = outputs_like(values)
    assert call("aclnnForeachRoundOffNumberV2", tensor_list(device_list(values)), scalar(2, np.int8),
                tensor_list(rounded)) == (0, 0, 0), recent_error()
    close(rounded, [np.floor(v) for v in values])
    zeroed = device_list(values)
    assert call("aclnnForeachZeroInplace", tensor_list(zeroed)) == (0, 0, 0), recent_error()
    close(zeroed, [np.zeros_like(v) for v in values])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_norm_writes_each_tensors_norm(p):
    values = arrays(seed=14)
    out = device_list([np.zeros((1,), np.float32) for _ in values])
    assert call("aclnnForeachNorm", tensor_list(device_list(values)), scalar(p, np.float32), tensor_list(out)) \
        == (0, 0, 0), recent_error()
    close(out, [t.reshape(1) for t in torch._foreach_norm(torch_list(values), p)], scale=8)


@pytest.mark.parametrize("poisoned", [False, True])
def test_non_finite_check_and_unscale_like_torch_amp(poisoned):
    values = arrays(seed=15)
    if poisoned:
        values[1][2] = np.inf
    grads = device_list(values)
    found, inv = DeviceTensor(np.zeros(1, np.float32)), DeviceTensor(np.array([0.25], np.float32))
    assert call("aclnnForeachNonFiniteCheckAndUnscale", tensor_list(grads), found, inv) == (0, 0, 0), recent_error()
    expected = torch_list(values)
    torch_found = torch.zeros(1)
    torch._amp_foreach_non_finite_check_and_unscale_(expected, torch_found, torch.tensor([0.25]))
    close(grads, expected)
    assert result(found)[0] == torch_found[0].item()


def test_generated_form_refuses_a_second_list_of_another_shape():
    first, second = arrays(), arrays()
    second[0] = np.zeros((4, 3), np.float32)
    assert call("aclnnForeachMaximumList", tensor_list(device_list(first)), tensor_list(device_list(second)),
                tensor_list(outputs_like(first)))[0] == TILING_ERROR

