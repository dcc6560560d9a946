"""The dropout backward kernel (csrc/kernels/dropout.c) gives its NumPy reference's bits: dy scaled by
1/(1-p) where the reserve space's bit is set, +0 elsewhere."""
import numpy as np
import pytest

from opemu.core import kernels
from opemu.ops.mcdnn import dropout

pytestmark = pytest.mark.skipif(kernels.lib() is None, reason="no kernel library: the references run")

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3.4e38]


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 8, 13, 4096, 100003])
def test_dropout_backward_is_the_reference(n, dtype, p, in_place):
    rng = np.random.default_rng(n)
    dy = rng.standard_normal(n).astype(dtype)
    dy[rng.choice(n, max(1, n // 20))] = rng.choice(np.array(SPECIALS, dtype), max(1, n // 20))
    keep = rng.random(n) >= p
    bits = np.packbits(keep)
    ct = np.dtype(dtype)
    with np.errstate(all="ignore"):
        expected = dropout._scaled(dy, keep, p, ct)
        dx = dy if in_place else np.full(n, 7, dtype)
        assert dropout._backward_kernel(dy, bits, dropout._scale(p, ct), dx, ct)
    assert dx.tobytes() == expected.tobytes()


def test_dropout_backward_leaves_shifted_overlaps_to_the_reference():
    buffer = np.ones(64, np.float32)
    ct = np.dtype(np.float32)
    assert not dropout._backward_kernel(buffer[:60], np.packbits(np.ones(60, bool)), np.float32(2), buffer[4:], ct)
