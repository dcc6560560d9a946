"""The pooling and sampler C kernels (csrc/kernels/pooling.c, sampler.c) against their NumPy references,
compared as bytes: max-pooling backward's 3x3/2 walk (every padding, odd sizes, ties, special values,
strided views, windows left out), average-pooling backward, and the spatial transformer's sampler
forward and backward. The torch oracle tests of the ops (tests/test_mcdnn_*.py) pass with either choice."""
import numpy as np
import pytest

import conftest
from opemu.core import kernels, mcdnn
from opemu.ops.mcdnn import pooling
from opemu.ops.mcdnn import spatial_transformer as st
from test_kernels import assert_same_bits, isa, pooled, special  # noqa: F401 (isa: a fixture)

pytestmark = [conftest.opemu_only, pytest.mark.usefixtures("isa"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]  # the references meet NaN
FLOATS = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def c_kernels():
    if kernels.lib() is None:
        pytest.fail("the C kernels did not load (is the build in place?)")


def advised(size, window, stride, padding):
    return (size + 2 * padding - window) // stride + 1


def tied_input(shape, dtype, rng, nan=True):
    """Few distinct values (windows holding their max twice or more), special values mixed in; NaN only
    when `nan` (a NaN never wins a max without NaN propagation)."""
    x = rng.integers(-3, 4, size=shape).astype(dtype)
    x.reshape(-1)[::13] = special(x.size, dtype, rng)[::13]
    if not nan:
        x[np.isnan(x)] = 0
    return x


def max_backward_both_ways(x, window, stride, padding, out, rng, dx=None, pieces=1):
    """(the C kernel's dx, in `pieces` parts on the kernel threads, and the reference's) for max pooling x with
    outputs `out`."""
    pool, geometry, y = pooled(x, window, stride, padding, out)
    dy = special(y.size, x.dtype, rng).reshape(y.shape)
    dx = np.full_like(x, 7) if dx is None else dx
    assert pooling._c_max_backward(geometry, y, dy, x, dx, pieces)
    return dx, pooling.backward(pool, geometry, y, dy, x, x.shape, x.dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("padding", [(0, 0), (1, 1), (1, 0), (0, 1), (2, 2)])
@pytest.mark.parametrize("h, w", [(11, 8), (7, 13), (3, 3), (4, 5), (6, 9), (16, 16)])
def test_max_pool_3x3_stride_2_backward_is_bit_identical(h, w, padding, dtype):
    rng = np.random.default_rng(h * 100 + w * 10 + sum(padding))
    x = tied_input((2, 3, h, w), np.dtype(dtype), rng)
    out = tuple(advised(s, 3, 2, p) for s, p in zip((h, w), padding))
    assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), padding, out, rng))


@pytest.mark.parametrize("w", [29, 30, 31, 32, 34, 35, 56, 59, 60, 61, 62, 66, 67, 98])
@pytest.mark.parametrize("padding", [(1, 1), (0, 0)])
def test_max_pool_3x3_stride_2_backward_rows_of_several_window_blocks(w, padding):
    """Rows of more than one block of 15 windows (fp32 with AVX-512 walks a block at a time, each with the
    window before it, whose column 2 the block's first column is), a short last block, and rows of exactly 15
    or 30 windows, whose next block holds that window alone."""
    rng = np.random.default_rng(w + padding[0])
    x = tied_input((1, 2, 7, w), np.dtype(np.float32), rng)
    out = tuple(advised(s, 3, 2, p) for s, p in zip((7, w), padding))
    assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), padding, out, rng))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("h, w", [(1, 1), (1, 6), (2, 2), (5, 2)])
def test_max_pool_3x3_stride_2_backward_on_inputs_smaller_than_a_window(h, w, dtype):
    """Every window overlaps the padding (the fp32 walk's masked loads read NaN there, the scalar walk
    skips it)."""
    rng = np.random.default_rng(h * 10 + w)
    x = tied_input((2, 2, h, w), np.dtype(dtype), rng)
    out = (advised(h, 3, 2, 1), advised(w, 3, 2, 1))
    assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), (1, 1), out, rng))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("out", [(2, 3), (1, 1), (3, 2)])
