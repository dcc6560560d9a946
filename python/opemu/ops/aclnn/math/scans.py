"""Scans along one dim (ops-math math/cumsum, cumprod, cummax, cummin): Cumsum and CumsumV2 (exclusive, reverse),
Cumprod and its in-place form (dim an aclScalar), Cummax and Cummin (values and the index of the running extremum).

fp16/bf16 accumulate in fp32 and round each prefix once; integers wrap in out's width. Cummax/Cummin take the
latest index among equal values and stay at NaN once one is met (PyTorch's rule: x >= running max updates)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_product

CUMSUM = per_product("FLOAT FLOAT16 INT32 DOUBLE UINT8 INT8 INT16 INT64 COMPLEX64 COMPLEX128", "BF16")
CUMPROD = lambda: codes("FLOAT FLOAT16 BF16 DOUBLE INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64")
CUMPROD_DIM = lambda: codes("INT32 INT64")
CUM_EXTREMA = per_product("FLOAT FLOAT16 DOUBLE INT8 INT16 INT32 INT64 UINT8 BOOL", "BF16")
INDEX = lambda: codes("INT32 INT64")


def _accumulator(out_dtype):
    return np.float32 if out_dtype.kind in "fV" and out_dtype.itemsize < 4 else out_dtype


def _scan(ufunc, x, axis, out):
    """ufunc.accumulate along axis (0-d: along a length-1 view) into out's dtype."""
    view = x.reshape(1) if x.ndim == 0 else x
    acc = _accumulator(out.dtype)
    with np.errstate(all="ignore"):
        return ufunc.accumulate(view.astype(acc, copy=False), axis=axis).reshape(x.shape)


class Cumsum(AclnnOp):
    """nulls → out's dtype (in the list, equal to `dtype`) → out of self's shape, rank → dim."""
    name = "aclnnCumsum"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": CUMSUM(), "out": CUMSUM()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        self.check_dtypes(a)
        checks.same_shape("out", a.out, "self", a.self)
        checks.max_dim("self", a.self)
        ndim = max(a.self.ndim, 1)
        if not -ndim <= a.dim < ndim:
            raise status.param_invalid("expected dim to be in range of [%d, %d], but got %d." % (-ndim, ndim - 1, a.dim))
        a.axis = a.dim % ndim

    def check_dtypes(self, a):
        checks.dtype_in("out", a.out, CUMSUM())
        checks.dtype_match("out", a.out, a.dtype)

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        P.store(v["out"], self.scan(a, v["self"], v["out"]))

    def scan(self, a, x, out):
        return _scan(np.add, x, a.axis, out)


class CumsumV2(Cumsum):
    """Cumsum with `exclusive` (each prefix without its own element) and `reverse` (from the end)."""
    name = "aclnnCumsumV2"

    def check_dtypes(self, a):
        checks.dtype_in("self", a.self, CUMSUM())
        checks.dtype_in("out", a.out, CUMSUM())
        checks.same_dtype("self", a.self, "out", a.out)

    def scan(self, a, x, out):
        view = x.reshape(1) if x.ndim == 0 else x
        if a.reverse:
            view = np.flip(view, a.axis)
        sums = _scan(np.add, view, a.axis, out)
        if a.exclusive:
            sums = np.concatenate([np.zeros_like(np.take(sums, [0], a.axis)),
                                   np.take(sums, np.arange(sums.shape[a.axis] - 1), a.axis)], axis=a.axis)
        if a.reverse:
            sums = np.flip(sums, a.axis)
        return sums.reshape(x.shape)


