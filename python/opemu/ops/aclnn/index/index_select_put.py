"""aclnnIndexSelect (ops-nn index/gather_v2) and aclnnIndexPutImpl (index/index_put_v2).

Index values are data, not validated in phase 1 (the vendor's are not either). A kernel that
reads or writes outside the tensor is an access fault on hardware: here phase 2 reports
ACL_ERROR_RT_AICORE_EXCEPTION for an index outside [-size, size) instead of touching memory.
IndexPutImpl without accumulate writes duplicates last-wins (the hardware order is unspecified);
with accumulate, fp16/bf16 sums are formed in fp32 and rounded once."""
import numpy as np

from opemu.core import checks, device, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

SELECTABLE = P.codes("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL UINT64 UINT32 UINT16 DOUBLE COMPLEX64 "
                     "COMPLEX128 BF16")
PUTTABLE = P.codes("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL BF16")
INDEX_DTYPES = P.codes("INT32 INT64")
MASK_OR_INDEX = P.codes("INT32 INT64 BOOL")


def _fault(op, what):
    return device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"], "%s: %s" % (op, what))


def _check_range(op, index, size):
    if index.size and (index.min() < -size or index.max() >= size):
        raise _fault(op, "an index outside [-%d, %d) addresses memory outside the tensor" % (size, size))


class IndexSelect(AclnnOp):
    name = "aclnnIndexSelect"
    inputs = ("self", "index")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": SELECTABLE, "index": INDEX_DTYPES, "out": SELECTABLE}

    def check(self, a):
        checks.not_null(a, "self", "index", "out")
        checks.dtype_in("self", a.self, SELECTABLE)
        if a.self.dtype == P.BF16 and _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("NpuArch does not support BF16.")
        checks.dtype_match("self", a.self, a.out.dtype)
        checks.dtype_in("index", a.index, INDEX_DTYPES)
        n = max(a.self.ndim, 1)
        if a.self.ndim == 0 and a.out.ndim != 0:
            raise status.param_invalid("self is scalar, and out should also be scalar")
        checks.max_dim("self", a.self)
        if not -n <= a.dim < n:
            raise status.param_invalid("IndexError: Dimension out of range (expected to be in range of [%d, %d], but "
                                       "got %d)" % (-n, n - 1, a.dim))
        a.axis = a.dim % n
        if a.index.ndim > 1:
            raise status.param_invalid("index dimNum is %d, should not greater than 1" % a.index.ndim)
        if a.self.ndim:
            expected = list(a.self.shape)
            expected[a.axis] = a.index.shape[0] if a.index.ndim else 1
            if a.self.numel() and a.index.numel():
                P.out_shape_is(a.out, expected)

    def compute(self, a, v, workspace):
        x, index, out = v["self"], v["index"], v["out"]
        if out.size == 0 or x.size == 0 or index.size == 0:   # the vendor launches nothing (out unchecked)
            return
        if x.ndim == 0:
            _check_range(self.name, index, 1)
            np.copyto(out, x)
            return
        _check_range(self.name, index, x.shape[a.axis])
        np.copyto(out, np.take(x, index.reshape(-1), axis=a.axis))


class IndexPutImpl(AclnnOp):
    name = "aclnnIndexPutImpl"
    inputs = ("selfRef", "indices", "values")
    outputs = ("selfRef",)

    def dtype_table(self):
        return {"selfRef": PUTTABLE, "indices": MASK_OR_INDEX, "values": PUTTABLE}

    def check(self, a):
        checks.not_null(a, "selfRef", "values", "indices")
        for item in a.indices:
            if item is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*indices)[i].")
        if _products.line() not in ("A2", "A3", "950"):
            for name in ("self", "value"):
                tensor = a.selfRef if name == "self" else a.values
                if tensor.dtype == P.BF16:
                    raise status.param_invalid("%s not implemented for DT_BF16, when SocVersion is less than "
                                               "ASCEND910B." % name)
        checks.dtype_in("selfRef", a.selfRef, PUTTABLE)
        checks.dtype_in("values", a.values, PUTTABLE)
        for t in a.indices:
            if t.numel():
                checks.dtype_in("(*indices)[i]", t, MASK_OR_INDEX)
        checks.dtype_match("selfRef", a.selfRef, a.values.dtype)
        checks.max_dim("selfRef", a.selfRef)
        if len(a.indices) > a.selfRef.ndim:
            raise status.param_invalid("indicesSize must <= self DimSize.")
        self._check_masks(a)
        if not any(t.dtype == P.BOOL for t in a.indices):
            self._check_values_shape(a)

    @staticmethod
    def _check_values_shape(a):
        """Integer indices: the indexed shape is known now (NumPy's advanced-indexing rule, on
        zero-stride stand-ins that allocate nothing of self's size); values must broadcast to it."""
        stand_in = np.broadcast_to(np.zeros((), np.int8), a.selfRef.shape)
        key = tuple(slice(None) if t.numel() == 0 else np.broadcast_to(np.zeros((), np.intp), t.shape)
                    for t in a.indices)
        try:
            indexed = stand_in[key].shape
            np.broadcast_shapes(tuple(a.values.shape), indexed)
            if np.broadcast_shapes(tuple(a.values.shape), indexed) != indexed:
                raise ValueError
        except (IndexError, ValueError):
            raise status.param_invalid("values of shape %s cannot be broadcast to the indexed shape of selfRef."
                                       % checks.shape_text(a.values.shape))

    @staticmethod
    def _check_masks(a):
        if not any(t.numel() and t.dtype == P.BOOL for t in a.indices):
            return
        consumed, n = 0, a.selfRef.ndim
        for i, t in enumerate(a.indices):
            if t.numel() == 0:
                consumed += 1
                continue
            if consumed + t.ndim > n:
                raise status.param_invalid("The bool mask at indices[%d] has %d dimensions, but only %d dimensions "
                                           "remain in selfRef (total %d, already consumed %d)."
                                           % (i, t.ndim, n - consumed, n, consumed))
            for j in range(t.ndim):
                if t.shape[j] != a.selfRef.shape[consumed + j]:
                    raise status.param_invalid("The shape of the bool mask at indices[%d] dim %d (size %d) does not "
                                               "match the shape of the indexed tensor at dimension %d (size %d)."
                                               % (i, j, t.shape[j], consumed + j, a.selfRef.shape[consumed + j]))
            consumed += t.ndim

    def compute(self, a, v, workspace):
        target, values = v["selfRef"], v["values"]
        if target.size == 0:
            return
        key = []
        for axis, index in enumerate(v["indices"]):
            if index.size == 0:
                key.append(slice(None))
            elif index.dtype == np.bool_:
                key.append(index)
            else:
                _check_range(self.name, index, target.shape[len(key)] if len(key) < target.ndim else 0)
                key.append(index.astype(np.int64))
        key = tuple(key)
        try:
            if not a.accumulate:
                target[key] = values
                return
            work = target.astype(np.float32) if target.dtype.itemsize < 4 and target.dtype.kind in "fV" else target
            np.add.at(work, key, values.astype(work.dtype))
            if work is not target:
                P.store(target, work)
        except (IndexError, ValueError) as error:
            raise status.param_invalid("%s: values %s cannot be put at these indices: %s"
                                       % (self.name, checks.shape_text(values.shape), error))
