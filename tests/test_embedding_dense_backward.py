"""aclnnEmbeddingDenseBackward (reference §4.5, seed 001) through the C ABI: sums against PyTorch CPU's
embedding_dense_backward for every grad and index dtype, paddingIdx as int64, scaleGradByFreq,
out's dtype, views, empty tensors, out-of-range indices, every phase-1 check and the sample."""
import ctypes
import types
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch

import opemu.api
from acl import DeviceTensor, lib, recent_error, run_two_phase
from conftest import ROOT, ops_nn_compile, run_program

NULLPTR, INVALID, RUNTIME, AICORE = 161001, 161002, 361001, 507015
BF16 = np.dtype(ml_dtypes.bfloat16)
P = ctypes.c_void_p
GRAD_DTYPES = [np.float32, np.float16, BF16]
INDEX_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_]


def handle(t):
    return P(None) if t is None else P(t.handle)


def backward(grad, indices, num_weights, padding, scale, out):
    return run_two_phase("aclnnEmbeddingDenseBackward", handle(grad), handle(indices), ctypes.c_uint64(num_weights),
                         ctypes.c_uint64(padding % (1 << 64)), ctypes.c_bool(scale), handle(out))


def torch_reference(grad, indices, num_weights, padding=-1, scale=False):
    """PyTorch CPU on the fp32 widening of grad (where the kernel accumulates), int64 indices."""
    g = torch.from_numpy(np.asarray(grad, np.float32).copy())
    i = torch.from_numpy(np.trunc(np.asarray(indices, np.float64)).astype(np.int64))
    return torch.ops.aten.embedding_dense_backward(g, i, num_weights, padding, scale).numpy()


def run(grad, indices, num_weights, padding=-1, scale=False, out_dtype=None):
    g, i = DeviceTensor(grad), DeviceTensor(indices)
    o = DeviceTensor(np.full((num_weights, grad.shape[-1]), 9, out_dtype or grad.dtype))
    assert backward(g, i, num_weights, padding, scale, o) == (0, 0, 0), recent_error()
    return o.storage().reshape(num_weights, grad.shape[-1])


