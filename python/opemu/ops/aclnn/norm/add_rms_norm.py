"""aclnnAddRmsNorm (norm/add_rms_norm op_api), aclnnInplaceAddRmsNorm, aclnnAddRmsNormCast, aclnnGemmaRmsNorm
and aclnnRmsNormGrad (opbuild operators: their docs' dtype tables, the tilings' shape rules).

x = x1 + x2: fp16 adds in fp16 (the kernel's half Add) and normalises the rounded sum; bf16 adds in fp32,
stores the sum rounded but normalises the fp32 sum; fp32 adds in fp32. AddRmsNorm's mode follows which
outputs are given (the op_api): rstdOut and xOut (ADD), xOut only (PRE, fp16/bf16), neither (POST)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.norm import rms_common as R

NORMAL = P.codes("FLOAT FLOAT16 BF16")


def _sum(x1, x2, code):
    """(the sum the norm reads, the sum stored into xOut) as fp32."""
    if code == R.FLOAT16:
        with np.errstate(over="ignore", invalid="ignore"):
            total = (x1.astype(np.float16) + x2.astype(np.float16)).astype(np.float32)
        return total, total
    total = x1.astype(np.float32) + x2.astype(np.float32)
    return total, R.round_to(total, code)


def fp32_sum(x1, x2, x_out, n):
    """x1 + x2 of fp32 views as (rows, n), added straight into x_out when it is a contiguous fp32 view (else
    stored there after)."""
    if x_out is not None and x_out.dtype == np.float32 and x_out.flags.c_contiguous:
        np.add(x1, x2, out=x_out)
        return x_out.reshape(-1, n)
    total = np.add(x1, x2, dtype=np.float32).reshape(-1, n)
    if x_out is not None:
        R.store_rows(x_out, total)
    return total


class AddRmsNorm(AclnnOp):
    name = "aclnnAddRmsNorm"
    inputs = ("x1", "x2", "gamma")
    outputs = ("yOut", "rstdOut", "xOut")

    def dtype_table(self):
        return {n: self.supported(0) for n in ("x1", "x2", "gamma", "yOut", "xOut")} | {"rstdOut": [P.FLOAT]}

    @staticmethod
    def supported(mode):
        is_310p = _products.line() == "310P"
        if mode:
            return P.codes("FLOAT16") if is_310p else P.codes("FLOAT16 BF16")
        return P.codes("FLOAT FLOAT16") if is_310p else NORMAL

    def check(self, a):
        a.mode = 1 if a.xOut is not None and a.rstdOut is None else 2 if a.xOut is None and a.rstdOut is None else 0
        checks.not_null(a, "x1", "x2", "gamma", "yOut", *(("rstdOut", "xOut") if a.mode == 0 else
                                                           ("xOut",) if a.mode == 1 else ()))
        allowed = self.supported(a.mode)
        for name in ("x1", "x2", "gamma"):
            checks.dtype_in(name, getattr(a, name), allowed)
        checks.same_dtype("x1", a.x1, "x2", a.x2)
        checks.same_dtype("x1", a.x1, "gamma", a.gamma)
        checks.dtype_in("yOut", a.yOut, allowed)
        checks.same_dtype("yOut", a.yOut, "x1", a.x1)
        if a.mode in (0, 1):
            checks.dtype_in("xOut", a.xOut, allowed)
            checks.same_dtype("xOut", a.xOut, "yOut", a.yOut)
        if a.mode == 0:
            checks.dtype_match("rstdOut", a.rstdOut, P.FLOAT)
        for name in ("x1", "x2", "gamma"):
            checks.max_dim(name, getattr(a, name))
        for name in ("x1", "x2", "gamma"):
            checks.min_dim(name, getattr(a, name), 1)
        checks.same_shape("x1", a.x1, "x2", a.x2)
        checks.max_dim("yOut", a.yOut)
        checks.same_shape("x1", a.x1, "yOut", a.yOut)
        if a.mode in (0, 1):
            checks.same_shape("x1", a.x1, "xOut", a.xOut)
        R.check_gamma_tail(a, "x1")
        if a.mode == 0:
            R.check_rstd(a, "rstdOut", "x1")

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n = R.gamma_cols(a, "x1")
        if a.x1.dtype == R.FLOAT:
            total = fp32_sum(v["x1"], v["x2"], v.get("xOut"), n)
            R.normalize_fp32(total, a.gamma.ndim, False, a.epsilon, v["gamma"], None, v["yOut"], None,
                             v.get("rstdOut"))
            return
        total, stored = _sum(R.flat_rows(v["x1"], n), R.flat_rows(v["x2"], n), a.x1.dtype)
        rstd = R.rstd_of(total, a.epsilon)
        y = R.scaled(total, rstd, R.flat_rows(v["gamma"], n), a.x1.dtype)
        if "xOut" in v:
            R.store_rows(v["xOut"], stored)
        if "rstdOut" in v:
            R.store_rows(v["rstdOut"], rstd)
        R.store_rows(v["yOut"], y)


class InplaceAddRmsNorm(AddRmsNorm):
    """x1Ref gets the normalised result, x2Ref the sum (its doc)."""
    name = "aclnnInplaceAddRmsNorm"
    inputs = ("x1Ref", "x2Ref", "gamma")
    outputs = ("x1Ref", "x2Ref", "rstdOut")

    def dtype_table(self):
        return {n: NORMAL for n in ("x1Ref", "x2Ref", "gamma")} | {"rstdOut": [P.FLOAT]}

    def check(self, a):
        a.x1, a.x2, a.yOut, a.xOut = a.x1Ref, a.x2Ref, a.x1Ref, a.x2Ref
        checks.not_null(a, "x1Ref", "x2Ref", "gamma", "rstdOut")
        super().check(a)

    def compute(self, a, v, workspace):
        super().compute(a, {"x1": v["x1Ref"], "x2": v["x2Ref"], "gamma": v["gamma"], "yOut": v["x1Ref"],
                            "xOut": v["x2Ref"], "rstdOut": v["rstdOut"]}, workspace)


class AddRmsNormCast(AclnnOp):
    """y1Out = the fp32 norm of float(x1) + float(x2); y2Out = y1Out cast to x1's dtype (its doc)."""
    name = "aclnnAddRmsNormCast"
    inputs = ("x1", "x2", "gamma")
    outputs = ("y1Out", "y2Out", "rstdOut", "xOut")
    products = _products.describe(("A2", "A3", "950"))

    def dtype_table(self):
        b16 = P.codes("FLOAT16 BF16")
        return {"x1": b16, "x2": b16, "gamma": b16, "y1Out": [P.FLOAT], "y2Out": b16, "rstdOut": [P.FLOAT],
                "xOut": b16}

    def check(self, a):
        checks.not_null(a, "x1", "x2", "gamma", "y1Out", "y2Out", "rstdOut", "xOut")
        b16 = P.codes("FLOAT16 BF16")
        for name in ("x1", "x2", "gamma"):
            checks.dtype_in(name, getattr(a, name), b16)
        checks.same_dtype("x1", a.x1, "x2", a.x2)
        checks.same_dtype("x1", a.x1, "gamma", a.gamma)
        checks.dtype_match("y1Out", a.y1Out, P.FLOAT)
        for name in ("y2Out", "xOut"):
            checks.dtype_match(name, getattr(a, name), a.x1.dtype)
        checks.dtype_match("rstdOut", a.rstdOut, P.FLOAT)
        for name in ("x2", "y1Out", "y2Out", "xOut"):
            checks.same_shape("x1", a.x1, name, getattr(a, name))
        R.check_gamma_tail(a, "x1")
        R.check_rstd(a, "rstdOut", "x1")
        _products.check_supported(self.name, ("A2", "A3", "950"))

    def compute(self, a, v, workspace):
        if a.x1.is_empty():
            return
        n = R.gamma_cols(a, "x1")
        total, stored = _sum(R.flat_rows(v["x1"], n), R.flat_rows(v["x2"], n), a.x1.dtype)
        rstd = R.rstd_of(total, a.epsilon)
        y = R.scaled(total, rstd, R.flat_rows(v["gamma"], n), R.FLOAT)
        R.store_rows(v["xOut"], stored)
        R.store_rows(v["rstdOut"], rstd)
        R.store_rows(v["y1Out"], y)
        R.store_rows(v["y2Out"], y)


