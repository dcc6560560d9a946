"""Row and N-d updates: aclnnIndexCopy / aclnnInplaceIndexCopy (ops-nn index/scatter_update), aclnnInplaceScatterUpdate
(index/scatter), aclnnScatterNd, aclnnScatterNdUpdate, aclnnInplacePut (index/scatter_nd_update, scatter_nd) and
aclnnTfScatterAdd (index/tf_scatter_add).

    IndexCopy          out = self; out[..., index[i], ...] = source[..., i, ...] along dim (PyTorch's index_copy)
    InplaceScatterUpdate  data[b, ..., o + k, ...] = updates[i, ..., k, ...] along axis, with (b, o) = (i, indices[i])
                       for 0-d/1-d indices and indices[i] = (b, o) for (n, 2) indices: a KV-cache write
    ScatterNd          out = data; out[indices[i…]] = updates[i…] (q = indices.shape[-1] leading coordinates)
    ScatterNdUpdate    varRef[indices[i…]] = updates[i…]
    InplacePut         selfRef.flatten()[index] = source.flatten() (accumulate: +=)
    TfScatterAdd       varRef[indices[i…]] += updates[i…, …] (TensorFlow's scatter_add), or its N-d form when the
                       shapes are ScatterNdAdd's

Phase 1 follows each op_api file; where it checks no shapes (ScatterNdUpdate) the kernel's tiling refuses
shapes it cannot address (ACLNN_ERR_INNER_TILING_ERROR). Quirk kept: aclnnScatterNd runs ScatterNdUpdate on
data itself when data is contiguous (l0op::Contiguous returns it unchanged), so such a data is updated too.

Duplicates (common/addressing.py): writes land in index order, the last wins; adds accumulate in index order,
bf16 through fp32 (TfScatterAdd's op_api casts) and fp16 in fp16 step by step (its kernel adds in the data's
type); IndexCopy's and ScatterUpdate's docs leave duplicates undefined. Index values are never validated:
out-of-shape ones address memory past the rows, or fault."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common import addressing

INDEX_DTYPES = P.codes("INT64 INT32")


# ---- IndexCopy ------------------------------------------------------------------------------------------------

def _index_copy_dtypes():
    line = _products.line()
    if line in ("A2", "A3"):
        return P.codes("DOUBLE INT16 INT8 UINT8 COMPLEX64 COMPLEX128 BOOL FLOAT FLOAT16 INT32 INT64 BF16")
    if line == "950":
        return P.codes("DOUBLE INT16 COMPLEX64 COMPLEX128 BOOL FLOAT FLOAT16 INT32 UINT32 INT64 UINT64 BF16 INT8 UINT8")
    return P.codes("INT64 DOUBLE INT16 INT8 UINT8 COMPLEX64 COMPLEX128 BOOL FLOAT FLOAT16 INT32")


class _IndexCopyBase(AclnnOp):
    inputs = ("selfRef", "index", "source")

    def dtype_table(self):
        return {"selfRef": _index_copy_dtypes(), "index": INDEX_DTYPES, "source": _index_copy_dtypes()}

    def check(self, a):
        out = a.selfRef if self.inplace else a.outRef
        checks.not_null(a, "selfRef", "index", "source")
        if out is None:
            checks.not_null(a, "outRef")
        x, source, index = a.selfRef, a.source, a.index
        checks.dtype_in("self", x, _index_copy_dtypes())
        checks.dtype_in("index", index, INDEX_DTYPES)
        checks.same_dtype("self", x, "source", source)
        checks.same_dtype("self", x, "out", out)
        checks.max_dim("self", x)
        checks.max_dim("source", source)
        checks.max_dim("index", index, 1)
        checks.same_shape("self", x, "out", out)
        if source.ndim == 0 and index.numel() != 1:
            raise status.param_invalid("When source is scalar,index should have one element,but got %d." % index.numel())
        if x.ndim != source.ndim and x.ndim and source.ndim:
            raise status.param_invalid("When source and self are not scalars,their dimensionality must match,but got "
                                       "self dimensionality %s,source dimensionlity %s"
                                       % (checks.shape_text(x.shape), checks.shape_text(source.shape)))
        n = x.ndim
        if n == 0 and a.dim not in (0, -1):
            raise status.param_invalid("Dimension out of range (expected to be in range of [-1, 0], but got %d)" % a.dim)
        if n and not -n <= a.dim < n:
            raise status.param_invalid("Dimension out of range (expected to be in range of [-%d, %d],but got %d)"
                                       % (n, n - 1, a.dim))
        axis = a.dim % n if n else 0
        if any(x.shape[i] != source.shape[i] for i in range(n) if i != axis and i < source.ndim):
            raise status.param_invalid("Self and source must have same slice shapes")
        if source.ndim and index.numel() != source.shape[a.dim % source.ndim]:
            raise status.param_invalid("The element num of index (%d) should be equal to source size in dimension %d, "
                                       "actual is %d" % (index.numel(), a.dim, source.shape[a.dim % source.ndim]))
        if x.format != out.format:
            raise status.param_invalid("Format of input and output should be same. self [%d], out [%d]."
                                       % (x.format, out.format))
        a.axis = axis
        a.empty = x.is_empty() or index.is_empty()

    def compute(self, a, v, workspace):
        x = v["selfRef"]
        out = x if self.inplace else v["outRef"]
        if out is not x:
            np.copyto(out, x)
        if a.empty:
            return
        target = out.reshape(1) if out.ndim == 0 else out
        index = np.asarray(v["index"], np.int64).reshape(-1)
        source = v["source"]
        source = source.reshape((1,) * max(target.ndim, 1)) if source.ndim == 0 else source
        coordinates = [g for g in np.indices(source.shape, sparse=True)]
        coordinates[a.axis] = index.reshape((1,) * a.axis + (-1,) + (1,) * (source.ndim - a.axis - 1))
        size = target.shape[a.axis]
        if not addressing.outside(index, size):
            target[tuple(coordinates)] = source
            return
        addressing.assign(target, coordinates, source, addressing.describe(self.name, "index", index, size, a.axis))


class IndexCopy(_IndexCopyBase):
    name = "aclnnIndexCopy"
    outputs = ("outRef",)
    inplace = False


class InplaceIndexCopy(_IndexCopyBase):
    name = "aclnnInplaceIndexCopy"
    outputs = ("selfRef",)
    inplace = True


# ---- ScatterUpdate (KV-cache writes) ---------------------------------------------------------------------------

class InplaceScatterUpdate(AclnnOp):
    name = "aclnnInplaceScatterUpdate"
    inputs = ("data", "indices", "updates")
    outputs = ("data",)
    products = _products.describe(("910", "A2", "A3", "950"))
    PRODUCTS = ("910", "A2", "A3", "950")

    @staticmethod
    def data_dtypes():
        if _products.is_regbase():
            return P.codes("INT8 FLOAT16 FLOAT BF16 UINT8 INT32 FLOAT8_E4M3FN FLOAT8_E5M2")
        return P.codes("INT8 FLOAT16 FLOAT BF16 INT32")

    def dtype_table(self):
        return {"data": self.data_dtypes(), "indices": INDEX_DTYPES, "updates": self.data_dtypes()}

    def check(self, a):
        checks.not_null(a, "data", "indices", "updates")
        data, indices, updates = a.data, a.indices, a.updates
        checks.dtype_in("data", data, self.data_dtypes())
        checks.dtype_in("indices", indices, INDEX_DTYPES)
        checks.dtype_match("updates", updates, data.dtype)
        if data.dtype == P.BF16 and _products.line() not in ("A2", "A3"):
            raise status.param_invalid("data dtype DT_BFLOAT16 is unsupported by the current SOC version [%s]."
                                       % soc())
        if data.is_empty() or updates.is_empty() or indices.is_empty():
            raise status.param_invalid("input tensors can not be empty tensor")
        if data.ndim != updates.ndim:
            raise status.param_invalid("dimension of data and updates should equal")
        if indices.ndim == 0 and updates.shape[0] != 1:
            raise status.param_invalid("when the dimension of indices are 0, batch axis of updates should be 1")
        if indices.ndim not in (0, 1, 2):
            raise status.param_invalid("dimension of indices should be 0, 1 or 2")
        _products.check_supported(self.name, self.PRODUCTS)
        n = data.ndim
        if not -n <= a.axis < n or a.axis % n == 0:
            raise status.tiling_error("aclnnInplaceScatterUpdate: axis %d must name a dimension of data other than "
                                      "the batch axis 0" % a.axis)
        a.along = a.axis % n
        batch = indices.shape[0] if indices.ndim else 1
        shape_ok = (updates.shape[0] == batch and updates.shape[0] <= data.shape[0]
                    and (indices.ndim < 2 or indices.shape[1] == 2)
                    and all(updates.shape[i] == data.shape[i] for i in range(1, n) if i != a.along))
        if not shape_ok:
            raise status.tiling_error("aclnnInplaceScatterUpdate: updates %s, indices %s do not fit data %s"
                                      % (checks.shape_text(updates.shape), checks.shape_text(indices.shape),
                                         checks.shape_text(data.shape)))

    def compute(self, a, v, workspace):
        data, updates = v["data"], v["updates"]
        indices = np.asarray(v["indices"], np.int64)
        n, axis = data.ndim, a.along
        if indices.ndim == 2:
            batch, offset = indices[:, 0], indices[:, 1]
        else:
            offset = indices.reshape(-1)
            batch = np.arange(offset.size)
        coordinates = list(np.indices(updates.shape, sparse=True))
        coordinates[0] = batch.reshape((-1,) + (1,) * (n - 1))
        coordinates[axis] = offset.reshape((-1,) + (1,) * (n - 1)) + coordinates[axis]
        what = "%s: a batch or offset past data %s" % (self.name, checks.shape_text(data.shape))
        addressing.assign(data, coordinates, updates, what)


# ---- ScatterNd family ------------------------------------------------------------------------------------------

def nd_coordinates(target_shape, indices):
    """Coordinates of target for an (…, q) index array: its q columns, then the trailing dimensions' grids."""
    q = indices.shape[-1]
    lead = indices.shape[:-1]
    tail = target_shape[q:]
    coordinates = [indices[..., k].reshape(lead + (1,) * len(tail)) for k in range(q)]
    coordinates += [g.reshape((1,) * len(lead) + g.shape) for g in (np.indices(tail, sparse=True) if tail else ())]
    return coordinates


