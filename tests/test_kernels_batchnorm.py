"""The batch normalization C kernels (csrc/kernels/batchnorm.c) against their NumPy references
(python/opemu/ops/mcdnn/bn_channels.py): the same bits for random and special values, odd sizes, strided
blocks of channels and in-place outputs. Correctness itself is the torch oracle tests' (test_mcdnn_batchnorm)."""
import numpy as np
import pytest

from opemu.core import kernels
from opemu.ops.mcdnn import bn_channels
from test_kernels import assert_same_bits, isa  # noqa: F401 (isa: a fixture)

needs_kernels = pytest.mark.skipif(kernels.lib() is None, reason="the C kernels are not loaded (OPEMU_KERNELS=numpy)")
pytestmark = pytest.mark.usefixtures("isa")   # every instruction-set level's paths

DTYPES = [np.float32, np.float64]
SHAPES = [(3, 5, 37), (2, 3, 16), (1, 1, 1), (1, 2, 5), (4, 7, 320), (5, 2, 33)]


def _special(rng, shape, dtype):
    """Random values with NaN, ±0, ±inf, subnormals and repeated values (ties) sprinkled in."""
    values = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    flat = values.reshape(-1)
    tiny = np.finfo(dtype).smallest_subnormal
    picks = [np.nan, 0.0, -0.0, np.inf, -np.inf, tiny, -tiny, 0.5, 0.5, 2.5]
    spots = rng.choice(flat.size, size=min(flat.size, len(picks)), replace=False)
    flat[spots] = np.array(picks[:len(spots)], dtype)
    return values


def _params(rng, k):
    return rng.standard_normal(k), rng.standard_normal(k), rng.random(k) + 0.25


def _bits(*arrays):
    return [a.tobytes() for a in arrays]


def _backward_both(x, dy, scale, mean, inv, make_out, alpha=0.75):
    """backward_block (the C kernel) and backward_reference on fresh outputs from make_out()."""
    results = []
    for run in (bn_channels.backward_block, bn_channels.backward_reference):
        dx = make_out()
        d_scale, d_bias = np.zeros(x.shape[1]), np.zeros(x.shape[1])
        with np.errstate(all="ignore"):
            run(x, dy, dx, scale, mean, inv, 1e-5, alpha, d_scale, d_bias)
        results.append(_bits(dx, d_scale, d_bias))
    return results


