"""GEMM through NumPy's own BLAS (opemu.core.blas) is bit-identical to its NumPy twin, matmul then add, and
the convolutions built on it give the bits of their NumPy references."""
import numpy as np
import pytest

from opemu.core import blas
from opemu.ops.mcdnn import conv_kernel

pytestmark = pytest.mark.skipif(not blas.available(np.float32),
                                reason="NumPy's BLAS is not the bundled OpenBLAS: the references run")

DTYPES = [np.float32, np.float64]


def _special(rng, shape, dtype):
    values = rng.standard_normal(shape).astype(dtype)
    flat = values.reshape(-1)
    picks = rng.choice(flat.size, size=max(1, flat.size // 50), replace=False)
    flat[picks] = rng.choice(np.array([0.0, -0.0, 1e-40, -1e-40, 3.0e38, 1.0], dtype), size=picks.size)
    return values


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inner", [1, 3, 64, blas.K_BLOCK])
def test_gemm_adding_into_c_is_matmul_then_add(dtype, inner):
    rng = np.random.default_rng(inner)
    a = _special(rng, (37, inner), dtype)
    grid = _special(rng, (inner + 4, 1200), dtype)
    b = grid[2:2 + inner, 5:1105]                      # a window of a larger buffer, used in place
    c = _special(rng, (37, 1100), dtype)
    expected = c.copy()
    blas.gemm(a, b, c, accumulate=True)
    blas.reference(a, b, expected, accumulate=True)
    assert c.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_on_a_transposed_window_is_matmul(dtype):
    rng = np.random.default_rng(7)
    a = _special(rng, (19, 3001), dtype)
    grid = _special(rng, (23, 3100), dtype)
    b = grid[:, 40:3041].T
    c = np.full((19, 23), np.nan, dtype)
    blas.gemm(a, b, c, accumulate=False)
    assert c.tobytes() == np.matmul(a, b).tobytes()


def test_gemm_refuses_operands_that_do_not_fit():
    with pytest.raises(ValueError):
        blas.gemm(np.ones((4, 3)), np.ones((3, 4), np.float32), np.empty((4, 4), np.float32), accumulate=False)
    with pytest.raises(ValueError):
        blas.gemm(np.ones((4, 3), np.float32), np.ones((2, 4), np.float32), np.empty((4, 4), np.float32),
                  accumulate=False)
    with pytest.raises(ValueError):
        blas.gemm(np.ones((4, 3), np.float32), np.ones((3, 4), np.float32), np.empty((4, 4), np.float32).T,
                  accumulate=False)


def test_gemm_refuses_an_operand_without_a_unit_stride():
    a = np.ones((4, 8), np.float32)[:, ::2]
    with pytest.raises(ValueError):
        blas.gemm(a, np.ones((4, 4), np.float32), np.empty((4, 4), np.float32), accumulate=False)


GEOMETRIES = {   # x shape, w shape, pad, dilation, groups
    "3x3": ((3, 5, 9, 8), (6, 5, 3, 3), (1, 1), (1, 1), 1),
    "5x3 dilated": ((2, 4, 11, 10), (3, 4, 5, 3), (2, 1), (2, 3), 1),
    "grouped": ((2, 6, 7, 7), (9, 2, 3, 3), (1, 1), (1, 1), 3),
    "one output per group": ((2, 6, 7, 7), (3, 2, 3, 3), (1, 1), (1, 1), 3),
    "one input per group": ((2, 3, 7, 7), (6, 1, 3, 3), (1, 1), (1, 1), 3),
    "channels past one block": ((2, blas.K_BLOCK + 3, 5, 6), (4, blas.K_BLOCK + 3, 3, 2), (1, 0), (1, 1), 1),
    "3-D": ((2, 3, 5, 6, 4), (4, 3, 3, 2, 3), (1, 0, 1), (1, 1, 1), 1),
}


def _both(compute, monkeypatch):
    """compute() through the BLAS path, then through the NumPy references."""
    fast = compute()
    monkeypatch.setattr(blas, "_gemms", {})
    return fast, compute()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", GEOMETRIES, ids=list(GEOMETRIES))
def test_grid_convolution_is_bit_identical_to_its_reference(case, dtype, monkeypatch):
    x_shape, w_shape, pad, dilation, groups = GEOMETRIES[case]
    ones = (1,) * len(pad)
    g = conv_kernel.Geometry(x_shape, w_shape, pad, ones, dilation, groups, False)
    ct = np.dtype(dtype)
    rng = np.random.default_rng(11)
    x, w = _special(rng, x_shape, dtype), _special(rng, w_shape, dtype)
    dy = _special(rng, (x_shape[0], w_shape[0]) + g.out, dtype)
    monkeypatch.setattr(conv_kernel, "CHUNK_BYTES", 1)   # one image per chunk: the chunks' sums are exercised
    wmat = conv_kernel.weights(w, g, ct)

    def compute():
        scratch = conv_kernel.Scratch(g, ct)
        assert isinstance(scratch, conv_kernel.GridScratch)
        y = np.concatenate([np.array(conv_kernel.forward_chunk(x[lo:hi], wmat, g, scratch))
                            for lo, hi in conv_kernel.chunks(g, scratch)])
        dx = np.concatenate([np.array(conv_kernel.backward_data_chunk(dy[lo:hi], wmat, g, scratch))
                             for lo, hi in conv_kernel.chunks(g, scratch)])
        dw = conv_kernel.backward_filter(lambda lo, hi: (x[lo:hi], dy[lo:hi]), g,
                                         conv_kernel.Scratch(g, ct, filter_gradient=True), ct)
        return y.tobytes(), dx.tobytes(), dw.tobytes()

    fast, reference = _both(compute, monkeypatch)
    assert fast == reference
