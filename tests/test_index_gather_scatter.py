"""Gathers and scatters of ops-nn index/ through the C ABI: values against PyTorch CPU, the order duplicates
land in, where fp16 sums round, indices past the tensor, and the phase-1 checks of each op in its order."""
import ctypes
import os

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, scalar, to_torch

NULLPTR, INVALID, TILING, INNER_NULLPTR, AICORE = 161001, 161002, 561002, 561103, 507015
I64, B = ctypes.c_int64, ctypes.c_bool
BF16 = np.dtype(ml_dtypes.bfloat16)
OK = (0, 0, 0)


@pytest.fixture
def soc950(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor, dtype=None):
    return tensor.storage().reshape(tensor.shape)


# ---- gathers -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int64, np.bool_])
def test_gather_v2_takes_rows_along_dim_with_negative_indices(dtype, dim):
    x = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    size = x.shape[dim]
    index = np.array([[size - 1, -1], [0, -size]])
    expected = np.take(x, index, axis=dim)
    out = t(np.zeros(expected.shape, dtype))
    assert call("aclnnGatherV2", t(x), I64(dim), t(index), out) == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_gather_v2_zero_d_index_gathers_one_row():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = t(np.zeros((2, 1), np.float32))
    assert call("aclnnGatherV2", t(x), I64(1), t(np.array([2]), shape=()), out) == OK, recent_error()
    assert got(out).reshape(-1).tolist() == [2, 5]


def test_gather_v2_out_shape_is_checked():
    x = np.zeros((2, 3), np.float32)
    assert call("aclnnGatherV2", t(x), I64(0), t(np.array([1])), t(np.zeros((2, 3), np.float32)))[0] == INVALID
    assert "to have same size as [1, 3]" in recent_error()


def test_gather_v2_dim_out_of_range():
    x = np.zeros((2, 3), np.float32)
    assert call("aclnnGatherV2", t(x), I64(2), t(np.array([1])), t(np.zeros((2, 1), np.float32)))[0] == INVALID
    assert "dim 2 not in valid range: [-2, 2)" in recent_error()


def test_gather_v2_index_far_outside_every_allocation_faults_and_writes_nothing():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = t(np.full((1, 3), 9, np.float32))
    status = call("aclnnGatherV2", t(x), I64(0), t(np.array([1 << 40])), out)
    assert status[0] == 0 and AICORE in status[1:], status
    assert (got(out) == 9).all()


def test_gather_v3_takes_dim_0_only_off_the_950():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = t(np.zeros((3, 2), np.float32))
    assert call("aclnnGatherV3", t(x), I64(1), t(np.array([0, 1])), I64(0), I64(1), out)[0] == INVALID
    assert "only dim=0, batchDims=0, and mode=1" in recent_error()
    out = t(np.zeros((2, 4), np.float32))
    assert call("aclnnGatherV3", t(x), I64(0), t(np.array([2, 0])), I64(0), I64(1), out) == OK, recent_error()
    assert np.array_equal(got(out), x[[2, 0]])


def test_gather_v3_batch_dims_on_the_950(soc950):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    index = np.array([[2, 0], [1, 1]])
    out = t(np.zeros((2, 2, 4), np.float32))
    assert call("aclnnGatherV3", t(x), I64(1), t(index), I64(1), I64(0), out) == OK, recent_error()
    assert np.array_equal(got(out), np.stack([x[0, [2, 0]], x[1, [1, 1]]]))


def test_take_reads_the_flattened_self():
    x = np.arange(12, dtype=np.float16).reshape(3, 4)
    index = np.array([[11, -1], [0, 5]])
    out = t(np.zeros((2, 2), np.float16))
    assert call("aclnnTake", t(x), t(index), out) == OK, recent_error()
    assert np.array_equal(got(out), torch.take(to_torch(x), torch.from_numpy(index)).numpy())


def test_take_from_an_empty_tensor_is_refused():
    assert call("aclnnTake", t(np.zeros((0,), np.float32)), t(np.array([0])), t(np.zeros(1, np.float32)))[0] == INVALID
    assert "tried to take from an empty tensor" in recent_error()


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather_matches_torch_gather(dim):
    rng = np.random.default_rng(dim)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    shape = [2, 3, 4]
    shape[dim] = 6
    index = rng.integers(0, x.shape[dim], shape)
    out = t(np.zeros(shape, np.float32))
    assert call("aclnnGather", t(x), I64(dim), t(index), out) == OK, recent_error()
    assert np.array_equal(got(out), torch.gather(torch.from_numpy(x), dim, torch.from_numpy(index)).numpy())


