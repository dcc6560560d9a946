"""mcdnnGetMultiHeadAttnBuffers, mcdnnGetMultiHeadAttnWeights, mcdnnMultiHeadAttnForward,
mcdnnMultiHeadAttnBackwardData and mcdnnMultiHeadAttnBackwardWeights (attention_layout.py: the buffers;
attention_math.py: the arithmetic).

The forward in training mode (a reserve space given) keeps the projections, attention weights and the
heads' results; BackwardData reads them and dout, writes dqueries, dkeys, dvalues (not the residuals'
gradient, which is dout itself, as cuDNN documents) and keeps the gradients at the projections for
BackwardWeights, which must follow it and adds (MCDNN_WGRAD_MODE_ADD) or writes (SET) dweights. With
currIdx >= 0 (inference) only that query step is computed. Outputs past a query sequence's length take
oDesc's padding fill, or are left as they were. The workspace is not used (size 0). Values are computed
in the math type (fp32 for HALF and FLOAT, fp64 for DOUBLE) and rounded once into the outputs' type.

BAD_PARAM: NULL descriptors or pointers, sequence data whose vector lengths are not the descriptor's
sizes, whose batch, beam or time dims disagree or exceed the descriptor's maxima, residuals with an output
length other than qSize, short weight or reserve buffers, currIdx past the queries or non-negative in
training. NOT_SUPPORTED: attention dropout with a probability above 0 (opemu does not emulate it)."""
import numpy as np

from opemu.core import device, mcdnn
from opemu.core.headers import enum
from opemu.ops.mcdnn import attention_math as am
from opemu.ops.mcdnn.attention_layout import KIND, Attention, canonical, lengths, seq_elements, seq_shape
from opemu.ops.mcdnn.bn_common import byte_tensor
from opemu.ops.mcdnn.rnn_queries import describe

WGRAD = enum("mcdnn/mcdnn_adv_train.h", "mcdnnWgradMode_t")


class GetMultiHeadAttnBuffers(mcdnn.McdnnOp):
    name = "mcdnnGetMultiHeadAttnBuffers"
    host_only = True

    def check(self, a):
        mcdnn.require(a, "attnDesc", "weightSizeInBytes", "workSpaceSizeInBytes")

    def compute(self, a, v):
        layout = Attention(a.attnDesc)
        cast = device.ffi.cast
        cast("size_t *", a.weightSizeInBytes)[0] = layout.weight_elements * layout.dtype.itemsize
        cast("size_t *", a.workSpaceSizeInBytes)[0] = 0
        if not mcdnn.is_null(a.reserveSpaceSizeInBytes):
            cast("size_t *", a.reserveSpaceSizeInBytes)[0] = layout.max_reserve_bytes()


class GetMultiHeadAttnWeights(mcdnn.McdnnOp):
    name = "mcdnnGetMultiHeadAttnWeights"
    host_only = True
    raw = ("wDesc",)

    def check(self, a):
        mcdnn.require(a, "attnDesc", "weights", "wAddr")
        if a.wKind not in KIND.values():
            raise mcdnn.bad_param("wKind %d is not an mcdnnMultiHeadAttnWeightKind_t" % a.wKind)
        layout = a._layout = Attention(a.attnDesc)
        need = layout.weight_elements * layout.dtype.itemsize
        if a.weightSizeInBytes < need:
            raise mcdnn.bad_param("weightSizeInBytes %d is less than mcdnnGetMultiHeadAttnBuffers' %d"
                                  % (a.weightSizeInBytes, need))

    def compute(self, a, v):
        layout = a._layout
        where = device.ffi.cast("void **", a.wAddr)
        place = layout.kinds.get(a.wKind)
        if place is None:
            where[0] = device.ffi.NULL
            describe(a.wDesc, a.attnDesc.dtype_code, ())
            return
        offset, dims, strides = place
        base = int(device.ffi.cast("uintptr_t", a.weights))
        where[0] = device.ffi.cast("void *", base + offset * layout.dtype.itemsize)
        if a.wDesc is not None:
            describe(a.wDesc, a.attnDesc.dtype_code, dims)
            d = device.ffi.cast("struct mcdnnTensorStruct *", a.wDesc)
            for i, stride in enumerate(strides):
                d.strideA[i] = stride


