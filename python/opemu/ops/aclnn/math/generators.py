"""Tensors made from numbers (ops-math math/eye, lin_space, logspace, range): aclnnEye, aclnnLinspace,
aclnnLogSpace and aclnnRange (PyTorch's range: both ends included).

Linspace fills from both ends, start + i·step for the first half and end - (steps-1-i)·step for the rest (PyTorch's
rule: both ends exact), in the out dtype's compute type (INT64 out in FLOAT, then truncated). LogSpace is
base ** linspace(start, end) computed in out's dtype (fp16/bf16 in fp32). Linspace and LogSpace answer a null
argument with ACLNN_ERR_INNER_NULLPTR, as their op_api does."""
import math

import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_product

EYE = per_product("FLOAT INT32 FLOAT16 INT8 INT16 UINT8 INT64 BOOL", "BF16")
LINSPACE = lambda: codes("FLOAT FLOAT16 BF16 INT32 INT16 INT8 UINT8 INT64 DOUBLE") \
    if _products.line() in ("A2", "A3", "950") else codes("FLOAT FLOAT16 INT32 INT8 UINT8 DOUBLE")
LOGSPACE = lambda: codes("FLOAT FLOAT16 BF16")
RANGE_IN = per_product("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL", "BF16")
RANGE_OUT = per_product("FLOAT16 FLOAT DOUBLE INT64 INT32", "BF16")


def _inner_null(a, *names):
    for name in names:
        if getattr(a, name) is None:
            raise status.VendorError(status.ACLNN["ACLNN_ERR_INNER_NULLPTR"],
                                     "Expected a proper argument but got null for argument %s." % name)


class Eye(AclnnOp):
    """nulls → out's dtype → out 2-D → n, m ≥ 0 → out of shape (n, m)."""
    name = "aclnnEye"
    inputs, outputs = (), ("out",)

    def dtype_table(self):
        return {"out": EYE()}

    def check(self, a):
        checks.not_null(a, "out")
        checks.dtype_in("out", a.out, EYE())
        if a.out.ndim != 2:
            raise status.param_invalid("Expected out to be 2-D tensor, but the dimension of out is %d." % a.out.ndim)
        for name in ("n", "m"):
            if getattr(a, name) < 0:
                raise status.param_invalid("%s must be greater or equal to 0, got %d" % (name, getattr(a, name)))
        if tuple(a.out.shape) != (a.n, a.m):
            raise status.param_invalid("Expected out shape to be (%d, %d), but got %s."
                                       % (a.n, a.m, checks.shape_text(a.out.shape)))

    def compute(self, a, v, workspace):
        out = v["out"]
        P.store(out, np.eye(a.n, a.m, dtype=np.float32))


def linspace(start, end, steps, dtype):
    """PyTorch's two-sided fill in `dtype`."""
    if steps == 1:
        return np.array([start], dtype)
    step = (end - start) / (steps - 1)
    i = np.arange(steps, dtype=dtype)
    half = steps // 2
    return np.where(i < half, start + i * dtype.type(step),
                    end - (dtype.type(steps - 1) - i) * dtype.type(step)).astype(dtype)


class Linspace(AclnnOp):
    """nulls → start and end not complex → out's dtype → steps ≥ 0 → out holds `steps` elements."""
    name = "aclnnLinspace"
    inputs, outputs = (), ("out",)

    def dtype_table(self):
        return {"out": LINSPACE()}

    def check(self, a):
        _inner_null(a, "start", "end", "out")
        for scalar in (a.start, a.end):
            if P.category(scalar.dtype) == 3:
                raise status.param_invalid("complex for input is not implemented.")
        checks.dtype_in("out", a.out, LINSPACE())
        if a.steps < 0:
            raise status.param_invalid("number of steps must be non-negative.")
        if a.out.numel() != a.steps:
            raise status.param_invalid("size of out must equal to steps, but got size of out %d, steps: %d."
                                       % (a.out.numel(), a.steps))

    def compute(self, a, v, workspace):
        if a.steps == 0:
            return
        out = v["out"]
        ct = np.dtype(np.float64) if out.dtype == np.float64 else np.dtype(np.float32)
        values = linspace(float(np.real(a.start.value)), float(np.real(a.end.value)), a.steps, ct)
        with np.errstate(invalid="ignore"):
            P.store(out, (np.trunc(values) if out.dtype.kind in "iu" else values).reshape(out.shape))


class LogSpace(AclnnOp):
    """nulls → result's dtype → steps ≥ 0; base ** linspace(start, end, steps)."""
    name = "aclnnLogSpace"
    inputs, outputs = (), ("result",)

    def dtype_table(self):
        return {"result": LOGSPACE()}

    def check(self, a):
        _inner_null(a, "start", "end", "result")
        checks.dtype_in("result", a.result, LOGSPACE())
        if a.steps < 0:
            raise status.param_invalid("LogSpace requires non-negative steps, given steps is %d" % a.steps)
        if a.steps and a.result.numel() != a.steps:
            raise status.param_invalid("size of result must equal to steps, but got size of result %d, steps: %d."
                                       % (a.result.numel(), a.steps))

    def compute(self, a, v, workspace):
        if a.steps == 0:
            return
        out = v["result"]
        exponents = linspace(float(np.real(a.start.value)), float(np.real(a.end.value)), a.steps, np.dtype(np.float32))
        with np.errstate(all="ignore"):
            P.store(out, np.power(np.float32(a.base), exponents).reshape(out.shape))


class Range(AclnnOp):
    """nulls → dtypes of start, end, step and out → step non-zero and of the bounds' sign → out holds
    floor((end - start) / step) + 1 elements."""
    name = "aclnnRange"
    inputs, outputs = (), ("out",)

    def dtype_table(self):
        return {"out": RANGE_OUT()}

    def check(self, a):
        checks.not_null(a, "start", "end", "step", "out", scalars=["start", "end", "step"])
        for name in ("start", "end", "step"):
            checks.dtype_in(name, getattr(a, name), RANGE_IN())
        checks.dtype_in("out", a.out, RANGE_OUT())
        integral = a.out.dtype in codes("INT32 INT64")
        start, end, step = ((int(s.value) if integral else float(np.real(s.value))) for s in (a.start, a.end, a.step))
        if integral:
            text = "start:%d, end:%d, step:%d." % (start, end, step)
        else:
            text = "start:%f, end:%f, step:%f." % (start, end, step)
        if step == 0:
            raise status.param_invalid("step must be nonzero.")
        if (step > 0 and start > end) or (step < 0 and start < end):
            raise status.param_invalid("upper bound and lower bound inconsistent with step sign. " + text)
        if not integral and not (math.isfinite(start) and math.isfinite(end) and math.isfinite(step)):
            raise status.param_invalid("unsupported range: %s -> %s." % (start, end))
        size = (end - start) // step + 1 if integral else int(math.floor((end - start) / step)) + 1
        if a.out.ndim != 1 or a.out.shape[0] != size:
            raise status.param_invalid("The out tensor should be 1-dimensional with %d elements, but its shape is %s."
                                       % (size, checks.shape_text(a.out.shape)))
        a.values = (start, step)

    def compute(self, a, v, workspace):
        start, step = a.values
        out = v["out"]
        n = out.shape[0]
        if isinstance(start, int):
            P.store(out, start + np.arange(n, dtype=np.int64) * step)
        else:
            P.store(out, start + np.arange(n, dtype=np.float64) * step)

