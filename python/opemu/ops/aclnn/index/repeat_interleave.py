"""aclnnRepeatInterleave, …WithDim, …Int, …IntWithDim, …Tensor (ops-nn index/repeat_interleave op_api) and
aclnnRepeatInterleaveGrad (index/repeat_interleave_grad, an opbuild operator of Atlas A2/A3 and the 950):
PyTorch's repeat_interleave and its gradient.

    out = self (flattened when no dim is given) with element/slice i repeated repeats[i] times along dim
    (repeats: a 0-d or 1-element tensor, or an int, repeats everything alike); the Tensor form repeats the index
    i of each element: out = [0]*r0 + [1]*r1 + …
    Grad: yGrad summed over each group of repeated slices along axis (fp32 sums, rounded once)

outputSize is the result's size along dim, which out must have (the kernel's infer shape, checked after it);
repeat counts are data: when they add up to more than outputSize the kernel would write past out, which
opemu reports as an access fault (ACL_ERROR_RT_AICORE_EXCEPTION) with nothing written; to less, the tail of out
is left as it was."""
import numpy as np

from opemu.core import checks, device, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import opbuild
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

REPEATS = P.codes("INT64 INT32")


def _self_dtypes():
    line = _products.line()
    base = "UINT8 INT8 INT16 INT32 INT64 BOOL FLOAT16 FLOAT"
    if line == "950":
        return P.codes(base + " BF16 UINT16 UINT32 UINT64")
    return P.codes(base + " BF16") if line in ("A2", "A3") else P.codes(base)


def _dim_range(x, dim):
    n = x.ndim
    if n == 0:
        raise status.param_invalid("dimension specified as %d but tensor has no dimensions." % dim)
    low, high = min(n - 1, -n), max(n - 1, -n)
    if not low <= dim <= high:
        raise status.param_invalid("Dimension out of range (expected to be in range of [%d, %d], but got %d)."
                                   % (low, high, dim))
    return dim % n


def _check_out_shape(x_shape, axis, output_size, out):
    expected = list(x_shape)
    expected[axis] = output_size
    if tuple(out.shape) != tuple(expected):
        raise status.param_invalid("Expected tensor for repeatRes to have same size as tensor for out, but %s does not "
                                   "equal %s." % (checks.shape_text(expected), checks.shape_text(out.shape)))


def repeat(op, x, repeats, axis, out):
    """x repeated along axis into out (the first sum(repeats) slices)."""
    counts = np.broadcast_to(np.asarray(repeats, np.int64).reshape(-1), (x.shape[axis],))
    if (counts < 0).any():
        raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"], "%s: a negative repeat count" % op)
    total = int(counts.sum())
    if total > out.shape[axis]:
        raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                 "%s: the repeats add up to %d, more than outputSize %d: the kernel would write past "
                                 "out" % (op, total, out.shape[axis]))
    result = np.repeat(x, counts, axis=axis)
    target = out[(slice(None),) * axis + (slice(0, total),)]
    np.copyto(target, result)


class _RepeatBase(AclnnOp):
    inputs = ("self", "repeats")
    outputs = ("out",)
    with_dim = False

    def dtype_table(self):
        return {"self": _self_dtypes(), "repeats": REPEATS, "out": _self_dtypes()}

    def check(self, a):
        checks.not_null(a, "self", "repeats", "out")
        checks.dtype_in("self", a.self, _self_dtypes())
        checks.dtype_in("repeats", a.repeats, REPEATS)
        checks.dtype_match("out", a.out, a.self.dtype)
        checks.max_dim("repeats", a.repeats, 1)
        x, repeats = a.self, a.repeats
        count = repeats.shape[0] if repeats.ndim else 1
        if self.with_dim:
            a.axis = _dim_range(x, a.dim)
            if repeats.ndim and count not in (1, x.shape[a.axis]):
                raise status.param_invalid("Tensor repeats must be size 1 or have the same size %d as input along dim, "
                                           "but got %d." % (x.shape[a.axis], count))
            checks.max_dim("self", x)
        else:
            a.axis = 0
            if repeats.ndim and count not in (1, x.numel()):
                raise status.param_invalid("Tensor repeats size %d must be 1 or the number of elements in tensor self "
                                           "%d." % (count, x.numel()))
            checks.max_dim("self", x)
            if x.is_empty() and not (repeats.is_empty() or repeats.ndim == 0 or repeats.numel() == 1):
                raise status.param_invalid("When tensor self is empty, repeats should be empty / 0 dim tensor / 1 dim "
                                           "tensor with only 1 elements, but got shape %s."
                                           % checks.shape_text(repeats.shape))
        a.empty = x.is_empty() or a.out.is_empty() or (self.with_dim and a.outputSize == 0)
        if a.empty:
            return
        if repeats.is_empty():
            raise status.param_invalid("repeats must have the same size as input along dim.")
        shape = x.shape if self.with_dim else (x.numel(),)
        _check_out_shape(shape, a.axis, a.outputSize, a.out)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x = v["self"] if self.with_dim else v["self"].reshape(-1)
        repeat(self.name, x, v["repeats"], a.axis, v["out"])


