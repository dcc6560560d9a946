"""aclnnEmbedding: out = weight[indices] (reference §4.6; ops-nn index/embedding).

Phase 1 follows op_api/aclnn_embedding.cpp: nulls (weight, indices, out) → weight dtype → out dtype
equals weight's → indices dtype → rank ≤ 8 → out has one more dim than indices and agrees with it.
The op does not check that weight is 2-D or out's last dim: the gathered result,
indices.shape + weight.shape[1:], is copied into out by a view copy that fails inside phase 1 when
the shapes differ (ACLNN_ERR_INNER_NULLPTR, as the vendor's CHECK_RET does).

Index values are not validated (the hardware does not): a row past weight that still lies inside a
live device allocation's mapped range (weight's own rounding, or a neighbour) is read from there, as
the kernel would (opemu.core.stray); a negative index, or a row in no allocation, is an access
fault, ACL_ERROR_RT_AICORE_EXCEPTION, reported by phase 2 (eager streams) or the next
synchronisation (deferred). `opemu check` reports an index outside weight's rows either way.
"""
import functools

import numpy as np

from opemu.core import checks, device, dtypes, status
from opemu.core import stray as stray_access
from opemu.core.op import AclnnOp, soc_is_a2_a3

_WEIGHT_DTYPES = [dtypes.acl(n) for n in ("DOUBLE", "FLOAT", "FLOAT16", "INT64", "INT32", "INT16", "INT8",
                                          "UINT8", "BOOL", "COMPLEX128", "COMPLEX64")]
_INDICES_DTYPES = [dtypes.acl("INT32"), dtypes.acl("INT64")]


class Embedding(AclnnOp):
    name = "aclnnEmbedding"
    inputs = ("weight", "indices")
    outputs = ("out",)
    products = "all (BF16 weight on Atlas A2/A3 only)"

    def dtype_table(self):
        return _dtype_table(soc_is_a2_a3())

    def check(self, a):
        checks.not_null(a, "weight", "indices", "out")
        table = self.dtype_table()
        checks.dtype_in("weight", a.weight, table["weight"])
        checks.same_dtype("weight", a.weight, "out", a.out)
        checks.dtype_in("indices", a.indices, table["indices"])
        for name in ("weight", "indices", "out"):
            checks.max_dim(name, getattr(a, name))
        if a.out.ndim != a.indices.ndim + 1:
            raise status.param_invalid("out dim [%d] should be one larger than indices dim [%d]."
                                       % (a.out.ndim, a.indices.ndim))
        if a.out.shape[:-1] != a.indices.shape:
            raise status.param_invalid("out shape [%s] is not match with indices shape [%s]."
                                       % (checks.shape_text(a.out.shape), checks.shape_text(a.indices.shape)))
        a.skip = a.weight.is_empty() or a.indices.is_empty()
        gathered = a.indices.shape + a.weight.shape[1:]
        if not a.skip and gathered != a.out.shape:
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                     "ViewCopy of the gathered shape %s into out %s failed."
                                     % (checks.shape_text(gathered), checks.shape_text(a.out.shape)))

    def workspace(self, a):
        return 0

    def compute(self, a, v, workspace):
        if a.skip:
            return
        weight, indices, out = v["weight"], v["indices"], v["out"]
        if indices.min() >= 0:
            try:
                out[...] = weight[indices]
                return
            except IndexError:
                pass
        out[...] = _gather_with_stray_rows(weight, indices)


@functools.lru_cache(maxsize=None)
def _dtype_table(bf16):
    weight = _WEIGHT_DTYPES + ([dtypes.acl("BF16")] if bf16 else [])
    return {"weight": weight, "indices": _INDICES_DTYPES, "out": weight}


def _gather_with_stray_rows(weight, indices):
    """Rows past weight's shape come from whatever device memory the kernel's address reaches;
    a negative index faults."""
    negative = np.flatnonzero(indices < 0)
    stray = negative if negative.size else np.flatnonzero(indices >= weight.shape[0])
    position = list(np.unravel_index(stray[0], indices.shape))
    what = "aclnnEmbedding: index %d at %s is outside weight's %d rows" % (int(indices.reshape(-1)[stray[0]]),
                                                                          [int(p) for p in position], weight.shape[0])
    if negative.size:
        raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"], what + " and its device allocation")
    rows = [g.reshape((1,) * indices.ndim + g.shape) for g in np.indices(weight.shape[1:], sparse=True)]
    return stray_access.gather(weight, [indices.reshape(indices.shape + (1,) * len(rows))] + rows, what)