def nd_what(op, indices, shape):
    for k in range(indices.shape[-1]):
        if addressing.outside(indices[..., k], shape[k]):
            return addressing.describe(op, "indices[..., %d]" % k, indices[..., k], shape[k], k)
    return None


def nd_shape_error(data_shape, indices_shape, updates_shape):
    """ScatterNd's shape rule: the message, or None when updates = indices.shape[:-1] + data.shape[q:]."""
    q = indices_shape[-1]
    if len(data_shape) + len(indices_shape) - q - 1 != len(updates_shape):
        return "the rank of data,indices should match the shape of updates"
    if q > len(data_shape):
        return "the rank of data should bigger than indices"
    if tuple(updates_shape[:len(indices_shape) - 1]) != tuple(indices_shape[:-1]) or \
            tuple(updates_shape[len(indices_shape) - 1:]) != tuple(data_shape[q:]):
        return "the shape of data, indices and updates are not matched"
    return None


def scatter_nd(op, target, indices, updates, how="none", compute=None):
    indices = np.asarray(indices, np.int64)
    coordinates = nd_coordinates(target.shape, indices)
    what = nd_what(op, indices, target.shape)
    if how == "none":
        if what is None:
            target[tuple(coordinates)] = updates
        else:
            addressing.assign(target, coordinates, updates, what)
        return
    addressing.reduce_at(target, coordinates, updates, how, what or op, compute=compute)


