"""Operators whose output size the data decides: aclnnNonzero, aclnnNonzeroV2 (ops-nn index/non_zero op_api),
aclnnUnique, aclnnUnique2, aclnnUniqueConsecutive (index/unique_consecutive) and aclnnUniqueDim
(index/unique_with_counts_ext2).

    Nonzero            out (N, D): the coordinates of the N non-zero elements, row-major order
    NonzeroV2          out (D, N): the same, one coordinate per row (each column a position)
    Unique / Unique2   valueOut: the distinct values, ascending (the kernel sorts; `sorted` changes nothing);
                       inverseOut (self's shape): each element's position among them; countsOut (Unique2)
    UniqueConsecutive  the first of each run of equal consecutive values (or slices along dim; dim 1000: flattened)
    UniqueDim          unique slices along dim, in lexicographic order

The app allocates each output with room enough (N ≤ numel); the kernel writes its result contiguously from the
start and the aclTensor then describes it (aclGetViewShape reads the new shape, as after the vendor's kernel).
NaNs count as distinct from every value and from each other, as PyTorch's sort-based unique on CPU keeps them."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

INT64 = P.INT64
NONE_DIM = 1000


def _nonzero_dtypes():
    line = _products.line()
    base = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL"
    if line == "950":
        return P.codes(base + " BF16 UINT16 UINT32 UINT64")
    return P.codes(base + " BF16") if line in ("A2", "A3") else P.codes(base)


def _write_rows(out, rows):
    """rows (contiguous) written from the start of out's storage view; the new shape for the app's tensor."""
    flat = out.reshape(-1) if out.flags.c_contiguous else None
    if flat is None:
        raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER"], "a data-dependent output must be contiguous")
    if rows.size > flat.size:
        raise status.VendorError(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                 "the result (%d elements) does not fit the output (%d)" % (rows.size, flat.size))
    flat[:rows.size] = rows.reshape(-1)
    return tuple(rows.shape)


class Nonzero(AclnnOp):
    name = "aclnnNonzero"
    inputs = ("self",)
    outputs = ("out",)
    shape_outputs = ("out",)
    transposed = False

    def dtype_table(self):
        return {"self": _nonzero_dtypes(), "out": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, _nonzero_dtypes())
        checks.dtype_match("out", a.out, INT64)
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        if not _products.is_regbase() and any(d > 2 ** 31 - 1 for d in a.self.shape):
            raise status.param_invalid("The tensor's shape cannot be larger than %d." % (2 ** 31 - 1))
        a.empty = a.self.is_empty() or a.out.is_empty()

    def compute(self, a, v, workspace):
        x = v["self"]
        if a.empty:
            return {"out": (0, x.ndim) if not self.transposed else (x.ndim, 0)}
        coordinates = np.stack(np.nonzero(x), axis=1) if x.ndim else np.zeros((int(bool(x)), 0), np.int64)
        rows = coordinates.T if self.transposed else coordinates
        return {"out": _write_rows(v["out"], np.ascontiguousarray(rows, np.int64))}


class NonzeroV2(Nonzero):
    name = "aclnnNonzeroV2"
    transposed = True

    def dtype_table(self):
        base = "FLOAT FLOAT16 INT8 UINT8 INT16 UINT16 INT32 UINT32 INT64 UINT64 DOUBLE BOOL"
        allowed = P.codes(base + " BF16") if _products.line() in ("A2", "A3", "950") else P.codes(base)
        return {"self": allowed, "out": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, self.dtype_table()["self"])
        checks.dtype_match("out", a.out, INT64)
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        a.empty = a.self.is_empty() or a.out.is_empty()


def _unique_dtypes():
    base = "BOOL UINT8 INT8 UINT16 INT16 UINT32 INT32 UINT64 INT64 DOUBLE FLOAT FLOAT16"
    return P.codes(base + " BF16") if _products.line() in ("A2", "A3", "950") else P.codes(base)


def _sorted_unique(flat):
    """(values, inverse, counts) of a 1-D array, values ascending, NaNs each their own value at the end."""
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    if ordered.size == 0:
        return ordered, np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.ones(ordered.size, bool)
    starts[1:] = ordered[1:] != ordered[:-1]   # NaN != NaN: every NaN starts a run
    values = ordered[starts]
    run = np.cumsum(starts) - 1
    inverse = np.empty(flat.size, np.int64)
    inverse[order] = run
    counts = np.diff(np.append(np.flatnonzero(starts), ordered.size))
    return values, inverse, counts


class Unique(AclnnOp):
    name = "aclnnUnique"
    inputs = ("self",)
    outputs = ("valueOut", "inverseOut")
    shape_outputs = ("valueOut",)

    def dtype_table(self):
        return {"self": _unique_dtypes(), "valueOut": _unique_dtypes(), "inverseOut": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "valueOut", "inverseOut")
        checks.dtype_in("self", a.self, _unique_dtypes())
        checks.dtype_match("inverseOut", a.inverseOut, INT64)
        checks.max_dim("self", a.self)
        if a.returnInverse:
            checks.same_shape("self", a.self, "inverseOut", a.inverseOut)

    def compute(self, a, v, workspace):
        values, inverse, counts = _sorted_unique(np.asarray(v["self"]).reshape(-1))
        if a.returnInverse:
            v["inverseOut"][...] = inverse.reshape(v["inverseOut"].shape)
        return {"valueOut": _write_rows(v["valueOut"], values.astype(v["valueOut"].dtype))}


class Unique2(Unique):
    name = "aclnnUnique2"
    outputs = ("valueOut", "inverseOut", "countsOut")
    shape_outputs = ("valueOut", "countsOut")

    def dtype_table(self):
        return dict(super().dtype_table(), countsOut=[INT64])

    def check(self, a):
        checks.not_null(a, "self", "valueOut", "inverseOut", "countsOut")
        checks.dtype_in("self", a.self, _unique_dtypes())
        checks.dtype_match("inverseOut", a.inverseOut, INT64)
        checks.dtype_match("countsOut", a.countsOut, INT64)
        checks.max_dim("self", a.self)
        if a.returnInverse:
            checks.same_shape("self", a.self, "inverseOut", a.inverseOut)
        if a.returnCounts:
            checks.same_shape("valueOut", a.valueOut, "countsOut", a.countsOut)

    def compute(self, a, v, workspace):
        values, inverse, counts = _sorted_unique(np.asarray(v["self"]).reshape(-1))
        if a.returnInverse:
            v["inverseOut"][...] = inverse.reshape(v["inverseOut"].shape)
        shapes = {"valueOut": _write_rows(v["valueOut"], values.astype(v["valueOut"].dtype))}
        if a.returnCounts:
            shapes["countsOut"] = _write_rows(v["countsOut"], counts)
        return shapes


def _check_match_outputs(a):
    checks.dtype_match("inverseOut", a.inverseOut, INT64)
    checks.dtype_match("countsOut", a.countsOut, INT64)
    checks.dtype_match("valueOut", a.valueOut, a.self.dtype)
    checks.dtype_match("inverseOut", a.inverseOut, a.countsOut.dtype)


def _dim_in_range(x, dim):
    n = x.ndim
    low, high = min(-n, n - 1), max(-n, n - 1)
    if not low <= dim <= high:
        raise status.param_invalid("The param of dim must be in the range of [%d, %d], but got %d." % (low, high, dim))
    return dim % max(n, 1)


def _slice_unique(x, axis, consecutive):
    """(unique slices along axis, inverse, counts): consecutive runs, or all distinct slices sorted."""
    moved = np.moveaxis(x, axis, 0)
    keys = moved.reshape(moved.shape[0], -1)
    if consecutive:
        starts = np.ones(keys.shape[0], bool)
        starts[1:] = np.any(keys[1:] != keys[:-1], axis=1)
        run = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), keys.shape[0]))
        return np.moveaxis(moved[starts], 0, axis), run, counts
    values, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    values = values.reshape((values.shape[0],) + moved.shape[1:])
    return np.moveaxis(values, 0, axis), inverse.reshape(-1), counts


class UniqueConsecutive(AclnnOp):
    name = "aclnnUniqueConsecutive"
    inputs = ("self",)
    outputs = ("valueOut", "inverseOut", "countsOut")
    shape_outputs = ("valueOut", "countsOut")

    def dtype_table(self):
        base = "UINT8 INT8 UINT16 INT16 UINT32 INT32 UINT64 INT64 DOUBLE FLOAT FLOAT16 COMPLEX64 COMPLEX128 BOOL"
        allowed = P.codes(base + " BF16") if _products.line() in ("A2", "A3", "950") else P.codes(base)
        return {"self": allowed, "valueOut": allowed, "inverseOut": [INT64], "countsOut": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "valueOut", "inverseOut", "countsOut")
        checks.dtype_in("self", a.self, self.dtype_table()["self"])
        _check_match_outputs(a)
        checks.max_dim("self", a.self)
        a.axis = None if a.dim == NONE_DIM else _dim_in_range(a.self, a.dim)

    def compute(self, a, v, workspace):
        x = np.asarray(v["self"])
        if a.axis is None or x.ndim == 0:
            values, inverse, counts = _slice_unique(x.reshape(-1), 0, True)
        else:
            values, inverse, counts = _slice_unique(x, a.axis, True)
        if a.returnInverse:
            v["inverseOut"].reshape(-1)[:inverse.size] = inverse
        shapes = {"valueOut": _write_rows(v["valueOut"], np.ascontiguousarray(values))}
        if a.returnCounts:
            shapes["countsOut"] = _write_rows(v["countsOut"], counts.astype(np.int64))
        return shapes


class UniqueDim(AclnnOp):
    name = "aclnnUniqueDim"
    inputs = ("self",)
    outputs = ("valueOut", "inverseOut", "countsOut")
    shape_outputs = ("valueOut", "countsOut")

    def dtype_table(self):
        base = "UINT8 INT8 UINT16 INT16 UINT32 INT32 UINT64 INT64 DOUBLE FLOAT FLOAT16 BOOL"
        allowed = P.codes(base + " BF16") if _products.line() in ("A2", "A3", "950") else P.codes(base)
        return {"self": allowed, "valueOut": allowed, "inverseOut": [INT64], "countsOut": [INT64]}

    def check(self, a):
        checks.not_null(a, "self", "valueOut", "inverseOut", "countsOut")
        checks.dtype_in("self", a.self, self.dtype_table()["self"])
        _check_match_outputs(a)
        checks.max_dim("self", a.self)
        a.axis = _dim_in_range(a.self, a.dim)

    def compute(self, a, v, workspace):
        x = np.asarray(v["self"])
        values, inverse, counts = _slice_unique(x.reshape(1) if x.ndim == 0 else x, a.axis, False)
        if a.returnInverse:
            v["inverseOut"].reshape(-1)[:inverse.size] = inverse
        return {"valueOut": _write_rows(v["valueOut"], np.ascontiguousarray(values)),
                "countsOut": _write_rows(v["countsOut"], counts.astype(np.int64))}

