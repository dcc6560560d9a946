"""aclnnModulate and aclnnModulateBackward (ops-nn vfusion/modulate, modulate_grad): DiT's adaptive scale and
shift of a [B, L, D] input by per-sample [B, D] (or [B, 1, D]) vectors.

    Modulate          out = self · (1 + scale) + shift      (either optional, not both absent)
    ModulateBackward  grad_input = grad_output · scale  (the kernel multiplies by scale as given, not 1 + scale:
                      the doc page's formula too; grad_output when scale is absent)
                      grad_scale = Σ_l grad_output · input;  grad_shift = Σ_l grad_output

Phase 1 as the op_api sources read (hicann/ops-nn@e5c3fa93): nulls → dtypes (FLOAT, FLOAT16, BF16; the
vectors' and out's equal to self's) → scale or shift present → self 3-D → an empty self needs empty
vectors → each vector 2-D or 3-D with self's first and last dimensions (and 1 in the middle) → out's shape.
The backward computes in fp32 (its op_api casts every input to FLOAT) and casts into each gradient."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

SUPPORTED = P.codes("FLOAT FLOAT16 BF16")
F32 = np.dtype(np.float32)


def _per_sample(view):
    """A [B, D] or [B, 1, D] vector as [B, 1, D]."""
    return view.reshape(view.shape[0], 1, view.shape[-1])


def _check_vector(name, tensor, x):
    if tensor.ndim not in (2, 3):
        raise status.param_invalid("The dimension of %s and shiftOptional must be 2 or 3, but got %d."
                                   % (name, tensor.ndim))
    if tensor.shape[0] != x.shape[0] or tensor.shape[-1] != x.shape[-1]:
        raise status.param_invalid("The first and last dimension of self and %s must be the same." % name)
    if tensor.ndim == 3 and tensor.shape[1] != 1:
        raise status.param_invalid("when the dimension of %s is 3, the second dimension must be 1." % name)


class Modulate(AclnnOp):
    name = "aclnnModulate"
    inputs = ("self", "scaleOptional", "shiftOptional")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": SUPPORTED, "scaleOptional": SUPPORTED, "shiftOptional": SUPPORTED, "out": SUPPORTED}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, SUPPORTED)
        checks.dtype_in("out", a.out, SUPPORTED)
        for name in ("scaleOptional", "shiftOptional"):
            tensor = getattr(a, name)
            if tensor is not None:
                checks.dtype_in(name, tensor, SUPPORTED)
                if tensor.dtype != a.self.dtype:
                    raise status.param_invalid("The dtype of self [%s], %s [%s] need to be the same."
                                               % (dtypes.serial_name(a.self.dtype), name,
                                                  dtypes.serial_name(tensor.dtype)))
        if a.out.dtype != a.self.dtype:
            raise status.param_invalid("The dtype of self [%s], out [%s] need to be the same."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.out.dtype)))
        if a.scaleOptional is None and a.shiftOptional is None:
            raise status.param_invalid("scaleOptional and shiftOptional can not be nullptr")
        if a.self.ndim != 3:
            raise status.param_invalid("The dimension of self must be 3, but got %d." % a.self.ndim)
        vectors = [n for n in ("scaleOptional", "shiftOptional") if getattr(a, n) is not None]
        if a.self.is_empty():
            if any(not getattr(a, n).is_empty() for n in vectors):
                raise status.param_invalid("when self is empty, scaleOptional and shiftOptional must be empty")
        else:
            for name in vectors:
                _check_vector(name, getattr(a, name), a.self)
        checks.shape_is("out", a.out, tuple(a.self.shape), checks.shape_text(a.self.shape))

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            return
        result = P.as_compute(x, F32)
        if a.scaleOptional is not None:
            result = result * (1 + _per_sample(P.as_compute(v["scaleOptional"], F32)))
        if a.shiftOptional is not None:
            result = result + _per_sample(P.as_compute(v["shiftOptional"], F32))
        P.store(v["out"], result)


class ModulateBackward(AclnnOp):
    name = "aclnnModulateBackward"
    inputs = ("grad_output", "input", "scale", "shift")
    outputs = ("grad_input", "grad_scale", "grad_shift")

    def dtype_table(self):
        return {name: SUPPORTED for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "grad_output", "input", "grad_input")
        for name in self.inputs + self.outputs:
            if getattr(a, name) is not None:
                checks.dtype_in(name, getattr(a, name), SUPPORTED)
        for name in self.inputs:
            if getattr(a, name) is not None:
                checks.max_dim(name, getattr(a, name))
        if a.grad_output.ndim != 3 or a.input.ndim != 3:
            raise status.param_invalid("The dimension of self must be 3")
        checks.same_shape("grad_output", a.grad_output, "input", a.input)
        checks.same_shape("grad_output", a.grad_output, "grad_input", a.grad_input)
        if a.grad_output.is_empty() or a.input.is_empty():
            if any(getattr(a, n) is not None and not getattr(a, n).is_empty() for n in ("scale", "shift")):
                raise status.param_invalid("when grad_output or input is empty, scale and shift must be empty")
            return
        batch, _, width = a.grad_output.shape
        for name, gradient in (("scale", "grad_scale"), ("shift", "grad_shift")):
            tensor = getattr(a, name)
            if tensor is None:
                continue
            if tensor.ndim != 2:
                raise status.param_invalid("%s dim is not equal 2" % name)
            if tuple(tensor.shape) != (batch, width):
                raise status.param_invalid("gradoutput_Shape dim0 or dim 2 not match %s dim 0 or dim 1" % name)
            checks.not_null(a, gradient)
            checks.same_shape(name, tensor, gradient, getattr(a, gradient))

    def compute(self, a, v, workspace):
        grad = v["grad_output"]
        if grad.size == 0:
            return
        g = P.as_compute(grad, F32)
        scale = None if a.scale is None else _per_sample(P.as_compute(v["scale"], F32))
        P.store(v["grad_input"], g if scale is None else g * scale)
        if a.scale is not None:
            P.store(v["grad_scale"], (g * P.as_compute(v["input"], F32)).sum(axis=1, dtype=F32))
        if a.shift is not None:
            P.store(v["grad_shift"], g.sum(axis=1, dtype=F32))
