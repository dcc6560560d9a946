"""The vocab-parallel cross-entropy epilogues (csrc/kernels/cross_entropy.c) and weight-chunk widening
(csrc/kernels/transpose.c) against their NumPy references (ops/aclnn/_vocab_parallel.py online_statistics,
gradient_reference, to_f32_transposed): the same bits on random and special values, odd widths, row pitches
wider than the tile, bf16 and fp16 rounding, and the operators whole with the kernels and with the
references alone."""
import ml_dtypes
import numpy as np
import pytest

import conftest
import opemu.api
from opemu.core import bf16_product, kernels, parallel
from opemu.ops.aclnn.matmul import vocab_parallel as vp, vocab_products as vpp
from test_kernels import assert_same_bits, available_levels, c_kernels, isa, special  # noqa: F401 (fixtures)

pytestmark = [conftest.opemu_only, pytest.mark.usefixtures("isa")]
BF16, FP16 = np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)
WIDTHS = [1, 7, 16, 33, 256, 512]


def tile(rows, columns, seed, pitch=0, scale=4.0):
    """A rows × columns fp32 view with special values mixed in, inside rows `pitch` elements wider."""
    rng = np.random.default_rng(seed)
    whole = special(rows * (columns + pitch), np.float32, rng, scale).reshape(rows, columns + pitch)
    return whole[:, :columns]


def running(rows, seed, first):
    """Running statistics as the first tile finds them (-inf, 0) or as a later tile does."""
    if first:
        return np.full(rows, -np.inf, np.float32), np.zeros(rows, np.float32)
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(rows) * 4).astype(np.float32), rng.uniform(1, 500, rows).astype(np.float32)


def rounding_scratch(size):
    return np.empty(size, np.uint32)


