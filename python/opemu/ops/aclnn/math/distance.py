"""Distances and divergence (ops-math math/pdist, cdist, kl_div_v2): aclnnPdist and aclnnPdistForward (the
p-norm distance of every pair of rows i < j, row-major), aclnnCdist (every row of x1 to every row of x2, batched)
and aclnnKlDiv (target·(log target - self), or exp(target)·(target - self) with logTarget; reductions none,
mean, sum, batchmean).

fp16/bf16 compute in fp32 and round once. p = 0 counts the differing coordinates, p = inf takes the largest."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes, per_product

PDIST = lambda: codes("FLOAT16 FLOAT")
CDIST = lambda: codes("FLOAT FLOAT16 BF16")
KLDIV = per_product("FLOAT FLOAT16", "BF16")


def p_norm(diff, p, axis=-1):
    a = np.abs(diff)
    if p == 0:
        return np.sum(a != 0, axis=axis).astype(diff.dtype)
    if np.isinf(p):
        return np.max(a, axis=axis) if a.shape[axis] else np.zeros(a.shape[:-1], diff.dtype)
    if p == 1:
        return np.sum(a, axis=axis)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axis))
    return np.power(np.sum(np.power(a, p), axis=axis), 1.0 / p)


class Pdist(AclnnOp):
    """nulls → dtypes (out of self's) → self 2-D, out 1-D of N·(N-1)/2 → p ≥ 0."""
    name = "aclnnPdist"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": PDIST(), "out": PDIST()}

    def p_value(self, a):
        return float(a.p)

    def check(self, a):
        checks.not_null(a, "self", *(["pScalar"] if self.name == "aclnnPdistForward" else []), "out",
                        scalars=["pScalar"])
        checks.dtype_in("self", a.self, PDIST())
        checks.dtype_in("out", a.out, PDIST())
        if self.name == "aclnnPdist":
            checks.same_dtype("self", a.self, "out", a.out)
        else:
            checks.dtype_match("self", a.self, a.out.dtype)
        checks.dim_is("self", a.self, 2)
        checks.dim_is("out", a.out, 1)
        n = a.self.shape[0]
        expected = (n * (n - 1) // 2,)
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        a.p_value = self.p_value(a)
        if a.p_value < 0 or np.isnan(a.p_value):
            raise status.param_invalid("%s only supports non-negative p values."
                                       % ("pdist" if self.name == "aclnnPdist" else "pScalar"))

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        x = P.widened(v["self"])
        i, j = np.triu_indices(x.shape[0], 1)
        with np.errstate(all="ignore"):
            P.store(out, p_norm(x[i] - x[j], a.p_value))


class PdistForward(Pdist):
    name = "aclnnPdistForward"

    def p_value(self, a):
        return float(np.real(a.pScalar.value))


class Cdist(AclnnOp):
    """nulls → dtypes (x1, x2 of out's) → ranks 2..8, one row length → p ≥ 0, compute_mode 2 when p = 2 →
    batch dims broadcast, out of shape (*batch, P, R)."""
    name = "aclnnCdist"
    inputs, outputs = ("x1", "x2"), ("out",)

    def dtype_table(self):
        return {"x1": CDIST(), "x2": CDIST(), "out": CDIST()}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "out")
        for name in ("x1", "x2", "out"):
            checks.dtype_in(name, getattr(a, name), CDIST())
        checks.same_dtype("x1", a.x1, "out", a.out)
        checks.same_dtype("x2", a.x2, "out", a.out)
        for name in ("x1", "x2", "out"):
            checks.max_dim(name, getattr(a, name))
        for name in ("x1", "x2", "out"):
            if getattr(a, name).ndim < 2:
                raise status.param_invalid("The %s tensor must have at least 2 dimensions." % name)
        if a.x1.shape[-1] != a.x2.shape[-1]:
            raise status.param_invalid("The dim num of X1 and X2 must be the same. X1 got: %d, X2 got: %d."
                                       % (a.x1.shape[-1], a.x2.shape[-1]))
        p = float(a.p)
        if p < 0 or np.isnan(p):
            raise status.param_invalid("cdist only supports non-negative p values.")
        if abs(p - 2.0) < 1e-6 and a.compute_mode != 2:
            raise status.param_invalid("compute_mode %d is not supported, only support 2 when pValue equals 2.0"
                                       % a.compute_mode)
        try:
            batch = tuple(np.broadcast_shapes(tuple(a.x1.shape[:-2]), tuple(a.x2.shape[:-2])))
        except ValueError:
            raise status.param_invalid("X1 shape: %s and X2 shape: %s cannot broadcast!"
                                       % (checks.shape_text(a.x1.shape), checks.shape_text(a.x2.shape))) from None
        expected = batch + (a.x1.shape[-2], a.x2.shape[-2])
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))
        a.p_value = p

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        x1, x2 = P.widened(v["x1"]), P.widened(v["x2"])
        with np.errstate(all="ignore"):
            P.store(out, p_norm(x1[..., :, None, :] - x2[..., None, :, :], a.p_value))


