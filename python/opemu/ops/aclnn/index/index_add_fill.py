"""aclnnIndexAdd, aclnnIndexAddV2 (ops-nn index/inplace_scatter_add op_api), aclnnIndexFill, aclnnIndexFillTensor
and their Inplace forms (index/index_fill_d op_api): PyTorch's index_add and index_fill.

    IndexAdd / V2        out = self; out.index_add_(dim, index, source, alpha): out[.., index[i], ..] += alpha *
                         source[.., i, ..]
    IndexFill            out = self; out[.., index[i], ..] = value (index an aclTensor)
    IndexFillTensor      the same with index an aclIntArray

Rounding points, as the op_api routes them (ACL_OPT_DETERMINISTIC at its default, off):
  IndexAdd   fp16/bf16 along dim 0 on A2/A3 (InplaceIndexAddWithSorted) and bf16 elsewhere but the 950 (cast
             to fp32 around the kernel): alpha and the sums in fp32, one rounding. fp16 on the other routes
             and bf16 on the 950 (the AI Core kernel): alpha and each product alpha·source rounded to the
             dtype, and each addition too, in index order. Integers and double: exact in the dtype (integer
             wrap-around), alpha converted to the dtype.
  IndexAddV2 mode 0 (A2/A3/950 dtypes FLOAT FLOAT16 INT32 INT16 BF16; any product: a 2-D self, a 1-D index and
             dim 0 or -2, or phase 1 refuses "Do not support mode == 0"): InplaceScatterAdd, which takes no
             alpha — source is added as it is, in fp32 (int32 for INT16/INT32), rounded once. Any other mode:
             the AI CPU kernel in double for FLOAT16/FLOAT/BF16 (alpha in double), rounded once.
  IndexFill  the value converted to self's dtype; IndexFillTensor on products other than the 950 goes
             through an fp32 assist matrix: the value is rounded to fp32 first (a large INT64 value loses bits).

Duplicates add in index order. Index values: IndexFill's kernels add the size to a negative index and skip one
still outside [0, size); IndexFillTensor refuses one outside [-size, size) in phase 1. IndexAdd's 950 kernels skip an
index outside [0, size) too; on the other products nothing validates it and it adds into the memory it
addresses (common/addressing.py)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import addressing
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

INDEX_DTYPES = P.codes("INT64 INT32")
_ADD_BASE = "FLOAT INT32 FLOAT16 DOUBLE INT16 INT8 UINT8 INT64 BOOL"
ADD_V2_DTYPES = P.codes(_ADD_BASE + " BF16")


def add_dtypes():
    return P.codes(_ADD_BASE + (" BF16" if _products.line() in ("A2", "A3", "950") else ""))


class IndexAdd(AclnnOp):
    name = "aclnnIndexAdd"
    inputs = ("self", "index", "source")
    outputs = ("out",)
    v2 = False

    def dtype_table(self):
        allowed = ADD_V2_DTYPES if self.v2 else add_dtypes()
        return {"self": allowed, "index": INDEX_DTYPES, "source": allowed, "out": allowed}

    def check(self, a):
        checks.not_null(a, "self", "index", "source", "alpha", "out")
        self._check_dtypes(a)
        x, source, index = a.self, a.source, a.index
        source_shape = tuple(source.shape) or (1,)
        index_shape = tuple(index.shape) or (1,)
        checks.max_dim("self", x)
        checks.max_dim("source", source)
        n = x.ndim
        if n == 0 and not self.v2:
            if a.dim not in (0, -1):
                raise status.param_invalid("when self.dims() == 0, dim should be 0 or -1, but dim is %d." % a.dim)
        elif (a.dim < -n or a.dim >= n) and not (a.dim == 0 and n == 0):
            raise status.param_invalid("dim should be in [-self.dims(), self.dims), but dim is %d." % a.dim)
        if n and n != len(source_shape):
            raise status.param_invalid("DimNum of self must be equal to dimNum of source.")
        axis = a.dim + n if a.dim < 0 else a.dim
        axis = min(max(axis, 0), max(n, 1) - 1)
        for d in range(n):
            if d != axis and x.shape[d] != source_shape[d]:
                raise status.param_invalid("The size of self must match the size of source at dimension %d." % a.dim)
        if len(index_shape) > 1:
            raise status.param_invalid("Index dimension %d is supposed to be 1." % len(index_shape))
        if index_shape[0] != source_shape[axis if axis < len(source_shape) else 0]:
            raise status.param_invalid("Number of index should be equal to number of source in dim  %d." % a.dim)
        checks.same_shape("self", x, "out", a.out)
        a.axis = axis
        a.empty = x.is_empty() or source.is_empty()
        if not a.empty and self.v2 and a.mode == 0 and not self._mode0_supported(a):
            raise status.param_invalid("Do not support mode == 0, please check!")

    def _check_dtypes(self, a):
        allowed = add_dtypes()
        x = a.self
        if x.dtype not in allowed:
            raise status.param_invalid("Self dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(x.dtype), dtypes.serial_list(allowed)[1:-1]))
        if a.index.dtype not in INDEX_DTYPES:
            raise status.param_invalid("index dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(a.index.dtype), dtypes.serial_list(INDEX_DTYPES)[1:-1]))
        if a.source.dtype not in allowed:
            raise status.param_invalid("source dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(a.source.dtype), dtypes.serial_list(allowed)[1:-1]))
        if a.out.dtype not in allowed:
            raise status.param_invalid("outDtype dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(a.source.dtype), dtypes.serial_list(allowed)[1:-1]))
        for other in (a.source, a.out):
            if other.dtype != x.dtype:
                raise status.param_invalid("self dtype %s and source dtype %s must same."
                                           % (dtypes.serial_name(x.dtype), dtypes.serial_name(other.dtype)))

    @staticmethod
    def _mode0_supported(a):
        if _products.line() in ("A2", "A3", "950") and a.self.dtype not in P.codes("FLOAT FLOAT16 INT32 INT16 BF16"):
            return False
        return a.self.ndim == 2 and a.index.ndim == 1 and a.dim in (0, -2)

    def compute(self, a, v, workspace):
        x, out = v["self"], v["out"]
        if out is not x:
            np.copyto(out, x)
        if a.empty:
            return
        target = out.reshape(1) if out.ndim == 0 else out
        source = v["source"]
        source = source.reshape(1) if source.ndim == 0 else source
        index = np.asarray(v["index"], np.int64).reshape(-1)
        alpha, compute = self._rounding(a, target.dtype)
        if compute.kind == "f":
            with np.errstate(all="ignore"):
                values = source.astype(compute) if alpha is None else source.astype(compute) * compute.type(alpha)
        else:
            values = source.astype(compute) if alpha is None else source.astype(compute) * compute.type(alpha)
        size = target.shape[a.axis]
        if _products.is_regbase():   # the 950's kernels skip an index outside [0, size)
            keep = (index >= 0) & (index < size)
            if not keep.all():
                index = index[keep]
                values = np.take(values, np.flatnonzero(keep), axis=a.axis)
        coordinates = list(np.indices(values.shape, sparse=True))
        coordinates[a.axis] = index.reshape((1,) * a.axis + (-1,) + (1,) * (values.ndim - a.axis - 1))
        if index.size == 0:
            return
        what = addressing.describe(self.name, "index", index, size, a.axis)
        addressing.reduce_at(target, coordinates, values, "add", what, compute=compute)

    def _rounding(self, a, numpy_type):
        """(alpha as the kernel sees it or None for no alpha, the dtype the sums are formed in)."""
        code = dtypes.ACL_OF[np.dtype(numpy_type)]
        half = code in (P.FLOAT16, P.BF16)
        if self.v2:
            if a.mode == 0:
                return None, np.dtype(np.int32 if code in P.codes("INT16 INT32") else np.float32)
            if code in (P.FLOAT16, P.FLOAT, P.BF16):
                return a.alpha.to_float(), np.dtype(np.float64)
            return a.alpha.as_type(numpy_type), np.dtype(numpy_type)
        if half:
            sorted_route = (_products.line() in ("A2", "A3") and a.dim == 0
                            and not (a.self.ndim == 0 and a.index.numel() == 1))
            if sorted_route or (code == P.BF16 and not _products.is_regbase()):
                return np.float32(a.alpha.to_float()), np.dtype(np.float32)
            # the AI Core kernel: alpha in the dtype, the product and every sum rounded to it
            return a.alpha.as_type(numpy_type), np.dtype(numpy_type)
        return a.alpha.as_type(numpy_type), np.dtype(numpy_type)


class IndexAddV2(IndexAdd):
    name = "aclnnIndexAddV2"
    v2 = True

    def _check_dtypes(self, a):
        x = a.self
        if x.dtype not in ADD_V2_DTYPES:
            raise status.param_invalid("self dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(x.dtype), dtypes.serial_list(ADD_V2_DTYPES)[1:-1]))
        if a.index.dtype not in INDEX_DTYPES:
            raise status.param_invalid("index dtype %s should be in dtype support list [%s]."
                                       % (dtypes.serial_name(a.index.dtype), dtypes.serial_list(INDEX_DTYPES)[1:-1]))
        for other in (a.source, a.out):
            if other.dtype != x.dtype:
                raise status.param_invalid("self dtype %s and source dtype %s must same."
                                           % (dtypes.serial_name(x.dtype), dtypes.serial_name(other.dtype)))
        checks.result_castable(a.alpha.dtype, x.dtype)


_FILL_A2 = "INT32 FLOAT16 FLOAT INT64 BOOL BF16"
_FILL_950 = _FILL_A2 + " INT8 UINT8 INT16 DOUBLE"


def fill_dtypes(tensor_form):
    line = _products.line()
    if line == "950":
        return P.codes(_FILL_950)
    if line in ("A2", "A3"):
        return P.codes(_FILL_A2)
    return P.codes("INT32 FLOAT16 FLOAT INT64 BOOL") if tensor_form else ()


class IndexFill(AclnnOp):
    name = "aclnnIndexFill"
    self_name, target = "self", "out"
    array_index = False   # IndexFillTensor: index is an aclIntArray

    @property
    def inputs(self):
        return (self.self_name,) + (() if self.array_index else ("index",))

    @property
    def outputs(self):
        return (self.target,)

    def dtype_table(self):
        table = {self.self_name: fill_dtypes(self.array_index)}
        if not self.array_index:
            table["index"] = INDEX_DTYPES
        return table

    def check(self, a):
        x = getattr(a, self.self_name)
        out = getattr(a, self.target)
        for name in (self.self_name, "index", "value", self.target):
            if getattr(a, name) is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument %s." % name)
        allowed = fill_dtypes(self.array_index)
        checks.dtype_in("self", x, allowed)
        checks.same_dtype("self", x, "out", out)
        if not self.array_index and _products.line() in ("A2", "A3", "950"):
            checks.dtype_in("index", a.index, INDEX_DTYPES)
        n = x.ndim
        if not x.is_empty():
            checks.same_shape("self", x, "out", out)
            checks.max_dim("self", x)
            if (a.dim != 0 and a.dim >= n) or (a.dim == 0 and a.dim > n):
                raise status.param_invalid("Dim value error, input dim[%d] is greater than self dim[%d]." % (a.dim, n))
            if (a.dim < 0 and -a.dim > n and n > 0) or (a.dim < 0 and -a.dim > 1 and n == 0):
                raise status.param_invalid("Dim value error, abs(input dim[%d]) is greater than self dim[%d]."
                                           % (a.dim, n))
            if self.array_index:
                axis = a.dim if a.dim >= 0 else (a.dim + n if n > 0 else 0)
                size = 1 if n == 0 else x.shape[axis]
                for value in a.index:
                    if value >= size or value < -size:
                        raise status.param_invalid("Index value[%d] is out of range, it should be smaller than [%d]."
                                                   % (value, size))
        if self.array_index and a.value.dtype in P.COMPLEXES:
            raise status.param_invalid("Type of value do not support complex type")
        a.axis = (a.dim if a.dim >= 0 else a.dim + n) if n else 0
        a.empty = x.is_empty()

    def compute(self, a, v, workspace):
        x, out = v[self.self_name], v[self.target]
        if a.empty:
            return
        if out is not x:
            np.copyto(out, x)
        target = out.reshape(1) if out.ndim == 0 else out
        if self.array_index:
            index = np.asarray(list(a.index), np.int64)
            if not _products.is_regbase():   # the fp32 assist matrix
                value = np.asarray(np.float32(a.value.to_float())).astype(target.dtype)
            else:
                value = a.value.as_type(target.dtype)
        else:
            index = np.asarray(v["index"], np.int64).reshape(-1)
            value = a.value.as_type(target.dtype)
        if index.size == 0:
            return
        size = target.shape[a.axis]
        index = np.where(index < 0, index + size, index)
        index = np.unique(index[(index >= 0) & (index < size)])
        key = (slice(None),) * a.axis + (index,)
        target[key] = value


def _form(base, name, self_name, target, array_index):
    return type(name[len("aclnn"):], (base,), dict(name=name, self_name=self_name, target=target,
                                                    array_index=array_index, __module__=__name__))


IndexFillTensor = _form(IndexFill, "aclnnIndexFillTensor", "self", "out", True)
InplaceIndexFill = _form(IndexFill, "aclnnInplaceIndexFill", "selfRef", "selfRef", False)
InplaceIndexFillTensor = _form(IndexFill, "aclnnInplaceIndexFillTensor", "selfRef", "selfRef", True)
