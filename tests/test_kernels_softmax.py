"""The softmax kernels (csrc/kernels/softmax.c) against their NumPy references (ops/mcdnn/softmax.py forward,
backward): the same bits on random and special values, odd sizes, in place. The torch oracle tests
(test_mcdnn_ops.py) run with both OPEMU_KERNELS settings through test_kernels.py."""
import numpy as np
import pytest

import conftest
from opemu.core import kernels
from opemu.ops.mcdnn import softmax
from test_kernels import FLOATS, assert_same_bits, c_kernels, isa, special  # noqa: F401 (fixtures)

pytestmark = [conftest.opemu_only, pytest.mark.usefixtures("isa")]
DTYPE_IDS = {np.float32: "float32", np.float64: "float64"}


SHAPES = [(1, 1, 1), (2, 3, 5), (3, 17, 1), (2, 5, 7, 3), (2, 4, 4), (3, 7, 1031),
          (2, 64, 2100)]   # the last: channel mode walks its positions in blocks (L2_BLOCK_BYTES)


def pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    y = special(n, dtype, rng).reshape(shape)
    return y, special(n, dtype, rng).reshape(shape)


@pytest.mark.parametrize("dtype", FLOATS, ids=DTYPE_IDS.get)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("channel_mode", [False, True], ids=["instance", "channel"])
@pytest.mark.parametrize("log", [False, True], ids=["accurate", "log"])
def test_backward_is_bit_identical(log, channel_mode, shape, dtype):
    y, dy = pair(shape, dtype, len(shape) + shape[-1])
    dx = np.empty_like(y)
    with np.errstate(all="ignore"):
        assert softmax._kernel(log, channel_mode, y, dy, dx)
        expected = softmax.backward(log, channel_mode, y, dy)
    assert_same_bits(dx, expected.reshape(shape))


@pytest.mark.parametrize("streaming", [False, True], ids=["cached", "streamed"])
@pytest.mark.parametrize("pieces", [2, 3, 9])
@pytest.mark.parametrize("channel_mode", [False, True], ids=["instance", "channel"])
@pytest.mark.parametrize("log", [False, True], ids=["accurate", "log"])
def test_backward_shared_among_the_kernel_threads_is_bit_identical(log, channel_mode, pieces, streaming, monkeypatch):
    """The images cut into `pieces` parts on the C pool (csrc/kernels/pool.c), each with its own totals (9: more
    parts than the 7 images, which the pool then cuts into 7)."""
    if streaming:
        monkeypatch.setattr(kernels, "STREAM_BYTES", 0)
    y, dy = pair((7, 5, 301), np.float32, pieces)
    dx = np.empty_like(y)
    with np.errstate(all="ignore"):
        assert softmax._kernel(log, channel_mode, y, dy, dx, pieces)
        expected = softmax.backward(log, channel_mode, y, dy)
    assert_same_bits(dx, expected.reshape(y.shape))


ALGORITHMS = {"fast": 0, "accurate": 1, "log": 2}


@pytest.mark.parametrize("dtype", FLOATS, ids=DTYPE_IDS.get)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("channel_mode", [False, True], ids=["instance", "channel"])
@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_forward_is_bit_identical(algo, channel_mode, shape, dtype):
    x, _ = pair(shape, dtype, len(shape) * 7 + shape[-1])
    x[0] = -0.0   # a first image or position whose largest value may be a zero of either sign
    x.reshape(-1)[1::5] = 0.0
    y = np.empty_like(x)
    with np.errstate(all="ignore"):
        assert softmax._forward_kernel(ALGORITHMS[algo], channel_mode, x, y)
        expected = softmax.forward(ALGORITHMS[algo], channel_mode, x)
    assert_same_bits(y, expected.reshape(shape))


@pytest.mark.parametrize("channel_mode", [False, True], ids=["instance", "channel"])
@pytest.mark.parametrize("algo", ["fast", "accurate"])
def test_forward_in_place(algo, channel_mode):
    x, _ = pair((2, 6, 37), np.float32, 4)
    with np.errstate(all="ignore"):
        expected = softmax.forward(ALGORITHMS[algo], channel_mode, x)
        assert softmax._forward_kernel(ALGORITHMS[algo], channel_mode, x, x)
    assert_same_bits(x, expected.reshape(x.shape))


