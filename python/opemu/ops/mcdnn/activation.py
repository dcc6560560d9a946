"""mcdnnActivationForward / mcdnnActivationBackward (reference mcdnn.md §3.8; seed 3.1.1.1).

Forward, as cuDNN's ops_infer: BAD_PARAM for a NULL argument, dims or data types of x and y that
differ, or an in-place call (x == y) whose strides differ. Backward, as the seed: BAD_PARAM when dy
and dx are the same memory with different strides; NOT_SUPPORTED when the dims of the tensors differ,
their data types differ, or the strides of y and dy, or of x and dx, differ.

CLIPPED_RELU clamps to [0, coef]; ELU's coef is its alpha; RELU ignores coef (as real cuDNN does);
SWISH is x*sigmoid(swish_beta*x); IDENTITY passes values through (opemu implements it for both
routines). MCDNN_NOT_PROPAGATE_NAN makes RELU / CLIPPED_RELU map NaN to 0."""
import functools

import numpy as np

from opemu.core import kernels, mcdnn, parallel, scratch
from opemu.core.mcdnn import ACTIVATION as M


_BLOCK = 1 << 16  # elements per block of the direct backward: ~1 MiB of operands, in L2


def _sigmoid(z):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-z))


def forward(desc, x):
    mode = desc.mode
    if mode == M["MCDNN_ACTIVATION_SIGMOID"]:
        return _sigmoid(x)
    if mode == M["MCDNN_ACTIVATION_RELU"]:
        return np.maximum(x, 0) if desc.nan else np.fmax(x, 0)
    if mode == M["MCDNN_ACTIVATION_TANH"]:
        return np.tanh(x)
    if mode == M["MCDNN_ACTIVATION_CLIPPED_RELU"]:
        coef = x.dtype.type(desc.coef)
        return np.minimum(np.maximum(x, 0), coef) if desc.nan else np.fmin(np.fmax(x, 0), coef)
    if mode == M["MCDNN_ACTIVATION_ELU"]:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(x > 0, x, x.dtype.type(desc.coef) * np.expm1(x))
    if mode == M["MCDNN_ACTIVATION_SWISH"]:
        return x * _sigmoid(x.dtype.type(desc.swish_beta) * x)
    return x.copy()  # IDENTITY


_BITS = {4: np.int32, 8: np.int64}


def _relu_backward(dy, x, out):
    """dx = dy where x > 0, else +0 (x NaN included): dy's bits times the 0/1 integer (x > 0), so an
    infinite or NaN dy where x <= 0 still gives 0, in two passes."""
    bits = _BITS[dy.dtype.itemsize]
    mask = out.view(bits) if not np.shares_memory(out, dy) else scratch.buffer("relu mask", out.shape, bits)
    np.greater(x, 0, out=mask, casting="unsafe")
    np.multiply(mask, dy.view(bits), out=out.view(bits))
    return out


def direct_kernel(desc):
    """For RELU, SIGMOID and TANH: kernel(y, dy, x, out, g) writing the gradient into `out` (1-D, the
    inputs' type, which is the compute type), with `g` an integer (RELU) or float temporary the size of
    `out` that is `out` itself unless out shares memory with an input it still needs. The operations
    and their order are backward()'s. None for the other modes."""
    mode = desc.mode
    if mode == M["MCDNN_ACTIVATION_RELU"]:
        def relu(y, dy, x, out, g):
            np.greater(x, 0, out=g, casting="unsafe")
            np.multiply(g, dy.view(g.dtype), out=out.view(g.dtype))
        return relu, ("dy",), True
    if mode == M["MCDNN_ACTIVATION_SIGMOID"]:
        def sigmoid(y, dy, x, out, g):  # (1 - y) * y * dy
            np.subtract(1, y, out=g)
            np.multiply(g, y, out=g)
            np.multiply(g, dy, out=out)
        return sigmoid, ("dy", "y"), False
    if mode == M["MCDNN_ACTIVATION_TANH"]:
        def tanh(y, dy, x, out, g):  # (1 - y*y) * dy
            np.multiply(y, y, out=g)
            np.subtract(1, g, out=g)
            np.multiply(g, dy, out=out)
        return tanh, ("dy", "y"), False
    return None


def _transcendental(desc, x, e):
    """What the C kernel takes from NumPy (its exp is not libm's), written into e: exp(min(x, 0)) for
    ELU, sigmoid(beta*x) for SWISH, computed as backward() does."""
    with np.errstate(over="ignore", invalid="ignore"):
        if desc.mode == M["MCDNN_ACTIVATION_ELU"]:
            np.minimum(x, 0, out=e)
            np.exp(e, out=e)
        elif desc.mode == M["MCDNN_ACTIVATION_SWISH"]:
            np.multiply(x.dtype.type(desc.swish_beta), x, out=e)
            np.negative(e, out=e)
            np.exp(e, out=e)
            np.add(1, e, out=e)
            np.divide(1, e, out=e)
        else:
            return kernels.null()
    return kernels.address(e)


