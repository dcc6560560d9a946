"""aclnnAddLora (ops-math math/add_lora): the batched LoRA update of its doc. For each row b of x with adapter
w = indices[b] (rows whose index is outside [0, W) are left alone):

    z1 = weightA[w, layerIdx] · x[b]          (R,)   (x[b] itself when weightA is null)
    z2 = weightB[w, layerIdx] · z1 · scale     (H2,)
    out = y, with out[b, yOffset : yOffset + ySliceSize] += z2

computed in fp32 and rounded once into out. The op_api is generated from the operator definition; the checks
here are the doc's (nulls, dtypes, ranks, matching dims, offsets inside y)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes

HALF = lambda: codes("FLOAT16")
INDEX = lambda: codes("INT32")


class AddLora(AclnnOp):
    name = "aclnnAddLora"
    inputs, outputs = ("y", "x", "weightB", "indices", "weightAOptional"), ("out",)

    def dtype_table(self):
        return {"y": HALF(), "x": HALF(), "weightB": HALF(), "indices": INDEX(), "weightAOptional": HALF(),
                "out": HALF()}

    def check(self, a):
        checks.not_null(a, "y", "x", "weightB", "indices", "out")
        for name in ("y", "x", "weightB", "out") + (("weightAOptional",) if a.weightAOptional is not None else ()):
            checks.dtype_in(name, getattr(a, name), HALF())
        checks.dtype_in("indices", a.indices, INDEX())
        for name, rank in (("y", 2), ("x", 2), ("weightB", 4), ("indices", 1), ("out", 2)):
            checks.dim_is(name, getattr(a, name), rank)
        batch, width = a.y.shape
        w, layers, h2, r = a.weightB.shape
        if a.x.shape[0] != batch or a.indices.shape[0] != batch:
            raise status.param_invalid("The first dim of x %s and indices %s must equal the first dim of y %s."
                                       % (checks.shape_text(a.x.shape), checks.shape_text(a.indices.shape),
                                          checks.shape_text(a.y.shape)))
        if a.weightAOptional is not None:
            checks.dim_is("weightAOptional", a.weightAOptional, 4)
            wa, la, ra, h1 = a.weightAOptional.shape
            if (wa, la, ra) != (w, layers, r) or h1 != a.x.shape[1]:
                raise status.param_invalid("weightA %s must be [W, L, R, H1] with weightB %s and x %s."
                                           % (checks.shape_text(a.weightAOptional.shape),
                                              checks.shape_text(a.weightB.shape), checks.shape_text(a.x.shape)))
        elif a.x.shape[1] != r:
            raise status.param_invalid("Without weightA the last dim of x %s must be R of weightB %s."
                                       % (checks.shape_text(a.x.shape), checks.shape_text(a.weightB.shape)))
        if not 0 <= a.layerIdx < layers:
            raise status.param_invalid("layerIdx %d must be in [0, %d)." % (a.layerIdx, layers))
        if not 0 <= a.yOffset < width or a.ySliceSize <= 0 or a.yOffset + a.ySliceSize > width \
                or a.ySliceSize != h2:
            raise status.param_invalid("yOffset %d and ySliceSize %d must give a slice of y's %d columns of "
                                       "weightB's %d rows." % (a.yOffset, a.ySliceSize, width, h2))
        checks.same_shape("out", a.out, "y", a.y)

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        result = v["y"].astype(np.float32)
        x, wb = v["x"].astype(np.float32), v["weightB"][:, a.layerIdx].astype(np.float32)
        wa = None if a.weightAOptional is None else v["weightAOptional"][:, a.layerIdx].astype(np.float32)
        index = v["indices"].astype(np.int64)
        rows = np.flatnonzero((index >= 0) & (index < wb.shape[0]))
        z = x[rows] if wa is None else np.einsum("brh,bh->br", wa[index[rows]], x[rows])
        update = np.einsum("bhr,br->bh", wb[index[rows]], z) * np.float32(a.scale)
        result[rows, a.yOffset:a.yOffset + a.ySliceSize] += update
        P.store(out, result)