def test_max_pool_3x3_stride_2_backward_with_fewer_outputs_than_advised(out, dtype):
    """Rows and columns that no window reaches get +0; the kernel writes them too."""
    rng = np.random.default_rng(sum(out))
    x = tied_input((1, 2, 9, 10), np.dtype(dtype), rng)
    assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), (1, 1), out, rng))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_max_pool_3x3_stride_2_backward_on_planes_past_64_kib(dtype):
    """Large planes: the scatter writes into dx itself (small planes into a scratch plane streamed to dx);
    the fp32 walk writes dx itself either way."""
    rng = np.random.default_rng(11)
    x = tied_input((1, 2, 131, 129), np.dtype(dtype), rng)
    assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), (1, 1), (66, 65), rng))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_max_pool_3x3_stride_2_backward_on_strided_views(dtype):
    rng = np.random.default_rng(5)
    storage = tied_input((3, 5, 20, 24), np.dtype(dtype), rng)
    x = storage[::2, 1:4, 3:16, 2:21]  # every other image, a channel slice, padded rows and columns
    target = np.full((2, 4, 15, 22), 9.0, dtype)
    dx = target[:, 1:, 1:14, 2:21]
    ours, reference = max_backward_both_ways(x, (3, 3), (2, 2), (1, 1), (7, 10), rng, dx)
    assert_same_bits(np.ascontiguousarray(ours), reference)
    untouched = np.ones(target.shape, bool)
    untouched[:, 1:, 1:14, 2:21] = False
    assert (target[untouched] == 9).all()


def test_max_pool_3x3_stride_2_backward_on_random_geometries():
    """Sizes, paddings 0-2 and output counts up to the advised ones, drawn at random: every block and edge
    arrangement the fp32 walk and the double scatter meet, against the reference. (Geometries whose windows
    leave input rows or columns unread reach the kernel trimmed, and inputs smaller than an unpadded window
    have no output; both are left out here.)"""
    rng = np.random.default_rng(123)
    checked = 0
    while checked < 150:
        h, w, ph, pw = (int(rng.integers(1, 40)), int(rng.integers(1, 100)), int(rng.integers(0, 3)),
                        int(rng.integers(0, 3)))
        most = advised(h, 3, 2, ph), advised(w, 3, 2, pw)
        if min(most) < 1:
            continue
        out = tuple(int(rng.integers(1, n + 1)) if rng.random() < 0.3 else n for n in most)
        pool = mcdnn.Struct(mode=0, nan=0, nbDims=2, window=(3, 3), stride=(2, 2), padding=(ph, pw))
        if not all(g.whole for g in pooling._geometries(pool, (1, 2, h, w), (1, 2) + out)):
            continue
        x = tied_input((1, 2, h, w), np.dtype(np.float32 if rng.random() < 0.8 else np.float64), rng)
        assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), (ph, pw), out, rng))
        checked += 1


def test_max_pool_3x3_stride_2_backward_sends_each_window_to_its_first_maximum():
    """All equal: every window's first element, in row-major order, takes its dy; overlapping windows add."""
    x = np.zeros((1, 1, 5, 5), np.float32)
    pool, geometry, y = pooled(x, (3, 3), (2, 2), (0, 0), (2, 2))
    dy = np.array([[[[1, 2], [4, 8]]]], np.float32)
    dx = np.empty_like(x)
    assert pooling._c_max_backward(geometry, y, dy, x, dx)
    expected = np.zeros((5, 5), np.float32)
    expected[0, 0], expected[0, 2], expected[2, 0], expected[2, 2] = 1, 2, 4, 8
    assert_same_bits(dx[0, 0], expected)


def sampler_grid(h, w, spread, dtype, rng):
    """A (h, w, 2) grid: coordinates in [-spread, spread] (past ±1: taps outside the input), with exact
    pixel centres, NaN, ±inf, huge values and ±0 mixed in."""
    grid = rng.uniform(-spread, spread, size=(h, w, 2)).astype(dtype)
    flat = grid.reshape(-1)
    extras = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 0.0, -0.0, 1.0, -1.0, 0.5], dtype)
    where = rng.choice(flat.size, size=min(flat.size, 2 * extras.size), replace=False)
    flat[where] = np.resize(extras, where.size)
    return grid


