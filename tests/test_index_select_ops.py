"""ops-nn index/ operators beyond gather/scatter, through the C ABI against PyTorch CPU: advanced indexing and
masked_scatter, index_add / index_fill, flip, bucketize, inverse, median / kthvalue, nonzero / unique (outputs whose
shape the data decides) and repeat_interleave, with their phase-1 checks."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, lib, recent_error
from acl_args import call, int_array, scalar, tensor_list

INVALID, AICORE = 161002, 507015
I64, B = ctypes.c_int64, ctypes.c_bool
OK = (0, 0, 0)


@pytest.fixture
def soc950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def view_shape(tensor):
    """The shape the app's aclTensor describes now (aclGetViewShape), as after a kernel that sets it."""
    dims, count = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_uint64()
    lib().aclGetViewShape.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    assert lib().aclGetViewShape(ctypes.c_void_p(tensor.handle), ctypes.byref(dims), ctypes.byref(count)) == 0
    shape = tuple(dims[i] for i in range(count.value))
    return shape


def shaped(tensor):
    shape = view_shape(tensor)
    return tensor.storage()[:int(np.prod(shape))].reshape(shape)


# ---- advanced indexing ------------------------------------------------------------------------------------------

def test_index_with_adjacent_and_separated_integer_picks_matches_torch():
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    i0, i2 = np.array([[0, 2], [1, -1]]), np.array([[4, 0], [1, 2]])
    expected = torch.from_numpy(x)[torch.from_numpy(i0), :, torch.from_numpy(i2)].numpy()
    out = t(np.zeros(expected.shape, np.float32))
    empty = t(np.zeros(0, np.int64))
    assert call("aclnnIndex", t(x), tensor_list([t(i0), empty, t(i2)]), out) == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_index_with_a_bool_mask_matches_torch():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    mask = np.array([True, False, True])
    expected = x[mask]
    out = t(np.zeros(expected.shape, np.int32))
    assert call("aclnnIndex", t(x), tensor_list([t(mask)]), out) == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_inplace_masked_scatter_fills_true_positions_in_row_major_order():
    x = np.zeros((2, 3), np.float32)
    mask = np.array([[True, False, True], [False, True, False]])
    source = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    expected = torch.from_numpy(x.copy()).masked_scatter_(torch.from_numpy(mask), torch.from_numpy(source)).numpy()
    self_ref = t(x)
    assert call("aclnnInplaceMaskedScatter", self_ref, t(mask), t(source)) == OK, recent_error()
    assert np.array_equal(got(self_ref), expected)


# ---- index_add / index_fill -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_adds_alpha_times_source_with_duplicates(dim):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    index = np.array([1, 3, 1])
    source = rng.standard_normal((3, 5) if dim == 0 else (4, 3)).astype(np.float32)
    expected = torch.from_numpy(x).index_add(dim, torch.from_numpy(index), torch.from_numpy(source), alpha=2.0)
    out = t(np.zeros_like(x))
    status = call("aclnnIndexAdd", t(x), I64(dim), t(index), t(source), scalar(2.0, np.float32), out)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_index_add_int64_wraps_and_is_exact():
    x = np.array([2**62, 5], np.int64)
    out = t(np.zeros_like(x))
    status = call("aclnnIndexAdd", t(x), I64(0), t(np.array([0, 0])), t(np.array([2**62, 1], np.int64)),
                  scalar(1, np.int64), out)
    assert status == OK, recent_error()
    assert got(out).tolist() == [-(2**63) + 1, 5]


def test_index_add_source_dim_count_must_match_self():
    x = np.zeros((2, 3), np.float32)
    status = call("aclnnIndexAdd", t(x), I64(0), t(np.array([0])), t(np.zeros(3, np.float32)),
                  scalar(1.0, np.float32), t(x))
    assert status[0] == INVALID and "DimNum of self must be equal to dimNum of source." in recent_error()


@pytest.mark.parametrize("form", ["aclnnIndexFill", "aclnnIndexFillTensor"])
def test_index_fill_sets_the_indexed_slices_to_value(form):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    index = [0, -1]
    expected = torch.from_numpy(x).index_fill(1, torch.tensor(index), -5.0).numpy()
    out = t(np.zeros_like(x))
    index_arg = t(np.array(index)) if form == "aclnnIndexFill" else int_array(index)
    assert call(form, t(x), I64(1), index_arg, scalar(-5.0, np.float32), out) == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_inplace_index_fill_writes_self():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    self_ref = t(x)
    status = call("aclnnInplaceIndexFill", self_ref, I64(0), t(np.array([1])), scalar(9, np.int32))
    assert status == OK, recent_error()
    assert got(self_ref).tolist() == [[0, 1, 2], [9, 9, 9]]


