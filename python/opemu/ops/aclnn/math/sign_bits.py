"""1-bit Adam's sign packing (ops-math math/sign_bits_pack, sign_bits_unpack): aclnnSignBitsPack packs
(x >= 0) of a 1-D FLOAT/FLOAT16 tensor, eight to a byte from the lowest bit, the last byte padded with zeros,
into a (size, bytes / size) UINT8 out; aclnnSignBitsUnpack turns each bit back into +1 (set) or -1 (clear).
The op_api serves the Atlas A2/A3, 310P and 950 parts and refuses the others in its dtype check."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp, soc
from opemu.ops.aclnn.common import products as _products
from opemu.ops.aclnn.common import promotion as P
from opemu.ops.aclnn.common.promotion import codes

FLOATS = lambda: codes("FLOAT FLOAT16")
BYTES = lambda: codes("UINT8")
LINES = ("A2", "A3", "310P", "950")


class SignBitsPack(AclnnOp):
    """nulls → product and dtypes → size > 0, bytes divisible by size, out's first dim = size → ranks."""
    name = "aclnnSignBitsPack"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": FLOATS(), "out": BYTES()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        if _products.line() not in LINES:
            raise status.param_invalid("SignBitsPack is unsupported by the current SOC version [%s]"
                                       % soc())
        checks.dtype_in("self", a.self, FLOATS())
        checks.dtype_in("out", a.out, BYTES())
        if a.size <= 0:
            raise status.param_invalid("size value must bigger than zero.")
        if any(n < 0 for n in a.out.shape):
            raise status.param_invalid("Dim value of out is negative.")
        count = a.self.shape[0] if a.self.ndim else 1
        packed = (count + 7) // 8
        if packed % a.size:
            raise status.param_invalid("The number of packed bytes %d cannot be divided by size %d." % (packed, a.size))
        if a.out.ndim < 1 or a.out.shape[0] != a.size:
            raise status.param_invalid("The value of the first dimension of 'out' is incorrect and should be equal "
                                       "to size.")
        if a.self.ndim != 1:
            raise status.param_invalid("Self dims %d should be 1." % a.self.ndim)
        if a.out.ndim != 2:
            raise status.param_invalid("Out dims %d should be 2." % a.out.ndim)
        checks.shape_is("out", a.out, (a.size, packed // a.size), checks.shape_text((a.size, packed // a.size)))

    def compute(self, a, v, workspace):
        if v["self"].size == 0:
            return
        bits = np.packbits(v["self"] >= 0, bitorder="little")
        P.store(v["out"], bits.reshape(v["out"].shape))


class SignBitsUnpack(AclnnOp):
    """nulls → product and dtypes (out of `dtype`) → size > 0, bits divisible by size → ranks and shape."""
    name = "aclnnSignBitsUnpack"
    inputs, outputs = ("self",), ("out",)

    def dtype_table(self):
        return {"self": BYTES(), "out": FLOATS()}

    def check(self, a):
        checks.not_null(a, "self", "out")
        if _products.line() not in LINES:
            raise status.param_invalid("SignBitsUnpack is not supported on this device.")
        checks.dtype_in("self", a.self, BYTES())
        checks.dtype_in("out", a.out, FLOATS())
        checks.dtype_match("out", a.out, a.dtype)
        if a.size <= 0:
            raise status.param_invalid("Size value must bigger than zero.")
        if any(n < 0 for n in a.out.shape):
            raise status.param_invalid("Dim Value of out is negative.")
        bits = (a.self.shape[0] if a.self.ndim else 1) * 8
        if bits % a.size:
            raise status.param_invalid("The number of elements in self * 8 cannot be divided by size.")
        if a.self.ndim != 1:
            raise status.param_invalid("Self dims %d should be 1." % a.self.ndim)
        if a.out.ndim != 2:
            raise status.param_invalid("Out dims %d should be 2." % a.out.ndim)
        expected = (a.size, bits // a.size)
        checks.shape_is("out", a.out, expected, checks.shape_text(expected))

    def compute(self, a, v, workspace):
        if v["self"].size == 0:
            return
        bits = np.unpackbits(v["self"], bitorder="little")
        P.store(v["out"], np.where(bits == 1, 1.0, -1.0).reshape(v["out"].shape))
