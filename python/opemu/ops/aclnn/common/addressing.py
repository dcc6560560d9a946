"""Index values as the gather and scatter kernels of index/ and pooling/ use them: data that addresses memory.

No kernel here validates an index against the tensor. A gather reads, and a scatter writes, the element
at view start + Σ coordinate × stride (opemu.core.stray): inside the shape that is ordinary indexing; past
it, the element is read or written where the address lands when that is a live allocation's mapped range,
and the kernel faults (ACL_ERROR_RT_AICORE_EXCEPTION, nothing written) when it is not. Kernels built with
negative-index support (GatherV2 behind aclnnGatherV2 and aclnnTake) first add the axis size to a
negative index; the others take it as it is, an address before the row.

Duplicates. A scatter that assigns writes positions in index order, so the last write to a position wins
(the vendor leaves the order open; the deterministic choice is the walk's). A scatter that reduces (add,
mul, max, min, div) applies the updates to a position in index order, in the compute dtype (fp32 for
fp16/bf16), and rounds once into the target."""
import numpy as np

from opemu.core import dtypes, stray
from opemu.ops.aclnn.common import promotion as P


def wrap(index, size):
    """A kernel with negative-index support: index + size where index < 0."""
    index = np.asarray(index, np.int64)
    return np.where(index < 0, index + size, index) if index.size and index.min() < 0 else index


def outside(index, size):
    """Whether any index lies outside [0, size)."""
    return index.size > 0 and (int(index.min()) < 0 or int(index.max()) >= size)


def describe(op, name, index, size, axis):
    """What a stray access is, for the fault message and `opemu check`: the first index outside [0, size)."""
    flat = np.asarray(index).reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= size))
    at = int(bad[0]) if bad.size else 0
    return "%s: %s[%d] = %d is outside [0, %d) along dim %d" % (op, name, at, int(flat[at]), size, axis)


def gather(view, coordinates, what):
    """view[coordinates] (one integer array per dimension, broadcast together); out-of-shape coordinates read
    device memory where they point."""
    return stray.gather(view, coordinates, what)


def assign(view, coordinates, values, what):
    """view[coordinates] = values, last write wins; every address is checked before anything is written."""
    scatter = stray.Scatter(view, coordinates, what)
    scatter.write(values)


_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum, "mean": np.add}


def reduce_at(view, coordinates, values, how, what, include_self=True, compute=None):
    """view[c] = view[c] (how) value for each coordinate in index order ("add", "mul", "max", "min", "mean", "div"), in
    the compute dtype, rounded once into view. Without include_self a position's old value takes no part (its
    first update starts it); "mean" divides by the updates it got, plus one when the old value counts (integers
    floor; "div" of integers truncates and a zero divisor leaves the value). `compute` overrides the compute dtype (a kernel that adds fp16 in fp16 rounds every step). Out-of-shape
    coordinates update the memory they address (checked before anything is written)."""
    coordinates = np.broadcast_arrays(*[np.asarray(c, np.int64) for c in coordinates])
    ct = compute or compute_type(view.dtype)
    values = np.broadcast_to(np.asarray(values), coordinates[0].shape).reshape(-1)
    keys = np.stack([c.reshape(-1) for c in coordinates])
    unique, inverse = np.unique(keys, axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    positions = tuple(unique)
    scatter = stray.Scatter(view, positions, what)   # faults before any write
    with np.errstate(all="ignore"):
        if include_self:
            current = gather(view, positions, what).astype(ct)
        else:   # the first update of each position starts it
            first = np.full(unique.shape[1], -1, np.int64)
            first[inverse[::-1]] = np.arange(inverse.size)[::-1]
            current = values[first].astype(ct)
            later = np.ones(inverse.size, bool)
            later[first] = False
            inverse, values = inverse[later], values[later]
        if how == "div" and ct.kind in "iub":
            current = _divide_integers(current, inverse, values)
        elif how == "div":
            np.divide.at(current, inverse, values.astype(ct))
        else:
            _UFUNCS[how].at(current, inverse, values.astype(ct))
        if how == "mean":
            # the old value, or the first update that started the position, counts once more
            counts = np.bincount(inverse, minlength=current.size) + 1
            current = current // counts if ct.kind in "iub" else current / counts
    scatter.write(current.astype(view.dtype) if current.dtype != view.dtype else current)


def _divide_integers(current, inverse, divisors):
    """Each position divided by its divisors in index order, truncating each step (C division), a zero divisor
    skipped: the same as one truncating division by their product, formed in Python integers (no overflow)."""
    product = np.ones(current.size, object)
    divisors = divisors.astype(np.int64).astype(object)
    divisors[divisors == 0] = 1
    np.multiply.at(product, inverse, divisors)
    dividend = current.astype(object)
    quotient = [abs(n) // abs(d) * (1 if (n >= 0) == (d > 0) else -1) for n, d in zip(dividend, product)]
    return np.asarray(quotient, np.int64).astype(current.dtype)


def compute_type(numpy_type):
    """The dtype a kernel computes `numpy_type` data in: fp16/bf16 in fp32."""
    return P.compute_type(dtypes.ACL_OF[np.dtype(numpy_type)])
