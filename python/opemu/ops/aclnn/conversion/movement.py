"""Data movement of ops-math conversion/ whose result is a rearrangement of self's elements, copied bit for bit
into out's view: aclnnRoll (roll), aclnnFlatten (flatten, ONNX's: a 2-D result split at `axis`),
aclnnChannelShuffle (transpose), aclnnSlice and aclnnSliceV2 (slice, strided_slice_v3: positive steps, bounds
clamped as Python slices clamp them), aclnnDiag and aclnnDiagFlat (diag_v2, diag_flat: torch.diag and
torch.diagflat)."""
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

ROLLABLE = P.per_line("FLOAT FLOAT16 INT8 UINT8 INT32 UINT32 BOOL INT64",
                      a2="FLOAT FLOAT16 INT8 UINT8 INT32 UINT32 BOOL INT64 BF16 INT16",
                      regbase="FLOAT FLOAT16 INT8 UINT8 INT32 UINT32 BOOL INT64 BF16 INT16 COMPLEX64")
FLATTENABLE = P.per_product("FLOAT FLOAT16 INT32 INT8 UINT8 INT64 INT16 UINT16 UINT32 UINT64 BOOL", "BF16")
SHUFFLABLE = P.codes("FLOAT16 FLOAT DOUBLE INT8 UINT8 INT16 INT32 INT64 BOOL COMPLEX64 COMPLEX128 BF16")
SLICEABLE = P.codes("FLOAT FLOAT16 INT64 INT8 INT32 UINT8 BOOL BF16")
DIAGONAL = P.per_product("FLOAT16 FLOAT INT64 INT32 INT16 INT8 UINT8 DOUBLE BOOL COMPLEX64", "BF16")


def _same_dtype_out(a, name, allowed):
    checks.dtype_in(name, getattr(a, name), allowed)
    checks.same_dtype(name, getattr(a, name), "out", a.out)


def _copy(out, values):
    if out.size:
        np.copyto(out, values)


class Roll(AclnnOp):
    name = "aclnnRoll"
    inputs = ("x",)
    outputs = ("out",)

    def dtype_table(self):
        return {"x": ROLLABLE(), "out": ROLLABLE()}

    def check(self, a):
        checks.not_null(a, "x", "shifts", "dims", "out")
        _same_dtype_out(a, "x", ROLLABLE())
        if len(a.shifts) != len(a.dims) and len(a.dims) != 0:
            raise status.param_invalid("The size of shifts and dims should be the same when the size of dims is "
                                       "not 0.")
        if len(a.dims) == 0 and len(a.shifts) != 1:
            raise status.param_invalid("The size of shifts must be 1 if the size of dims is 0.")
        n = a.x.ndim
        low, high = min(-n, n - 1), max(-n, n - 1)
        for d in a.dims:
            if not low <= d <= high:
                raise status.param_invalid("The values of dims should be in range [%d, %d]." % (low, high))
        checks.max_dim("x", a.x)
        checks.same_shape("x", a.x, "out", a.out)

    def compute(self, a, v, workspace):
        x = v["x"]
        if a.dims:
            rolled = np.roll(x, tuple(a.shifts), axis=tuple(d % max(x.ndim, 1) for d in a.dims))
        else:  # no dims: the flattened tensor is rolled
            rolled = np.roll(x.reshape(-1), a.shifts[0]).reshape(x.shape)
        _copy(v["out"], rolled)


class Flatten(AclnnOp):
    name = "aclnnFlatten"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": FLATTENABLE(), "out": FLATTENABLE()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        _same_dtype_out(a, "self", FLATTENABLE())
        checks.max_dim("self", a.self)
        n = a.self.ndim
        axis = a.axis + max(n, 1) if a.axis < 0 else a.axis
        if n <= 1 and axis > 0:
            raise status.param_invalid("Dimension out of range (expected to be in range of [-1, 0], but got %d)"
                                       % axis)
        if axis < 0 or (n > 1 and n <= axis):
            raise status.param_invalid("Dimension out of range (expected to be in range of [-%d, %d], but got %d)"
                                       % (n, n - 1, a.axis))
        shape = tuple(a.self.shape)
        expected = (math.prod(shape[:axis]), math.prod(shape[axis:]))
        if max(expected) >= 2 ** 63:
            raise status.param_invalid("The output shape exceeds the int64_t data range")
        checks.shape_is("out", a.out, expected, "expected")

    def compute(self, a, v, workspace):
        _copy(v["out"], v["self"].reshape(v["out"].shape))


