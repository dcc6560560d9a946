"""mcdnnLRNCrossChannelForward / mcdnnLRNCrossChannelBackward (reference mcdnn.md §3.4; seed 3.1.1.14).

Channel c is normalized over the window [c - lookBehind, c + lookAhead], lookBehind = (n-1)//2,
lookAhead = n-1-lookBehind (channels outside [0, C) count 0):
    scale_c = k + alpha/n * Σ x_j²        y_c = x_c * scale_c^-beta
    dx_c = dy_c * scale_c^-beta - (2*alpha*beta/n) * x_c * Σ_{i: c in window(i)} dy_i * y_i / scale_i
(the backward uses the y passed in, as the library does). alpha, beta and k are cast to the tensor's
data type first. For odd n the window is PyTorch's local_response_norm's; for even n it is its mirror.

BAD_PARAM: a NULL x or y (or descriptor, or dy/dx backward); 2 or fewer dimensions; LRN descriptor
parameters outside their ranges; a 5-D tensor that is not NCDHW DHW-packed; an invalid lrnMode.
NOT_SUPPORTED: data types differ; dims differ; negative strides; other than 4-D or 5-D tensors."""
import numpy as np

from opemu.core import mcdnn
from opemu.core.mcdnn import LRN_MODE


def window_sum(a, axis, behind, ahead):
    """out[i] = Σ a[i-behind .. i+ahead] along `axis`, zero outside."""
    out = a.copy()
    n = a.shape[axis]
    for d in range(-behind, ahead + 1):
        if d == 0 or abs(d) >= n:
            continue
        dst = [slice(None)] * a.ndim
        src = [slice(None)] * a.ndim
        dst[axis] = slice(max(0, -d), n - max(0, d))
        src[axis] = slice(max(0, d), n + min(0, d))
        out[tuple(dst)] += a[tuple(src)]
    return out


def window(n):
    behind = (n - 1) // 2
    return behind, n - 1 - behind


def parameters(lrn, tensor):
    """alpha, beta, k cast to the tensor's data type, as compute-type scalars."""
    ct = tensor.compute_dtype.type
    return tuple(ct(np.array(value, dtype=tensor.dtype).astype(np.float64)) for value in (lrn.alpha, lrn.beta, lrn.k))


def forward(lrn, tensor, x):
    alpha, beta, k = parameters(lrn, tensor)
    behind, ahead = window(lrn.n)
    scale = window_sum(x * x, 1, behind, ahead)
    scale *= alpha / lrn.n
    scale += k
    return x * scale ** -beta


def backward(lrn, tensor, y, dy, x):
    alpha, beta, k = parameters(lrn, tensor)
    behind, ahead = window(lrn.n)
    scale = window_sum(x * x, 1, behind, ahead)
    scale *= alpha / lrn.n
    scale += k
    t = dy * y
    t /= scale
    spread = window_sum(t, 1, ahead, behind)
    spread *= x
    spread *= 2 * alpha * beta / lrn.n
    g = scale ** -beta
    g *= dy
    g -= spread
    return g


def check_tensors(a, named):
    if a.lrnMode not in LRN_MODE.values():
        raise mcdnn.bad_param("invalid mcdnnLRNMode_t %d" % a.lrnMode)
    for name, t in named:
        if t.ndim <= 2:
            raise mcdnn.bad_param("%s has %d dimensions: LRN needs more than 2" % (name, t.ndim))
    mcdnn.lrn_in_range(a.normDesc)
    for name, t in named:
        if t.ndim == 5 and (t.strides[4] != 1 or t.strides[3] != t.shape[4] or t.strides[2] != t.shape[3] * t.shape[4]):
            raise mcdnn.bad_param("%s is 5-D but not NCDHW DHW-packed (strides %s)" % (name, list(t.strides)))
    mcdnn.same_type(mcdnn.not_supported, *named)
    mcdnn.same_dims(mcdnn.not_supported, *named)
    for name, t in named:
        if min(t.strides) < 0:
            raise mcdnn.not_supported("%s has a negative stride" % name)
        if t.ndim not in (4, 5):
            raise mcdnn.not_supported("only 4-D and 5-D tensors are supported, %s is %d-D" % (name, t.ndim))
    mcdnn.floating(*named[0])


class LRNCrossChannelForward(mcdnn.McdnnOp):
    name = "mcdnnLRNCrossChannelForward"
    tensors = {"x": "xDesc", "y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        mcdnn.require(a, "normDesc", "xDesc", "yDesc", "x", "y")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        check_tensors(a, [("xDesc", a.xDesc), ("yDesc", a.yDesc)])

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype

        def run(p):
            mcdnn.write(p["y"], forward(a.normDesc, a.xDesc, mcdnn.as_compute(p["x"], ct)), a.alpha_value,
                        a.beta_value)
        mcdnn.by_batch(v, run)


class LRNCrossChannelBackward(mcdnn.McdnnOp):
    name = "mcdnnLRNCrossChannelBackward"
    tensors = {"y": "yDesc", "dy": "dyDesc", "x": "xDesc", "dx": "dxDesc"}
    outputs = ("dx",)

    def check(self, a):
        mcdnn.require(a, "normDesc", "x", "y", "xDesc", "yDesc", "dyDesc", "dxDesc", "dy", "dx")
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")
        check_tensors(a, [("xDesc", a.xDesc), ("yDesc", a.yDesc), ("dyDesc", a.dyDesc), ("dxDesc", a.dxDesc)])

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype

        def run(p):
            y, dy, x = (mcdnn.as_compute(p[k], ct) for k in ("y", "dy", "x"))
            mcdnn.write(p["dx"], backward(a.normDesc, a.xDesc, y, dy, x), a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)
