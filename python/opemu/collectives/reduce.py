"""The rank-order reduction of the collectives (the reference; csrc/hccl/reduce.c is its C twin for the
integer, fp32 and fp64 types, bit for bit the same).

Each rank reduces the chunk it owns: ``in[0] op in[1] … op in[n-1]``, one step at a time, so every
element is combined in rank order whatever the transport, the processes or the timing, and the
result is bitwise the same everywhere (what ``HCCL_DETERMINISTIC`` asks of the hardware). fp16 and
bf16 are rounded after each step, as an fp16 or bf16 accumulator would be: NumPy (float16) and
ml_dtypes (bfloat16) add two values in float32 and round once, which for these formats is the
correctly rounded result (float32 has more than twice their precision plus two bits). Integers wrap.
max and min keep the first operand when it compares so or is NaN (NumPy's maximum/minimum rule). For fp32 and fp64 a NaN out of a sum or product
is the first NaN operand's, made quiet (said explicitly, since which operand an add instruction takes
its NaN from depends on how it was compiled), so the C twin can give the same bits. MCCL's average is that sum divided by the
number of ranks, rounded once to the type (integers: truncated toward zero, as C divides)."""
import ml_dtypes
import numpy as np

# HcclDataType → NumPy type, for the types a reducing collective accepts.
DTYPES = {0: np.int8, 1: np.int16, 2: np.int32, 3: np.float16, 4: np.float32, 5: np.int64, 6: np.uint64,
          10: np.float64, 11: ml_dtypes.bfloat16}
def _select(compare):
    """max/min as a selection, NumPy's rule written out: the first operand when it compares so or is
    NaN (its bits kept as they are: the ufuncs' SIMD paths may quiet a signalling NaN)."""
    def step(a, b, out):
        out[...] = np.where(compare(a, b) | np.isnan(a) if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16
                            else compare(a, b), a, b)
    return step


# HcclReduceOp → the step; 4 is MCCL's average.
OPS = {0: np.add, 1: np.multiply, 2: _select(np.greater_equal), 3: _select(np.less_equal)}
AVERAGE = 4


QUIET_BIT = {np.dtype(np.float32): (np.uint32, 0x00400000), np.dtype(np.float64): (np.uint64, 0x0008000000000000)}


def _first_nan(result, a, b, quiet):
    """Where a step made a NaN from a NaN operand: the first such operand's, quiet."""
    bits, bit = quiet
    for operand in (b, a):  # a last: it wins where both are NaN
        nan = np.isnan(operand)
        result.view(bits)[nan] = np.asarray(operand).view(bits)[nan] | bits(bit)


def in_rank_order(inputs, op):
    """The reduction of arrays given in rank order (a new array): the golden reference the C core
    calls through the bridge."""
    step = OPS[0 if op == AVERAGE else op]
    acc = np.array(inputs[0], copy=True)
    quiet = QUIET_BIT.get(acc.dtype) if op in (0, 1, AVERAGE) else None
    with np.errstate(all="ignore"):
        for x in inputs[1:]:
            before = acc.copy() if quiet is not None else None
            step(acc, x, out=acc)
            if quiet is not None and np.isnan(acc).any():
                _first_nan(acc, before, x, quiet)
        if op == AVERAGE:
            n = len(inputs)
            if np.issubdtype(acc.dtype, np.integer):  # toward zero: floor, one up when negative and inexact
                divisor = acc.dtype.type(n)
                acc = (acc // divisor + ((acc % divisor != 0) & (acc < 0))).astype(acc.dtype)
            else:
                acc = (acc.astype(np.float32) / np.float32(n)).astype(acc.dtype) if acc.dtype.itemsize < 4 \
                    else acc / acc.dtype.type(n)
    return acc


def attach(ffi, lib):
    def reduce(dtype, op, n, inputs, out, count):
        np_type = np.dtype(DTYPES[dtype])
        nbytes = count * np_type.itemsize
        views = [np.frombuffer(ffi.buffer(inputs[i], nbytes), np_type) for i in range(n)]
        result = in_rank_order(views, op)
        np.frombuffer(ffi.buffer(out, nbytes), np_type)[...] = result
        return 0

    def on_error(exc_type, exc_value, tb):
        lib.opemu_error_message(4, ("HCCL reduction: internal error: %s: %s" % (exc_type.__name__, exc_value))
                                .encode("utf-8", "replace")[:1900])

    ffi.def_extern(name="opemu_py_hccl_reduce", error=-1, onerror=on_error)(reduce)