def test_index_fill_tensor_index_out_of_range():
    x = np.zeros((2, 3), np.float32)
    status = call("aclnnIndexFillTensor", t(x), I64(1), int_array([3]), scalar(1.0, np.float32), t(x))
    assert status[0] == INVALID and "Index value[3] is out of range" in recent_error()


def test_index_fill_dim_out_of_range():
    x = np.zeros((2, 3), np.float32)
    status = call("aclnnIndexFill", t(x), I64(2), t(np.array([0])), scalar(1.0, np.float32), t(x))
    assert status[0] == INVALID and "Dim value error" in recent_error()


# ---- flip, bucketize, inverse -----------------------------------------------------------------------------------

def test_flip_reverses_each_named_dim():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = t(np.zeros_like(x))
    assert call("aclnnFlip", t(x), int_array([0, -1]), out) == OK, recent_error()
    assert np.array_equal(got(out), torch.flip(torch.from_numpy(x), (0, -1)).numpy())


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_matches_torch_on_the_950(soc950, right):
    x = np.array([[1, 3, 5], [7, 9, 0]], np.float32)
    boundaries = np.array([1, 3, 5, 7, 9], np.float32)
    expected = torch.bucketize(torch.from_numpy(x), torch.from_numpy(boundaries), right=right).numpy()
    out = t(np.zeros(x.shape, np.int64))
    assert call("aclnnBucketize", t(x), t(boundaries), B(False), B(right), out) == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_bucketize_is_refused_before_the_950():
    x = np.zeros(2, np.float32)
    status = call("aclnnBucketize", t(x), t(x), B(False), B(False), t(np.zeros(2, np.int64)))
    assert status[0] != 0 and "not support this Soc Version" in recent_error()


def test_inverse_matches_torch_on_a_batch():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
    out = t(np.zeros_like(x))
    assert call("aclnnInverse", t(x), out) == OK, recent_error()
    np.testing.assert_allclose(got(out), torch.linalg.inv(torch.from_numpy(x)).numpy(), rtol=1e-4, atol=1e-5)


# ---- median, kthvalue -------------------------------------------------------------------------------------------

def test_median_and_nan_median_of_the_whole_tensor():
    x = np.array([3, 1, np.nan, 2, 5], np.float32)
    out = t(np.zeros((), np.float32))
    assert call("aclnnMedian", t(x), out) == OK, recent_error()
    assert np.isnan(got(out))
    assert call("aclnnNanMedian", t(x), out) == OK, recent_error()
    assert got(out) == torch.from_numpy(x).nanmedian().item()


@pytest.mark.parametrize("keepdim", [False, True])
def test_median_dim_returns_the_lower_median_and_its_first_index(keepdim):
    x = np.array([[4, 1, 4, 2], [7, 7, 3, 7]], np.float32)
    values, indices = torch.from_numpy(x).median(1, keepdim=keepdim)
    out_v, out_i = t(np.zeros(values.shape, np.float32)), t(np.zeros(values.shape, np.int64))
    assert call("aclnnMedianDim", t(x), I64(1), B(keepdim), out_v, out_i) == OK, recent_error()
    assert np.array_equal(got(out_v), values.numpy()) and np.array_equal(got(out_i), indices.numpy())


def test_kthvalue_matches_torch():
    rng = np.random.default_rng(4)
    x = rng.permutation(20).astype(np.float32).reshape(4, 5)
    values, indices = torch.from_numpy(x).kthvalue(2, 0)
    out_v, out_i = t(np.zeros(5, np.float32)), t(np.zeros(5, np.int64))
    assert call("aclnnKthvalue", t(x), I64(2), I64(0), B(False), out_v, out_i) == OK, recent_error()
    assert np.array_equal(got(out_v), values.numpy()) and np.array_equal(got(out_i), indices.numpy())


# ---- nonzero, unique: the kernel sets the output shape -----------------------------------------------------------

def test_nonzero_lists_coordinates_and_sets_the_output_shape():
    x = np.array([[0, 1, 0], [2, 0, 3]], np.float32)
    out = t(np.zeros((x.size, 2), np.int64))
    assert call("aclnnNonzero", t(x), out) == OK, recent_error()
    assert np.array_equal(shaped(out), torch.nonzero(torch.from_numpy(x)).numpy())


def test_nonzero_v2_is_transposed():
    x = np.array([[0, 1, 0], [2, 0, 3]], np.int32)
    out = t(np.zeros((2, x.size), np.int64))
    assert call("aclnnNonzeroV2", t(x), out) == OK, recent_error()
    assert np.array_equal(shaped(out), torch.nonzero(torch.from_numpy(x)).numpy().T)


