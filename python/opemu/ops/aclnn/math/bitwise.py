"""Bitwise functions and shifts (ops-math math/bitwise_and, bitwise_or, bitwise_xor, bitwise_not,
left_shift, right_shift): one row each (opemu.ops.aclnn.common.elementwise says how a row becomes
operators). The operands promote (op::PromoteType; an aclScalar joins by category) and the result casts
into out; on bool data the functions are the logical ones.

Shifts: RightShift's kernel clamps the shift count to [0, bits - 1] (an arithmetic shift for signed
types); LeftShift's kernel is not in the repository: a count outside [0, bits) gives 0 here, as
PyTorch's shift does."""
import numpy as np

from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import codes, per_line

AND = lambda: codes("INT16 INT32 INT64 INT8 UINT8 BOOL UINT16")
OR = lambda: codes("INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 BOOL")
OR_SCALAR = per_line("INT8 INT16 INT32 INT64 UINT8 BOOL UINT16", regbase="INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 "
                     "UINT64 BOOL")
XOR = per_line("INT8 INT16 INT32 INT64 UINT8 BOOL", regbase="INT8 INT16 INT32 INT64 UINT8 BOOL UINT16 UINT32 UINT64")
NOT = per_line("INT16 INT32 INT64 INT8 UINT8 BOOL", regbase="INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64 BOOL")
SHIFTABLE = lambda: codes("INT8 INT16 INT32 INT64 UINT8 UINT16 UINT32 UINT64")


def _in_range(x, shift):
    """Whether every count lies in [0, bits) (then the shift is the plain ufunc), and the bit width."""
    bits = x.dtype.itemsize * 8
    shift = np.asarray(shift)
    return shift.size == 0 or (shift.min() >= 0 and shift.max() < bits), bits


def _left_shift(x, shift, out=None):
    plain, bits = _in_range(x, shift)
    if plain:
        return np.left_shift(x, shift, out=out)
    shift = np.asarray(shift)
    result = np.left_shift(x, np.clip(shift, 0, bits - 1).astype(x.dtype), out=out)
    np.copyto(result, 0, where=(shift < 0) | (shift >= bits))
    return result


def _right_shift(x, shift, out=None):
    plain, bits = _in_range(x, shift)
    return np.right_shift(x, shift if plain else np.clip(shift, 0, bits - 1).astype(x.dtype), out=out)


ROWS = (
    Row("BitwiseAnd", np.bitwise_and, AND, forms="BitwiseAndTensor BitwiseAndScalar BitwiseAndTensorOut",
        scalar_checked=True),
    Row("BitwiseOr", np.bitwise_or, OR, forms="BitwiseOrTensor", scalar_checked=True),
    Row("BitwiseOrScalar", np.bitwise_or, OR_SCALAR, scalar_checked=True),
    Row("BitwiseXor", np.bitwise_xor, XOR, forms="BitwiseXorTensor BitwiseXorScalar", scalar_checked=True),
    Row("BitwiseNot", np.invert, NOT, same_dtype=True),
    Row("LeftShift", _left_shift, SHIFTABLE, out=SHIFTABLE, forms="LeftShift LeftShifts", scalar_checked=True),
    Row("RightShift", _right_shift, SHIFTABLE, out=SHIFTABLE),
)
generate(__name__, ROWS)
