"""ops-math random/ through the C ABI: the (seed, offset) contract (same pair, same numbers; another pair,
others) and each operator's documented distribution against PyTorch's sampler of the same law (moments over
200k draws, tolerances a few standard errors), with their documented checks."""
import ctypes

import numpy as np
import pytest
import torch

from acl import DeviceTensor, recent_error
from acl_args import call, int_array, result, scalar

PARAM_NULLPTR, PARAM_INVALID = 161001, 161002



def uniform(shape, dtype, low, high, seed, offset):
    t = DeviceTensor(np.zeros(shape, dtype))
    status = call("aclnnInplaceUniform", t, ctypes.c_double(low), ctypes.c_double(high), ctypes.c_uint64(seed),
                  ctypes.c_uint64(offset))
    assert status == (0, 0, 0), recent_error()
    return result(t)


def normal(shape, dtype, mean, std, seed, offset):
    t = DeviceTensor(np.zeros(shape, dtype))
    status = call("aclnnInplaceNormal", t, ctypes.c_float(mean), ctypes.c_float(std), ctypes.c_int64(seed),
                  ctypes.c_int64(offset))
    assert status == (0, 0, 0), recent_error()
    return result(t)


def test_uniform_is_deterministic_for_a_seed_and_offset():
    a, b = uniform(1000, np.float32, 0, 1, 7, 0), uniform(1000, np.float32, 0, 1, 7, 0)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, uniform(1000, np.float32, 0, 1, 7, 4))
    assert not np.array_equal(a, uniform(1000, np.float32, 0, 1, 8, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64], ids=lambda d: np.dtype(d).name)
def test_uniform_samples_from_to(dtype):
    x = uniform(200000, dtype, -2, 3, 11, 0).astype(np.float64)
    assert x.min() >= -2 and x.max() <= 3
    reference = torch.empty(200000, dtype=torch.float64).uniform_(-2, 3, generator=torch.Generator().manual_seed(0))
    assert abs(x.mean() - reference.mean().item()) < 0.03 and abs(x.std() - reference.std().item()) < 0.03


def test_uniform_from_above_to_is_param_invalid():
    t = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnInplaceUniform", t, ctypes.c_double(2), ctypes.c_double(1), ctypes.c_uint64(0),
                ctypes.c_uint64(0))[0] == PARAM_INVALID
    assert "from cannot be greater than to" in recent_error()


def test_uniform_complex_is_param_invalid():
    t = DeviceTensor(np.zeros(4, np.complex64))
    assert call("aclnnInplaceUniform", t, ctypes.c_double(0), ctypes.c_double(1), ctypes.c_uint64(0),
                ctypes.c_uint64(0))[0] == PARAM_INVALID


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64], ids=lambda d: np.dtype(d).name)
def test_normal_has_the_mean_and_std(dtype):
    x = normal(200000, dtype, 1.5, 2.0, 5, 0).astype(np.float64)
    reference = torch.empty(200000, dtype=torch.float64).normal_(1.5, 2.0, generator=torch.Generator().manual_seed(0))
    assert abs(x.mean() - reference.mean().item()) < 0.05 and abs(x.std() - reference.std().item()) < 0.05


def test_normal_is_deterministic_for_a_seed_and_offset():
    np.testing.assert_array_equal(normal(100, np.float32, 0, 1, 3, 8), normal(100, np.float32, 0, 1, 3, 8))
    assert not np.array_equal(normal(100, np.float32, 0, 1, 3, 8), normal(100, np.float32, 0, 1, 3, 12))


def test_normal_negative_std_is_param_invalid():
    t = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnInplaceNormal", t, ctypes.c_float(0), ctypes.c_float(-1), ctypes.c_int64(0),
                ctypes.c_int64(0))[0] == PARAM_INVALID
    assert "Normal expects std >= 0.0, but found std [-1.000000]." in recent_error()


# ---- aclnnInplaceRandom ----

def test_inplace_random_draws_integers_from_to():
    t = DeviceTensor(np.zeros(100000, np.int32))
    assert call("aclnnInplaceRandom", t, ctypes.c_int64(-3), ctypes.c_int64(5), ctypes.c_int64(1),
                ctypes.c_int64(0)) == (0, 0, 0), recent_error()
    x = result(t)
    assert set(np.unique(x)) == set(range(-3, 5))
    reference = torch.randint(-3, 5, (100000,), generator=torch.Generator().manual_seed(0)).double()
    assert abs(x.mean() - reference.mean().item()) < 0.05


def test_inplace_random_from_not_below_to_is_param_invalid():
    t = DeviceTensor(np.zeros(4, np.int32))
    assert call("aclnnInplaceRandom", t, ctypes.c_int64(5), ctypes.c_int64(5), ctypes.c_int64(1),
                ctypes.c_int64(0))[0] == PARAM_INVALID