class Cumprod(AclnnOp):
    """nulls → input, out and dim's dtypes → dim in range → out of input's shape → out of `dtype` (out's own
    when `dtype` is undefined)."""
    name = "aclnnCumprod"
    inputs, outputs = ("input",), ("out",)
    target = "out"

    def dtype_table(self):
        return {"input": CUMPROD(), "out": CUMPROD()}

    def check(self, a):
        checks.not_null(a, "input", self.target, scalars=["dim"])
        out = getattr(a, self.target)
        checks.dtype_in("input", a.input, CUMPROD())
        checks.dtype_in("out", out, CUMPROD())
        checks.dtype_in("inputDim", a.dim, CUMPROD_DIM())
        ndim, d = a.input.ndim, int(a.dim.value)
        if ndim == 0 and d not in (0, -1):
            raise status.param_invalid("Dimension out of range (expected to be in range of [-1, 0], but got %d)" % d)
        if ndim and not -ndim <= d < ndim:
            raise status.param_invalid("input dim(%d) out of range(%d,%d)" % (d, -ndim, ndim - 1))
        checks.same_shape("out", out, "input", a.input)
        wanted = getattr(a, "dtype", None)   # ACL_DT_UNDEFINED (or the in-place form): out's own
        if wanted is not None and wanted in dtypes.NUMPY_OF:
            checks.dtype_match("out", out, wanted)
        a.axis = d % max(ndim, 1)

    def compute(self, a, v, workspace):
        if a.input.is_empty():
            return
        P.store(v[self.target], _scan(np.multiply, v["input"], a.axis, v[self.target]))


class InplaceCumprod(Cumprod):
    name = "aclnnInplaceCumprod"
    inputs, outputs, target = ("input",), ("input",), "input"


def running_extremum(x, axis, ufunc):
    """(values, indices) of a running max (np.maximum) or min (np.minimum) along axis, PyTorch's tie rule."""
    view = x.reshape(1) if x.ndim == 0 else x
    key = P.widened(view)
    values = ufunc.accumulate(key, axis=axis)
    shape = [1] * view.ndim
    shape[axis] = view.shape[axis]
    positions = np.arange(view.shape[axis]).reshape(shape)
    hit = (key == values) | (np.isnan(key) & np.isnan(values)) if key.dtype.kind in "fc" else key == values
    indices = np.maximum.accumulate(np.where(hit, positions, 0), axis=axis)
    return values.reshape(x.shape), indices.reshape(x.shape)


class Cummax(AclnnOp):
    """nulls → dim (a 0-d self has none) → dtypes → rank and shapes."""
    name = "aclnnCummax"
    inputs, outputs = ("self",), ("valuesOut", "indicesOut")
    ufunc = np.maximum

    def dtype_table(self):
        return {"self": CUM_EXTREMA(), "valuesOut": CUM_EXTREMA(), "indicesOut": INDEX()}

    def check(self, a):
        checks.not_null(a, "self", "valuesOut", "indicesOut")
        ndim = a.self.ndim
        if ndim == 0 and self.name == "aclnnCummax":
            raise status.param_invalid("dimension specified as %d but tensor has not dimensions." % a.dim)
        if not -ndim <= a.dim <= ndim - 1:
            raise status.param_invalid("dim must be within the range of [%d, %d], but it is %d."
                                       % (-ndim, ndim - 1, a.dim))
        checks.dtype_in("self", a.self, CUM_EXTREMA())
        checks.dtype_in("valuesOut", a.valuesOut, CUM_EXTREMA())
        checks.dtype_in("indicesOut", a.indicesOut, INDEX())
        checks.max_dim("self", a.self)
        checks.same_shape("self", a.self, "valuesOut", a.valuesOut)
        checks.same_shape("self", a.self, "indicesOut", a.indicesOut)
        a.axis = a.dim % ndim

    def compute(self, a, v, workspace):
        if a.self.is_empty():
            return
        with np.errstate(invalid="ignore"):
            values, indices = running_extremum(v["self"], a.axis, self.ufunc)
        P.store(v["valuesOut"], values)
        P.store(v["indicesOut"], indices)


class Cummin(Cummax):
    name = "aclnnCummin"
    ufunc = np.minimum
