"""ops-math's three-operand functions (Addcdiv, Addcmul, Lerp, Lerps and their in-place forms) through the C ABI
against PyTorch CPU, with their documented checks (status and message)."""
import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch, tolerance

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]
ADDC = {"Addcdiv": torch.addcdiv, "Addcmul": torch.addcmul}


def close(actual, expected, dtype, scale=2):
    np.testing.assert_allclose(actual.astype(np.float64), from_torch(expected).astype(np.float64),
                               rtol=scale * tolerance(dtype), atol=scale * tolerance(dtype))


def addc_operands(dtype, rng):
    x, y = random((3, 1, 4), dtype, rng), random((1, 5, 4), dtype, rng)
    z = random((5, 1), dtype, rng, 1, 3)   # divisors away from zero
    return x, y, z


@pytest.mark.parametrize("dtype", FLOATS + [np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(ADDC))
def test_addc_broadcasts_like_torch(op, dtype):
    x, y, z = addc_operands(dtype, np.random.default_rng(0))
    expected = ADDC[op](*(to_torch(t).float() if dtype in (np.float16, BF16) else to_torch(t) for t in (x, y, z)),
                        value=0.5).to(to_torch(x).dtype)
    do = DeviceTensor(np.zeros(tuple(expected.shape), dtype))
    assert call("aclnn" + op, DeviceTensor(x), DeviceTensor(y), DeviceTensor(z), scalar(0.5, np.float32), do) \
        == (0, 0, 0), recent_error()
    close(result(do), expected, dtype)


@pytest.mark.parametrize("op", sorted(ADDC))
def test_inplace_addc_writes_self(op):
    rng = np.random.default_rng(1)
    x, y, z = random((4, 5), np.float32, rng), random((4, 5), np.float32, rng), random((5,), np.float32, rng, 1, 3)
    dx = DeviceTensor(x)
    assert call("aclnnInplace" + op, dx, DeviceTensor(y), DeviceTensor(z), scalar(-2, np.int64)) == (0, 0, 0), \
        recent_error()
    close(result(dx), ADDC[op](to_torch(x), to_torch(y), to_torch(z), value=-2), np.float32)


def test_addcmul_int32_wraps_like_torch():
    x, y, z = (np.array([2 ** 31 - 1, -5, 7], np.int32), np.array([1, 3, -2], np.int32), np.array([1, 4, 5], np.int32))
    do = DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnnAddcmul", DeviceTensor(x), DeviceTensor(y), DeviceTensor(z), scalar(3, np.int64), do) \
        == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), torch.addcmul(*map(torch.from_numpy, (x, y, z)), value=3).numpy())


def test_addcmul_result_into_a_wider_out():
    x = np.array([1.5, 2.5], np.float16)
    do = DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnAddcmul", DeviceTensor(x), DeviceTensor(x), DeviceTensor(x), scalar(1, np.float32), do) \
        == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [3.75, 8.75])


def test_addcdiv_null_value():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnAddcdiv", dx, dx, dx, None, dx)[0] == PARAM_NULLPTR
    assert "Expected a value of type number for argument value but instead found type null." in recent_error()


def test_addcdiv_dtype_outside_the_list():
    dx, di = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnnAddcdiv", dx, di, dx, scalar(1, np.float32), dx)[0] == PARAM_INVALID
    assert "Tensor tensor1 not implemented for DT_INT32" in recent_error()


def test_addcmul_refuses_an_int16_promotion():
    d16 = DeviceTensor(np.zeros(3, np.int16))
    di8, du8 = DeviceTensor(np.zeros(3, np.int8)), DeviceTensor(np.zeros(3, np.uint8))
    assert call("aclnnAddcmul", di8, du8, di8, scalar(1, np.int64), d16)[0] == PARAM_INVALID
    assert "addcmul can not support promote dtype DT_INT16, self dtype is DT_INT8" in recent_error()


def test_addc_result_not_castable_to_out():
    dx, do = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.int64))
    assert call("aclnnAddcdiv", dx, dx, dx, scalar(1, np.float32), do)[0] == PARAM_INVALID
    assert "Result type DT_FLOAT can't be cast to the desired output type DT_INT64." in recent_error()