def test_inplace_random_without_from_to_spans_the_float16_mantissa():
    t = DeviceTensor(np.zeros(100000, np.float16))
    assert call("aclnnInplaceRandomWithoutFromTo", t, ctypes.c_int64(1), ctypes.c_int64(0)) == (0, 0, 0)
    x = result(t).astype(np.float64)
    assert x.min() >= 0 and x.max() <= 2 ** 11 and x.max() > 2 ** 10 and (x == np.round(x)).all()


def test_uniform_tensor_reads_seed_and_offset_at_launch():
    def run(seed, offset):
        t = DeviceTensor(np.zeros(64, np.float32))
        status = call("aclnnInplaceUniformTensor", t, ctypes.c_double(0), ctypes.c_double(1),
                      DeviceTensor(np.array([seed], np.int64)), DeviceTensor(np.array([offset], np.int64)),
                      ctypes.c_uint64(4))
        assert status == (0, 0, 0), recent_error()
        return result(t)
    np.testing.assert_array_equal(run(9, 0), uniform(64, np.float32, 0, 1, 9, 4))
    assert not np.array_equal(run(9, 0), run(9, 8))


# ---- aclnnNormal{Tensor,Float}{Tensor,Float} ----

def test_normal_tensor_tensor_broadcasts_mean_and_std():
    mean = DeviceTensor(np.array([[-10.0], [10.0]], np.float32))
    std = DeviceTensor(np.full((1, 50000), 0.5, np.float32))
    out = DeviceTensor(np.zeros((2, 50000), np.float32))
    assert call("aclnnNormalTensorTensor", mean, std, ctypes.c_int64(2), ctypes.c_int64(0), out) == (0, 0, 0)
    x = result(out).astype(np.float64)
    np.testing.assert_allclose(x.mean(axis=1), [-10, 10], atol=0.02)
    np.testing.assert_allclose(x.std(axis=1), [0.5, 0.5], atol=0.02)


def test_normal_float_float_fills_out():
    out = DeviceTensor(np.zeros(100000, np.float16))
    assert call("aclnnNormalFloatFloat", ctypes.c_float(3), ctypes.c_float(1), ctypes.c_int64(2), ctypes.c_int64(0),
                out) == (0, 0, 0), recent_error()
    x = result(out).astype(np.float64)
    assert abs(x.mean() - 3) < 0.02 and abs(x.std() - 1) < 0.02


def test_normal_tensor_float_out_shape_mismatch_is_param_invalid():
    out = DeviceTensor(np.zeros(3, np.float32))
    assert call("aclnnNormalTensorFloat", DeviceTensor(np.zeros(4, np.float32)), ctypes.c_float(1),
                ctypes.c_int64(0), ctypes.c_int64(0), out)[0] == PARAM_INVALID
    assert "Shape of out should be [4], but current is [3]." in recent_error()


# ---- aclnnBernoulli ----

def test_bernoulli_draws_ones_with_prob():
    out = DeviceTensor(np.zeros(200000, np.float32))
    assert call("aclnnBernoulli", DeviceTensor(np.zeros(200000, np.float32)), scalar(0.3, np.float32),
                ctypes.c_int64(4), ctypes.c_int64(0), out) == (0, 0, 0), recent_error()
    x = result(out)
    assert set(np.unique(x)) == {0.0, 1.0}
    reference = torch.bernoulli(torch.full((200000,), 0.3, dtype=torch.float64),
                                generator=torch.Generator().manual_seed(0))
    assert abs(x.mean() - reference.mean().item()) < 0.01


def test_inplace_bernoulli_tensor_follows_each_probability():
    prob = DeviceTensor(np.array([0.0, 1.0], np.float32))
    self_ref = DeviceTensor(np.full((1000, 2), 7, np.int32))
    assert call("aclnnInplaceBernoulliTensor", self_ref, prob, ctypes.c_int64(4), ctypes.c_int64(0)) == (0, 0, 0)
    x = result(self_ref)
    assert (x[:, 0] == 0).all() and (x[:, 1] == 1).all()


def test_bernoulli_prob_above_one_is_param_invalid():
    x = DeviceTensor(np.zeros(4, np.float32))
    assert call("aclnnBernoulli", x, scalar(1.5, np.float32), ctypes.c_int64(0), ctypes.c_int64(0),
                DeviceTensor(np.zeros(4, np.float32)))[0] == PARAM_INVALID
    assert "prob should be in range 0<=prob<=1 ." in recent_error()


# ---- dropout ----

