"""ops-transformer attention/: the flash attentions through the C ABI. PyTorch's scaled_dot_product_attention
(float64) is the oracle for the forward and torch autograd for the grad; the tolerances follow from where the
kernel rounds (P to the input dtype before P V, one rounding out). One test per documented check."""
import ctypes
import math

import ml_dtypes
import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error, run_two_phase
from acl_args import handle, int_array, tensor_list
from opemu.core.status import ACLNN

INVALID, NULLPTR, RUNTIME = ACLNN["ACLNN_ERR_PARAM_INVALID"], ACLNN["ACLNN_ERR_PARAM_NULLPTR"], \
    ACLNN["ACLNN_ERR_RUNTIME_ERROR"]
TOL = {np.float32: 2e-5, np.float16: 4e-3, ml_dtypes.bfloat16: 3e-2}
NULL = ctypes.c_void_p(None)
MAX_TOKENS = 2147483647


def sdpa(q, k, v, scale, mask=None):
    """float64 SDPA over (B, N, S, D), GQA by repeating k/v heads; mask True = masked."""
    q, k, v = (torch.from_numpy(np.asarray(t, np.float64)) for t in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    attn_mask = None if mask is None else ~torch.from_numpy(np.asarray(mask, bool))
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=scale).numpy()


def layout_of(bnsd, layout):
    """A (B, N, S, D) array in `layout`."""
    b, n, s, d = bnsd.shape
    if layout == "BNSD":
        return bnsd
    if layout == "BSND":
        return bnsd.transpose(0, 2, 1, 3).copy()
    if layout == "BSH":
        return bnsd.transpose(0, 2, 1, 3).reshape(b, s, n * d).copy()
    return bnsd.transpose(2, 0, 1, 3).reshape(s, b, n * d).copy()   # SBH


def qkv(b, n, n_kv, sq, skv, d, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((b, n, sq, d)).astype(dtype), rng.standard_normal((b, n_kv, skv, d)).astype(dtype),
            rng.standard_normal((b, n_kv, skv, d)).astype(dtype))


