"""The elementwise family (aclnnAdd … aclnnGeluV2) through the C ABI against PyTorch CPU:
dtypes, broadcasting, aclScalar operands with their own dtype, in-place variants on strided
views, empty tensors, and each documented check with its status and message."""
import ctypes
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, random, result, scalar, to_torch, tolerance
from opemu import api
from opemu.core import parallel
from opemu.core.scalar import Scalar
from opemu.ops.aclnn.common import elementwise as _family

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002
BF16 = ml_dtypes.bfloat16
FLOATS = [np.float32, np.float16, BF16]


def oracle_compare(actual, expected, dtype):
    expected = from_torch(expected)
    if np.dtype(dtype).kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=2 * tolerance(dtype), atol=2 * tolerance(dtype))


BINARY = {
    "aclnnMul": torch.mul, "aclnnDiv": torch.div, "aclnnMaximum": torch.maximum,
    "aclnnMinimum": torch.minimum, "aclnnPowTensorTensor": torch.pow,
}


@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_broadcasts_like_torch(op, dtype):
    if op == "aclnnDiv" and np.dtype(dtype).kind == "i":
        pytest.skip("integer division gives FLOAT: tested by test_integer_div_is_true_division")
    rng = np.random.default_rng(0)
    x, y = random((3, 1, 4), dtype, rng, 1, 3), random((5, 4), dtype, rng, 1, 3)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros((3, 5, 4), dtype))
    assert call(op, dx, dy, do) == (0, 0, 0), recent_error()
    oracle_compare(result(do), BINARY[op](to_torch(x), to_torch(y)), dtype)


