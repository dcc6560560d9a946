"""The C kernels (csrc/kernels/) against their NumPy references: bit-identical results on random and
special values (NaN with payloads, ±0, ±inf, subnormals, ties), odd sizes, strided and in-place views;
and the oracle tests of the ops they serve passing with the references alone (OPEMU_KERNELS=numpy)."""
import contextlib
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import conftest
import opemu.api
from opemu.core import kernels, mcdnn
from opemu.core.mcdnn import ACTIVATION as M
from opemu.ops.mcdnn import activation, pooling

pytestmark = conftest.opemu_only
BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.fixture(autouse=True)
def c_kernels():
    if kernels.lib() is None:
        pytest.fail("the C kernels did not load (is the build in place?)")


@pytest.fixture
def reference_only(monkeypatch):
    """Runs the code under test with OPEMU_KERNELS=numpy's choice."""
    def use(numpy):
        monkeypatch.setattr(kernels, "USE_C", not numpy)
    return use


# what each instruction-set level's paths need from the CPU (opemu.core.kernels.ISA_LEVELS)
ISA_NEEDS = {"baseline": "AVX2 and FMA (x86-64-v3)", "avx512": "AVX-512 F, BW, CD, DQ and VL (x86-64-v4)",
             "avx512bf16": "AVX512_BF16 (the bf16 dot product instruction)"}
ISA_PATHS = ("portable", "baseline", "avx512")   # the levels every kernel with a vector path has a path for


@contextlib.contextmanager
def running_at(level):
    """The kernels at the instruction-set level `level` inside the block: their paths, compared with the same
    references. Skips the test where this CPU lacks the level, or OPEMU_ISA caps the kernels below it."""
    if kernels.lib() is None:
        pytest.skip("no kernel library: the references run")
    rank = kernels.ISA_LEVELS.index(level)
    if rank > kernels.ISA_LEVELS.index(kernels.cpu_isa()):
        pytest.skip("the %s paths need %s, which this CPU lacks" % (level, ISA_NEEDS[level]))
    if rank > kernels.ISA_LEVELS.index(kernels.ISA):
        pytest.skip("OPEMU_ISA=%s caps the kernels below the %s paths" % (kernels.ISA, level))
    with kernels.isa_ceiling(level):
        yield level


@pytest.fixture(params=ISA_PATHS)
def isa(request):
    with running_at(request.param):
        yield request.param


def available_levels():
    """The instruction-set levels the kernels can run at here (this CPU's, OPEMU_ISA's ceiling)."""
    top = min(kernels.ISA_LEVELS.index(kernels.cpu_isa()), kernels.ISA_LEVELS.index(kernels.ISA))
    return kernels.ISA_LEVELS[:top + 1]


def assert_same_bits(ours, reference):
    """Every bit, except which NaN a NaN result is: where two NaNs meet in + or *, NumPy itself answers
    either one's payload (its temporary elision swaps the operands of commutative operations on arrays
    past 256 KiB), so only the NaN positions must agree there."""
    assert ours.shape == reference.shape and ours.dtype == reference.dtype
    bits = BITS[ours.dtype.itemsize]
    both_nan = np.isnan(ours.astype(np.float32) if ours.itemsize == 2 else ours) & np.isnan(
        reference.astype(np.float32) if reference.itemsize == 2 else reference)
    mismatch = np.flatnonzero((ours.view(bits) != reference.view(bits)) & ~both_nan)
    assert mismatch.size == 0, "%d elements differ, first at %d: %r vs %r" % (
        mismatch.size, mismatch[0], ours.reshape(-1)[mismatch[0]], reference.reshape(-1)[mismatch[0]])


def special(n, dtype, rng, scale=1.0):
    """n values of `dtype`: normals, with NaNs (some carrying payloads), ±0, ±inf and subnormals mixed in."""
    values = (rng.standard_normal(n) * scale).astype(dtype)
    tiny = np.finfo(dtype).smallest_subnormal
    extras = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, tiny, -tiny, 3 * tiny, 1.0, -1.0], dtype)
    where = rng.choice(n, size=min(n, 3 * len(extras)), replace=False)
    values[where] = np.resize(extras, where.size)
    if dtype == np.float32 and n > 40:  # a NaN with a payload
        values.view(np.uint32)[where[0]] = 0x7fc01234
    return values