def fas(q, k, v, layout, heads, scale, mask=None, sparse=0, pre=MAX_TOKENS, nxt=MAX_TOKENS, op="aclnnFlashAttentionScore",
        extra_before=(), extra_attrs=()):
    """Runs FlashAttentionScore (BNSD inputs converted to `layout`); (status, message, out BNSD, max, sum)."""
    b, n, sq, _ = q.shape
    dv = v.shape[-1]
    tensors = [DeviceTensor(layout_of(t, layout)) for t in (q, k, v)]
    mask_t = None if mask is None else DeviceTensor(np.asarray(mask, np.uint8))
    stats = [DeviceTensor(np.zeros((b, n, sq, 8), np.float32)) for _ in range(2)]
    out = DeviceTensor(layout_of(np.zeros((b, n, sq, dv), q.dtype), layout))
    status, _, _ = run_two_phase(op, *[handle(t) for t in tensors], NULL, NULL, NULL, handle(mask_t), NULL,
                                 *extra_before, ctypes.c_double(scale), ctypes.c_double(1.0), ctypes.c_int64(pre),
                                 ctypes.c_int64(nxt), ctypes.c_int64(heads), ctypes.c_char_p(layout.encode()),
                                 ctypes.c_int64(0), ctypes.c_int64(sparse), *extra_attrs, *[handle(t) for t in stats],
                                 NULL, handle(out))
    message = recent_error()
    if status:
        return status, message, None, None, None
    result = out.storage().reshape(layout_of(np.zeros((b, n, sq, dv)), layout).shape)
    back = {"BNSD": lambda r: r, "BSND": lambda r: r.transpose(0, 2, 1, 3),
            "BSH": lambda r: r.reshape(b, sq, n, dv).transpose(0, 2, 1, 3),
            "SBH": lambda r: r.reshape(sq, b, n, dv).transpose(1, 2, 0, 3)}[layout](result)
    return 0, message, back, stats[0].storage().reshape(b, n, sq, 8), stats[1].storage().reshape(b, n, sq, 8)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16], ids=["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("layout", ["BNSD", "BSND", "BSH", "SBH"])
def test_flash_attention_score_is_scaled_dot_product_attention(dtype, layout):
    q, k, v = qkv(2, 4, 4, 24, 40, 16, dtype)
    status, message, out, _, _ = fas(q, k, v, layout, 4, 0.25)
    assert status == 0, message
    np.testing.assert_allclose(out.astype(np.float64), sdpa(q, k, v, 0.25), rtol=TOL[dtype], atol=TOL[dtype])


def test_flash_attention_score_grouped_query_heads_share_key_value_heads():
    q, k, v = qkv(1, 8, 2, 16, 16, 32, np.float16, seed=1)
    status, message, out, _, _ = fas(q, k, v, "BNSD", 8, 1 / math.sqrt(32))
    assert status == 0, message
    np.testing.assert_allclose(out.astype(np.float64), sdpa(q, k, v, 1 / math.sqrt(32)), atol=4e-3)


def test_softmax_max_and_sum_are_the_row_statistics_repeated_eight_times():
    q, k, v = qkv(1, 2, 2, 8, 12, 16, np.float32, seed=2)
    _, _, _, peak, total = fas(q, k, v, "BNSD", 2, 0.5)
    scores = np.einsum("bnqd,bnkd->bnqk", q.astype(np.float64), k.astype(np.float64)) * 0.5
    expected_max = scores.max(-1)
    np.testing.assert_allclose(peak, np.repeat(expected_max[..., None], 8, -1), rtol=1e-5)
    np.testing.assert_allclose(total[..., 0], np.exp(scores - expected_max[..., None]).sum(-1), rtol=1e-5)


@pytest.mark.parametrize("sparse,sq,skv", [(2, 16, 16), (3, 8, 16), (3, 16, 16)])
def test_causal_sparse_modes_mask_the_future(sparse, sq, skv):
    q, k, v = qkv(1, 2, 2, sq, skv, 16, np.float32, seed=3)
    compressed = np.triu(np.ones((2048, 2048), np.uint8), 1)
    status, message, out, _, _ = fas(q, k, v, "BNSD", 2, 0.25, mask=compressed, sparse=sparse)
    assert status == 0, message
    i, j = np.arange(sq)[:, None], np.arange(skv)[None]
    masked = j > i if sparse == 2 else j > i + skv - sq
    np.testing.assert_allclose(out, sdpa(q, k, v, 0.25, masked), rtol=2e-5, atol=2e-5)


def test_default_mode_applies_the_given_mask_and_the_token_band():
    q, k, v = qkv(2, 2, 2, 12, 12, 16, np.float32, seed=4)
    mask = np.random.default_rng(4).random((2, 1, 12, 12)) < 0.3
    np.fill_diagonal(mask[0, 0], False)
    np.fill_diagonal(mask[1, 0], False)
    status, message, out, _, _ = fas(q, k, v, "BNSD", 2, 0.25, mask=mask, sparse=0, pre=3, nxt=1)
    assert status == 0, message
    i, j = np.arange(12)[:, None], np.arange(12)[None]
    band = (j - i > 1) | (i - j > 3)
    np.testing.assert_allclose(out, sdpa(q, k, v, 0.25, mask | band), rtol=2e-5, atol=2e-5)


def test_a_fully_masked_row_gives_zeros():
    q, k, v = qkv(1, 1, 1, 4, 4, 8, np.float32)
    mask = np.zeros((4, 4), bool)
    mask[2] = True
    status, message, out, _, _ = fas(q, k, v, "BNSD", 1, 0.5, mask=mask, sparse=1)
    assert status == 0, message
    assert not out[0, 0, 2].any()


def test_fp16_probabilities_are_rounded_before_the_second_matmul():
    q, k, v = qkv(1, 1, 1, 8, 64, 16, np.float16, seed=6)
    _, _, out, _, _ = fas(q, k, v, "BNSD", 1, 0.25)
    s = (q[0, 0].astype(np.float32) @ k[0, 0].astype(np.float32).T) * np.float32(0.25)
    p = np.exp(s - s.max(-1, keepdims=True))
    expected = ((p.astype(np.float16).astype(np.float32) @ v[0, 0].astype(np.float32)) / p.sum(-1, keepdims=True))
    np.testing.assert_array_equal(out[0, 0], expected.astype(np.float16))


def test_head_num_must_be_positive():
    q, k, v = qkv(1, 2, 2, 4, 4, 8, np.float16)
    status, message, *_ = fas(q, k, v, "BNSD", 0, 0.5)
    assert status == INVALID and "head_num must > 0, but got 0" in message


def test_layout_must_match_the_rank():
    q, k, v = qkv(1, 2, 2, 4, 4, 8, np.float16)
    tensors = [DeviceTensor(t) for t in (q, k, v)]
    stats = [DeviceTensor(np.zeros((1, 2, 4, 8), np.float32)) for _ in range(2)]
    status, _, _ = run_two_phase("aclnnFlashAttentionScore", *[handle(t) for t in tensors], NULL, NULL, NULL, NULL,
                                 NULL, ctypes.c_double(0.5), ctypes.c_double(1.0), ctypes.c_int64(MAX_TOKENS),
                                 ctypes.c_int64(MAX_TOKENS), ctypes.c_int64(2), ctypes.c_char_p(b"BSH"),
                                 ctypes.c_int64(0), ctypes.c_int64(0), *[handle(t) for t in stats], NULL,
                                 handle(tensors[0]))
    assert status == INVALID and "not support input_layout BSH with dim_num 4" in recent_error()


def test_query_and_key_head_dims_must_match():
    q, _, v = qkv(1, 2, 2, 4, 4, 8, np.float16)
    k = np.zeros((1, 2, 4, 16), np.float16)
    status, message, *_ = fas(q, k, v, "BNSD", 2, 0.5)
    assert status == INVALID and "qD and kD should be same, but got qD=8 kD=16" in message


def test_query_key_value_dtypes_must_be_equal():
    q, k, v = qkv(1, 2, 2, 4, 4, 8, np.float16)
    status, message, *_ = fas(q, k.astype(np.float32), v, "BNSD", 2, 0.5)
    assert status == INVALID and "are not equal" in message


def test_head_dim_past_768_is_invalid():
    q, k, v = qkv(1, 1, 1, 2, 2, 776, np.float16)
    status, message, *_ = fas(q, k, v, "BNSD", 1, 0.5)
    assert status == INVALID and "Head dim must <= 768, but got 776" in message


def test_flash_attention_score_v2_pse_type_0_adds_pse_inside_the_scaling():
    q, k, v = qkv(1, 2, 2, 6, 6, 8, np.float32, seed=8)
    pse = np.random.default_rng(8).standard_normal((1, 2, 6, 6)).astype(np.float32)
    tensors = [DeviceTensor(t) for t in (q, k, v, pse)]
    stats = [DeviceTensor(np.zeros((1, 2, 6, 8), np.float32)) for _ in range(2)]
    out = DeviceTensor(np.zeros_like(q))
    status, _, _ = run_two_phase("aclnnFlashAttentionScoreV2", *[handle(t) for t in tensors], NULL, NULL, NULL, NULL,
                                 NULL, NULL, ctypes.c_double(0.5), ctypes.c_double(1.0), ctypes.c_int64(MAX_TOKENS),
                                 ctypes.c_int64(MAX_TOKENS), ctypes.c_int64(2), ctypes.c_char_p(b"BNSD"),
                                 ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(0), *[handle(t) for t in stats],
                                 NULL, handle(out))
    assert status == 0, recent_error()
    s = (np.einsum("bnqd,bnkd->bnqk", q.astype(np.float64), k.astype(np.float64)) + pse) * 0.5
    p = np.exp(s - s.max(-1, keepdims=True))
    expected = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.storage().reshape(q.shape), expected, rtol=2e-5, atol=2e-5)


