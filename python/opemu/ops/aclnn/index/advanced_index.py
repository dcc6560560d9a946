"""aclnnIndex (ops-nn index/index op_api) and aclnnInplaceMaskedScatter (index/masked_scatter): PyTorch's
advanced indexing self[indices] and masked_scatter_.

    Index                out = self[indices]: an empty tensor in the list stands for `:`; an integer tensor
                         picks along its dimension (the integer tensors broadcast together); a BOOL tensor
                         is a mask over as many dimensions as it has. Adjacent picks put the broadcast shape
                         where they stand, separated ones put it first (PyTorch's and NumPy's rule).
    InplaceMaskedScatter selfRef[mask] = source.flatten()[:mask.sum()], mask broadcast to selfRef, in
                         row-major order.

aclnnIndex checks no out shape in phase 1 (the kernel computes into out's view shape); opemu works the indexed
shape out and refuses an out of another shape (an integer-only list: phase 1; with a mask: phase 2). The
vendor only warns when the list is longer than self has dimensions; opemu refuses that list. A 0-d self is
copied to out whatever its index (the op_api skips the kernel).

Index values. Negative indices count from the end (the kernels add the size). On Atlas A2/A3 the op_api first
launches IndexCheck, which stops with an assertion (an AI Core exception here, nothing written) on an index
outside [-size, size); elsewhere nothing validates them and an index past its dimension reads the memory it
addresses (common/addressing.py). MaskedScatter reads source past its end when the mask has more true
elements than source has, likewise."""
import numpy as np

from opemu.core import checks, device, dtypes, status, stray
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import oplog
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

INDICES_DTYPES = P.codes("INT64 INT32 BOOL")
_INDEX_BASE = "FLOAT FLOAT16 INT64 INT32 BOOL INT8 UINT8 BF16 DOUBLE INT16"


def index_dtypes():
    return P.codes(_INDEX_BASE + (" COMPLEX64" if _products.is_regbase() else ""))


def _fault(message):
    return device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"], message)


def _expand(shape, indices):
    """The per-dimension picks: None for a slice, an int64 array for an integer index (masks become the
    coordinates of their true elements)."""
    picks = []
    for index in indices:
        if index.size == 0:
            picks.append(None)
        elif index.dtype == np.bool_:
            picks.extend(np.nonzero(index))
        else:
            picks.append(np.asarray(index, np.int64))
    return picks + [None] * (len(shape) - len(picks))


def indexed_shape(shape, picks_shapes):
    """out's shape for per-dimension picks given as shapes (None: a slice)."""
    advanced = [d for d, s in enumerate(picks_shapes) if s is not None]
    if not advanced:
        return tuple(shape)
    broadcast = np.broadcast_shapes(*[picks_shapes[d] for d in advanced])
    slices = [d for d in range(len(shape)) if picks_shapes[d] is None]
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        before = [d for d in slices if d < advanced[0]]
        after = [d for d in slices if d > advanced[-1]]
        return tuple(shape[d] for d in before) + tuple(broadcast) + tuple(shape[d] for d in after)
    return tuple(broadcast) + tuple(shape[d] for d in slices)


def coordinates(shape, picks):
    """One coordinate array per dimension of `shape`, broadcasting to the indexed shape."""
    advanced = [d for d, p in enumerate(picks) if p is not None]
    broadcast = np.broadcast_shapes(*[picks[d].shape for d in advanced]) if advanced else ()
    slices = [d for d in range(len(shape)) if picks[d] is None]
    adjacent = bool(advanced) and advanced == list(range(advanced[0], advanced[-1] + 1))
    if adjacent:
        order = [("s", d) for d in slices if d < advanced[0]] + [("b", None)] + \
                [("s", d) for d in slices if d > advanced[-1]]
    else:
        order = [("b", None)] + [("s", d) for d in slices]
    # the out axes each entry occupies
    axes, at = {}, 0
    for kind, d in order:
        width = len(broadcast) if kind == "b" else 1
        axes[(kind, d)] = (at, width)
        at += width
    ndim = at
    result = []
    for d in range(len(shape)):
        if picks[d] is None:
            start, _ = axes[("s", d)]
            view = [1] * ndim
            view[start] = shape[d]
            result.append(np.arange(shape[d], dtype=np.int64).reshape(view))
        else:
            start, width = axes[("b", None)]
            index = np.broadcast_to(picks[d], broadcast)
            result.append(index.reshape((1,) * start + tuple(broadcast) + (1,) * (ndim - start - width)))
    return result


