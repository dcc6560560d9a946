"""The bf16 rounding kernel (csrc/kernels/rounding.c) gives the bits of its NumPy reference (the integer steps
of python/opemu/core/rounding.py), NaN payloads, infinities, ties and overflow included."""
import numpy as np
import pytest

from opemu.core import kernels, rounding

pytestmark = pytest.mark.skipif(kernels.lib() is None, reason="no kernel library: the references run")


def _patterns(rng, n):
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    special = np.array([0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FBFFFFF, 0x7F800000, 0xFF800000, 0x7F7FFFFF,
                        0x7F7F8000, 0x3F808000, 0x3F818000, 0x00008000, 0x80018000, 0x00000001, 0x80000000, 0],
                       np.uint32)   # NaNs (quiet, signalling, payloads), infinities, overflow, ties, subnormals
    return np.concatenate([bits, special]).view(np.float32)


@pytest.mark.parametrize("n", [1, 7, 1000, 65537])
def test_bf16_rounding_is_the_reference(n, monkeypatch):
    values = _patterns(np.random.default_rng(n), n)
    ours = values.copy()
    rounding.round_in_place(ours, rounding.BF16, np.empty(ours.shape, np.uint32))
    monkeypatch.setattr(kernels, "lib", lambda: None)
    reference = values.copy()
    rounding.round_in_place(reference, rounding.BF16, np.empty(reference.shape, np.uint32))
    assert ours.view(np.uint32).tobytes() == reference.view(np.uint32).tobytes()


def test_bf16_rounding_of_a_strided_block_takes_the_reference():
    values = _patterns(np.random.default_rng(3), 385).reshape(20, 20)[:, :10]
    expected = values.copy()
    rounding.round_in_place(values, rounding.BF16, np.empty(values.shape, np.uint32))
    with np.errstate(invalid="ignore"):
        ml = expected.astype(rounding.BF16).astype(np.float32)   # ml_dtypes agrees except on NaN payloads
    finite = np.isfinite(ml)
    assert values[finite].tobytes() == ml[finite].tobytes()
