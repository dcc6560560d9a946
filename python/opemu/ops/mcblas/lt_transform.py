"""mcblasLtMatrixTransform: C = alpha op(A) + beta op(B), each matrix in its own layout. It changes the memory
order of data (COL, ROW and the IMMA tile orders COL32 and COL32_2R_4R4) and scales and sums it.

Element (r, c) of an m x n matrix lies at r + c ld (COL), r ld + c (ROW), (c / 32) ld + 32 r + c % 32 (COL32:
column groups of 32, each holding its rows one after the other) and, in COL32_2R_4R4 (tiles of 32 x 32), at
(c / 32) ld + 1024 (r / 32) + (((i % 8) / 2 * 4 + i / 8) * 2 + i % 2) * 32 + c % 32 with i = r % 32 (the
offset cuBLASLt documents). COL4_4R2_8C is not supported. Values are computed in the scale type and rounded
into C's type (integers to nearest and saturated, as IMMA outputs are). A (B) may be NULL with its
descriptor NULL: that term is absent."""
import numpy as np

from opemu.core import device
from opemu.core.mcblas import N, TRANSPOSES, Scalar, invalid, not_supported, vector, view
from opemu.ops.mcblas import family
from opemu.ops.mcblas.lt_common import NUMPY, ORDER, Layout, handle, live

_TILED = {ORDER["MCBLASLT_ORDER_COL32"], ORDER["MCBLASLT_ORDER_COL32_2R_4R4"]}


def offsets(layout):
    """Element offsets of the rows x cols matrix (shape (rows, cols)) in its order."""
    rows, cols, ld, order = int(layout.rows), int(layout.cols), int(layout.ld), layout.order
    r, c = np.arange(rows)[:, None], np.arange(cols)[None, :]
    if order == ORDER["MCBLASLT_ORDER_COL"]:
        return r + c * ld
    if order == ORDER["MCBLASLT_ORDER_ROW"]:
        return r * ld + c
    if order == ORDER["MCBLASLT_ORDER_COL32"]:
        return (c // 32) * ld + r * 32 + c % 32
    i = r % 32
    return (c // 32) * ld + (r // 32) * 1024 + (((i % 8) // 2 * 4 + i // 8) * 2 + i % 2) * 32 + c % 32


def _check_layout(layout):
    if layout.order not in ORDER.values() or layout.order == ORDER["MCBLASLT_ORDER_COL4_4R2_8C"]:
        raise not_supported("%s: order %d is not supported by mcblasLtMatrixTransform" % (layout.what, layout.order))
    if layout.dtype is None:
        raise not_supported("%s: type %d is not supported" % (layout.what, layout.type))
    if layout.plane:
        raise not_supported("%s: planar complex layouts are not supported" % layout.what)
    rows, cols = int(layout.rows), int(layout.cols)
    need = {ORDER["MCBLASLT_ORDER_COL"]: rows, ORDER["MCBLASLT_ORDER_ROW"]: cols,
            ORDER["MCBLASLT_ORDER_COL32"]: 32 * rows,
            ORDER["MCBLASLT_ORDER_COL32_2R_4R4"]: 32 * 32 * -(-rows // 32)}[layout.order]
    if rows and cols and layout.ld < need:
        raise invalid("%s: ld %d is less than the %d its order needs" % (layout.what, layout.ld, need))


def _span(layout):
    if not layout.rows or not layout.cols:
        return 0
    return int(offsets(layout).max()) + 1


def _operand(pointer, desc_pointer, trans, name, shape):
    if not pointer:
        return None
    if not desc_pointer:
        raise invalid("%s is not NULL but its descriptor is" % name)
    layout = Layout(desc_pointer, name + "desc")
    _check_layout(layout)
    if (trans == N and (layout.rows, layout.cols) != shape) or (trans != N and (layout.cols, layout.rows) != shape):
        raise invalid("op(%s) is not %d x %d" % (name, shape[0], shape[1]))
    return layout


@family({"mcblasLtMatrixTransform": "transform"})
def transform(kind, c):
    handle(c)
    live(c.transformDesc, device.lib.OPEMU_KIND_MCBLASLT_TRANSFORM, "mcblasLtMatrixTransformDesc_t", "transformDesc")
    t = device.ffi.cast("struct opemu_lt_transform *", c.transformDesc)
    for name, value in (("transa", t.transa), ("transb", t.transb)):
        if value not in TRANSPOSES:
            raise invalid("%s = %d is not a valid value" % (name, value))
    out = Layout(c.Cdesc, "Cdesc")
    _check_layout(out)
    shape = (out.rows, out.cols)
    a = _operand(c.A, c.Adesc, t.transa, "A", shape)
    b = _operand(c.B, c.Bdesc, t.transb, "B", shape)
    for layout in (a, b):
        if layout is not None and layout.batch != out.batch:
            raise invalid("%s has batch count %d, Cdesc %d" % (layout.what, layout.batch, out.batch))
    scale = NUMPY.get(t.scaleType)
    if scale is None:
        raise not_supported("scale type %d is not supported" % t.scaleType)
    c.device_scalars = t.pointerMode == 1
    alpha = Scalar(c, "alpha", c.alpha, scale) if a is not None else None
    beta = Scalar(c, "beta", c.beta, scale) if b is not None else None
    if not out.rows or not out.cols or not out.batch:
        return None
    if not c.C:
        raise invalid("C is NULL")

    def flat(pointer, layout, access="r"):
        span = (layout.batch - 1) * layout.stride + _span(layout)
        return view(vector(pointer, span, 1, layout.dtype), access)

    def run():
        target = flat(c.C, out, "w" if beta is None or c.B != c.C else "rw")
        where = offsets(out)
        terms = [(flat(p, layout), offsets(layout), layout.stride, trans, s.value())
                 for p, layout, trans, s in ((c.A, a, t.transa, alpha), (c.B, b, t.transb, beta)) if layout is not None]
        for index in range(out.batch):
            total = np.zeros(where.shape, scale)
            for data, places, stride, trans, value in terms:
                values = data[index * stride + places].astype(scale)
                if trans != N:
                    values = values.T.conj() if trans == 2 else values.T
                total += scale.type(value) * values
            target[index * out.stride + where] = _round_into(total, out.dtype)
    return run


def _round_into(values, dtype):
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(values.real if np.iscomplexobj(values) else values), info.min, info.max).astype(dtype)
    return values.astype(dtype)