class ScatterNd(AclnnOp):
    name = "aclnnScatterNd"
    inputs = ("data", "indices", "updates")
    outputs = ("out", "data")   # a contiguous data is updated too (see the module's docstring)
    products = _products.describe(("A2", "A3", "950"))
    PRODUCTS = ("A2", "A3", "950")
    DTYPES = P.codes("FLOAT16 FLOAT BOOL BF16")

    def dtype_table(self):
        return {"data": self.DTYPES, "indices": INDEX_DTYPES, "updates": self.DTYPES, "out": self.DTYPES}

    def check(self, a):
        checks.not_null(a, "data", "indices", "updates", "out")
        checks.dtype_in("data", a.data, self.DTYPES)
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)
        checks.dtype_match("updates", a.updates, a.data.dtype)
        checks.dtype_match("out", a.out, a.data.dtype)
        if a.data.dtype == P.BF16 and _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("data dtype DT_BFLOAT16 is unsupported by the current SOC version.")
        for name in ("data", "indices", "updates"):
            checks.min_dim(name, getattr(a, name), 1)
        for name in ("data", "indices", "updates"):
            checks.max_dim(name, getattr(a, name))
        checks.same_shape("data", a.data, "out", a.out)
        error = nd_shape_error(a.data.shape, a.indices.shape, a.updates.shape)
        if error:
            raise status.param_invalid(error)
        _products.check_supported(self.name, self.PRODUCTS)
        a.empty = a.data.is_empty() or a.indices.is_empty() or a.updates.is_empty()
        a.in_place = _contiguous(a.data)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        data, out = v["data"], v["out"]
        target = data if a.in_place else data.copy()
        scatter_nd(self.name, target, v["indices"], v["updates"])
        if target is not out:
            np.copyto(out, target)


