"""aclnnEmbedding (reference §4.6): numerics against PyTorch CPU through the C ABI, every check path
with its status and message, empty tensors, views, and out-of-range indices."""
import ctypes

import ml_dtypes
import numpy as np
import pytest
import torch

import opemu.api
from opemu.core import dtypes
from acl import DeviceTensor, lib, recent_error, run_two_phase
from conftest import run_program

PARAM_NULLPTR, PARAM_INVALID, INNER_NULLPTR, AICORE_EXCEPTION = 161001, 161002, 561103, 507015

WEIGHT_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16, np.float64, np.int64, np.int32, np.int16, np.int8,
                 np.uint8, np.bool_, np.complex64, np.complex128]


def to_torch(array):
    if array.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(array.view(np.uint16).copy()).view(torch.bfloat16)
    return torch.from_numpy(array.copy())


def from_torch(tensor):
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.uint16).numpy().view(ml_dtypes.bfloat16)
    return tensor.numpy()


def random_array(shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def embed(weight, indices, out):
    return run_two_phase("aclnnEmbedding", ctypes.c_void_p(weight.handle), ctypes.c_void_p(indices.handle),
                         ctypes.c_void_p(out.handle))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_gathers_rows_like_torch_for_every_dtype(weight_dtype, index_dtype):
    rng = np.random.default_rng(0)
    weight = random_array((11, 5), weight_dtype, rng)
    indices = rng.integers(0, 11, (3, 4)).astype(index_dtype)
    w, i = DeviceTensor(weight), DeviceTensor(indices)
    o = DeviceTensor(np.zeros((3, 4, 5), weight.dtype))
    assert embed(w, i, o) == (0, 0, 0), recent_error()
    expected = from_torch(to_torch(weight)[to_torch(indices).long()])
    np.testing.assert_array_equal(o.storage().reshape(3, 4, 5), expected)
    for t in (w, i, o):
        t.free()


@pytest.mark.parametrize("weight_dtype", [np.float32, np.float16, ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name)
def test_strided_and_offset_views_on_every_tensor(weight_dtype):
    rng = np.random.default_rng(1)
    # weight: a transposed view of a (6, 9) storage, starting 2 elements in
    storage = random_array((2 + 6 * 9,), weight_dtype, rng)
    weight_view = np.lib.stride_tricks.as_strided(storage[2:], (9, 6), (storage.itemsize, 9 * storage.itemsize))
    w = DeviceTensor(storage, shape=(9, 6), strides=(1, 9), offset=2)
    # indices: every other element of a (2, 8) storage, offset 1
    index_storage = rng.integers(0, 9, 17).astype(np.int64)
    indices_view = index_storage[1:].reshape(2, 8)[:, ::2]
    i = DeviceTensor(index_storage, shape=(2, 4), strides=(8, 2), offset=1)
    # out: (2, 4, 6) laid out with padded rows inside a larger buffer, offset 3
    out_storage = np.zeros(3 + 2 * 4 * 8, storage.dtype)
    o = DeviceTensor(out_storage, shape=(2, 4, 6), strides=(32, 8, 1), offset=3)
    assert embed(w, i, o) == (0, 0, 0), recent_error()
    expected = from_torch(to_torch(np.ascontiguousarray(weight_view))[to_torch(indices_view).long()])
    result = o.storage()
    got = np.lib.stride_tricks.as_strided(result[3:], (2, 4, 6), (32 * result.itemsize, 8 * result.itemsize, result.itemsize))
    np.testing.assert_array_equal(got, expected)
    untouched = np.ones(result.size, bool)
    untouched[3:][np.arange(2)[:, None, None] * 32 + np.arange(4)[None, :, None] * 8 + np.arange(6)] = False
    assert not result[untouched].any(), "elements outside the out view were written"


def test_empty_indices_succeed_with_no_workspace():
    w = DeviceTensor(np.ones((4, 3), np.float32))
    i = DeviceTensor(np.zeros((0,), np.int64))
    o = DeviceTensor(np.zeros((0, 3), np.float32))
    assert embed(w, i, o) == (0, 0, 0)


def test_empty_weight_leaves_out_untouched():
    w = DeviceTensor(np.ones((0, 3), np.float32))
    i = DeviceTensor(np.zeros((2,), np.int64))
    o = DeviceTensor(np.full((2, 3), 7, np.float32))
    assert embed(w, i, o) == (0, 0, 0)
    assert (o.storage() == 7).all()


def _tensors(weight=np.float32, indices=np.int64, out=np.float32, weight_shape=(4, 3), index_shape=(2,),
             out_shape=(2, 3)):
    return (DeviceTensor(np.ones(weight_shape, weight)), DeviceTensor(np.zeros(index_shape, indices)),
            DeviceTensor(np.zeros(out_shape, out)))


@pytest.mark.parametrize("missing", ["weight", "indices", "out"])
def test_null_tensor_is_param_nullptr(missing):
    w, i, o = _tensors(weight=np.uint64)  # a dtype error too: the null check comes first
    args = {"weight": w.handle, "indices": i.handle, "out": o.handle}
    args[missing] = None
    status, _, _ = run_two_phase("aclnnEmbedding", *(ctypes.c_void_p(args[k]) for k in ("weight", "indices", "out")))
    assert status == PARAM_NULLPTR
    assert "Expected a proper Tensor but got null for argument %s." % missing in recent_error()


def test_unsupported_weight_dtype_is_param_invalid():
    assert embed(*_tensors(weight=np.uint64, out=np.uint64))[0] == PARAM_INVALID
    assert ("Tensor weight not implemented for DT_UINT64, should be in dtype support list "
            "[DT_DOUBLE,DT_FLOAT,DT_FLOAT16,DT_INT64,DT_INT32,DT_INT16,DT_INT8,DT_UINT8,DT_BOOL,DT_COMPLEX128,"
            "DT_COMPLEX64,DT_BFLOAT16,].") in recent_error()


def test_bf16_weight_needs_an_a2_or_a3_product(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProB")
    assert embed(*_tensors(weight=ml_dtypes.bfloat16, out=ml_dtypes.bfloat16))[0] == PARAM_INVALID
    assert "not implemented for DT_BFLOAT16" in recent_error()


@pytest.mark.parametrize("product", ["Ascend950PR_9599", "Ascend910_9591", "Ascend910_9691"])
def test_bf16_weight_on_every_950_line_product(monkeypatch, product):
    """Products named Ascend910_95*/910_96* answer with the 950 line's tables, as Ascend950* do."""
    monkeypatch.setenv("OPEMU_SOC", product)
    assert embed(*_tensors(weight=ml_dtypes.bfloat16, out=ml_dtypes.bfloat16))[0] == 0, recent_error()


def test_out_dtype_must_equal_weight_dtype():
    assert embed(*_tensors(out=np.float16))[0] == PARAM_INVALID
    assert "Expected both tensors to have same dtype, but found weight DT_FLOAT and out DT_FLOAT16." in recent_error()


def test_indices_must_be_int32_or_int64():
    assert embed(*_tensors(indices=np.float32, out=np.float16))[0] == PARAM_INVALID  # dtype of out is checked first
    assert "out DT_FLOAT16" in recent_error()
    assert embed(*_tensors(indices=np.float32))[0] == PARAM_INVALID
    assert "Tensor indices not implemented for DT_FLOAT, should be in dtype support list [DT_INT32,DT_INT64,]." in recent_error()


def test_rank_above_eight_is_param_invalid():
    assert embed(*_tensors(index_shape=(1,) * 9, out_shape=(1,) * 9 + (3,)))[0] == PARAM_INVALID
    assert "The indices tensor cannot be larger than 8 dimensions." in recent_error()


def test_out_rank_must_be_one_more_than_indices():
    assert embed(*_tensors(out_shape=(6,)))[0] == PARAM_INVALID
    assert "out dim [1] should be one larger than indices dim [1]." in recent_error()


def test_out_leading_dims_must_match_indices():
    assert embed(*_tensors(out_shape=(3, 3)))[0] == PARAM_INVALID
    assert "out shape [[3, 3]] is not match with indices shape [[2]]." in recent_error()


def test_out_last_dim_differing_from_weight_fails_in_the_view_copy():
    assert embed(*_tensors(out_shape=(2, 4)))[0] == INNER_NULLPTR


def test_negative_stride_is_param_invalid():
    w, i, o = _tensors()
    bad = DeviceTensor(np.ones((4, 3), np.float32), strides=(-3, 1), offset=9)
    assert embed(bad, i, o)[0] == PARAM_INVALID


def test_index_past_the_rows_reads_the_allocation_as_hardware_does():
    # 3 rows of 2 floats = 24 bytes; aclrtMalloc maps ALIGN_UP(24,32)+32 = 64 bytes, i.e. 8 rows' worth
    w = DeviceTensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    lib().aclrtMemset(ctypes.c_void_p(w.address.value + 24), 40, 0x41, 40)  # bytes past the tensor
    i = DeviceTensor(np.array([1, 5], np.int64))
    o = DeviceTensor(np.zeros((2, 2), np.float32))
    assert embed(w, i, o) == (0, 0, 0)
    result = o.storage().reshape(2, 2)
    np.testing.assert_array_equal(result[0], [2, 3])
    assert result[1].view(np.uint32).tolist() == [0x41414141] * 2


@pytest.mark.parametrize("index", [-1, 100])
def test_index_outside_the_allocation_is_an_aicore_exception(index):
    w, i, o = DeviceTensor(np.ones((3, 2), np.float32)), DeviceTensor(np.array([index], np.int64)), \
        DeviceTensor(np.zeros((1, 2), np.float32))
    status, launched, _ = embed(w, i, o)
    assert (status, launched) == (0, AICORE_EXCEPTION)
    assert "outside weight's 3 rows" in recent_error()


def test_python_api_matches_the_c_path():
    rng = np.random.default_rng(2)
    weight = rng.standard_normal((7, 4)).astype(np.float32)
    indices = rng.integers(0, 7, (5,))
    np.testing.assert_array_equal(opemu.api.embedding(weight, indices), weight[indices])
    with pytest.raises(opemu.api.VendorError) as error:
        opemu.api.embedding(weight.astype(np.uint64), indices)
    assert error.value.code == PARAM_INVALID


@pytest.mark.parametrize("entry", ["aclnnEmbeddingGetWorkspaceSize", "aclnnEmbedding"])
def test_python_exception_becomes_inner_error_with_message(monkeypatch, entry):
    monkeypatch.setenv("OPEMU_FAULT", entry)
    status, launched, _ = embed(*_tensors())
    assert 561000 in (status, launched)
    assert "fault injected by OPEMU_FAULT" in recent_error()


def test_sample_prints_the_gathered_rows(embedding_sample):
    result = run_program(embedding_sample)
    assert result.returncode == 0, result.stdout + result.stderr
    values = [float(line.split()[-1]) for line in result.stdout.splitlines() if line.startswith("result[")]
    assert values == pytest.approx([4.0, 4.1, 4.2, 0.0, 0.1, 0.2, 2.0, 2.1, 2.2, 2.0, 2.1, 2.2])


def test_sample_reports_a_failed_interpreter_start(embedding_sample):
    result = run_program(embedding_sample, env={"PYTHONHOME": "/nonexistent"})
    assert result.returncode != 0
    assert "aclnnEmbeddingGetWorkspaceSize failed. ERROR: 561000" in result.stdout