def test_gather_index_larger_than_self_apart_from_dim():
    x = np.zeros((2, 3), np.float32)
    status = call("aclnnGather", t(x), I64(0), t(np.zeros((2, 4), np.int64)), t(np.zeros((2, 4), np.float32)))
    assert status[0] == INVALID
    assert "Size does not match at dimension 1, expected index shape 4 smaller than self shape 3" in recent_error()


@pytest.mark.parametrize("negative", [False, True])
def test_gather_nd_gathers_slices(negative):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    indices = np.array([[1, 2], [0, -1 if negative else 1]])
    out = t(np.zeros((2, 4), np.float32))
    assert call("aclnnGatherNd", t(x), t(indices), B(negative), out) == OK, recent_error()
    if negative:
        assert np.array_equal(got(out), np.stack([x[1, 2], x[0, 2]]))
    else:
        assert np.array_equal(got(out), np.stack([x[1, 2], x[0, 1]]))


def test_gather_nd_indices_last_dim_beyond_rank():
    x = np.zeros((2, 3), np.float32)
    assert call("aclnnGatherNd", t(x), t(np.zeros((1, 3), np.int64)), B(False), t(np.zeros(1, np.float32)))[0] == INVALID
    assert "indices last dim 3 not in valid range: [1, 2]" in recent_error()


# ---- scatter / scatter_reduce ---------------------------------------------------------------------------------------

def _scatter_problem(seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 5)).astype(dtype)
    index = rng.integers(0, 5, (2, 4))
    src = rng.standard_normal((2, 5)).astype(dtype)
    return x, index, src


@pytest.mark.filterwarnings("ignore:The reduce argument")
@pytest.mark.parametrize("reduce,name", [(1, "add"), (2, "multiply")])
def test_scatter_with_reduce_matches_torch(reduce, name):
    x, index, src = _scatter_problem(1)
    out = t(np.zeros_like(x))
    assert call("aclnnScatter", t(x), I64(1), t(index), t(src), I64(reduce), out) == OK, recent_error()
    expected = torch.from_numpy(x).scatter(1, torch.from_numpy(index), torch.from_numpy(src), reduce=name)
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-6)


def test_scatter_duplicates_last_write_wins():
    x = np.zeros((1, 4), np.float32)
    index = np.array([[2, 2, 2]])
    src = np.array([[1, 2, 3]], np.float32)
    out = t(np.zeros_like(x))
    assert call("aclnnScatter", t(x), I64(1), t(index), t(src), I64(0), out) == OK, recent_error()
    assert got(out).tolist() == [[0, 0, 3, 0]]


def test_inplace_scatter_writes_self():
    x, index, src = _scatter_problem(2)
    selfref = t(x)
    assert call("aclnnInplaceScatter", selfref, I64(0), t(index[:, :3] % 3), t(src), I64(0)) == OK, recent_error()
    expected = torch.from_numpy(x).scatter(0, torch.from_numpy(index[:, :3] % 3), torch.from_numpy(src))
    assert np.array_equal(got(selfref), expected.numpy())


def test_scatter_add_of_fp16_sums_in_fp32_and_rounds_once():
    x = np.zeros((1, 1), np.float16)
    src = np.full((1, 3), 1024, np.float16)
    src[0, 1:] = 0.5           # 1024 + 0.5 + 0.5 in fp16 steps stays 1024; in fp32, 1025
    out = t(np.zeros_like(x))
    assert call("aclnnScatterAdd", t(x), I64(1), t(np.zeros((1, 3), np.int64)), t(src), out) == OK, recent_error()
    assert got(out)[0, 0] == 1025


def test_scatter_value_scatters_the_scalar():
    x = np.zeros((3, 3), np.float32)
    out = t(np.zeros_like(x))
    status = call("aclnnScatterValue", t(x), I64(0), t(np.array([[2, 0, 1]])), scalar(7.5, np.float32), I64(0), out)
    assert status == OK, recent_error()
    assert got(out).tolist() == [[0, 7.5, 0], [0, 0, 7.5], [7.5, 0, 0]]