def _seq_desc(seq):
    return mcdnn.Tensor(seq.dtype_code, (seq_elements(seq),), (1,))


def check_problem(a, q, k, v, o):
    """The sequence data against the attention descriptor; sets the sizes the routines use."""
    attn = a.attnDesc
    layout = a._layout = Attention(attn)
    for name, seq in (("qDesc", q), ("kDesc", k), ("vDesc", v), ("oDesc", o)):
        if seq is not None and seq.dtype_code != attn.dtype_code:
            raise mcdnn.bad_param("%s has data type %s, the attention descriptor %s"
                                  % (name, mcdnn.type_name(seq.dtype_code), mcdnn.type_name(attn.dtype_code)))
    batch, beam, tq, qv = seq_shape(q)
    kb, k_beam, tk, kv = seq_shape(k)
    vb, v_beam, tv, vv = seq_shape(v)
    expected_kv_beam = beam if layout.one_to_one else 1
    if (qv, kv, vv) != (attn.q_size, attn.k_size, attn.v_size):
        raise mcdnn.bad_param("the vector lengths of q, k, v (%d, %d, %d) are not qSize, kSize, vSize (%d, %d, %d)"
                              % (qv, kv, vv, attn.q_size, attn.k_size, attn.v_size))
    if kb != batch or vb != batch or (k_beam, v_beam) != (expected_kv_beam, expected_kv_beam) or tk != tv:
        raise mcdnn.bad_param("keys and values must have the queries' batch, %d beam(s) (the query map) and one time "
                              "length" % expected_kv_beam)
    if batch > attn.max_batch or beam > attn.max_beam or tq > attn.qo_max or tk > attn.kv_max:
        raise mcdnn.bad_param("the sequence data exceed the attention descriptor's maxima (batch %d, beam %d, "
                              "qo %d, kv %d)" % (attn.max_batch, attn.max_beam, attn.qo_max, attn.kv_max))
    if o is not None and seq_shape(o) != (batch, beam, tq, layout.o_len):
        raise mcdnn.bad_param("oDesc must match qDesc with vector length %d" % layout.o_len)
    for dropout in (attn.attn_dropout, attn.post_dropout):
        if dropout is not None and dropout.p > 0:
            raise mcdnn.not_supported("attention dropout (p %g) is not emulated by opemu" % dropout.p)
    a._dims = (batch, beam, expected_kv_beam, tq, tk)
    need = layout.weight_elements * layout.dtype.itemsize
    if a.weightSizeInBytes < need:
        raise mcdnn.bad_param("weightSizeInBytes %d is less than mcdnnGetMultiHeadAttnBuffers' %d"
                              % (a.weightSizeInBytes, need))
    if need:
        mcdnn.require(a, "weights")
    a._weights_desc = mcdnn.Tensor(attn.dtype_code, (layout.weight_elements,), (1,)) if need else None


def _windows(a, tq):
    ffi = device.ffi
    mcdnn.require(a, "loWinIdx", "hiWinIdx")
    lo = np.array(ffi.unpack(ffi.cast("int *", a.loWinIdx), tq), np.intp)
    hi = np.array(ffi.unpack(ffi.cast("int *", a.hiWinIdx), tq), np.intp)
    return lo, hi


def _reserve(a, required):
    layout = a._layout
    need = layout.reserve_bytes(*a._dims)
    a._reserve_desc = None
    if required or not mcdnn.is_null(a.reserveSpace):
        if a.reserveSpaceSizeInBytes < need:
            raise mcdnn.bad_param("reserveSpaceSizeInBytes %d is less than the %d bytes this problem keeps"
                                  % (a.reserveSpaceSizeInBytes, need))
        mcdnn.require(a, "reserveSpace")
        a._reserve_desc = byte_tensor(need)


def _weights(layout, v, name="weights"):
    raw = v[name]
    flat = raw.astype(layout.ct) if raw is not None else np.zeros(0, layout.ct)
    return layout.views(flat)