SIZES = [1, 7, 1023, 70001]
FLOATS = [np.float32, np.float64]


def activation_desc(mode, nan=0, coef=0.7, beta=1.3):
    return mcdnn.Struct(mode=mode, nan=nan, coef=coef, swish_beta=beta)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("mode", sorted(M.values()))
def test_activation_backward_is_bit_identical(mode, n, dtype):
    rng = np.random.default_rng(n + mode)
    y, dy, x = (special(n, dtype, rng) for _ in range(3))
    desc = activation_desc(mode)
    with np.errstate(all="ignore"):
        expected = activation.backward(desc, y, dy, x)
    dx = np.empty(n, dtype)
    assert activation.c_backward(desc, y, dy, x, dx)
    assert_same_bits(dx, expected.astype(dtype, copy=False))


@pytest.mark.parametrize("mode", sorted(M.values()))
def test_activation_backward_in_place_over_dy(mode):
    rng = np.random.default_rng(mode)
    y, dy, x = (special(4099, np.float32, rng) for _ in range(3))
    desc = activation_desc(mode)
    with np.errstate(all="ignore"):
        expected = activation.backward(desc, y, dy, x)
    assert activation.c_backward(desc, y, dy, x, dy)
    assert_same_bits(dy, expected)


def test_activation_backward_leaves_strided_and_shifted_views_to_the_reference():
    rng = np.random.default_rng(5)
    base = special(2000, np.float32, rng)
    desc = activation_desc(M["MCDNN_ACTIVATION_RELU"])
    assert not activation.c_backward(desc, base[::2], base[::2], base[::2], np.empty(1000, np.float32))
    assert not activation.c_backward(desc, base[1:1001], base[:1000], base[:1000], base[:1000])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("nan", [0, 1], ids=["not-propagate", "propagate"])
@pytest.mark.parametrize("mode", ["MCDNN_ACTIVATION_RELU", "MCDNN_ACTIVATION_CLIPPED_RELU", "MCDNN_ACTIVATION_IDENTITY"])
def test_activation_forward_is_bit_identical(mode, nan, dtype):
    rng = np.random.default_rng(nan)
    x = special(1031, dtype, rng)
    x[:4] = [0.7, -0.0, 0.0, 0.70000001]  # ties with the clip and with 0
    desc = activation_desc(M[mode], nan=nan)
    y = np.empty_like(x)
    assert activation.c_forward(desc, x, y)
    assert_same_bits(y, activation.forward(desc, x))


@pytest.mark.parametrize("pieces", [2, 3, 7])
def test_activation_kernels_shared_among_the_kernel_threads_are_bit_identical(pieces):
    """The calls cut into `pieces` parts on the C pool (csrc/kernels/pool.c): whole 64-element lines each, the
    last one short (70001 elements)."""
    rng = np.random.default_rng(pieces)
    y, dy, x = (special(70001, np.float32, rng) for _ in range(3))
    for mode in ("SIGMOID", "RELU", "TANH", "CLIPPED_RELU", "IDENTITY"):
        desc = activation_desc(M["MCDNN_ACTIVATION_" + mode])
        dx = np.empty_like(x)
        assert activation._one_call(desc, y, dy, x, dx, pieces=pieces)() == 0
        with np.errstate(all="ignore"):
            assert_same_bits(dx, activation.backward(desc, y, dy, x))
    for mode in ("RELU", "CLIPPED_RELU", "IDENTITY"):
        desc = activation_desc(M["MCDNN_ACTIVATION_" + mode], nan=1)
        out = np.empty_like(x)
        assert activation.c_forward(desc, x, out, pieces=pieces)
        assert_same_bits(out, activation.forward(desc, x))


