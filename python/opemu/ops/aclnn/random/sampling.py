"""Sampling of ops-math random/: aclnnRandperm (stateless_randperm: a uniformly random permutation of 0..n-1,
a shuffle keyed by (seed, offset)) and aclnnMultinomial(Tensor) (stateless_sample_multinomial: numsamples
category indices per row of self's weights, with or without replacement, as torch.multinomial; weights need not
sum to 1). Both draw from random/generator's stream."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.random.generator import check_seed_tensors, generator, seed_and_offset

PERMUTABLE = P.per_product("FLOAT FLOAT16 INT32 DOUBLE INT64 INT8 UINT8 INT16", "BF16")
WEIGHTS = P.per_product("FLOAT FLOAT16 DOUBLE", "BF16")
INDICES = P.codes("INT64")


class Randperm(AclnnOp):
    name = "aclnnRandperm"
    outputs = ("out",)

    def dtype_table(self):
        return {"out": PERMUTABLE()}

    def check(self, a):
        checks.not_null(a, "out")
        if a.n < 0:
            raise status.param_invalid("n must be non-negative, got %d" % a.n)
        checks.shape_is("out", a.out, (a.n,), "expected")
        checks.dtype_in("out", a.out, PERMUTABLE())

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size:
            P.store(out, generator(a.seed, a.offset).permutation(a.n))


class Multinomial(AclnnOp):
    name = "aclnnMultinomial"
    inputs = ("self",)
    outputs = ("out",)

    def dtype_table(self):
        return {"self": WEIGHTS(), "out": INDICES}

    def check(self, a):
        checks.not_null(a, "self", "out")
        checks.dtype_in("self", a.self, WEIGHTS())
        checks.dtype_in("out", a.out, INDICES)
        self.check_seeds(a)
        n = a.self.ndim
        if n not in (1, 2):
            raise status.param_invalid("Dim of self only can be 1 or 2.")
        if a.out.ndim != n:
            raise status.param_invalid("Dim of self should be equal to dim of out.")
        if a.out.shape[-1] != a.numsamples:
            raise status.param_invalid("excepted the size of out at last dim must be equal with numsamples %d, but "
                                       "got %d." % (a.numsamples, a.out.shape[-1]))
        if n > 1 and a.out.shape[0] != a.self.shape[0]:
            raise status.param_invalid("excepted the size of out at first dim %d must be equal with the size of self "
                                       "at first dim %d when dimNum > 1" % (a.out.shape[0], a.self.shape[0]))
        if a.numsamples <= 0:
            raise status.param_invalid("Numsamples must > 0.")
        if not a.replacement and a.numsamples > a.self.shape[-1]:
            raise status.param_invalid("numsamples must <= shape.GetDim(dimNum - 1) without replacement")
        if a.self.shape[-1] > 2 ** 24:
            raise status.param_invalid("number of categories cannot exceed 2^24")

    def check_seeds(self, a):
        pass

    def compute(self, a, v, workspace):
        out = v["out"]
        if not out.size:
            return
        weights = P.widened(v["self"]).astype(np.float64).reshape(-1, v["self"].shape[-1])
        gen = generator(*seed_and_offset(a, v))
        rows = []
        for w in weights:
            total = w.sum()
            if not np.isfinite(total) or total <= 0 or (w < 0).any():
                raise status.param_invalid("The weights of multinomial must be non-negative, finite and not all "
                                           "zero.")
            if a.replacement:
                rows.append(gen.choice(w.size, a.numsamples, replace=True, p=w / total))
            else:  # sequential draws without replacement, as torch.multinomial (Gumbel top-k)
                keys = np.log(gen.random(w.size)) / np.where(w > 0, w, np.nan)
                rows.append(np.argsort(np.nan_to_num(-keys, nan=np.inf), kind="stable")[:a.numsamples])
        out[...] = np.asarray(rows).reshape(out.shape)


class MultinomialTensor(Multinomial):
    name = "aclnnMultinomialTensor"
    inputs = ("self", "seedTensor", "offsetTensor")

    def dtype_table(self):
        return dict(super().dtype_table(), seedTensor=INDICES, offsetTensor=INDICES)

    def check_seeds(self, a):
        check_seed_tensors(a)