class ChannelShuffle(AclnnOp):
    """(N, C, *) → channels regrouped: (N, g, C/g, *) transposed to (N, C/g, g, *)."""
    name = "aclnnChannelShuffle"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": SHUFFLABLE, "out": SHUFFLABLE}

    def check(self, a):
        checks.not_null(a, "self", "out")
        _same_dtype_out(a, "self", SHUFFLABLE)
        if a.groups <= 0:
            raise status.param_invalid("Number of groups to divide channels in must be positive. Value of groups: "
                                       "%d" % a.groups)
        if a.self.ndim >= 2 and a.self.shape[1] % a.groups:
            raise status.param_invalid("Number of channels must be divisible by groups. Got %d channels and %d "
                                       "groups." % (a.self.shape[1], a.groups))
        checks.max_dim("self", a.self, 7)
        if a.self.ndim < 3:
            raise status.param_invalid("The self tensor must have at least 3 dimensions.")
        checks.same_shape("self", a.self, "out", a.out)

    def compute(self, a, v, workspace):
        x = v["self"]
        n, c = x.shape[:2]
        grouped = x.reshape((n, a.groups, c // a.groups) + x.shape[2:])
        _copy(v["out"], np.swapaxes(grouped, 1, 2).reshape(x.shape))


def _clamped_range(size, start, end):
    """Slice bounds as the op_api wraps and clamps them (a negative bound counts from the end)."""
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start, end = min(max(start, 0), size), min(max(end, 0), size)
    return start, max(end, start)


class Slice(AclnnOp):
    name = "aclnnSlice"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": SLICEABLE, "out": SLICEABLE}

    def check_dtype(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, SLICEABLE)
        if a.self.dtype == P.BF16 and _products.line() not in ("A2", "A3", "950"):
            raise status.param_invalid("Input dtype of %s is not support bfloat16 in current socversion."
                                       % self.name)
        checks.same_dtype("self", a.self, "out", a.out)

    def check(self, a):
        self.check_dtype(a)
        n = a.self.ndim
        if n > 8:
            raise status.param_invalid("Expected aclnnSlice self len %d to not be greater than 8 but check failed." % n)
        if n <= 0:
            raise status.param_invalid("Expected aclnnSlice self len %d to not be less than one but check failed." % n)
        if not -n <= a.dim <= n - 1:
            raise status.param_nullptr("Expected aclnnSlice dim value %d to be in range [%d, %d] but check failed."
                                       % (a.dim, -n, n - 1))
        if a.step <= 0:
            raise status.param_invalid("aclnnSlice step must be positive.")
        self.finish(a, [(a.dim % n, a.start, a.end, a.step)])

    def finish(self, a, cuts):
        index, shape = [slice(None)] * a.self.ndim, list(a.self.shape)
        for axis, start, end, step in cuts:
            start, end = _clamped_range(shape[axis], start, end)
            index[axis] = slice(start, end, step)
            shape[axis] = (end - start + step - 1) // step
        a.index = tuple(index)
        if tuple(shape) != tuple(a.out.shape):
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.out.shape)))

    def compute(self, a, v, workspace):
        _copy(v["out"], v["self"][a.index])


class SliceV2(Slice):
    name = "aclnnSliceV2"

    def check(self, a):
        checks.not_null(a, "self", "starts", "ends", "axes", "steps", "out")
        self.check_dtype(a)
        n = a.self.ndim
        if not len(a.starts) == len(a.ends) == len(a.axes) == len(a.steps):
            raise status.param_invalid("The sizes of starts, ends, axes and steps should be the same, but got %d, %d, "
                                       "%d and %d." % (len(a.starts), len(a.ends), len(a.axes), len(a.steps)))
        for axis in a.axes:
            if not -n <= axis <= n - 1:
                raise status.param_invalid("The value of axes should be in range [%d, %d], but got %d."
                                           % (-n, n - 1, axis))
        if len({axis % n for axis in a.axes}) != len(a.axes):
            raise status.param_invalid("The values of axes should not be repeated.")
        for step in a.steps:
            if step <= 0:
                raise status.param_invalid("aclnnSliceV2 step must be positive.")
        checks.max_dim("self", a.self)
        self.finish(a, [(axis % n, s, e, t) for axis, s, e, t in zip(a.axes, a.starts, a.ends, a.steps)])


class Diag(AclnnOp):
    """torch.diag: a vector becomes a square matrix with it on diagonal `diagonal`; a matrix gives that diagonal."""
    name = "aclnnDiag"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": DIAGONAL(), "out": DIAGONAL()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        _same_dtype_out(a, "self", DIAGONAL())
        checks.max_dim("self", a.self, 2)
        self.check_shape(a, a.self.shape)

    def check_shape(self, a, shape):
        k = a.diagonal
        if len(shape) <= 1:
            side = (shape[0] if shape else 1) + abs(k)
            expected = (side, side)
        else:
            rows, cols = shape
            expected = (max(0, min(rows + min(k, 0), cols - max(k, 0))),)
        checks.shape_is("out", a.out, expected, "expected")

    def compute(self, a, v, workspace):
        x = v["self"]
        _copy(v["out"], np.diag(x.reshape(-1) if x.ndim == 0 else x, a.diagonal))


class DiagFlat(Diag):
    name = "aclnnDiagFlat"

    def check(self, a):
        checks.not_null(a, "self", "out")
        _same_dtype_out(a, "self", DIAGONAL())
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        self.check_shape(a, (math.prod(a.self.shape),))

    def compute(self, a, v, workspace):
        _copy(v["out"], np.diagflat(v["self"], a.diagonal))
