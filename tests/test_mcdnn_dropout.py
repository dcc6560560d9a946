"""mcDNN dropout through the C ABI: the descriptor and its RNG states, mask statistics against the Bernoulli law
torch's dropout samples, reproducibility from the same seed and states, backward = dy·mask/(1-p) from the
reserve space, and every documented status (seed 3.1.1.7, mcdnn.md §3.3)."""
import ctypes

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mc import (BAD_PARAM, BFLOAT16, DOUBLE, FLOAT, HALF, NUMPY, Desc, DeviceTensor, Handle, c_float, c_int,
                c_size_t, c_void_p, call, lib, nhwc_strides, recent_error)

INVALID_VALUE = 5
DIMS = (4, 8, 16, 16)


@pytest.fixture(scope="module")
def handle():
    h = Handle()
    yield h.handle
    h.destroy()


def setup_lib():
    L = lib()
    for name in ("mcdnnSetDropoutDescriptor", "mcdnnRestoreDropoutDescriptor"):
        getattr(L, name).argtypes = [c_void_p, c_void_p, c_float, c_void_p, c_size_t, ctypes.c_ulonglong]
    return L


def device_buffer(nbytes):
    p = c_void_p()
    assert lib().mcMalloc(ctypes.byref(p), nbytes) == 0
    return p


def read_bytes(p, nbytes):
    host = np.empty(nbytes, np.uint8)
    assert lib().mcMemcpy(host.ctypes.data, p, nbytes, 2) == 0
    return host


def write_bytes(p, host):
    assert lib().mcMemcpy(p, host.ctypes.data, host.nbytes, 1) == 0


class Dropout:
    """A descriptor with its own states buffer."""

    def __init__(self, handle, p, seed, states=True):
        self.L, self.handle = setup_lib(), handle
        self.desc = c_void_p()
        assert self.L.mcdnnCreateDropoutDescriptor(ctypes.byref(self.desc)) == 0
        size = c_size_t()
        assert self.L.mcdnnDropoutGetStatesSize(handle, ctypes.byref(size)) == 0
        self.state_bytes = size.value
        self.states = device_buffer(self.state_bytes) if states else None
        assert self.L.mcdnnSetDropoutDescriptor(self.desc, handle, p, self.states, self.state_bytes, seed) == 0, \
            recent_error()


def reserve_for(desc):
    size = c_size_t()
    assert lib().mcdnnDropoutGetReserveSpaceSize(desc.handle, ctypes.byref(size)) == 0
    return device_buffer(size.value), size.value


def forward(handle, drop, xd, X, yd, Y, reserve, size):
    return call("mcdnnDropoutForward", handle, drop.desc, xd.handle, X.address, yd.handle, Y.address, reserve,
                c_size_t(size))


def backward(handle, drop, dyd, DY, dxd, DX, reserve, size):
    return call("mcdnnDropoutBackward", handle, drop.desc, dyd.handle, DY.address, dxd.handle, DX.address, reserve,
                c_size_t(size))


def run(handle, p=0.3, seed=7, code=FLOAT, dims=DIMS, drop=None, strides=None):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(dims) + 3).astype(NUMPY[code])   # never 0: a 0 in y means dropped
    d = Desc(code, dims, strides)
    X, Y = DeviceTensor(d, x), DeviceTensor(d)
    drop = drop or Dropout(handle, p, seed)
    R, size = reserve_for(d)
    assert forward(handle, drop, d, X, d, Y, R, size) == 0, recent_error()
    return x, Y.read(), drop, d, R, size


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_mask_keeps_one_minus_p_of_the_elements_like_torch_dropout(handle, p):
    x, y, _, _, _, _ = run(handle, p=p, dims=(8, 16, 32, 32))
    n = x.size
    keep = y != 0
    sigma = np.sqrt(n * p * (1 - p))
    assert abs(keep.sum() - n * (1 - p)) < 5 * sigma
    torch.manual_seed(0)
    torch_keep = F.dropout(torch.ones(n), p=p, training=True) != 0        # torch samples the same law
    assert abs(torch_keep.sum().item() - n * (1 - p)) < 5 * sigma
    expected = torch.where(torch.tensor(keep), torch.tensor(x) / (1 - p), torch.tensor(0.0)).numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-6)                  # kept values scaled by 1/(1-p)
    per_channel = keep.mean(axis=(0, 2, 3))                              # no structure across channels
    assert np.all(np.abs(per_channel - (1 - p)) < 6 * np.sqrt(p * (1 - p) / (n / 16)))


