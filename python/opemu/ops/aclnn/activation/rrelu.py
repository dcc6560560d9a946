"""aclnnRReluWithNoise and aclnnInplaceRReluWithNoise (ops-nn activation/leaky_relu): leaky ReLU whose
negative slope is drawn per element from U(lower, upper) in training, (lower + upper) / 2 otherwise.

In training the op_api builds noise = 1 where self ≥ 0, else the uniform draw (its Less(self, 0): the doc's
≤ 0 differs only at 0, where the product is 0 either way), writes it over noise's first numel(self)
elements and returns self · noise. Draws are deterministic for (seed, offset): a Philox stream keyed by
the seed, advanced by the offset; its bits are not the hardware's, its distribution is.
Phase 1 as its op_api (hicann/ops-nn@e5c3fa93): nulls (self, noise, lower, upper, out) → dtypes (self, noise,
out in the list, lower/upper floating, self's and noise's equal to out's) → ranks ≤ 8 → formats → out's shape
equal to self's → in training, noise holds at least self's elements."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

RRELU = P.per_product("FLOAT FLOAT16", "BF16")
SCALARS = P.codes("FLOAT FLOAT16 BF16 DOUBLE")


def uniform(shape, seed, offset, low, high):
    """U(low, high) samples in fp32 from the Philox stream of (seed, offset)."""
    generator = np.random.Generator(np.random.Philox(key=np.uint64(seed & (2 ** 64 - 1)), counter=int(offset) % 2 ** 256))
    return (generator.random(shape, dtype=np.float32) * np.float32(high - low) + np.float32(low)).astype(np.float32)


class RReluWithNoise(AclnnOp):
    name = "aclnnRReluWithNoise"
    inputs = ("self", "noise")
    outputs = ("out", "noise")
    target = "out"

    def dtype_table(self):
        return {"self": RRELU(), "noise": RRELU(), self.target: RRELU()}

    def check(self, a):
        names = ("self", "noise", "lower", "upper") + (() if self.target == "self" else (self.target,))
        checks.not_null(a, *names)
        target = getattr(a, self.target)
        for name in ("self", "noise"):
            checks.dtype_in(name, getattr(a, name), RRELU())
        for name in ("lower", "upper"):
            checks.dtype_in(name, getattr(a, name), SCALARS)
        checks.dtype_in(self.target, target, RRELU())
        checks.dtype_match("self", a.self, target.dtype)
        checks.dtype_match("noise", a.noise, target.dtype)
        checks.max_dim("self", a.self)
        checks.max_dim("noise", a.noise)
        checks.same_shape("self", a.self, self.target, target)
        if a.training and a.self.numel() > a.noise.numel():
            raise status.param_invalid("tesnor size of self larger than noise, self: %d, noise: %d."
                                       % (a.self.numel(), a.noise.numel()))

    def compute(self, a, v, workspace):
        x = v["self"]
        if x.size == 0:
            return
        ct = P.compute_type(a.self.dtype)
        xc = P.as_compute(x, ct)
        low, high = a.lower.to_float(), a.upper.to_float()
        if not a.training:
            P.store(v[self.target], np.where(xc >= 0, xc, xc * ct.type((low + high) / 2)))
            return
        draws = uniform(x.shape, a.seed, a.offset, low, high).astype(ct)
        noise = np.where(xc < 0, draws, ct.type(1))
        rounded = np.empty(x.size, v["noise"].dtype)   # over noise's first elements, row-major
        P.store(rounded, noise.reshape(-1))
        v["noise"][np.unravel_index(np.arange(x.size), v["noise"].shape)] = rounded
        P.store(v[self.target], xc * noise)


class InplaceRReluWithNoise(RReluWithNoise):
    name = "aclnnInplaceRReluWithNoise"
    inputs = ("self", "noise")
    outputs = ("self", "noise")
    target = "self"
