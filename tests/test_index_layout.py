"""Topk, Cat, SplitWithSize (tensor lists), Repeat, Permute, IndexSelect, IndexPutImpl through the
C ABI against PyTorch CPU, with their documented checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, from_torch, int_array, random, result, tensor_list, to_torch

PARAM_NULLPTR, PARAM_INVALID, AICORE_EXCEPTION = 161001, 161002, 507015
BF16 = ml_dtypes.bfloat16


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int32], ids=lambda d: np.dtype(d).name)
def test_topk_like_torch(dtype, dim, largest):
    x = np.random.default_rng(0).permutation(48).reshape(6, 8).astype(dtype)
    expected_values, expected_indices = torch.topk(to_torch(x), 3, dim=dim, largest=largest)
    dv, di = DeviceTensor(np.zeros(tuple(expected_values.shape), dtype)), \
        DeviceTensor(np.zeros(tuple(expected_values.shape), np.int64))
    assert call("aclnnTopk", DeviceTensor(x), ctypes.c_int64(3), ctypes.c_int64(dim), ctypes.c_bool(largest),
                ctypes.c_bool(True), dv, di) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(dv), from_torch(expected_values))
    np.testing.assert_array_equal(result(di), expected_indices.numpy())


def test_topk_counts_nan_as_largest():
    x = np.array([1.0, np.nan, 3.0, 2.0], np.float32)
    dv, di = DeviceTensor(np.zeros(2, np.float32)), DeviceTensor(np.zeros(2, np.int64))
    assert call("aclnnTopk", DeviceTensor(x), ctypes.c_int64(2), ctypes.c_int64(0), ctypes.c_bool(True),
                ctypes.c_bool(True), dv, di) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(di), torch.topk(to_torch(x), 2).indices.numpy())


def test_topk_k_out_of_range():
    d = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnTopk", d, ctypes.c_int64(5), ctypes.c_int64(0), ctypes.c_bool(True), ctypes.c_bool(True),
                d, DeviceTensor(np.zeros(4, np.int64)))[0] == PARAM_INVALID
    assert "Selected index k out of range" in recent_error()


def test_topk_indices_must_be_int64():
    d = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnTopk", d, ctypes.c_int64(4), ctypes.c_int64(0), ctypes.c_bool(True), ctypes.c_bool(True),
                d, DeviceTensor(np.zeros(4, np.int32)))[0] == PARAM_INVALID
    assert "Tensor indicesOut expected dtype is DT_INT64 but found DT_INT32." in recent_error()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_like_torch(dim):
    rng = np.random.default_rng(1)
    parts = [random((2, 3, 4), np.float32, rng) for _ in range(3)]
    parts[1] = random(tuple(5 if i == dim % 3 else n for i, n in enumerate((2, 3, 4))), np.float32, rng)
    expected = torch.cat([to_torch(p) for p in parts], dim)
    do = DeviceTensor(np.zeros(tuple(expected.shape), np.float32))
    devices = [DeviceTensor(p) for p in parts]
    assert call("aclnnCat", tensor_list(devices), ctypes.c_int64(dim), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_cat_promotes_and_reads_strided_elements():
    a = DeviceTensor(np.arange(12, dtype=np.int32), shape=(2, 3), strides=(1, 2))
    b = DeviceTensor(np.array([[0.5, 1.5, 2.5]], np.float16))
    do = DeviceTensor(np.zeros((3, 3), np.float32))
    assert call("aclnnCat", tensor_list([a, b]), ctypes.c_int64(0), do) == (0, 0, 0), recent_error()
    expected = torch.cat([to_torch(np.arange(12, dtype=np.int32)).as_strided((2, 3), (1, 2)).float(),
                          torch.tensor([[0.5, 1.5, 2.5]])])
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_cat_size_mismatch_off_the_dim():
    a, b = DeviceTensor(np.zeros((2, 3), np.float32)), DeviceTensor(np.zeros((2, 4), np.float32))
    assert call("aclnnCat", tensor_list([a, b]), ctypes.c_int64(0), DeviceTensor(np.zeros((4, 3), np.float32)))[0] \
        == PARAM_INVALID
    assert "dim 1 of tensor 1 is [4], should be equal to tensor 0 [3]." in recent_error()


def test_cat_null_element():
    a = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnCat", tensor_list([a, None]), ctypes.c_int64(0), a)[0] == PARAM_NULLPTR


def test_cat_element_dtype_names_the_index():
    a, b = DeviceTensor(np.zeros(2, np.float32)), DeviceTensor(np.zeros(2, np.uint16))
    assert call("aclnnCat", tensor_list([a, b]), ctypes.c_int64(0), DeviceTensor(np.zeros(4, np.float32)))[0] \
        == PARAM_INVALID
    assert "tensor 1 not implemented for DT_UINT16" in recent_error()


def test_split_with_size_like_torch():
    x = random((4, 9), np.float32, np.random.default_rng(2))
    sizes = [2, 3, 4]
    outs = [DeviceTensor(np.zeros((4, s), np.float32)) for s in sizes]
    assert call("aclnnSplitWithSize", DeviceTensor(x), int_array(sizes), ctypes.c_int64(1), tensor_list(outs)) \
        == (0, 0, 0), recent_error()
    for out, expected in zip(outs, torch.split(to_torch(x), sizes, dim=1)):
        np.testing.assert_array_equal(result(out), expected.numpy())


def test_split_with_size_into_strided_outputs():
    x = np.arange(6, dtype=np.float32)
    out = DeviceTensor(np.zeros(8, np.float32), shape=(4,), strides=(2,))
    rest = DeviceTensor(np.zeros(2, np.float32))
    assert call("aclnnSplitWithSize", DeviceTensor(x), int_array([4, 2]), ctypes.c_int64(0),
                tensor_list([out, rest])) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(out.storage()[::2], [0, 1, 2, 3])
    np.testing.assert_array_equal(out.storage()[1::2], [0, 0, 0, 0])


def test_split_sizes_must_sum_to_the_dim():
    x = DeviceTensor(np.zeros((4, 9), np.float32))
    outs = [DeviceTensor(np.zeros((4, 2), np.float32)), DeviceTensor(np.zeros((4, 3), np.float32))]
    assert call("aclnnSplitWithSize", x, int_array([2, 3]), ctypes.c_int64(1), tensor_list(outs))[0] == PARAM_INVALID
    assert "all split value sum [5] to be equal to split dimIndex [1] value [9]" in recent_error()


@pytest.mark.parametrize("repeats", [(2, 3), (2, 1, 2)], ids=str)
def test_repeat_like_torch(repeats):
    x = random((2, 3), np.float16, np.random.default_rng(3))
    expected = to_torch(x).repeat(*repeats)
    do = DeviceTensor(np.zeros(tuple(expected.shape), np.float16))
    assert call("aclnnRepeat", DeviceTensor(x), int_array(list(repeats)), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_repeat_needs_enough_repeats():
    d = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnRepeat", d, int_array([2]), d)[0] == PARAM_INVALID
    assert "can not be smaller than number of dimensions" in recent_error()


def test_repeat_negative():
    d = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnRepeat", d, int_array([1, -1]), d)[0] == PARAM_INVALID
    assert "repeats expected 2th value > 0, but got -1" in recent_error()


@pytest.mark.parametrize("dims", [(1, 0, 2), (2, 0, 1), (-1, 0, 1)], ids=str)
def test_permute_like_torch(dims):
    x = random((2, 3, 4), BF16, np.random.default_rng(4))
    expected = to_torch(x).permute(*dims)
    do = DeviceTensor(np.zeros(tuple(expected.shape), BF16))
    assert call("aclnnPermute", DeviceTensor(x), int_array(list(dims)), do) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(do), from_torch(expected.contiguous()))


def test_permute_repeated_dims():
    d = DeviceTensor(np.zeros((2, 2), np.float32))
    assert call("aclnnPermute", d, int_array([0, 0]), d)[0] == PARAM_INVALID
    assert "duplicate" in recent_error()


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_index_select_like_torch(dim, index_dtype):
    x = random((5, 6), np.float32, np.random.default_rng(5))
    index = np.array([4, 0, 2, 2], index_dtype)
    expected = torch.index_select(to_torch(x), dim, to_torch(index).long())
    do = DeviceTensor(np.zeros(tuple(expected.shape), np.float32))
    assert call("aclnnIndexSelect", DeviceTensor(x), ctypes.c_int64(dim), DeviceTensor(index), do) == (0, 0, 0), \
        recent_error()
    np.testing.assert_array_equal(result(do), expected.numpy())


def test_index_select_index_outside_is_an_access_fault():
    x = DeviceTensor(np.zeros((3, 2), np.float32))
    do = DeviceTensor(np.zeros((1, 2), np.float32))
    status = call("aclnnIndexSelect", x, ctypes.c_int64(0), DeviceTensor(np.array([3], np.int64)), do)
    assert status[0] == 0 and AICORE_EXCEPTION in status[1:]


def test_index_select_index_rank():
    x = DeviceTensor(np.zeros((3, 2), np.float32))
    assert call("aclnnIndexSelect", x, ctypes.c_int64(0), DeviceTensor(np.zeros((1, 1), np.int64)), x)[0] \
        == PARAM_INVALID
    assert "index dimNum is 2, should not greater than 1" in recent_error()


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_like_torch(accumulate):
    x = random((5, 4), np.float32, np.random.default_rng(6))
    rows, cols = np.array([0, 2, 2, 4], np.int64), np.array([1, 3, 3, 0], np.int32)
    values = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    if not accumulate:
        rows, cols, values = rows[[0, 1, 3]], cols[[0, 1, 3]], values[[0, 1, 3]]
    d = DeviceTensor(x)
    assert call("aclnnIndexPutImpl", d, tensor_list([DeviceTensor(rows), DeviceTensor(cols)]), DeviceTensor(values),
                ctypes.c_bool(accumulate), ctypes.c_bool(False)) == (0, 0, 0), recent_error()
    expected = to_torch(x).index_put_((to_torch(rows).long(), to_torch(cols).long()), to_torch(values),
                                      accumulate=accumulate)
    np.testing.assert_allclose(result(d), expected.numpy(), rtol=1e-6)


def test_index_put_with_a_bool_mask():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    mask = np.array([[True, False, True], [False, True, False]])
    d = DeviceTensor(x)
    assert call("aclnnIndexPutImpl", d, tensor_list([DeviceTensor(mask)]), DeviceTensor(np.array([9.0], np.float32)),
                ctypes.c_bool(False), ctypes.c_bool(False)) == (0, 0, 0), recent_error()
    np.testing.assert_array_equal(result(d), to_torch(x).index_put_((to_torch(mask),), torch.tensor([9.0])).numpy())


def test_index_put_values_dtype_must_match():
    d = DeviceTensor(np.zeros((2, 3), np.float32))
    assert call("aclnnIndexPutImpl", d, tensor_list([DeviceTensor(np.array([0], np.int64))]),
                DeviceTensor(np.zeros(3, np.float16)), ctypes.c_bool(False), ctypes.c_bool(False))[0] == PARAM_INVALID
    assert "Tensor selfRef expected dtype is DT_FLOAT16 but found DT_FLOAT." in recent_error()


def test_index_put_too_many_indices():
    d = DeviceTensor(np.zeros(3, np.float32))
    i = DeviceTensor(np.array([0], np.int64))
    assert call("aclnnIndexPutImpl", d, tensor_list([i, i]), DeviceTensor(np.zeros(1, np.float32)),
                ctypes.c_bool(False), ctypes.c_bool(False))[0] == PARAM_INVALID
    assert "indicesSize must <= self DimSize." in recent_error()


def test_index_put_values_that_do_not_broadcast():
    d = DeviceTensor(np.zeros((4, 3), np.float32))
    assert call("aclnnIndexPutImpl", d, tensor_list([DeviceTensor(np.array([0, 1], np.int64))]),
                DeviceTensor(np.zeros(2, np.float32)), ctypes.c_bool(False), ctypes.c_bool(False))[0] == PARAM_INVALID


def test_numpy_level_api_takes_tensor_lists_and_scalars():
    import opemu.api
    from opemu.core import dtypes
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    joined = opemu.api.call("aclnnCat", tensors=[x, x + 1], dim=0, out=np.empty((4, 3), np.float32))["out"]
    np.testing.assert_array_equal(joined, torch.cat([to_torch(x), to_torch(x + 1)]).numpy())
    parts = opemu.api.call("aclnnSplitWithSize", self=x, splitSize=(1, 2), dim=1,
                           out=[np.empty((2, 1), np.float32), np.empty((2, 2), np.float32)])["out"]
    for got, expected in zip(parts, torch.split(to_torch(x), [1, 2], dim=1)):
        np.testing.assert_array_equal(got, expected.numpy())
    shifted = opemu.api.call("aclnnAdds", self=x, other=opemu.api.Scalar.of(2.5, dtypes.acl("DOUBLE")),
                             alpha=opemu.api.Scalar.of(2), out=np.empty_like(x))["out"]
    np.testing.assert_array_equal(shifted, (to_torch(x) + 5.0).numpy())


def _repeatable(op, *arguments):
    """Phase 1 of `op` made repeatable: (executor, workspace size)."""
    from acl import lib
    size, executor = ctypes.c_uint64(), ctypes.c_void_p()
    assert getattr(lib(), op + "GetWorkspaceSize")(*arguments, ctypes.byref(size), ctypes.byref(executor)) == 0, \
        recent_error()
    lib().aclSetAclOpExecutorRepeatable.argtypes = [ctypes.c_void_p]
    assert lib().aclSetAclOpExecutorRepeatable(executor) == 0
    return executor, size


def _launch(op, executor, size):
    from acl import lib
    phase2 = getattr(lib(), op)
    phase2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
    assert phase2(None, size.value, executor, None) == 0, recent_error()
    assert lib().aclrtSynchronizeStream(None) == 0


def _set_dynamic(setter, executor, ir_index, item, tensors, address):
    from acl import lib
    function = getattr(lib(), setter)
    function.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p]
    return function(executor, ir_index, item, tensors, address)


def test_repeatable_cat_takes_a_new_list_element_address():
    a, b = DeviceTensor(np.ones((1, 2), np.float32)), DeviceTensor(np.full((1, 2), 2, np.float32))
    replacement = DeviceTensor(np.full((1, 2), 7, np.float32))
    tensors, out = tensor_list([a, b]), DeviceTensor(np.zeros((2, 2), np.float32))
    executor, size = _repeatable("aclnnCat", tensors, ctypes.c_int64(0), ctypes.c_void_p(out.handle))
    _launch("aclnnCat", executor, size)
    np.testing.assert_array_equal(result(out), [[1, 1], [2, 2]])
    assert _set_dynamic("aclSetDynamicInputTensorAddr", executor, 0, 1, tensors, replacement.address) == 0
    _launch("aclnnCat", executor, size)
    np.testing.assert_array_equal(result(out), [[1, 1], [7, 7]])
    from acl import lib
    lib().aclDestroyAclOpExecutor.argtypes = [ctypes.c_void_p]
    assert lib().aclDestroyAclOpExecutor(executor) == 0


def test_repeatable_split_takes_a_new_output_element_address_by_combined_ir_index():
    x = DeviceTensor(np.arange(4, dtype=np.float32))
    first, second = DeviceTensor(np.zeros(1, np.float32)), DeviceTensor(np.zeros(3, np.float32))
    moved = DeviceTensor(np.zeros(3, np.float32))
    outs = tensor_list([first, second])
    executor, size = _repeatable("aclnnSplitWithSize", ctypes.c_void_p(x.handle), int_array([1, 3]),
                                 ctypes.c_int64(0), outs)
    # aclSetDynamicTensorAddr counts the IR inputs (self) before the outputs: out is IR index 1
    assert _set_dynamic("aclSetDynamicTensorAddr", executor, 1, 1, outs, moved.address) == 0
    _launch("aclnnSplitWithSize", executor, size)
    np.testing.assert_array_equal(result(moved), [1, 2, 3])
    np.testing.assert_array_equal(result(second), [0, 0, 0])


def test_dynamic_address_of_an_argument_that_is_not_a_list():
    x = DeviceTensor(np.arange(4, dtype=np.float32))
    outs = tensor_list([DeviceTensor(np.zeros(2, np.float32)), DeviceTensor(np.zeros(2, np.float32))])
    executor, _ = _repeatable("aclnnSplitWithSize", ctypes.c_void_p(x.handle), int_array([2, 2]), ctypes.c_int64(0),
                              outs)
    assert _set_dynamic("aclSetDynamicInputTensorAddr", executor, 0, 0, None, x.address) == PARAM_INVALID
    assert "has no tensor list element 0 at input irIndex 0" in recent_error()