def _dense(x):
    return lambda: np.zeros_like(x)


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("saved", [True, False], ids=["saved_statistics", "recomputed_statistics"])
def test_backward_kernel_matches_reference_bit_for_bit_on_random_values(dtype, shape, saved):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    scale, mean, inv = _params(rng, shape[1])
    c, ref = _backward_both(x, dy, scale, mean if saved else None, inv if saved else None, _dense(x))
    assert c == ref


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("saved", [True, False], ids=["saved_statistics", "recomputed_statistics"])
def test_backward_kernel_matches_reference_bit_for_bit_on_special_values(dtype, saved):
    rng = np.random.default_rng(7)
    shape = (3, 4, 21)
    x, dy = _special(rng, shape, dtype), _special(rng, shape, dtype)
    x[:, 3] = 0.5  # one channel of ties only: variance 0
    dy[:, 2] = -0.0  # Σdy of -0 terms: the lanes start from +0
    scale, mean, inv = _params(rng, shape[1])
    c, ref = _backward_both(x, dy, scale, mean if saved else None, inv if saved else None, _dense(x))
    assert c == ref


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_forward_kernel_matches_reference_bit_for_bit(dtype, shape):
    rng = np.random.default_rng(len(shape) + shape[2])
    for x in ((rng.standard_normal(shape) * 1.5 + 4000).astype(dtype), _special(rng, shape, dtype)):
        scale, bias, _ = _params(rng, shape[1])
        results = []
        for run in (bn_channels.forward_block, bn_channels.forward_reference):
            y, mean, var = np.zeros_like(x), np.zeros(shape[1]), np.zeros(shape[1])
            with np.errstate(all="ignore"):
                run(x, y, scale, bias, 1e-5, 0.5, mean, var)
            results.append(_bits(y, mean, var))
        assert results[0] == results[1]


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_kernels_walk_strided_blocks_of_channels_like_the_reference(dtype):
    """A block of channels cut out of a wider NCHW tensor: image and channel strides that are not the block's
    own, with a row length that is not a multiple of the lanes."""
    rng = np.random.default_rng(3)
    n, c, s = 3, 9, 19
    x_full, dy_full = rng.standard_normal((n, c, s)).astype(dtype), rng.standard_normal((n, c, s)).astype(dtype)
    x, dy = x_full[:, 2:6], dy_full[:, 5:9]
    out_full = np.zeros((n, c + 2, s), dtype)
    scale, mean, inv = _params(rng, 4)
    for saved in (True, False):
        results = []
        for run in (bn_channels.backward_block, bn_channels.backward_reference):
            out_full[...] = 0
            d_scale, d_bias = np.zeros(4), np.zeros(4)
            run(x, dy, out_full[:, 3:7], scale, mean if saved else None, inv if saved else None, 1e-5, 1.0, d_scale,
                d_bias)
            results.append(_bits(out_full, d_scale, d_bias))
        assert results[0] == results[1]
    assert bn_channels._geometry(x, dy, out_full[:, 3:7]) is not None   # the kernel did take these strides


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("alias", ["x", "dy"])
def test_backward_in_place_on_x_or_dy_matches_the_reference(dtype, alias):
    rng = np.random.default_rng(11)
    shape = (2, 3, 45)
    base_x = rng.standard_normal(shape).astype(dtype)
    base_dy = rng.standard_normal(shape).astype(dtype)
    scale, mean, inv = _params(rng, 3)
    results = []
    for run in (bn_channels.backward_block, bn_channels.backward_reference):
        x, dy = base_x.copy(), base_dy.copy()
        out = x if alias == "x" else dy
        d_scale, d_bias = np.zeros(3), np.zeros(3)
        run(x, dy, out, scale, mean, inv, 1e-5, 1.0, d_scale, d_bias)
        results.append(_bits(out, d_scale, d_bias))
    assert results[0] == results[1]


@needs_kernels
def test_forward_in_place_on_x_matches_the_reference():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((3, 2, 50)).astype(np.float32)
    scale, bias, _ = _params(rng, 2)
    results = []
    for run in (bn_channels.forward_block, bn_channels.forward_reference):
        x = base.copy()
        mean, var = np.zeros(2), np.zeros(2)
        run(x, x, scale, bias, 1e-5, 1.0, mean, var)
        results.append(_bits(x, mean, var))
    assert results[0] == results[1]


@needs_kernels
def test_a_shifted_overlap_of_dx_and_x_leaves_the_kernel_to_the_reference():
    """dx overlapping x other than as the very same view: the per-channel kernel would read what it wrote."""
    x = np.zeros((2, 2, 10), np.float32)
    assert bn_channels._geometry(x[:, :, 1:], x[:, :, 1:], x[:, :, :9]) is None


def test_lane_sums_add_each_lane_in_row_order_then_fold_the_lanes():
    """The documented order, spelt out element by element for a row of 20 (one full block, one padded)."""
    rng = np.random.default_rng(2)
    rows = rng.standard_normal((2, 1, 20)).astype(np.float32)
    lanes = np.zeros(16, np.float32)
    for n in range(2):
        for j in range(20):
            lanes[j % 16] = lanes[j % 16] + rows[n, 0, j]
        for j in range(20, 32):
            lanes[j % 16] = lanes[j % 16] + np.float32(0)
    width = 8
    while width:
        lanes[:width] = lanes[:width] + lanes[width:2 * width]
        width //= 2
    from opemu.ops.mcdnn.bn_reference import lane_sums
    got = lane_sums(rows, lambda out: np.copyto(out, rows))
    assert got.tobytes() == lanes[:1].tobytes()


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_streamed_outputs_match_the_reference_aligned_or_not(dtype, monkeypatch):
    """Outputs written with stores that bypass the caches (large outputs; every output here): a head up to
    16-byte alignment, vectors, a tail — the same bits as the reference, for an output starting off alignment."""
    from opemu.ops.mcdnn import bn_common
    monkeypatch.setattr(bn_common, "STREAM_BYTES", 0)
    monkeypatch.setattr(bn_channels, "_GEOMETRIES", {})
    rng = np.random.default_rng(13)
    shape = (3, 4, 27)
    x, dy = _special(rng, shape, dtype), rng.standard_normal(shape).astype(dtype)
    scale, mean, inv = _params(rng, 4)
    storage = np.zeros(np.prod(shape) + 1, dtype)
    for start in (0, 1):
        def out():
            storage[...] = 0
            return storage[start:start + np.prod(shape)].reshape(shape)
        for saved in (True, False):
            c, ref = _backward_both(x, dy, scale, mean if saved else None, inv if saved else None, out)
            assert c == ref
        results = []
        for run in (bn_channels.forward_block, bn_channels.forward_reference):
            y, m, v = out(), np.zeros(4), np.zeros(4)
            with np.errstate(all="ignore"):
                run(x, y, scale, scale, 1e-5, 0.5, m, v)
            results.append(_bits(y, m, v))
        assert results[0] == results[1]
    assert all(g.stream for g in bn_channels._GEOMETRIES.values())