def test_same_seed_and_states_give_the_same_mask_and_successive_calls_fresh_ones(handle):
    _, y1, drop1, d, R, size = run(handle, seed=11)
    _, y2, _, _, _, _ = run(handle, seed=11)
    np.testing.assert_array_equal(y1 != 0, y2 != 0)                     # same seed: same first mask
    _, y3, _, _, _, _ = run(handle, seed=12)
    assert ((y1 != 0) != (y3 != 0)).mean() > 0.2                         # another seed: another mask
    x, y4, _, _, _, _ = run(handle, seed=11, drop=drop1)                # the states advanced
    assert ((y1 != 0) != (y4 != 0)).mean() > 0.2


def test_restoring_saved_states_reproduces_the_mask(handle):
    drop = Dropout(handle, 0.4, 99)
    saved = read_bytes(drop.states, drop.state_bytes)
    _, first, _, _, _, _ = run(handle, p=0.4, drop=drop)
    copy = device_buffer(drop.state_bytes)
    write_bytes(copy, saved)
    restored = Dropout(handle, 0.4, 1, states=False)
    assert restored.L.mcdnnRestoreDropoutDescriptor(restored.desc, handle, 0.4, copy, drop.state_bytes, 99) == 0
    _, again, _, _, _, _ = run(handle, p=0.4, drop=restored)
    np.testing.assert_array_equal(first, again)


@pytest.mark.parametrize("code", [FLOAT, DOUBLE, HALF, BFLOAT16], ids=["float", "double", "half", "bf16"])
def test_backward_is_dy_times_the_reserved_mask_over_one_minus_p(handle, code):
    p = 0.25
    x, y, drop, d, R, size = run(handle, p=p, code=code)
    keep = y != 0
    dy = np.random.default_rng(3).standard_normal(d.dims).astype(NUMPY[code])
    DY, DX = DeviceTensor(d, dy), DeviceTensor(d)
    assert backward(handle, drop, d, DY, d, DX, R, size) == 0, recent_error()
    ct = np.float64 if code == DOUBLE else np.float32    # fp16/bf16 scaled in fp32, rounded once
    factor = ct(1 / (1 - p))
    expected = np.where(keep, dy.astype(ct) * factor, 0).astype(NUMPY[code])
    np.testing.assert_array_equal(DX.read(), expected)
    np.testing.assert_array_equal(y, np.where(keep, x.astype(ct) * factor, 0).astype(NUMPY[code]))


def test_backward_reads_the_mask_from_the_reserve_space(handle):
    _, y, drop, d, R, size = run(handle)
    bits = read_bytes(R, size)
    np.testing.assert_array_equal(np.unpackbits(bits)[:y.size].astype(bool), (y != 0).ravel())
    write_bytes(R, np.full(size, 0xFF, np.uint8))                       # a reserve the app overwrote
    dy = np.ones(d.dims, np.float32)
    DY, DX = DeviceTensor(d, dy), DeviceTensor(d)
    assert backward(handle, drop, d, DY, d, DX, R, size) == 0
    assert (DX.read() != 0).all()                                        # every element now "kept"


def test_probability_zero_keeps_everything_and_one_drops_everything(handle):
    x, y, _, _, _, _ = run(handle, p=0.0)
    np.testing.assert_array_equal(y, x)
    _, y, _, _, _, _ = run(handle, p=1.0)
    assert (y == 0).all()


def test_set_with_null_states_only_changes_the_probability_and_get_reports_it(handle):
    drop = Dropout(handle, 0.3, 5)
    assert drop.L.mcdnnSetDropoutDescriptor(drop.desc, handle, 0.6, None, 0, 77) == 0
    p, states, seed = c_float(), c_void_p(), ctypes.c_ulonglong()
    assert drop.L.mcdnnGetDropoutDescriptor(drop.desc, handle, ctypes.byref(p), ctypes.byref(states),
                                            ctypes.byref(seed)) == 0
    assert p.value == pytest.approx(0.6) and states.value == drop.states.value and seed.value == 5
    _, y, _, _, _, _ = run(handle, p=0.6, drop=drop)
    assert abs((y != 0).mean() - 0.4) < 0.05
    assert drop.L.mcdnnGetDropoutDescriptor(drop.desc, handle, None, ctypes.byref(states),
                                            ctypes.byref(seed)) == BAD_PARAM


def test_in_place_forward_with_identical_descriptors(handle):
    x = np.arange(1, 65, dtype=np.float32).reshape(1, 4, 4, 4)
    d = Desc(FLOAT, x.shape)
    X = DeviceTensor(d, x)
    drop = Dropout(handle, 0.5, 3)
    R, size = reserve_for(d)
    assert forward(handle, drop, d, X, d, X, R, size) == 0
    y = X.read()
    np.testing.assert_array_equal(y, np.where(y != 0, x * 2, 0))