def index_values(dtype, shape, rows, rng):
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    values = rng.integers(0, rows, shape)
    if np.dtype(dtype).kind == "f":
        return (values + rng.choice([0.0, 0.25, 0.75], shape)).astype(dtype)  # truncated by the op
    return values.astype(dtype)


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("grad_dtype", GRAD_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sums_repeated_indices_like_torch_for_every_dtype(grad_dtype, index_dtype):
    rng = np.random.default_rng(1)
    grad = rng.standard_normal((3, 8, 6)).astype(grad_dtype)
    indices = index_values(index_dtype, (3, 8), 7, rng)
    expected = torch_reference(grad, indices, 7).astype(grad_dtype)  # fp32 sums, one rounding
    np.testing.assert_array_equal(run(grad, indices, 7), expected)


def test_padding_row_stays_zero():
    rng = np.random.default_rng(2)
    grad = rng.standard_normal((20, 4)).astype(np.float32)
    indices = rng.integers(0, 6, 20)
    result = run(grad, indices, 6, padding=2)
    assert not result[2].any()
    np.testing.assert_array_equal(result, torch_reference(grad, indices, 6, padding=2))


@pytest.mark.parametrize("padding", [(1 << 64) - 1, (1 << 64) - 3], ids=["minus1", "minus3"])
def test_padding_idx_is_reinterpreted_as_int64(padding):
    rng = np.random.default_rng(3)
    grad = rng.standard_normal((12, 3)).astype(np.float32)
    indices = rng.integers(0, 4, 12)
    np.testing.assert_array_equal(run(grad, indices, 4, padding=padding), torch_reference(grad, indices, 4))


def test_padding_index_beyond_num_weights_is_skipped_not_a_fault():
    grad = np.ones((3, 2), np.float32)
    result = run(grad, np.array([7, 1, 7]), 4, padding=7)
    np.testing.assert_array_equal(result, [[0, 0], [1, 1], [0, 0], [0, 0]])


@pytest.mark.parametrize("grad_dtype", GRAD_DTYPES, ids=lambda d: np.dtype(d).name)
def test_scale_grad_by_freq_divides_each_sum_by_its_count(grad_dtype):
    rng = np.random.default_rng(4)
    grad = rng.standard_normal((40, 5)).astype(grad_dtype)
    indices = rng.integers(0, 6, 40)
    expected = torch_reference(grad, indices, 6, padding=3, scale=True)
    # The kernel scales the fp32 sum by 1/count, torch scales each row: a few fp32 ulps apart,
    # then one rounding to grad's dtype.
    eps = {np.dtype(np.float32): 2.0 ** -23, np.dtype(np.float16): 2.0 ** -10, BF16: 2.0 ** -7}[np.dtype(grad_dtype)]
    np.testing.assert_allclose(run(grad, indices, 6, padding=3, scale=True).astype(np.float32), expected,
                               rtol=4 * eps, atol=4 * eps)


def test_out_dtype_may_differ_from_grad_and_is_rounded_once():
    rng = np.random.default_rng(5)
    grad = rng.standard_normal((30, 4)).astype(np.float32)
    indices = rng.integers(0, 5, 30)
    np.testing.assert_array_equal(run(grad, indices, 5, out_dtype=BF16), torch_reference(grad, indices, 5).astype(BF16))
    grad16 = grad.astype(np.float16)
    np.testing.assert_array_equal(run(grad16, indices, 5, out_dtype=np.float32), torch_reference(grad16, indices, 5))


def test_long_runs_of_one_index_are_summed_in_index_order():
    rng = np.random.default_rng(6)
    grad = rng.standard_normal((700, 16)).astype(np.float32)
    indices = np.where(rng.random(700) < 0.6, 3, rng.integers(0, 9, 700))  # ~420 rows into row 3
    first = run(grad, indices, 9)
    np.testing.assert_allclose(first, torch_reference(grad, indices, 9), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(run(grad, indices, 9), first)  # deterministic


def test_strided_and_offset_views_on_every_tensor():
    rng = np.random.default_rng(7)
    # grad: the transpose of a (5, 8) storage, 3 elements in -> (8, 5) view
    grad_storage = rng.standard_normal(3 + 40).astype(np.float32)
    grad_view = np.lib.stride_tricks.as_strided(grad_storage[3:], (8, 5), (4, 32))
    g = DeviceTensor(grad_storage, shape=(8, 5), strides=(1, 8), offset=3)
    # indices: every other element, offset 1
    index_storage = rng.integers(0, 4, 17)
    indices_view = index_storage[1:][::2]
    i = DeviceTensor(index_storage, shape=(8,), strides=(2,), offset=1)
    # out: (4, 5) rows padded to 7 elements, offset 2
    out_storage = np.full(2 + 4 * 7, -1, np.float32)
    o = DeviceTensor(out_storage, shape=(4, 5), strides=(7, 1), offset=2)
    assert backward(g, i, 4, -1, False, o) == (0, 0, 0), recent_error()
    result = o.storage()
    got = np.lib.stride_tricks.as_strided(result[2:], (4, 5), (28, 4))
    np.testing.assert_array_equal(got, torch_reference(np.ascontiguousarray(grad_view), indices_view, 4))
    assert (result[2:].reshape(4, 7)[:, 5:] == -1).all() and result[0] == result[1] == -1


@pytest.mark.parametrize("grad_shape, index_shape", [((0, 3), (0,)), ((2, 0, 3), (2, 0))], ids=["rows", "inner"])
def test_empty_grad_or_indices_zero_fill_out(grad_shape, index_shape):
    g, i = DeviceTensor(np.zeros(grad_shape, np.float32)), DeviceTensor(np.zeros(index_shape, np.int64))
    o = DeviceTensor(np.full((4, 3), 5, np.float32))
    assert backward(g, i, 4, -1, False, o) == (0, 0, 0), recent_error()
    assert not o.storage().any()


@pytest.mark.parametrize("bad", [-1, 5])
def test_index_outside_num_weights_is_an_aicore_exception_and_out_is_untouched(bad):
    g, i = DeviceTensor(np.ones((3, 2), np.float32)), DeviceTensor(np.array([0, bad, 1]))
    o = DeviceTensor(np.full((5, 2), 7, np.float32))
    status, launched, _ = backward(g, i, 5, 99, False, o)  # (with paddingIdx -1, index -1 would be skipped)
    assert (status, launched) == (0, AICORE)
    assert "indices[1] = %d is outside out's 5 rows" % bad in recent_error()
    assert (o.storage() == 7).all()


# ---- phase 1 ------------------------------------------------------------------------------------

def tensors(grad=np.float32, indices=np.int64, out=np.float32, grad_shape=(4, 3), index_shape=(4,),
            out_shape=(5, 3)):
    return (DeviceTensor(np.zeros(grad_shape, grad)), DeviceTensor(np.zeros(index_shape, indices)),
            DeviceTensor(np.zeros(out_shape, out)))


def check(*args, num_weights=5, padding=-1):
    g, i, o = args if args else tensors()
    return backward(g, i, num_weights, padding, False, o)[0]


@pytest.mark.parametrize("missing", ["grad", "indices", "out"])
def test_null_tensor_is_param_nullptr(missing):
    t = dict(zip(("grad", "indices", "out"), tensors(grad=np.int32)))  # a dtype error too: nulls come first
    t[missing] = None
    assert check(*t.values()) == NULLPTR
    assert "Expected a proper Tensor but got null for argument %s." % missing in recent_error()


def test_grad_dtype_outside_the_list_is_param_invalid():
    assert check(*tensors(grad=np.float64)) == INVALID
    assert ("Tensor grad not implemented for DT_DOUBLE, should be in dtype support list "
            "[DT_FLOAT,DT_FLOAT16,DT_BFLOAT16,].") in recent_error()


def test_indices_dtype_outside_the_list_is_param_invalid():
    assert check(*tensors(indices=np.uint32, out=np.int32)) == INVALID  # indices are checked before out
    assert ("Tensor indices not implemented for DT_UINT32, should be in dtype support list "
            "[DT_FLOAT16,DT_FLOAT,DT_DOUBLE,DT_INT8,DT_UINT8,DT_INT16,DT_INT32,DT_INT64,DT_BOOL,].") in recent_error()


def test_out_dtype_outside_the_list_is_param_invalid():
    assert check(*tensors(out=np.int32)) == INVALID
    assert "Tensor out not implemented for DT_INT32" in recent_error()


def test_bf16_needs_an_a2_a3_or_950_product(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend910ProB")
    assert check(*tensors(grad=BF16, out=BF16)) == INVALID
    assert "should be in dtype support list [DT_FLOAT,DT_FLOAT16,]." in recent_error()


def test_rank_above_eight_is_param_invalid():
    assert check(*tensors(grad_shape=(1,) * 8 + (3,), index_shape=(1,) * 8)) == INVALID
    assert "The grad tensor cannot be larger than 8 dimensions." in recent_error()


def test_grad_rows_must_match_the_number_of_indices():
    assert check(*tensors(grad_shape=(3, 2, 3))) == INVALID
    assert "grad shape [[3, 2, 3]] is not match with indices shape [[4]]." in recent_error()


def test_grad_last_dim_zero_skips_the_count_check():
    g, i, o = tensors(grad_shape=(3, 0), out_shape=(5, 0))
    assert backward(g, i, 5, -1, False, o) == (0, 0, 0), recent_error()


def test_out_must_be_2d():
    assert check(*tensors(out_shape=(5, 3, 1))) == INVALID
    assert "outDim shape is not equal to 2" in recent_error()


@pytest.mark.parametrize("out_shape", [(4, 3), (5, 2)])
def test_out_shape_must_be_num_weights_by_grad_last_dim(out_shape):
    assert check(*tensors(out_shape=out_shape)) == INVALID
    assert "outshape [[%d, %d]] is not match with infershape {5, 3}." % out_shape in recent_error()


def test_private_format_is_param_invalid():
    g, i, o = tensors()
    dims = (ctypes.c_int64 * 2)(4, 3)
    nz = lib().aclCreateTensor(dims, 2, 0, None, 0, 29, dims, 2, g.address)  # ACL_FORMAT_FRACTAL_NZ
    assert backward(types.SimpleNamespace(handle=nz), i, 5, -1, False, o)[0] == INVALID
    assert "Format only support ND." in recent_error()
    lib().aclDestroyTensor(nz)


def test_unsupported_product_is_a_runtime_error_after_the_other_checks(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    assert check(*tensors(out_shape=(4, 3))) == INVALID  # parameter errors still come first
    assert check() == RUNTIME
    assert "aclnnEmbeddingDenseBackward is not supported on Ascend310P3." in recent_error()


@pytest.mark.parametrize("soc", ["Ascend910ProB", "Ascend910_9391", "Ascend910B2"])
def test_training_a2_and_a3_products_are_supported(monkeypatch, soc):
    monkeypatch.setenv("OPEMU_SOC", soc)
    assert check() == 0


def test_python_api_runs_the_same_kernel():
    rng = np.random.default_rng(8)
    grad = rng.standard_normal((10, 3)).astype(np.float32)
    indices = rng.integers(0, 4, 10)
    out = np.empty((4, 3), np.float32)
    opemu.api.call("aclnnEmbeddingDenseBackward", grad=grad, indices=indices, numWeights=4, paddingIdx=-1,
                   scaleGradByFreq=False, out=out)
    np.testing.assert_array_equal(out, torch_reference(grad, indices, 4))


def test_sample_prints_the_summed_rows(build_dir):
    exe = ops_nn_compile(ROOT / "samples" / "aclnn" / "embedding_dense_backward.cpp", build_dir / "edb_sample")
    result = run_program(exe)
    assert result.returncode == 0, result.stdout + result.stderr
    values = [float(line.split()[-1]) for line in result.stdout.splitlines() if line.startswith("out result[")]
    assert values == pytest.approx([2.2, 2.4, 2.6, 0, 0, 0, 1.1, 1.2, 1.3, 0, 0, 0, 0, 0, 0])


@pytest.mark.parametrize("size", ["small", "segments"])
def test_infinite_sums_come_without_a_warning(size):
    """inf + -inf on one index gives NaN, and fp16 sums past 65504 give inf, as on the device: results, with no
    RuntimeWarning on the app's stderr, for the one-pass sum of a few rows and for the segment path."""
    rows = 2 if size == "small" else 5000
    grad = np.zeros((rows, 16), np.float16)
    grad[0], grad[1] = np.inf, -np.inf
    grad[2:] = 60000.0
    indices = np.zeros(rows, np.int64)
    indices[2:] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run(grad, indices, 3)
    assert np.isnan(out[0]).all() and (out[1] == (np.inf if rows > 3 else 0)).all() and (out[2] == 0).all()



@pytest.mark.parametrize("grad_dtype", GRAD_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scale", [False, True])
def test_small_grads_sum_bit_for_bit_as_the_segment_path(grad_dtype, scale):
    """The one-pass sum for small grads gives the segments' bits: repeats, -0.0, ±inf, NaN, subnormals."""
    from opemu.ops.aclnn.index import embedding_dense_backward as edb
    rng = np.random.default_rng(7)
    special = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-41, -1e-41, 65504.0], np.float32)
    for rows_n, dim, weights in ((1, 1, 1), (5, 3, 4), (37, 17, 9), (60, 64, 50)):
        rows = (rng.standard_normal((rows_n, dim)) * 1e3).astype(np.float32)
        rows.flat[rng.integers(0, rows.size, size=rows.size // 4)] = rng.choice(special, size=rows.size // 4)
        rows = rows.astype(grad_dtype)
        keys = rng.integers(0, weights, size=rows_n).astype(np.int64)
        expected = np.full((weights, dim), 5, grad_dtype)
        edb._accumulate(rows, keys, np.argsort(keys, kind="stable"), expected, scale)
        got = np.full((weights, dim), 5, grad_dtype)
        edb._accumulate_small(rows, keys, got, scale)
        assert got.tobytes() == expected.tobytes()
