"""The pad family of ops-math conversion/ (pad_v3, mirror_pad, circular_pad and their grads): aclnnConstantPadNd
and the reflection / replication / circular pads of the last 1, 2 or 3 axes with their backward forms.

Every mode is an index map per padded axis: output position j reads input position i(j - before), with
i(k) = -k / 2(n-1)-k outside [0, n) for reflection, k clipped into [0, n) for replication, k mod n for circular.
The forward gathers along that map; the backward scatters gradOutput back along it, summing (fp16/bf16 in fp32,
rounded once, as the vector unit accumulates). The padding array starts at the last axis: (left, right, top,
bottom, front, back)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

PADDABLE = P.per_line("FLOAT INT32 INT64 FLOAT16 INT16 DOUBLE INT8 UINT8 BOOL",
                      a2="FLOAT INT32 INT64 FLOAT16 INT16 DOUBLE INT8 UINT8 BOOL BF16 COMPLEX64 COMPLEX128")
CONSTANT_PADDABLE = P.per_product("FLOAT INT32 FLOAT16 INT8 DOUBLE INT16 INT64 UINT64 UINT32 UINT16 UINT8 BOOL "
                                  "COMPLEX64 COMPLEX128", "BF16")
GRAD_DTYPES = P.per_product("FLOAT FLOAT16 DOUBLE COMPLEX64 COMPLEX128", "BF16")


def source_index(mode, n, before, after):
    """For each output position of an axis of length n padded by (before, after): the input position it reads."""
    k = np.arange(-before, n + after)
    if mode == "reflect":
        k = np.abs(k)
        return np.where(k >= n, 2 * (n - 1) - k, k)
    if mode == "replicate":
        return np.clip(k, 0, n - 1)
    return np.mod(k, n)


def axis_pads(padding, ndim, k):
    """[(axis, before, after)] of the last k axes from a padding array that starts at the last axis."""
    return [(ndim - 1 - i, padding[2 * i], padding[2 * i + 1]) for i in range(k)]


class ModePad(AclnnOp):
    """aclnn<Mode>Pad<k>d: self of k+1 or k+2 dims, out its padded shape."""
    inputs = ("self",)
    outputs = ("out",)
    mode, k = None, None

    def dtype_table(self):
        return {"self": PADDABLE(), "out": PADDABLE()}

    def check_padding(self, a, shape):
        n = len(shape)
        if not self.k + 1 <= n <= self.k + 2:
            raise status.param_invalid("self dim should be %d or %d, but got %d." % (self.k + 1, self.k + 2, n))
        if len(a.padding) != 2 * self.k:
            raise status.param_invalid("padding length should be %d, but got %d." % (2 * self.k, len(a.padding)))
        a.pads = axis_pads(a.padding, n, self.k)
        for axis, before, after in a.pads:
            if self.mode == "reflect" and not (before < shape[axis] and after < shape[axis]):
                raise status.param_invalid("padding size should be less than the corresponding self dimention.")
            if self.mode == "circular" and not (before <= shape[axis] and after <= shape[axis]):
                raise status.param_invalid("padding size should be less than or equal to the corresponding self "
                                           "dimention.")
            if min(before, after) < 0 and self.mode != "replicate" or shape[axis] + before + after < 0:
                raise status.param_invalid("padding value should not be negative.")
            if shape[axis] == 0 and before + after > 0:
                raise status.param_invalid("self dim %d is empty and cannot be padded." % axis)
        padded = list(shape)
        for axis, before, after in a.pads:
            padded[axis] += before + after
        return tuple(padded)

    def check(self, a):
        checks.not_null(a, "self", "padding", "out")
        checks.dtype_in("self", a.self, PADDABLE())
        checks.same_dtype("self", a.self, "out", a.out)
        if a.self.ndim != a.out.ndim:
            raise status.param_invalid("self, out dim should be same.")
        if tuple(a.out.shape) != self.check_padding(a, tuple(a.self.shape)):
            raise status.param_invalid("wrong out shape.")

    def compute(self, a, v, workspace):
        x = v["self"]
        for axis, before, after in a.pads:
            x = np.take(x, source_index(self.mode, x.shape[axis], before, after), axis=axis)
        if v["out"].size:
            np.copyto(v["out"], x)


class ModePadBackward(ModePad):
    """aclnn<Mode>Pad<k>dBackward: gradInput (self's shape) = gradOutput summed back along the index map."""
    inputs = ("gradOutput", "self")
    outputs = ("gradInput",)

    def dtype_table(self):
        return {"gradOutput": GRAD_DTYPES(), "self": GRAD_DTYPES(), "gradInput": GRAD_DTYPES()}

    def check(self, a):
        checks.not_null(a, "gradOutput", "self", "padding", "gradInput")
        checks.dtype_in("gradOutput", a.gradOutput, GRAD_DTYPES())
        checks.same_dtype("gradOutput", a.gradOutput, "self", a.self)
        checks.same_dtype("gradOutput", a.gradOutput, "gradInput", a.gradInput)
        if not a.self.ndim == a.gradOutput.ndim == a.gradInput.ndim:
            raise status.param_invalid("gradOutput, self and gradInput dim should be same.")
        if tuple(a.gradOutput.shape) != self.check_padding(a, tuple(a.self.shape)):
            raise status.param_invalid("wrong gradOutput shape.")
        checks.same_shape("self", a.self, "gradInput", a.gradInput)

    def compute(self, a, v, workspace):
        grad = P.widened(v["gradOutput"])
        for axis, before, after in reversed(a.pads):
            n = grad.shape[axis] - before - after
            moved = np.moveaxis(grad, axis, 0)
            folded = np.zeros((n,) + moved.shape[1:], moved.dtype)
            np.add.at(folded, source_index(self.mode, n, before, after), moved)
            grad = np.moveaxis(folded, 0, axis)
        if v["gradInput"].size:
            P.store(v["gradInput"], grad)


for _mode, _name, _ks in (("reflect", "Reflection", (1, 2, 3)), ("replicate", "Replication", (1, 2, 3)),
                          ("circular", "Circular", (2, 3))):
    for _k in _ks:
        for _base, _suffix in ((ModePad, ""), (ModePadBackward, "Backward")):
            type("%sPad%dd%s" % (_name, _k, _suffix), (_base,),
                 {"name": "aclnn%sPad%dd%s" % (_name, _k, _suffix), "mode": _mode, "k": _k, "__module__": __name__})


class ConstantPadNd(AclnnOp):
    """torch.nn.functional.pad(mode="constant"): pairs from the last axis; a negative pad crops."""
    name = "aclnnConstantPadNd"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": CONSTANT_PADDABLE(), "out": CONSTANT_PADDABLE()}

    def check(self, a):
        checks.not_null(a, "self", "pad", "value", "out", scalars=("value",))
        checks.same_dtype("self", a.self, "out", a.out)
        checks.dtype_in("self", a.self, CONSTANT_PADDABLE())
        checks.max_dim("self", a.self)
        checks.max_dim("out", a.out)
        n = a.self.ndim
        if n != a.out.ndim:
            raise status.param_invalid("Dim of self[%d] and out[%d] can't be different." % (n, a.out.ndim))
        if len(a.pad) % 2:
            raise status.param_invalid("Pad len must be divisible by 2")
        if len(a.pad) // 2 > n:
            raise status.param_invalid("Expected aclnnConstantPadNd pad len [%d] to not be greater than twice of "
                                       "[%d] but check failed." % (len(a.pad), n))
        a.pads = axis_pads(a.pad, n, len(a.pad) // 2)
        positive, zero = False, False
        for axis, before, after in a.pads:
            size = a.self.shape[axis]
            if size + min(before, after, before + after) < 0:
                raise status.param_invalid("The input size %d plus padding %d and %d resulted in a negative output "
                                           "size, which is invalid. Check dimension %d of your input."
                                           % (size, before, after, axis))
            positive |= before > 0 or after > 0
            zero |= size + before + after == 0
        for axis in range(n):
            before, after = next(((b, e) for x, b, e in a.pads if x == axis), (0, 0))
            expected = a.self.shape[axis] + before + after
            if a.out.shape[axis] != expected:
                raise status.param_invalid("output shape at dim %d check failed,The output shape you provided is %d "
                                           "at dim %d, and the expected one is %d at dim %d based on the infershape."
                                           % (axis, a.out.shape[axis], axis, expected, axis))
        if zero and positive:
            raise status.param_invalid("The output size %s with zero element is invalid, please check your input."
                                       % checks.shape_text(a.out.shape))

    def compute(self, a, v, workspace):
        out = v["out"]
        if not out.size:
            return
        x = v["self"]
        crop, place = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        for axis, before, after in a.pads:
            crop[axis] = slice(max(-before, 0), x.shape[axis] - max(-after, 0))
            place[axis] = slice(max(before, 0), out.shape[axis] - max(after, 0))
        out[...] = a.value.as_type(out.dtype)
        out[tuple(place)] = x[tuple(crop)]