@pytest.mark.usefixtures("isa")   # every instruction-set level's paths
@pytest.mark.parametrize("offset", [0, 1, 5], ids=lambda o: "dx %d elements past a line" % o)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_activation_kernels_streamed_to_the_output_are_bit_identical(dtype, offset):
    """Outputs past kernels.STREAM_BYTES go out by non-temporal stores, computed a 2048-element block at a time:
    the same bits for every mode, with parts and blocks cut short (5003 elements, 3 parts), wherever the output
    starts against a cache line, and in place over dy."""
    rng = np.random.default_rng(offset)
    n = 5003
    y, dy, x = (special(n, dtype, rng) for _ in range(3))
    storage = np.empty(n + 32, dtype)   # room for up to a cache line's worth of elements, and the offset
    start = (-storage.ctypes.data % 64) // storage.itemsize + offset
    out = storage[start:start + n]
    for mode in ("SIGMOID", "RELU", "TANH", "CLIPPED_RELU", "IDENTITY", "ELU", "SWISH"):
        desc = activation_desc(M["MCDNN_ACTIVATION_" + mode])
        with np.errstate(all="ignore"):
            expected = activation.backward(desc, y, dy, x).astype(dtype, copy=False)
        call = activation._one_call(desc, y, dy, x, out, pieces=3, streaming=True)
        if call is None:   # ELU and SWISH take NumPy's exp first, block by block
            continue
        assert call() == 0
        assert_same_bits(out, expected)
        in_place = dy.copy()
        assert activation._one_call(desc, y, in_place, x, in_place, pieces=3, streaming=True)() == 0
        assert_same_bits(in_place, expected)
    for mode in ("RELU", "CLIPPED_RELU", "IDENTITY"):
        desc = activation_desc(M["MCDNN_ACTIVATION_" + mode], nan=1)
        assert activation.c_forward(desc, x, out, pieces=3, streaming=True)
        assert_same_bits(out, activation.forward(desc, x))


@pytest.mark.usefixtures("isa")   # every instruction-set level's paths
def test_activation_backward_with_an_exp_streamed_in_blocks(monkeypatch):
    """ELU and SWISH (NumPy's exp first, a block at a time) streaming dx too once it is past kernels.STREAM_BYTES."""
    monkeypatch.setattr(kernels, "STREAM_BYTES", 0)
    rng = np.random.default_rng(11)
    y, dy, x = (special(70001, np.float32, rng) for _ in range(3))
    for mode in ("ELU", "SWISH"):
        desc = activation_desc(M["MCDNN_ACTIVATION_" + mode])
        dx = np.empty_like(x)
        assert activation.c_backward(desc, y, dy, x, dx)
        with np.errstate(all="ignore"):
            assert_same_bits(dx, activation.backward(desc, y, dy, x))


def pooled(x, window, stride, padding, out_shape):
    """y of max pooling x as opemu's forward computes it."""
    pool = mcdnn.Struct(mode=0, nan=0, nbDims=2, window=window, stride=stride, padding=padding)
    (geometry,) = pooling._geometries(pool, x.shape, (x.shape[0], x.shape[1]) + out_shape)
    assert geometry.whole  # every window reaches the input: the kernels see x and y whole
    return pool, geometry, pooling.forward(pool, [geometry], x, x.dtype)


POOLS = {  # window, stride, padding, input h, w (odd sizes leave rows and columns no window covers)
    "2x2/2": ((2, 2), (2, 2), (0, 0), 9, 13),
    "3x3/2": ((3, 3), (2, 2), (1, 1), 11, 8),
    "3x3/2-wide": ((3, 3), (2, 2), (1, 1), 7, 75),       # rows of windows 16 at a time (AVX-512), then the rest
    "3x3/2-wide-unpadded": ((3, 3), (2, 2), (0, 0), 6, 69),   # the last vector's window ends at the row's end
    "3x2/1": ((3, 2), (1, 1), (1, 0), 6, 7),
    "2x2/3-pad": ((2, 2), (3, 3), (1, 1), 10, 9),
}