class _Forward:
    """The forward pass on canonical arrays: (output, kept fields)."""

    def __init__(self, a, v):
        layout = self.layout = a._layout
        ct = layout.ct
        self.q = canonical(v["queries"], a.qDesc).astype(ct)
        self.k = canonical(v["keys"], a.kDesc).astype(ct)
        self.vv = canonical(v["values"], a.vDesc).astype(ct)
        w = self.w = _weights(layout, v)
        heads = layout.heads
        batch, beam, kv_beam, tq, tk = a._dims
        self.beams = am.beam_map(layout.one_to_one, beam)
        self.qp = am.project(self.q, w.get("Q"), w.get("bQ"), heads)
        self.kp = am.project(self.k, w.get("K"), w.get("bK"), heads)
        self.vp = am.project(self.vv, w.get("V"), w.get("bV"), heads)
        len_kv = lengths(a.kDesc)[:, self.beams]
        self.mask = am.key_mask(len_kv, a._lo, a._hi, tk)
        self.attn, self.heads = am.attend(self.qp, am.gather_beams(self.kp, self.beams),
                                          am.gather_beams(self.vp, self.beams), self.mask, a.attnDesc.sm_scaler)
        self.out = am.output(self.heads, w.get("O"), w.get("bO"))


def _valid_queries(seq, tq):
    return np.arange(tq)[None, None, :] < lengths(seq)[:, :, None]   # (b, j, t)


class MultiHeadAttnForward(mcdnn.McdnnOp):
    name = "mcdnnMultiHeadAttnForward"
    tensors = {"queries": "_q", "residuals": "_q", "keys": "_k", "values": "_v", "out": "_o",
               "weights": "_weights_desc", "reserveSpace": "_reserve_desc"}
    outputs = ("out", "reserveSpace")

    def check(self, a):
        mcdnn.require(a, "attnDesc", "qDesc", "kDesc", "vDesc", "oDesc", "queries", "keys", "values", "out",
                      "devSeqLengthsQO", "devSeqLengthsKV")
        check_problem(a, a.qDesc, a.kDesc, a.vDesc, a.oDesc)
        tq = a._dims[3]
        if a.currIdx >= tq:
            raise mcdnn.bad_param("currIdx %d is past the %d query steps" % (a.currIdx, tq))
        training = not mcdnn.is_null(a.reserveSpace)
        if training and a.currIdx >= 0:
            raise mcdnn.bad_param("currIdx %d: training (a reserve space given) computes every step" % a.currIdx)
        if not mcdnn.is_null(a.residuals) and a._layout.o_len != a.attnDesc.q_size:
            raise mcdnn.bad_param("residuals need an output length (%d) equal to qSize (%d)"
                                  % (a._layout.o_len, a.attnDesc.q_size))
        _reserve(a, False)
        a._lo, a._hi = _windows(a, tq)
        a._q, a._k, a._v, a._o = (_seq_desc(s) for s in (a.qDesc, a.kDesc, a.vDesc, a.oDesc))

    def compute(self, a, v):
        f = _Forward(a, v)
        out = f.out
        if v["residuals"] is not None:
            out = out + canonical(v["residuals"], a.qDesc).astype(out.dtype)
        target = canonical(v["out"], a.oDesc)
        tq = a._dims[3]
        valid = _valid_queries(a.qDesc, tq)
        if a.currIdx >= 0:
            steps = np.zeros(tq, bool)
            steps[a.currIdx] = True
            valid = valid & steps
        target[valid] = out[valid]
        if a.oDesc.fill is not None:
            padding = ~_valid_queries(a.qDesc, tq)
            target[padding] = a.oDesc.fill
        if v["reserveSpace"] is not None:
            kept = a._layout.reserve(v["reserveSpace"], *a._dims)
            kept["Qp"][...], kept["Kp"][...], kept["Vp"][...] = f.qp, f.kp, f.vp
            kept["A"][...], kept["H"][...] = f.attn, f.heads