def test_unique2_values_inverse_and_counts():
    x = np.array([3, 1, 3, 2, 1, 3], np.int64)
    values, inverse, counts = torch.unique(torch.from_numpy(x), return_inverse=True, return_counts=True)
    out_v, out_i, out_c = (t(np.zeros(x.size, np.int64)) for _ in range(3))
    status = call("aclnnUnique2", t(x), B(True), B(True), B(True), out_v, out_i, out_c)
    assert status == OK, recent_error()
    assert np.array_equal(shaped(out_v), values.numpy()) and np.array_equal(shaped(out_c), counts.numpy())
    assert np.array_equal(got(out_i), inverse.numpy())


def test_unique_consecutive_keeps_the_first_of_each_run():
    x = np.array([1, 1, 2, 2, 3, 1, 1], np.float32)
    values, inverse, counts = torch.unique_consecutive(torch.from_numpy(x), return_inverse=True, return_counts=True)
    out_v, out_i, out_c = t(np.zeros(x.size, np.float32)), t(np.zeros(x.size, np.int64)), t(np.zeros(x.size, np.int64))
    status = call("aclnnUniqueConsecutive", t(x), B(True), B(True), I64(1000), out_v, out_i, out_c)
    assert status == OK, recent_error()
    assert np.array_equal(shaped(out_v), values.numpy()) and np.array_equal(shaped(out_c), counts.numpy())
    assert np.array_equal(got(out_i), inverse.numpy())


def test_unique_dim_sorts_slices():
    x = np.array([[1, 2], [0, 5], [1, 2]], np.int32)
    values, inverse, counts = torch.unique(torch.from_numpy(x), dim=0, return_inverse=True, return_counts=True)
    out_v, out_i, out_c = t(np.zeros(x.shape, np.int32)), t(np.zeros(3, np.int64)), t(np.zeros(3, np.int64))
    status = call("aclnnUniqueDim", t(x), B(True), B(True), I64(0), out_v, out_i, out_c)
    assert status == OK, recent_error()
    assert np.array_equal(shaped(out_v), values.numpy()) and np.array_equal(shaped(out_c), counts.numpy())
    assert np.array_equal(got(out_i), inverse.numpy())


# ---- repeat_interleave ------------------------------------------------------------------------------------------

def test_repeat_interleave_with_dim_matches_torch():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    repeats = np.array([1, 0, 2])
    expected = torch.repeat_interleave(torch.from_numpy(x), torch.from_numpy(repeats), dim=1).numpy()
    out = t(np.zeros(expected.shape, np.float32))
    status = call("aclnnRepeatInterleaveWithDim", t(x), t(repeats), I64(1), I64(expected.shape[1]), out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_repeat_interleave_int_flattens_without_dim():
    x = np.arange(4, dtype=np.int32).reshape(2, 2)
    out = t(np.zeros(8, np.int32))
    assert call("aclnnRepeatInterleaveInt", t(x), I64(2), I64(8), out) == OK, recent_error()
    assert np.array_equal(got(out), np.repeat(x.reshape(-1), 2))


def test_repeat_interleave_tensor_repeats_the_positions():
    repeats = np.array([2, 0, 3])
    out = t(np.zeros(5, np.int64))
    assert call("aclnnRepeatInterleaveTensor", t(repeats), I64(5), out) == OK, recent_error()
    assert got(out).tolist() == torch.repeat_interleave(torch.from_numpy(repeats)).tolist()


def test_repeat_interleave_counts_past_output_size_fault_without_writing():
    x = np.arange(3, dtype=np.float32)
    out = t(np.full(4, -1, np.float32))
    status = call("aclnnRepeatInterleave", t(x), t(np.array([2, 2, 2])), I64(4), out)
    assert status[0] == 0 and AICORE in status[1:]
    assert got(out).tolist() == [-1] * 4


def test_repeat_interleave_grad_sums_each_group():
    rng = np.random.default_rng(5)
    repeats = np.array([2, 1, 3])
    x = torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32)).requires_grad_()
    y = torch.repeat_interleave(x, torch.from_numpy(repeats), dim=1)
    grad = torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32))
    y.backward(grad)
    out = t(np.zeros((2, 3), np.float32))
    status = call("aclnnRepeatInterleaveGrad", t(grad.numpy()), t(repeats), I64(1), out)
    assert status == OK, recent_error()
    np.testing.assert_allclose(got(out), x.grad.numpy(), rtol=1e-6, atol=1e-6)