def test_addcmul_tensors_that_do_not_broadcast():
    dx, dy, dz = (DeviceTensor(np.zeros(s, np.float32)) for s in ((3,), (2,), (4,)))
    assert call("aclnnAddcmul", dx, dy, dz, scalar(1, np.float32), dx)[0] == PARAM_INVALID
    assert "Shape of tensor1 and tensor2 can't broadcast." in recent_error()
    assert call("aclnnAddcmul", dx, dy, dy, scalar(1, np.float32), dx)[0] == PARAM_INVALID
    assert "Shape of self and other can't broadcast." in recent_error()


def test_addcdiv_out_shape():
    dx, do = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnAddcdiv", dx, dx, dx, scalar(1, np.float32), do)[0] == PARAM_INVALID
    assert "Expected tensor for out to have same size as [2, 3], but got [3, 2]." in recent_error()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_lerp_like_torch(dtype):
    rng = np.random.default_rng(2)
    x, e, w = random((3, 4), dtype, rng), random((4,), dtype, rng), random((3, 1), dtype, rng, 0, 1)
    w[0, 0], w[1, 0] = 0, 1
    expected = torch.lerp(to_torch(x).float(), to_torch(e).float(), to_torch(w).float()).to(to_torch(x).dtype)
    do = DeviceTensor(np.zeros((3, 4), dtype))
    assert call("aclnnLerp", DeviceTensor(x), DeviceTensor(e), DeviceTensor(w), do) == (0, 0, 0), recent_error()
    close(result(do), expected, dtype)
    np.testing.assert_array_equal(result(do)[1], np.broadcast_to(e, (4,)))   # weight 1 gives end exactly
    dx = DeviceTensor(x)
    assert call("aclnnInplaceLerp", dx, DeviceTensor(e), DeviceTensor(w)) == (0, 0, 0), recent_error()
    close(result(dx), expected, dtype)


@pytest.mark.parametrize("weight", [0.25, 0.75])
def test_lerps_like_torch(weight):
    rng = np.random.default_rng(3)
    x, e = random((2, 5), np.float32, rng), random((2, 5), np.float32, rng)
    do = DeviceTensor(np.zeros((2, 5), np.float64))
    assert call("aclnnLerps", DeviceTensor(x), DeviceTensor(e), scalar(weight, np.float32), do) == (0, 0, 0), \
        recent_error()
    np.testing.assert_allclose(result(do), torch.lerp(to_torch(x), to_torch(e), weight).double().numpy(), rtol=1e-6)
    dx = DeviceTensor(x)
    assert call("aclnnInplaceLerps", dx, DeviceTensor(e), scalar(weight, np.float64)) == (0, 0, 0), recent_error()
    close(result(dx), torch.lerp(to_torch(x), to_torch(e), weight), np.float32)


def test_lerp_operands_of_self_dtype():
    dx, dh = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(3, np.float16))
    assert call("aclnnLerp", dx, dh, dx, dx)[0] == PARAM_INVALID
    assert "Tensor end expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()
    assert call("aclnnLerp", dx, dx, dh, dx)[0] == PARAM_INVALID
    assert "Tensor weight expected dtype is DT_FLOAT but found DT_FLOAT16." in recent_error()


def test_lerp_self_dtype_outside_the_list():
    dd = DeviceTensor(np.zeros(3, np.float64))
    assert call("aclnnLerp", dd, dd, dd, dd)[0] == PARAM_INVALID
    assert "Tensor self not implemented for DT_DOUBLE" in recent_error()


def test_lerp_shapes_that_do_not_broadcast():
    dx, dy = DeviceTensor(np.zeros(3, np.float32)), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnLerp", dx, dy, dx, dx)[0] == PARAM_INVALID
    assert "Shape of self and end can't broadcast." in recent_error()
    assert call("aclnnLerp", dx, dx, dy, dx)[0] == PARAM_INVALID
    assert "Shape of self, end and weight can't broadcast." in recent_error()
    assert call("aclnnLerps", dx, dx, scalar(0.5, np.float32), dy)[0] == PARAM_INVALID
    assert "Shape of out should be [3], but current is [2]." in recent_error()


def test_lerps_null_weight():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnLerps", dx, dx, None, dx)[0] == PARAM_NULLPTR
    assert "Expected a value of type number for argument weight but instead found type null." in recent_error()
