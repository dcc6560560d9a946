"""mcdnnSetDropoutDescriptor, mcdnnDropoutForward, mcdnnDropoutBackward (reference mcdnn.md §3.3; seed 3.1.1.7).

The RNG states (device memory, mcdnnDropoutGetStatesSize bytes) hold the seed and a 256-bit Philox4x64
counter: little-endian uint64 words [seed, c0, c1, c2, c3]. mcdnnSetDropoutDescriptor with a non-NULL
states buffer initialises them on the handle's stream (seed, counter 0), as cuDNN launches its RNG
initialisation kernel; with NULL states it only changes the dropout probability. Each forward draws one
32-bit number u per element (Philox keyed by the seed, from the stored counter) and keeps the element
when u >= dropout·2³², then stores the advanced counter — so the same seed and states give the same
mask, and successive forwards draw fresh ones.

Forward: y = x/(1-p) where kept, 0 elsewhere; the keep mask (one bit per element, in x's logical element
order) goes to the reserve space. Backward: dx = dy/(1-p) where the reserve says kept, 0 elsewhere, with
the descriptor's p at the call. p = 1 drops everything. No alpha/beta.

BAD_PARAM (seed, for both routines): the element counts of the input and output differ; their data types
differ; input and output are the same memory with different strides; reserveSpaceSizeInBytes is less
than mcdnnDropoutGetReserveSpaceSize's; the descriptor never got RNG states (a Set with non-NULL states,
or a Restore). A NULL tensor or descriptor is BAD_PARAM too. mcdnnSetDropoutDescriptor: a dropout
outside [0, 1] is BAD_PARAM (opemu's reading: the probability has no other meaning), stateSizeInBytes
below the states size MCDNN_STATUS_INVALID_VALUE (cuDNN's documented status)."""
import math

import numpy as np

from opemu.core import device, kernels, mcdnn, parallel
from opemu.core.mcdnn import STATUS
from opemu.core.status import VendorError
from opemu.ops.mcdnn.bn_common import byte_tensor

PARALLEL_MIN = 1 << 16   # elements below which threads cost more than they save

INVALID_VALUE = STATUS["MCDNN_STATUS_INVALID_VALUE"]
_WORDS = 5  # seed, counter[4]


def _probability(p, api):
    if not 0.0 <= p <= 1.0:
        raise mcdnn.bad_param("dropout %r is outside [0, 1]" % p)


class SetDropoutDescriptor(mcdnn.McdnnOp):
    name = "mcdnnSetDropoutDescriptor"
    tensors = {"states": "_states_desc"}
    outputs = ("states",)

    def check(self, a):
        mcdnn.require(a, "dropoutDesc")
        _probability(a.dropout, self.name)
        states_bytes = device.lib.opemu_mcdnn_dropout_states_size()
        a._states_desc = None
        if not mcdnn.is_null(a.states):
            if a.stateSizeInBytes < states_bytes:
                raise VendorError(INVALID_VALUE, "stateSizeInBytes %d is less than the %d bytes "
                                                 "mcdnnDropoutGetStatesSize returns" % (a.stateSizeInBytes,
                                                                                        states_bytes))
            a._states_desc = byte_tensor(_WORDS * 8)
        raw = a.dropoutDesc.raw  # the descriptor changes at the call; the states on the stream
        raw.dropout = a.dropout
        raw.is_set = 1
        if a._states_desc is not None:
            raw.states = a.states
            raw.stateSizeInBytes = a.stateSizeInBytes
            raw.seed = a.seed
            raw.has_states = 1

    def compute(self, a, v):
        if v["states"] is not None:
            words = np.zeros(_WORDS, np.uint64)
            words[0] = a.seed
            v["states"][...] = words.view(np.uint8)


