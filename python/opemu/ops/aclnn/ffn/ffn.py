"""aclnnFFN, aclnnFFNV2, aclnnFFNV3 (ops-transformer ffn/ffn): the transformer feed-forward block,

    y = activation(x @ weight1 + bias1) @ weight2 + bias2

with weight1 (K, N1) and weight2 (N1, K), or per expert (E, K, N1) / (E, N1, K) when expert tokens split
x's rows among E experts: counts per expert, or (tokensIndexFlag, V2/V3) their cumulative ends; V1/V2
take a host aclIntArray, V3 an INT64 tensor. Activations (case-insensitive): fastgelu (x * sigmoid(1.702
x)), relu, silu, gelu (tanh form), and the GLU forms geglu, swiglu, reglu, which split x @ weight1 into
halves a, b and give act(a) * b (weight2's K is then N1 / 2).

Precision (innerPrecise): high precision (0) keeps x @ weight1 + bias1 and the activation in fp32 and
rounds once to x's dtype before the second matmul; high performance (1, fp16 only, and the GLU forms)
rounds the first matmul's result to fp16 before the activation. Both matmuls accumulate in fp32; one
rounding into y. The quantised (int8 x) and antiquant (int8/int4 weights) forms are not emulated.
Check order and texts: the op_api (aclnn_ffn.cpp)."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

LINES = ("A2", "A3", "310P")
HIGH_PRECISION, HIGH_PERFORMANCE = 0, 1
ACTIVATIONS = ("fastgelu", "relu", "silu", "gelu", "geglu", "swiglu", "reglu")
GLU = ("geglu", "swiglu", "reglu")
MAX_K = 65535
QUANT = ("scale", "offset", "deqScale1", "deqScale2", "antiquantScale1", "antiquantScale2", "antiquantOffset1",
         "antiquantOffset2")


def arg(a, name):
    value = getattr(a, name, None)
    return getattr(a, name + "Optional", None) if value is None else value


def activate(values, name):
    """The activation in fp32 (values fp32)."""
    if name == "relu":
        return np.maximum(values, np.float32(0))
    if name == "silu":
        return values / (np.float32(1) + np.exp(-values))
    if name == "fastgelu":
        return values / (np.float32(1) + np.exp(np.float32(-1.702) * values))
    inner = np.float32(0.7978845608028654) * (values + np.float32(0.044715) * values * values * values)
    return np.float32(0.5) * values * (np.float32(1) + np.tanh(inner))


class FFN(AclnnOp):
    name = "aclnnFFN"
    inputs = ("x", "weight1", "weight2", "bias1", "bias2", "scale", "offset", "deqScale1", "deqScale2",
              "antiquantScale1", "antiquantScale2", "antiquantOffset1", "antiquantOffset2")
    outputs = ("y",)
    products = _products.describe(LINES)

    def dtype_table(self):
        return {"x": [P.FLOAT16, P.BF16], "weight1": [P.FLOAT16, P.BF16], "weight2": [P.FLOAT16, P.BF16],
                "y": [P.FLOAT16, P.BF16]}

    def check(self, a):
        for name in ("x", "weight1", "weight2", "y"):
            if getattr(a, name) is None:
                raise status.param_nullptr("%s must not be nullptr." % name)
        for name in ("x", "weight1", "weight2", "y"):
            if checks.is_private_format(getattr(a, name).format):
                raise status.param_invalid("format of %s is invalid." % name)
        if a.y.ndim != a.x.ndim:
            raise status.param_invalid("y's dimNum should be equal to x's dimNum, x dimNum is %d, y dimNum is %d"
                                       % (a.x.ndim, a.y.ndim))
        activation = (a.activation or "").lower()
        a.act = activation
        experts = self.expert_counts(a)
        weight_dims = 3 if experts is not None else 2
        if not 2 <= a.x.ndim <= 8:
            raise status.param_invalid("x dim should within 2 ~ 8, but x dim is %d" % a.x.ndim)
        k1, n1 = a.weight1.shape[-2:] if a.weight1.ndim >= 2 else (0, 0)
        k2, n2 = a.weight2.shape[-2:] if a.weight2.ndim >= 2 else (0, 0)
        if k1 > MAX_K or k2 > MAX_K:
            raise status.param_invalid("kDimValue of weight1 %d and weight2 %d should both be equal to or less than "
                                       "65535" % (k1, k2))
        for name, t in (("weight1", a.weight1), ("weight2", a.weight2)):
            if t.ndim != weight_dims:
                raise status.param_invalid("%s DimNum dim should be (3: has experts, 2: no experts), but got %d"
                                           % (name, t.ndim))
        if a.x.shape[-1] != k1:
            raise status.param_invalid("x KDimValue[%d] is not equal to weight1 kDimValue[%d]" % (a.x.shape[-1], k1))
        if activation in GLU:
            if n1 % 2:
                raise status.param_invalid("weight1 NDimValue should be even number in glu case, but your weight1 "
                                           "NDimVakue is %d" % n1)
            if k2 != n1 // 2:
                raise status.param_invalid("weight2 KDimValue should be equal to half of weight1 NDimValue in glu case, "
                                           "but your weight2 kDimValue is %d and your weight1 NDimValue is  %d"
                                           % (k2, n1))
        else:
            if k1 != n2:
                raise status.param_invalid("weight1 KDimValue[%d] is not equal to weight2 NDimValue[%d]" % (k1, n2))
            if n1 != k2:
                raise status.param_invalid("weight1 NDimValue[%d] is not equal to weight2 KDimValue[%d]" % (n1, k2))
            if experts is not None:
                for name, t in (("weight1", a.weight1), ("weight2", a.weight2)):
                    if t.shape[0] != len(experts):
                        raise status.param_invalid("%s length should be %d, but got %d" % (name, len(experts),
                                                                                          t.shape[0]))
        for name, weight in (("bias1", a.weight1), ("bias2", a.weight2)):
            bias = arg(a, name)
            if bias is None:
                continue
            if bias.ndim != weight_dims - 1:
                raise status.param_invalid("%s DimNum dim should be (2: has experts, 1: no experts), %s DimNum dim is %d"
                                           % (name, name, bias.ndim))
            if bias.shape[-1] != weight.shape[-1]:
                raise status.param_invalid("%s last dim should be %d, but %s last dim is %d"
                                           % (name, weight.shape[-1], name, bias.shape[-1]))
        if activation not in ACTIVATIONS:
            raise status.param_invalid("activation %s is not supported." % a.activation)
        for name in QUANT:
            if arg(a, name) is not None:
                raise status.runtime_error("%s: the quantised and antiquant forms (%s) are not emulated by opemu."
                                           % (self.name, name))
        self.check_dtypes(a, activation, experts)
        a.experts = experts
        _products.check_supported(self.name, LINES)

    @staticmethod
    def check_dtypes(a, activation, experts):
        x, w1, w2, y = a.x.dtype, a.weight1.dtype, a.weight2.dtype, a.y.dtype
        checks.dtype_in("x", a.x, [P.FLOAT16, P.BF16, dtypes.acl("INT8")])
        checks.same_dtype("weight1", a.weight1, "weight2", a.weight2)
        checks.dtype_in("weight1", a.weight1, [P.FLOAT16, P.BF16, dtypes.acl("INT8"), dtypes.acl("INT4")])
        if x == dtypes.acl("INT8") or w1 not in (P.FLOAT16, P.BF16):
            raise status.runtime_error("aclnnFFN: the quantised and antiquant forms are not emulated by opemu.")
        if activation in GLU:
            for name, code in (("x", x), ("weight1", w1), ("weight2", w2)):
                if code != P.FLOAT16:
                    raise status.param_invalid("%s only support dtype float16 without expert tokens, but found %s."
                                               % (name, dtypes.serial_name(code)))
            if a.innerPrecise != HIGH_PERFORMANCE:
                raise status.param_invalid("Detected glu, inner precision is not right!")
            if experts is not None:
                raise status.param_invalid("Detected glu, expert tokens should be nullptr, but current it is not "
                                           "nullptr!")
        elif x == P.BF16:
            checks.dtype_match("y", a.y, P.BF16)
            if a.innerPrecise != HIGH_PRECISION:
                raise status.param_invalid("FFN bfloat16 is only support high precision now!")
        else:
            checks.dtype_match("y", a.y, P.FLOAT16)
        checks.dtype_match("weight1", a.weight1, x)
        for name in ("bias1", "bias2"):
            bias = arg(a, name)
            allowed = [P.FLOAT16] if x == P.FLOAT16 and a.innerPrecise == HIGH_PERFORMANCE else [x, P.FLOAT]
            if bias is not None and bias.dtype not in allowed:
                raise status.param_invalid("Detected %s, bias dtype is not right!"
                                           % ("HighPerformance" if len(allowed) == 1 else "HighPrecision"))
        del y

    @staticmethod
    def expert_counts(a):
        """Rows per expert (a list), or None without expert tokens."""
        tokens = arg(a, "expertTokens")
        if tokens is None:
            return None
        if not isinstance(tokens, tuple):  # the V3 tensor: its values are read at run time
            return [None] * tokens.shape[0] if tokens.ndim == 1 else []
        counts = list(tokens)
        if getattr(a, "tokensIndexFlag", False):
            counts = [e - s for s, e in zip([0] + counts[:-1], counts)]
        rows = int(np.prod(a.x.shape[:-1]))
        if any(c < 0 for c in counts) or sum(counts) > rows:
            raise status.param_invalid("expertTokens %s must count at most the %d rows of x." % (list(tokens), rows))
        return counts

    def compute(self, a, v, workspace):
        x = v["x"].reshape(-1, v["x"].shape[-1])
        y = v["y"].reshape(-1, v["y"].shape[-1])
        counts = a.experts
        tokens = v.get("expertTokens", v.get("expertTokensOptional"))
        if counts is not None and tokens is not None:
            counts = [int(c) for c in tokens.reshape(-1)]
            if getattr(a, "tokensIndexFlag", False):
                counts = [e - s for s, e in zip([0] + counts[:-1], counts)]
        if counts is None:
            self.block(a, x, v["weight1"], v["weight2"], v.get("bias1"), v.get("bias2"), y)
            return
        start = 0
        for e, count in enumerate(counts):
            count = max(0, min(count, x.shape[0] - start))
            bias1, bias2 = (None if v.get(n) is None else v[n][e] for n in ("bias1", "bias2"))
            self.block(a, x[start:start + count], v["weight1"][e], v["weight2"][e], bias1, bias2,
                       y[start:start + count])
            start += count
        y[start:] = 0

    @staticmethod
    def block(a, x, w1, w2, b1, b2, y):
        hidden = x.astype(np.float32) @ w1.astype(np.float32)
        if b1 is not None:
            hidden += b1.astype(np.float32)
        if a.innerPrecise == HIGH_PERFORMANCE:
            hidden = hidden.astype(x.dtype).astype(np.float32)
        if a.act in GLU:
            half = hidden.shape[-1] // 2
            base = {"geglu": "gelu", "swiglu": "silu", "reglu": "relu"}[a.act]
            hidden = activate(hidden[:, :half], base) * hidden[:, half:]
        else:
            hidden = activate(hidden, a.act)
        hidden = hidden.astype(x.dtype).astype(np.float32)
        out = hidden @ w2.astype(np.float32)
        if b2 is not None:
            out += b2.astype(np.float32)
        P.store(y, out)


class FFNV2(FFN):
    name = "aclnnFFNV2"


class FFNV3(FFN):
    name = "aclnnFFNV3"
    inputs = ("x", "weight1", "weight2", "expertTokensOptional", "bias1Optional", "bias2Optional", "scaleOptional",
              "offsetOptional", "deqScale1Optional", "deqScale2Optional", "antiquantScale1Optional",
              "antiquantScale2Optional", "antiquantOffset1Optional", "antiquantOffset2Optional")

    def compute(self, a, v, workspace):
        FFN.compute(self, a, {name.replace("Optional", ""): view for name, view in v.items()}, workspace)