def test_log_forward_in_place_takes_the_reference():
    """LOG's second pass reads x again, so the kernel declines y == x (the reference makes its temporaries)."""
    x, _ = pair((2, 6, 37), np.float32, 4)
    assert not softmax._forward_kernel(ALGORITHMS["log"], True, x, x)


@pytest.mark.parametrize("over", ["y", "dy"])
@pytest.mark.parametrize("channel_mode", [False, True], ids=["instance", "channel"])
@pytest.mark.parametrize("log", [False, True], ids=["accurate", "log"])
def test_backward_in_place(log, channel_mode, over):
    y, dy = pair((2, 6, 37), np.float32, 3)
    with np.errstate(all="ignore"):
        expected = softmax.backward(log, channel_mode, y, dy)
        target = y if over == "y" else dy
        assert softmax._kernel(log, channel_mode, y, dy, target)
    assert_same_bits(target, expected.reshape(target.shape))


@pytest.mark.parametrize("offset", [0, 1, 5], ids=lambda o: "dx %d elements past a line" % o)
@pytest.mark.parametrize("channel_mode", [False, True], ids=["instance", "channel"])
@pytest.mark.parametrize("log", [False, True], ids=["accurate", "log"])
def test_backward_streamed_to_dx_off_line_alignment(log, channel_mode, offset, monkeypatch):
    """dx written by non-temporal lines (outputs past kernels.STREAM_BYTES): plain stores up to dx's first whole
    cache line and after its last, lines between; the same bits wherever dx starts."""
    monkeypatch.setattr(kernels, "STREAM_BYTES", 0)
    y, dy = pair((3, 7, 1031), np.float32, 13)
    storage = np.empty(y.size + 32, np.float32)
    start = (-storage.ctypes.data % 64) // 4 + offset
    dx = storage[start:start + y.size].reshape(y.shape)
    with np.errstate(all="ignore"):
        assert softmax._kernel(log, channel_mode, y, dy, dx)
        expected = softmax.backward(log, channel_mode, y, dy)
    assert_same_bits(dx, expected.reshape(y.shape))


def test_backward_leaves_strided_and_shifted_views_to_the_reference():
    y, dy = pair((2, 4, 64), np.float32, 5)
    assert not softmax._kernel(False, True, y[:, :, ::2], dy[:, :, ::2], np.empty((2, 4, 32), np.float32))
    base = np.zeros(2 * 4 * 64 + 1, np.float32)
    shifted = base[1:].reshape(y.shape)
    shifted[...] = dy
    assert not softmax._kernel(False, True, y, shifted, base[:-1].reshape(y.shape))
    assert not softmax._kernel(False, True, y.astype(np.float16), dy.astype(np.float16), np.empty(y.shape, np.float16))


@pytest.mark.parametrize("m", [1, 15, 16, 50])
def test_instance_sum_runs_in_lanes_then_across_them(m):
    """The reference's add.reduce down (blocks, 16) adds the blocks one after the other, each lane from its
    first block: the sum as scalar float32 operations in that order."""
    rng = np.random.default_rng(m)
    p = (rng.standard_normal(m) * 10 ** rng.uniform(-3, 3, m)).astype(np.float32)
    lanes = [p[k] if k < m else np.float32(0) for k in range(softmax.LANES)]
    for j in range(softmax.LANES, m, softmax.LANES):
        for k in range(softmax.LANES):
            lanes[k] = np.float32(lanes[k] + (p[j + k] if j + k < m else np.float32(0)))
    total = lanes[0]
    for k in range(1, softmax.LANES):
        total = np.float32(total + lanes[k])
    assert softmax._instance_totals(p.reshape(1, m))[0].tobytes() == total.tobytes()


def test_channel_sum_runs_down_the_channels_in_order():
    p = np.array([[[1e8], [1.0], [-1e8], [1.0]]], np.float32)  # (1e8 + 1) - 1e8 + 1 = 1 in float32, not 2
    assert softmax._channel_totals(p).ravel().tolist() == [1.0]