def test_variable_length_tnd_attends_within_each_sequence():
    rng = np.random.default_rng(9)
    lengths_q, lengths_kv, n, d = [3, 5], [4, 6], 2, 8
    q = rng.standard_normal((sum(lengths_q), n, d)).astype(np.float32)
    k = rng.standard_normal((sum(lengths_kv), n, d)).astype(np.float32)
    v = rng.standard_normal((sum(lengths_kv), n, d)).astype(np.float32)
    tensors = [DeviceTensor(t) for t in (q, k, v)]
    stats = [DeviceTensor(np.zeros((sum(lengths_q), n, 8), np.float32)) for _ in range(2)]
    out = DeviceTensor(np.zeros_like(q))
    status, _, _ = run_two_phase("aclnnFlashAttentionVarLenScore", *[handle(t) for t in tensors], NULL, NULL, NULL,
                                 NULL, NULL, int_array(list(np.cumsum(lengths_q))), int_array(list(np.cumsum(lengths_kv))),
                                 ctypes.c_double(0.5), ctypes.c_double(1.0), ctypes.c_int64(MAX_TOKENS),
                                 ctypes.c_int64(MAX_TOKENS), ctypes.c_int64(n), ctypes.c_char_p(b"TND"),
                                 ctypes.c_int64(0), ctypes.c_int64(0), *[handle(t) for t in stats], NULL, handle(out))
    assert status == 0, recent_error()
    result = out.storage().reshape(q.shape)
    qs, ks = np.cumsum([0] + lengths_q), np.cumsum([0] + lengths_kv)
    for i in range(2):
        per = lambda t, s: t[s].transpose(1, 0, 2)[None]
        expected = sdpa(per(q, slice(qs[i], qs[i + 1])), per(k, slice(ks[i], ks[i + 1])),
                        per(v, slice(ks[i], ks[i + 1])), 0.5)
        np.testing.assert_allclose(per(result, slice(qs[i], qs[i + 1])), expected, rtol=2e-5, atol=2e-5)


