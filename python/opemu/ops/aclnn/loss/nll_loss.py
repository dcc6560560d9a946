"""aclnnNLLLoss, aclnnNLLLoss2d, aclnnNLLLossBackward, aclnnNLLLoss2dBackward: negative
log-likelihood loss and its gradient (reference §4.7, §4.8; ops-nn loss/nll_loss, loss/nll_loss_grad;
seed 002).

    w_c = weight[c] if c != ignoreIndex else 0            (a target equal to ignoreIndex is skipped)
    forward:  l_n = -w[t_n] * x[n, t_n];  none: out = l;  sum: out = Σ l;  mean: out = Σ l / Σ w[t_n]
              totalWeightOut = Σ w[t_n] (written only when reduction != none)
    backward: out = 0 except out[n, t_n] = -g_n * w[t_n]  (none), -g * w[t_n] (sum),
              -(g / totalWeight) * w[t_n] (mean; totalWeight is an input, taken as given)

The 2-d variants take self (N, C, H, W) and target (N, H, W): class c of pixel (n, h, w) is
self[n, c, h, w]. A 1-d self (C) goes with a 0-d target (one sample).

Phase 1 of each op follows its op_api file (aclnn_nll_loss.cpp, aclnn_nll_loss2d.cpp,
aclnn_nll_loss_backward.cpp, aclnn_nll_loss2d_backward.cpp) check by check and message by message;
they differ from each other (order of dtype checks, whether out may differ in dtype from self,
whether reduction is checked before or after the shapes). None has a platform check; opemu adds
one last (ACLNN_ERR_RUNTIME_ERROR) for products the vendor tables exclude: the product table of
seed 002 for NLLLossBackward (which lists Atlas inference 310P, dropped by newer READMEs), the
current vendor READMEs otherwise.

Numerics follow the op_api's casts: the kernel works in fp32 for fp16 data (the op_api promotes
it) and in bf16 for bf16 data (its result is rounded to bf16 before being cast to out's dtype);
on the 950 (regbase) parts no promotion happens, so fp16 results are rounded to fp16 first.
Products and quotients are fp32; sums are fp32 pairwise sums in a fixed order (deterministic).

Empty tensors: NLLLoss/NLLLoss2d with an empty self (2d: or target or weight) write NaN to out for
mean, 0 for sum, and 0 to totalWeightOut (NLLLossEmptyTensorCompute; the reference's "filled with 0"
is right only for sum); for none nothing is written. The backward ops do nothing for an empty self.

Targets outside [0, C): phase 1 cannot see data. The A2/A3 kernels (and the older parts') do not
validate a target: they read weight[t] and self[n, t] (and write out[n, t]) at the address the target
gives, which leaves the row and, for weight, the tensor. The vendor's own NLLLoss2d example passes a
target equal to C. opemu does the same (opemu.core.stray): an address inside a live device
allocation's mapped range is read or written as it is there, one outside every allocation is an
access fault, ACL_ERROR_RT_AICORE_EXCEPTION, reported by phase 2 (eager streams) or the next
synchronisation, with nothing written to the outputs; `opemu check` reports the target either way.
The 950's (regbase) kernel asserts 0 <= t < C, which traps: there any target outside [0, C) that is
not ignoreIndex faults.
"""
import ctypes
import functools

import numpy as np

from opemu.core import checks, device, dtypes, parallel, status, stray
from opemu.core.op import AclnnOp, soc_is_a2_a3
from opemu.ops.aclnn.common import products as _products

FLOAT, FLOAT16, BF16 = dtypes.acl("FLOAT"), dtypes.acl("FLOAT16"), dtypes.acl("BF16")
TARGET_DTYPES = [dtypes.acl("INT64"), dtypes.acl("UINT8"), dtypes.acl("INT32")]
NONE, MEAN, SUM = 0, 1, 2
PARALLEL_FILL = 1 << 22  # elements of out worth zeroing on several cores
SMALL_FILL = 1 << 12    # elements below which NumPy's fill is cheaper than a memset through ctypes


@functools.lru_cache(maxsize=None)
def _self_dtypes(bf16):
    return [FLOAT, FLOAT16] + ([BF16] if bf16 else [])


def _self_list():
    return _self_dtypes(soc_is_a2_a3())


def _kernel_dtype(code):
    """The dtype the kernel produces its result in: the op_api casts fp16 to fp32 and leaves bf16,
    except on regbase parts, which keep self's dtype."""
    if _products.is_regbase() or code == BF16:
        return dtypes.numpy_dtype(code)
    return np.dtype(np.float32)