def _contiguous(desc):
    expected, step = [], 1
    for d in reversed(desc.shape):
        expected.insert(0, step)
        step *= d
    return all(s == e or d == 1 for s, e, d in zip(desc.strides, expected, desc.shape))


class ScatterNdUpdate(AclnnOp):
    name = "aclnnScatterNdUpdate"
    inputs = ("varRef", "indices", "updates")
    outputs = ("varRef",)

    @staticmethod
    def var_dtypes():
        line = _products.line()
        if line == "950":
            return P.codes("FLOAT FLOAT16 BOOL BF16 INT64 INT8 FLOAT8_E5M2 FLOAT8_E4M3FN UINT8")
        if line in ("A2", "A3"):
            return P.codes("FLOAT FLOAT16 BOOL INT16 BF16 INT64 INT8 INT32")
        return P.codes("FLOAT FLOAT16 BOOL")

    def dtype_table(self):
        return {"varRef": self.var_dtypes(), "indices": INDEX_DTYPES, "updates": self.var_dtypes()}

    def check(self, a):
        checks.not_null(a, "varRef", "indices", "updates")
        checks.dtype_in("varRef", a.varRef, self.var_dtypes())
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)
        if a.varRef.dtype != a.updates.dtype:
            raise status.param_invalid("updates dtype %s should be in same with varRef dtype %s."
                                       % (dtypes.serial_name(a.updates.dtype), dtypes.serial_name(a.varRef.dtype)))
        a.empty = a.varRef.is_empty() or a.indices.is_empty() or a.updates.is_empty()
        if not a.empty:
            error = nd_shape_error(a.varRef.shape, a.indices.shape, a.updates.shape) if a.indices.ndim else "indices is 0-d"
            if error:
                raise status.tiling_error("aclnnScatterNdUpdate: %s (varRef %s, indices %s, updates %s)"
                                          % (error, checks.shape_text(a.varRef.shape), checks.shape_text(a.indices.shape),
                                             checks.shape_text(a.updates.shape)))

    def compute(self, a, v, workspace):
        if not a.empty:
            scatter_nd(self.name, v["varRef"], v["indices"], v["updates"])


class InplacePut(AclnnOp):
    name = "aclnnInplacePut"
    inputs = ("selfRef", "index", "source")
    outputs = ("selfRef",)
    _BASE = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE COMPLEX64 COMPLEX128 BOOL"

    def self_dtypes(self, accumulate):
        wide = _products.line() in ("A2", "A3", "950") and not accumulate
        return P.codes(self._BASE + (" BF16" if wide else ""))

    def dtype_table(self):
        return {"selfRef": self.self_dtypes(False), "index": INDEX_DTYPES, "source": self.self_dtypes(False)}

    def check(self, a):
        checks.not_null(a, "selfRef", "index", "source")
        checks.dtype_in("self", a.selfRef, self.self_dtypes(a.accumulate))
        checks.dtype_in("index", a.index, INDEX_DTYPES)
        if a.selfRef.dtype != a.source.dtype:
            raise status.param_invalid("source dtype %s should be in same with self dtype %s."
                                       % (dtypes.serial_name(a.source.dtype), dtypes.serial_name(a.selfRef.dtype)))
        checks.max_dim("self", a.selfRef)
        checks.max_dim("index", a.index)
        if a.index.numel() != a.source.numel():
            raise status.param_invalid("Expect source and index to have the same number of elements,but the source has "
                                       "%d,the index has %d." % (a.source.numel(), a.index.numel()))
        a.empty = a.index.is_empty()
        if not a.empty and a.selfRef.is_empty():
            raise status.param_invalid("Can not put elements into an empty tensor")

    def compute(self, a, v, workspace):
        if a.empty:
            return
        target = v["selfRef"]
        flat = target.reshape(-1)
        if not np.shares_memory(flat, target) and target.size:
            flat = target.copy().reshape(-1)   # a non-contiguous self: the op_api's contiguous copy, written back
        index = np.asarray(v["index"], np.int64).reshape(-1, 1)
        scatter_nd(self.name, flat, index, v["source"].reshape(-1), "add" if a.accumulate else "none")
        if not np.shares_memory(flat, target):
            np.copyto(target, flat.reshape(target.shape))