def test_scatter_value_with_complex_value_and_real_self():
    x = np.zeros((3, 3), np.float32)
    status = call("aclnnScatterValue", t(x), I64(0), t(np.array([[2]])), scalar(1j, np.complex64), I64(0),
                  t(np.zeros_like(x)))
    assert status[0] == INVALID and "When value is COMPLEX" in recent_error()


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce,name", [(1, "sum"), (2, "prod"), (3, "amax"), (4, "amin"), (5, "mean")])
def test_scatter_reduce_matches_torch_on_the_950(soc950, reduce, name, include_self):
    x, index, src = _scatter_problem(3)
    out = t(np.zeros_like(x))
    status = call("aclnnScatterReduce", t(x), I64(1), t(index), t(src), I64(reduce), B(include_self), out)
    assert status == OK, recent_error()
    expected = torch.from_numpy(x).scatter_reduce(1, torch.from_numpy(index), torch.from_numpy(src[:, :4]), name,
                                                  include_self=include_self)
    np.testing.assert_allclose(got(out), expected.numpy(), rtol=1e-6)


def test_scatter_reduce_on_atlas_a2_takes_float_add_include_self_only():
    x, index, src = _scatter_problem(4)
    status = call("aclnnScatterReduce", t(x), I64(1), t(index), t(src), I64(2), B(True), t(np.zeros_like(x)))
    assert status[0] == INVALID
    assert "scatter_reduce only supports dtype=float32, reduce=sum, include_self=true" in recent_error()


def test_scatter_reduce_rejects_an_unknown_reduce(soc950):
    x, index, src = _scatter_problem(5)
    assert call("aclnnScatterReduce", t(x), I64(1), t(index), t(src), I64(6), B(True), t(np.zeros_like(x)))[0] == INVALID
    assert "reduce must be one of" in recent_error()


@pytest.mark.parametrize("case,message", [
    ("rank", "expect self, index, src have same number of dimensions."),
    ("src", "should be smaller than src shape"),
    ("self", "Apart from dimension 1"),
    ("dim", "dim must be in range [-2, 1]."),
])
def test_scatter_shape_checks(case, message):
    x = np.zeros((3, 5), np.float32)
    index, src, dim = np.zeros((2, 4), np.int64), np.zeros((2, 5), np.float32), 1
    if case == "rank":
        index = np.zeros(4, np.int64)
    elif case == "src":
        src = np.zeros((2, 3), np.float32)
    elif case == "self":
        index, src = np.zeros((4, 4), np.int64), np.zeros((4, 5), np.float32)
    else:
        dim = 2
    assert call("aclnnScatter", t(x), I64(dim), t(index), t(src), I64(0), t(np.zeros_like(x)))[0] == INVALID
    assert message in recent_error()


def test_scatter_with_an_empty_index_copies_self():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = t(np.zeros_like(x))
    assert call("aclnnScatter", t(x), I64(0), t(np.zeros((0, 3), np.int64)), t(x), I64(0), out) == OK, recent_error()
    assert np.array_equal(got(out), x)


# ---- index_copy, scatter_update, scatter_nd, put -------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1])
def test_index_copy_matches_torch(dim):
    rng = np.random.default_rng(dim)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    index = np.array([3, 0])
    source = rng.standard_normal((2, 5) if dim == 0 else (4, 2)).astype(np.float32)
    out = t(np.zeros_like(x))
    self_tensor = t(x)
    assert call("aclnnIndexCopy", self_tensor, I64(dim), t(index), t(source), out) == OK, recent_error()
    expected = torch.from_numpy(x).index_copy(dim, torch.from_numpy(index), torch.from_numpy(source)).numpy()
    assert np.array_equal(got(out), expected)
    assert np.array_equal(got(self_tensor), x)
    assert call("aclnnInplaceIndexCopy", self_tensor, I64(dim), t(index), t(source)) == OK, recent_error()
    assert np.array_equal(got(self_tensor), expected)


def test_index_copy_index_count_must_match_source():
    x = np.zeros((4, 5), np.float32)
    status = call("aclnnIndexCopy", t(x), I64(0), t(np.array([1, 2, 3])), t(np.zeros((2, 5), np.float32)),
                  t(np.zeros_like(x)))
    assert status[0] == INVALID and "The element num of index (3) should be equal to source size" in recent_error()


def test_inplace_scatter_update_writes_cache_rows_per_batch():
    data = np.zeros((2, 2, 6, 3), np.float16)
    updates = np.arange(24, dtype=np.float16).reshape(2, 2, 2, 3)
    cache = t(data)
    assert call("aclnnInplaceScatterUpdate", cache, t(np.array([1, 4])), t(updates), I64(-2)) == OK, recent_error()
    expected = data.copy()
    expected[0, :, 1:3] = updates[0]
    expected[1, :, 4:6] = updates[1]
    assert np.array_equal(got(cache), expected)