class MultiHeadAttnBackwardData(mcdnn.McdnnOp):
    name = "mcdnnMultiHeadAttnBackwardData"
    tensors = {"dout": "_o", "dqueries": "_q", "queries": "_q", "dkeys": "_k", "keys": "_k", "dvalues": "_v",
               "values": "_v", "weights": "_weights_desc", "reserveSpace": "_reserve_desc"}
    outputs = ("dqueries", "dkeys", "dvalues", "reserveSpace")

    def check(self, a):
        mcdnn.require(a, "attnDesc", "doDesc", "dqDesc", "dkDesc", "dvDesc", "dout", "dqueries", "dkeys", "dvalues",
                      "queries", "keys", "values", "devSeqLengthsDQDO", "devSeqLengthsDKDV")
        check_problem(a, a.dqDesc, a.dkDesc, a.dvDesc, a.doDesc)
        _reserve(a, True)
        a._lo, a._hi = _windows(a, a._dims[3])
        a._q, a._k, a._v, a._o = (_seq_desc(s) for s in (a.dqDesc, a.dkDesc, a.dvDesc, a.doDesc))

    def compute(self, a, v):
        layout = a._layout
        ct, heads = layout.ct, layout.heads
        w = _weights(layout, v)
        kept = layout.reserve(v["reserveSpace"], *a._dims)
        batch, beam, kv_beam, tq, tk = a._dims
        beams = am.beam_map(layout.one_to_one, beam)
        dout = canonical(v["dout"], a.doDesc).astype(ct) * _valid_queries(a.dqDesc, tq)[..., None]
        dheads = am.output_back(dout, w.get("O"), heads, layout.v_len)
        dqp, dkp, dvp = am.attend_back(dheads, kept["A"], kept["Qp"], am.gather_beams(kept["Kp"], beams),
                                       am.gather_beams(kept["Vp"], beams), a.attnDesc.sm_scaler)
        dkp, dvp = am.scatter_beams(dkp, beams, kv_beam), am.scatter_beams(dvp, beams, kv_beam)
        kept["dQp"][...], kept["dKp"][...], kept["dVp"][...], kept["dH"][...] = dqp, dkp, dvp, dheads
        for name, desc, d, weight in (("dqueries", a.dqDesc, dqp, w.get("Q")), ("dkeys", a.dkDesc, dkp, w.get("K")),
                                      ("dvalues", a.dvDesc, dvp, w.get("V"))):
            canonical(v[name], desc)[...] = am.project_back(d, weight)


class MultiHeadAttnBackwardWeights(mcdnn.McdnnOp):
    name = "mcdnnMultiHeadAttnBackwardWeights"
    tensors = {"queries": "_q", "keys": "_k", "values": "_v", "dout": "_o", "weights": "_weights_desc",
               "dweights": "_weights_desc", "reserveSpace": "_reserve_desc"}
    outputs = ("dweights",)

    def check(self, a):
        mcdnn.require(a, "attnDesc", "qDesc", "kDesc", "vDesc", "doDesc", "queries", "keys", "values", "dout",
                      "dweights")
        if a.addGrad not in WGRAD.values():
            raise mcdnn.bad_param("addGrad %d is not an mcdnnWgradMode_t" % a.addGrad)
        check_problem(a, a.qDesc, a.kDesc, a.vDesc, a.doDesc)
        _reserve(a, True)
        a._q, a._k, a._v, a._o = (_seq_desc(s) for s in (a.qDesc, a.kDesc, a.vDesc, a.doDesc))

    def compute(self, a, v):
        layout = a._layout
        ct = layout.ct
        kept = layout.reserve(v["reserveSpace"], *a._dims)
        tq = a._dims[3]
        q, k = canonical(v["queries"], a.qDesc).astype(ct), canonical(v["keys"], a.kDesc).astype(ct)
        values = canonical(v["values"], a.vDesc).astype(ct)
        dout = canonical(v["dout"], a.doDesc).astype(ct) * _valid_queries(a.qDesc, tq)[..., None]
        flat = np.zeros(layout.weight_elements, ct)
        g = layout.views(flat)
        for name, x, d in (("Q", q, kept["dQp"]), ("K", k, kept["dKp"]), ("V", values, kept["dVp"])):
            if name in g:
                g[name][...] = np.einsum("bjti,bjthp->ihp", x, d, optimize=True)
            if "b" + name in g:
                g["b" + name][...] = d.sum(axis=(0, 1, 2))
        if "O" in g:
            g["O"][...] = np.einsum("bjthv,bjto->hvo", kept["H"], dout, optimize=True)
        if "bO" in g:
            g["bO"][...] = dout.sum(axis=(0, 1, 2))
        target = v["dweights"]
        if target is None:
            return
        if a.addGrad == WGRAD["MCDNN_WGRAD_MODE_ADD"]:
            flat += target.astype(ct)
        target[...] = flat
