"""The LayerNorm/RmsNorm row kernel (csrc/kernels/norms.c) gives its NumPy reference's bits: means by NumPy's
row sums, every step rounded in fp32 where the reference's separate passes round. The row sums
(csrc/kernels/pairwise.c) give NumPy's on one thread and shared among the C pool's (csrc/kernels/pool.c)."""
import os
import threading

import numpy as np
import pytest

from opemu.core import kernels, parallel
from opemu.ops.aclnn.common import rowwise as _rowwise
from opemu.ops.aclnn.norm import norms

from test_kernels import isa  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.skipif(kernels.lib() is None, reason="no kernel library: the references run"),
              pytest.mark.usefixtures("isa")]   # every instruction-set level's paths

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3.4e38, 1.0], np.float32)


def _both(block, centre, weight, bias, monkeypatch, out_dtype=np.float32):
    results = []
    for use_kernel in (True, False):
        if not use_kernel:
            monkeypatch.setattr(kernels, "lib", lambda: None)
        out = np.full(block.shape, 7, out_dtype)
        with np.errstate(all="ignore"):
            mean, rstd = norms.normalize_block(block, centre, np.float32(1e-5), weight, bias, out)
        results.append((out, mean, rstd))
    monkeypatch.undo()
    return results


def _same(ours, reference):   # a NaN is a NaN (which one an add passes on is the compiler's choice)
    if ours is None or reference is None:
        return ours is reference
    nan = np.isnan(reference)
    return np.array_equal(np.isnan(ours), nan) and ours[~nan].tobytes() == reference[~nan].tobytes()


@pytest.mark.parametrize("specials", [False, True], ids=["random", "special values"])
@pytest.mark.parametrize("affine", ["weight and bias", "weight", "none"])
@pytest.mark.parametrize("centre", [True, False], ids=["LayerNorm", "RmsNorm"])
@pytest.mark.parametrize("cols", [1, 7, 8, 63, 64, 129, 256, 257, 1000, 4097])
def test_norm_rows_are_the_reference(cols, centre, affine, specials, monkeypatch):
    rng = np.random.default_rng(cols)
    block = (rng.standard_normal((9, cols)) * rng.choice([1e-3, 1.0, 1e15], (9, cols))).astype(np.float32)
    if specials:
        flat = block.reshape(-1)
        picks = rng.choice(flat.size, max(1, flat.size // 30), replace=False)
        flat[picks] = rng.choice(SPECIALS, picks.size)
    weight = rng.standard_normal(cols).astype(np.float32) if affine != "none" else None
    bias = rng.standard_normal(cols).astype(np.float32) if affine == "weight and bias" else None
    ours, reference = _both(block, centre, weight, bias, monkeypatch)
    assert all(_same(a, b) for a, b in zip(ours, reference))


def test_norm_rows_of_strided_blocks_into_half_outputs(monkeypatch):
    rng = np.random.default_rng(2)
    base = rng.standard_normal((30, 300)).astype(np.float32)
    block = base[::3, 5:205]
    ours, reference = _both(block, True, rng.standard_normal(200).astype(np.float32), None, monkeypatch, np.float16)
    assert all(_same(a, b) for a, b in zip(ours, reference))


@pytest.mark.parametrize("specials", [False, True], ids=["random", "special values"])
@pytest.mark.parametrize("rows", [1, 3, 8, 9, 19])
@pytest.mark.parametrize("cols", [0, 1, 7, 8, 9, 127, 128, 129, 256, 1000, 4096, 4099])
def test_row_sums_are_numpys(rows, cols, specials, monkeypatch):
    monkeypatch.setattr(_rowwise, "ROW_SUMS_MIN", 0)   # the kernel for every size
    rng = np.random.default_rng(rows * 10000 + cols)
    block = (rng.standard_normal((rows, cols + 3)) * rng.choice([1e-3, 1.0, 1e15], (rows, cols + 3))).astype(np.float32)
    if specials:
        block.reshape(-1)[rng.integers(0, block.size, max(1, block.size // 30))] = rng.choice(SPECIALS)
    window = block[:, 1:1 + cols]   # rows apart by more than their length
    with np.errstate(all="ignore"):
        assert _same(_rowwise.row_sums(window), np.add.reduce(window, axis=1, dtype=np.float32))


@pytest.mark.parametrize("workers", [1, 2, 3, 5])
def test_row_sums_shared_among_the_kernel_threads_are_numpys(workers, monkeypatch):
    """The rows cut into `workers` pieces on the C pool (csrc/kernels/pool.c), more pieces than cores too."""
    monkeypatch.setattr(parallel, "WORKERS", workers)
    rng = np.random.default_rng(workers)
    block = (rng.standard_normal((1001, 301)) * 100).astype(np.float32)[:, :300]
    block.reshape(-1)[rng.integers(0, block.size, 500)] = rng.choice(SPECIALS, 500)
    assert parallel.c_pieces(block.size >= _rowwise.PARALLEL_MIN) == workers
    for _ in range(3):   # the pool's workers again, awake and asleep
        with np.errstate(all="ignore"):
            assert _same(_rowwise.row_sums(block), np.add.reduce(block, axis=1, dtype=np.float32))


def test_row_sums_inside_a_piece_of_the_python_pool_stay_on_its_thread():
    block = np.arange(2 * 40000, dtype=np.float32).reshape(2, 40000)
    seen = []

    def piece(lo, hi):
        seen.append((parallel.c_pieces(), _rowwise.row_sums(block).tolist()))
    parallel.split(2, piece)
    assert seen == [(1, np.add.reduce(block, axis=1).tolist())] * 2


def test_kernel_threads_start_again_in_a_forked_child():
    block = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    expected = np.add.reduce(block, axis=1, dtype=np.float32)
    assert _same(_rowwise.row_sums(block), expected)   # the parent's pool is up
    pid = os.fork()
    if pid == 0:   # the child: its own workers, or it would wait for the parent's forever
        os._exit(0 if _same(_rowwise.row_sums(block), expected) else 1)
    assert os.waitpid(pid, 0)[1] == 0


def test_row_sums_of_two_threads_at_once_each_get_their_own():
    """Two callers at once: one has the C pool, the other finds it busy and sums its rows on its own thread."""
    rng = np.random.default_rng(3)
    blocks = [rng.standard_normal((700, 400)).astype(np.float32) for _ in range(2)]
    expected = [np.add.reduce(b, axis=1, dtype=np.float32) for b in blocks]
    wrong = []

    def caller(i):
        for _ in range(200):
            if not _same(_rowwise.row_sums(blocks[i]), expected[i]):
                wrong.append(i)
    threads = [threading.Thread(target=caller, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