def _one_call(desc, y, dy, x, dx, pieces=1, streaming=None):
    """The C kernel's call over all of dx in `pieces` parts (parallel.c_pieces), its arguments bound, when it
    takes these 1-D dense views in one call (no exp to take first), else None. `streaming` (default: by dx's
    size) writes dx by non-temporal stores."""
    lib = kernels.lib()
    if (lib is None or desc.mode in (M["MCDNN_ACTIVATION_ELU"], M["MCDNN_ACTIVATION_SWISH"])
            or not kernels.dense(y, dy, x, dx) or not kernels.apart(dx, y, dy, x)):
        return None
    streaming = kernels.streaming(dx) if streaming is None else int(streaming)
    return functools.partial(lib.opemu_kernel_activation_backward, pieces, streaming, desc.mode, dx.itemsize,
                             desc.coef, desc.swish_beta, kernels.address(y), kernels.address(dy), kernels.address(x),
                             kernels.null(), kernels.address(dx), dx.size)


def c_backward(desc, y, dy, x, dx):
    """backward() into dx by the C kernel, on 1-D dense views; False when it does not apply."""
    lib = kernels.lib()
    if lib is None or not kernels.dense(y, dy, x, dx) or not kernels.apart(dx, y, dy, x):
        return False
    one = _one_call(desc, y, dy, x, dx)
    if one is not None:  # one call over everything, on the views themselves
        return one() == 0
    size, streaming = dx.itemsize, kernels.streaming(dx)
    e = scratch.buffer("activation exp", (min(_BLOCK, dx.size),), dx.dtype)
    for lo in range(0, dx.size, _BLOCK):
        hi = min(lo + _BLOCK, dx.size)
        address = _transcendental(desc, x[lo:hi], e[:hi - lo])
        if lib.opemu_kernel_activation_backward(1, streaming, desc.mode, size, desc.coef, desc.swish_beta,
                                                kernels.address(y[lo:]), kernels.address(dy[lo:]),
                                                kernels.address(x[lo:]), address, kernels.address(dx[lo:]), hi - lo):
            return False
    return True


def c_forward(desc, x, y, pieces=1, streaming=None):
    """forward() into y by the C kernel (RELU, CLIPPED_RELU, IDENTITY) in `pieces` parts, on 1-D dense views;
    False when it does not apply. `streaming` as _one_call's."""
    lib = kernels.lib()
    if lib is None or not kernels.dense(x, y) or not kernels.apart(y, x):
        return False
    streaming = kernels.streaming(y) if streaming is None else int(streaming)
    return lib.opemu_kernel_activation_forward(pieces, streaming, desc.mode, x.itemsize, int(desc.nan),
                                               desc.coef, kernels.address(x), kernels.address(y), x.size) == 0


def backward(desc, y, dy, x, out=None):
    """The gradient; written into `out` (and `out` returned) when given and the mode allows it."""
    mode = desc.mode
    if mode == M["MCDNN_ACTIVATION_SIGMOID"]:
        g = 1 - y
        g *= y
        return np.multiply(g, dy, out=out if out is not None else g)
    if mode == M["MCDNN_ACTIVATION_RELU"]:
        return _relu_backward(dy, x, out if out is not None else np.empty_like(dy))
    if mode == M["MCDNN_ACTIVATION_TANH"]:
        g = y * y
        np.subtract(1, g, out=g)
        return np.multiply(g, dy, out=out if out is not None else g)
    if mode == M["MCDNN_ACTIVATION_CLIPPED_RELU"]:
        return np.where((x > 0) & (x < x.dtype.type(desc.coef)), dy, dy.dtype.type(0))
    if mode == M["MCDNN_ACTIVATION_ELU"]:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.where(x > 0, dy, dy * (x.dtype.type(desc.coef) * np.exp(np.minimum(x, 0))))
    if mode == M["MCDNN_ACTIVATION_SWISH"]:
        b = x.dtype.type(desc.swish_beta)
        s = _sigmoid(b * x)
        return dy * (s + b * x * s * (1 - s))
    return dy.copy()  # IDENTITY


class ActivationForward(mcdnn.McdnnOp):
    name = "mcdnnActivationForward"
    tensors = {"x": "xDesc", "y": "yDesc"}
    outputs = ("y",)

    def check(self, a):
        null = mcdnn.device.ffi.NULL
        mcdnn.checked((self.name, a.activationDesc, a.xDesc, a.yDesc, a.x == null, a.y == null, a.alpha == null,
                       a.beta == null, a.x == a.y), self.verdict, a)
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")

    def verdict(self, a):
        mcdnn.require(a, "activationDesc", "xDesc", "yDesc", "x", "y")
        mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        mcdnn.scaling(a.beta, a.xDesc, "beta")
        mcdnn.same_dims(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        mcdnn.same_type(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc))
        if a.x == a.y:
            mcdnn.same_strides(mcdnn.bad_param, ("xDesc", a.xDesc), ("yDesc", a.yDesc), " and x == y (in place)")
        mcdnn.floating("xDesc", a.xDesc)

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype

        direct = a.alpha_value == 1 and a.beta_value == 0 and a.yDesc.dtype == ct
        whole = mcdnn.flat_views([v["x"], v["y"]]) if direct else None
        pieces = parallel.c_pieces(not mcdnn.one_piece(v))
        if whole is not None and c_forward(a.activationDesc, *whole, pieces=pieces):   # the kernel threads share it
            return

        def run(p):
            flat = mcdnn.flat_views([p["x"], p["y"]]) if direct else None
            if flat is not None and c_forward(a.activationDesc, *flat):
                return
            mcdnn.elementwise(p, ("x",), "y", lambda x: forward(a.activationDesc, x), ct, a.alpha_value, a.beta_value)
        mcdnn.by_batch(v, run)


