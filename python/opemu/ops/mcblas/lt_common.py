"""What the mcBLASLt routines share: the handle and descriptor checks, snapshots of the matrix layouts and
the matmul descriptor (C objects, csrc/mcblas/lt_objects.c) read at the call, the supported type
combinations, and the problem check the matmul, the heuristic and the algorithm check all run.

Type combinations (compute type, scale type, A/B type, C/D type) are cuBLASLt's matmul table, the GemmEx
table of mcblas.h with the scale type made explicit: COMPUTE_16F with half everything; COMPUTE_32F (and
its FAST_16F / 16BF / TF32 forms for fp32 and complex fp32 data) with fp32 scales over half, bf16, int8,
fp32 and complex data; COMPUTE_64F with double; COMPUTE_32I with int32 scales for int32 C, fp32 scales for
int8 C. The layouts' orders COL and ROW are supported; the IMMA tile orders only by
mcblasLtMatrixTransform."""
import ml_dtypes
import numpy as np

from opemu.core import device
from opemu.core.headers import enum
from opemu.core.mcblas import (COMPUTE, DATA, INVALID_VALUE, N, NOT_INITIALIZED, TRANSPOSES, batch_of, invalid,
                               not_supported)
from opemu.core.status import VendorError
from opemu.ops.mcblas.level3 import EX, PEDANTIC, Precision

_HEADER = "mcblas/mcblasLt.h"
EPILOGUE = enum(_HEADER, "mcblasLtEpilogue_t")
ORDER = enum(_HEADER, "mcblasLtOrder_t")
POINTER_MODE = enum(_HEADER, "mcblasLtPointerMode_t")
FILL_FULL = enum("mcblas/mcblas.h", "mcblasFillMode_t")["MCBLAS_FILL_MODE_FULL"]
COL, ROW = ORDER["MCBLASLT_ORDER_COL"], ORDER["MCBLASLT_ORDER_ROW"]
ALGO_MAGIC = 0x6D634C74
ALGO_IDS = (0,)

# epilogue bits (mcblasLt.h spells each member as their sum)
RELU, BIAS, DRELU, BGRAD, GELU, DGELU, AUX, BGRADA, BGRADB = 2, 4, 8, 16, 32, 64, 128, 256, 512

NUMPY = {DATA["MACA_R_16F"]: np.dtype(np.float16), DATA["MACA_R_16BF"]: np.dtype(ml_dtypes.bfloat16),
         DATA["MACA_R_32F"]: np.dtype(np.float32), DATA["MACA_R_64F"]: np.dtype(np.float64),
         DATA["MACA_C_32F"]: np.dtype(np.complex64), DATA["MACA_C_64F"]: np.dtype(np.complex128),
         DATA["MACA_R_8I"]: np.dtype(np.int8), DATA["MACA_R_8U"]: np.dtype(np.uint8),
         DATA["MACA_R_32I"]: np.dtype(np.int32)}
REAL_FLOAT = {np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), np.dtype(np.float32), np.dtype(np.float64)}
_SCALE = {np.dtype(np.float16): DATA["MACA_R_16F"], np.dtype(np.float32): DATA["MACA_R_32F"],
          np.dtype(np.float64): DATA["MACA_R_64F"], np.dtype(np.complex64): DATA["MACA_C_32F"],
          np.dtype(np.complex128): DATA["MACA_C_64F"], np.dtype(np.int32): DATA["MACA_R_32I"]}
# COMPUTE_32I with int8 output scales in fp32 (cuBLASLt's IMMA table), the rest as GemmEx
_I32_TO_I8 = {(COMPUTE[n], DATA["MACA_R_8I"], DATA["MACA_R_8I"]): Precision(np.dtype(np.int8), np.dtype(np.int8),
                                                                           np.dtype(np.float32), np.dtype(np.int64))
              for n in ("MCBLAS_COMPUTE_32I", "MCBLAS_COMPUTE_32I_PEDANTIC")}


def live(pointer, kind, type_name, what, status=None):
    """The C struct behind a live mcBLASLt object, else the vendor's status (INVALID_VALUE for descriptors,
    NOT_INITIALIZED for the handle)."""
    lib = device.lib
    if not pointer or not lib.opemu_handle_is(pointer, kind):
        raise VendorError(status if status is not None else INVALID_VALUE,
                          "%s (%s) is not a live %s" % (what, pointer, type_name))
    return pointer


