"""The row-sum kernel (csrc/kernels/reduce.c) gives NumPy's add.reduce bits: its pairwise sums, eight running
sums per block of 128, halves of longer rows, all added to +0. A NaN is a NaN: which of two NaNs an x86 add
passes on (and so its sign) depends on the operand order the compiler picked for a commutative add."""
import numpy as np
import pytest

from opemu.core import kernels
from opemu.ops.aclnn import _rowwise

pytestmark = pytest.mark.skipif(kernels.lib() is None, reason="no kernel library: the references run")

@pytest.fixture(autouse=True)
def every_size_to_the_kernel(monkeypatch):
    monkeypatch.setattr(_rowwise, "KERNEL_MIN", 0)


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38, 1.0], np.float32)


def same_bits(ours, numpys):
    nan = np.isnan(numpys)
    return np.array_equal(np.isnan(ours), nan) and ours[~nan].tobytes() == numpys[~nan].tobytes()


def _rows(rng, rows, cols, specials):
    block = (rng.standard_normal((rows, cols)) * rng.choice([1e-3, 1.0, 1e20], (rows, cols))).astype(np.float32)
    if specials and block.size:
        flat = block.reshape(-1)
        picks = rng.choice(flat.size, size=max(1, flat.size // 40), replace=False)
        flat[picks] = rng.choice(SPECIALS, picks.size)
    return block


@pytest.mark.parametrize("specials", [False, True], ids=["random", "special values"])
@pytest.mark.parametrize("cols", [0, 1, 5, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 255, 256, 257, 1000, 4097])
def test_row_sums_are_numpys_add_reduce(cols, specials):
    block = _rows(np.random.default_rng(cols), 13, cols, specials)
    with np.errstate(all="ignore"):
        assert same_bits(_rowwise.row_sums(block), np.add.reduce(block, axis=1))


def test_rows_of_negative_zeros_sum_to_positive_zero():
    block = np.full((3, 200), -0.0, np.float32)
    assert _rowwise.row_sums(block).tobytes() == np.zeros(3, np.float32).tobytes()


@pytest.mark.parametrize("view", ["rows apart", "reversed rows", "one column of many"])
def test_row_sums_of_strided_views(view):
    base = _rows(np.random.default_rng(5), 40, 300, specials=False)
    block = {"rows apart": base[::3, 10:150], "reversed rows": base[::-1, :77], "one column of many": base[:, 4:5]}[view]
    assert _rowwise.row_sums(block).tobytes() == np.add.reduce(block, axis=1).tobytes()


def test_row_means_are_numpys_mean():
    block = _rows(np.random.default_rng(9), 21, 333, specials=False)
    assert (_rowwise.row_sums(block) / np.float32(333)).tobytes() == np.mean(block, axis=1, dtype=np.float32).tobytes()