class ActivationBackward(mcdnn.McdnnOp):
    name = "mcdnnActivationBackward"
    tensors = {"y": "yDesc", "dy": "dyDesc", "x": "xDesc", "dx": "dxDesc"}
    outputs = ("dx",)

    def check(self, a):
        null = mcdnn.device.ffi.NULL
        mcdnn.checked((self.name, a.activationDesc, a.yDesc, a.dyDesc, a.xDesc, a.dxDesc, a.y == null, a.dy == null,
                       a.x == null, a.dx == null, a.alpha == null, a.beta == null, a.dy == a.dx), self.verdict, a)
        a.alpha_value = mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        a.beta_value = mcdnn.scaling(a.beta, a.xDesc, "beta")

    def verdict(self, a):
        mcdnn.require(a, "activationDesc", "yDesc", "dyDesc", "xDesc", "dxDesc", "y", "dy", "x", "dx")
        mcdnn.scaling(a.alpha, a.xDesc, "alpha")
        mcdnn.scaling(a.beta, a.xDesc, "beta")
        if a.dy == a.dx:
            mcdnn.same_strides(mcdnn.bad_param, ("dyDesc", a.dyDesc), ("dxDesc", a.dxDesc), " and dy == dx (in place)")
        mcdnn.same_dims(mcdnn.not_supported, ("yDesc", a.yDesc), ("dyDesc", a.dyDesc), ("xDesc", a.xDesc),
                        ("dxDesc", a.dxDesc))
        mcdnn.same_type(mcdnn.not_supported, ("yDesc", a.yDesc), ("dyDesc", a.dyDesc), ("xDesc", a.xDesc),
                        ("dxDesc", a.dxDesc))
        mcdnn.same_strides(mcdnn.not_supported, ("yDesc", a.yDesc), ("dyDesc", a.dyDesc))
        mcdnn.same_strides(mcdnn.not_supported, ("xDesc", a.xDesc), ("dxDesc", a.dxDesc))
        mcdnn.floating("xDesc", a.xDesc)

    def compute(self, a, v):
        ct = a.xDesc.compute_dtype
        desc = a.activationDesc

        direct = a.alpha_value == 1 and a.beta_value == 0 and a.dxDesc.dtype == ct
        if direct:  # the call on the same buffers again: one kernel call made once
            call = mcdnn.prepared((desc, v["y"], v["dy"], v["x"], v["dx"]), self._whole, desc, v)
            if call is not None and call() == 0:
                return

        def run(p):
            flat = mcdnn.flat_views([p["y"], p["dy"], p["x"], p["dx"]]) if direct else None
            if flat is None:
                mcdnn.elementwise(p, ("y", "dy", "x"), "dx", lambda y, dy, x: backward(desc, y, dy, x), ct,
                                  a.alpha_value, a.beta_value)
                return
            y, dy, x, dx = flat  # dx = result: each block straight into dx, no temporary copy
            if c_backward(desc, y, dy, x, dx):
                return
            fast = direct_kernel(desc)
            if fast is None:
                for lo in range(0, dx.size, _BLOCK):
                    block = slice(lo, lo + _BLOCK)
                    g = backward(desc, y[block], dy[block], x[block], out=dx[block])
                    if g is not dx[block] and not np.shares_memory(g, dx[block]):
                        dx[block] = g
                return
            kernel, needed, integer = fast
            dtype = _BITS[ct.itemsize] if integer else ct
            own = not any(np.shares_memory(dx, {"y": y, "dy": dy}[k]) for k in needed)
            temporary = dx.view(dtype) if own else scratch.buffer("activation", (min(_BLOCK, dx.size),), dtype)
            for lo in range(0, dx.size, _BLOCK):
                hi = min(lo + _BLOCK, dx.size)
                kernel(y[lo:hi], dy[lo:hi], x[lo:hi], dx[lo:hi], temporary[lo:hi] if own else temporary[:hi - lo])
        mcdnn.by_batch(v, run)

    @staticmethod
    def _whole(desc, v):
        """compute's direct path as one C kernel call, shared among the kernel threads (csrc/kernels/pool.c)
        where by_batch would split it, when the views flatten; else None."""
        flat = mcdnn.flat_views([v["y"], v["dy"], v["x"], v["dx"]])
        return None if flat is None else _one_call(desc, *flat, pieces=parallel.c_pieces(not mcdnn.one_piece(v)))