class Index(AclnnOp):
    name = "aclnnIndex"
    inputs = ("self", "indices")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": index_dtypes(), "indices": INDICES_DTYPES, "out": index_dtypes()}

    def check(self, a):
        checks.not_null(a, "self", "out", "indices")
        for item in a.indices:
            if item is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*indices)[i].")
        if a.self.dtype == P.BF16 and _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("self not implemented for DT_BF16, when SocVersion is less than ASCEND910B.")
        checks.dtype_match("self", a.self, a.out.dtype)
        checks.dtype_in("self", a.self, index_dtypes())
        for t in a.indices:
            if t.numel():
                checks.dtype_in("(*indices)[i]", t, INDICES_DTYPES)
        for name, t in (("self", a.self), ("out", a.out)):
            if checks.is_private_format(t.format):
                raise status.param_invalid("%s don't support private format." % name)
        if any(checks.is_private_format(t.format) for t in a.indices):
            raise status.param_invalid("indices don't support private format.")
        n = len(a.indices)
        if (a.self.ndim == 0 and n > 1) or (a.self.ndim and n > a.self.ndim):
            raise status.param_invalid("indices size must not greater than self dim nums, bug got indices size %d "
                                       "and self dim nums %d" % (n, a.self.ndim))
        checks.max_dim("self", a.self)
        for t in a.indices:
            checks.max_dim("(*indices)[i]", t)
        a.empty = a.self.is_empty() or a.out.is_empty()
        if a.empty:
            return
        picked = [t for t in a.indices if t.numel()]
        out_ndim = (picked[0].ndim if picked else 0) + a.self.ndim - len(picked)
        if out_ndim > checks.MAX_DIM:
            raise status.param_invalid("Outputshape Dim should be less than or equal 8, but got [%d]" % out_ndim)
        a.masks = any(t.numel() and t.dtype == P.BOOL for t in a.indices)
        if a.self.ndim and not a.masks:
            shapes = [None if t.numel() == 0 else tuple(t.shape) for t in a.indices]
            shapes += [None] * (a.self.ndim - len(shapes))
            try:
                expected = indexed_shape(a.self.shape, shapes)
            except ValueError:
                raise status.param_invalid("shape mismatch: indices of shapes %s cannot be broadcast together"
                                           % ", ".join(checks.shape_text(s) for s in shapes if s is not None))
            checks.shape_is("out", a.out, expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x, out = v["self"], v["out"]
        if x.ndim == 0:
            if _products.line() in ("A2", "A3"):
                _index_check(v["indices"], [1] * len(v["indices"]))
            out[...] = x
            return
        indices = list(v["indices"])
        if _products.line() in ("A2", "A3"):
            _index_check(indices, x.shape)
        picks = _expand(x.shape, indices)
        try:
            expected = indexed_shape(x.shape, [None if p is None else p.shape for p in picks])
        except ValueError:
            raise status.param_invalid("shape mismatch: the indices cannot be broadcast together")
        if tuple(out.shape) != expected:
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(expected), checks.shape_text(out.shape)))
        for d, p in enumerate(picks):
            if p is not None and p.size and p.min() < 0:
                picks[d] = np.where(p < 0, p + x.shape[d], p)
        grid = coordinates(x.shape, picks)
        outside = [d for d, p in enumerate(picks) if p is not None and p.size
                   and (int(p.min()) < 0 or int(p.max()) >= x.shape[d])]
        what = "aclnnIndex: an index outside dimension %d of self %s" % (outside[0], checks.shape_text(x.shape)) \
            if outside else "aclnnIndex"
        out[...] = stray.gather(x, grid, what) if outside else x[tuple(grid)]


