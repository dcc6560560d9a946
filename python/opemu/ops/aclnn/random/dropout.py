"""Dropout of ops-math random/ (dsa_gen_bit_mask, drop_out_do_mask): the bit mask and its use.

The mask is bits stored in UINT8, element i's bit at byte i // 8, bit i % 8 (least significant first), 1 = keep;
its byte count is align(numel, 128) / 8, the vendor's shape rule. aclnnDropoutGenMask(V2) draws it (keep with
probability 1 - prob, u ~ U[0, 1) from random/generator's (seed, offset) stream, keep where u >= prob);
aclnnDropoutDoMask applies it (out = self · bit / (1 - prob), 0 when prob = 1); aclnnDropout does both (train
false, p = 0 or p = 1: the vendor leaves maskOut untouched and copies or zeroes); aclnnDropoutBackward scales the
kept gradient by `scale`. fp16/bf16 multiply in fp32 and round once."""
import math

import numpy as np

from opemu.core import checks, dtypes, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.random.generator import check_seed_tensors, generator, seed_and_offset

DATA = P.per_product("FLOAT FLOAT16", "BF16")
MASK = P.codes("UINT8")
GEN_MASK_PROB = P.codes("FLOAT16 BF16 FLOAT")


def mask_bytes(numel):
    return -(-numel // 128) * 128 // 8


def check_mask_size(name, mask, numel):
    need = mask_bytes(numel)
    if mask.numel() != need:
        raise status.param_invalid("Size of %s has to be %d, but current is %d." % (name, need, mask.numel()))


def check_probability(name, p):
    if not 0 <= p <= 1:
        raise status.param_invalid("The value of %s has to be between 0 and 1, but current is %f." % (name, p))


def draw_mask(seed, offset, numel, prob):
    """The packed keep bits of `numel` elements (padding bits drawn too, as the kernel fills whole blocks)."""
    u = generator(seed, offset).random(mask_bytes(numel) * 8, dtype=np.float32)
    return np.packbits(u >= np.float32(prob), bitorder="little")


def kept(mask, shape):
    """The keep bits of the first prod(shape) elements, as a bool array of `shape`."""
    n = math.prod(shape)
    return np.unpackbits(mask.reshape(-1), bitorder="little")[:n].astype(bool).reshape(shape)


def scaled(x, keep, scale, out):
    P.store(out, np.where(keep, P.widened(x) * np.float32(scale), np.float32(0)))


class DropoutGenMask(AclnnOp):
    name = "aclnnDropoutGenMask"
    outputs = ("out",)

    def dtype_table(self):
        return {"out": MASK}

    def check(self, a):
        checks.not_null(a, "shape", "out")
        self.check_extra(a)
        checks.dtype_in("out", a.out, MASK)
        check_probability("prob", a.prob)
        for d in a.shape:
            if d < 0:
                raise status.param_invalid("The shape %s has a negative dim." % checks.shape_text(a.shape))
        numel = math.prod(a.shape)
        if numel >= 2 ** 62:
            raise status.param_invalid("The shape %s holds too many elements." % checks.shape_text(a.shape))
        a.numel = numel
        check_mask_size("out", a.out, numel)

    def check_extra(self, a):
        pass

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size:
            seed, offset = seed_and_offset(a, v)
            out.reshape(-1)[...] = draw_mask(seed, offset, a.numel, a.prob)


class DropoutGenMaskV2(DropoutGenMask):
    """GenMask with the probability's dtype named (the kernel compares in it)."""
    name = "aclnnDropoutGenMaskV2"

    def check_extra(self, a):
        if a.probDataType not in GEN_MASK_PROB:
            raise status.param_invalid("Scalar p not implemented for %s, should be in dtype support list %s."
                                       % (dtypes.serial_name(a.probDataType), dtypes.serial_list(GEN_MASK_PROB)))


class DropoutGenMaskV2Tensor(DropoutGenMaskV2):
    name = "aclnnDropoutGenMaskV2Tensor"
    inputs = ("seedTensor", "offsetTensor")

    def check_extra(self, a):
        check_seed_tensors(a)
        super().check_extra(a)


class DropoutDoMask(AclnnOp):
    name = "aclnnDropoutDoMask"
    inputs = ("self", "mask")
    outputs = ("out",)

    def dtype_table(self):
        return {"self": DATA(), "mask": MASK, "out": DATA()}

    def check(self, a):
        checks.not_null(a, "self", "mask", "out")
        checks.dtype_in("self", a.self, DATA())
        checks.dtype_in("mask", a.mask, MASK)
        checks.same_dtype("self", a.self, "out", a.out)
        check_probability("prob", a.prob)
        checks.same_shape("self", a.self, "out", a.out)
        check_mask_size("mask", a.mask, a.self.numel())

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size:
            keep = kept(v["mask"], out.shape)
            scaled(v["self"], keep, 0.0 if a.prob == 1 else 1.0 / (1.0 - a.prob), out)


class DropoutBackward(AclnnOp):
    name = "aclnnDropoutBackward"
    inputs = ("gradOutput", "mask")
    outputs = ("out",)

    def dtype_table(self):
        return {"gradOutput": DATA(), "mask": MASK, "out": DATA()}

    def check(self, a):
        checks.not_null(a, "gradOutput", "mask", "out")
        checks.dtype_in("gradOutput", a.gradOutput, DATA())
        checks.dtype_in("mask", a.mask, MASK)
        checks.same_dtype("gradOutput", a.gradOutput, "out", a.out)
        checks.same_shape("gradOutput", a.gradOutput, "out", a.out)
        check_mask_size("maskOut", a.mask, a.gradOutput.numel())

    def compute(self, a, v, workspace):
        out = v["out"]
        if out.size:
            scaled(v["gradOutput"], kept(v["mask"], out.shape), a.scale, out)


class Dropout(AclnnOp):
    name = "aclnnDropout"
    inputs = ("input",)
    outputs = ("out", "maskOut")

    def dtype_table(self):
        return {"input": DATA(), "out": DATA(), "maskOut": MASK}

    def check(self, a):
        checks.not_null(a, "input", "out", "maskOut")
        checks.dtype_in("input", a.input, DATA())
        checks.same_dtype("input", a.input, "out", a.out)
        checks.dtype_in("maskOut", a.maskOut, MASK)
        check_probability("p", a.p)
        checks.same_shape("input", a.input, "out", a.out)
        check_mask_size("maskOut", a.maskOut, a.input.numel())

    def compute(self, a, v, workspace):
        out, x = v["out"], v["input"]
        if not out.size:
            return
        if not a.train or a.p == 0:
            np.copyto(out, x)
        elif a.p == 1:
            P.store(out, np.float32(0))
        else:
            mask = draw_mask(a.seed, a.offset, x.size, a.p)
            v["maskOut"].reshape(-1)[...] = mask
            scaled(x, kept(mask, out.shape), 1.0 / (1.0 - a.p), out)