def handle(c):
    live(c.lightHandle, device.lib.OPEMU_KIND_MCBLASLT_HANDLE, "mcblasLtHandle_t", "lightHandle", NOT_INITIALIZED)


class Layout:
    """A matrix layout as it was at the call: element type, order, rows, cols, ld, batch count and stride."""

    def __init__(self, pointer, what):
        lib = device.lib
        live(pointer, lib.OPEMU_KIND_MCBLASLT_LAYOUT, "mcblasLtMatrixLayout_t", what)
        d = device.ffi.cast("struct opemu_lt_layout *", pointer)
        self.what = what
        self.type, self.order, self.rows, self.cols, self.ld = d.type, d.order, d.rows, d.cols, d.ld
        self.batch, self.stride, self.plane = d.batchCount, d.stridedBatchOffset, d.planeOffset
        self.dtype = NUMPY.get(self.type)

    def check_plain(self):
        """The orders a matmul reads (COL, ROW) and a leading dimension that keeps the rows (columns) apart."""
        if self.order not in (COL, ROW):
            raise not_supported("%s has order %d: matmul takes MCBLASLT_ORDER_COL and MCBLASLT_ORDER_ROW"
                                % (self.what, self.order))
        if self.plane:
            raise not_supported("%s: planar complex layouts are not supported" % self.what)
        inner = self.rows if self.order == COL else self.cols
        if self.ld < max(1, inner) and self.rows and self.cols:
            raise invalid("%s: ld %d is less than the %s %d" % (self.what, self.ld, "rows" if self.order == COL
                                                                 else "columns", inner))

    def geometry(self):
        """The view geometry (device.view_at) of all batch matrices, shape (batch, rows, cols)."""
        item = self.dtype.itemsize
        rows, cols = int(self.rows), int(self.cols)
        strides = (item, self.ld * item) if self.order == COL else (self.ld * item, item)
        if rows == 0 or cols == 0:
            span = 0
        elif self.order == COL:
            span = ((cols - 1) * self.ld + rows) * item
        else:
            span = ((rows - 1) * self.ld + cols) * item
        return batch_of(None, ((rows, cols), self.dtype, 0, strides, span), self.batch, self.stride)[1]


class MatmulDesc:
    """The matmul descriptor's fields at the call."""

    _FIELDS = ("computeType", "scaleType", "pointerMode", "transa", "transb", "transc", "fillMode", "epilogue",
               "bias", "biasBatchStride", "aux", "auxLd", "auxBatchStride", "alphaVectorBatchStride",
               "auxDataType", "biasDataType", "aScale", "bScale", "cScale", "dScale", "amaxD")

    def __init__(self, pointer, what="computeDesc"):
        live(pointer, device.lib.OPEMU_KIND_MCBLASLT_MATMUL, "mcblasLtMatmulDesc_t", what)
        d = device.ffi.cast("struct opemu_lt_matmul *", pointer)
        for name in self._FIELDS:
            setattr(self, name, getattr(d, name))


def precision_of(desc, a, b, c, d):
    """The GEMM precision of a type combination, else NOT_SUPPORTED naming it."""
    key = (desc.computeType, a.type, c.type)
    precision = _I32_TO_I8.get(key) or EX.get(key)
    combination = "compute type %d, scale type %d, A %d, B %d, C %d, D %d" % (desc.computeType, desc.scaleType, a.type,
                                                                             b.type, c.type, d.type)
    if precision is None or a.type != b.type or c.type != d.type or _SCALE.get(precision.scalar) != desc.scaleType:
        raise not_supported("%s is not a supported type combination" % combination)
    return precision


def fast_inputs(desc, precision):
    """COMPUTE_32F_FAST_* round the inputs as tensor cores consume them (level3's table knows which)."""
    return precision if desc.computeType not in PEDANTIC else precision.with_inputs(None)


def op_shape(layout, trans):
    return (layout.rows, layout.cols) if trans == N else (layout.cols, layout.rows)


