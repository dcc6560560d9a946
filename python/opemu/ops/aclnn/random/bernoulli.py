"""aclnnBernoulli, aclnnBernoulliTensor and their in-place forms (ops-math random/stateless_bernoulli): out (or
selfRef) = 1 with probability prob, else 0, stored in out's dtype; self gives the shape only. prob is an aclScalar
or a tensor broadcast to the shape. Draws: u ~ U[0, 1) in fp32 from random/generator's (seed, offset) stream,
1 where u < prob."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.random.generator import generator

OUT_DTYPES = P.per_line("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL",
                        a2="FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BOOL BF16",
                        regbase="FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 UINT16 UINT32 DOUBLE BOOL UINT64 BF16")
PROB_DTYPES = P.per_product("FLOAT FLOAT16 DOUBLE", "BF16")


class Bernoulli(AclnnOp):
    name = "aclnnBernoulli"
    inputs = ("self",)
    outputs = ("out",)
    target = "out"

    def dtype_table(self):
        return {"self": OUT_DTYPES(), self.target: OUT_DTYPES()}

    def check(self, a):
        scalar = () if "prob" in self.inputs else ("prob",)
        checks.not_null(a, *(self.inputs + scalar + tuple(n for n in self.outputs if n not in self.inputs)),
                        scalars=scalar)
        target = getattr(a, self.target)
        checks.dtype_in(self.target, target, OUT_DTYPES())
        if "self" in self.inputs:
            checks.dtype_in("self", a.self, OUT_DTYPES())
        self.check_prob(a)
        checks.max_dim(self.target, target)
        if "self" in self.inputs:
            checks.same_shape("self", a.self, "out", a.out)

    def check_prob(self, a):
        p = float(a.prob.value)
        if not 0 <= p <= 1:
            raise status.param_invalid("prob should be in range 0<=prob<=1 .")

    def probability(self, a, v):
        return np.float32(a.prob.value)

    def compute(self, a, v, workspace):
        out = v[self.target]
        if out.size:
            u = generator(a.seed, a.offset).random(out.shape, dtype=np.float32)
            P.store(out, (u < self.probability(a, v)).astype(np.uint8))


class BernoulliTensor(Bernoulli):
    name = "aclnnBernoulliTensor"
    inputs = ("self", "prob")

    def dtype_table(self):
        return dict(super().dtype_table(), prob=PROB_DTYPES())

    def check_prob(self, a):
        checks.dtype_in("prob", a.prob, PROB_DTYPES())
        target = getattr(a, self.target)
        if P.broadcast(self.target, target.shape, "prob", a.prob.shape) != tuple(target.shape):
            raise status.param_invalid("The shape of prob %s can not broadcast to the shape of %s %s."
                                       % (checks.shape_text(a.prob.shape), self.target,
                                          checks.shape_text(target.shape)))

    def probability(self, a, v):
        return P.widened(v["prob"])


class InplaceBernoulli(Bernoulli):
    name = "aclnnInplaceBernoulli"
    inputs = ("selfRef",)
    outputs = ("selfRef",)
    target = "selfRef"


class InplaceBernoulliTensor(BernoulliTensor):
    name = "aclnnInplaceBernoulliTensor"
    inputs = ("selfRef", "prob")
    outputs = ("selfRef",)
    target = "selfRef"