class GemmaRmsNorm(AclnnOp):
    """y = x · rstd · (1 + γ)."""
    name = "aclnnGemmaRmsNorm"
    inputs = ("x", "gamma")
    outputs = ("yOut", "rstdOut")

    def dtype_table(self):
        return {"x": NORMAL, "gamma": NORMAL, "yOut": NORMAL, "rstdOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "x", "gamma", "yOut", "rstdOut")
        checks.dtype_in("x", a.x, NORMAL)
        checks.dtype_match("gamma", a.gamma, a.x.dtype)
        checks.dtype_match("yOut", a.yOut, a.x.dtype)
        checks.dtype_match("rstdOut", a.rstdOut, P.FLOAT)
        checks.max_dim("x", a.x)
        checks.same_shape("x", a.x, "yOut", a.yOut)
        R.check_gamma_tail(a)
        R.check_rstd(a, "rstdOut")

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            return
        n = R.gamma_cols(a)
        x = R.flat_rows(v["x"], n)
        rstd = R.rstd_of(x, a.epsilon)
        gamma = R.round_to(R.flat_rows(v["gamma"], n) + np.float32(1), a.x.dtype)
        R.store_rows(v["rstdOut"], rstd)
        R.store_rows(v["yOut"], R.scaled(x, rstd, gamma, a.x.dtype))


GRAD_COMBINATIONS = (("FLOAT16", "FLOAT"), ("BF16", "FLOAT"), ("FLOAT16", "FLOAT16"), ("FLOAT", "FLOAT"),
                     ("BF16", "BF16"))


class RmsNormGrad(AclnnOp):
    """dx = (dy·γ − x·rstd · mean(dy·γ·x·rstd)) · rstd; dγ = Σ_rows x·rstd·dy, in fp32."""
    name = "aclnnRmsNormGrad"
    inputs = ("dy", "x", "rstd", "gamma")
    outputs = ("dxOut", "dgammaOut")

    def dtype_table(self):
        return {"dy": NORMAL, "x": NORMAL, "rstd": [P.FLOAT], "gamma": NORMAL, "dxOut": NORMAL,
                "dgammaOut": [P.FLOAT]}

    def check(self, a):
        checks.not_null(a, "dy", "x", "rstd", "gamma", "dxOut", "dgammaOut")
        combos = [tuple(P.codes(x)[0] for x in c) for c in GRAD_COMBINATIONS]
        if _products.line() == "310P":
            combos = [c for c in combos if P.BF16 not in c and c != (P.FLOAT16, P.FLOAT)]
        if ((a.x.dtype, a.gamma.dtype) not in combos or a.dy.dtype != a.x.dtype or a.dxOut.dtype != a.x.dtype
                or a.rstd.dtype != P.FLOAT or a.dgammaOut.dtype != P.FLOAT):
            raise status.param_invalid("The dtypes of dy %s, x %s, rstd %s, gamma %s, dxOut %s and dgammaOut %s are "
                                       "not a supported combination." % tuple(
                                           dtypes.serial_name(getattr(a, n).dtype)
                                           for n in ("dy", "x", "rstd", "gamma", "dxOut", "dgammaOut")))
        checks.same_shape("dy", a.dy, "x", a.x)
        checks.same_shape("x", a.x, "dxOut", a.dxOut)
        R.check_gamma_tail(a)
        checks.same_shape("gamma", a.gamma, "dgammaOut", a.dgammaOut)
        R.check_rstd(a, "rstd")

    def compute(self, a, v, workspace):
        if a.x.is_empty():
            if "dgammaOut" in v:
                P.store(v["dgammaOut"], np.zeros((), np.float32))
            return
        n = R.gamma_cols(a)
        x, dy = R.flat_rows(v["x"], n), R.flat_rows(v["dy"], n)
        rstd = R.flat_rows(v["rstd"], 1)[:, 0] if v["rstd"].size == x.shape[0] else v["rstd"].reshape(-1)
        gamma = R.flat_rows(v["gamma"], n)
        normalized = x * rstd[:, None]
        dyg = dy * gamma
        mean = np.add.reduce(dyg * normalized, axis=1, dtype=np.float32) / np.float32(n)
        dx = (dyg - normalized * mean[:, None]) * rstd[:, None]
        R.store_rows(v["dxOut"], dx)
        P.store(v["dgammaOut"], np.add.reduce(normalized * dy, axis=0, dtype=np.float32).reshape(v["dgammaOut"].shape))
