"""Gathers: aclnnGatherV2, aclnnGatherV3, aclnnTake (ops-nn index/gather_v2 op_api), aclnnGather
(index/gather_elements_v2) and aclnnGatherNd (index/gather_nd).

    GatherV2 / GatherV3  out = self.take(index, axis=dim): self.shape[:dim] + index.shape + self.shape[dim+1:]
                         (a 0-d index gathers one row as a 1-d one; a 0-d self gives a 0-d out)
    Take                 out = self.flatten()[index], out of index's shape
    Gather               out[i][j][k] = self[index[i][j][k]][j][k] (dim 0; likewise for the others), out of
                         index's shape, which may be smaller than self's except along dim
    GatherNd             out[i…] = self[indices[i…, 0], …, indices[i…, q-1]]: indices.shape[:-1] + self.shape[q:]

Phase 1 follows each op_api file check by check. GatherV3's batchDims and its 950-only modes: on the other
products only dim = 0, batchDims = 0 and mode = 1 pass ("Currently, only dim=0, batchDims=0, and mode=1
are supported."); mode (high precision or performance) changes no value. The vendor launches nothing when
self or the index is empty.

Index values are data (common/addressing.py): GatherV2 and Take run the GatherV2 kernel with negative-index
support, so -1 is the last row; GatherV3, Gather and GatherNd (unless negativeIndexSupport) take an index as
the address it makes. An address outside the tensor reads device memory where it lands, or faults."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import addressing

INDEX_DTYPES = P.codes("INT32 INT64")
_V2_BASE = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL DOUBLE COMPLEX64 COMPLEX128"


def gather_v2_dtypes():
    line = _products.line()
    if line == "950":
        return P.codes(_V2_BASE + " BF16 UINT16")
    return P.codes(_V2_BASE + " BF16") if line in ("A2", "A3") else P.codes(_V2_BASE)


def _dim_in_range(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise status.param_invalid("dim %d not in valid range: [%d, %d)" % (dim, -n, n))
    return dim % n


def _taken_shape(shape, axis, index_shape):
    """GatherV2's out shape: a 0-d self gives a 0-d out, a 0-d index one row."""
    if not shape:
        return ()
    return tuple(shape[:axis]) + (tuple(index_shape) or (1,)) + tuple(shape[axis + 1:])


def take_along(op, x, index, axis, negative, batch_dims=0):
    """x.take(index, axis) as the GatherV2 kernel addresses it (batch_dims leading dims of index pair with x's)."""
    index = np.asarray(index, np.int64)
    if x.ndim == 0:   # one element, however many indices: the out is 0-d
        x, index = x.reshape(1), index.reshape(-1)[:1]
    size = x.shape[axis]
    if index.ndim == 0:
        index = index.reshape(1)
    if negative:
        index = addressing.wrap(index, size)
    lead = x.shape[:axis]
    grids = np.indices(lead, sparse=True) if lead else ()
    tail_shape = x.shape[axis + 1:]
    # coordinates: lead dims, then the index (its batch dims shared with the lead), then the tail dims
    extra = index.ndim - batch_dims
    coordinates = []
    for g in grids:
        coordinates.append(g.reshape(g.shape + (1,) * (extra + len(tail_shape))))
    index_part = index.reshape(tuple(index.shape[:batch_dims]) + (1,) * (axis - batch_dims) + index.shape[batch_dims:]
                               + (1,) * len(tail_shape)) if lead else index.reshape(index.shape + (1,) * len(tail_shape))
    coordinates.append(index_part)
    for g in (np.indices(tail_shape, sparse=True) if tail_shape else ()):
        coordinates.append(g.reshape((1,) * (axis + extra) + g.shape))
    if not addressing.outside(index, size):
        return x[tuple(coordinates)]
    return addressing.gather(x, coordinates, addressing.describe(op, "index", index, size, axis))


class GatherV2(AclnnOp):
    name = "aclnnGatherV2"
    inputs = ("self", "index")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": gather_v2_dtypes(), "index": INDEX_DTYPES, "out": gather_v2_dtypes()}

    def check(self, a):
        checks.not_null(a, "self", "index", "out")
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, gather_v2_dtypes())
        checks.dtype_in("index", a.index, INDEX_DTYPES)
        checks.max_dim("self", a.self)
        checks.max_dim("index", a.index)
        a.axis = _dim_in_range(a.dim, a.self.ndim)
        expected = _taken_shape(a.self.shape, a.axis, a.index.shape)
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        a.empty = a.self.is_empty() or a.index.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        result = take_along(self.name, v["self"], v["index"], a.axis, negative=True)
        v["out"][...] = result.reshape(v["out"].shape)