def gen_mask(shape, prob, seed, offset):
    n = int(np.prod(shape))
    out = DeviceTensor(np.zeros(-(-n // 128) * 16, np.uint8))
    assert call("aclnnDropoutGenMask", int_array(shape), ctypes.c_double(prob), ctypes.c_int64(seed),
                ctypes.c_int64(offset), out) == (0, 0, 0), recent_error()
    return result(out)


def test_dropout_gen_mask_keeps_one_minus_prob_of_the_bits():
    mask = gen_mask((1000, 200), 0.25, 3, 0)
    assert mask.size == 25008  # align(200000, 128) / 8
    bits = np.unpackbits(mask, bitorder="little")[:200000]
    assert abs(bits.mean() - 0.75) < 0.01
    np.testing.assert_array_equal(mask, gen_mask((1000, 200), 0.25, 3, 0))


def test_dropout_gen_mask_wrong_size_is_param_invalid():
    out = DeviceTensor(np.zeros(8, np.uint8))
    assert call("aclnnDropoutGenMask", int_array([100]), ctypes.c_double(0.5), ctypes.c_int64(0),
                ctypes.c_int64(0), out)[0] == PARAM_INVALID
    assert "Size of out has to be 16, but current is 8." in recent_error()


def test_dropout_do_mask_scales_the_kept_elements():
    x = np.random.default_rng(0).standard_normal(300).astype(np.float32)
    mask = gen_mask((300,), 0.4, 5, 0)
    out = DeviceTensor(np.zeros(300, np.float32))
    assert call("aclnnDropoutDoMask", DeviceTensor(x), DeviceTensor(mask), ctypes.c_double(0.4), out) == (0, 0, 0)
    keep = np.unpackbits(mask, bitorder="little")[:300].astype(bool)
    reference = torch.where(torch.from_numpy(keep), torch.from_numpy(x) / 0.6, 0.0).numpy()
    np.testing.assert_allclose(result(out), reference, rtol=1e-6)


def test_dropout_returns_the_mask_it_applied():
    x = np.ones(256, np.float16)
    out, mask = DeviceTensor(np.zeros(256, np.float16)), DeviceTensor(np.zeros(32, np.uint8))
    assert call("aclnnDropout", DeviceTensor(x), ctypes.c_double(0.5), ctypes.c_bool(True), ctypes.c_int64(1),
                ctypes.c_int64(0), out, mask) == (0, 0, 0), recent_error()
    keep = np.unpackbits(result(mask), bitorder="little").astype(bool)
    np.testing.assert_array_equal(result(out), np.where(keep, 2, 0).astype(np.float16))
    grad = DeviceTensor(np.zeros(256, np.float16))
    assert call("aclnnDropoutBackward", DeviceTensor(x), mask, ctypes.c_double(2.0), grad) == (0, 0, 0)
    np.testing.assert_array_equal(result(grad), result(out))


def test_dropout_in_eval_copies_the_input():
    x = np.arange(128, dtype=np.float32)
    out, mask = DeviceTensor(np.zeros(128, np.float32)), DeviceTensor(np.zeros(16, np.uint8))
    assert call("aclnnDropout", DeviceTensor(x), ctypes.c_double(0.5), ctypes.c_bool(False), ctypes.c_int64(1),
                ctypes.c_int64(0), out, mask) == (0, 0, 0)
    np.testing.assert_array_equal(result(out), x)


# ---- aclnnRandperm / aclnnMultinomial ----

def test_randperm_is_a_permutation_fixed_by_seed_and_offset():
    def run(seed, offset):
        out = DeviceTensor(np.zeros(1000, np.int64))
        assert call("aclnnRandperm", ctypes.c_int64(1000), ctypes.c_int64(seed), ctypes.c_int64(offset), out) == \
            (0, 0, 0), recent_error()
        return result(out)
    x = run(1, 0)
    np.testing.assert_array_equal(np.sort(x), np.arange(1000))
    np.testing.assert_array_equal(x, run(1, 0))
    assert not np.array_equal(x, run(1, 4))


def test_multinomial_without_replacement_draws_distinct_categories():
    w = np.array([[1, 0, 3, 2], [0, 0, 1, 1]], np.float32)
    out = DeviceTensor(np.zeros((2, 2), np.int64))
    assert call("aclnnMultinomial", DeviceTensor(w), ctypes.c_int64(2), ctypes.c_bool(False), ctypes.c_int64(3),
                ctypes.c_int64(0), out) == (0, 0, 0), recent_error()
    x = result(out)
    assert len(set(x[0])) == 2 and 1 not in x[0] and sorted(x[1]) == [2, 3]


def test_multinomial_with_replacement_follows_the_weights():
    w = np.array([1, 3], np.float32)
    out = DeviceTensor(np.zeros(100000, np.int64))
    assert call("aclnnMultinomial", DeviceTensor(w), ctypes.c_int64(100000), ctypes.c_bool(True), ctypes.c_int64(3),
                ctypes.c_int64(0), out) == (0, 0, 0), recent_error()
    reference = torch.multinomial(torch.tensor([1.0, 3.0]), 100000, True, generator=torch.Generator().manual_seed(0))
    assert abs(result(out).mean() - reference.double().mean().item()) < 0.01


def test_multinomial_too_many_samples_without_replacement_is_param_invalid():
    out = DeviceTensor(np.zeros(3, np.int64))
    assert call("aclnnMultinomial", DeviceTensor(np.ones(2, np.float32)), ctypes.c_int64(3), ctypes.c_bool(False),
                ctypes.c_int64(0), ctypes.c_int64(0), out)[0] == PARAM_INVALID
    assert "numsamples must <= shape.GetDim(dimNum - 1) without replacement" in recent_error()