def test_states_size_below_the_query_is_invalid_value(handle):
    L = setup_lib()
    desc = c_void_p()
    L.mcdnnCreateDropoutDescriptor(ctypes.byref(desc))
    states = device_buffer(64)
    assert L.mcdnnSetDropoutDescriptor(desc, handle, 0.5, states, 8, 1) == INVALID_VALUE
    assert "stateSizeInBytes" in recent_error()
    assert L.mcdnnRestoreDropoutDescriptor(desc, handle, 0.5, states, 8, 1) == INVALID_VALUE


def test_probability_outside_zero_one_is_bad_param(handle):
    L = setup_lib()
    desc = c_void_p()
    L.mcdnnCreateDropoutDescriptor(ctypes.byref(desc))
    states = device_buffer(64)
    for p in (-0.1, 1.5, float("nan")):
        assert L.mcdnnSetDropoutDescriptor(desc, handle, p, states, 64, 1) == BAD_PARAM
        assert L.mcdnnRestoreDropoutDescriptor(desc, handle, p, states, 64, 1) == BAD_PARAM


def test_descriptor_never_given_states_is_bad_param(handle):
    drop = Dropout(handle, 0.5, 1, states=False)
    d = Desc(FLOAT, (1, 2, 3, 4))
    X, Y = DeviceTensor(d, np.ones(d.dims)), DeviceTensor(d)
    R, size = reserve_for(d)
    assert forward(handle, drop, d, X, d, Y, R, size) == BAD_PARAM
    assert "non-NULL states" in recent_error()
    assert backward(handle, drop, d, X, d, Y, R, size) == BAD_PARAM


def test_element_counts_that_differ_are_bad_param(handle):
    _, _, drop, d, R, size = run(handle)
    other = Desc(FLOAT, (4, 8, 16, 15))
    X, Y = DeviceTensor(d, np.ones(d.dims)), DeviceTensor(other)
    assert forward(handle, drop, d, X, other, Y, R, size) == BAD_PARAM
    assert "element counts" in recent_error()
    assert backward(handle, drop, d, X, other, Y, R, size) == BAD_PARAM
    flat = Desc(FLOAT, (1, 1, 32, 256))                                  # same count, other shape: fine
    assert forward(handle, drop, d, X, flat, DeviceTensor(flat), R, size) == 0


def test_data_types_that_differ_are_bad_param(handle):
    _, _, drop, d, R, size = run(handle)
    half = Desc(HALF, DIMS)
    assert forward(handle, drop, d, DeviceTensor(d, np.ones(DIMS)), half, DeviceTensor(half), R, size) == BAD_PARAM
    assert "data types" in recent_error()


def test_in_place_with_different_strides_is_bad_param(handle):
    _, _, drop, d, R, size = run(handle)
    nhwc = Desc(FLOAT, DIMS, nhwc_strides(DIMS))
    X = DeviceTensor(d, np.ones(DIMS))
    assert forward(handle, drop, d, X, nhwc, X, R, size) == BAD_PARAM
    assert "in place" in recent_error()
    assert backward(handle, drop, d, X, nhwc, X, R, size) == BAD_PARAM


def test_reserve_space_smaller_than_its_query_is_bad_param(handle):
    _, _, drop, d, R, size = run(handle)
    X, Y = DeviceTensor(d, np.ones(DIMS)), DeviceTensor(d)
    assert forward(handle, drop, d, X, d, Y, R, size - 1) == BAD_PARAM
    assert "reserveSpaceSizeInBytes" in recent_error()
    assert backward(handle, drop, d, X, d, Y, R, size - 1) == BAD_PARAM


def test_null_or_destroyed_descriptor_is_bad_param(handle):
    _, _, drop, d, R, size = run(handle)
    X, Y = DeviceTensor(d, np.ones(DIMS)), DeviceTensor(d)
    assert call("mcdnnDropoutForward", handle, None, d.handle, X.address, d.handle, Y.address, R,
                c_size_t(size)) == BAD_PARAM
    assert call("mcdnnDropoutForward", handle, drop.desc, d.handle, None, d.handle, Y.address, R,
                c_size_t(size)) == BAD_PARAM
    assert lib().mcdnnDestroyDropoutDescriptor(drop.desc) == 0
    assert forward(handle, drop, d, X, d, Y, R, size) == BAD_PARAM
    assert lib().mcdnnDestroyDropoutDescriptor(drop.desc) == BAD_PARAM