def _cdist_gradient(diff, dist, p):
    """d‖diff‖_p / d diff, with PyTorch's values where the norm or a coordinate is 0."""
    with np.errstate(all="ignore"):
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return np.sign(diff)
        if np.isinf(p):
            return np.sign(diff) * (np.abs(diff) == dist[..., None])
        if p == 2:
            return np.where(dist[..., None] == 0, 0, diff / dist[..., None])
        if p < 2:
            scaled = np.sign(diff) * np.power(np.abs(diff), p - 1) / np.power(dist[..., None], p - 1)
            return np.where((dist[..., None] == 0) | (diff == 0), 0, scaled)
        return np.where(dist[..., None] == 0, 0, diff * np.power(np.abs(diff), p - 2) / np.power(dist[..., None], p - 1))


class CdistBackward(AclnnOp):
    """The gradient of Cdist for x1: Σ_j grad[i, j]·∂‖x1_i - x2_j‖_p/∂x1_i (PyTorch's _cdist_backward).
    nulls → dtypes (all one) → ranks → shapes → p ≥ 0."""
    name = "aclnnCdistBackward"
    inputs, outputs = ("grad", "x1", "x2", "cdist"), ("out",)

    def dtype_table(self):
        return {name: CDIST() for name in self.inputs + self.outputs}

    def check(self, a):
        names = self.inputs + self.outputs
        checks.not_null(a, *names)
        for name in names:
            checks.dtype_in(name, getattr(a, name), CDIST())
        if len({getattr(a, name).dtype for name in names}) != 1:
            raise status.param_invalid("All tensors are expected to share the same datatype.")
        checks.max_dim("grad", a.grad)
        if a.grad.ndim < 2:
            raise status.param_invalid("The grad tensor must have at least 2 dimensions.")
        if len({getattr(a, name).ndim for name in names}) != 1:
            raise status.param_invalid("All tensors are expected to share the same dim num.")
        if a.x1.shape[-1] != a.x2.shape[-1]:
            raise status.param_invalid("The dimensions of input x1 and x2 must be equal.")
        try:
            batch = tuple(np.broadcast_shapes(tuple(a.x1.shape[:-2]), tuple(a.x2.shape[:-2])))
        except ValueError:
            raise status.param_invalid("Broadcast %s and %s failed." % (checks.shape_text(a.x2.shape),
                                                                      checks.shape_text(a.x1.shape))) from None
        expected = batch + (a.x1.shape[-2], a.x2.shape[-2])
        for i, (got, want) in enumerate(zip(a.cdist.shape, expected)):
            if got != want:
                raise status.param_invalid("cdist[%d] : %d should be equal to %d ." % (i, got, want))
        checks.same_shape("cdist", a.cdist, "grad", a.grad)
        checks.same_shape("out", a.out, "x1", a.x1)
        if a.p < 0 or np.isnan(a.p):
            raise status.param_invalid("aclnnCdistBackward only supports non-negative p values.")

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size == 0:
            return
        x1, x2, grad, dist = (P.widened(v[name]) for name in ("x1", "x2", "grad", "cdist"))
        diff = x1[..., :, None, :] - x2[..., None, :, :]
        partial = _cdist_gradient(diff, dist, float(a.p)) * grad[..., None]
        P.store(out, np.sum(partial, axis=-2).reshape(out.shape))


class KlDiv(AclnnOp):
    """nulls → dtypes → promotion castable to out → ranks → reduction in 0..3 → out's shape (the broadcast
    shape for none, 0-d otherwise)."""
    name = "aclnnKlDiv"
    inputs, outputs = ("self", "target"), ("out",)

    def dtype_table(self):
        return {"self": KLDIV(), "target": KLDIV(), "out": KLDIV()}

    def check(self, a):
        checks.not_null(a, "self", "target", "out")
        for name in ("self", "target", "out"):
            checks.dtype_in(name, getattr(a, name), KLDIV())
        a.promoted = P.promote(a.self.dtype, a.target.dtype)
        if a.promoted is None:
            raise status.param_invalid("Self dtype %s and target dtype %s can not promote dtype."
                                       % (dtypes.serial_name(a.self.dtype), dtypes.serial_name(a.target.dtype)))
        checks.result_castable(a.promoted, a.out.dtype)
        checks.max_dim("self", a.self)
        checks.max_dim("target", a.target)
        if a.reduction not in (0, 1, 2, 3):
            raise status.param_invalid("Invalid reduction value: %d. Allowed values are 0 (None), 1 (Mean), 2 (Sum), "
                                       "3 (Batchmean)." % a.reduction)
        shape = P.broadcast("self", a.self.shape, "target", a.target.shape)
        expected = shape if a.reduction == 0 else ()
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        out = v["out"]
        x, t = P.widened(v["self"]), P.widened(v["target"])
        if x.size == 0 or t.size == 0:
            if a.reduction:
                empty_batch = a.reduction == 3 and (x.ndim == 0 or x.shape[0] == 0)
                out[...] = np.nan if a.reduction == 1 or empty_batch else 0
            return
        with np.errstate(all="ignore"):
            if a.logTarget:
                loss = np.exp(t) * (t - x)
            else:
                loss = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)
            if a.reduction == 1:
                loss = np.mean(loss)
            elif a.reduction == 2:
                loss = np.sum(loss)
            elif a.reduction == 3:
                loss = np.sum(loss) / (x.shape[0] if x.ndim else 1)
        P.store(out, loss)
