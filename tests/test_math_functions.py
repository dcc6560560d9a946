"""ops-math's elementwise functions (math/: trigonometric and hyperbolic, special functions, rounding, division
with rounding, bitwise, logical and value tests) through the C ABI against PyTorch CPU: each row in fp32,
fp16 and bf16 (integral inputs where the row takes them), its in-place form, and its scalar forms."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch, tolerance

BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]


def compare(actual, expected, dtype, scale=2):
    expected = from_torch(expected) if isinstance(expected, torch.Tensor) else expected
    if np.dtype(dtype).kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype), equal_nan=True)


def widened(fn):
    """A torch function computed in fp32 and rounded to the input's dtype (the kernel's rounding point)."""
    return lambda t: fn(t.float()).to(t.dtype) if t.dtype in (torch.float16, torch.bfloat16) else fn(t)


UNARY = {   # op: (torch function, low, high)
    "Acos": (torch.acos, -0.9, 0.9), "Asin": (torch.asin, -0.9, 0.9), "Atan": (torch.atan, -3, 3),
    "Acosh": (torch.acosh, 1.1, 4), "Asinh": (torch.asinh, -3, 3), "Atanh": (torch.atanh, -0.9, 0.9),
    "Cosh": (torch.cosh, -3, 3), "Sinh": (torch.sinh, -3, 3), "Tan": (torch.tan, -1.2, 1.2),
    "Erf": (torch.erf, -2, 2), "Erfc": (torch.erfc, -2, 2), "Expm1": (torch.expm1, -2, 2),
    "Log1p": (torch.log1p, -0.5, 3), "Log2": (torch.log2, 0.1, 8), "Log10": (torch.log10, 0.1, 8),
    "Exp2": (torch.exp2, -4, 4), "Reciprocal": (torch.reciprocal, 0.5, 4), "Sinc": (torch.sinc, -3, 3),
    "Ceil": (torch.ceil, -3, 3), "Floor": (torch.floor, -3, 3), "Trunc": (torch.trunc, -3, 3),
    "Round": (torch.round, -3, 3), "Frac": (torch.frac, -3, 3), "Sign": (torch.sign, -3, 3),
}
HALF_ONLY = {"Expm1"}   # its list has FLOAT, FLOAT16, BF16 (no DOUBLE)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_like_torch(op, dtype):
    fn, low, high = UNARY[op]
    x = random((4, 5), dtype, np.random.default_rng(len(op)), low, high)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(x.shape, dtype))
    assert call("aclnn" + op, dx, do) == (0, 0, 0), recent_error()
    compare(result(do), widened(fn)(to_torch(x)), dtype)


@pytest.mark.parametrize("op", ["Acos", "Asinh", "Erf", "Log2", "Exp2", "Sinc", "Tan", "Atan"])
def test_integral_input_computes_in_float(op):
    fn, low, high = UNARY[op]
    x = np.array([0, 1, 2, 5], np.int64) if op != "Acos" else np.array([0, 1, -1, 0], np.int64)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnn" + op, dx, do) == (0, 0, 0), recent_error()
    compare(result(do), fn(to_torch(x).float()), np.float32)


@pytest.mark.parametrize("op", sorted(set(UNARY) - {"Sign"}))
def test_inplace_form_on_a_strided_view(op):
    fn, low, high = UNARY[op]
    storage = random((12,), np.float32, np.random.default_rng(7), low, high)
    d = DeviceTensor(storage, shape=(3, 2), strides=(1, 3))
    assert call("aclnnInplace" + op, d) == (0, 0, 0), recent_error()
    expected = np.concatenate([fn(to_torch(storage[:6])).numpy(), storage[6:]])
    compare(d.storage(), expected, np.float32)


@pytest.mark.parametrize("op,fn", [("Digamma", torch.digamma), ("Lgamma", torch.lgamma)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64], ids=lambda d: np.dtype(d).name)
def test_gamma_functions_like_torch(op, fn, dtype):
    x = random((3, 4), dtype, np.random.default_rng(3), 0.2, 6)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(x.shape, dtype))
    assert call("aclnn" + op, dx, do) == (0, 0, 0), recent_error()
    compare(result(do), widened(fn)(to_torch(x)), dtype, scale=4)


def test_complex_inputs_of_the_complex_rows():
    x = (np.array([0.5 + 1j, -1 - 0.25j, 2j])).astype(np.complex64)
    for op, fn in (("Cosh", torch.cosh), ("Asinh", torch.asinh), ("Reciprocal", torch.reciprocal), ("Sign", torch.sgn)):
        dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.complex64))
        assert call("aclnn" + op, dx, do) == (0, 0, 0), recent_error()
        np.testing.assert_allclose(result(do), fn(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


BINARY = {   # op: (torch function, low, high)
    "Atan2": (torch.atan2, -3, 3), "LogAddExp": (torch.logaddexp, -3, 3), "LogAddExp2": (torch.logaddexp2, -3, 3),
    "XLogYTensor": (torch.xlogy, 0.1, 3), "FloorDivide": (lambda x, y: torch.div(x, y, rounding_mode="floor"), 1, 5),
    "RemainderTensorTensor": (torch.remainder, 1, 5), "FmodTensor": (torch.fmod, 1, 5),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_broadcasts_like_torch(op, dtype):
    fn, low, high = BINARY[op]
    rng = np.random.default_rng(len(op))
    x, y = random((3, 1, 4), dtype, rng, low, high), random((5, 4), dtype, rng, low, high)
    if op in ("FloorDivide", "RemainderTensorTensor", "FmodTensor"):
        x = -x * 2.5
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros((3, 5, 4), dtype))
    assert call("aclnn" + op, dx, dy, do) == (0, 0, 0), recent_error()
    expected = fn(to_torch(x).float(), to_torch(y).float()).to(to_torch(x).dtype)
    compare(result(do), expected, dtype, scale=4)


INTEGER_DIVISION = {
    "FloorDivide": lambda x, y: torch.div(x, y, rounding_mode="floor"),
    "RemainderTensorTensor": torch.remainder, "FmodTensor": torch.fmod,
}


@pytest.mark.parametrize("op", sorted(INTEGER_DIVISION))
def test_integer_division_is_exact_with_signs(op):
    x = np.array([7, -7, 7, -7, 2 ** 40 + 3, -9], np.int64)
    y = np.array([2, 2, -2, -2, 3, 4], np.int64)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(6, np.int64))
    assert call("aclnn" + op, dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), INTEGER_DIVISION[op](torch.from_numpy(x), torch.from_numpy(y)).numpy())


@pytest.mark.parametrize("mode,rounding", [(0, None), (1, "trunc"), (2, "floor")])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_div_mod_rounding_modes_like_torch(mode, rounding, dtype):
    x, y = np.array([7, -7, 7, -7, 9], dtype), np.array([2, 2, -2, -2, 3], dtype)
    out_dtype = np.float32 if mode == 0 else dtype
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(5, out_dtype))
    assert call("aclnnDivMod", dx, dy, ctypes.c_int(mode), do) == (0, 0, 0), recent_error()
    expected = torch.div(torch.from_numpy(x), torch.from_numpy(y), rounding_mode=rounding)
    np.testing.assert_allclose(result(do), expected.numpy().astype(out_dtype))
    ds = DeviceTensor(np.zeros(5, out_dtype))
    assert call("aclnnDivMods", dx, scalar(2, np.int64), ctypes.c_int(mode), ds) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(ds), torch.div(torch.from_numpy(x), 2, rounding_mode=rounding).numpy())


@pytest.mark.parametrize("op,fn", [("RemainderTensorScalar", torch.remainder), ("FmodScalar", torch.fmod),
                                   ("FloorDivides", lambda x, y: torch.div(x, y, rounding_mode="floor")),
                                   ("XLogYScalarOther", torch.xlogy)])
def test_tensor_scalar_forms(op, fn):
    x = np.array([-3.5, -1.0, 0.0, 2.25, 5.0], np.float32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(5, np.float32))
    assert call("aclnn" + op, dx, scalar(1.5, np.float32), do) == (0, 0, 0), recent_error()
    compare(result(do), fn(torch.from_numpy(x), 1.5), np.float32)


@pytest.mark.parametrize("op,fn", [("RemainderScalarTensor", torch.remainder), ("XLogYScalarSelf", torch.xlogy),
                                   ("PowScalarTensor", torch.pow)])
def test_scalar_tensor_forms(op, fn):
    y = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    dy, do = DeviceTensor(y), DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnn" + op, scalar(2.5, np.float32), dy, do) == (0, 0, 0), recent_error()
    compare(result(do), fn(2.5, torch.from_numpy(y)), np.float32)


def test_pow_scalar_tensor_keeps_a_half_exponent_dtype():
    """llama.cpp's CANN backend: a FLOAT scalar base over an fp16 exponent tensor writes fp16."""
    y = np.array([0.5, 1.0, 2.0, -1.0], np.float16)
    dy, do = DeviceTensor(y), DeviceTensor(np.zeros(4, np.float16))
    assert call("aclnnPowScalarTensor", scalar(10000.0, np.float32), dy, do) == (0, 0, 0), recent_error()
    compare(result(do), widened(lambda t: torch.pow(10000.0, t))(to_torch(y)), np.float16)


