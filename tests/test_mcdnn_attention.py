"""mcDNN multi-head attention against torch.nn.functional.multi_head_attention_forward (separate projection
weights placed through mcdnnGetMultiHeadAttnWeights' addresses and strides): the forward with biases,
causal windows, key lengths and residuals, BackwardData's input gradients and BackwardWeights' gradients;
beams and disabled projections against a float64 reference; the buffers and the documented statuses."""
import ctypes
import math

import numpy as np
import pytest
import torch

from conftest import opemu_only
from mc import (BAD_PARAM, DOUBLE, FLOAT, NOT_SUPPORTED, NUMPY, SUCCESS, Desc, blank, c_double, c_int, c_void_p, call,
                flat_device, handle, lib, recent_error)

pytestmark = [opemu_only]
assert handle
TIME, BATCH, BEAM, VECT = range(4)
Q_W, K_W, V_W, O_W, Q_B, K_B, V_B, O_B = range(8)
ONE_TO_ONE, BIASES = 1, 2
INT32 = 4


class SeqData:
    """Sequence data (batch, beam, time, vector) stored time-major: axes TIME, BATCH, BEAM, VECT."""

    def __init__(self, code, values, lengths, fill=None):
        self.values = np.asarray(values)
        batch, beam, time, vector = self.values.shape
        self.handle = c_void_p()
        assert lib().mcdnnCreateSeqDataDescriptor(ctypes.byref(self.handle)) == 0
        dims = [0] * 4
        dims[TIME], dims[BATCH], dims[BEAM], dims[VECT] = time, batch, beam, vector
        fill_holder = None if fill is None else np.array([fill], NUMPY[code])
        self._fill = fill_holder
        assert call("mcdnnSetSeqDataDescriptor", self.handle, c_int(code), c_int(4), (c_int * 4)(*dims),
                    (c_int * 4)(TIME, BATCH, BEAM, VECT), ctypes.c_size_t(batch * beam),
                    (c_int * (batch * beam))(*np.asarray(lengths).reshape(-1)),
                    None if fill_holder is None else fill_holder.ctypes.data) == 0, recent_error()
        self.device = flat_device(self.values.transpose(2, 0, 1, 3), code)

    def read(self, tensor=None):
        t = tensor or self.device
        batch, beam, time, vector = self.values.shape
        return t.read().reshape(time, batch, beam, vector).transpose(1, 2, 0, 3)