class GatherV3(AclnnOp):
    name = "aclnnGatherV3"
    inputs = ("self", "index")
    outputs = ("out",)
    DTYPES = P.codes(_V2_BASE + " BF16")

    def dtype_table(self):
        return {"self": self.DTYPES, "index": INDEX_DTYPES, "out": self.DTYPES}

    def check(self, a):
        checks.not_null(a, "self", "index", "out")
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, self.DTYPES)
        checks.dtype_in("index", a.index, INDEX_DTYPES)
        checks.max_dim("self", a.self)
        checks.max_dim("index", a.index)
        a.axis = _dim_in_range(a.dim, a.self.ndim)
        regbase = _products.is_regbase()
        batch = a.batchDims % max(a.index.ndim, 1) if regbase and a.batchDims < 0 else a.batchDims
        if regbase and a.self.ndim:
            expected = tuple(a.self.shape[:a.axis]) + tuple(a.index.shape[batch:]) + tuple(a.self.shape[a.axis + 1:])
        else:
            expected = tuple(a.self.shape[:a.axis]) + tuple(a.index.shape) + tuple(a.self.shape[a.axis + 1:]) \
                if a.self.ndim else ()
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        if regbase:
            self._check_batch_dims(a)
        elif a.dim != 0 or a.batchDims != 0 or a.mode != 1:
            raise status.param_invalid("Currently, only dim=0, batchDims=0, and mode=1 are supported.")
        a.batch = batch if regbase else 0
        a.empty = a.self.is_empty() or a.index.is_empty()

    @staticmethod
    def _check_batch_dims(a):
        if a.batchDims == 0:
            return
        rank_index, rank_self = max(a.index.ndim, 1), max(a.self.ndim, 1)
        if not -rank_index <= a.batchDims <= rank_index:
            raise status.param_invalid("aclnnGatherV3, batchDims is invalid.")
        batch = a.batchDims + rank_index if a.batchDims < 0 else a.batchDims
        if batch >= rank_self:
            raise status.param_invalid("aclnnGatherV3, batchDims must be less than rank(self).")
        if batch > a.axis:
            raise status.param_invalid("aclnnGatherV3, batchDims must be less than or equal to dim.")
        if tuple(a.self.shape[:batch]) != tuple(a.index.shape[:batch]):
            raise status.param_invalid("aclnnGatherV3, self.shape[:batch_dims] should be equal to "
                                       "indices.shape[:batch_dims].")

    def compute(self, a, v, workspace):
        if a.empty:
            return
        result = take_along(self.name, v["self"], v["index"], a.axis, negative=False, batch_dims=a.batch)
        v["out"][...] = result.reshape(v["out"].shape)


class Take(AclnnOp):
    name = "aclnnTake"
    inputs = ("self", "index")
    outputs = ("out",)
    DTYPES = P.codes("FLOAT FLOAT16 UINT64 INT64 UINT32 INT32 UINT16 INT16 UINT8 INT8 DOUBLE COMPLEX64 COMPLEX128 "
                     "BOOL BF16")

    def dtype_table(self):
        return {"self": self.DTYPES, "index": INDEX_DTYPES, "out": self.DTYPES}

    def check(self, a):
        checks.not_null(a, "self", "index", "out")
        checks.dtype_in("self", a.self, self.DTYPES)
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("index", a.index, INDEX_DTYPES)
        if a.self.dtype == P.BF16 and _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("take operator doesn't support [DT_BFLOAT16], except on ASCEND910B or "
                                       "ASCEND950 chip")
        checks.max_dim("index", a.index)
        checks.same_shape("out", a.out, "index", a.index)
        if a.self.is_empty() and not a.index.is_empty():
            raise status.param_invalid("IndexError: take(): tried to take from an empty tensor")
        for name in ("self", "index", "out"):
            if checks.is_private_format(getattr(a, name).format):
                raise status.param_invalid("Format only support ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, %s [%s]"
                                           % (name, getattr(a, name).format))
        a.empty = a.self.is_empty() or a.index.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        flat = v["self"].reshape(-1)
        index = v["index"].reshape(-1)
        result = take_along(self.name, flat, index, 0, negative=True)
        v["out"][...] = result.reshape(v["out"].shape)