@pytest.mark.parametrize("half", [BF16, FP16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("shape", [(256, 256), (48, 16), (17, 33), (1, 5), (100, 300)])
@pytest.mark.parametrize("strided", [False, True], ids=["dense", "strided rows, wider target pitch"])
def test_weight_chunk_widened_transposed_is_bit_identical(half, shape, strided):
    """to_f32_transposed's kernel (csrc/kernels/transpose.c) against NumPy's cast through the transposed view:
    256 × 256 holds every bit pattern once (NaN payloads, subnormals, ±0, ±inf); 48 × 16 is whole 16 × 16
    tiles, the others leave edges."""
    rows, columns = shape
    bits = np.arange(65536, dtype=np.uint16) if shape == (256, 256) else \
        np.random.default_rng(rows * columns).integers(0, 65536, rows * (columns + 3), dtype=np.uint16)
    source = bits.view(half).reshape(rows, -1)
    source = source[:, 3:] if strided else source
    target = np.full((source.shape[1], rows + (7 if strided else 0)), 7, np.float32)[:, :rows]
    reference = np.empty_like(target)
    np.copyto(reference.T, source, casting="unsafe")
    assert vp.to_f32_transposed(source, target) is target
    assert np.array_equal(target.view(np.uint32), reference.view(np.uint32))


@pytest.mark.parametrize("first", [True, False], ids=["first tile", "later tile"])
@pytest.mark.parametrize("half", [None, BF16, FP16], ids=["fp32", "bf16", "fp16"])
@pytest.mark.parametrize("pitch", [0, 5])
@pytest.mark.parametrize("columns", WIDTHS)
def test_online_step_is_bit_identical(columns, pitch, half, first):
    rows = 37
    ours = tile(rows, columns, columns + pitch, pitch)
    scratch = np.empty(rows * columns, np.uint32 if half == BF16 else np.float16)
    reference = ours.copy() if half is None else _rounded(ours.copy(), half, scratch)
    ours_max, ours_sum = running(rows, columns, first)
    ref_max, ref_sum = ours_max.copy(), ours_sum.copy()
    # targets before, inside and past the tile, whose first column is the shard's column 5
    target = np.random.default_rng(columns).integers(-1, columns + 8, rows) + 3
    ours_picked, ref_picked = np.full(rows, 7, np.float32), np.full(rows, 7, np.float32)
    with np.errstate(all="ignore"):
        vp.online_step(ours, ours_max, ours_sum, half, scratch, target, 5, ours_picked)
        vp._pick(reference, target, 5, ref_picked)
        vp.online_statistics(reference, ref_max, ref_sum)
    assert_same_bits(np.ascontiguousarray(ours), reference)
    assert_same_bits(ours_max, ref_max)
    assert_same_bits(ours_sum, ref_sum)
    assert_same_bits(ours_picked, ref_picked)


def _rounded(values, half, scratch):
    values = np.ascontiguousarray(values)
    vp._round(values, half, scratch)
    return values


def test_online_step_on_a_full_tile_is_bit_identical():
    rows, columns = 1027, 512
    ours = tile(rows, columns, 11, scale=20.0)
    reference = _rounded(ours.copy(), BF16, rounding_scratch(ours.size))
    ours_max, ours_sum = running(rows, 3, False)
    ref_max, ref_sum = ours_max.copy(), ours_sum.copy()
    with np.errstate(all="ignore"):
        vp.online_step(ours, ours_max, ours_sum, BF16, rounding_scratch(ours.size))
        vp.online_statistics(reference, ref_max, ref_sum)
    assert_same_bits(ours, reference)
    assert_same_bits(ours_max, ref_max)
    assert_same_bits(ours_sum, ref_sum)


@pytest.mark.parametrize("half", [None, BF16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("columns", WIDTHS + [129, 300, 511])
def test_online_step_on_rows_without_special_values_is_bit_identical(columns, half):
    """Rows of finite logits spanning less than 87 take the kernel's one pass of exps summed as made; rows
    with a logit 86 to 88 below the maximum sit on either side of that pass's bound. Both give the bits."""
    rows = 40
    rng = np.random.default_rng(columns)
    ours = (rng.standard_normal((rows, columns)) * rng.uniform(0.1, 12, (rows, 1))).astype(np.float32)
    edge = rng.integers(0, columns, rows)
    ours[np.arange(rows), edge] = ours.max(axis=1) - rng.uniform(86, 88, rows).astype(np.float32)
    ours[::7] = np.abs(ours[::7])   # and rows whose smallest logit is +0 or more
    scratch = rounding_scratch(ours.size)
    reference = ours.copy() if half is None else _rounded(ours.copy(), half, scratch)
    for first in (True, False):
        ours_max, ours_sum = running(rows, columns, first)
        ref_max, ref_sum = ours_max.copy(), ours_sum.copy()
        vp.online_step(ours, ours_max, ours_sum, half, scratch)
        vp.online_statistics(reference, ref_max, ref_sum)
        assert_same_bits(ours, reference)
        assert_same_bits(ours_max, ref_max)
        assert_same_bits(ours_sum, ref_sum)


def test_online_maximum_of_a_zero_row_is_plus_zero():
    """Whichever zero the max reduction keeps, the running maximum holds +0 (the kernel adds +0 as the
    reference does); the sum counts every exp(0) = 1."""
    logits = np.array([[-0.0, -0.0, -1.0], [0.0, -0.0, -0.0]], np.float32)
    for run in (lambda m, s: vp.online_step(logits.copy(), m, s, None, None), lambda m, s: vp.online_statistics(
            logits.copy(), m, s)):
        m, s = running(2, 0, True)
        run(m, s)
        assert m.view(np.uint32).tolist() == [0, 0]
        assert s[1] == 3


def test_online_step_wider_than_the_kernel_takes_the_reference():
    columns = kernels.lib().OPEMU_EPILOGUE_COLUMNS + 1
    assert kernels.lib().opemu_kernel_online_max_sum(kernels.float_pointer(np.zeros((1, columns), np.float32)), 1,
                                                     columns, columns, 0, kernels.float_pointer(np.zeros(1, np.float32)),
                                                     kernels.float_pointer(np.zeros(1, np.float32)), kernels.null(), 0,
                                                     kernels.null()) == -1
    ours, reference = tile(3, columns, 2), tile(3, columns, 2)
    ours_max, ours_sum = running(3, 1, False)
    ref_max, ref_sum = ours_max.copy(), ours_sum.copy()
    with np.errstate(all="ignore"):
        vp.online_step(ours, ours_max, ours_sum, None, None)
        vp.online_statistics(reference, ref_max, ref_sum)
    assert_same_bits(ours_sum, ref_sum)


def gradient_operands(rows, columns, seed, softmax_given):
    rng = np.random.default_rng(seed)
    softmax = tile(rows, columns, seed + 1, pitch=3, scale=0.3) if softmax_given else None
    maximum = None if softmax_given else special(rows, np.float32, rng)
    reciprocal = None if softmax_given else rng.uniform(1e-4, 1, rows).astype(np.float32)
    target = rng.integers(-1, columns + 2, rows).astype(np.int64)   # -1 and past the tile: no target column
    target[:2] = [0, columns - 1]
    grad = special(rows, np.float32, rng)
    return softmax, maximum, reciprocal, target, grad


@pytest.mark.parametrize("half", [BF16, FP16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("softmax_given", [False, True], ids=["memory-saving", "high-performance"])
@pytest.mark.parametrize("columns", WIDTHS)
def test_gradient_tile_is_bit_identical(columns, softmax_given, half):
    rows = 150   # past two SLAB_ROWS slabs
    ours = tile(rows, columns, columns, pitch=2)
    reference = ours.copy()
    operands = gradient_operands(rows, columns, columns, softmax_given)
    scratch = np.empty(vp.SLAB_ROWS * columns, np.uint32 if half == BF16 else np.float16)
    with np.errstate(all="ignore"):
        vp.gradient_tile(ours, *operands, half, scratch)
        vp.gradient_reference(reference, *operands, half, scratch)
    assert_same_bits(ours, reference)


def test_gradient_tile_over_a_strided_softmax_takes_the_reference():
    rows, columns = 4, 16
    softmax = np.ascontiguousarray(tile(rows, 2 * columns, 1, scale=0.3))[:, ::2]
    _, _, _, target, grad = gradient_operands(rows, columns, 3, True)
    ours, reference = np.zeros((rows, columns), np.float32), np.zeros((rows, columns), np.float32)
    scratch = rounding_scratch(vp.SLAB_ROWS * columns)
    vp.gradient_tile(ours, softmax, None, None, target, grad, BF16, scratch)
    vp.gradient_reference(reference, softmax, None, None, target, grad, BF16, scratch)
    assert_same_bits(ours, reference)


def shard(bt=70, h=48, v=700, seed=0):
    """A shard's operands: more rows than a tile holds when the tile is small, a vocabulary past one chunk."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((bt, h)) * 0.5).astype(ml_dtypes.bfloat16)
    w = (rng.standard_normal((v, h)) * 0.3).astype(ml_dtypes.bfloat16)
    target = rng.integers(-50, v + 50, bt).astype(np.int64)
    return x, w, target


def online_max_sum(x, w, target):
    bt, v = x.shape[0], w.shape[0]
    outs = dict(logitsMaxLocalOut=np.zeros(bt, np.float32), sumExpLogitsLocalOut=np.zeros(bt, np.float32),
                predictedLogitsLocalOut=np.zeros(bt, np.float32), targetMaskOut=np.zeros((bt + 7) // 8, np.uint8),
                maskedTargetOut=np.zeros(bt, np.int64), vocabParallelLogitsOutOptional=np.zeros((bt, v), x.dtype))
    opemu.api.call("aclnnFusedLinearOnlineMaxSum", input=x, weight=w, target=target, vocabStartIndex=0,
                   vocabEndIndex=v, **outs)
    return outs


def loss_grad(x, w, stats, softmax, **given_outs):
    bt, h = x.shape
    outs = {**dict(inputGradOut=np.zeros((bt, h), x.dtype), weightGradOut=np.zeros(w.shape, x.dtype)), **given_outs}
    opemu.api.call("aclnnFusedLinearCrossEntropyLossGrad", grad=np.full(bt, 1.0 / bt, np.float32), input=x, weight=w,
                   targetMask=stats["targetMaskOut"], maskedTarget=stats["maskedTargetOut"], labelSmoothing=0.0,
                   logitsMaxOptional=stats["logitsMaxLocalOut"], sumExpLogitsOptional=stats["sumExpLogitsLocalOut"],
                   softmaxOptional=softmax, **outs)
    return outs


def pipeline(x, w, target, softmax_given):
    """Every output of FusedLinearOnlineMaxSum and then FusedLinearCrossEntropyLossGrad on one shard."""
    stats = online_max_sum(x, w, target)
    softmax = None
    if softmax_given:
        logits = x.astype(np.float32) @ w.astype(np.float32).T
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        softmax = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return {**stats, **loss_grad(x, w, stats, softmax)}


def assert_same_outputs(ours, theirs):
    for name, value in ours.items():
        assert np.asarray(value).tobytes() == np.asarray(theirs[name]).tobytes(), name


@pytest.mark.parametrize("softmax_given", [False, True], ids=["memory-saving", "high-performance"])
def test_operators_give_the_same_bits_with_the_kernels_and_the_references(monkeypatch, softmax_given):
    monkeypatch.setattr(vp, "TILE_ELEMENTS", 512 * 16)   # several row blocks, so several tiles per chunk
    x, w, target = shard()
    results = []
    for use_c in (True, False):
        monkeypatch.setattr(kernels, "USE_C", use_c)
        results.append(pipeline(x, w, target, softmax_given))
    assert_same_outputs(*results)


@pytest.mark.parametrize("softmax_given", [False, True], ids=["memory-saving", "high-performance"])
def test_operators_give_the_same_bits_on_one_lane_and_on_several(monkeypatch, softmax_given):
    """The lanes split rows, and dw's columns in fixed halves: the bits do not depend on the thread count.
    Two row blocks and a partial last chunk, so every lane has work and every half a partial width."""
    x, w, target = shard(bt=600, h=40, v=1300, seed=3)
    results = []
    for workers in (1, 2, 3):
        monkeypatch.setattr(parallel, "WORKERS", workers)
        results.append(pipeline(x, w, target, softmax_given))
    for other in results[1:]:
        assert_same_outputs(results[0], other)


@pytest.mark.parametrize("softmax_given", [False, True], ids=["memory-saving", "high-performance"])
def test_bf16_operators_do_not_depend_on_the_row_blocks_or_the_weight_grad_pieces(monkeypatch, softmax_given):
    """Each element of a bf16 product is one chain whatever rows or columns share its tile: blocks of 12 rows and
    weightGrad pieces of 12 columns give the bits of 252 and 96."""
    x, w, target = shard(bt=100, h=40, v=1100, seed=4)
    results = []
    for rows, columns in ((252, 96), (12, 12)):
        monkeypatch.setattr(vpp, "PAIRED_BLOCK_ROWS", rows)
        monkeypatch.setattr(vpp, "WEIGHT_GRAD_PIECE", columns)
        results.append(pipeline(x, w, target, softmax_given))
    assert_same_outputs(*results)


@pytest.mark.parametrize("scale", [1.0, 2.0 ** -128, 2.0 ** 50], ids=["normal", "subnormal inputs and products",
                                                                     "large products"])
def test_bf16_operators_give_the_same_bits_on_every_tile_and_with_the_references(monkeypatch, scale):
    """Every instruction-set level's tiles flush as the references do, in the operators too: rows scaled into the
    subnormals (the first lane's, and part of the second's) make products flush."""
    x, w, target = shard(bt=80, h=40, v=700, seed=5)
    x[:50] = (x[:50].astype(np.float32) * scale).astype(BF16)
    results = []
    for level in available_levels():
        with kernels.isa_ceiling(level):
            results.append(pipeline(x, w, target, False))
    monkeypatch.setattr(kernels, "USE_C", False)
    results.append(pipeline(x, w, target, False))
    for other in results[1:]:
        assert_same_outputs(results[0], other)


def test_bf16_weight_grad_is_the_same_in_an_output_whose_elements_are_strided():
    """The kernel rounds weightGrad straight into an output whose elements lie side by side; any other output
    takes it through the lane's fp32 buffer and a cast, to the same bits."""
    x, w, target = shard(bt=80, h=40, v=700, seed=6)
    stats = online_max_sum(x, w, target)
    dense = loss_grad(x, w, stats, None)["weightGradOut"]
    strided = np.full((w.shape[0], 2 * w.shape[1]), np.nan, BF16)[:, ::2]
    loss_grad(x, w, stats, None, weightGradOut=strided)
    assert strided.tobytes() == dense.tobytes()


def test_bf16_weight_grad_into_an_output_whose_rows_overlap_completes():
    """An output described with a row stride of 0 (every row the same memory) takes the buffer and the cast, as
    NumPy writes it, instead of the kernel, which needs rows apart: the call completes, inputGrad as ever."""
    x, w, target = shard(bt=80, h=40, v=700, seed=6)
    stats = online_max_sum(x, w, target)
    dense = loss_grad(x, w, stats, None)
    overlapping = np.lib.stride_tricks.as_strided(np.zeros((1, w.shape[1]), BF16), w.shape, (0, 2))
    outs = loss_grad(x, w, stats, None, weightGradOut=overlapping)
    assert outs["inputGradOut"].tobytes() == dense["inputGradOut"].tobytes()
