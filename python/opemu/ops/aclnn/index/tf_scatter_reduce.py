"""aclnnScatterMul, aclnnScatterDiv, aclnnScatterMax, aclnnScatterMin (ops-nn index/scatter_mul, scatter_div,
scatter_max, scatter_min; opbuild operators of the 950 line on index/scatter_reduce_common's kernel): TensorFlow's
tf.compat.v1.scatter_mul / _div / _max / _min.

    varRef[indices[i…], …] = varRef[indices[i…], …] (op) updates[i…, …]      updates = indices.shape + var.shape[1:]

The kernel widens each row (fp16 to fp32, int8/uint8 to int32), applies the updates of a row in index order
(a stable sort of the indices) and rounds once into var. Division: floats in fp32 (x/0 gives ±inf or NaN);
integers truncate, and a zero divisor leaves the value as it was (the kernel replaces it by 1). A row index
outside [0, var.shape[0]) is skipped. useLocking changes nothing (the kernel is deterministic)."""
import numpy as np

from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import addressing, opbuild
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

DATA = P.codes("FLOAT16 FLOAT INT32 INT8 UINT8")
INDICES = P.codes("INT32 INT64")
LINES = ("950",)


class _TfScatterReduce(AclnnOp):
    inputs = ("varRef", "indices", "updates")
    outputs = ("varRef",)
    products = _products.describe(LINES)
    how = None

    def dtype_table(self):
        return {"varRef": DATA, "indices": INDICES, "updates": DATA}

    def check(self, a):
        combos = [(d, i, d) for i in INDICES for d in DATA]
        opbuild.check(self.name, a, ("varRef", "indices", "updates"), combos, LINES)
        var, indices, updates = a.varRef, a.indices, a.updates
        op = self.name[len("aclnn"):]
        if max(var.ndim, indices.ndim, updates.ndim) > 8:
            raise opbuild.tiling_error(op, "the dim number of var, indices and updates must be less than or "
                                           "equal to 8")
        if var.ndim:
            if updates.ndim != indices.ndim + var.ndim - 1:
                raise opbuild.tiling_error(op, "updatesDimNum must equal indicesDimNum + varDimNum - 1")
            if tuple(updates.shape[:indices.ndim]) != tuple(indices.shape):
                raise opbuild.tiling_error(op, "updatesShape should equal indicesShape in the first indicesDimNum "
                                               "dimensions")
            if tuple(updates.shape[indices.ndim:]) != tuple(var.shape[1:]):
                raise opbuild.tiling_error(op, "updatesShape should equal varShape except for the first dimension")
        a.empty = var.is_empty() or indices.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        var = v["varRef"]
        target = var.reshape(1) if var.ndim == 0 else var
        rows = np.asarray(v["indices"], np.int64).reshape(-1)
        updates = v["updates"].reshape((rows.size,) + target.shape[1:])
        keep = (rows >= 0) & (rows < target.shape[0])
        rows, updates = rows[keep], updates[keep]
        if rows.size == 0:
            return
        coordinates = [rows.reshape((-1,) + (1,) * (target.ndim - 1))]
        coordinates += [g[None] for g in np.indices(target.shape[1:], sparse=True)]
        addressing.reduce_at(target, coordinates, updates, self.how, self.name)


def _row(name, how):
    return type(name[len("aclnn"):], (_TfScatterReduce,), dict(name=name, how=how, __module__=__name__))


ScatterMul = _row("aclnnScatterMul", "mul")
ScatterDiv = _row("aclnnScatterDiv", "div")
ScatterMax = _row("aclnnScatterMax", "max")
ScatterMin = _row("aclnnScatterMin", "min")