@pytest.mark.usefixtures("isa")   # every instruction-set level's paths
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(POOLS))
def test_max_pool_backward_is_bit_identical(name, dtype):
    window, stride, padding, h, w = POOLS[name]
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(h * w)
    x = rng.integers(-3, 4, size=(2, 3, h, w)).astype(dtype)  # few distinct values: many tied windows
    x.reshape(-1)[::17] = special(x.size, dtype, rng)[::17]
    x[np.isnan(x)] = 0  # a NaN max is the NaN walk's, not this kernel's
    out = tuple((s + 2 * p - k) // st + 1 for s, k, st, p in zip((h, w), window, stride, padding))
    pool, geometry, y = pooled(x, window, stride, padding, out)
    dy = special(y.size, dtype, rng).reshape(y.shape)
    expected = np.empty_like(x)
    pooling._Phases(geometry).max_backward(y, dy, x, expected, dtype)
    assert_same_bits(expected, pooling.backward(pool, geometry, y, dy, x, x.shape, dtype))
    dx = np.full_like(x, 5)
    assert pooling._c_max_backward(geometry, y, dy, x, dx)
    assert_same_bits(dx, expected)


@pytest.mark.usefixtures("isa")   # every instruction-set level's paths
@pytest.mark.parametrize("name", ["3x3/2", "3x3/2-wide"])
def test_max_pool_backward_on_strided_planes(name):
    rng = np.random.default_rng(3)
    window, stride, padding, h, w = POOLS[name]
    storage = rng.standard_normal((2, 5, h + 3, w + 4)).astype(np.float32)
    x = storage[:, 1:4, 2:2 + h, 1:1 + w]  # padded rows and columns, a channel slice
    pool, geometry, y = pooled(x, window, stride, padding, ((h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1))
    dy = rng.standard_normal(y.shape).astype(np.float32)
    big = np.zeros((2, 4, h + 1, w + 2), np.float32)
    dx = big[:, :3, :h, :w]
    assert pooling._c_max_backward(geometry, y, dy, x, dx)
    assert_same_bits(np.ascontiguousarray(dx), pooling.backward(pool, geometry, y, dy, x, x.shape, np.float32))
    assert not big[:, 3].any() and not big[:, :, h:].any()


EMA_TYPES = [np.float32, np.float16, ml_dtypes.bfloat16]


@pytest.mark.parametrize("mode", [0, 1, 2], ids=["l2", "adamw", "no-decay"])
@pytest.mark.parametrize("dtype", EMA_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(3,), (70001,), (33, 17)])
def test_ema_adam_is_bit_identical(shape, dtype, mode, reference_only):
    rng = np.random.default_rng(sum(shape) + mode)
    n = int(np.prod(shape))
    state = {name: special(n, np.float32, rng, scale).astype(dtype).reshape(shape)
             for name, scale in (("grad", 1.0), ("varRef", 1.0), ("mRef", 0.1), ("vRef", 0.01), ("sRef", 1.0))}
    state["vRef"] = abs(state["vRef"])
    if dtype == np.float32:  # values that round to half-way cases and subnormals on the way through
        state["grad"].reshape(-1)[:3] = [1e-40, 3e-39, 65504.5]
    outputs = []
    for numpy in (True, False):
        reference_only(numpy)
        arrays = {name: value.copy() for name, value in state.items()}
        with np.errstate(all="ignore"):
            opemu.api.call("aclnnApplyFusedEmaAdam", step=np.array([3]), lr=1e-3, emaDecay=0.99, beta1=0.9,
                           beta2=0.999, eps=1e-8, mode=mode, biasCorrection=True, weightDecay=0.05, **arrays)
        outputs.append(arrays)
    for name in ("varRef", "mRef", "vRef", "sRef"):
        assert_same_bits(outputs[1][name], outputs[0][name])


def test_ema_adam_on_strided_arrays_matches_the_reference(reference_only):
    rng = np.random.default_rng(9)
    outputs = []
    for numpy in (True, False):
        reference_only(numpy)
        storage = {name: np.random.default_rng(1).standard_normal((40, 20)).astype(np.float32) for name in
                   ("grad", "varRef", "mRef", "vRef", "sRef")}
        storage["vRef"] = abs(storage["vRef"])
        views = {name: value[:, ::2] for name, value in storage.items()}
        opemu.api.call("aclnnApplyFusedEmaAdam", step=np.array([1]), lr=1e-2, emaDecay=0.9, beta1=0.9, beta2=0.99,
                       eps=1e-6, mode=1, biasCorrection=True, weightDecay=0.01, **views)
        outputs.append(storage)
    del rng
    for name in ("varRef", "mRef", "vRef", "sRef"):
        assert_same_bits(outputs[1][name], outputs[0][name])


def test_invalid_kernel_choice_is_refused():
    result = subprocess.run([sys.executable, "-c", "import opemu.core.kernels"], capture_output=True, text=True,
                            env=dict(os.environ, OPEMU_KERNELS="fast"))
    assert result.returncode != 0
    assert "OPEMU_KERNELS=fast is not one of c, numpy" in result.stderr


def test_isa_levels_are_the_headers():
    lib = kernels.lib()
    assert [kernels.ISA_LEVELS.index(level) for level in kernels.ISA_LEVELS] == [
        lib.OPEMU_ISA_PORTABLE, lib.OPEMU_ISA_BASELINE, lib.OPEMU_ISA_AVX512, lib.OPEMU_ISA_AVX512_BF16]


def test_an_isa_ceiling_is_the_level_used_up_to_the_cpus():
    cpu = kernels.cpu_isa()
    for level in kernels.ISA_LEVELS:
        with kernels.isa_ceiling(level):
            expected = min(kernels.ISA_LEVELS.index(level), kernels.ISA_LEVELS.index(cpu))
            assert kernels.isa() == kernels.ISA_LEVELS[expected]


def test_each_kernel_names_its_path_at_every_level():
    """What the bench prints: a path for every kernel with paths per level, at each level the CPU has."""
    for level in available_levels():
        with kernels.isa_ceiling(level):
            described = dict(kernels.paths())
        assert list(described) == list(kernels.PATHS) and all(described.values())
        assert described["bf16 products"] == kernels.PATHS["bf16 products"][level]


def _isa_in_a_process(value):
    result = subprocess.run([sys.executable, "-c", "from opemu.core import kernels; print(kernels.isa())"],
                            capture_output=True, text=True, env=dict(os.environ, OPEMU_ISA=value), timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip(), result.stderr


def test_opemu_isa_caps_the_kernels_of_a_process():
    assert _isa_in_a_process("portable")[0] == "portable"
    assert _isa_in_a_process("avx512bf16")[0] == kernels.cpu_isa()


def test_an_invalid_opemu_isa_is_refused_and_the_cpus_level_used():
    used, stderr = _isa_in_a_process("avx3")
    assert used == kernels.cpu_isa()
    assert "opemu: OPEMU_ISA=avx3 is refused: expected portable, baseline, avx512 or avx512bf16; using avx512bf16" \
        in stderr


def test_threads_that_ask_for_the_kernels_first_at_once_all_get_them():
    """A process whose first kernel call comes from several threads at once (a caller's own threads, or lanes):
    one starts the bridge, the others wait for it instead of running the references."""
    script = ("import threading\n"
              "from opemu.core import kernels\n"
              "found = []\n"
              "threads = [threading.Thread(target=lambda: found.append(kernels.lib() is not None)) for _ in range(4)]\n"
              "[thread.start() for thread in threads]\n"
              "[thread.join() for thread in threads]\n"
              "print(found)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=dict(os.environ, OPEMU_KERNELS="c"), timeout=120)
    assert result.stdout.strip() == "[True, True, True, True]", result.stdout + result.stderr[-2000:]


def test_oracle_tests_pass_with_the_numpy_references():
    """A CI-cheap subset: the torch oracle tests of every op that has a C kernel, references only."""
    tests = conftest.ROOT / "tests"
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               str(tests / "test_mcdnn_activation_softmax.py"), str(tests / "test_mcdnn_pooling.py"),
               str(tests / "test_mcdnn_convolution.py"),
               str(tests / "test_apply_fused_ema_adam.py"), str(tests / "test_fused_cross_entropy.py"),
               # -k selects from every file: the last two modules whole, by name
               "-k", "activation or softmax or pooling or depthwise or test_apply_fused_ema_adam.py or "
                     "test_fused_cross_entropy.py"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tests,
                            env=dict(os.environ, OPEMU_KERNELS="numpy"), timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


def test_ema_adam_with_overlapping_arrays_takes_the_reference(reference_only):
    """grad and m one buffer: the reference's separate passes read the updated m as grad; the kernel,
    which does each element's step at once, declines and the reference runs."""
    outputs = []
    for numpy in (True, False):
        reference_only(numpy)
        rng = np.random.default_rng(4)
        shared = rng.standard_normal(64).astype(np.float32)
        var, v, s = (rng.standard_normal(64).astype(np.float32) for _ in range(3))
        opemu.api.call("aclnnApplyFusedEmaAdam", grad=shared, varRef=var, mRef=shared, vRef=abs(v), sRef=s,
                       step=np.array([2]), lr=1e-2, emaDecay=0.9, beta1=0.9, beta2=0.99, eps=1e-6, mode=0,
                       biasCorrection=True, weightDecay=0.1)
        outputs.append((shared, var, s))
    for ours, reference in zip(outputs[1], outputs[0]):
        assert_same_bits(ours, reference)