def test_inplace_scatter_update_with_batch_and_offset_pairs():
    data = np.zeros((3, 4, 2), np.float32)
    updates = np.ones((2, 1, 2), np.float32)
    cache = t(data)
    assert call("aclnnInplaceScatterUpdate", cache, t(np.array([[2, 3], [0, 1]])), t(updates), I64(1)) == OK
    expected = data.copy()
    expected[2, 3] = 1
    expected[0, 1] = 1
    assert np.array_equal(got(cache), expected)


def test_scatter_nd_copies_data_and_updates_a_contiguous_data_too():
    data = np.zeros((4, 3), np.float32)
    indices, updates = np.array([[1], [3]]), np.ones((2, 3), np.float32)
    data_tensor, out = t(data), t(np.zeros_like(data))
    assert call("aclnnScatterNd", data_tensor, t(indices), t(updates), out) == OK, recent_error()
    expected = data.copy()
    expected[[1, 3]] = 1
    assert np.array_equal(got(out), expected)
    assert np.array_equal(got(data_tensor), expected)


def test_scatter_nd_shape_rule():
    status = call("aclnnScatterNd", t(np.zeros((4, 3), np.float32)), t(np.array([[1], [3]])),
                  t(np.ones((2, 2), np.float32)), t(np.zeros((4, 3), np.float32)))
    assert status[0] == INVALID and "the shape of data, indices and updates are not matched" in recent_error()


def test_scatter_nd_update_writes_var_in_place():
    var = t(np.zeros((2, 3, 2), np.float32))
    indices = np.array([[0, 2], [1, 0]])
    updates = np.array([[1, 2], [3, 4]], np.float32)
    assert call("aclnnScatterNdUpdate", var, t(indices), t(updates)) == OK, recent_error()
    expected = np.zeros((2, 3, 2), np.float32)
    expected[0, 2], expected[1, 0] = [1, 2], [3, 4]
    assert np.array_equal(got(var), expected)


def test_scatter_nd_update_shapes_it_cannot_address_are_a_tiling_error():
    status = call("aclnnScatterNdUpdate", t(np.zeros((2, 3), np.float32)), t(np.array([[0]])),
                  t(np.ones((1, 2), np.float32)))
    assert status[0] == TILING


@pytest.mark.parametrize("accumulate", [False, True])
def test_inplace_put_matches_torch(accumulate):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    index = np.array([[11, 0], [5, 11]])
    source = np.array([[1, 2], [3, 4]], np.float32)
    selfref = t(x)
    assert call("aclnnInplacePut", selfref, t(index), t(source), B(accumulate)) == OK, recent_error()
    expected = torch.from_numpy(x.copy()).put_(torch.from_numpy(index), torch.from_numpy(source), accumulate)
    if accumulate:
        assert np.array_equal(got(selfref), expected.numpy())
    else:   # duplicates: the last write wins
        assert got(selfref).reshape(-1)[11] == 4 and got(selfref).reshape(-1)[0] == 2


def test_tf_scatter_add_adds_fp16_rows_in_fp16_steps():
    var = t(np.full((2, 1), 1024, np.float16))
    updates = np.full((3, 1), 0.5, np.float16)
    assert call("aclnnTfScatterAdd", var, t(np.array([1, 1, 1])), t(updates)) == OK, recent_error()
    assert got(var)[:, 0].tolist() == [1024, 1024]   # each 1024 + 0.5 rounds back to 1024 in fp16


def test_tf_scatter_add_bf16_goes_through_fp32():
    var = t(np.full((1, 1), 256, BF16))
    updates = np.full((2, 1), 1, BF16)   # 256 + 1 + 1 = 258 exactly; bf16 steps would stay at 256
    assert call("aclnnTfScatterAdd", var, t(np.array([0, 0])), t(updates)) == OK, recent_error()
    assert float(got(var)[0, 0]) == 258


def test_scatter_index_past_every_allocation_faults_and_leaves_self():
    x = np.zeros((1, 4), np.float32)
    selfref = t(x)
    status = call("aclnnInplaceScatter", selfref, I64(1), t(np.array([[1 << 40]])), t(np.ones((1, 1), np.float32)),
                  I64(0))
    assert status[0] == 0 and AICORE in status[1:], status
    assert (got(selfref) == 0).all()