def test_per_activation_plain_ops_on_one_run_images_walk_positions_as_channels():
    """PER_ACTIVATION is the channel walk of x seen as (N, C·H·W, 1, 1) when every image and parameter tensor
    is one run; a padded image keeps the walk over images, and so do the fused ops."""
    from types import SimpleNamespace as Desc
    from opemu.ops.mcdnn.bn_common import walk_layout
    shape = (4, 3, 5, 6)
    dense = Desc(shape=shape, strides=(90, 30, 6, 1))
    padded = Desc(shape=shape, strides=(120, 40, 8, 1))
    params = Desc(shape=(1, 3, 5, 6), strides=(90, 30, 6, 1))
    layout = walk_layout(shape, False, True, [dense, dense], [params])
    assert (layout.positions, layout.by_channels, layout.shape, layout.count) == (True, True, (4, 90, 1, 1), 4)
    assert layout.forward_workspace() == walk_layout(shape, False, False, [dense], [params]).forward_workspace()
    assert not walk_layout(shape, False, True, [dense, padded], [params]).positions
    assert not walk_layout(shape, False, False, [dense], [params]).by_channels
    assert not walk_layout(shape, True, True, [dense], [params]).positions


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("stream", [False, True], ids=["cached_stores", "streamed_stores"])
def test_inference_kernel_matches_the_image_walk_bit_for_bit(dtype, stream, monkeypatch):
    """Inference's y = x·a' + b' (alpha folded into a', b', rounded to the data type): the kernel on the whole
    tensor against bn_images.normalize, the walk over images it replaces, on special values too."""
    from opemu.ops.mcdnn import bn_common, bn_images
    monkeypatch.setattr(bn_common, "STREAM_BYTES", 0 if stream else bn_common.STREAM_BYTES)
    monkeypatch.setattr(bn_channels, "_GEOMETRIES", {})
    rng = np.random.default_rng(17)
    shape = (3, 5, 4, 7)
    layout = bn_common.Layout(shape, True, True)
    x = _special(rng, shape, dtype)
    a, b = rng.standard_normal((5, 1, 1)), rng.standard_normal((5, 1, 1))
    a[2] = np.inf
    y_kernel, y_walk = np.zeros_like(x), np.zeros_like(x)
    with np.errstate(all="ignore"):
        assert bn_channels.affine_by_channels(layout, x, y_kernel, a * 0.75, b * 0.75, np.dtype(dtype), 0.0)
        bn_images.normalize(layout, x, y_walk, a, b, np.dtype(dtype), 0.75, 0.0)
    assert y_kernel.tobytes() == y_walk.tobytes()


# ---- channels innermost (NHWC): opemu_kernel_bn_*_nhwc against bn_channels_last's references

def _nhwc(values):
    """An (N, H, W, C) array seen as (N, C, H, W)."""
    return values.transpose(0, 3, 1, 2)


def _channels_last_both(monkeypatch, run):
    """run() with the C kernels and with the references (kernels.lib() None)."""
    results = [run()]
    monkeypatch.setattr(kernels, "USE_C", False)
    results.append(run())
    monkeypatch.undo()
    return results


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (1, 1, 1, 37), (3, 4, 4, 16), (2, 5, 3, 1), (2, 9, 17, 5),
                                   (1, 16, 16, 3)], ids=str)
