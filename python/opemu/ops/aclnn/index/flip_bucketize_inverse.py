"""aclnnFlip (ops-nn index/reverse_v2 op_api), aclnnBucketize (index/bucketize_v2, the 950 line) and aclnnInverse
(index/matrix_inverse).

    Flip       out = self reversed along every axis named in dims (each at most once)
    Bucketize  out[i] = the index of self[i]'s bucket among the sorted 1-D boundaries: the first boundary ≥ it
               (right: > it), PyTorch's bucketize; compared in the operands' common type (CombineCategories)
    Inverse    out = the inverse of each square matrix of self (…, n, n); fp16 is inverted in fp32 and rounded
               (the op_api's casts), a singular matrix gives what the elimination gives (inf or NaN), not an error"""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P


def _flip_dtypes():
    line = _products.line()
    base = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL DOUBLE COMPLEX64 COMPLEX128"
    if line == "950":
        return P.codes(base + " UINT16 UINT32 UINT64 BF16")
    return P.codes(base + " BF16") if line in ("A2", "A3") else P.codes(base)


class Flip(AclnnOp):
    name = "aclnnFlip"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": _flip_dtypes(), "out": _flip_dtypes()}

    def check(self, a):
        checks.not_null(a, "self")
        if a.dims is None:
            raise status.param_nullptr("Expected a value of type List[int] for argument dims but instead found type "
                                       "null.")
        checks.not_null(a, "out")
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, _flip_dtypes())
        checks.same_shape("out", a.out, "self", a.self)
        checks.max_dim("self", a.self)
        n = max(a.self.ndim, 1)
        seen = []
        for dim in a.dims:
            if not -n <= dim < n:
                raise status.param_invalid("Dimension out of range (expected to be in range of [%d, %d], but got %d)"
                                           % (-n, n - 1, dim))
            dim %= n
            if dim in seen:
                raise status.param_invalid("dim:[%d] appears multiple times in the list of dims" % dim)
            seen.append(dim)
        a.axes = tuple(d for d in seen if a.self.ndim)

    def compute(self, a, v, workspace):
        if v["out"].size:
            np.copyto(v["out"], np.flip(v["self"], a.axes) if a.axes else v["self"])


class Bucketize(AclnnOp):
    name = "aclnnBucketize"
    inputs = ("self", "boundaries")
    outputs = ("out",)
    DTYPES = P.codes("FLOAT FLOAT16 INT32 INT16 BF16 INT8 UINT8 INT64")

    def dtype_table(self):
        return {"self": self.DTYPES, "boundaries": self.DTYPES, "out": P.codes("INT32 INT64")}

    def check(self, a):
        if not _products.is_regbase():
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER"], "BucketizeV2 Op not support this Soc Version!")
        checks.not_null(a, "self", "boundaries", "out")
        checks.dtype_in("self", a.self, self.DTYPES)
        checks.dtype_in("boundaries", a.boundaries, self.DTYPES)
        wanted = dtypes.acl("INT32") if a.outInt32 else P.INT64
        if a.out.dtype != wanted:
            raise status.param_invalid("Tensor out expected dtype is %s but found %s when outInt32 is %s."
                                       % (dtypes.serial_name(wanted), dtypes.serial_name(a.out.dtype),
                                          "true" if a.outInt32 else "false"))
        checks.max_dim("self", a.self)
        checks.same_shape("self", a.self, "out", a.out)
        checks.dim_is("boundaries", a.boundaries, 1)

    def compute(self, a, v, workspace):
        x, boundaries = v["self"], v["boundaries"]
        if x.size == 0:
            return
        common = np.promote_types(_widen(x.dtype), _widen(boundaries.dtype))
        side = "right" if a.right else "left"
        positions = np.searchsorted(boundaries.astype(common), x.astype(common).reshape(-1), side=side)
        P.store(v["out"], positions.reshape(x.shape))


def _widen(dtype):
    return np.dtype(np.float32) if dtype.kind not in "iub" and dtype.itemsize < 4 else dtype


class Inverse(AclnnOp):
    name = "aclnnInverse"
    inputs = ("self",)
    outputs = ("out",)
    DTYPES = P.codes("FLOAT DOUBLE COMPLEX64 COMPLEX128 FLOAT16")

    def dtype_table(self):
        return {"self": self.DTYPES, "out": self.DTYPES}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, self.DTYPES)
        checks.result_castable(a.self.dtype, a.out.dtype)
        checks.same_shape("out", a.out, "self", a.self)
        checks.max_dim("self", a.self)
        if not a.self.is_empty():
            checks.min_dim("self", a.self, 2)
            if a.self.shape[-1] != a.self.shape[-2]:
                raise status.param_invalid("The input tensor must be batches of square matrices, but they are %d by %d "
                                           "matrices" % (a.self.shape[-1], a.self.shape[-2]))

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            return
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        with np.errstate(all="ignore"):
            try:
                result = np.linalg.inv(work)
            except np.linalg.LinAlgError:
                result = np.stack([_inverse_or_inf(m) for m in work.reshape((-1,) + work.shape[-2:])]).reshape(
                    work.shape)
        P.store(v["out"], result)


def _inverse_or_inf(matrix):
    try:
        return np.linalg.inv(matrix)
    except np.linalg.LinAlgError:
        return np.full(matrix.shape, np.inf, matrix.dtype)