class Attention:
    def __init__(self, handle, heads, q, k, v, proj, o_proj, t_q, t_k, batch, beam=1, mode=BIASES, code=DOUBLE,
                 scaler=None):
        self.h, self.heads, self.code = handle, heads, code
        self.handle = c_void_p()
        assert lib().mcdnnCreateAttnDescriptor(ctypes.byref(self.handle)) == 0
        self.scaler = scaler if scaler is not None else 1 / math.sqrt(proj or q)
        self.status = call("mcdnnSetAttnDescriptor", self.handle, ctypes.c_uint(mode), c_int(heads),
                           c_double(self.scaler), c_int(code), c_int(code), c_int(0), None, None, c_int(q), c_int(k),
                           c_int(v), c_int(proj), c_int(proj), c_int(proj), c_int(o_proj), c_int(t_q), c_int(t_k),
                           c_int(batch), c_int(beam))
        if self.status != SUCCESS:
            return
        sizes = [ctypes.c_size_t() for _ in range(3)]
        assert call("mcdnnGetMultiHeadAttnBuffers", handle, self.handle, *[ctypes.byref(s) for s in sizes]) == 0
        self.weight_bytes, self.work_bytes, self.reserve_bytes = (s.value for s in sizes)
        item = np.dtype(NUMPY[code]).itemsize
        self.weights = blank(self.weight_bytes // item, code)
        self.host = np.zeros(self.weight_bytes // item)

    def place(self, kind, value_at):
        """Writes kind's tensor through the address and strides the query answers; value_at(h, r, c)."""
        desc, address = Desc(FLOAT, [1, 1, 1]), c_void_p()
        assert call("mcdnnGetMultiHeadAttnWeights", self.h, self.handle, c_int(kind), ctypes.c_size_t(self.weight_bytes),
                    self.weights.address, desc.handle, ctypes.byref(address)) == 0, recent_error()
        dims, strides = nd(desc)
        start = (address.value - self.weights.address.value) // np.dtype(NUMPY[self.code]).itemsize
        for index in np.ndindex(*dims):
            self.host[start + sum(i * s for i, s in zip(index, strides))] = value_at(*index)
        return dims, strides

    def upload(self):
        data = self.host.astype(NUMPY[self.code]).view(np.uint8)
        assert lib().mcMemcpy(self.weights.address, data.ctypes.data, data.nbytes, 1) == 0

    def gather(self, kind, buffer):
        """The gradient buffer's tensor of `kind` as an array indexed (h, r, c)."""
        desc, address = Desc(FLOAT, [1, 1, 1]), c_void_p()
        assert call("mcdnnGetMultiHeadAttnWeights", self.h, self.handle, c_int(kind), ctypes.c_size_t(self.weight_bytes),
                    buffer.address, desc.handle, ctypes.byref(address)) == 0
        dims, strides = nd(desc)
        flat = buffer.read().reshape(-1)
        start = (address.value - buffer.address.value) // np.dtype(NUMPY[self.code]).itemsize
        out = np.zeros(dims)
        for index in np.ndindex(*dims):
            out[index] = flat[start + sum(i * s for i, s in zip(index, strides))]
        return out


def nd(desc):
    code, nb = c_int(), c_int()
    dims, strides = (c_int * 8)(), (c_int * 8)()
    assert lib().mcdnnGetTensorNdDescriptor(desc.handle, 8, ctypes.byref(code), ctypes.byref(nb), dims, strides) == 0
    return list(dims[:nb.value]), list(strides[:nb.value])


def torch_setup(embed, heads, seed):
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(embed, heads, dtype=torch.float64)
    wq, wk, wv = mha.in_proj_weight.detach().chunk(3)
    bq, bk, bv = mha.in_proj_bias.detach().chunk(3)
    with torch.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    bq, bk, bv = mha.in_proj_bias.detach().chunk(3)
    return mha, (wq, wk, wv), (bq, bk, bv)


def load(att, mha, p):
    (wq, wk, wv), (bq, bk, bv) = mha.in_proj_weight.detach().chunk(3), mha.in_proj_bias.detach().chunk(3)
    for kind, w in ((Q_W, wq), (K_W, wk), (V_W, wv)):
        att.place(kind, lambda h, r, c, w=w: w[h * p + r, c].item())
    wo, bo = mha.out_proj.weight.detach(), mha.out_proj.bias.detach()
    att.place(O_W, lambda h, r, c: wo[r, h * p + c].item())
    for kind, b in ((Q_B, bq), (K_B, bk), (V_B, bv)):
        att.place(kind, lambda h, r, c, b=b: b[h * p + r].item())
    att.place(O_B, lambda h, r, c: bo[r].item())
    att.upload()


def run_forward(att, q, k, v, o_len, lo, hi, training, residuals=None, curr=-1):
    out = SeqData(att.code, np.zeros(q.values.shape[:3] + (o_len,)), np.full(q.values.shape[:2], q.values.shape[2]))
    reserve = blank(att.reserve_bytes, 6) if training else None
    qo = flat_device(np.array([q.values.shape[2]] * q.values.shape[0], np.int32), INT32)
    kv = flat_device(np.array([k.values.shape[2]] * k.values.shape[0], np.int32), INT32)
    status = call("mcdnnMultiHeadAttnForward", att.h, att.handle, c_int(curr), (c_int * len(lo))(*lo),
                  (c_int * len(hi))(*hi), qo.address, kv.address, q.handle, q.device.address,
                  residuals.device.address if residuals is not None else None, k.handle, k.device.address, v.handle,
                  v.device.address, out.handle, out.device.address, ctypes.c_size_t(att.weight_bytes),
                  att.weights.address, ctypes.c_size_t(0), None, ctypes.c_size_t(att.reserve_bytes if training else 0),
                  reserve.address if training else None)
    assert lib().mcDeviceSynchronize() == 0
    return status, out, reserve, (qo, kv)


def test_forward_and_gradients_match_torch(handle):
    embed, heads, t_q, t_k, batch = 8, 2, 5, 6, 3
    p = embed // heads
    mha, _, _ = torch_setup(embed, heads, 0)
    rng = np.random.default_rng(0)
    qv, kv_, vv = rng.standard_normal((batch, 1, t_q, embed)), rng.standard_normal((batch, 1, t_k, embed)), \
        rng.standard_normal((batch, 1, t_k, embed))
    att = Attention(handle, heads, embed, embed, embed, p, embed, t_q, t_k, batch)
    assert att.status == SUCCESS, recent_error()
    load(att, mha, p)
    q, k, v = (SeqData(DOUBLE, x, np.full((batch, 1), x.shape[2])) for x in (qv, kv_, vv))
    lo, hi = [0] * t_q, [t_k] * t_q
    status, out, reserve, lens = run_forward(att, q, k, v, embed, lo, hi, True)
    assert status == SUCCESS, recent_error()
    tq, tk, tv = (torch.tensor(x[:, 0].transpose(1, 0, 2), requires_grad=True) for x in (qv, kv_, vv))
    expected, _ = mha(tq, tk, tv, need_weights=False)
    np.testing.assert_allclose(out.read()[:, 0].transpose(1, 0, 2), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    gout = rng.standard_normal(expected.shape)
    (expected * torch.tensor(gout)).sum().backward()
    dout = SeqData(DOUBLE, gout.transpose(1, 0, 2)[:, None], np.full((batch, 1), t_q))
    dq, dk, dv = (SeqData(DOUBLE, np.zeros_like(x), np.full((batch, 1), x.shape[2])) for x in (qv, kv_, vv))
    assert call("mcdnnMultiHeadAttnBackwardData", handle, att.handle, (c_int * t_q)(*lo), (c_int * t_q)(*hi),
                lens[0].address, lens[1].address, dout.handle, dout.device.address, dq.handle, dq.device.address,
                q.device.address, dk.handle, dk.device.address, k.device.address, dv.handle, dv.device.address,
                v.device.address, ctypes.c_size_t(att.weight_bytes), att.weights.address, ctypes.c_size_t(0), None,
                ctypes.c_size_t(att.reserve_bytes), reserve.address) == SUCCESS, recent_error()
    dweights = blank(att.weight_bytes // 8, DOUBLE)
    assert call("mcdnnMultiHeadAttnBackwardWeights", handle, att.handle, c_int(1), q.handle, q.device.address,
                k.handle, k.device.address, v.handle, v.device.address, dout.handle, dout.device.address,
                ctypes.c_size_t(att.weight_bytes), att.weights.address, dweights.address, ctypes.c_size_t(0), None,
                ctypes.c_size_t(att.reserve_bytes), reserve.address) == SUCCESS, recent_error()
    assert lib().mcDeviceSynchronize() == 0
    for mine, theirs in ((dq, tq), (dk, tk), (dv, tv)):
        np.testing.assert_allclose(mine.read()[:, 0].transpose(1, 0, 2), theirs.grad.numpy(), rtol=1e-9, atol=1e-10)
    gq, gk, gv = mha.in_proj_weight.grad.chunk(3)
    for kind, g in ((Q_W, gq), (K_W, gk), (V_W, gv)):
        mine = att.gather(kind, dweights)   # (h, r, c) = grad[h p + r, c]
        np.testing.assert_allclose(mine.reshape(embed, embed), g.numpy(), rtol=1e-9, atol=1e-10)
    mine_o = att.gather(O_W, dweights)   # (h, o, v) = grad_out[o, h p + v]
    np.testing.assert_allclose(mine_o.transpose(1, 0, 2).reshape(embed, embed), mha.out_proj.weight.grad.numpy(),
                               rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(att.gather(O_B, dweights).reshape(-1), mha.out_proj.bias.grad.numpy(), rtol=1e-9)
    gbq = mha.in_proj_bias.grad.chunk(3)[0]
    np.testing.assert_allclose(att.gather(Q_B, dweights).reshape(-1), gbq.numpy(), rtol=1e-9, atol=1e-10)


def test_causal_windows_match_torchs_mask(handle):
    embed, heads, t, batch = 6, 3, 5, 2
    p = embed // heads
    mha, _, _ = torch_setup(embed, heads, 1)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, 1, t, embed))
    att = Attention(handle, heads, embed, embed, embed, p, embed, t, t, batch)
    load(att, mha, p)
    q = SeqData(DOUBLE, x, np.full((batch, 1), t))
    status, out, _, _ = run_forward(att, q, q, q, embed, [0] * t, list(range(1, t + 1)), False)
    assert status == SUCCESS, recent_error()
    tx = torch.tensor(x[:, 0].transpose(1, 0, 2))
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
    expected, _ = mha(tx, tx, tx, attn_mask=mask, need_weights=False)
    np.testing.assert_allclose(out.read()[:, 0].transpose(1, 0, 2), expected.detach().numpy(), rtol=1e-10, atol=1e-10)


def reference(q, k, v, w, heads, scaler, one_to_one, residual=None):
    """float64 attention of (b, j, t, i) arrays; w: q/k/v (in, h, p) or None, o (h, v, o) or None."""
    def proj(x, m):
        return np.einsum("bjti,ihp->bjthp", x, m) if m is not None else np.repeat(x[..., None, :], heads, 3)
    qp, kp, vp = proj(q, w["Q"]), proj(k, w["K"]), proj(v, w["V"])
    beams = np.arange(q.shape[1]) if one_to_one else np.zeros(q.shape[1], int)
    s = np.einsum("bjthp,bjshp->bjhts", qp, kp[:, beams]) * scaler
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    hd = np.einsum("bjhts,bjshv->bjthv", a, vp[:, beams])
    out = np.einsum("bjthv,hvo->bjto", hd, w["O"]) if w["O"] is not None else hd.reshape(hd.shape[:3] + (-1,))
    return out + (residual if residual is not None else 0)


@pytest.mark.parametrize("one_to_one", [False, True], ids=["all-to-one", "one-to-one"])
def test_beams_with_residuals_against_a_float64_reference(handle, one_to_one):
    heads, qs, ks, vs, proj, batch, beam, t_q, t_k = 2, 5, 4, 3, 3, 2, 3, 4, 5
    rng = np.random.default_rng(2)
    kv_beam = beam if one_to_one else 1
    qv, kv_, vv = rng.standard_normal((batch, beam, t_q, qs)), rng.standard_normal((batch, kv_beam, t_k, ks)), \
        rng.standard_normal((batch, kv_beam, t_k, vs))
    att = Attention(handle, heads, qs, ks, vs, proj, qs, t_q, t_k, batch, beam, mode=ONE_TO_ONE if one_to_one else 0)
    assert att.status == SUCCESS, recent_error()
    w = {name: rng.standard_normal(shape) for name, shape in (("Q", (qs, heads, proj)), ("K", (ks, heads, proj)),
                                                              ("V", (vs, heads, proj)), ("O", (heads, proj, qs)))}
    for kind, name in ((Q_W, "Q"), (K_W, "K"), (V_W, "V")):
        att.place(kind, lambda h, r, c, m=w[name]: m[c, h, r])
    att.place(O_W, lambda h, r, c: w["O"][h, c, r])
    att.upload()
    q, k, v = (SeqData(DOUBLE, x, np.full(x.shape[:2], x.shape[2])) for x in (qv, kv_, vv))
    status, out, _, _ = run_forward(att, q, k, v, qs, [0] * t_q, [t_k] * t_q, False, residuals=q)
    assert status == SUCCESS, recent_error()
    np.testing.assert_allclose(out.read(), reference(qv, kv_, vv, w, heads, att.scaler, one_to_one, residual=qv),
                               rtol=1e-10, atol=1e-10)


def test_projections_disabled_attend_to_the_inputs(handle):
    heads, size, batch, t = 1, 4, 2, 3
    rng = np.random.default_rng(3)
    x = rng.standard_normal((batch, 1, t, size))
    att = Attention(handle, heads, size, size, size, 0, 0, t, t, batch, mode=0)
    assert att.status == SUCCESS and att.weight_bytes == 0, recent_error()
    q = SeqData(DOUBLE, x, np.full((batch, 1), t))
    status, out, _, _ = run_forward(att, q, q, q, size, [0] * t, [t] * t, False)
    assert status == SUCCESS, recent_error()
    np.testing.assert_allclose(out.read(), reference(x, x, x, {"Q": None, "K": None, "V": None, "O": None}, heads,
                                                     att.scaler, False), rtol=1e-12)


def test_weight_kinds_of_a_disabled_projection_answer_null(handle):
    att = Attention(handle, 2, 4, 4, 4, 2, 0, 3, 3, 1, mode=0)
    desc, address = Desc(FLOAT, [1, 1, 1]), c_void_p(1)
    assert call("mcdnnGetMultiHeadAttnWeights", handle, att.handle, c_int(O_W), ctypes.c_size_t(att.weight_bytes),
                att.weights.address, desc.handle, ctypes.byref(address)) == SUCCESS
    assert address.value is None


def test_descriptor_statuses(handle):
    assert Attention(handle, 0, 4, 4, 4, 2, 4, 3, 3, 1).status == BAD_PARAM
    assert Attention(handle, 2, 4, 4, 4, 2, 4, 3, 3, 1, scaler=-1.0).status == BAD_PARAM
    assert Attention(handle, 2, 4, 6, 4, 0, 4, 3, 3, 1).status == BAD_PARAM   # q and k lengths differ
    d = c_void_p()
    assert lib().mcdnnCreateAttnDescriptor(ctypes.byref(d)) == 0
    assert call("mcdnnSetAttnDescriptor", d, ctypes.c_uint(0), c_int(1), c_double(1.0), c_int(FLOAT), c_int(DOUBLE),
                c_int(0), None, None, *[c_int(x) for x in (4, 4, 4, 2, 2, 2, 4, 3, 3, 1, 1)]) == NOT_SUPPORTED


def test_forward_rejects_sequences_past_the_descriptors_maxima(handle):
    att = Attention(handle, 1, 4, 4, 4, 2, 4, 2, 3, 1)
    x = np.zeros((1, 1, 3, 4))
    q = SeqData(DOUBLE, x, [[3]])
    status, _, _, _ = run_forward(att, q, q, q, 4, [0] * 3, [3] * 3, False)
    assert status == BAD_PARAM and "maxima" in recent_error()
