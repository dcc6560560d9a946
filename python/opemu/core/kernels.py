"""The fused C kernels (csrc/kernels/), bit-identical to the NumPy code they replace.

Every op that uses one keeps its NumPy version as the reference; `OPEMU_KERNELS=numpy` selects the
references everywhere (`c`, the default, the kernels). `lib()` is the bridge's cffi library, or None when
the references must run: OPEMU_KERNELS=numpy, or a process that cannot load libopemu (opemu.api without a
build). In a plain Python process (opemu.api, tests) the first use loads libopemu and starts its bridge in
this interpreter, which attaches the ffi as an operator call would.

Kernels with paths for instruction sets beyond plain C (csrc/kernels/isa.h) take the highest level the CPU has,
or the ceiling OPEMU_ISA names (`ISA_LEVELS`); every level gives the same bits, and the tests run each level the
CPU has (`isa_ceiling`)."""
import contextlib
import ctypes
import os
import threading

import numpy as np

from opemu import settings
from opemu.core import device

CHOICES = ("c", "numpy")
# csrc/kernels/kernels.h's OPEMU_ISA_* in order: plain C; x86-64-v3 (AVX2, FMA); x86-64-v4 (AVX-512 F, BW, CD, DQ,
# VL); that and AVX512_BF16 (the bf16 dot product instruction)
ISA_LEVELS = ("portable", "baseline", "avx512", "avx512bf16")
ISA = settings.env_choice("OPEMU_ISA", ISA_LEVELS[-1])


def _choice():
    value = os.environ.get("OPEMU_KERNELS", "c") or "c"
    if value not in CHOICES:
        raise RuntimeError("OPEMU_KERNELS=%s is not one of %s" % (value, ", ".join(CHOICES)))
    return value


USE_C = _choice() == "c"
_tried = False
_starting = threading.Lock()


def lib():
    """The cffi library holding the kernels, or None (use the NumPy reference). Threads that ask first at once
    wait for the one that starts the bridge (or finds it attached) and sets OPEMU_ISA's ceiling."""
    global _tried
    if not USE_C:
        return None
    if not _tried:
        with _starting:
            if not _tried:
                if device.lib is None:
                    _start_bridge()
                if device.lib is not None:
                    device.lib.opemu_kernel_set_isa(ISA_LEVELS.index(ISA))
                _tried = True
    return device.lib


# What the kernels that differ between levels run at each (a level without an entry runs the one below it)
PATHS = {
    "bf16 products": {"portable": "C tiles, a flush after each step",
                      "baseline": "AVX2 fp32 FMA tiles on widened panels, flush-to-zero where exact",
                      "avx512": "AVX-512 fp32 FMA tiles, a flush after each step",
                      "avx512bf16": "the bf16 dot product instruction (VDPBF16PS)"},
    "sums of GEMM products (convolutions)": {"portable": "none: BLAS's GEMMs", "baseline": "AVX2 6x16 tiles",
                                              "avx512": "AVX-512 8x48 and 6x64 tiles"},
    "max-pooling 3x3/2 backward, fp32": {"portable": "scalar choices, then the scatter",
                                         "avx512": "one walk down each plane, 15 windows a vector"},
    "vector loops (exp, softmax, epilogues, BN sums, depthwise, row sums)": {
        "portable": "SSE2, 4 floats a vector", "baseline": "AVX2, 8 floats", "avx512": "AVX-512, 16 floats"},
    "bf16 widening copy, non-temporal copies": {"portable": "scalar tiles, 16-byte streams",
                                                "baseline": "8x8 register transposes, 32-byte streams",
                                                "avx512": "16x16 register transposes, 64-byte streams"},
}


def paths():
    """[(kernel, the path it runs at the level in use)] (PATHS)."""
    rank = ISA_LEVELS.index(isa())
    return [(kernel, next(by_level[level] for level in reversed(ISA_LEVELS[:rank + 1]) if level in by_level))
            for kernel, by_level in PATHS.items()]