class TfScatterAdd(AclnnOp):
    name = "aclnnTfScatterAdd"
    inputs = ("varRef", "indices", "updates")
    outputs = ("varRef",)
    PRODUCTS = ("910", "A2", "A3", "950")
    products = _products.describe(PRODUCTS)
    DTYPES = P.codes("FLOAT FLOAT16 BF16 INT32 INT8 UINT8")

    def dtype_table(self):
        return {"varRef": self.DTYPES, "indices": INDEX_DTYPES, "updates": self.DTYPES}

    def check(self, a):
        checks.not_null(a, "varRef", "indices", "updates")
        allowed = self.DTYPES if _products.line() in self.PRODUCTS else ()
        checks.dtype_in("varRef", a.varRef, allowed)
        checks.dtype_in("indices", a.indices, INDEX_DTYPES)
        if a.varRef.dtype != a.updates.dtype:
            raise status.param_invalid("updates dtype %s should be in same with varRef dtype %s."
                                       % (dtypes.serial_name(a.updates.dtype), dtypes.serial_name(a.varRef.dtype)))
        error = _tf_rows_error(a.varRef, a.indices, a.updates)
        nd_error = _tf_nd_error(a.varRef, a.indices, a.updates) if a.indices.ndim else error
        if error and nd_error:
            raise status.param_invalid(nd_error)
        a.nd = nd_error is None
        a.empty = a.varRef.is_empty() or a.indices.is_empty() or a.updates.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        var, indices, updates = v["varRef"], np.asarray(v["indices"], np.int64), v["updates"]
        if not a.nd:
            indices = indices[..., None]
        # bf16 goes through fp32 (the op_api's casts); the kernel adds fp16 in fp16
        compute = np.dtype(np.float16) if var.dtype == np.float16 else None
        scatter_nd(self.name, var, indices, updates, "add", compute=compute)


def _tf_rows_error(var, indices, updates):
    for name, t in (("varRef", var), ("indices", indices), ("updates", updates)):
        if t.ndim < 1:
            return "The %s tensor must have at least 1 dimensions." % name
        if t.ndim > 8:
            return "The %s tensor cannot be larger than 8 dimensions." % name
    if var.shape[0] == 0 and not indices.is_empty():
        return "when varRef.shape[0] = 0, indices tensor must be empty."
    if updates.ndim != indices.ndim + var.ndim - 1:
        return "updatesDimNum must have the same number of indicesDimNum add varDimNum - 1."
    if tuple(updates.shape[:indices.ndim]) != tuple(indices.shape):
        return "updatesShape must have the same number of indicesShape."
    if tuple(updates.shape[indices.ndim:]) != tuple(var.shape[1:]):
        return "updatesShape must have the same number of varShape."
    return None


def _tf_nd_error(var, indices, updates):
    q = indices.shape[-1]
    if q > var.ndim:
        return "indices.shape[-1] must less than or equal to varRefDimNum."
    if updates.ndim != indices.ndim - 1 + var.ndim - q:
        return "updatesDimNum must have the same number of indicesDimNum - 1 add varDimNum - rankSize."
    if tuple(updates.shape[:indices.ndim - 1]) != tuple(indices.shape[:-1]):
        return "updatesShape must have the same number of indicesShape."
    if tuple(updates.shape[indices.ndim - 1:]) != tuple(var.shape[q:]):
        return "updatesShape must have the same number of varShape."
    return None