def test_integer_div_is_true_division():
    x, y = np.array([7, -7, 1], np.int32), np.array([2, 2, 3], np.int32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnDiv", dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_allclose(result(do), torch.div(to_torch(x), to_torch(y)).numpy())


@pytest.mark.parametrize("alpha", [(1, np.float32), (2.5, np.float32), (3, np.int64)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS + [np.int32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["aclnnAdd", "aclnnSub"])
def test_add_sub_with_alpha_like_torch(op, dtype, alpha):
    if np.dtype(dtype).kind == "i" and alpha[1] == np.float32:
        pytest.skip("a FLOAT alpha cannot be cast to INT32: test_alpha_that_cannot_be_cast")
    rng = np.random.default_rng(1)
    x, y = random((2, 3), dtype, rng), random((3,), dtype, rng)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros((2, 3), dtype))
    assert call(op, dx, dy, scalar(*alpha), do) == (0, 0, 0), recent_error()
    fn = torch.add if op == "aclnnAdd" else torch.sub
    oracle_compare(result(do), fn(to_torch(x), to_torch(y), alpha=alpha[0]), dtype)


def test_mixed_dtypes_promote_like_torch():
    x, y = np.array([1.5, 2.5], np.float16), np.array([3, 4], np.int32)
    dx, dy, do = DeviceTensor(x), DeviceTensor(y), DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnMul", dx, dy, do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), (to_torch(x) * to_torch(y)).float().numpy())


SCALAR_OPS = {"aclnnMuls": torch.mul, "aclnnDivs": torch.div, "aclnnPowTensorScalar": torch.pow}


@pytest.mark.parametrize("value", [(2, np.int32), (0.5, np.float32), (1.25, np.float64)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(SCALAR_OPS) + ["aclnnAdds", "aclnnSubs"])
def test_tensor_scalar_ops_like_torch(op, dtype, value):
    rng = np.random.default_rng(2)
    x = random((4, 5), dtype, rng, 1, 3)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros((4, 5), dtype))
    if op in ("aclnnAdds", "aclnnSubs"):
        assert call(op, dx, scalar(*value), scalar(2, np.int64), do) == (0, 0, 0), recent_error()
        fn = torch.add if op == "aclnnAdds" else torch.sub
        expected = fn(to_torch(x), value[0], alpha=2)
    else:
        assert call(op, dx, scalar(*value), do) == (0, 0, 0), recent_error()
        expected = SCALAR_OPS[op](to_torch(x), value[0])
    oracle_compare(result(do), expected, dtype)


def test_int_tensor_times_float_scalar_gives_float():
    x = np.array([1, 2, 3], np.int32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnMuls", dx, scalar(0.5, np.float32), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), [0.5, 1, 1.5])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_inplace_add_writes_through_a_strided_offset_view(dtype):
    rng = np.random.default_rng(3)
    storage = random((2 + 4 * 6,), dtype, rng)
    other = random((3,), dtype, rng)
    d = DeviceTensor(storage, shape=(4, 3), strides=(6, 2), offset=2)
    do = DeviceTensor(other)
    assert call("aclnnInplaceAdd", d, do, scalar(1.5, np.float32)) == (0, 0, 0), recent_error()
    view = np.lib.stride_tricks.as_strided(storage[2:], (4, 3), (6 * storage.itemsize, 2 * storage.itemsize))
    expected_storage = storage.copy()
    np.lib.stride_tricks.as_strided(expected_storage[2:], (4, 3), (6 * storage.itemsize, 2 * storage.itemsize))[...] = \
        from_torch(torch.add(to_torch(np.ascontiguousarray(view)), to_torch(other), alpha=1.5))
    oracle_compare(d.storage(), to_torch(expected_storage), dtype)


@pytest.mark.parametrize("op,fn", [("aclnnInplaceMuls", torch.mul), ("aclnnInplaceDivs", torch.div),
                                   ("aclnnInplacePowTensorScalar", torch.pow)])
def test_inplace_scalar_ops(op, fn):
    x = np.array([[1.5, 2.0], [3.0, 4.5]], np.float32)
    d = DeviceTensor(x)
    assert call(op, d, scalar(2.0, np.float32)) == (0, 0, 0), recent_error()
    oracle_compare(result(d), fn(to_torch(x), 2.0), np.float32)


@pytest.mark.parametrize("op,fn", [("aclnnInplaceMul", torch.mul), ("aclnnInplaceDiv", torch.div),
                                   ("aclnnInplaceSub", torch.sub), ("aclnnInplacePowTensorTensor", torch.pow)])
def test_inplace_tensor_ops(op, fn):
    x, y = np.array([[1.5, 2.0], [3.0, 4.5]], np.float32), np.array([2.0, 0.5], np.float32)
    d, dy = DeviceTensor(x), DeviceTensor(y)
    extra = (scalar(1, np.int64),) if op == "aclnnInplaceSub" else ()
    assert call(op, d, dy, *extra) == (0, 0, 0), recent_error()
    oracle_compare(result(d), fn(to_torch(x), to_torch(y)), np.float32)


UNARY = {
    "aclnnExp": torch.exp, "aclnnLog": torch.log, "aclnnSqrt": torch.sqrt, "aclnnRsqrt": torch.rsqrt,
    "aclnnSin": torch.sin, "aclnnCos": torch.cos, "aclnnTanh": torch.tanh, "aclnnAbs": torch.abs,
    "aclnnNeg": torch.neg, "aclnnRelu": torch.relu, "aclnnSigmoid": torch.sigmoid,
    "aclnnSilu": torch.nn.functional.silu, "aclnnGelu": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_like_torch(op, dtype):
    rng = np.random.default_rng(4)
    x = random((3, 7), dtype, rng, 0.1, 3) if op in ("aclnnLog", "aclnnSqrt", "aclnnRsqrt") else \
        random((3, 7), dtype, rng)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros((3, 7), dtype))
    assert call(op, dx, do) == (0, 0, 0), recent_error()
    expected = UNARY[op](to_torch(x).float()).to(to_torch(x).dtype)
    oracle_compare(result(do), expected, dtype)


def test_overflow_and_invalid_results_come_without_a_warning():
    """inf and NaN are results (an Exp past fp32's range, a 0/0 Div), as on the device: nothing is printed."""
    x, zero = np.array([1e38, 0.0], np.float32), np.zeros(2, np.float32)
    dx, dz, do, dq = DeviceTensor(x), DeviceTensor(zero), DeviceTensor(np.zeros(2, np.float32)), \
        DeviceTensor(np.zeros(2, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert call("aclnnExp", dx, do) == (0, 0, 0), recent_error()
        assert call("aclnnDiv", dz, dz, dq) == (0, 0, 0), recent_error()
    assert result(do)[0] == np.inf and result(do)[1] == 1
    assert np.isnan(result(dq)).all()


@pytest.mark.parametrize("op", ["aclnnExp", "aclnnSqrt", "aclnnSin", "aclnnTanh"])
def test_integral_input_computes_in_float(op):
    x = np.array([0, 1, 4], np.int64)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.float32))
    assert call(op, dx, do) == (0, 0, 0), recent_error()
    oracle_compare(result(do), UNARY[op](to_torch(x).float()), np.float32)


@pytest.mark.parametrize("op", ["aclnnInplaceExp", "aclnnInplaceSqrt", "aclnnInplaceRelu", "aclnnInplaceNeg",
                                "aclnnInplaceSigmoid", "aclnnInplaceCos"])
def test_inplace_unary_on_a_transposed_view(op):
    storage = np.arange(1, 7, dtype=np.float32) / 4
    d = DeviceTensor(storage, shape=(3, 2), strides=(1, 3))
    assert call(op, d) == (0, 0, 0), recent_error()
    expected = UNARY["aclnn" + op[len("aclnnInplace"):]](to_torch(storage))
    oracle_compare(d.storage(), expected, np.float32)


@pytest.mark.parametrize("approximate", [0, 1])
def test_gelu_v2_approximations(approximate):
    x = np.linspace(-4, 4, 33).astype(np.float32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros_like(x))
    assert call("aclnnGeluV2", dx, ctypes.c_int64(approximate), do) == (0, 0, 0), recent_error()
    expected = torch.nn.functional.gelu(to_torch(x), approximate="tanh" if approximate else "none")
    oracle_compare(result(do), expected, np.float32)


def test_empty_tensors_succeed_without_writing():
    dx, dy, do = DeviceTensor(np.zeros((0, 3), np.float32)), DeviceTensor(np.zeros(3, np.float32)), \
        DeviceTensor(np.zeros((0, 3), np.float32))
    assert call("aclnnMul", dx, dy, do) == (0, 0, 0), recent_error()


# ---- the checks, one test each ----

def test_null_argument():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnAdd", dx, None, scalar(1, np.float32), dx)[0] == PARAM_NULLPTR
    assert "got null for argument other" in recent_error()


def test_dtype_not_supported():
    dx = DeviceTensor(np.zeros(3, np.uint16))
    do = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnExp", dx, do)[0] == PARAM_INVALID
    assert "Tensor self not implemented for DT_UINT16" in recent_error()


def test_bf16_is_not_supported_on_the_910(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910A")
    dx = DeviceTensor(np.zeros(3, BF16))
    assert call("aclnnMul", dx, dx, dx)[0] == PARAM_INVALID
    assert "DT_BFLOAT16" in recent_error()


def test_shapes_that_do_not_broadcast():
    dx, dy = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((4,), np.float32))
    do = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnMul", dx, dy, do)[0] == PARAM_INVALID
    assert recent_error().endswith("The size of tensor self [2, 3] must match the size of tensor other [4].")


def test_out_shape_must_be_the_broadcast_shape():
    dx, dy = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((3,), np.float32))
    do = DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnMul", dx, dy, do)[0] == PARAM_INVALID
    assert "Shape of out should be [2, 3], but current is [3, 2]." in recent_error()


def test_result_that_cannot_be_cast_to_out():
    dx = DeviceTensor(np.zeros(3, np.float32))
    do = DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnnMul", dx, dx, do)[0] == PARAM_INVALID
    assert "Result type DT_FLOAT can't be cast to the desired output type DT_INT32." in recent_error()


def test_alpha_that_cannot_be_cast():
    dx = DeviceTensor(np.zeros(3, np.int32))
    assert call("aclnnAdd", dx, dx, scalar(0.5, np.float32), dx)[0] == PARAM_INVALID
    assert "Alpha dtype DT_FLOAT can't be cast to the promote dtype DT_INT32." in recent_error()


def test_inplace_other_must_broadcast_to_self():
    dx, dy = DeviceTensor(np.zeros((3,), np.float32)), DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnInplaceMul", dx, dy)[0] == PARAM_INVALID
    assert "must match the size [3]" in recent_error()


def test_more_than_eight_dimensions():
    dx = DeviceTensor(np.zeros((1,) * 9, np.float32))
    assert call("aclnnNeg", dx, dx)[0] == PARAM_INVALID
    assert "cannot be larger than 8 dimensions" in recent_error()


def test_gelu_v2_approximate_must_be_zero_or_one():
    dx = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnGeluV2", dx, ctypes.c_int64(2), dx)[0] == PARAM_INVALID
    assert "approximate" in recent_error()


def test_scalar_value_is_part_of_the_plan_cache():
    x = np.ones(3, np.float32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.float32))
    for value in (2.0, 3.0):
        assert call("aclnnMuls", dx, scalar(value, np.float32), do) == (0, 0, 0), recent_error()
        np.testing.assert_array_equal(result(do), x * value)


@pytest.mark.parametrize("op", ["aclnnRelu", "aclnnGelu"])
def test_out_dtype_must_equal_self_dtype(op):
    dx, do = DeviceTensor(np.zeros(3, np.float16)), DeviceTensor(np.zeros(3, np.float32))
    assert call(op, dx, do)[0] == PARAM_INVALID
    assert "Tensor out expected dtype is DT_FLOAT16 but found DT_FLOAT." in recent_error()


def test_integral_sigmoid_computes_in_float():
    x = np.array([-2, 0, 3], np.int32)
    dx, do = DeviceTensor(x), DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnSigmoid", dx, do) == (0, 0, 0), recent_error()
    oracle_compare(result(do), torch.sigmoid(to_torch(x).float()), np.float32)


SPLIT_CASES = {   # op: (operands, output dtype); bf16 operands compute in fp32 and round into the output
    "aclnnAdd": (dict(self=np.float32, other=np.float32, alpha=2.5), np.float32),
    "aclnnMul": (dict(self=BF16, other=BF16), BF16),
    "aclnnExp": (dict(self=np.float16), np.float16),
    "aclnnGtTensor": (dict(self=np.float32, other=np.float32), np.bool_),
    "aclnnInplaceMul": (dict(selfRef=np.float32, other=np.float32), None),
}


@pytest.mark.parametrize("op", sorted(SPLIT_CASES))
def test_large_calls_shared_among_the_cores_give_one_calls_bits(op, monkeypatch):
    """A call whose operands all have the output's shape runs in contiguous parts on the cores (3 here, over
    an odd count); elementwise, so the bits are those of the call made whole, in place too."""
    spec, out_dtype = SPLIT_CASES[op]
    shape = (37, 1001)
    splits, split_calls = [], parallel.split
    monkeypatch.setattr(parallel, "split", lambda count, *rest: (splits.append(count), split_calls(count, *rest)))

    def run(parts):
        monkeypatch.setattr(parallel, "WORKERS", parts)
        monkeypatch.setattr(_family, "PARALLEL_MIN", 1 if parts > 1 else 1 << 62)
        rng = np.random.default_rng(len(op))
        arguments = {name: (random(shape, kind, rng) if isinstance(kind, type) else Scalar.of(np.float32(kind)))
                     for name, kind in spec.items()}
        if out_dtype is not None:
            arguments["out"] = np.zeros(shape, out_dtype)
        api.call(op, **arguments)
        return arguments["out" if out_dtype is not None else "selfRef"]

    split, whole = run(3), run(1)
    assert splits == [37 * 1001]
    assert split.view(np.uint8).tobytes() == whole.view(np.uint8).tobytes()
