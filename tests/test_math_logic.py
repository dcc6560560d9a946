"""ops-math's comparisons with an aclScalar, logical and bitwise functions, shifts, value tests, IsClose,
IsIn, complex numbers, MaxN/MinN and Scale through the C ABI against PyTorch CPU, with their documented
checks (status and message)."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, random, result, scalar, tensor_list, to_torch

PARAM_NULLPTR, PARAM_INVALID, RUNTIME_ERROR = 161001, 161002, 361001
BF16 = ml_dtypes.bfloat16
SCALAR_COMPARE = {"Eq": torch.eq, "Ne": torch.ne, "Gt": torch.gt, "Lt": torch.lt, "Ge": torch.ge, "Le": torch.le}


@pytest.mark.parametrize("value", [(2, np.int64), (1.5, np.float32), (2.0, np.float64)], ids=str)
@pytest.mark.parametrize("op", sorted(SCALAR_COMPARE))
def test_scalar_comparisons_like_torch(op, value):
    x = np.array([[1.0, 1.5, 2.0], [2.5, -1.0, 2.0]], np.float32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(x.shape, np.bool_))
    assert call("aclnn%sScalar" % op, dx, scalar(*value), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), SCALAR_COMPARE[op](torch.from_numpy(x), value[0]).numpy())
    di = DeviceTensor(x)
    assert call("aclnnInplace%sScalar" % op, di, scalar(*value)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(di), SCALAR_COMPARE[op](torch.from_numpy(x), value[0]).float().numpy())


def test_a_double_scalar_near_an_fp16_value_compares_in_fp16():
    """The float-epsilon rule: 0.1 as fp16 is 0.0999755…, 2.4e-5 from the double, past FLT_EPSILON: the compare
    runs in DOUBLE and 0.1 (fp16) < 0.1; 0.5 is exact in fp16, so it compares in fp16."""
    x = np.array([0.1, 0.5], np.float16)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(2, np.bool_))
    assert call("aclnnLtScalar", dx, scalar(0.1, np.float64), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [True, False])
    assert call("aclnnEqScalar", dx, scalar(0.5, np.float64), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [False, True])


def test_scalar_comparison_out_must_have_self_shape():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((3, 2), np.bool_))
    assert call("aclnnGtScalar", dx, scalar(1, np.int64), do)[0] == PARAM_INVALID
    assert "Expected tensor for out to have same size as tensor for self, but [3, 2] does not equal [2, 3]." \
        in recent_error()


def test_scalar_dtype_outside_the_list():
    dx, do = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.bool_))
    assert call("aclnnGeScalar", dx, scalar(1 + 1j, np.complex64), do)[0] == PARAM_INVALID
    assert "Tensor other not implemented for DT_COMPLEX64" in recent_error()


def test_null_scalar_is_a_value_of_type_number():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnLtScalar", dx, None, dx)[0] == PARAM_NULLPTR
    assert "Expected a value of type number for argument other but instead found type null." in recent_error()
    assert call("aclnnAdds", dx, None, scalar(1, np.float32), dx)[0] == PARAM_NULLPTR
    assert "Expected a value of type number for argument other but instead found type null." in recent_error()


LOGICAL = {"LogicalAnd": torch.logical_and, "LogicalOr": torch.logical_or, "LogicalXor": torch.logical_xor}


@pytest.mark.parametrize("op", sorted(LOGICAL))
def test_logical_functions_read_operands_as_bool(op):
    x, y = np.array([0.0, 2.0, np.nan, 0.0], np.float32), np.array([0, 0, 1, 3], np.int32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(4, np.bool_))
    assert call("aclnn" + op, dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), LOGICAL[op](torch.from_numpy(x), torch.from_numpy(y)).numpy())


def test_logical_not_into_a_float_out():
    x = np.array([0, 1, -3], np.int8)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnLogicalNot", dx, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [1, 0, 0])


VALUE_TESTS = {"IsFinite": torch.isfinite, "IsPosInf": torch.isposinf, "IsNegInf": torch.isneginf,
               "IsInf": torch.isinf}


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(VALUE_TESTS))
def test_value_tests_like_torch(op, dtype):
    x = np.array([1.0, np.inf, -np.inf, np.nan, -0.0], dtype)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(5, np.bool_))
    assert call("aclnn" + op, dx, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), VALUE_TESTS[op](torch.from_numpy(x)).numpy())


def test_value_test_out_must_be_bool():
    dx, do = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnIsFinite", dx, do)[0] == PARAM_INVALID
    assert "Tensor out expected dtype is DT_BOOL but found DT_FLOAT." in recent_error()


def test_is_close_like_torch():
    x = np.array([1.0, 1.0001, np.nan, 2.0], np.float32)
    y = np.array([1.0, 1.0, np.nan, 2.1], np.float32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(4, np.bool_))
    for equal_nan in (False, True):
        assert call("aclnnIsClose", dx, dy, ctypes.c_double(1e-3), ctypes.c_double(1e-8), ctypes.c_bool(equal_nan),
                    do) == (0, 0, 0), recent_error()
        expected = torch.isclose(torch.from_numpy(x), torch.from_numpy(y), 1e-3, 1e-8, equal_nan)
        np.testing.assert_array_equal(result(do), expected.numpy())


BITWISE = {"BitwiseAndTensor": torch.bitwise_and, "BitwiseOrTensor": torch.bitwise_or,
           "BitwiseXorTensor": torch.bitwise_xor, "BitwiseAndTensorOut": torch.bitwise_and}


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(BITWISE))
def test_bitwise_like_torch(op, dtype):
    rng = np.random.default_rng(2)
    x, y = random((3, 1), dtype, rng, -50, 50), random((4,), dtype, rng, -50, 50)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros((3, 4), dtype))
    assert call("aclnn" + op, dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), BITWISE[op](torch.from_numpy(x), torch.from_numpy(y)).numpy())


@pytest.mark.parametrize("op,fn", [("BitwiseAndScalar", torch.bitwise_and), ("BitwiseOrScalar", torch.bitwise_or),
                                   ("BitwiseXorScalar", torch.bitwise_xor)])
def test_bitwise_scalar_forms(op, fn):
    x = np.array([5, -3, 12], np.int32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnn" + op, dx, scalar(6, np.int32), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), fn(torch.from_numpy(x), 6).numpy())
    assert call("aclnnInplace" + op, dx, scalar(6, np.int32)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(dx), fn(torch.from_numpy(x), 6).numpy())


def test_bitwise_not_like_torch():
    for dtype in (np.int16, np.bool_):
        x = np.array([0, 1, 5], dtype)
        dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, dtype))
        assert call("aclnnBitwiseNot", dx, do) == (0, 0, 0), recent_error()
        np.testing.assert_array_equal(result(do), torch.bitwise_not(torch.from_numpy(x)).numpy())


def test_float_bitwise_operand_is_refused():
    dx, do = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnBitwiseAndTensor", dx, dx, do)[0] == PARAM_INVALID
    assert "Tensor self not implemented for DT_FLOAT" in recent_error()


def test_shifts():
    x, s = np.array([1, -8, 3, 100], np.int32), np.array([2, 1, 40, -1], np.int32)
    dx, ds, do = DeviceTensor(x), DeviceTensor(s), DeviceTensor(np.zeros(4, np.int32))
    assert call("aclnnRightShift", dx, ds, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [0, -4, 0, 100])   # counts clamped to [0, 31]
    assert call("aclnnLeftShift", dx, ds, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [4, -16, 0, 0])
    assert call("aclnnLeftShifts", dx, scalar(3, np.int32), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), x << 3)


def test_gcd_like_torch():
    x, y = np.array([12, -18, 0, 7], np.int32), np.array([8, 12, 5, 0], np.int32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(4, np.int32))
    assert call("aclnnGcd", dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), torch.gcd(torch.from_numpy(x), torch.from_numpy(y)).numpy())


def test_gcd_out_must_be_integral():
    dx, do = DeviceTensor(np.zeros(3, np.int32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnGcd", dx, dx, do)[0] == PARAM_INVALID
    assert "Out type should be integral but got DT_FLOAT." in recent_error()


def test_div_mod_mode_outside_the_three():
    dx = DeviceTensor(np.ones(3, np.float32))
    assert call("aclnnDivMod", dx, dx, ctypes.c_int(3), dx)[0] == PARAM_INVALID
    assert "mode should be between 0 and 2, but current is 3" in recent_error()


def test_inplace_div_mod_refuses_complex_with_rounding():
    dc = DeviceTensor(np.ones(3, np.complex64))
    assert call("aclnnInplaceDivMod", dc, dc, ctypes.c_int(1))[0] == PARAM_INVALID
    assert "promoteType do not support DT_COMPLEX128 or DT_COMPLEX64." in recent_error()
    dx = DeviceTensor(np.array([7.0, -7.0, 5.0], np.float32))
    assert call("aclnnInplaceDivMod", dx, DeviceTensor(np.full(3, 2.0, np.float32)), ctypes.c_int(1)) == (0, 0, 0), \
        recent_error()
    np.testing.assert_array_equal(result(dx), [3.0, -3.0, 2.0])


def test_complex_polar_real_angle():
    re, im = np.array([1.0, -2.0], np.float32), np.array([0.5, 3.0], np.float32)
    dr, di, dc = DeviceTensor(re), DeviceTensor(im), DeviceTensor(np.zeros(2, np.complex64))
    assert call("aclnnComplex", dr, di, dc) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(dc), torch.complex(torch.from_numpy(re), torch.from_numpy(im)).numpy())
    assert call("aclnnPolar", dr, di, dc) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(dc), torch.polar(torch.from_numpy(re), torch.from_numpy(im)).numpy(), rtol=1e-6)
    dz, dp = DeviceTensor(np.array([3 - 4j, -1 + 0j], np.complex64)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnReal", dz, dp) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(dp), [3, -1])
    assert call("aclnnAngleV2", dz, dp) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(dp), torch.angle(torch.tensor([3 - 4j, -1 + 0j])).numpy(), rtol=1e-6)
    x = np.array([-2.0, 0.0, 3.0, np.nan], np.float32)
    dx, da = DeviceTensor(x), DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnAngleV2", dx, da) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(da), torch.angle(torch.from_numpy(x)).numpy())


def test_complex_out_must_pair_with_the_inputs():
    dr, dc = DeviceTensor(np.zeros(2, np.float32)), DeviceTensor(np.zeros(2, np.complex128))
    assert call("aclnnComplex", dr, dr, dc)[0] == PARAM_INVALID
    assert "Input dtype and out dtype must be paired. Current dtype is DT_FLOAT and DT_COMPLEX128." in recent_error()


@pytest.mark.parametrize("op,fn", [("MaxN", torch.maximum), ("MinN", torch.minimum)])
def test_max_n_min_n_broadcast_like_torch(op, fn):
    rng = np.random.default_rng(9)
    xs = [random((2, 1, 3), np.float32, rng), random((4, 3), np.float32, rng), random((1,), np.float32, rng)]
    devices, do = [DeviceTensor(x) for x in xs], DeviceTensor(np.zeros((2, 4, 3), np.float32))
    assert call("aclnn" + op, tensor_list(devices), do) == (0, 0, 0), recent_error()
    expected = fn(fn(torch.from_numpy(xs[0]), torch.from_numpy(xs[1])), torch.from_numpy(xs[2]))
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_max_n_tensors_must_have_out_dtype():
    devices, do = [DeviceTensor(np.zeros(3, np.float16))], DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnMaxN", tensor_list(devices), do)[0] == PARAM_INVALID
    assert "expected dtype is DT_FLOAT but found DT_FLOAT16" in recent_error()


def test_is_in_both_ways():
    tests = np.array([1.0, 2.5, 4.0], np.float32)
    dt, do = DeviceTensor(tests), DeviceTensor(np.zeros(1, np.bool_), shape=())
    for value, invert, expected in ((2.5, False, True), (3.0, False, False), (2.5, True, False)):
        assert call("aclnnIsInScalarTensor", scalar(value, np.float32), dt, ctypes.c_bool(False),
                    ctypes.c_bool(invert), do) == (0, 0, 0), recent_error()
        assert bool(do.storage()[0]) == expected
    de, dq = DeviceTensor(tests), DeviceTensor(np.zeros(3, np.bool_))
    assert call("aclnnIsInTensorScalar", de, scalar(4, np.int64), ctypes.c_bool(False), ctypes.c_bool(False),
                dq) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(dq), torch.isin(torch.from_numpy(tests), 4.0).numpy())


@pytest.mark.parametrize("from_blob,num_axes", [(True, 1), (True, -1), (False, 0)])
def test_scale_along_an_axis(from_blob, num_axes):
    rng = np.random.default_rng(4)
    x = random((2, 3, 4), np.float32, rng)
    scale_shape = (3,) if num_axes == 1 or not from_blob else (3, 4)
    s, b = random(scale_shape, np.float32, rng), random(scale_shape, np.float32, rng)
    dx, ds, db, dy = DeviceTensor(x), DeviceTensor(s), DeviceTensor(b), DeviceTensor(np.zeros(x.shape, np.float32))
    assert call("aclnnScale", dx, ds, db, ctypes.c_int64(1), ctypes.c_int64(num_axes), ctypes.c_bool(from_blob),
                dy) == (0, 0, 0), recent_error()
    layout = (1,) + scale_shape + (1,) * (2 - len(scale_shape))
    np.testing.assert_allclose(result(dy), x * s.reshape(layout) + b.reshape(layout), rtol=1e-6)


def test_scale_axis_outside_x():
    dx, ds = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnScale", dx, ds, None, ctypes.c_int64(2), ctypes.c_int64(1), ctypes.c_bool(True), dx)[0] == \
        PARAM_INVALID
    assert "axis must be within the range of [-2, 2), but it is 2." in recent_error()


def test_products_without_a_kernel(monkeypatch):
    x = DeviceTensor(np.zeros(3, np.float32))
    monkeypatch.setenv("OPEMU_SOC", "Ascend910B1")
    assert call("aclnnXlog1py", x, x, x)[0] == RUNTIME_ERROR
    assert call("aclnnSquare", x, x)[0] == PARAM_INVALID
    assert "not implemented for Ascend910B1" in recent_error()
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    assert call("aclnnSquare", x, x) == (0, 0, 0), recent_error()
    assert call("aclnnXlog1py", x, x, x) == (0, 0, 0), recent_error()
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    assert call("aclnnNanToNum", x, ctypes.c_float(0), ctypes.c_float(1), ctypes.c_float(-1), x)[0] == PARAM_INVALID
    assert "NanToNum is not supported on this device." in recent_error()


def test_masked_scale_on_the_950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    x, mask = np.array([1.0, 2.0, 3.0], np.float32), np.array([1, 0, 1], np.uint8)
    dx, dm, do = DeviceTensor(x), DeviceTensor(mask), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnMaskedScale", dx, dm, ctypes.c_float(2.0), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [2.0, 0.0, 6.0])


def test_unary_out_shape_is_checked_as_the_op_api_words_it():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnAcos", dx, do)[0] == PARAM_INVALID
    assert "Expected tensor for input to have same size as tensor for out, but [2, 3] does not equal [3, 2]." \
        in recent_error()


def test_in_place_form_checks_its_selfref_list():
    d = DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnnInplaceAtan", d)[0] == PARAM_INVALID
    assert "not implemented for DT_INT32" in recent_error()
