"""Rotary position embeddings of ops-transformer posembedding/: aclnnRotaryPositionEmbedding and its
grad, aclnnInterleaveRope, aclnnApplyRotaryPosEmb(V2) and aclnnRopeWithSinCosCache.

Every form is y = x * cos + rotate(x) * sin with cos/sin broadcast over x; the modes differ in
rotate (docs: half 0, interleave 1, quarter 2, interleave-half 3):

    half              cat(-x2, x1)                 the two halves of the last axis
    interleave        (x0, x1) -> (-x1, x0)        each even/odd pair
    quarter           cat(-x2, x1, -x4, x3)        the four quarters
    interleave-half   x is first de-interleaved (evens, then odds), then rotated as half

The kernels widen fp16/bf16 to fp32 (RotateHalfBf16<half, float>), multiply, add and round once
into the output. The grad is dx = dy * cos - rotate(dy * sin) (rotate is antisymmetric), dcos and
dsin the sums of dy * x and dy * rotate(x) over the axes cos/sin broadcast, in fp32.

These are opbuild operators: phase 1 checks the operator definition's dtypes and then runs the
tiling, whose refusals are ACLNN_ERR_INNER_TILING_ERROR with the tiling's log text."""
import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

HALF, INTERLEAVE, QUARTER, INTERLEAVE_HALF = 0, 1, 2, 3
ROPE_DTYPES = (P.FLOAT16, P.FLOAT, P.BF16)
D_LIMIT = 1024
GRAD_D_LIMIT_A2_A3 = 896
A2_A3 = ("A2", "A3")
# The tilings of this repository (A2/A3) run half and interleave; the 950 line's regbase kernel all four.
MODES = {"A2": (HALF, INTERLEAVE), "A3": (HALF, INTERLEAVE), "950": (HALF, INTERLEAVE, QUARTER, INTERLEAVE_HALF)}