@pytest.mark.parametrize("saved", [True, False], ids=["saved_statistics", "recomputed_statistics"])
def test_nhwc_backward_kernel_matches_reference_bit_for_bit(dtype, shape, saved, monkeypatch):
    from opemu.ops.mcdnn import bn_channels_last, bn_common
    rng = np.random.default_rng(sum(shape) + saved)
    n, h, w, c = shape
    x, dy = _special(rng, shape, dtype), (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    x[..., 0] = 4000.5   # a channel far from 0 of ties only
    scale, mean, inv = _params(rng, c)
    layout = bn_common.Layout((n, c, h, w), True)

    def run():
        dx = np.zeros_like(x)
        with np.errstate(all="ignore"):
            sums = bn_channels_last.backward(layout, _nhwc(x), _nhwc(dy), _nhwc(dx), scale, mean if saved else None,
                                             inv if saved else None, 1e-5, np.dtype(dtype), 0.75, 0.0)
        return dx, *(s.copy() for s in sums)
    for ours, reference in zip(*_channels_last_both(monkeypatch, run)):
        assert_same_bits(ours, reference)   # (2, 9, 17, 5): dy·k0 + (x - centre)·k1 + k2 meets two NaNs


def test_nhwc_sums_add_lanes_within_segments_then_the_segments_in_order():
    """306 rows: 7 segments of 48 rows (the last 18); a segment's row p goes to lane p mod 16, the lanes fold
    in halves, and the segments' sums add first to last. Scalar float32 arithmetic, written from that rule."""
    from opemu.ops.mcdnn import bn_reference
    rows = (np.random.default_rng(5).standard_normal((306, 3)) * 1000).astype(np.float32)
    expected = []
    for c in range(3):
        total = None
        for start in range(0, 306, 48):
            lanes = [np.float32(0)] * 16
            for p in range(start, min(start + 48, 306)):
                lanes[p % 16] = np.float32(lanes[p % 16] + rows[p, c])
            for width in (8, 4, 2, 1):
                lanes[:width] = [np.float32(lanes[l] + lanes[l + width]) for l in range(width)]
            total = lanes[0] if total is None else np.float32(total + lanes[0])
        expected.append(total)
    got = bn_reference.position_sums(rows, lambda out: np.copyto(out, rows))
    assert got.tobytes() == np.array(expected, np.float32).tobytes()


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_nhwc_forward_kernel_matches_reference_bit_for_bit(dtype, monkeypatch):
    from opemu.ops.mcdnn import bn_channels_last, bn_common
    rng = np.random.default_rng(23)
    shape = (3, 5, 2, 19)
    x = _special(rng, shape, dtype)
    x[..., 3] = (rng.standard_normal(shape[:3]) * 1.5 + 4000).astype(dtype)
    scale, bias, _ = _params(rng, shape[3])
    layout = bn_common.Layout((3, 19, 5, 2), True)

    def run():
        y = np.zeros_like(x)
        with np.errstate(all="ignore"):
            stats = bn_channels_last.forward(layout, _nhwc(x), _nhwc(y), scale, bias, 1e-5, np.dtype(dtype), 0.5, 0.0)
        return _bits(y, *stats)
    c_bits, ref_bits = _channels_last_both(monkeypatch, run)
    assert c_bits == ref_bits


@needs_kernels
@pytest.mark.parametrize("alias", ["x", "dy"])
def test_nhwc_backward_in_place_and_on_padded_rows_matches_reference(alias, monkeypatch):
    """Rows further apart than their channels (cut from wider rows), dx in place on x or dy."""
    from opemu.ops.mcdnn import bn_channels_last, bn_common
    rng = np.random.default_rng(29)
    wide_x = rng.standard_normal((2, 3, 3, 12)).astype(np.float32)
    wide_dy = rng.standard_normal((2, 3, 3, 12)).astype(np.float32)
    scale, mean, inv = _params(rng, 7)
    layout = bn_common.Layout((2, 7, 3, 3), True)

    def run():
        x, dy = wide_x.copy(), wide_dy.copy()
        out = x if alias == "x" else dy
        sums = bn_channels_last.backward(layout, _nhwc(x[..., 2:9]), _nhwc(dy[..., 2:9]), _nhwc(out[..., 2:9]),
                                         scale, mean, inv, 1e-5, np.dtype(np.float32), 1.0, 0.0)
        return _bits(x, dy, *sums)
    c_bits, ref_bits = _channels_last_both(monkeypatch, run)
    assert c_bits == ref_bits


@needs_kernels
@pytest.mark.parametrize("saved", [True, False], ids=["saved_statistics", "recomputed_statistics"])
def test_nhwc_walk_split_among_threads_gives_the_bits_of_one_thread(saved, monkeypatch):
    """The sums split by segments and the elementwise pass by rows among the workers: the split changes no bit
    (25 positions: segments of 16 and 9 rows, the last lane block short; the rows split 12 + 13)."""
    from opemu.core import parallel
    from opemu.ops.mcdnn import bn_channels_last, bn_common
    rng = np.random.default_rng(31)
    shape = (1, 5, 5, 40)
    x, dy = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
    scale, mean, inv = _params(rng, 40)
    layout = bn_common.Layout((1, 40, 5, 5), True)
    split = parallel.split
    results = []
    for workers, minimum in ((1, bn_common.PARALLEL_MIN), (2, 0)):
        counts = []
        monkeypatch.setattr(parallel, "split", lambda n, f, worth=True: (counts.append((n, worth)), split(n, f, worth)))
        monkeypatch.setattr(parallel, "WORKERS", workers)
        monkeypatch.setattr(bn_common, "PARALLEL_MIN", minimum)
        dx, y = np.zeros_like(x), np.zeros_like(x)
        sums = bn_channels_last.backward(layout, _nhwc(x), _nhwc(dy), _nhwc(dx), scale, mean if saved else None,
                                         inv if saved else None, 1e-5, np.dtype(np.float32), 1.0, 0.0)
        stats = bn_channels_last.forward(layout, _nhwc(x), _nhwc(y), scale, scale, 1e-5, np.dtype(np.float32), 1.0,
                                         0.0)
        assert {n for n, worth in counts if worth} == (set() if workers == 1 else {2, 25})
        results.append(_bits(dx, y, *sums, *stats))
    assert results[0] == results[1]


@needs_kernels
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_nhwc_streamed_outputs_off_alignment_match_reference(dtype, monkeypatch):
    """Rows of 37 channels written with stores that bypass the caches: a head up to 16-byte alignment,
    vectors and a tail in every row, the output starting off alignment."""
    from opemu.ops.mcdnn import bn_channels_last, bn_common
    rng = np.random.default_rng(37)
    shape = (2, 3, 2, 37)
    x, dy = _special(rng, shape, dtype), rng.standard_normal(shape).astype(dtype)
    scale, mean, inv = _params(rng, 37)
    layout = bn_common.Layout((2, 37, 3, 2), True)
    storage = np.zeros(x.size + 1, dtype)

    def run():
        monkeypatch.setattr(bn_common, "STREAM_BYTES", 0)
        out = storage[1:].reshape(shape)
        out[...] = 0
        with np.errstate(all="ignore"):
            sums = bn_channels_last.backward(layout, _nhwc(x), _nhwc(dy), _nhwc(out), scale, mean, inv, 1e-5,
                                             np.dtype(dtype), 1.0, 0.0)
            dx = out.copy()
            stats = bn_channels_last.forward(layout, _nhwc(x), _nhwc(out), scale, scale, 1e-5, np.dtype(dtype), 0.5,
                                             0.0)
        return _bits(dx, out, *sums, *stats)
    c_bits, ref_bits = _channels_last_both(monkeypatch, run)
    assert c_bits == ref_bits


@needs_kernels
def test_nhwc_scratch_size_is_refused_when_it_does_not_fit_an_int64():
    lib = kernels.lib()
    assert lib.opemu_kernel_bn_nhwc_scratch(64, 4) > 0
    assert lib.opemu_kernel_bn_nhwc_scratch(2 ** 61, 4) == -1
    assert lib.opemu_kernel_bn_nhwc_scratch(-1, 4) == -1
