"""The depthwise convolution kernels (csrc/kernels/depthwise.c) against their NumPy references, compared as
bytes: the taps on the padded grid; the forward and backward data read straight from the images against the
grid's sums (padding of every width, dilation, 1-D to 3-D, rows past one block, strided batches, results
written in place or returned); and the filter gradient's lanes, which do not depend on the chunking. The
torch oracle tests (tests/test_mcdnn_convolution.py) pass with either choice."""
import numpy as np
import pytest

import conftest
from opemu.ops.mcdnn import conv_depthwise, conv_kernel
from test_kernels import FLOATS, assert_same_bits, c_kernels, isa, reference_only, special  # noqa: F401 (fixtures)

pytestmark = [conftest.opemu_only, pytest.mark.usefixtures("isa"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning")]  # the references meet NaN


GRID = {"3x3 on a 7x7 grid": ([0, 1, 2, 7, 8, 9, 14, 15, 16], 41), "1x5 dilated": ([0, 2, 4, 6, 8], 16),
        "one tap, odd length": ([3], 37),
        # rows walked in several blocks of positions, the last one partial
        "3x3 on a 58-wide grid": ([0, 1, 2, 58, 59, 60, 116, 117, 118], 2500)}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(GRID))
def test_depthwise_taps_on_the_grid_are_bit_identical(name, dtype, reference_only):
    offsets, m = GRID[name]
    rng, rows = np.random.default_rng(m), 5
    operand = np.full((rows, m + max(offsets) + 7), 9, dtype)[:, 2:]   # strided rows, a shifted start
    operand[:, :m + max(offsets)] = special(rows * (m + max(offsets)), dtype, rng).reshape(rows, -1)
    w = special(rows * len(offsets), dtype, rng).reshape(rows, -1)
    results = []
    for numpy in (False, True):
        reference_only(numpy)
        out = np.full((rows, m + 3), 7, dtype)[:, 1:m + 1]   # strided rows: only the m positions written
        conv_depthwise.depthwise_taps(w, operand, np.array(offsets, np.int64), out)
        results.append(out.copy())
    assert_same_bits(*results)


DIRECT = {   # x shape, window, pad, dilation
    "3x3, rows of 21": ((2, 3, 9, 21), (3, 3), (1, 1), (1, 1)),
    "5x3 dilated, uneven padding": ((2, 4, 11, 10), (5, 3), (2, 1), (2, 3)),
    "padding wider than the window": ((2, 2, 6, 7), (1, 1), (2, 3), (1, 1)),
    "rows past one block": ((1, 2, 3, 1100), (3, 3), (1, 1), (1, 1)),
    "1-D": ((2, 3, 40), (5,), (2,), (1,)),
    "3-D": ((2, 3, 5, 6, 7), (3, 3, 3), (1, 0, 1), (1, 1, 1)),
    # 49 taps: a block of outputs sums them in two groups, the second adding to what the first wrote
    "7x7, taps past one group": ((2, 2, 10, 19), (7, 7), (3, 2), (1, 1)),
}


def _geometry(case):
    x_shape, window, pad, dilation = DIRECT[case]
    c = x_shape[1]
    return conv_kernel.Geometry(x_shape, (c, 1) + window, pad, (1,) * len(pad), dilation, c, False)


def _finite_filter(g, dtype, rng):
    w = special(g.k * g.rs, dtype, rng)
    w[~np.isfinite(w)] = 2.0   # a non-finite filter keeps the grid's forward and the columns' backward data
    return w.reshape(g.k, 1, g.rs)


def _grid_and_direct(run, source, w, g, dtype, reference_only, monkeypatch, target=None):
    """run's chunk through the grid's NumPy reference, then straight from the images (the grid refused)."""
    reference_only(True)
    scratch = conv_kernel.Scratch(g, np.dtype(dtype))
    on_grid = np.array(run(source, w, g, scratch))
    reference_only(False)
    monkeypatch.setattr(conv_kernel, "grid_pass", lambda *a: pytest.fail("the grid ran"))
    direct = run(source, w, g, conv_kernel.Scratch(g, np.dtype(dtype)), target)
    monkeypatch.undo()
    return on_grid, direct


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", DIRECT, ids=list(DIRECT))
@pytest.mark.parametrize("into", ["returned", "written into the output"])
def test_depthwise_forward_and_backward_data_from_the_images_are_the_grids_sums(case, dtype, into, reference_only,
                                                                                 monkeypatch):
    g = _geometry(case)
    rng = np.random.default_rng(len(case))
    w = _finite_filter(g, dtype, rng)
    x = special(g.n * g.c * np.prod(g.spatial), dtype, rng).reshape((g.n, g.c) + g.spatial)
    dy = special(g.n * g.k * np.prod(g.out), dtype, rng).reshape((g.n, g.k) + g.out)
    for run, source, shape in ((conv_kernel.forward_chunk, x, dy.shape),
                               (conv_kernel.backward_data_chunk, dy, x.shape)):
        target = np.full(shape, 7, dtype) if into == "written into the output" else None
        on_grid, direct = _grid_and_direct(run, source, w, g, dtype, reference_only, monkeypatch, target)
        if target is None:
            assert_same_bits(direct, on_grid)
        else:
            assert direct is None
            assert_same_bits(target, on_grid)


def test_depthwise_from_every_other_image_of_a_batch_into_its_own_input(reference_only, monkeypatch):
    """A strided batch is read where it lies; an output that is the input itself gets the result returned
    (the sums read neighbours the kernel would have overwritten), the input left as it was."""
    g = _geometry("3x3, rows of 21")
    rng = np.random.default_rng(3)
    w = _finite_filter(g, np.float32, rng)
    batch = special(2 * g.n * g.c * np.prod(g.spatial), np.float32, rng).reshape((2 * g.n, g.c) + g.spatial)
    x = batch[::2]
    before = x.copy()
    on_grid, direct = _grid_and_direct(conv_kernel.forward_chunk, x, w, g, np.float32, reference_only, monkeypatch,
                                       target=x)
    assert direct is not None
    assert_same_bits(direct, on_grid)
    assert_same_bits(x, before)


def _filter_operands(case, dtype, seed):
    g = _geometry(case)
    rng = np.random.default_rng(seed)
    x = special(2 * g.n * g.c * np.prod(g.spatial), dtype, rng, scale=1e3).reshape((2 * g.n, g.c) + g.spatial)[::2]
    dy = special(g.n * g.k * np.prod(g.out), dtype, rng, scale=1e3).reshape((g.n, g.k) + g.out)
    return g, x, dy   # large terms: the order shows; x a strided batch


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", DIRECT, ids=list(DIRECT))
def test_depthwise_filter_lanes_are_bit_identical(case, dtype, reference_only):
    g, x, dy = _filter_operands(case, dtype, len(case) + 1)
    results = []
    for numpy in (False, True):
        reference_only(numpy)
        lanes = special(g.c * g.rs * conv_depthwise.LANES, dtype, np.random.default_rng(0)).reshape(g.c, g.rs, -1)
        conv_depthwise.filter_lanes(x, dy, g, lanes)   # carried in: the lanes of an earlier chunk
        results.append(lanes)
    assert_same_bits(*results)


@pytest.mark.parametrize("numpy", [False, True], ids=["C", "NumPy"])
def test_depthwise_filter_gradient_does_not_depend_on_the_chunking(numpy, reference_only):
    g, x, dy = _filter_operands("5x3 dilated, uneven padding", np.float32, 5)
    x, dy = np.nan_to_num(x), np.nan_to_num(dy)
    reference_only(numpy)
    whole = np.zeros((g.c, g.rs, conv_depthwise.LANES), np.float32)
    conv_depthwise.filter_lanes(x, dy, g, whole)
    by_image = np.zeros_like(whole)
    for n in range(g.n):
        conv_depthwise.filter_lanes(x[n:n + 1], dy[n:n + 1], g, by_image)
    assert_same_bits(conv_depthwise.filter_total(by_image), conv_depthwise.filter_total(whole))


def test_depthwise_forward_with_an_infinite_tap_multiplies_the_padding_as_the_columns_do():
    """A non-finite filter keeps the grid's forward, whose padding terms are w * 0: NaN where the infinite tap
    reads padding, inf where it reads the image (what the GEMM on im2col columns gives)."""
    g = _geometry("3x3, rows of 21")
    x = np.ones((g.n, g.c) + g.spatial, np.float32)
    w = np.ones((g.k, 1, g.rs), np.float32)
    w[:, 0, 0] = np.inf   # the top-left tap: it reads padding for the first output row and column
    y = np.array(conv_kernel.forward_chunk(x, w, g, conv_kernel.Scratch(g, np.dtype(np.float32))))
    assert np.isnan(y[:, :, 0, :]).all() and np.isnan(y[:, :, :, 0]).all()
    assert np.isposinf(y[:, :, 1:, 1:]).all()
