"""aclnnLogit and aclnnLogitGrad (ops-nn loss/logit, loss/logit_grad; opbuild operators, Atlas A2/A3 and the 950):
PyTorch's logit and its gradient.

    Logit      z = clamp(x, eps, 1 − eps) when eps ≥ 0 (else x);  y = log(z / (1 − z))
    LogitGrad  dx = dy / (x·(1 − x)), 0 where eps ≥ 0 and x lies outside [eps, 1 − eps] (NaN outside [0, 1]
               when eps < 0, as the formula gives)

x and y (x, dy, dx) of one dtype (BF16, FLOAT16, FLOAT), computed in fp32, rounded once; y of x's shape (the
tiling's rule)."""
import numpy as np

from opemu.core import checks
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import opbuild
from opemu.ops.aclnn.common import promotion as P

LINES = ("A2", "A3", "950")
COMBOS = [(c, c) for c in P.codes("BF16 FLOAT16 FLOAT")]


class Logit(AclnnOp):
    name = "aclnnLogit"
    inputs = ("input",)
    outputs = ("out",)

    def dtype_table(self):
        return {"input": P.codes("BF16 FLOAT16 FLOAT"), "out": P.codes("BF16 FLOAT16 FLOAT")}

    def check(self, a):
        opbuild.check(self.name, a, ("input", "out"), COMBOS, LINES)
        if a.out.shape != a.input.shape:
            raise opbuild.tiling_error("Logit", "out %s must have input's shape %s"
                                       % (checks.shape_text(a.out.shape), checks.shape_text(a.input.shape)))

    def compute(self, a, v, workspace):
        x = np.asarray(v["input"], np.float32)
        with np.errstate(all="ignore"):
            if a.eps >= 0:
                eps = np.float32(a.eps)
                x = np.clip(x, eps, np.float32(1) - eps)
            P.store(v["out"], np.log(x / (np.float32(1) - x)))


class LogitGrad(AclnnOp):
    name = "aclnnLogitGrad"
    inputs = ("x", "dy")
    outputs = ("out",)

    def dtype_table(self):
        allowed = P.codes("BF16 FLOAT16 FLOAT")
        return {"x": allowed, "dy": allowed, "out": allowed}

    def check(self, a):
        opbuild.check(self.name, a, ("x", "dy", "out"), [(c, c, c) for c, _ in COMBOS], LINES)
        if not a.x.shape == a.dy.shape == a.out.shape:
            raise opbuild.tiling_error("LogitGrad", "x %s, dy %s and out %s must have one shape" % tuple(
                checks.shape_text(t.shape) for t in (a.x, a.dy, a.out)))

    def compute(self, a, v, workspace):
        x, dy = np.asarray(v["x"], np.float32), np.asarray(v["dy"], np.float32)
        with np.errstate(all="ignore"):
            dx = dy / (x * (np.float32(1) - x))
            if a.eps >= 0:
                eps = np.float32(a.eps)
                dx = np.where((x < eps) | (x > np.float32(1) - eps), np.float32(0), dx)
            P.store(v["out"], dx)