def _index_check(indices, bounds):
    """IndexCheck (A2/A3): every INT32/INT64 index in [-bound, bound), or the kernel's assertion."""
    checked = 0
    for d, index in enumerate(indices):
        if index.size == 0 or index.dtype == np.bool_:
            continue
        bound = int(bounds[d])
        flat = np.asarray(index, np.int64).reshape(-1)
        low, high = int(flat.min()), int(flat.max())
        if low < -bound:
            raise _fault("Index out of range in dimension %d: index value %d is too negative for bounds %d!"
                         % (checked, low, bound))
        if high >= bound:
            raise _fault("Index out of range in dimension %d: index value %d exceeds bounds %d!"
                         % (checked, high, bound))
        checked += 1


MASKED_OP = "aclnnInplaceMaskedScatter"
MASK_DTYPES = P.codes("UINT8 BOOL")
_MASKED_BASE = "FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL"


def masked_dtypes():
    return P.codes(_MASKED_BASE + (" BF16" if _products.line() in ("A2", "A3", "950") else ""))


class InplaceMaskedScatter(AclnnOp):
    name = MASKED_OP
    inputs = ("selfRef", "mask", "source")
    outputs = ("selfRef",)

    def dtype_table(self):
        return {"selfRef": masked_dtypes(), "mask": MASK_DTYPES, "source": masked_dtypes()}

    def check(self, a):
        checks.not_null(a, "selfRef", "mask", "source")
        x = a.selfRef
        allowed = masked_dtypes()
        if x.dtype not in allowed:
            raise oplog.reason(MASKED_OP, "self", "dtype", dtypes.serial_name(x.dtype),
                               "The dtype of self must be within the range " + dtypes.serial_list(allowed))
        if a.mask.dtype not in MASK_DTYPES:
            raise oplog.reason(MASKED_OP, "mask", "dtype", dtypes.serial_name(a.mask.dtype),
                               "The dtype of mask must be within the range " + dtypes.serial_list(MASK_DTYPES))
        if a.source.dtype != x.dtype:
            raise oplog.reason(MASKED_OP, "source", "dtype", dtypes.serial_name(a.source.dtype),
                               "The dtype of source must be the same as self")
        for name, t in (("self", x), ("mask", a.mask), ("source", a.source)):
            if t.ndim > checks.MAX_DIM:
                raise oplog.reason(MASKED_OP, name, "shape dim", str(t.ndim), "The shape dim of %s must be <= 8D" % name)
        shape = P.broadcast("self", x.shape, "mask", a.mask.shape)
        if tuple(shape[:x.ndim]) != tuple(x.shape) or len(shape) != x.ndim:
            raise oplog.reasons(MASKED_OP, "self, mask", "shapes", "%s, %s" % (
                checks.shape_text(x.shape), checks.shape_text(a.mask.shape)),
                "The shape of mask must be broadcastable to the shape of self")
        a.empty = x.is_empty() or a.mask.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        target, source = v["selfRef"], v["source"]
        view = target.reshape(1) if target.ndim == 0 else target
        mask = np.broadcast_to(np.asarray(v["mask"]).astype(bool), view.shape)
        count = int(mask.sum())
        if count == 0:
            return
        if count <= source.size:
            values = source.reshape(-1)[:count]
        elif source.flags.c_contiguous or source.ndim <= 1:
            flat = source.reshape(-1) if source.ndim != 1 else source
            values = stray.gather(flat, [np.arange(count, dtype=np.int64)],
                                  "%s: mask has %d true elements, source %d" % (MASKED_OP, count, source.size))
        else:
            raise _fault("%s: mask has %d true elements, more than source's %d (read past its contiguous copy)"
                         % (MASKED_OP, count, source.size))
        view[mask] = values