def _gather_dtypes():
    base = "FLOAT INT32 FLOAT16 INT8 DOUBLE INT16 INT64 UINT64 UINT32 UINT16 UINT8 BOOL"
    line = _products.line()
    if line == "950":
        return P.codes(base + " BF16 FLOAT8_E5M2 FLOAT8_E4M3FN")
    return P.codes(base + " BF16") if line in ("A2", "A3") else P.codes(base)


class Gather(AclnnOp):
    name = "aclnnGather"
    inputs = ("self", "index")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": _gather_dtypes(), "index": INDEX_DTYPES, "out": _gather_dtypes()}

    def check(self, a):
        checks.not_null(a, "self", "index", "out")
        checks.dtype_in("self", a.self, _gather_dtypes())
        if not a.index.is_empty() and a.index.dtype not in INDEX_DTYPES:
            raise status.param_invalid("aclnnGather not implemented for index dtype %s."
                                       % dtypes.serial_name(a.index.dtype))
        checks.dtype_match("out", a.out, a.self.dtype)
        rank = max(a.self.ndim, 1)
        if rank != max(a.index.ndim, 1):
            raise status.param_invalid("Index tensor must have the same number of dimensions as input tensor.")
        for name in ("self", "index", "out"):
            checks.max_dim(name, getattr(a, name))
        checks.same_shape("out", a.out, "index", a.index)
        if not -rank <= a.dim < rank:
            raise status.param_invalid("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                                       % (-rank, rank - 1, a.dim))
        a.axis = a.dim % rank
        if not a.index.is_empty():
            for i in range(a.self.ndim):
                size, wanted = a.self.shape[i], a.index.shape[i]
                if i != a.axis and wanted > size:
                    raise status.param_invalid("Size does not match at dimension %d, expected index shape %d smaller "
                                               "than self shape %d" % (i, wanted, size))
                if i == a.axis and size == 0:
                    raise status.param_invalid("Size does not match at dimension %d, expected index shape to be 0" % i)
        a.empty = a.index.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, index = v["self"], np.asarray(v["index"], np.int64)
        if x.ndim == 0:
            x, index = x.reshape(1), index.reshape(1)
        coordinates = list(np.indices(index.shape, sparse=True))
        coordinates[a.axis] = index
        size = x.shape[a.axis]
        what = addressing.describe(self.name, "index", index, size, a.axis) if addressing.outside(index, size) else None
        result = x[tuple(coordinates)] if what is None else addressing.gather(x, coordinates, what)
        v["out"][...] = result.reshape(v["out"].shape)


def _gather_nd_dtypes():
    base = "FLOAT INT32 INT64 FLOAT16 INT8 UINT8 BOOL"
    line = _products.line()
    if line == "950":
        return P.codes(base + " BF16 DOUBLE INT16 UINT16 UINT32 UINT64")
    if line in ("A2", "A3"):
        return P.codes(base + " BF16")
    return P.codes(base) if line in ("910", "310P") else ()


class GatherNd(AclnnOp):
    name = "aclnnGatherNd"
    inputs = ("self", "indices")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": _gather_nd_dtypes(), "indices": INDEX_DTYPES, "out": _gather_nd_dtypes()}

    def check(self, a):
        checks.not_null(a, "self", "indices", "out")
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, _gather_nd_dtypes())
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)
        for name in ("self", "indices"):
            checks.min_dim(name, getattr(a, name), 1)
            checks.max_dim(name, getattr(a, name))
        depth = a.indices.shape[-1]
        if not 1 <= depth <= a.self.ndim:
            raise status.param_invalid("indices last dim %d not in valid range: [1, %d]" % (depth, a.self.ndim))
        expected = tuple(a.indices.shape[:-1]) + tuple(a.self.shape[depth:])
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        a.depth = depth
        a.empty = a.self.is_empty() or a.indices.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, indices = v["self"], np.asarray(v["indices"], np.int64)
        lead = indices.shape[:-1]
        tail = x.shape[a.depth:]
        coordinates, what = [], None
        for k in range(a.depth):
            c = indices[..., k]
            if a.negativeIndexSupport:
                c = addressing.wrap(c, x.shape[k])
            if what is None and addressing.outside(c, x.shape[k]):
                what = addressing.describe(self.name, "indices[..., %d]" % k, c, x.shape[k], k)
            coordinates.append(c.reshape(lead + (1,) * len(tail)))
        for g in (np.indices(tail, sparse=True) if tail else ()):
            coordinates.append(g.reshape((1,) * len(lead) + g.shape))
        result = x[tuple(coordinates)] if what is None else addressing.gather(x, coordinates, what)
        v["out"][...] = result.reshape(v["out"].shape)