def test_flash_attention_score_grad_is_the_autograd_of_sdpa():
    q, k, v = qkv(1, 4, 2, 6, 10, 8, np.float32, seed=10)
    dy = np.random.default_rng(11).standard_normal(q.shape).astype(np.float32)
    scale = 0.3
    _, _, out, peak, total = fas(q, k, v, "BNSD", 4, scale)
    tensors = [DeviceTensor(t) for t in (q, k, v, dy)]
    saved = [DeviceTensor(t) for t in (peak, total)]
    attention_in = DeviceTensor(out)
    grads = [DeviceTensor(np.zeros_like(t)) for t in (q, k, v)]
    status, _, _ = run_two_phase("aclnnFlashAttentionScoreGrad", *[handle(t) for t in tensors], NULL, NULL, NULL, NULL,
                                 *[handle(t) for t in saved], NULL, handle(attention_in), NULL, ctypes.c_double(scale),
                                 ctypes.c_double(1.0), ctypes.c_int64(MAX_TOKENS), ctypes.c_int64(MAX_TOKENS),
                                 ctypes.c_int64(4), ctypes.c_char_p(b"BNSD"), ctypes.c_int64(0), ctypes.c_int64(0),
                                 *[handle(t) for t in grads], NULL)
    assert status == 0, recent_error()
    tq, tk, tv = (torch.from_numpy(t.astype(np.float64)).requires_grad_() for t in (q, k, v))
    result = torch.nn.functional.scaled_dot_product_attention(tq, tk.repeat_interleave(2, 1), tv.repeat_interleave(2, 1),
                                                              scale=scale)
    result.backward(torch.from_numpy(dy.astype(np.float64)))
    for got, want in zip(grads, (tq, tk, tv)):
        np.testing.assert_allclose(got.storage().reshape(want.shape), want.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_prompt_flash_attention_rows_past_the_actual_length_are_zero():
    q, k, v = qkv(2, 2, 2, 8, 8, 16, np.float16, seed=12)
    tensors = [DeviceTensor(layout_of(t, "BSH")) for t in (q, k, v)]
    out = DeviceTensor(np.zeros((2, 8, 32), np.float16))
    status, _, _ = run_two_phase("aclnnPromptFlashAttention", *[handle(t) for t in tensors], NULL, NULL,
                                 int_array([5, 8]), ctypes.c_int64(2), ctypes.c_double(0.25), ctypes.c_int64(MAX_TOKENS),
                                 ctypes.c_int64(0), ctypes.c_char_p(b"BSH"), ctypes.c_int64(2), handle(out))
    assert status == 0, recent_error()
    result = out.storage().reshape(2, 8, 2, 16).transpose(0, 2, 1, 3)
    expected = sdpa(q, k, v, 0.25)
    np.testing.assert_allclose(result[1], expected[1], atol=4e-3)
    np.testing.assert_allclose(result[0, :, :5], sdpa(q[:1, :, :5], k[:1], v[:1], 0.25)[0], atol=4e-3)
    assert not result[0, :, 5:].any()


def test_incre_flash_attention_reads_a_paged_cache_through_the_block_table():
    rng = np.random.default_rng(13)
    b, n, n_kv, d, block = 2, 4, 2, 16, 4
    lengths = [6, 3]
    q = rng.standard_normal((b, n, 1, d)).astype(np.float16)
    cache_k = rng.standard_normal((5, block, n_kv * d)).astype(np.float16)
    cache_v = rng.standard_normal((5, block, n_kv * d)).astype(np.float16)
    table = np.array([[3, 1], [4, 0]], np.int32)
    tensors = [DeviceTensor(layout_of(q, "BSH")), DeviceTensor(cache_k), DeviceTensor(cache_v), DeviceTensor(table)]
    out = DeviceTensor(np.zeros((b, 1, n * d), np.float16))
    status, _, _ = run_two_phase("aclnnIncreFlashAttentionV3", handle(tensors[0]), tensor_list([tensors[1]]),
                                 tensor_list([tensors[2]]), NULL, NULL, int_array(lengths), NULL, NULL, NULL, NULL,
                                 NULL, NULL, NULL, handle(tensors[3]), ctypes.c_int64(n), ctypes.c_double(0.25),
                                 ctypes.c_char_p(b"BSH"), ctypes.c_int64(n_kv), ctypes.c_int64(block),
                                 ctypes.c_int64(1), handle(out))
    assert status == 0, recent_error()
    result = out.storage().reshape(b, 1, n, d).transpose(0, 2, 1, 3)
    for i in range(b):
        rows = lambda cache: cache[table[i]].reshape(-1, n_kv, d)[:lengths[i]].transpose(1, 0, 2)[None]
        expected = sdpa(q[i:i + 1], rows(cache_k), rows(cache_v), 0.25)
        np.testing.assert_allclose(result[i:i + 1], expected, atol=4e-3)


def fia_v4(q, keys, values, layout, heads, kv_heads, scale, out_shape, lse_shape, mask=None, kv_lengths=None, sparse=0):
    tensors = [DeviceTensor(q)] + ([] if mask is None else [DeviceTensor(mask)])
    key_tensors, value_tensors = [DeviceTensor(t) for t in keys], [DeviceTensor(t) for t in values]
    out = DeviceTensor(np.zeros(out_shape, q.dtype))
    lse = DeviceTensor(np.zeros(lse_shape, np.float32))
    nulls = [NULL] * 22
    status, _, _ = run_two_phase(
        "aclnnFusedInferAttentionScoreV4", handle(tensors[0]), tensor_list(key_tensors), tensor_list(value_tensors),
        NULL, handle(tensors[1] if mask is not None else None), NULL,
        NULL if kv_lengths is None else int_array(kv_lengths), *nulls, ctypes.c_int64(heads), ctypes.c_double(scale), ctypes.c_int64(MAX_TOKENS),
        ctypes.c_int64(0 if sparse == 3 else MAX_TOKENS), ctypes.c_char_p(layout.encode()), ctypes.c_int64(kv_heads),
        ctypes.c_int64(sparse), ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_bool(True),
        ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(0), handle(out), handle(lse))
    return status, recent_error(), out.storage().reshape(out_shape), lse.storage().reshape(lse_shape)


def test_fused_infer_attention_score_prefill_writes_the_log_sum_exp():
    q, k, v = qkv(1, 2, 2, 6, 6, 16, np.float16, seed=14)
    status, message, out, lse = fia_v4(q, [k], [v], "BNSD", 2, 2, 0.25, q.shape, (1, 2, 6, 1))
    assert status == 0, message
    np.testing.assert_allclose(out.astype(np.float64), sdpa(q, k, v, 0.25), atol=4e-3)
    s = np.einsum("bnqd,bnkd->bnqk", q.astype(np.float64), k.astype(np.float64)) * 0.25
    np.testing.assert_allclose(lse[..., 0], np.log(np.exp(s).sum(-1)), rtol=1e-4, atol=1e-4)


def test_fused_infer_attention_score_decode_attends_over_the_cache_lengths():
    q, k, v = qkv(2, 4, 1, 1, 10, 16, np.float16, seed=15)
    status, message, out, _ = fia_v4(q, [k], [v], "BNSD", 4, 1, 0.25, q.shape, (2, 4, 1, 1), kv_lengths=[7, 10])
    assert status == 0, message
    np.testing.assert_allclose(out[:1].astype(np.float64), sdpa(q[:1], k[:1, :, :7], v[:1, :, :7], 0.25), atol=4e-3)
    np.testing.assert_allclose(out[1:].astype(np.float64), sdpa(q[1:], k[1:], v[1:], 0.25), atol=4e-3)


def test_quantised_inference_paths_are_refused_as_not_emulated():
    q, k, v = qkv(1, 2, 2, 1, 4, 16, np.float16)
    tensors = [DeviceTensor(layout_of(t, "BSH")) for t in (q, k, v)]
    scale = DeviceTensor(np.ones(1, np.float32))
    out = DeviceTensor(np.zeros((1, 1, 32), np.float16))
    status, _, _ = run_two_phase("aclnnIncreFlashAttentionV2", handle(tensors[0]), tensor_list([tensors[1]]),
                                 tensor_list([tensors[2]]), NULL, NULL, NULL, handle(scale), NULL, NULL, NULL, NULL,
                                 ctypes.c_int64(2), ctypes.c_double(0.25), ctypes.c_char_p(b"BSH"), ctypes.c_int64(2),
                                 handle(out))
    assert status == RUNTIME and "dequantScale1" in recent_error()
