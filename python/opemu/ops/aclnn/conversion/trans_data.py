"""aclnnTransMatmulWeight (ops-math conversion/trans_data): a matmul weight converted in place from ND to
FRACTAL_NZ (common/fractal_nz). Phase 1 rewrites the app's aclTensor as the vendor's does (storage format
FRACTAL_NZ, storage shape (batch..., C1, R1, 16, c0)); phase 2 rearranges the data inside the same buffer, which
the app sized with aclnnCalculateMatmulWeightSize(V2). The view keeps its shape and strides: a transposed view
(llama.cpp's (K, N) view of an (N, K) weight) is stored as the matrix its memory holds, as matmul reads it back.
An empty weight is left as it is."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.conversion.npu_format_cast import format_name

WEIGHT_DTYPES = P.per_line("FLOAT16", a2="FLOAT16 BF16 INT8 FLOAT8_E4M3FN HIFLOAT8 UINT8", p310="FLOAT16 INT8")
ND = dtypes.ACL_FORMAT["ACL_FORMAT_ND"]
NZ = dtypes.ACL_FORMAT["ACL_FORMAT_FRACTAL_NZ"]


class TransMatmulWeight(AclnnOp):
    name = "aclnnTransMatmulWeight"
    inputs = ("mmWeightRef",)
    outputs = ("mmWeightRef",)
    restyles = True

    def dtype_table(self):
        return {"mmWeightRef": WEIGHT_DTYPES()}

    def check(self, a):
        checks.not_null(a, "mmWeightRef")
        weight = a.mmWeightRef
        checks.dtype_in("input", weight, WEIGHT_DTYPES())
        if weight.format != ND:
            raise status.param_invalid("the format of input should be ND. Actual is [%s]." % format_name(weight.format))
        checks.max_dim("input", weight)
        a.restyle = {}
        if weight.is_empty():
            return
        n = weight.ndim
        if weight.dtype == dtypes.acl("INT8") or _products.line() in ("A2", "A3"):
            if not 2 <= n <= 6:
                raise status.param_invalid("It is expected that tensorShape has 2-6 dimensions, but got dimensions "
                                           "%d." % n)
        elif n != 2:
            raise status.param_invalid("It is expected that tensorShape has 2 dimensions, but got dimensions %d." % n)
        batch, rows, cols, a.transposed = fractal_nz.stored_matrix(weight)
        c0 = fractal_nz.c0_of(weight.dtype)
        storage = tuple(batch) + (fractal_nz.ceil_to(cols, c0) // c0, fractal_nz.ceil_to(rows, fractal_nz.ROWS)
                                  // fractal_nz.ROWS, fractal_nz.ROWS, c0)
        a.restyle = {"mmWeightRef": (NZ, storage)}
        a.layout, a.c0 = weight, c0
        extent = weight.offset + 1 + sum((d - 1) * s for d, s in zip(weight.shape, weight.strides))
        run = max(extent - weight.offset, fractal_nz.storage_elements(weight))
        a.mmWeightRef = TensorDesc(weight.dtype, (run,), (1,), weight.offset, ND)

    def compute(self, a, v, workspace):
        if not a.restyle:
            return
        run, layout = v["mmWeightRef"], a.layout
        item = run.itemsize
        view = np.lib.stride_tricks.as_strided(run, layout.shape, tuple(s * item for s in layout.strides))
        matrix = np.swapaxes(view, -1, -2) if a.transposed else view
        nz = fractal_nz.to_nz(np.array(matrix), a.c0)
        run[:nz.size] = nz
