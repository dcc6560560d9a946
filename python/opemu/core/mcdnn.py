"""mcDNN on the Python side: statuses and enums (read from the headers), descriptor snapshots, the
scaling factors and the `dst = alpha*result + beta*dst` write, and the operator declaration.

An mcDNN routine is single-phase: the bridge converts the raw arguments (handle and descriptors are
validated C objects, read once at call time as cuDNN does), the op's `check` raises the vendor's
status in the vendor's order, then `compute` runs as a task on the handle's stream over zero-copy
views of device memory."""

import functools
import threading

import ml_dtypes
import numpy as np

from opemu.core import device, parallel
from opemu.core.headers import enum
from opemu.core.status import VendorError

_INFER = "mcdnn/mcdnn_ops_infer.h"
STATUS = enum(_INFER, "mcdnnStatus_t")
DATA = enum(_INFER, "mcdnnDataType_t")
NAN = enum(_INFER, "mcdnnNanPropagation_t")
ACTIVATION = enum(_INFER, "mcdnnActivationMode_t")
SOFTMAX_ALGO = enum(_INFER, "mcdnnSoftmaxAlgorithm_t")
SOFTMAX_MODE = enum(_INFER, "mcdnnSoftmaxMode_t")
POOLING = enum(_INFER, "mcdnnPoolingMode_t")
LRN_MODE = enum(_INFER, "mcdnnLRNMode_t")
DIVNORM_MODE = enum(_INFER, "mcdnnDivNormMode_t")
BAD_PARAM = STATUS["MCDNN_STATUS_BAD_PARAM"]
NOT_SUPPORTED = STATUS["MCDNN_STATUS_NOT_SUPPORTED"]
EXECUTION_FAILED = STATUS["MCDNN_STATUS_EXECUTION_FAILED"]

LRN_MIN_N, LRN_MAX_N, LRN_MIN_K, LRN_MIN_BETA = 1, 16, 1e-5, 0.01

NUMPY = {
    DATA["MCDNN_DATA_FLOAT"]: np.dtype(np.float32), DATA["MCDNN_DATA_DOUBLE"]: np.dtype(np.float64),
    DATA["MCDNN_DATA_HALF"]: np.dtype(np.float16), DATA["MCDNN_DATA_BFLOAT16"]: np.dtype(ml_dtypes.bfloat16),
    DATA["MCDNN_DATA_INT8"]: np.dtype(np.int8), DATA["MCDNN_DATA_UINT8"]: np.dtype(np.uint8),
    DATA["MCDNN_DATA_INT32"]: np.dtype(np.int32), DATA["MCDNN_DATA_INT64"]: np.dtype(np.int64),
    DATA["MCDNN_DATA_BOOLEAN"]: np.dtype(np.bool_),
}
# NCHW_VECT_C data: one element is a vector of this many channels of this type (opemu.ops.mcdnn.vector_formats)
VECTOR = {DATA["MCDNN_DATA_INT8x4"]: (4, np.dtype(np.int8)), DATA["MCDNN_DATA_UINT8x4"]: (4, np.dtype(np.uint8)),
          DATA["MCDNN_DATA_INT8x32"]: (32, np.dtype(np.int8))}
FLOATING = {DATA[n] for n in ("MCDNN_DATA_FLOAT", "MCDNN_DATA_DOUBLE", "MCDNN_DATA_HALF", "MCDNN_DATA_BFLOAT16")}
_DOUBLE = DATA["MCDNN_DATA_DOUBLE"]
_NAMES = {code: name for name, code in DATA.items()}


def bad_param(message):
    return VendorError(BAD_PARAM, message)


def not_supported(message):
    return VendorError(NOT_SUPPORTED, message)


def type_name(code):
    return _NAMES.get(code, "mcdnnDataType_t(%d)" % code)


class Tensor:
    """A tensor descriptor as it was at the call: data type, dims and element strides."""
    __slots__ = ("dtype_code", "shape", "strides", "_view_layout")

    def __init__(self, dtype_code, shape, strides):
        self.dtype_code, self.shape, self.strides = dtype_code, tuple(shape), tuple(strides)

    @classmethod
    def from_c(cls, desc):
        n = desc.nbDims
        return cls(desc.dataType, device.ffi.unpack(desc.dimA, n), device.ffi.unpack(desc.strideA, n))

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        return NUMPY.get(self.dtype_code)

    @property
    def compute_dtype(self):
        """fp16/bf16/fp32 compute in fp32, double in double."""
        return np.dtype(np.float64) if self.dtype_code == DATA["MCDNN_DATA_DOUBLE"] else np.dtype(np.float32)

    def same_layout(self, other):
        return self.shape == other.shape and self.strides == other.strides

    def geometry(self):
        try:
            return self._view_layout
        except AttributeError:  # the first call on this snapshot: descriptors are read once, and never change
            self._view_layout = _geometry(self.dtype_code, self.shape, self.strides)
            return self._view_layout

    def __repr__(self):
        return "Tensor(%s, dims=%s, strides=%s)" % (type_name(self.dtype_code), list(self.shape), list(self.strides))


