"""ops-transformer posembedding/: the rotary position embeddings, through the C ABI, against a float64
reference written here from the docs' formulas (torch.cat / chunk forms), rounded once as the kernel
(fp32 compute, one rounding into the output) does; one test per documented check."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

from acl import DeviceTensor, recent_error, run_two_phase
from acl_args import handle, int_array
from opemu.core.status import ACLNN

TILING, INVALID, NULLPTR, RUNTIME = (ACLNN[n] for n in ("ACLNN_ERR_INNER_TILING_ERROR", "ACLNN_ERR_PARAM_INVALID",
                                                          "ACLNN_ERR_PARAM_NULLPTR", "ACLNN_ERR_RUNTIME_ERROR"))
DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]
TOL = {np.float32: 1e-5, np.float16: 2e-3, ml_dtypes.bfloat16: 1.6e-2}


def rotate_reference(x, mode):
    """The docs' x_rotate, in float64."""
    d = x.shape[-1]
    if mode == 0:
        return np.concatenate((-x[..., d // 2:], x[..., :d // 2]), -1)
    if mode == 1:
        return np.stack((-x[..., 1::2], x[..., 0::2]), -1).reshape(x.shape)
    q = d // 4
    return np.concatenate((-x[..., q:2 * q], x[..., :q], -x[..., 3 * q:], x[..., 2 * q:3 * q]), -1)


def rope_reference(x, cos, sin, mode):
    x, cos, sin = (np.asarray(t, np.float64) for t in (x, cos, sin))
    if mode == 3:
        part1 = np.concatenate((x[..., 0::2], x[..., 1::2]), -1)
        return part1 * cos + rotate_reference(part1, 0) * sin
    return x * cos + rotate_reference(x, mode) * sin


def run(op, *arguments):
    status = run_two_phase(op, *arguments)
    return status[0], recent_error()


def rope_call(x, cos, sin, mode, out=None):
    tensors = [DeviceTensor(t) for t in (x, cos, sin)]
    out_tensor = DeviceTensor(np.zeros_like(x) if out is None else out)
    status, message = run("aclnnRotaryPositionEmbedding", *[handle(t) for t in tensors], ctypes.c_int64(mode),
                          handle(out_tensor))
    result = out_tensor.storage().reshape(out_tensor.shape) if status == 0 else None
    for t in tensors + [out_tensor]:
        t.free()
    return status, message, result


def inputs(shape, cos_shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    angle = rng.uniform(0, 6.3, cos_shape)
    return x, np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("layout,cos_shape", [("BSND", (1, 6, 1, 64)), ("BNSD", (1, 1, 6, 64)),
                                              ("SBND", (2, 1, 1, 64)), ("no broadcast", (2, 3, 6, 64))])
def test_rotary_position_embedding_rotates_as_the_formula(dtype, mode, layout, cos_shape):
    shape = {"BSND": (2, 6, 3, 64), "BNSD": (2, 3, 6, 64), "SBND": (2, 3, 6, 64), "no broadcast": (2, 3, 6, 64)}[layout]
    x, cos, sin = inputs(shape, cos_shape, dtype)
    status, message, out = rope_call(x, cos, sin, mode)
    assert status == 0, message
    np.testing.assert_allclose(out.astype(np.float64), rope_reference(x, cos, sin, mode), rtol=TOL[dtype],
                               atol=TOL[dtype])


def test_rotary_position_embedding_rounds_once_from_fp32():
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float16, seed=1)
    _, _, out = rope_call(x, cos, sin, 0)
    x32, cos32, sin32 = (t.astype(np.float32) for t in (x, cos, sin))
    expected = (x32 * cos32 + rotate_reference(x32, 0).astype(np.float32) * sin32).astype(np.float16)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("mode", [2, 3])
def test_quarter_and_interleave_half_modes_run_on_the_950_line(monkeypatch, mode):
    monkeypatch.setenv("OPEMU_SOC", "Ascend950PR_9599")
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    status, message, out = rope_call(x, cos, sin, mode)
    assert status == 0, message
    np.testing.assert_allclose(out, rope_reference(x, cos, sin, mode), rtol=1e-5, atol=1e-5)


def test_quarter_mode_is_refused_by_the_a2_tiling():
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    status, message, _ = rope_call(x, cos, sin, 2)
    assert status == TILING and "mode 2 is not supported" in message


def test_mode_outside_0_to_3_is_a_tiling_error():
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    status, message, _ = rope_call(x, cos, sin, 4)
    assert status == TILING and "mode only supports" in message


def test_null_tensor_is_nullptr():
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    tensors = [DeviceTensor(t) for t in (x, cos, sin)]
    status, message = run("aclnnRotaryPositionEmbedding", handle(tensors[0]), handle(None), handle(tensors[2]),
                          ctypes.c_int64(0), handle(tensors[0]))
    assert status == NULLPTR and "cos" in message


def test_mixed_dtypes_are_invalid():
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    status, message, _ = rope_call(x, cos.astype(np.float16), sin, 0)
    assert status == INVALID and "same dtype" in message


def test_odd_head_dim_is_a_tiling_error():
    x, cos, sin = inputs((1, 4, 2, 33), (1, 4, 1, 33), np.float32)
    status, message, _ = rope_call(x, cos, sin, 0)
    assert status == TILING and "even number" in message


def test_head_dim_past_1024_is_a_tiling_error():
    x, cos, sin = inputs((1, 1, 1, 1026), (1, 1, 1, 1026), np.float32)
    status, message, _ = rope_call(x, cos, sin, 0)
    assert status == TILING and "less than 1024" in message


def test_inputs_must_be_4d():
    x, cos, sin = inputs((4, 2, 32), (4, 1, 32), np.float32)
    status, message, _ = rope_call(x, cos, sin, 0)
    assert status == TILING and "4-dimensional" in message


def test_cos_that_does_not_broadcast_is_a_tiling_error():
    x, cos, sin = inputs((1, 4, 2, 32), (1, 3, 1, 32), np.float32)
    status, message, _ = rope_call(x, cos, sin, 0)
    assert status == TILING and "does not meet the requirements" in message


def test_cos_and_sin_shapes_must_be_equal():
    x, cos, _ = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    _, _, sin = inputs((1, 4, 2, 32), (1, 4, 2, 32), np.float32)
    status, message, _ = rope_call(x, cos, sin, 0)
    assert status == TILING and "cos shape and sin shape should be equal" in message


def test_unsupported_product_is_a_runtime_error(monkeypatch):
    monkeypatch.setenv("OPEMU_SOC", "Ascend310P3")
    x, cos, sin = inputs((1, 4, 2, 32), (1, 4, 1, 32), np.float32)
    status, _, _ = rope_call(x, cos, sin, 0)
    assert status == RUNTIME


def grad_reference(dy, cos, sin, x, mode):
    """dx, dcos, dsin from the grad docs' chunk formulas (float64), summed over cos's broadcast axes."""
    dy, cos, sin, x = (np.asarray(t, np.float64) for t in (dy, cos, sin, x))
    d = dy.shape[-1]
    if mode == 0:
        h = d // 2
        dx = np.concatenate((cos[..., :h] * dy[..., :h] + sin[..., h:] * dy[..., h:],
                             cos[..., h:] * dy[..., h:] - sin[..., :h] * dy[..., :h]), -1)
    else:
        c1, c2, s1, s2, d1, d2 = cos[..., ::2], cos[..., 1::2], sin[..., ::2], sin[..., 1::2], dy[..., ::2], dy[..., 1::2]
        dx = np.stack((c1 * d1 + s2 * d2, c2 * d2 - s1 * d1), -1).reshape(dy.shape)
    axes = tuple(i for i in range(4) if cos.shape[i] == 1 and dy.shape[i] != 1)
    dcos = (dy * x).sum(axis=axes, keepdims=True)
    dsin = (dy * rotate_reference(x, mode)).sum(axis=axes, keepdims=True)
    return dx, dcos, dsin


@pytest.mark.parametrize("mode", [0, 1])
def test_rotary_position_embedding_grad_is_the_formula(mode):
    rng = np.random.default_rng(5)
    dy, cos, sin = inputs((2, 5, 3, 16), (1, 5, 1, 16), np.float32, seed=5)
    x = rng.uniform(-1, 1, dy.shape).astype(np.float32)
    tensors = [DeviceTensor(t) for t in (dy, cos, sin, x)]
    outs = [DeviceTensor(np.zeros(s, np.float32)) for s in (dy.shape, cos.shape, cos.shape)]
    status, message = run("aclnnRotaryPositionEmbeddingGrad", *[handle(t) for t in tensors], ctypes.c_int64(mode),
                          *[handle(t) for t in outs])
    assert status == 0, message
    for got, want in zip(outs, grad_reference(dy, cos, sin, x, mode)):
        np.testing.assert_allclose(got.storage().reshape(want.shape), want, rtol=1e-5, atol=1e-5)


def test_interleave_rope_is_interleave_half():
    x, cos, sin = inputs((2, 2, 3, 64), (2, 1, 3, 64), np.float16)
    tensors = [DeviceTensor(t) for t in (x, cos, sin)]
    out = DeviceTensor(np.zeros_like(x))
    status, message = run("aclnnInterleaveRope", *[handle(t) for t in tensors], handle(out))
    assert status == 0, message
    np.testing.assert_allclose(out.storage().reshape(x.shape).astype(np.float64), rope_reference(x, cos, sin, 3),
                               rtol=2e-3, atol=2e-3)


def test_interleave_rope_head_dim_must_be_64():
    x, cos, sin = inputs((2, 2, 3, 32), (2, 1, 3, 32), np.float16)
    tensors = [DeviceTensor(t) for t in (x, cos, sin)]
    status, message = run("aclnnInterleaveRope", *[handle(t) for t in tensors], handle(tensors[0]))
    assert status == TILING and "hiddenDim must be 64" in message


@pytest.mark.parametrize("mode_name,mode", [("half", 0), ("interleave", 1), ("quarter", 2)])
def test_apply_rotary_pos_emb_v2_rotates_query_and_key_in_place(mode_name, mode):
    q, cos, sin = inputs((2, 5, 4, 32), (2, 5, 1, 32), np.float32, seed=2)
    k = np.random.default_rng(3).uniform(-2, 2, (2, 5, 1, 32)).astype(np.float32)
    tensors = [DeviceTensor(t) for t in (q, k, cos, sin)]
    status, message = run("aclnnApplyRotaryPosEmbV2", *[handle(t) for t in tensors], ctypes.c_int64(1),
                          ctypes.c_char_p(mode_name.encode()))
    assert status == 0, message
    for t, src in zip(tensors[:2], (q, k)):
        np.testing.assert_allclose(t.storage().reshape(src.shape), rope_reference(src, cos, sin, mode),
                                   rtol=1e-5, atol=1e-5)


def test_apply_rotary_pos_emb_layout_outside_bsnd_is_invalid_on_a2():
    q, cos, sin = inputs((2, 5, 4, 32), (2, 5, 1, 32), np.float32)
    tensors = [DeviceTensor(t) for t in (q, q, cos, sin)]
    status, message = run("aclnnApplyRotaryPosEmb", *[handle(t) for t in tensors], ctypes.c_int64(3))
    assert status == INVALID and "layout 3 is not supported" in message


def test_apply_rotary_pos_emb_unknown_rotary_mode_is_invalid():
    q, cos, sin = inputs((2, 5, 4, 32), (2, 5, 1, 32), np.float32)
    tensors = [DeviceTensor(t) for t in (q, q, cos, sin)]
    status, message = run("aclnnApplyRotaryPosEmbV2", *[handle(t) for t in tensors], ctypes.c_int64(1),
                          ctypes.c_char_p(b"spiral"))
    assert status == INVALID and "rotaryMode spiral" in message


@pytest.mark.parametrize("neox", [True, False])
def test_rope_with_sin_cos_cache_rotates_the_first_rotary_dims_of_each_head(neox):
    rng = np.random.default_rng(7)
    tokens, heads, head_size, rotary = 5, 2, 16, 8
    positions = rng.integers(0, 10, tokens).astype(np.int64)
    angle = rng.uniform(0, 6.3, (10, rotary // 2))
    cache = np.concatenate((np.cos(angle), np.sin(angle)), -1).astype(np.float32)
    q = rng.uniform(-1, 1, (tokens, heads * head_size)).astype(np.float32)
    k = rng.uniform(-1, 1, (tokens, head_size)).astype(np.float32)
    tensors = [DeviceTensor(t) for t in (positions, q, k, cache)]
    outs = [DeviceTensor(np.zeros_like(t)) for t in (q, k)]
    status, message = run("aclnnRopeWithSinCosCache", *[handle(t) for t in tensors], int_array([]),
                          ctypes.c_int64(head_size), ctypes.c_bool(neox), *[handle(t) for t in outs])
    assert status == 0, message
    c, s = cache[positions, :rotary // 2].astype(np.float64), cache[positions, rotary // 2:].astype(np.float64)
    for out, src in zip(outs, (q, k)):
        x = src.astype(np.float64).reshape(tokens, -1, head_size)
        expected = x.copy()
        r = x[..., :rotary]
        if neox:
            a, b = r[..., :rotary // 2], r[..., rotary // 2:]
            expected[..., :rotary] = np.concatenate((a * c[:, None] - b * s[:, None], b * c[:, None] + a * s[:, None]), -1)
        else:
            a, b = r[..., 0::2], r[..., 1::2]
            expected[..., :rotary] = np.stack((a * c[:, None] - b * s[:, None], b * c[:, None] + a * s[:, None]),
                                              -1).reshape(r.shape)
        np.testing.assert_allclose(out.storage().reshape(src.shape), expected.reshape(src.shape), rtol=1e-5, atol=1e-5)