def test_xlogy_is_zero_where_x_is_zero():
    x, y = np.array([0.0, 0.0, 2.0], np.float32), np.array([0.0, np.nan, 0.0], np.float32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnXLogYTensor", dx, dy, do) == (0, 0, 0), recent_error()
    compare(result(do), torch.xlogy(torch.from_numpy(x), torch.from_numpy(y)), np.float32)


@pytest.mark.parametrize("op,fn,alpha", [("Rsub", torch.rsub, 2), ("AddV3", None, 3)])
def test_rsub_and_add_v3(op, fn, alpha):
    x, y = np.array([1.5, -2.0, 3.0], np.float32), np.array([0.5, 4.0, -1.0], np.float32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(3, np.float32))
    if op == "Rsub":
        assert call("aclnnRsub", dx, dy, scalar(alpha, np.int64), do) == (0, 0, 0), recent_error()
        compare(result(do), torch.rsub(torch.from_numpy(x), torch.from_numpy(y), alpha=alpha), np.float32)
    else:
        assert call("aclnnAddV3", scalar(1.25, np.float32), dy, scalar(alpha, np.int64), do) == (0, 0, 0), \
            recent_error()
        compare(result(do), 1.25 + alpha * y, np.float32)
        assert call("aclnnInplaceAddV3", scalar(1.25, np.float32), dy, scalar(alpha, np.int64)) == (0, 0, 0), \
            recent_error()
        compare(result(dy), 1.25 + alpha * y, np.float32)


def test_round_decimals_and_nan_to_num():
    x = np.array([1.2345, -2.5551, np.nan, np.inf, -np.inf], np.float32)
    dx, do = DeviceTensor(x[:2]), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnRoundDecimals", dx, ctypes.c_int64(2), do) == (0, 0, 0), recent_error()
    compare(result(do), torch.round(torch.from_numpy(x[:2]), decimals=2), np.float32)
    dn, dm = DeviceTensor(x), DeviceTensor(np.zeros(5, np.float32))
    assert call("aclnnNanToNum", dn, ctypes.c_float(0.5), ctypes.c_float(100), ctypes.c_float(-100), dm) == \
        (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(dm), torch.nan_to_num(torch.from_numpy(x), 0.5, 100, -100).numpy())


def test_tanh_backward_like_torch():
    rng = np.random.default_rng(5)
    grad, y = random((3, 4), np.float32, rng), np.tanh(random((3, 4), np.float32, rng))
    dg, dy, do = DeviceTensor(grad), DeviceTensor(y), DeviceTensor(np.zeros((3, 4), np.float32))
    assert call("aclnnTanhBackward", dg, dy, do) == (0, 0, 0), recent_error()
    compare(result(do), torch.ops.aten.tanh_backward(torch.from_numpy(grad), torch.from_numpy(y)), np.float32)
