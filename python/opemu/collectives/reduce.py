"""The rank-order reduction of the collectives.

Each rank reduces the chunk it owns: ``in[0] op in[1] … op in[n-1]``, one step at a time, so every
element is combined in rank order whatever the transport, the processes or the timing, and the
result is bitwise the same everywhere (what ``HCCL_DETERMINISTIC`` asks of the hardware). fp16 and
bf16 are rounded after each step, as an fp16 or bf16 accumulator would be: NumPy (float16) and
ml_dtypes (bfloat16) add two values in float32 and round once, which for these formats is the
correctly rounded result (float32 has more than twice their precision plus two bits). Integers wrap.
max and min propagate NaN (NumPy's maximum/minimum). MCCL's average is that sum divided by the
number of ranks, rounded once to the type (integers: truncated toward zero, as C divides)."""
import ml_dtypes
import numpy as np

# HcclDataType → NumPy type, for the types a reducing collective accepts.
DTYPES = {0: np.int8, 1: np.int16, 2: np.int32, 3: np.float16, 4: np.float32, 5: np.int64, 6: np.uint64,
          10: np.float64, 11: ml_dtypes.bfloat16}
# HcclReduceOp → the step; 4 is MCCL's average.
OPS = {0: np.add, 1: np.multiply, 2: np.maximum, 3: np.minimum}
AVERAGE = 4


def in_rank_order(inputs, op):
    """The reduction of arrays given in rank order (a new array): the golden reference the C core
    calls through the bridge."""
    step = OPS[0 if op == AVERAGE else op]
    acc = np.array(inputs[0], copy=True)
    with np.errstate(all="ignore"):
        for x in inputs[1:]:
            step(acc, x, out=acc)
        if op == AVERAGE:
            n = len(inputs)
            if np.issubdtype(acc.dtype, np.integer):
                negative = acc < 0 if np.issubdtype(acc.dtype, np.signedinteger) else False
                quotient = np.abs(acc) // acc.dtype.type(n)
                acc = np.where(negative, -quotient, quotient).astype(acc.dtype)
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