def sampler_both_ways(h, w, h_in, w_in, c, spread, dtype, seed, monkeypatch):
    """((dx, dgrid) of the C kernel, (dx, dgrid) of the reference) for one image."""
    rng = np.random.default_rng(seed)
    ct = np.dtype(dtype)
    taps = st._Taps(sampler_grid(h, w, spread, ct, rng), h_in, w_in, ct)
    x = special(c * h_in * w_in, ct, rng).reshape(c, h_in * w_in)
    dy = special(c * h * w, ct, rng).reshape(c, h * w)
    scale_x, scale_y = ct.type((w_in - 1) / 2), ct.type((h_in - 1) / 2)
    reference = st.backward_reference(taps, x, dy, scale_x, scale_y)
    monkeypatch.setattr(st, "backward_reference", None)  # the kernel must answer
    dx = np.full((c, h_in * w_in), 5, ct)
    dgrid = st.sampler_backward(taps, x, dy, dx, scale_x, scale_y)
    return (dx, dgrid), reference


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("h, w, h_in, w_in, c, spread", [
    (5, 7, 6, 4, 3, 1.2),      # some taps outside
    (9, 11, 3, 2, 5, 1.0),     # upsampling: many taps per input element
    (4, 3, 17, 19, 2, 0.3),    # downsampling a corner: most of dx untouched
    (1, 1, 1, 1, 1, 1.0),      # one pixel, one input (scale 0)
    (8, 8, 8, 8, 7, 3.0),      # mostly outside
])
def test_sampler_backward_is_bit_identical(h, w, h_in, w_in, c, spread, dtype, monkeypatch):
    ours, reference = sampler_both_ways(h, w, h_in, w_in, c, spread, dtype, h * w + c, monkeypatch)
    for got, expected in zip(ours, reference):
        assert_same_bits(got, expected)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("h, w, h_in, w_in, c, spread", [(5, 7, 6, 4, 3, 1.2), (9, 11, 3, 2, 5, 1.0),
                                                         (1, 1, 1, 1, 1, 1.0), (8, 8, 8, 8, 7, 3.0)])
def test_sampler_forward_is_bit_identical(h, w, h_in, w_in, c, spread, dtype, monkeypatch):
    rng = np.random.default_rng(h * w + c)
    ct = np.dtype(dtype)
    taps = st._Taps(sampler_grid(h, w, spread, ct, rng), h_in, w_in, ct)
    image = special(c * h_in * w_in, ct, rng).reshape(c, h_in, w_in)
    reference = np.ascontiguousarray(st.forward_reference(taps, image, ct).T)
    monkeypatch.setattr(st, "forward_reference", None)  # the kernel must answer
    y = np.full((c, h * w), 5, ct)
    st.sampler_forward(taps, image, y, ct)
    assert_same_bits(y, reference)


def test_sampler_backward_into_a_view_of_its_input_takes_the_reference():
    """dx over x (in place): the kernel would read what it already wrote; the reference reads x first."""
    rng = np.random.default_rng(2)
    ct = np.dtype(np.float32)
    taps = st._Taps(sampler_grid(4, 5, 1.1, ct, rng), 4, 5, ct)
    x = rng.standard_normal((3, 20)).astype(ct)
    dy = rng.standard_normal((3, 20)).astype(ct)
    expected = st.backward_reference(taps, x.copy(), dy, ct.type(2), ct.type(1.5))
    dgrid = st.sampler_backward(taps, x, dy, x, ct.type(2), ct.type(1.5))
    assert_same_bits(x, expected[0])
    assert_same_bits(dgrid, expected[1])


def average_both_ways(dy, x_shape, window, stride, padding, include, dx=None, pieces=1):
    """(the C kernel's dx, in `pieces` parts, and the reference's) for average pooling backward of dy onto
    x_shape."""
    ct = dy.dtype
    pool = mcdnn.Struct(mode=1 if include else 2, nan=0, nbDims=2, window=window, stride=stride, padding=padding)
    (geometry,) = pooling._geometries(pool, x_shape, dy.shape)
    assert geometry.whole
    counts = geometry.counts(include, ct)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, dy / counts, 0).astype(ct)
    reference = np.empty(x_shape, ct)
    pooling._Phases(geometry).average_backward(share, reference, ct)
    dx = np.full(x_shape, 7, ct) if dx is None else dx
    assert pooling._c_average_backward(geometry, counts, dy, dx, pieces)
    return dx, reference


AVERAGES = {  # window, stride, padding, input h, w
    "3x3/2 pad 1": ((3, 3), (2, 2), (1, 1), 11, 8),
    "2x2/2": ((2, 2), (2, 2), (0, 0), 9, 13),
    "3x2/1": ((3, 2), (1, 1), (1, 0), 6, 7),
    "2x2/3 pad 1": ((2, 2), (3, 3), (1, 1), 10, 9),
    "4x5/3 pad 2": ((4, 5), (3, 3), (2, 2), 13, 12),
    "5x5/1 pad 2": ((5, 5), (1, 1), (2, 2), 5, 6),
}


