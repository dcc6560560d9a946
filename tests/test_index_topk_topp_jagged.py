"""aclnnApplyTopKTopP against a float64 reference written from its docs page, and aclnnExpandIntoJaggedPermute
against FBGEMM's definition, through the C ABI, with their checks."""
import ctypes

import ml_dtypes
import numpy as np
import pytest

from acl import DeviceTensor, recent_error
from acl_args import call

INVALID, TILING = 161002, 561002
I64 = ctypes.c_int64
OK = (0, 0, 0)
NULL = ctypes.c_void_p(None)


def t(array, **kw):
    return DeviceTensor(np.asarray(array), **kw)


def got(tensor):
    return tensor.storage().reshape(tensor.shape)


def top_k_top_p_reference(logits, p, k):
    """The docs page's steps in float64: a stable ascending sort, the k-th largest as threshold, softmax and the
    running sum from the smallest, the positions whose sum is ≤ 1 − p dropped (never the largest)."""
    out = logits.astype(np.float64).copy()
    for b, row in enumerate(logits.astype(np.float64)):
        order = np.argsort(row, kind="stable")
        ordered = row[order]
        drop = np.zeros(row.size, bool)
        if k is not None:
            drop |= ordered < ordered[row.size - k[b]]
        if p is not None:
            kept = np.where(drop, -np.inf, ordered)
            probabilities = np.exp(kept - kept.max()) / np.exp(kept - kept.max()).sum()
            nucleus = np.cumsum(probabilities) <= 1 - p[b]
            nucleus[-1] = False
            drop |= nucleus
        out[b, order[drop]] = -np.inf
    return out


@pytest.mark.parametrize("use_p,use_k", [(True, True), (True, False), (False, True)])
def test_apply_top_k_top_p_matches_the_documented_steps(use_p, use_k):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 32)).astype(np.float32)
    p = np.array([0.5, 0.9, 0.1, 1.0], np.float32) if use_p else None
    k = np.array([3, 32, 1, 10], np.int32) if use_k else None
    out = t(np.zeros_like(logits))
    status = call("aclnnApplyTopKTopP", t(logits), t(p) if use_p else NULL, t(k) if use_k else NULL, out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), top_k_top_p_reference(logits, p, k).astype(np.float32))


def test_apply_top_k_top_p_bf16_keeps_the_kept_values_bit_exact():
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((2, 16)).astype(ml_dtypes.bfloat16)
    k = np.array([4, 8], np.int32)
    out = t(np.zeros_like(logits))
    assert call("aclnnApplyTopKTopP", t(logits), NULL, t(k), out) == OK, recent_error()
    expected = top_k_top_p_reference(logits.astype(np.float32), None, k)
    assert np.array_equal(got(out).astype(np.float64), expected)


def test_apply_top_k_top_p_p_rows_must_match_logits():
    logits = np.zeros((2, 4), np.float32)
    status = call("aclnnApplyTopKTopP", t(logits), t(np.ones(3, np.float32)), NULL, t(logits))
    assert status[0] == INVALID and "expected p.size(0) is equal to logits.size(0), but got 3." in recent_error()


def test_expand_into_jagged_permute_matches_fbgemm():
    permute = np.array([2, 0, 1], np.int32)
    input_offset = np.array([0, 3, 5, 9], np.int32)
    output_offset = np.array([0, 4, 7, 9], np.int32)
    expected = np.concatenate([np.arange(input_offset[j], input_offset[j] + n)
                               for j, n in zip(permute, np.diff(output_offset))])
    out = t(np.zeros(9, np.int32))
    status = call("aclnnExpandIntoJaggedPermute", t(permute), t(input_offset), t(output_offset), I64(9), out)
    assert status == OK, recent_error()
    assert np.array_equal(got(out), expected)


def test_expand_into_jagged_permute_offsets_need_one_more_element():
    status = call("aclnnExpandIntoJaggedPermute", t(np.zeros(2, np.int32)), t(np.zeros(2, np.int32)),
                  t(np.zeros(3, np.int32)), I64(2), t(np.zeros(2, np.int32)))
    assert status[0] == TILING and "should be one more than permuteShape" in recent_error()