class RepeatInterleave(_RepeatBase):
    name = "aclnnRepeatInterleave"


class RepeatInterleaveWithDim(_RepeatBase):
    name = "aclnnRepeatInterleaveWithDim"
    with_dim = True


class _RepeatIntBase(AclnnOp):
    inputs = ("self",)
    outputs = ("out",)
    with_dim = False

    def dtype_table(self):
        return {"self": _self_dtypes(), "out": _self_dtypes()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, _self_dtypes())
        checks.dtype_match("out", a.out, a.self.dtype)
        if a.repeats < 0:
            raise status.param_invalid("repeats %d can not be negative." % a.repeats)
        a.axis = _dim_range(a.self, a.dim) if self.with_dim else 0
        checks.max_dim("self", a.self)
        a.empty = a.self.is_empty() or a.out.is_empty() or (self.with_dim and a.outputSize == 0)
        if not a.empty:
            shape = a.self.shape if self.with_dim else (a.self.numel(),)
            _check_out_shape(shape, a.axis, a.outputSize, a.out)

    def compute(self, a, v, workspace):
        if a.empty:
            return
        x = v["self"] if self.with_dim else v["self"].reshape(-1)
        repeat(self.name, x, np.asarray(a.repeats), a.axis, v["out"])


class RepeatInterleaveInt(_RepeatIntBase):
    name = "aclnnRepeatInterleaveInt"


class RepeatInterleaveIntWithDim(_RepeatIntBase):
    name = "aclnnRepeatInterleaveIntWithDim"
    with_dim = True


class RepeatInterleaveTensor(AclnnOp):
    name = "aclnnRepeatInterleaveTensor"
    inputs = ("repeats",)
    outputs = ("out",)

    def dtype_table(self):
        return {"repeats": REPEATS, "out": REPEATS}

    def check(self, a):
        checks.not_null(a, "repeats", "out")
        checks.dtype_in("repeats", a.repeats, REPEATS)
        checks.dtype_match("out", a.out, a.repeats.dtype)
        if a.repeats.ndim > 1:
            raise status.param_invalid("repeats must be an empty tensor / 1D tensor.")
        a.empty = a.repeats.is_empty() or a.out.is_empty()
        if not a.empty:
            _check_out_shape((a.repeats.numel(),), 0, a.outputSize, a.out)

    def compute(self, a, v, workspace):
        if not a.empty:
            counts = v["repeats"].reshape(-1)
            repeat(self.name, np.arange(counts.size, dtype=v["out"].dtype), counts, 0, v["out"])


class RepeatInterleaveGrad(AclnnOp):
    name = "aclnnRepeatInterleaveGrad"
    inputs = ("yGrad", "repeats")
    outputs = ("out",)
    LINES = ("A2", "A3", "950")
    products = _products.describe(LINES)

    def dtype_table(self):
        data = P.codes("FLOAT FLOAT16 BF16")
        return {"yGrad": data, "repeats": REPEATS, "out": data}

    def check(self, a):
        combos = [(d, r, d) for d in P.codes("FLOAT FLOAT16 BF16") for r in REPEATS]
        opbuild.check(self.name, a, ("yGrad", "repeats", "out"), combos, self.LINES)
        n = a.yGrad.ndim
        if not -n <= a.axis < n or a.out.ndim != n:
            raise opbuild.tiling_error("RepeatInterleaveGrad", "axis %d, yGrad %s and out %s do not fit" % (
                a.axis, checks.shape_text(a.yGrad.shape), checks.shape_text(a.out.shape)))
        a.along = a.axis % n
        count = a.repeats.numel()
        if count not in (1, a.out.shape[a.along]) or any(
                a.out.shape[i] != a.yGrad.shape[i] for i in range(n) if i != a.along):
            raise opbuild.tiling_error("RepeatInterleaveGrad", "repeats %s do not fit out %s along axis %d" % (
                checks.shape_text(a.repeats.shape), checks.shape_text(a.out.shape), a.along))

    def compute(self, a, v, workspace):
        out = v["out"]
        counts = np.broadcast_to(np.asarray(v["repeats"], np.int64).reshape(-1), (out.shape[a.along],))
        grad = np.asarray(v["yGrad"], np.float32)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        if counts.sum() > grad.shape[a.along] or (counts < 0).any():
            raise device.DeviceFault(status.ACL["ACL_ERROR_RT_AICORE_EXCEPTION"],
                                     "%s: the repeats reach past yGrad along axis %d" % (self.name, a.along))
        moved = np.moveaxis(grad, a.along, 0)
        sums = np.add.reduceat(moved, np.minimum(starts, max(moved.shape[0] - 1, 0)), axis=0) if moved.shape[0] \
            else np.zeros((counts.size,) + moved.shape[1:], np.float32)
        sums[counts == 0] = 0
        P.store(out, np.moveaxis(sums, 0, a.along))