def _numel(desc):
    return desc.numel()


def _dim(desc, i):
    """gert::Shape::GetDim: a dimension the shape does not have reads as an invalid value."""
    return desc.shape[i] if -desc.ndim <= i < desc.ndim else None


def _check_reduction(reduction, brackets=False):
    if not NONE <= reduction <= SUM:
        text = "[%d]" if brackets else "%d"
        raise status.param_invalid(("Reduction should be between 0 and 2, but current is %s." % text) % reduction)


def _targets(target, classes, ignore, op, validated):
    """(positions kept, their classes, what a stray access is) of a flattened target; `validated`:
    the kernel traps on a kept class outside [0, C) (the 950's), else its accesses go where it
    points. `what` is None when every kept class is inside."""
    flat = np.asarray(target.reshape(-1), np.int64)   # no copy when it is int64 already
    if flat.size <= 64 and ignore not in (listed := flat.tolist()):
        # a few targets, none ignored (the usual case): Python's min and max beat NumPy's call costs
        kept, t = _positions(flat.size), flat.copy()   # a copy, as a gather makes: out may alias target
        if not listed:
            return kept, t, None
        low, high = min(listed), max(listed)
    else:
        kept = np.flatnonzero(flat != ignore)
        t = flat[kept]
        if not t.size:
            return kept, t, None
        low, high = int(t.min()), int(t.max())
    if low >= 0 and high < classes:
        return kept, t, None
    bad = int(kept[np.flatnonzero((t < 0) | (t >= classes))[0]])
    what = "%s: target[%d] = %d is outside the %d classes (and is not ignoreIndex %d)" % (
        op, bad, int(flat[bad]), classes, ignore)
    if validated:
        raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"], what)
    return kept, t, what


@functools.lru_cache(maxsize=64)
def _positions(count):
    """0..count-1, read-only (shared by the calls that keep every position)."""
    positions = np.arange(count)
    positions.flags.writeable = False
    return positions


def _gather(view, coordinates, what):
    return view[coordinates] if what is None else stray.gather(view, coordinates, what)


def _round(values, kernel_dtype):
    """fp32 values as the kernel's output dtype holds them (round to nearest even)."""
    return values if kernel_dtype == np.float32 else values.astype(kernel_dtype)


