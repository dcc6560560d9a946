"""Fills of random/ (dsa_random_uniform, dsa_random_normal, stateless_random_normal_v2): aclnnInplaceUniform
(U[from, to)), aclnnInplaceNormal (N(mean, std²)), aclnnInplaceRandom (integers uniform in [from, to); without
from/to: [0, 2^mantissa] for floats, the dtype's range for integers, as torch.random_), aclnnNormal{Tensor,Float}
{Tensor,Float} (out = mean + std · N(0, 1), mean and std broadcast), and their *Tensor forms (seed and offset in
device tensors). Samples are drawn in fp32 (fp64 for DOUBLE) from random/generator's (seed, offset) stream and
rounded once into the target's dtype (integers truncate toward zero)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.random.generator import check_seed_tensors, generator, seed_and_offset

UNIFORM_DTYPES = P.codes("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 DOUBLE BF16")
RANDOM_DTYPES = P.codes("FLOAT INT32 INT64 FLOAT16 INT16 INT8 UINT8 BOOL DOUBLE BF16")
NORMAL_OUT_DTYPES = P.codes("BF16 FLOAT16 FLOAT DOUBLE")
_MANTISSA = {P.FLOAT16: 11, P.BF16: 8, P.FLOAT: 24, P.DOUBLE: 53}
NORMAL_DTYPES = P.codes("FLOAT16 FLOAT DOUBLE INT16 INT32 INT64 INT8 UINT8 BOOL BF16")


def _bf16_allowed(name, tensor):
    if tensor.dtype == P.BF16 and _products.line() not in ("A2", "A3", "950"):
        raise status.param_invalid("Self dtype DT_BF16 not support in current soc version %s." % soc())


def _store(out, samples):
    if out.dtype.kind in "iub" and samples.dtype.kind == "f":
        samples = np.trunc(samples)
    P.store(out, samples)


class _RandomFill(AclnnOp):
    inputs = ("selfRef",)
    outputs = ("selfRef",)
    allowed = ()

    def dtype_table(self):
        return {"selfRef": self.allowed}

    def check(self, a):
        checks.not_null(a, "selfRef")
        checks.dtype_in("selfRef", a.selfRef, self.allowed)
        _bf16_allowed("selfRef", a.selfRef)
        checks.max_dim("selfRef", a.selfRef)
        self.check_parameters(a)

    def compute(self, a, v, workspace):
        out = v["selfRef"]
        if out.size:
            wide = np.float64 if out.dtype == np.float64 else np.float32
            _store(out, self.samples(a, generator(*seed_and_offset(a, v)), out.shape, wide))


def _tensor_form(base, name):
    """The *Tensor form of a fill: seedTensor and offsetTensor (INT64) read at launch."""
    def check(self, a):
        base.check(self, a)
        check_seed_tensors(a)
    return type(base.__name__ + "Tensor", (base,), {"name": name, "inputs": ("selfRef", "seedTensor", "offsetTensor"),
                                                    "check": check, "__module__": __name__})


class InplaceUniform(_RandomFill):
    name = "aclnnInplaceUniform"
    allowed = UNIFORM_DTYPES

    def check_parameters(self, a):
        if a.__dict__["from"] > a.to:
            raise status.param_invalid("from cannot be greater than to, from is %f and to is %f."
                                       % (a.__dict__["from"], a.to))

    def samples(self, a, gen, shape, wide):
        low, high = wide(a.__dict__["from"]), wide(a.to)
        return low + (high - low) * gen.random(shape, dtype=wide)


class InplaceNormal(_RandomFill):
    name = "aclnnInplaceNormal"
    allowed = NORMAL_DTYPES

    def check_parameters(self, a):
        if a.std < 0:
            raise status.param_invalid("Normal expects std >= 0.0, but found std [%f]." % a.std)

    def samples(self, a, gen, shape, wide):
        return wide(a.mean) + wide(a.std) * gen.standard_normal(shape, dtype=wide)


class InplaceRandom(_RandomFill):
    """Integers uniform in [from, to), stored into selfRef's dtype."""
    name = "aclnnInplaceRandom"
    allowed = RANDOM_DTYPES

    def check_parameters(self, a):
        if a.__dict__["from"] >= a.to:
            raise status.param_invalid("random_ expects 'from' to be less than 'to', but got from=%d >= to=%d"
                                       % (a.__dict__["from"], a.to))

    def bounds(self, a):
        return a.__dict__["from"], a.to

    def samples(self, a, gen, shape, wide):
        low, high = self.bounds(a)
        return gen.integers(low, high, shape, dtype=np.int64, endpoint=False)


class InplaceRandomWithoutFromTo(InplaceRandom):
    name = "aclnnInplaceRandomWithoutFromTo"

    def check_parameters(self, a):
        pass

    def bounds(self, a):
        code = a.selfRef.dtype
        if code in _MANTISSA:
            return 0, 2 ** _MANTISSA[code] + 1
        if code == P.BOOL:
            return 0, 2
        return 0, int(np.iinfo(P.compute_type(code)).max) + 1


InplaceUniformTensor = _tensor_form(InplaceUniform, "aclnnInplaceUniformTensor")
InplaceNormalTensor = _tensor_form(InplaceNormal, "aclnnInplaceNormalTensor")
InplaceRandomTensor = _tensor_form(InplaceRandom, "aclnnInplaceRandomTensor")
InplaceRandomWithoutFromToTensor = _tensor_form(InplaceRandomWithoutFromTo, "aclnnInplaceRandomWithoutFromToTensor")


class _NormalOut(AclnnOp):
    """out = mean + std · z, z ~ N(0, 1); a tensor mean or std broadcasts to out's shape."""
    outputs = ("out",)

    def dtype_table(self):
        return {name: NORMAL_OUT_DTYPES for name in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, *(self.inputs + self.outputs))
        for name in self.inputs + self.outputs:
            checks.dtype_in(name, getattr(a, name), NORMAL_OUT_DTYPES)
        if not isinstance(a.std, (int, float)) and a.std.is_empty():
            raise status.param_invalid("The std can not be an empty tensor.")
        if isinstance(a.std, (int, float)) and a.std < 0:
            raise status.param_invalid("Normal expects std >= 0.0, but found std [%f]." % a.std)
        shape = ()
        for name in self.inputs:
            shape = P.broadcast("out", shape, name, getattr(a, name).shape)
        if self.inputs and shape != tuple(a.out.shape):
            raise status.param_invalid("Shape of out should be %s, but current is %s."
                                       % (checks.shape_text(shape), checks.shape_text(a.out.shape)))
        checks.max_dim("out", a.out)

    def compute(self, a, v, workspace):
        out = v["out"]
        if not out.size:
            return
        wide = np.float64 if out.dtype == np.float64 else np.float32
        mean, std = (P.widened(v[n]).astype(wide) if n in v else wide(getattr(a, n)) for n in ("mean", "std"))
        P.store(out, mean + std * generator(a.seed, a.offset).standard_normal(out.shape, dtype=wide))


class NormalTensorTensor(_NormalOut):
    name = "aclnnNormalTensorTensor"
    inputs = ("mean", "std")


class NormalTensorFloat(_NormalOut):
    name = "aclnnNormalTensorFloat"
    inputs = ("mean",)


class NormalFloatTensor(_NormalOut):
    name = "aclnnNormalFloatTensor"
    inputs = ("std",)


class NormalFloatFloat(_NormalOut):
    name = "aclnnNormalFloatFloat"
    inputs = ()
