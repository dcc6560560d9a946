"""aclnnApplyAdamWQuant (ops-nn optim/apply_adam_w_quant): one AdamW step with 8-bit block-wise states
(bitsandbytes' paged 8-bit AdamW), in place on var, m, v (UINT8 codes into qmapM/qmapV) and their per-block
absolute maxima.

Per block of blockSize elements, as the system test's reference computes it (t = step + 1):

    m = qmapM[m]·absmaxM[b],  v = qmapV[v]·absmaxV[b]          (dequantised)
    g = grad·gnormScale;  m = β1·m + (1 − β1)·g;  v = β2·v + (1 − β2)·g²
    var += −lr·√(1 − β2^t)/(1 − β1^t) · m / (√v + ε·√(1 − β2^t));  var ·= 1 − lr·λ when λ > 0
    absmaxM[b] = max|m|, absmaxV[b] = max v;  m, v ← the index of the nearest qmap entry to m/absmax
    (the first of equals; with a signed map an index whose entry has the other sign moves one step back
    toward the value's side)

fp32 throughout, var rounded once into its dtype. Phase 1 (opbuild's generated check and the tiling): nulls →
dtypes (var, grad FLOAT/FLOAT16/BF16 alike; m, v UINT8; qmaps, absmaxes FLOAT; step INT64) → product (Atlas
A2/A3, the 950 line) → shapes: grad, m, v as var; absmax sizes ceil(numel/blockSize); blockSize 256."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P

DATA = P.codes("FLOAT FLOAT16 BF16")
CODES, FLOAT, INT64 = P.codes("UINT8"), P.codes("FLOAT"), P.codes("INT64")
LINES = ("A2", "A3", "950")
BLOCK = 256
F32 = np.dtype(np.float32)
CHUNK = 1 << 16


def nearest_codes(values, qmap):
    """The index of the qmap entry nearest each value (the first of equally near ones), then the sign rule."""
    order = np.argsort(qmap, kind="stable")
    ordered = qmap[order]
    high = np.clip(np.searchsorted(ordered, values), 0, qmap.size - 1)
    low = np.clip(high - 1, 0, qmap.size - 1)
    d_low, d_high = np.abs(values - ordered[low]), np.abs(values - ordered[high])
    pick_low = (d_low < d_high) | ((d_low == d_high) & (order[low] < order[high]))
    codes = np.where(pick_low, order[low], order[high]).astype(np.int64)
    if (qmap < 0).any():
        flip = values * qmap[codes] < 0
        codes = np.where(flip & (values > 0), codes + 1, np.where(flip & (values < 0), codes - 1, codes))
        codes = np.clip(codes, 0, qmap.size - 1)
    return codes


class ApplyAdamWQuant(AclnnOp):
    name = "aclnnApplyAdamWQuant"
    inputs = ("varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef", "absmaxVRef", "step")
    outputs = ("varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef")
    products = _products.describe(LINES)

    def dtype_table(self):
        return {"varRef": DATA, "grad": DATA, "mRef": CODES, "vRef": CODES, "qmapM": FLOAT, "qmapV": FLOAT,
                "absmaxMRef": FLOAT, "absmaxVRef": FLOAT, "step": INT64}

    def check(self, a):
        checks.not_null(a, *self.inputs)
        for name, allowed in self.dtype_table().items():
            checks.dtype_in(name, getattr(a, name), allowed)
        checks.dtype_match("grad", a.grad, a.varRef.dtype)
        _products.check_supported(self.name, LINES)
        tiling = status.ACLNN["ACLNN_ERR_INNER_TILING_ERROR"]
        if a.blockSize != BLOCK:
            raise status.VendorError(tiling, "blockSize must be %d, but got %d." % (BLOCK, a.blockSize))
        for name in ("grad", "mRef", "vRef"):
            if getattr(a, name).numel() != a.varRef.numel():
                raise status.VendorError(tiling, "%s must hold var's %d elements, but holds %d."
                                         % (name, a.varRef.numel(), getattr(a, name).numel()))
        blocks = -(-a.varRef.numel() // BLOCK)
        for name in ("absmaxMRef", "absmaxVRef"):
            if getattr(a, name).numel() != blocks:
                raise status.VendorError(tiling, "%s.size must be ceil(var.size/blockSize) = %d, but is %d."
                                         % (name, blocks, getattr(a, name).numel()))
        for name in ("qmapM", "qmapV"):
            if getattr(a, name).numel() != 256:
                raise status.VendorError(tiling, "%s must hold 256 entries, but holds %d."
                                         % (name, getattr(a, name).numel()))

    def compute(self, a, v, workspace):
        n = v["varRef"].size
        if n == 0:
            return
        var = P.as_compute(v["varRef"], F32).reshape(-1).copy()
        grad = P.as_compute(v["grad"], F32).reshape(-1) * np.float32(a.gnormScale)
        codes_m, codes_v = v["mRef"].reshape(-1).astype(np.int64), v["vRef"].reshape(-1).astype(np.int64)
        qmap_m, qmap_v = v["qmapM"].reshape(-1).astype(F32), v["qmapV"].reshape(-1).astype(F32)
        blocks = -(-n // BLOCK)
        block_of = np.arange(n) // BLOCK
        beta1, beta2, lr, eps = (np.float32(x) for x in (a.beta1, a.beta2, a.lr, a.eps))
        t = np.float32(v["step"].reshape(-1)[0]) + np.float32(1)
        bias1, bias2_sqrt = 1 - np.power(beta1, t), np.sqrt(1 - np.power(beta2, t))
        with np.errstate(all="ignore"):
            m = qmap_m[codes_m] * v["absmaxMRef"].reshape(-1).astype(F32)[block_of]
            s = qmap_v[codes_v] * v["absmaxVRef"].reshape(-1).astype(F32)[block_of]
            m = m * beta1 + (1 - beta1) * grad
            s = s * beta2 + (1 - beta2) * grad * grad
            var = var + (-lr * bias2_sqrt / bias1) * m / (np.sqrt(s) + eps * bias2_sqrt)
            if a.weightDecay > 0:
                var = var * (1 - lr * np.float32(a.weightDecay))
            padded = blocks * BLOCK
            abs_m = np.pad(np.abs(m), (0, padded - n)).reshape(blocks, BLOCK).max(axis=1)
            abs_v = np.pad(s, (0, padded - n), constant_values=-np.inf).reshape(blocks, BLOCK).max(axis=1)
            one = np.float32(1)
            new_m = np.empty(n, np.int64)
            new_v = np.empty(n, np.int64)
            for lo in range(0, n, CHUNK):
                part = slice(lo, min(lo + CHUNK, n))
                owner = block_of[part]
                new_m[part] = nearest_codes(m[part] / np.where(abs_m[owner] == 0, one, abs_m[owner]), qmap_m)
                new_v[part] = nearest_codes(s[part] / np.where(abs_v[owner] == 0, one, abs_v[owner]), qmap_v)
        P.store(v["varRef"], var.reshape(v["varRef"].shape))
        v["mRef"][...] = new_m.astype(np.uint8).reshape(v["mRef"].shape)
        v["vRef"][...] = new_v.astype(np.uint8).reshape(v["vRef"].shape)
        v["absmaxMRef"][...] = abs_m.reshape(v["absmaxMRef"].shape)
        v["absmaxVRef"][...] = abs_v.reshape(v["absmaxVRef"].shape)