def tiling_error(message):
    return status.VendorError(status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"], message)


def rotate(x, mode):
    """rotate(x) of the mode, along the last axis (a new array)."""
    d = x.shape[-1]
    out = np.empty_like(x)
    if mode == HALF:
        h = d // 2
        np.negative(x[..., h:], out=out[..., :h])
        out[..., h:] = x[..., :h]
    elif mode == INTERLEAVE:
        np.negative(x[..., 1::2], out=out[..., 0::2])
        out[..., 1::2] = x[..., 0::2]
    elif mode == QUARTER:
        q = d // 4
        np.negative(x[..., q:2 * q], out=out[..., :q])
        out[..., q:2 * q] = x[..., :q]
        np.negative(x[..., 3 * q:], out=out[..., 2 * q:3 * q])
        out[..., 3 * q:] = x[..., 2 * q:3 * q]
    else:
        raise ValueError(mode)
    return out


def deinterleave(x):
    """cat(x[..., ::2], x[..., 1::2]): interleave-half's first step."""
    return np.concatenate((x[..., 0::2], x[..., 1::2]), axis=-1)


def apply(x, cos, sin, mode):
    """x * cos + rotate(x) * sin in fp32 (x, cos, sin already fp32)."""
    if mode == INTERLEAVE_HALF:
        x, mode = deinterleave(x), HALF
    rotated = rotate(x, mode)
    rotated *= sin
    result = x * cos
    result += rotated
    return result


def fp32(view):
    return view if view.dtype == np.float32 else view.astype(np.float32)


def reduce_to(values, shape):
    """values summed over the axes `shape` broadcasts (size 1 there), in fp32."""
    axes = tuple(i for i, (v, s) in enumerate(zip(values.shape, shape)) if s == 1 and v != 1)
    return values.sum(axis=axes, keepdims=True, dtype=np.float32) if axes else values


def check_dtypes(named, allowed=ROPE_DTYPES):
    """The operator definition's dtype rows: every tensor one of `allowed`, all the same."""
    first_name, first = named[0]
    for name, tensor in named:
        checks.dtype_in(name, tensor, allowed)
    for name, tensor in named[1:]:
        checks.same_dtype(first_name, first, name, tensor)


def check_head_dim(d, mode, limit=D_LIMIT):
    if d > limit:
        raise tiling_error("input last dim (head_dim) should be less than %d." % limit)
    if d % (4 if mode == QUARTER else 2) != 0:
        raise tiling_error("input last dim (head_dim) must be %s."
                           % ("a multiple of 4" if mode == QUARTER else "an even number"))


def check_broadcast(x, r):
    """cos/sin broadcast over x: each of the first three axes 1 or x's (the tiling's BNSD, BSND, SBND,
    BND and no-broadcast layouts are exactly these)."""
    if any(rd not in (1, xd) for rd, xd in zip(r.shape[:3], x.shape[:3])):
        raise tiling_error("input shape does not meet the requirements.")


def check_mode(mode):
    if mode not in (HALF, INTERLEAVE, QUARTER, INTERLEAVE_HALF):
        raise tiling_error("mode only supports 0 (half), 1 (interleave), 2 (quarter) and 3 (interleave-half), "
                           "but got %d." % mode)
    if mode not in MODES.get(_products.line(), ()):
        raise tiling_error("mode %d is not supported on %s." % (mode, _products.describe((_products.line(),))))


class RotaryPositionEmbedding(AclnnOp):
    name = "aclnnRotaryPositionEmbedding"
    inputs = ("x", "cos", "sin")
    outputs = ("out",)
    products = _products.describe(A2_A3 + ("950",))

    def dtype_table(self):
        return {n: list(ROPE_DTYPES) for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "x", "cos", "sin", "out")
        check_dtypes([("x", a.x), ("cos", a.cos), ("sin", a.sin), ("out", a.out)])
        _products.check_supported(self.name, A2_A3 + ("950",))
        check_mode(a.mode)
        if a.x.ndim != 4 or a.cos.ndim != 4 or a.sin.ndim != 4:
            raise tiling_error("the input shape must be 4-dimensional.")
        check_head_dim(a.x.shape[3], a.mode)
        if a.cos.shape != a.sin.shape:
            raise tiling_error("cos shape and sin shape should be equal.")
        if a.cos.shape[3] != a.x.shape[3]:
            raise tiling_error("input last dim (head_dim) should be equal, but get x [%d] and cos [%d]."
                               % (a.x.shape[3], a.cos.shape[3]))
        check_broadcast(a.x, a.cos)
        if a.out.shape != a.x.shape:
            raise tiling_error("out shape %s should be equal to x shape %s."
                               % (checks.shape_text(a.out.shape), checks.shape_text(a.x.shape)))

    def compute(self, a, v, workspace):
        if v["x"].size:
            P.store(v["out"], apply(fp32(v["x"]), fp32(v["cos"]), fp32(v["sin"]), a.mode))


class RotaryPositionEmbeddingGrad(AclnnOp):
    name = "aclnnRotaryPositionEmbeddingGrad"
    inputs = ("dy", "cos", "sin", "xOptional")
    outputs = ("dxOut", "dcosOut", "dsinOut")
    products = _products.describe(A2_A3 + ("950",))

    def dtype_table(self):
        return {n: list(ROPE_DTYPES) for n in self.inputs + self.outputs}

    def check(self, a):
        checks.not_null(a, "dy", "cos", "sin", "dxOut", "dcosOut", "dsinOut")
        named = [(n, getattr(a, n)) for n in self.inputs + self.outputs if getattr(a, n) is not None]
        check_dtypes(named)
        _products.check_supported(self.name, A2_A3 + ("950",))
        check_mode(a.mode)
        if any(t.ndim != 4 for _, t in named):
            raise tiling_error("the input shape must be 4-dimensional.")
        # A2/A3: D < 896 (the grad's docs); the 950 line: D <= 1024
        check_head_dim(a.dy.shape[3], a.mode, D_LIMIT if _products.line() == "950" else GRAD_D_LIMIT_A2_A3 - 1)
        for name, t in named:
            if t.shape[3] != a.dy.shape[3]:
                raise tiling_error("the last dim of %s [%d] should be equal to dy's [%d]."
                                   % (name, t.shape[3], a.dy.shape[3]))
        for name in ("xOptional", "dxOut"):
            t = getattr(a, name)
            if t is not None and t.shape != a.dy.shape:
                raise tiling_error("%s shape %s should be equal to dy shape %s."
                                   % (name, checks.shape_text(t.shape), checks.shape_text(a.dy.shape)))
        for name in ("sin", "dcosOut", "dsinOut"):
            if getattr(a, name).shape != a.cos.shape:
                raise tiling_error("%s shape %s should be equal to cos shape %s."
                                   % (name, checks.shape_text(getattr(a, name).shape), checks.shape_text(a.cos.shape)))
        check_broadcast(a.dy, a.cos)

    def compute(self, a, v, workspace):
        if not v["dy"].size:
            return
        dy, cos, sin = fp32(v["dy"]), fp32(v["cos"]), fp32(v["sin"])
        mode = a.mode
        if mode == INTERLEAVE_HALF:  # y = P(x) * cos + rotate_half(P(x)) * sin, P the de-interleaving
            half = dy * cos - rotate(dy * sin, HALF)
            dx = np.empty_like(half)
            d = dx.shape[-1] // 2
            dx[..., 0::2], dx[..., 1::2] = half[..., :d], half[..., d:]
        else:
            dx = dy * cos
            dx -= rotate(dy * sin, mode)
        P.store(v["dxOut"], dx)
        if v.get("xOptional") is None:
            v["dcosOut"][...] = 0
            v["dsinOut"][...] = 0
            return
        x = fp32(v["xOptional"])
        if mode == INTERLEAVE_HALF:
            x, mode = deinterleave(x), HALF
        P.store(v["dcosOut"], reduce_to(dy * x, a.cos.shape))
        P.store(v["dsinOut"], reduce_to(dy * rotate(x, mode), a.cos.shape))


class InterleaveRope(AclnnOp):
    """The interleave-half RoPE of a (B, N, S, 64) x: the 950 line runs it as RotaryPositionEmbedding
    mode 3 (the op_api's branch), A2/A3 its own tiling with the rules below."""
    name = "aclnnInterleaveRope"
    inputs = ("x", "cos", "sin")
    outputs = ("out",)
    products = _products.describe(A2_A3 + ("950",))

    def dtype_table(self):
        return {n: [P.FLOAT16, P.BF16] for n in self.inputs + self.outputs}

    def check(self, a):
        if _products.line() == "950":
            a.mode = INTERLEAVE_HALF
            return RotaryPositionEmbedding.check(self, a)
        checks.not_null(a, "x", "cos", "sin", "out")
        check_dtypes([("x", a.x), ("cos", a.cos), ("sin", a.sin), ("out", a.out)], (P.FLOAT16, P.BF16))
        _products.check_supported(self.name, A2_A3)
        if a.x.ndim != 4:
            raise tiling_error("Shape must be (B,N,S,D).")
        b, n, s, d = a.x.shape
        for value, word in ((b, "batchSize"), (n, "numHead"), (s, "seqLength"), (d, "hiddenDim")):
            if value <= 0:
                raise tiling_error("%s should be greater than 0." % word)
        if d != 64:
            raise tiling_error("hiddenDim must be 64.")
        if a.cos.shape != a.sin.shape:
            raise tiling_error("cos and sin shape must be the same.")
        if a.cos.ndim != 4:
            raise tiling_error("Shape must be (B,N,S,D).")
        if a.cos.shape[0] != b:
            raise tiling_error("cos or sin batchSize must same as x batchSize.")
        if a.cos.shape[1] != 1:
            raise tiling_error("cos or sin numHead must be 1.")
        if a.cos.shape[2] not in (1, s):
            raise tiling_error("cos or sin seqLength must be 1 or the same as x seqLength.")
        if a.cos.shape[3] != d:
            raise tiling_error("cos or sin hiddenDim must same as x hiddenDim.")
        a.mode = INTERLEAVE_HALF

    def compute(self, a, v, workspace):
        RotaryPositionEmbedding.compute(self, a, v, workspace)


ROTARY_MODES = {"half": HALF, "interleave": INTERLEAVE, "quarter": QUARTER}
LAYOUTS = {1: "BSND", 2: "SBND", 3: "BNSD"}


class ApplyRotaryPosEmbV2(AclnnOp):
    """Query and key rotated in place with one cos/sin (B, S, 1, D) in layout 1 BSND (2 SBND and 3 BNSD
    on the 950 line's kernel); aclnnApplyRotaryPosEmb is the "half" mode."""
    name = "aclnnApplyRotaryPosEmbV2"
    inputs = ("queryRef", "keyRef", "cos", "sin")
    outputs = ("queryRef", "keyRef")
    products = _products.describe(A2_A3)
    default_mode = None

    def dtype_table(self):
        return {n: list(ROPE_DTYPES) for n in ("queryRef", "keyRef", "cos", "sin")}

    def check(self, a):
        checks.not_null(a, "queryRef", "keyRef", "cos", "sin")
        mode_name = self.default_mode or getattr(a, "rotaryMode", None) or "half"
        check_dtypes([("queryRef", a.queryRef), ("keyRef", a.keyRef), ("cos", a.cos), ("sin", a.sin)])
        if a.layout not in LAYOUTS or (a.layout != 1 and _products.line() != "950"):
            raise status.param_invalid("layout %d is not supported, it should be 1 (BSND)%s."
                                       % (a.layout, ", 2 (SBND) or 3 (BNSD)" if _products.line() == "950" else ""))
        if mode_name not in ROTARY_MODES:
            raise status.param_invalid("rotaryMode %s is not supported, it should be half, interleave or quarter."
                                       % mode_name)
        a.mode = ROTARY_MODES[mode_name]
        q, k, cos, sin = a.queryRef, a.keyRef, a.cos, a.sin
        if any(t.ndim != 4 for t in (q, k, cos, sin)):
            raise status.param_invalid("queryRef, keyRef, cos and sin must be 4-dimensional.")
        n_axis = {1: 2, 2: 2, 3: 1}[a.layout]
        others = [i for i in range(4) if i != n_axis]
        if any(q.shape[i] != k.shape[i] for i in others):
            raise status.param_invalid("queryRef %s and keyRef %s must be equal except on the N axis."
                                       % (checks.shape_text(q.shape), checks.shape_text(k.shape)))
        if cos.shape != sin.shape or cos.shape[n_axis] != 1 or any(cos.shape[i] != q.shape[i] for i in others):
            raise status.param_invalid("cos %s and sin %s must be queryRef's shape %s with 1 on the N axis."
                                       % tuple(checks.shape_text(t.shape) for t in (cos, sin, q)))
        if q.shape[3] % (4 if a.mode == QUARTER else 2):
            raise status.param_invalid("The last dim of the inputs must be divisible by %d."
                                       % (4 if a.mode == QUARTER else 2))
        _products.check_supported(self.name, A2_A3)

    def compute(self, a, v, workspace):
        cos, sin = fp32(v["cos"]), fp32(v["sin"])
        for name in ("queryRef", "keyRef"):
            if v[name].size:
                P.store(v[name], apply(fp32(v[name]), cos, sin, a.mode))


class ApplyRotaryPosEmb(ApplyRotaryPosEmbV2):
    name = "aclnnApplyRotaryPosEmb"
    default_mode = "half"


class RopeWithSinCosCache(AclnnOp):
    """vLLM's rotary embedding: positions index a cache whose rows are cat(cos, sin) of rotaryDim/2 each;
    query and key (numTokens, heads * headSize) rotate their first rotaryDim values of each head, neox style
    (halves) or GPT-J style (pairs); the rest passes through. mropeSection splits the half-dimension
    among the rows of (3, numTokens) positions (multimodal RoPE)."""
    name = "aclnnRopeWithSinCosCache"
    inputs = ("positions", "queryIn", "keyIn", "cosSinCache")
    outputs = ("queryOut", "keyOut")
    products = _products.describe(A2_A3)

    def dtype_table(self):
        return {"positions": [dtypes.acl("INT64")], "queryIn": list(ROPE_DTYPES), "keyIn": list(ROPE_DTYPES),
                "cosSinCache": list(ROPE_DTYPES), "queryOut": list(ROPE_DTYPES), "keyOut": list(ROPE_DTYPES)}

    def check(self, a):
        checks.not_null(a, "positions", "queryIn", "keyIn", "cosSinCache", "queryOut", "keyOut")
        checks.dtype_in("positions", a.positions, [dtypes.acl("INT64")])
        check_dtypes([("queryIn", a.queryIn), ("keyIn", a.keyIn), ("cosSinCache", a.cosSinCache),
                      ("queryOut", a.queryOut), ("keyOut", a.keyOut)])
        _products.check_supported(self.name, A2_A3)
        mrope = tuple(a.mropeSection or ())
        if a.positions.ndim not in (1, 2) or (a.positions.ndim == 2 and (a.positions.shape[0] != 3 or not mrope)):
            raise status.param_invalid("positions must be (numTokens,) or (3, numTokens) with mropeSection.")
        tokens = a.positions.shape[-1]
        if a.cosSinCache.ndim != 2:
            raise status.param_invalid("cosSinCache must be 2-dimensional (maxSeqLen, rotaryDim).")
        rotary = a.cosSinCache.shape[1]
        if a.headSize <= 0 or rotary % 2 or rotary > a.headSize:
            raise status.param_invalid("cosSinCache's rotaryDim %d must be even and at most headSize %d."
                                       % (rotary, a.headSize))
        for name in ("queryIn", "keyIn"):
            t = getattr(a, name)
            if t.ndim != 2 or t.shape[0] != tokens or t.shape[1] % a.headSize:
                raise status.param_invalid("%s %s must be (numTokens %d, heads * headSize %d)."
                                           % (name, checks.shape_text(t.shape), tokens, a.headSize))
        for name, source in (("queryOut", a.queryIn), ("keyOut", a.keyIn)):
            if getattr(a, name).shape != source.shape:
                raise status.param_invalid("%s must have the shape of its input." % name)
        if mrope and sum(mrope) != rotary // 2:
            raise status.param_invalid("mropeSection must sum to rotaryDim / 2 (%d)." % (rotary // 2))

    def compute(self, a, v, workspace):
        positions = v["positions"].astype(np.int64)
        cache = fp32(v["cosSinCache"])
        rotary = cache.shape[1]
        half = rotary // 2
        if positions.ndim == 1:
            rows = cache[positions]
        else:  # multimodal: each section of the half-dimension takes its row of positions
            bounds = np.cumsum((0,) + tuple(a.mropeSection))
            rows = np.empty((positions.shape[1], rotary), np.float32)
            for i in range(len(a.mropeSection)):
                lo, hi = bounds[i], bounds[i + 1]
                picked = cache[positions[i % 3]]
                rows[:, lo:hi], rows[:, half + lo:half + hi] = picked[:, lo:hi], picked[:, half + lo:half + hi]
        cos, sin = rows[:, None, :half], rows[:, None, half:]
        if a.isNeoxStyle:
            cos, sin, mode = np.concatenate((cos, cos), -1), np.concatenate((sin, sin), -1), HALF
        else:
            cos, sin, mode = np.repeat(cos, 2, -1), np.repeat(sin, 2, -1), INTERLEAVE
        for src, dst in (("queryIn", "queryOut"), ("keyIn", "keyOut")):
            x = fp32(v[src]).reshape(positions.shape[-1], -1, a.headSize)
            y = x.copy()
            y[..., :rotary] = apply(x[..., :rotary], cos, sin, mode)
            P.store(v[dst], y.reshape(v[dst].shape))