def cpu_isa():
    """The highest instruction-set level this CPU gives the kernels (ISA_LEVELS), "portable" without them."""
    library = lib()
    return ISA_LEVELS[library.opemu_kernel_cpu_isa()] if library is not None else ISA_LEVELS[0]


def isa():
    """The level the kernels use now."""
    library = lib()
    return ISA_LEVELS[library.opemu_kernel_isa()] if library is not None else ISA_LEVELS[0]


@contextlib.contextmanager
def isa_ceiling(level):
    """The kernels at most at `level` inside the block (the tests' way to run each path); the ceiling before
    after it. The ceiling is the process's: kernels other threads run meanwhile take it too."""
    library = lib()
    before = isa()
    library.opemu_kernel_set_isa(ISA_LEVELS.index(level))
    try:
        yield
    finally:
        library.opemu_kernel_set_isa(ISA_LEVELS.index(before))


def _start_bridge():
    import opemu  # late: opemu/__init__ imports this package's users
    try:
        path = opemu.prefix() / "lib64" / "libopemu.so"
        ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL).opemu_start_bridge()
    except (OSError, AttributeError, RuntimeError):
        pass  # no build: the references run


def address(array):
    """A pointer to a contiguous array's first element for a kernel's void * (ffi.from_buffer: a fraction of
    array.ctypes.data's cost)."""
    return device.ffi.from_buffer(array)


def int64_pointer(array):
    """An int64_t * to a contiguous int64 array (a kernel's table of offsets)."""
    return device.ffi.cast("int64_t *", device.ffi.from_buffer(array))


def uint32_pointer(array):
    """A uint32_t * to a contiguous uint32 array."""
    return device.ffi.cast("uint32_t *", device.ffi.from_buffer(array))


def uint8_pointer(array):
    """A uint8_t * to a contiguous byte array."""
    return device.ffi.cast("uint8_t *", device.ffi.from_buffer(array))


def strided_address(array):
    """A pointer to the first element of any array (the kernel walks its strides); a contiguous one's
    through ffi.from_buffer, which costs a fifth of array.ctypes.data."""
    if array.flags.c_contiguous:
        return device.ffi.from_buffer(array)
    return device.ffi.cast("void *", array.ctypes.data)


def float_pointer(array):
    """A float * to a dense-rowed fp32 array's first element, or NULL for None. The pointer does not keep
    the array alive: the caller holds it for the call."""
    if array is None:
        return device.ffi.NULL
    if array.flags.c_contiguous:  # a float[] passes as float *: half the cost of casting a char[]
        return device.ffi.from_buffer("float[]", array)
    return device.ffi.cast("float *", array.ctypes.data)


def null():
    """A kernel's unused pointer argument."""
    return device.ffi.NULL


# An output this large cannot stay in a core's cache: kernels that take a `streaming` flag write it by non-temporal
# stores (csrc/kernels/nontemporal.h), which spare each line the read a cached store makes first. (BN keeps the
# 16 MiB it was measured with, bn_common.STREAM_BYTES.)
STREAM_BYTES = 4 << 20


def streaming(out):
    """A kernel's `streaming` flag for output `out`: 1 past STREAM_BYTES."""
    return int(out.nbytes >= STREAM_BYTES)


def dense(*arrays):
    """True when the arrays are C-contiguous and of the one float type the kernels take (float32/64)."""
    first = arrays[0].dtype
    return first in (np.float32, np.float64) and all(a.dtype == first and a.flags.c_contiguous for a in arrays)


def apart(out, *inputs):
    """True when `out` is the very view of each input it overlaps, or overlaps none: an elementwise
    kernel reads each element before writing it, so only a shifted overlap would need the reference's
    temporaries."""
    return all(t is None or not np.may_share_memory(out, t) or
               (t.ctypes.data == out.ctypes.data and t.strides == out.strides) for t in inputs)


def pool_geometry(**fields):
    """A struct opemu_pool_geometry holding `fields`."""
    return device.ffi.new("struct opemu_pool_geometry *", fields)