@functools.lru_cache(maxsize=1024)
def _geometry(dtype_code, shape, strides):
    """A view's layout (device.view_at) for a descriptor's fields: apps reuse descriptors, so per call this
    is a lookup."""
    if dtype_code in VECTOR:   # the storage: (N, C/v, spatial…, v) bytes, strides counting vectors
        v, dtype = VECTOR[dtype_code]
        shape = (shape[0], shape[1] // v) + tuple(shape[2:]) + (v,)
        strides = tuple(strides) + (1,)
        itemsizes = (v,) * (len(shape) - 1) + (1,)
        span = device.span_elements(shape[:-1], strides[:-1], 0) * v
        return shape, dtype, 0, tuple(s * b for s, b in zip(strides, itemsizes)), span
    dtype = NUMPY.get(dtype_code)
    span = device.span_elements(shape, strides, 0) * dtype.itemsize
    return shape, dtype, 0, tuple(s * dtype.itemsize for s in strides), span


class Struct:
    """A snapshot of a C descriptor's fields (activation, pooling, LRN)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def scaling(pointer, tensor, name):
    """A host scaling factor: float for HALF/BFLOAT16/FLOAT data, double for DOUBLE."""
    if pointer == device.ffi.NULL:
        raise bad_param("%s must not be null" % name)
    return device.ffi.cast("double *" if tensor.dtype_code == _DOUBLE else "float *", pointer)[0]


def as_compute(array, ct):
    return array if array.dtype == ct else array.astype(ct)


def write(out, result, alpha, beta):
    """out = alpha*result + beta*out, computed in result's type and rounded once into out's type.
    When beta == 0 out is not read (it may hold NaN). `result` may be overwritten."""
    ct = result.dtype.type
    if alpha != 1:
        np.multiply(result, ct(alpha), out=result)
    if beta != 0:
        prior = out.astype(result.dtype)
        prior *= ct(beta)
        result += prior
    out[...] = result


def write_split(out, result, alpha, beta):
    """write() of (N, C, …) arrays in slices of C on the pool's threads (elementwise: the same bits)."""
    def part(lo, hi):
        write(out[:, lo:hi], result[:, lo:hi], alpha, beta)
    parallel.split(out.shape[1], part, worth=out.size >= _PARALLEL_MIN)


BLOCK = 1 << 15  # elements per block of an element-wise kernel: its temporaries stay in cache


def flat_views(arrays):
    """1-D views of arrays that share shape and strides and together cover one dense block of memory
    (NCHW, NHWC or any permutation), else None."""
    first = arrays[0]
    if any(a.shape != first.shape or a.strides != first.strides for a in arrays[1:]):
        return None
    if first.flags.c_contiguous:  # the common case, without the permutation
        return [a.reshape(-1) for a in arrays]
    order = sorted(range(first.ndim), key=lambda i: -abs(first.strides[i]))
    flat = []
    for a in arrays:
        t = a.transpose(order)
        if not t.flags.c_contiguous:
            return None
        flat.append(t.reshape(-1))
    return flat


def elementwise(p, inputs, output, fn, ct, alpha, beta):
    """p[output] = alpha*fn(*inputs in the compute type) + beta*p[output], block by block when the
    tensors share a dense layout (each block's temporaries stay in cache), else in one go."""
    arrays = [p[k] for k in inputs] + [p[output]]
    flat = flat_views(arrays)
    if flat is None:
        write(p[output], fn(*[as_compute(p[k], ct) for k in inputs]), alpha, beta)
        return
    *ins, out = flat
    for lo in range(0, out.size, BLOCK):
        hi = lo + BLOCK
        write(out[lo:hi], fn(*[as_compute(a[lo:hi], ct) for a in ins]), alpha, beta)


_PARALLEL_MIN = 1 << 17


def one_piece(views):
    """Whether by_batch runs its function once, on the views themselves."""
    return parallel.WORKERS == 1 or all(a.size < _PARALLEL_MIN for a in views.values() if a is not None)


def by_batch(views, fn, batch=None):
    """Runs fn(sub_views) over slices of the batch dimension in parallel threads (NumPy releases the
    GIL in its loops). Every routine here treats each image n independently, so the result is the
    same as one call on everything. Views whose first dimension is not the batch (a broadcast bias)
    are passed whole."""
    if one_piece(views):
        fn(views)  # the whole batch, no sub-views to make
        return
    arrays = [a for a in views.values() if a is not None]
    if batch is None:
        batch = max((a.shape[0] for a in arrays if a.ndim), default=1)

    def part(lo, hi):
        fn({k: (a[lo:hi] if a is not None and a.ndim and a.shape[0] == batch else a) for k, a in views.items()})

    parallel.split(batch, part)


OPS = {}


class McdnnOp:
    """One mcDNN routine: `name` is the entry point; `tensors` maps each data-pointer parameter to the
    descriptor parameter that describes it; `outputs` names the ones written. `check(a)` gets the
    arguments by their header names (descriptors converted, pointers raw) and raises the vendor's
    status; `compute(a, v)` gets a NumPy view per non-null tensor, on the handle's stream."""
    name = None
    tensors = {}
    outputs = ()
    host_only = False  # True: compute(a, None) runs at the call, on the host (size queries)
    raw = ()           # descriptor parameters passed as their C objects, not snapshots
    vector_types = False   # True: its checks judge NCHW_VECT_C data (views of their storage, VECTOR)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            OPS[cls.name] = cls()

    def check(self, a):
        raise NotImplementedError

    def compute(self, a, v):
        raise NotImplementedError


# ---- checks shared by the routines ----

_PASSED = {}          # key of a check that passed → the attributes it derived
_PASSED_LIMIT = 4096  # distinct keys kept before the record starts over


def checked(key, check, a):
    """check(a), unless a check with the same key passed before: then the attributes that check derived
    (its `_` names: layouts, compute types…) are set again. Only for checks that read nothing but what the
    key holds: numbers, descriptor snapshots (the bridge shares one per distinct C content, and the key
    keeps it alive, so equal identity is equal content), which pointers are null, which alias. A failing
    check is not recorded: it runs, and raises, at every call. Host scaling factors are the caller's to
    read at every call."""
    derived = _PASSED.get(key)
    if derived is not None:
        a.__dict__.update(derived)
        return
    check(a)
    if len(_PASSED) >= _PASSED_LIMIT:
        _PASSED.clear()
    _PASSED[key] = {name: value for name, value in a.__dict__.items() if name.startswith("_")}


_PREPARED = threading.local()
_PREPARED_LIMIT = 64


def prepared(objects, make, *arguments):
    """make(*arguments), or what it made before on this thread for these very objects: a routine's call
    bound to its views and descriptor snapshots, which the bridge hands out again while their buffers stay
    (the entry holds the objects, so their ids stay theirs). Only for calls that read nothing but the
    objects and the buffers' contents at every call; scaling factors are the caller's to read."""
    calls = getattr(_PREPARED, "calls", None)
    if calls is None:
        calls = _PREPARED.calls = {}
    key = tuple(map(id, objects))
    entry = calls.get(key)
    if entry is None:
        if len(calls) >= _PREPARED_LIMIT:
            calls.clear()
        entry = calls[key] = (objects, make(*arguments))
    return entry[1]


def is_null(pointer):
    return pointer == device.ffi.NULL


def require(a, *names, what="must not be null"):
    """BAD_PARAM for the first named argument (descriptor or pointer) that is NULL / None."""
    for name in names:
        value = getattr(a, name)
        if value is None or (not isinstance(value, (Tensor, Struct)) and is_null(value)):
            raise bad_param("%s %s" % (name, what))


def floating(name, tensor):
    if tensor.dtype_code not in FLOATING:
        raise not_supported("%s has data type %s: only FLOAT, DOUBLE, HALF and BFLOAT16 are supported"
                            % (name, type_name(tensor.dtype_code)))


def same_dims(error, first, *others):
    """`others` are (name, tensor) pairs compared with first=(name, tensor)."""
    name0, t0 = first
    for name, t in others:
        if t.shape != t0.shape:
            raise error("the dimensions of %s %s and %s %s differ" % (name0, list(t0.shape), name, list(t.shape)))


def same_type(error, first, *others):
    name0, t0 = first
    for name, t in others:
        if t.dtype_code != t0.dtype_code:
            raise error("the data types of %s (%s) and %s (%s) differ"
                        % (name0, type_name(t0.dtype_code), name, type_name(t.dtype_code)))


def same_strides(error, first, second, why=""):
    (name0, t0), (name1, t1) = first, second
    if t0.strides != t1.strides:
        raise error("the strides of %s %s and %s %s differ%s" % (name0, list(t0.strides), name1, list(t1.strides), why))


def lrn_in_range(lrn):
    if not (LRN_MIN_N <= lrn.n <= LRN_MAX_N and lrn.k >= LRN_MIN_K and lrn.beta >= LRN_MIN_BETA):
        raise bad_param("LRN descriptor parameters are outside of their valid ranges (lrnN %d in [%d, %d], lrnK %g >= "
                        "%g, lrnBeta %g >= %g)" % (lrn.n, LRN_MIN_N, LRN_MAX_N, lrn.k, LRN_MIN_K, lrn.beta,
                                                  LRN_MIN_BETA))