def check_problem(desc, a, b, c, d):
    """cuBLASLt's checks of one matmul problem (descriptors read), in its order: transposes and fill, the
    layouts, the dimensions, the batch, the types, the epilogue's needs. Returns (m, n, k, precision)."""
    for name, value in (("transa", desc.transa), ("transb", desc.transb)):
        if value not in TRANSPOSES:
            raise invalid("%s = %d is not a valid value" % (name, value))
    if desc.transc != N:
        raise invalid("transc must be MCBLAS_OP_N")
    if desc.fillMode != FILL_FULL:
        raise not_supported("fill mode %d: only MCBLAS_FILL_MODE_FULL (a general matrix) is supported"
                            % desc.fillMode)
    for layout in (a, b, c, d):
        if layout.dtype is None:
            raise not_supported("%s has type %d, which opemu's matmul does not compute" % (layout.what, layout.type))
        layout.check_plain()
    m, k = op_shape(a, desc.transa)
    k2, n = op_shape(b, desc.transb)
    if k != k2:
        raise invalid("op(A) is %d x %d and op(B) %d x %d: the inner dimensions differ" % (m, k, k2, n))
    for layout in (c, d):
        if (layout.rows, layout.cols) != (m, n):
            raise invalid("%s is %d x %d, not the product's %d x %d" % (layout.what, layout.rows, layout.cols, m, n))
    batch = d.batch
    for layout in (a, b, c):
        if layout.batch != batch:
            raise invalid("%s has batch count %d, Ddesc %d" % (layout.what, layout.batch, batch))
    precision = fast_inputs(desc, precision_of(desc, a, b, c, d))
    epilogue = desc.epilogue
    if epilogue & (BIAS | BGRAD | BGRADA | BGRADB) and not desc.bias:
        raise invalid("epilogue %d needs MCBLASLT_MATMUL_DESC_BIAS_POINTER" % epilogue)
    if epilogue & AUX:
        if not desc.aux:
            raise invalid("epilogue %d needs MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER" % epilogue)
        multiple = 128 if epilogue & (RELU | DRELU) else 8
        if desc.auxLd < m or desc.auxLd % multiple:
            raise invalid("EPILOGUE_AUX_LD %d must be a multiple of %d and at least the %d rows of D"
                          % (desc.auxLd, multiple, m))
        if batch > 1 and desc.auxBatchStride % multiple:
            raise invalid("EPILOGUE_AUX_BATCH_STRIDE %d must be a multiple of %d" % (desc.auxBatchStride, multiple))
    if epilogue != EPILOGUE["MCBLASLT_EPILOGUE_DEFAULT"] and d.dtype not in REAL_FLOAT:
        raise not_supported("epilogue %d needs real floating-point output, D has type %d" % (epilogue, d.type))
    if desc.pointerMode not in POINTER_MODE.values():
        raise invalid("pointer mode %d is not an mcblasLtPointerMode_t" % desc.pointerMode)
    return m, n, k, precision


def algo_struct(pointer):
    return device.ffi.cast("struct opemu_lt_algo *", pointer)


def fill_algo(pointer, desc, a, b, c, d, algo_id=0):
    """Writes an initialized algorithm (opemu's only one, id 0, default configuration) for these types."""
    s = algo_struct(pointer)
    device.ffi.memmove(pointer, b"\0" * 64, 64)
    s.magic = ALGO_MAGIC
    s.id = algo_id
    s.computeType, s.scaleType = desc.computeType, desc.scaleType
    for i, t in enumerate((a, b, c, d)):
        s.types[i] = t if isinstance(t, int) else t.type
    s.splitK = 1


def check_algo(pointer, desc, a, b, c, d):
    """An algorithm given by the program: initialized, for these types, configured within its capabilities
    (no tiles, stages, split-K, reduction scheme or swizzling to choose)."""
    s = algo_struct(pointer)
    if s.magic != ALGO_MAGIC:
        raise invalid("algo was not initialized by mcblasLtMatmulAlgoInit or a heuristic")
    types = tuple(s.types[i] for i in range(4))
    if (s.computeType, s.scaleType, types) != (desc.computeType, desc.scaleType, (a.type, b.type, c.type, d.type)):
        raise invalid("algo was initialized for other types (compute %d, scale %d, A/B/C/D %s)"
                      % (s.computeType, s.scaleType, list(types)))
    if s.tile or s.stages or s.splitK != 1 or s.reductionScheme or s.swizzle or s.customOption:
        raise invalid("algo's configuration (tile %d, stages %d, split-K %d, reduction %d, swizzle %d, option %d) "
                      "is outside its capabilities" % (s.tile, s.stages, s.splitK, s.reductionScheme, s.swizzle,
                                                       s.customOption))
