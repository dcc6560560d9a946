"""Gated linear units (ops-nn activation/glu, glu_grad, ge_glu_v2, ge_glu_grad_v2, swi_glu, swi_glu_grad,
gelu_mul, fatrelu_mul, situ_glu, situ_glu_grad, clipped_swiglu, clipped_swiglu_grad): the input is cut in
two halves along `dim` (the last one where the header has no dim; odd and even elements when
`interleaved`), one half is the gate, the other the value:

    y = act(gate) · up(value)          (act: sigmoid, gelu, silu, threshold, SiTU …; up: identity, clamp …)
    d gate = dy · up(value) · act'(gate),   d value = dy · act(gate) · up'(value)

One class reads each header's parameters (`Gated`): the operators differ in their activation and in where
the gate sits (Glu, GeGlu, SwiGlu: the first half is the value for Glu/GeGlu, the gate for SwiGlu;
GeGluV3, SituGlu: `activateLeft` says). Phase 1: nulls → dtypes (out's equal to the input's) → dim in
range → the cut dimension even → out's shape (the input's with that dimension halved; a backward's
gradient has the input's shape), with glu's and geglu's messages. Compute is fp32 for fp16/bf16, rounded
once into each output."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.activation.backward import gelu_erf_grad, gelu_tanh_grad
from opemu.ops.aclnn.activation.elementwise import gelu_erf, gelu_tanh

GLU_DTYPES = P.per_product("FLOAT FLOAT16 DOUBLE", "BF16")
HALF_FLOAT = P.per_product("FLOAT FLOAT16", "BF16")


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _silu(x):
    return x * _sigmoid(x)


def _silu_grad(x):
    s = _sigmoid(x)
    return s * (1 + x * (1 - s))


def _gelu(approximate):
    return gelu_tanh if approximate in (1, "tanh") else gelu_erf


def _gelu_grad(approximate):
    grad = gelu_tanh_grad if approximate in (1, "tanh") else gelu_erf_grad
    return lambda x: grad(np.ones_like(x), x)


class Gated(AclnnOp):
    x = "self"              # the input cut in two
    target = "out"          # the output (a backward's: the input's gradient)
    grad = None             # a backward's incoming gradient
    dim = "dim"             # the attribute naming the cut dimension (None: the last)
    gate_first = False      # the first half is the gate (else the value), unless `activateLeft` says
    dtypes = staticmethod(GLU_DTYPES)

    def dtype_table(self):
        return {name: self.dtypes() for name in (self.grad, self.x, self.target) if name}

    @property
    def inputs(self):
        return tuple(n for n in (self.grad, self.x) if n) + self.extra_inputs

    extra_inputs = ()

    @property
    def outputs(self):
        return (self.target,) + self.extra_outputs

    extra_outputs = ()

    # ---- the activation pair; a subclass gives act (and act_grad for the backward) and may transform up
    def act(self, a, gate):
        raise NotImplementedError

    def act_grad(self, a, gate):
        raise NotImplementedError

    def up(self, a, value):
        return value

    def up_grad(self, a, value):
        return np.ones_like(value)

    # ---- phase 1
    def check(self, a):
        names = [n for n in (self.grad, self.x, self.target) + self.extra_outputs if n]
        checks.not_null(a, *names)
        x = getattr(a, self.x)
        for name in names:
            checks.dtype_in(name, getattr(a, name), self.dtypes())
        for name in names[1:]:
            checks.dtype_match(name, getattr(a, name), x.dtype)
        for name in names:
            checks.max_dim(name, getattr(a, name))
        if x.ndim < 1:
            raise status.param_invalid("The dim of self must be greater than or equal to 1, but got 0.")
        dim = self.cut_dim(a)
        if not -x.ndim <= dim < x.ndim:
            raise status.param_invalid("Dimension out of range (expected to be in range of [%d, %d], but got %d)."
                                       % (-x.ndim, x.ndim - 1, dim))
        a.axis = dim % x.ndim
        if x.shape[a.axis] % 2:
            raise status.param_invalid("Split dimension must be even, but dimension %d is size %d."
                                       % (dim, x.shape[a.axis]))
        half = tuple(n // 2 if k == a.axis else n for k, n in enumerate(x.shape))
        if self.grad is not None:
            checks.same_shape(self.x, x, self.target, getattr(a, self.target))
            expected = {self.grad: half}
        else:
            expected = {name: half for name in (self.target,) + self.extra_outputs}
        for name, shape in expected.items():
            if tuple(getattr(a, name).shape) != shape:
                raise status.param_invalid("The shape of %s must be %s, but get %s."
                                           % (name, checks.shape_text(shape), checks.shape_text(getattr(a, name).shape)))
        self.check_attributes(a)

    def cut_dim(self, a):
        return -1 if self.dim is None else getattr(a, self.dim)

    def check_attributes(self, a):
        """Attribute checks after the shapes."""

    def gate_is_first(self, a):
        left = getattr(a, "activateLeft", None)
        return self.gate_first if left is None else bool(left)

    # ---- compute
    def halves(self, a, x):
        if getattr(a, "interleaved", False):
            index = [slice(None)] * x.ndim
            index[a.axis] = slice(0, None, 2)
            first = x[tuple(index)]
            index[a.axis] = slice(1, None, 2)
            return first, x[tuple(index)], tuple(index)
        first, second = np.split(x, 2, axis=a.axis)
        return first, second, None

    def compute(self, a, v, workspace):
        x = v[self.x]
        if x.size == 0:
            return
        ct = P.compute_type(getattr(a, self.x).dtype)
        first, second, _ = self.halves(a, P.as_compute(x, ct))
        gate, value = (first, second) if self.gate_is_first(a) else (second, first)
        with np.errstate(all="ignore"):
            if self.grad is None:
                activated = self.act(a, gate)
                P.store(v[self.target], activated * self.up(a, value))
                self.store_extra(a, v, activated)
                return
            dy = P.as_compute(v[self.grad], ct)
            d_gate = dy * self.up(a, value) * self.act_grad(a, gate)
            d_value = dy * self.act(a, gate) * self.up_grad(a, value)
        pieces = (d_gate, d_value) if self.gate_is_first(a) else (d_value, d_gate)
        whole = np.empty(x.shape, ct)
        if getattr(a, "interleaved", False):
            index = [slice(None)] * x.ndim
            index[a.axis] = slice(0, None, 2)
            whole[tuple(index)] = pieces[0]
            index[a.axis] = slice(1, None, 2)
            whole[tuple(index)] = pieces[1]
        else:
            np.concatenate(pieces, axis=a.axis, out=whole)
        P.store(v[self.target], whole)

    def store_extra(self, a, v, activated):
        """Forward outputs besides out (GeGlu's outGelu)."""


class Glu(Gated):
    name = "aclnnGlu"

    def act(self, a, gate):
        return _sigmoid(gate)

    def act_grad(self, a, gate):
        s = _sigmoid(gate)
        return s * (1 - s)


class GluBackward(Glu):
    name = "aclnnGluBackward"
    grad = "gradOut"


class SwiGlu(Gated):
    name = "aclnnSwiGlu"
    x = "x"
    gate_first = True
    dtypes = staticmethod(HALF_FLOAT)

    def act(self, a, gate):
        return _silu(gate)

    def act_grad(self, a, gate):
        return _silu_grad(gate)


class SwiGluGrad(SwiGlu):
    name = "aclnnSwiGluGrad"
    grad = "yGrad"


class GeGlu(Gated):
    """out = A · gelu(B) and outGelu = gelu(B) (V3: the gate is the left half when activateLeft)."""
    name = "aclnnGeGlu"
    extra_outputs = ("outGelu",)
    dtypes = staticmethod(HALF_FLOAT)

    def check_attributes(self, a):
        if a.approximate not in (0, 1):
            raise status.param_invalid("Approximate should be 0 or 1, but current is %d" % a.approximate)

    def act(self, a, gate):
        return _gelu(a.approximate)(gate)

    def act_grad(self, a, gate):
        return _gelu_grad(a.approximate)(gate)

    def store_extra(self, a, v, activated):
        P.store(v["outGelu"], activated)


class GeGluV3(GeGlu):
    name = "aclnnGeGluV3"


class GeGluBackward(GeGlu):
    """gradInput from gradOutput, self and the forward's gelu (recomputed here from self: the same values)."""
    name = "aclnnGeGluBackward"
    grad = "gradOutput"
    target = "gradInput"
    extra_outputs = ()
    extra_inputs = ("gelu",)

    def check(self, a):
        checks.not_null(a, "gelu")
        super().check(a)


class GeGluV3Backward(GeGluBackward):
    name = "aclnnGeGluV3Backward"


class GeluMul(Gated):
    """gelu(first half of the last dim) · second half; approximate "none" (default) or "tanh"."""
    name = "aclnnGeluMul"
    x = "input"
    dim = None
    gate_first = True
    dtypes = staticmethod(HALF_FLOAT)

    def check_attributes(self, a):
        if a.approximateOptional not in (None, "none", "tanh"):
            raise status.param_invalid("approximate only supports none or tanh, but got %s." % a.approximateOptional)

    def act(self, a, gate):
        return _gelu(a.approximateOptional or "none")(gate)


class FatreluMul(Gated):
    """threshold(first half of the last dim) · second half; threshold is a one-element tensor."""
    name = "aclnnFatreluMul"
    x = "input"
    dim = None
    gate_first = True
    dtypes = staticmethod(HALF_FLOAT)
    extra_inputs = ("threshold",)

    def check(self, a):
        checks.not_null(a, "threshold")
        super().check(a)

    def act(self, a, gate):
        limit = np.asarray(a.threshold_value, gate.dtype)
        return np.where(gate >= limit, gate, gate.dtype.type(0))

    def compute(self, a, v, workspace):
        a.threshold_value = v["threshold"].reshape(-1)[0].astype(np.float32)
        super().compute(a, v, workspace)


class SituGlu(Gated):
    """situ(gate) · up with situ(g) = beta·tanh(g/beta)·sigmoid(g) and up = linearBeta·tanh(v/linearBeta) when
    linearBeta > 0."""
    name = "aclnnSituGlu"
    x = "x"
    dtypes = staticmethod(HALF_FLOAT)

    def act(self, a, gate):
        return a.beta * np.tanh(gate / a.beta) * _sigmoid(gate)

    def act_grad(self, a, gate):
        t, s = np.tanh(gate / a.beta), _sigmoid(gate)
        return (1 - t * t) * s + a.beta * t * s * (1 - s)

    def up(self, a, value):
        return a.linearBeta * np.tanh(value / a.linearBeta) if a.linearBeta > 0 else value

    def up_grad(self, a, value):
        if a.linearBeta > 0:
            t = np.tanh(value / a.linearBeta)
            return 1 - t * t
        return np.ones_like(value)


class SituGluGrad(SituGlu):
    name = "aclnnSituGluGrad"
    grad = "gradY"


class ClippedSwiglu(Gated):
    """GPT-OSS's clamped SwiGLU (activation/clipped_swiglu): A, B the halves of `dim` (odd/even elements when
    interleaved); rows past Σ groupIndex (the dims before `dim` merged) are written as 0.
    clampMode 0 (V1's only): y = min(A, limit)·σ(alpha·min(A, limit)) · (clamp(B, ±limit) + bias);
    clampMode 1: y = min(A·σ(A), limit) · clamp(B, ±limit)."""
    name = "aclnnClippedSwiglu"
    x = "x"
    gate_first = True
    dtypes = staticmethod(HALF_FLOAT)
    extra_inputs = ("groupIndexOptional",)

    def clamp_mode(self, a):
        return getattr(a, "clampMode", 0)

    def check_attributes(self, a):
        if self.clamp_mode(a) not in (0, 1):
            raise status.param_invalid("clampMode should be 0 or 1, but got %d." % self.clamp_mode(a))

    def act(self, a, gate):
        if self.clamp_mode(a) == 1:
            return np.minimum(_silu(gate), np.float32(a.limit))
        clipped = np.minimum(gate, np.float32(a.limit))
        return clipped * _sigmoid(np.float32(a.alpha) * clipped)

    def act_grad(self, a, gate):
        limit, alpha = np.float32(a.limit), np.float32(a.alpha)
        s = _sigmoid(alpha * gate)
        return np.where(gate > limit, np.float32(0), s + alpha * gate * s * (1 - s))

    def up(self, a, value):
        clipped = np.clip(value, -np.float32(a.limit), np.float32(a.limit))
        return clipped if self.clamp_mode(a) == 1 else clipped + np.float32(a.bias)

    def up_grad(self, a, value):
        limit = np.float32(a.limit)
        return ((value > -limit) & (value < limit)).astype(np.float32)

    def compute(self, a, v, workspace):
        super().compute(a, v, workspace)
        if a.groupIndexOptional is None:
            return
        target = v[self.target]
        rows = int(np.prod(target.shape[:a.axis], dtype=np.int64))
        used = min(int(v["groupIndexOptional"].astype(np.int64).sum()), rows)
        if used < rows and a.axis:
            target[np.unravel_index(np.arange(used, rows), target.shape[:a.axis])] = 0


class ClippedSwigluV2(ClippedSwiglu):
    name = "aclnnClippedSwigluV2"


class ClippedSwigluGrad(ClippedSwiglu):
    name = "aclnnClippedSwigluGrad"
    grad = "gradY"
    target = "gradXOut"


class SwigluGroup(Gated):
    """activation/swiglu_group: y = silu(A)·B over the last dim, A clamped from above and B to ±clampLimit
    when clampLimit > 0, times a per-token weight when given; tokens past min(Σ groupIndex, tokens) are 0."""
    name = "aclnnSwigluGroup"
    x = "x"
    dim = None
    gate_first = True
    dtypes = staticmethod(HALF_FLOAT)
    extra_inputs = ("weightOptional", "groupIndexOptional")

    def act(self, a, gate):
        if a.clampLimit > 0:
            gate = np.minimum(gate, np.float32(a.clampLimit))
        return _silu(gate)

    def up(self, a, value):
        if a.clampLimit > 0:
            return np.clip(value, -np.float32(a.clampLimit), np.float32(a.clampLimit))
        return value

    def compute(self, a, v, workspace):
        x = v[self.x]
        if x.size == 0:
            return
        first, second = np.split(P.as_compute(x, np.dtype(np.float32)), 2, axis=-1)
        with np.errstate(all="ignore"):
            y = self.act(a, first) * self.up(a, second)
            if a.weightOptional is not None:
                y = y * P.as_compute(v["weightOptional"], np.dtype(np.float32)).reshape(y.shape[:-1] + (1,))
        tokens = y.reshape(-1, y.shape[-1])
        if a.groupIndexOptional is not None:
            tokens[min(int(v["groupIndexOptional"].astype(np.int64).sum()), tokens.shape[0]):] = 0
        P.store(v[self.target], tokens.reshape(y.shape))
