"""aclnnNpuFormatCast (ops-math conversion/npu_format_cast): an ND matrix (or a batch of them) written into a
dstTensor whose storage format is FRACTAL_NZ (or FRACTAL_NZ_C0_16/_C0_32), the layout matmul weights are kept
in (common/fractal_nz). The app creates dstTensor with the storage shape aclnnNpuFormatCastCalculateSizeAndFormat
gives; the data is rearranged for real, padding zero, so matmul reads back the same matrix.

Products: the Atlas A2/A3 and 950 lines; elsewhere phase 1 answers ACLNN_ERR_RUNTIME_ERROR as the vendor's
op_api does (it falls back to the aclop path there)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp, soc
from opemu.core.tensor import TensorDesc
from opemu.ops.aclnn.common import fractal_nz
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

SRC_DTYPES = P.per_line("INT8 FLOAT FLOAT16 BF16 INT32 FLOAT8_E4M3FN HIFLOAT8 UINT8",
                        regbase="INT8 UINT8 FLOAT FLOAT16 BF16 INT32 UINT32 FLOAT8_E4M3FN HIFLOAT8")
_FORMAT = dtypes.ACL_FORMAT
ND_LIKE = frozenset(_FORMAT[n] for n in ("ACL_FORMAT_ND", "ACL_FORMAT_NCL") if n in _FORMAT)
# Elements per column block of each NZ format: the plain one holds 32 bytes, the _C0_n ones n elements.
_C0 = {"ACL_FORMAT_FRACTAL_NZ_C0_16": 16, "ACL_FORMAT_FRACTAL_NZ_C0_32": 32}
NZ_TARGETS = frozenset(_FORMAT[n] for n in ("ACL_FORMAT_FRACTAL_NZ",) + tuple(_C0) if n in _FORMAT)


def column_block(format_code, dtype_code):
    for name, c0 in _C0.items():
        if _FORMAT.get(name) == format_code:
            return c0
    return fractal_nz.c0_of(dtype_code)


def format_name(code):
    return next((n[len("ACL_FORMAT_"):] for n, c in _FORMAT.items() if c == code and n.startswith("ACL_FORMAT_")),
                str(code))


def _contiguous(desc):
    expected, step = [], 1
    for d in reversed(desc.shape):
        expected.insert(0, step)
        step *= max(d, 1)
    return all(d == 1 or s == e for d, s, e in zip(desc.shape, desc.strides, expected))


class NpuFormatCast(AclnnOp):
    name = "aclnnNpuFormatCast"
    inputs = ("srcTensor",)
    outputs = ("dstTensor",)
    products = _products.describe(("A2", "A3", "950"))

    def dtype_table(self):
        return {"srcTensor": SRC_DTYPES(), "dstTensor": SRC_DTYPES()}

    def check(self, a):
        if _products.line() not in ("A2", "A3", "950"):
            raise status.runtime_error("Only support Ascend950/ASCEND910_93/ASCEND910B, not %s." % soc())
        checks.not_null(a, "srcTensor", "dstTensor")
        for name in ("srcTensor", "dstTensor"):
            if not _contiguous(getattr(a, name)):
                raise status.param_invalid("%s must be contiguous." % name)
        checks.dtype_in("srcTensor", a.srcTensor, SRC_DTYPES())
        checks.same_dtype("srcTensor", a.srcTensor, "dstTensor", a.dstTensor)
        src, dst = a.srcTensor, a.dstTensor
        if src.format not in ND_LIKE or dst.format not in NZ_TARGETS:
            raise status.param_invalid(
                "The format of srcTensor must be ND/NCL and the format of dstTensor must be "
                "FRACTAL_NZ/FRACTAL_NZ_C0_16/FRACTAL_NZ_C0_32, but got %s and %s."
                % (format_name(src.format), format_name(dst.format)))
        if not 2 <= src.ndim <= 6:
            raise status.param_invalid("srcTensor must have 2-6 dimensions, but got %d." % src.ndim)
        if src.is_empty():
            raise status.param_invalid("srcTensor must not be empty tensor, each dimension must not be 0, "
                                       "but got %s." % checks.shape_text(src.shape))
        if tuple(dst.shape) != tuple(src.shape):
            raise status.param_invalid("The view shape of dstTensor %s must equal the shape of srcTensor %s."
                                       % (checks.shape_text(dst.shape), checks.shape_text(src.shape)))
        a.c0 = column_block(dst.format, dst.dtype)
        batch, rows, cols = tuple(src.shape[:-2]), src.shape[-2], src.shape[-1]
        a.matrix = (batch, rows, cols)
        need = int(np.prod(batch, dtype=object)) * fractal_nz.ceil_to(rows, fractal_nz.ROWS) * \
            fractal_nz.ceil_to(cols, a.c0)
        have = int(np.prod(dst.storage_shape, dtype=object)) if dst.storage_shape else 0
        if have < need:
            raise status.param_invalid("The storage shape of dstTensor %s holds %d elements, the FRACTAL_NZ "
                                       "layout of srcTensor %s needs %d."
                                       % (checks.shape_text(dst.storage_shape or ()), have,
                                          checks.shape_text(src.shape), need))
        a.dstTensor = TensorDesc(dst.dtype, (need,), (1,), dst.offset, dst.format)

    def compute(self, a, v, workspace):
        v["dstTensor"][...] = fractal_nz.to_nz(v["srcTensor"], a.c0)