def _zero(array):
    """The kernel's memset of the output, on every core for a large one. A contiguous output is
    cleared with the C library's memset (all bits zero is +0.0 in every float dtype): it writes whole
    cache lines without reading them first, about twice as fast as NumPy's fill, which loads each
    line before storing to it. Other layouts are filled by NumPy, rows split among the cores."""
    if array.size == 0:
        return
    if array.size <= SMALL_FILL:   # a few elements: NumPy's fill costs less than a foreign call
        array.fill(0)
        return
    if array.flags.c_contiguous:
        size, base = array.nbytes, array.ctypes.data
        parts = parallel.WORKERS if array.size >= PARALLEL_FILL else 1
        piece = (-(-size // parts) + 4095) // 4096 * 4096  # whole pages per core
        parallel.run(_memset, [(base + lo, min(piece, size - lo)) for lo in range(0, size, piece)])
        return
    parts = parallel.WORKERS if array.size >= PARALLEL_FILL and array.shape[0] > 1 else 1
    rows = -(-array.shape[0] // parts)
    parallel.run(_fill, [(array[i:i + rows], 0) for i in range(0, array.shape[0], rows)])


def _memset(address, count):
    ctypes.memset(address, 0, count)  # a ctypes foreign call: the GIL is released while it runs


def _fill(array, value):
    if array.size:
        array[...] = value


# ---- forward --------------------------------------------------------------------------------

class _NLLLossBase(AclnnOp):
    inputs = ("self", "target", "weight")
    outputs = ("out", "totalWeightOut")

    def dtype_table(self):
        selfs = _self_list()
        return {"self": selfs, "target": TARGET_DTYPES, "weight": selfs}

    def workspace(self, a):
        return 0

    def _forward(self, a, v, x, target, weight):
        """x: self as (N, C) or (N, C, H, W); target: the flattened class of each sample/pixel."""
        out, total_out = v["out"], v["totalWeightOut"]
        if a.empty:
            if a.reduction != NONE:
                _fill(out, np.nan if a.reduction == MEAN else 0)
                _fill(total_out, 0)
            return
        kd = a.kernel_dtype
        kept, t, what = _targets(target, x.shape[1], a.ignoreIndex, self.name, a.validates_targets)
        w = _gather(weight.reshape(-1), (t,), what).astype(np.float32)
        losses = np.multiply(w, _gather(x, _coordinates(x.shape, kept, t), what).astype(np.float32))
        np.negative(losses, out=losses)
        with np.errstate(divide="ignore", invalid="ignore"):
            if a.reduction == NONE:
                full = np.zeros(target.size, np.float32)
                full[kept] = losses
                out[...] = _round(full, kd).reshape(out.shape)
                return
            loss = np.add.reduce(losses, dtype=np.float32)
            total = np.add.reduce(w, dtype=np.float32)
            if a.reduction == MEAN:
                loss = np.float32(loss) / np.float32(total)
        out[...] = _round(np.float32(loss).reshape(1), kd).reshape(out.shape)
        total_out[...] = _round(np.float32(total).reshape(1), kd).reshape(total_out.shape)


def _coordinates(shape, kept, t):
    """Index arrays of element (sample/pixel `kept`, class `t`) of an (N, C) or (N, C, H, W) array."""
    if len(shape) == 2:
        return kept, t
    h, w = shape[2], shape[3]
    pixel = kept % (h * w)
    return kept // (h * w), t, pixel // w, pixel % w


class NLLLoss(_NLLLossBase):
    name = "aclnnNLLLoss"
    products = _products.describe(("910", "A2", "A3", "950", "310P")) + " (BF16 on A2/A3/950)"
    PRODUCTS = ("910", "A2", "A3", "950", "310P")

    def check(self, a):
        checks.not_null(a, "self", "target", "weight", "out", "totalWeightOut")
        checks.dtype_match("weight", a.weight, a.self.dtype)
        checks.result_castable(a.self.dtype, a.out.dtype)
        checks.result_castable(a.self.dtype, a.totalWeightOut.dtype)
        checks.dtype_in("self", a.self, _self_list())
        checks.dtype_in("target", a.target, TARGET_DTYPES)
        _check_reduction(a.reduction)
        x, target, weight, out = a.self, a.target, a.weight, a.out
        if not 1 <= x.ndim <= 2:
            raise status.param_invalid("Input tensor should be 1D or 2D.")
        if target.ndim > 1:
            raise status.param_invalid("0D or 1D target tensor expected, multi-target not supported.")
        if not ((x.ndim == 1 and target.ndim == 0) or (x.ndim == 2 and target.ndim == 1
                                                         and x.shape[0] == target.shape[0])):
            raise status.param_invalid(
                "when self is 1D, target need be 0D; when self is 2D, target need be 1D, and target first dimension "
                "need equal to self first dimension, but (got self: %s, target: %s)"
                % (checks.shape_text(x.shape), checks.shape_text(target.shape)))
        classes = x.shape[-1]
        if weight.ndim != 1 or weight.shape[0] != classes:
            raise status.param_invalid("Weight tensor should be defined for all %d classes but got weight tensor of "
                                       "shape: %s" % (classes, checks.shape_text(weight.shape)))
        if a.reduction == NONE and x.ndim == 2:
            if out.ndim != 1 or out.shape[0] != x.shape[0]:
                raise status.param_invalid("Expect out shape [%d], but got: %s."
                                           % (x.shape[0], checks.shape_text(out.shape)))
        elif out.ndim > 1 or _numel(out) != 1:
            raise status.param_invalid("Expected a single element out tensor, but got: %s"
                                       % checks.shape_text(out.shape))
        if _numel(a.totalWeightOut) != 1:
            raise status.param_invalid("Shape of totalWeightOut tensor should be [1], but current is %s."
                                       % checks.shape_text(a.totalWeightOut.shape))
        if x.is_empty() and classes == 0 and _numel(target) > 0:
            raise status.param_invalid("Target is out of bounds")
        _products.check_supported(self.name, self.PRODUCTS)
        a.kernel_dtype = _kernel_dtype(a.self.dtype)
        a.validates_targets = _products.is_regbase()
        a.empty = x.is_empty()

    def compute(self, a, v, workspace):
        x = v["self"]
        self._forward(a, v, x.reshape(1, -1) if x.ndim == 1 else x, v["target"].reshape(-1), v["weight"])


class NLLLoss2d(_NLLLossBase):
    name = "aclnnNLLLoss2d"
    products = _products.describe(("910", "A2", "A3", "950", "310P")) + " (BF16 on A2/A3/950)"
    PRODUCTS = ("910", "A2", "A3", "950", "310P")

    def check(self, a):
        checks.not_null(a, "self", "target", "weight", "out", "totalWeightOut")
        checks.dtype_in("self", a.self, _self_list())
        checks.dtype_match("self", a.self, a.weight.dtype)
        checks.result_castable(a.self.dtype, a.out.dtype)
        checks.result_castable(a.self.dtype, a.totalWeightOut.dtype)
        checks.dtype_in("target", a.target, TARGET_DTYPES)
        _check_reduction(a.reduction, brackets=True)
        x, target, weight, out = a.self, a.target, a.weight, a.out
        if x.ndim != 4:
            raise status.param_invalid("Input tensor dim should be 4D, other dim not supported.")
        if _dim(weight, 0) != x.shape[1]:
            raise status.param_invalid("Input tensor x[1] should be equal to weight[0].")
        if target.ndim != 3:
            raise status.param_invalid("target tensor dim should be 3D, other dim not supported.")
        if (x.shape[0], x.shape[2], x.shape[3]) != tuple(target.shape):
            raise status.param_invalid("size mismatch got input: [%s], target: [%s]."
                                       % (checks.shape_text(x.shape), checks.shape_text(target.shape)))
        if a.reduction == NONE:
            checks.same_shape("out", out, "target", target)
        elif _numel(out) != 1:
            raise status.param_invalid("Shape of out tensor should be [1], but current is %s."
                                       % checks.shape_text(out.shape))
        if _numel(a.totalWeightOut) != 1:
            raise status.param_invalid("Shape of totalWeightOut tensor should be [1], but current is %s."
                                       % checks.shape_text(a.totalWeightOut.shape))
        _products.check_supported(self.name, self.PRODUCTS)
        a.kernel_dtype = _kernel_dtype(a.self.dtype)
        a.validates_targets = _products.is_regbase()
        a.empty = x.is_empty() or target.is_empty() or weight.is_empty()

    def compute(self, a, v, workspace):
        self._forward(a, v, v["self"], v["target"].reshape(-1), v["weight"])


# ---- backward -------------------------------------------------------------------------------

class _NLLLossBackwardBase(AclnnOp):
    inputs = ("gradOutput", "self", "target", "weight", "totalWeight")
    outputs = ("out",)

    def dtype_table(self):
        selfs = _self_list()
        return {"gradOutput": selfs, "self": selfs, "target": TARGET_DTYPES, "weight": selfs, "totalWeight": selfs,
                "out": selfs}

    def workspace(self, a):
        return 0

    def _backward(self, a, v, out, target):
        """out: (N, C) or (N, C, H, W); target: the flattened class of each sample/pixel."""
        kd = a.kernel_dtype
        kept, t, what = _targets(target, out.shape[1], a.ignoreIndex, self.name, a.validates_targets)
        where = _coordinates(out.shape, kept, t)
        scatter = None if what is None else stray.Scatter(out, where, what)  # faults before any write
        weight = np.asarray(_gather(v["weight"].reshape(-1), (t,), what), np.float32)   # a copy only to widen
        grad = np.asarray(v["gradOutput"].reshape(-1), np.float32)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if a.reduction == NONE:
                scale = grad[kept]
            elif a.reduction == MEAN:
                scale = np.float32(grad[0]) / np.float32(v["totalWeight"].reshape(-1)[0])
            else:
                scale = np.float32(grad[0])
            values = np.multiply(-scale, weight, dtype=np.float32)   # -(scale * w): negation is exact
        _zero(out)
        if scatter is None:
            out[where] = _round(values, kd)
        else:
            scatter.write(_round(values, kd))


class NLLLossBackward(_NLLLossBackwardBase):
    name = "aclnnNLLLossBackward"
    PRODUCTS = ("910", "A2", "A3", "950", "310P")
    products = _products.describe(PRODUCTS) + " (BF16 on A2/A3/950)"

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "weight", "totalWeight", "out")
        checks.dtype_match("weight", a.weight, a.self.dtype)
        checks.dtype_match("gradOutput", a.gradOutput, a.self.dtype)
        checks.dtype_match("totalWeight", a.totalWeight, a.self.dtype)
        checks.result_castable(a.self.dtype, a.out.dtype)
        checks.dtype_in("self", a.self, _self_list())
        checks.dtype_in("target", a.target, TARGET_DTYPES)
        _check_reduction(a.reduction)
        x, target, weight, grad = a.self, a.target, a.weight, a.gradOutput
        if not 1 <= x.ndim <= 2:
            raise status.param_invalid("Input tensor should be 1D or 2D.")
        if target.ndim > 1:
            raise status.param_invalid("0D or 1D target tensor expected, multi-target not supported.")
        if not (x.ndim == 1 and target.ndim == 0) and x.shape[0] != _dim(target, 0):
            raise status.param_invalid("Size mismatch (got input: %s, target: %s) "
                                       % (checks.shape_text(x.shape), checks.shape_text(target.shape)))
        classes = x.shape[-1]
        if weight.ndim != 1 or weight.shape[0] != classes:
            raise status.param_invalid("Weight tensor should be defined for all %d classes but got weight tensor of "
                                       "shape: %s" % (classes, checks.shape_text(weight.shape)))
        if _numel(a.totalWeight) != 1:
            raise status.param_invalid("Expected totalWeight to be a single element tensor, but current is %s."
                                       % checks.shape_text(a.totalWeight.shape))
        if a.reduction == NONE and x.ndim == 2:
            if grad.ndim != 1 or grad.shape[0] != x.shape[0]:
                raise status.param_invalid("Expect gradOutput shape [%d], but got: %s."
                                           % (x.shape[0], checks.shape_text(grad.shape)))
        elif grad.ndim > 1 or _numel(grad) != 1:
            raise status.param_invalid("Expected a single element grad_output tensor, but got: %s"
                                       % checks.shape_text(grad.shape))
        checks.same_shape("self", x, "out", a.out)
        _products.check_supported(self.name, self.PRODUCTS)
        a.kernel_dtype = _kernel_dtype(a.self.dtype)
        a.validates_targets = _products.is_regbase()
        a.empty = x.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        out = v["out"]
        if out.ndim == 1:
            # A 1-d self is one sample: the kernel sees it as (1, C) and reads the first target (a
            # 1-d target of C elements passes phase 1 too, and only its first element is used).
            self._backward(a, v, out.reshape(1, -1), v["target"].reshape(-1)[:1])
        else:
            self._backward(a, v, out, v["target"])


class NLLLoss2dBackward(_NLLLossBackwardBase):
    name = "aclnnNLLLoss2dBackward"
    PRODUCTS = ("910", "A2", "A3", "950")
    products = _products.describe(PRODUCTS) + " (BF16 on A2/A3/950)"

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "target", "weight", "out", "totalWeight")
        checks.dtype_in("self", a.self, _self_list())
        for name in ("gradOutput", "weight", "out", "totalWeight"):
            checks.dtype_match("self", a.self, getattr(a, name).dtype)
        checks.dtype_in("target", a.target, TARGET_DTYPES)
        x, target, grad = a.self, a.target, a.gradOutput
        if a.reduction == NONE:
            if tuple(grad.shape) != tuple(target.shape):
                raise status.param_invalid("Size mismatch (got gradOutput: %s, target: %s) "
                                           % (checks.shape_text(grad.shape), checks.shape_text(target.shape)))
        elif grad.ndim > 1 or _numel(grad) != 1:
            raise status.param_invalid("Expected a single element grad_output tensor, but got: %s"
                                       % checks.shape_text(grad.shape))
        if x.ndim != 4:
            raise status.param_invalid("Input tensor should be 4D.")
        if target.ndim != 3:
            raise status.param_invalid("target tensor should be 3D.")
        if (x.shape[0], x.shape[2], x.shape[3]) != tuple(target.shape):
            raise status.param_invalid("Size mismatch (got input: %s, target: %s) "
                                       % (checks.shape_text(x.shape), checks.shape_text(target.shape)))
        if _numel(a.weight) != x.shape[1]:
            raise status.param_invalid("Weight tensor should be defined for all %d classes but got weight tensor of "
                                       "shape: %s" % (x.shape[1], checks.shape_text(a.weight.shape)))
        if tuple(x.shape) != tuple(a.out.shape):
            raise status.param_invalid("Shape of Out tensor should be %s, but current is %s."
                                       % (checks.shape_text(x.shape), checks.shape_text(a.out.shape)))
        if _numel(a.totalWeight) != 1:
            raise status.param_invalid("Shape of totalWeight tensor should be [1], but current is %s."
                                       % checks.shape_text(a.totalWeight.shape))
        _check_reduction(a.reduction)
        _products.check_supported(self.name, self.PRODUCTS)
        a.kernel_dtype = _kernel_dtype(a.self.dtype)
        a.validates_targets = _products.is_regbase()
        a.empty = x.is_empty()

    def compute(self, a, v, workspace):
        if a.empty:
            return
        self._backward(a, v, v["out"], v["target"].reshape(-1))
