"""EmbeddingDenseBackward's segment-sum kernel (csrc/kernels/segments.c) gives its NumPy reference's bits:
short segments from their first row, long ones block by block, scaled by the fp32 reciprocal of the count."""
import numpy as np
import pytest

from opemu.core import kernels
from opemu.ops.aclnn.index import embedding_dense_backward as edb

from test_kernels import isa  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.skipif(kernels.lib() is None, reason="no kernel library: the references run"),
              pytest.mark.usefixtures("isa")]   # every instruction-set level's paths

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, 3.4e38, -3.4e38], np.float32)


def _both(rows, index, weights, scale, monkeypatch):
    order = np.argsort(index, kind="stable")
    results = []
    for use_kernel in (True, False):
        if not use_kernel:
            monkeypatch.setattr(edb, "_segment_kernel", lambda *args: False)
        out = np.full((weights, rows.shape[1]), 7.0, np.float32)
        with np.errstate(all="ignore"):
            edb._accumulate(rows, index, order, out, scale)
        results.append(out)
    return results


def _same(ours, reference):   # a NaN is a NaN (which one an add passes on is the compiler's choice)
    nan = np.isnan(reference)
    return np.array_equal(np.isnan(ours), nan) and ours[~nan].tobytes() == reference[~nan].tobytes()


@pytest.mark.parametrize("streaming", [False, True], ids=["cached out", "out streamed"])
@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("specials", [False, True], ids=["random", "special values"])
@pytest.mark.parametrize("case", ["few repeats", "long segments", "one index", "odd width", "split over threads"])
def test_segment_sums_are_the_references(case, specials, scale, streaming, monkeypatch):
    """Every out row the same bits, whether summed in place or (an out past kernels.STREAM_BYTES) in scratch and
    written by non-temporal stores; the rows read next are prefetched either way."""
    if streaming:
        monkeypatch.setattr(kernels, "STREAM_BYTES", 0)
    rng = np.random.default_rng(len(case))
    count, dim, weights = {"few repeats": (3000, 64, 900), "long segments": (5000, 16, 7),
                           "one index": (1000, 33, 4), "odd width": (2000, 5, 300),
                           "split over threads": (20000, 32, 500)}[case]
    rows = (rng.standard_normal((count, dim)) * rng.choice([1e-3, 1.0, 1e30], (count, dim))).astype(np.float32)
    if specials:
        flat = rows.reshape(-1)
        picks = rng.choice(flat.size, flat.size // 100, replace=False)
        flat[picks] = rng.choice(SPECIALS, picks.size)
    index = np.zeros(count, np.int64) + 2 if case == "one index" else rng.integers(0, weights, count)
    ours, reference = _both(rows, index, weights, scale, monkeypatch)
    assert _same(ours, reference)


@pytest.mark.parametrize("streaming", [False, True], ids=["cached out", "out streamed"])
def test_segment_sums_of_strided_rows(streaming, monkeypatch):
    if streaming:
        monkeypatch.setattr(kernels, "STREAM_BYTES", 0)
    rng = np.random.default_rng(4)
    base = rng.standard_normal((1500, 80)).astype(np.float32)
    rows = base[::-2, 3:51]
    ours, reference = _both(rows, rng.integers(0, 40, rows.shape[0]), 40, False, monkeypatch)
    assert ours.tobytes() == reference.tobytes()