@pytest.mark.parametrize("include", [True, False], ids=["include pad", "exclude pad"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(AVERAGES))
def test_average_pool_backward_is_bit_identical(name, dtype, include):
    window, stride, padding, h, w = AVERAGES[name]
    rng = np.random.default_rng(h * w)
    out = tuple(advised(s, k, st, p) for s, k, st, p in zip((h, w), window, stride, padding))
    dy = special(2 * 3 * out[0] * out[1], np.dtype(dtype), rng, scale=3.0).reshape((2, 3) + out)
    assert_same_bits(*average_both_ways(dy, (2, 3, h, w), window, stride, padding, include))


def test_average_pool_backward_with_fewer_outputs_than_advised():
    rng = np.random.default_rng(8)
    dy = rng.standard_normal((1, 2, 2, 3)).astype(np.float32)
    assert_same_bits(*average_both_ways(dy, (1, 2, 9, 10), (3, 3), (2, 2), (1, 1), True))


def test_average_pool_backward_on_strided_views():
    rng = np.random.default_rng(9)
    dy = rng.standard_normal((3, 4, 7, 9)).astype(np.float64)[::2, 1:, :6, 1:8]
    target = np.full((2, 4, 14, 16), 3.0)
    dx = target[:, 1:, 1:12, 1:14]
    ours, reference = average_both_ways(dy, (2, 3, 11, 13), (3, 3), (2, 2), (1, 1), False, dx)
    assert_same_bits(np.ascontiguousarray(ours), reference)
    untouched = np.ones(target.shape, bool)
    untouched[:, 1:, 1:12, 1:14] = False
    assert (target[untouched] == 3).all()


def test_average_pool_backward_over_its_own_dy_takes_the_reference():
    """dx over dy: the kernel declines, the phase walk (which reads dy first) runs."""
    pool = mcdnn.Struct(mode=1, nan=0, nbDims=2, window=(1, 1), stride=(1, 1), padding=(0, 0))
    (geometry,) = pooling._geometries(pool, (1, 1, 4, 4), (1, 1, 4, 4))
    shared = np.ones((1, 1, 4, 4), np.float32)
    assert not pooling._c_average_backward(geometry, geometry.counts(True, np.dtype(np.float32)), shared, shared)


def test_one_image_is_split_by_planes_with_the_same_bits():
    """A batch of one (nothing for the batch split to share) runs its planes on the pool's threads."""
    rng = np.random.default_rng(12)
    x = tied_input((1, 8, 150, 130), np.dtype(np.float32), rng)
    assert_same_bits(*max_backward_both_ways(x, (3, 3), (2, 2), (1, 1), (75, 65), rng))
    dy = special(8 * 75 * 65, np.dtype(np.float32), rng).reshape(1, 8, 75, 65)
    assert_same_bits(*average_both_ways(dy, x.shape, (3, 3), (2, 2), (1, 1), True))


@pytest.mark.parametrize("pieces", [2, 3, 7])
@pytest.mark.parametrize("window, stride, padding", [((3, 3), (2, 2), (1, 1)), ((2, 2), (2, 2), (0, 0)),
                                                     ((3, 2), (1, 2), (1, 0))], ids=["3x3/2", "2x2/2", "3x2"])
def test_pool_backward_shared_among_the_kernel_threads_is_bit_identical(window, stride, padding, pieces):
    """The images x planes cut into `pieces` parts on the C pool (csrc/kernels/pool.c), parts crossing images,
    each part with scratch of its own."""
    rng = np.random.default_rng(pieces)
    x = tied_input((3, 5, 11, 9), np.float32, rng)
    out = tuple(advised(x.shape[2 + i], window[i], stride[i], padding[i]) for i in range(2))
    ours, expected = max_backward_both_ways(x, window, stride, padding, out, rng, pieces=pieces)
    assert_same_bits(ours, expected)
    dy = special(3 * 5 * out[0] * out[1], np.float32, rng).reshape((3, 5) + out)
    ours, expected = average_both_ways(dy, x.shape, window, stride, padding, True, pieces=pieces)
    assert_same_bits(ours, expected)