def keep_mask(states, elements, p):
    """The keep mask for `elements` draws from the states (uint8 view), advancing their counter."""
    words = states.view(np.uint64)
    if p >= 1.0:
        keep = np.zeros(elements, bool)
    elif p <= 0.0:
        keep = np.ones(elements, bool)
    else:
        generator = np.random.Philox(counter=words[1:_WORDS].copy(), key=np.array([words[0], 0], np.uint64))
        draws = generator.random_raw(-(-elements // 2)).view(np.uint32)[:elements]
        keep = draws >= np.uint32(min(round(p * 2 ** 32), 2 ** 32 - 1))
        words[1:_WORDS] = np.asarray(generator.state["state"]["counter"], np.uint64)
    return keep


def _scale(p, ct):
    """1 / (1 - p) in the compute type (1 when p is 1: nothing is kept then)."""
    if p >= 1.0:
        return ct.type(1)
    return ct.type(1.0 / (1.0 - p)) if ct == np.float64 else np.float32(1.0) / np.float32(1.0 - np.float32(p))


def _scaled(values, keep, p, ct):
    result = values.reshape(-1).astype(ct)
    if p < 1.0:
        result *= _scale(p, ct)
    result[~keep] = 0
    return result


def _check_pair(a, desc_in, ptr_in, desc_out, ptr_out, reserve_bytes):
    mcdnn.require(a, "dropoutDesc", desc_in, desc_out, ptr_in, ptr_out, "reserveSpace")
    t_in, t_out = getattr(a, desc_in), getattr(a, desc_out)
    n_in, n_out = math.prod(t_in.shape), math.prod(t_out.shape)
    if n_in != n_out:
        raise mcdnn.bad_param("the element counts of %s (%d) and %s (%d) differ" % (desc_in, n_in, desc_out, n_out))
    mcdnn.same_type(mcdnn.bad_param, (desc_in, t_in), (desc_out, t_out))
    if getattr(a, ptr_in) == getattr(a, ptr_out):
        mcdnn.same_strides(mcdnn.bad_param, (desc_in, t_in), (desc_out, t_out), " and %s == %s (in place)"
                           % (ptr_in, ptr_out))
    need = device.lib.opemu_mcdnn_dropout_reserve_size(n_in)
    if a.reserveSpaceSizeInBytes < need:
        raise mcdnn.bad_param("reserveSpaceSizeInBytes %d is less than the %d bytes mcdnnDropoutGetReserveSpaceSize "
                              "returns" % (a.reserveSpaceSizeInBytes, need))
    if not a.dropoutDesc.has_states:
        raise mcdnn.bad_param("mcdnnSetDropoutDescriptor was never called on dropoutDesc with non-NULL states")
    mcdnn.floating(desc_in, t_in)
    a._elements = n_in
    a._reserve_desc = byte_tensor(-(-n_in // 8))
    a._p = float(a.dropoutDesc.dropout)


class DropoutForward(mcdnn.McdnnOp):
    name = "mcdnnDropoutForward"
    tensors = {"x": "xdesc", "y": "ydesc", "reserveSpace": "_reserve_desc", "_states": "_states_desc"}
    outputs = ("y", "reserveSpace", "_states")

    def check(self, a):
        _check_pair(a, "xdesc", "x", "ydesc", "y", None)
        a._states = a.dropoutDesc.states
        a._states_desc = byte_tensor(_WORDS * 8)

    def compute(self, a, v):
        keep = keep_mask(v["_states"], a._elements, a._p)
        v["reserveSpace"][...] = np.packbits(keep)
        y = _scaled(v["x"], keep, a._p, a.xdesc.compute_dtype)
        v["y"][...] = y.reshape(v["y"].shape)


class DropoutBackward(mcdnn.McdnnOp):
    name = "mcdnnDropoutBackward"
    tensors = {"dy": "dydesc", "dx": "dxdesc", "reserveSpace": "_reserve_desc"}
    outputs = ("dx",)

    def check(self, a):
        _check_pair(a, "dydesc", "dy", "dxdesc", "dx", None)

    def compute(self, a, v):
        ct = a.dydesc.compute_dtype
        if _backward_kernel(v["dy"], v["reserveSpace"], _scale(a._p, ct), v["dx"], ct):
            return
        keep = np.unpackbits(v["reserveSpace"], count=a._elements).view(bool)
        dx = _scaled(v["dy"], keep, a._p, ct)
        v["dx"][...] = dx.reshape(v["dx"].shape)


def _backward_kernel(dy, bits, scale, dx, ct):
    """The backward in one C pass over dense dy and dx of the compute type (csrc/kernels/dropout.c, the
    reference's bits), ranges of whole bytes split over the pool's threads; False when it does not apply."""
    lib = kernels.lib()
    if (lib is None or dy.dtype != ct or dx.dtype != ct or not (dy.flags.c_contiguous and dx.flags.c_contiguous)
            or not kernels.apart(dx, dy)):
        return False
    n = dy.size
    source, target, keep = kernels.address(dy), kernels.address(dx), kernels.uint8_pointer(bits)

    def part(lo, hi):
        lib.opemu_kernel_dropout_backward(ct.itemsize, source, keep, float(scale), target, lo * 8, min(hi * 8, n))
    parallel.split(-(-n // 8), part, worth=n >= PARALLEL_MIN)
    return True
