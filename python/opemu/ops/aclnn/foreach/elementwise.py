"""Foreach forms of the elementwise rows (ops-nn foreach/): one line each, naming the row, the check
template its vendor source follows and its dtype list (foreach/family.py says how a line becomes an
operator).

Dtype lists: the op_api sources' where the vendor ships one (hicann/ops-nn@e5c3fa93), else the op
definition's (foreach_*_def.cpp: the Generated template). Foreach has kernels on Atlas A2/A3 and the 950
line only; the *Inplace forms of the list and scalar functions are defined for the 950 line alone. The
kernels compute bf16 (and INT8/INT16/UINT8) data in fp32 and fp16 in fp16 (ForeachAddListV2's Axpy) or
fp32: here every floating form computes in fp32 and rounds once, within one rounding of an fp16
x1 + alpha * x2. Integer results that overflow their dtype wrap."""
import numpy as np

from opemu.ops.aclnn.activation import elementwise as _activation  # noqa: F401  (Sigmoid's row)
from opemu.ops.aclnn.common.promotion import codes, per_product
from opemu.ops.aclnn.foreach.family import Form, Generated, OpApiCopy, OpApiList, OpApiScalar, OpApiUnary, generate
from opemu.ops.aclnn.math import elementwise as _math  # noqa: F401  (the rows these forms loop over)

FLOATING = per_product("FLOAT FLOAT16 BF16")
COPY = per_product("FLOAT FLOAT16 BF16 INT32 INT8 UINT8 INT16 UINT16 UINT32 DOUBLE BOOL INT64")
ZERO = per_product("FLOAT FLOAT16 INT32 INT16 BF16")
ROUND = per_product("FLOAT FLOAT16 BF16 INT16")
ROUND_V2 = per_product("FLOAT FLOAT16 BF16 INT32 INT16")
FLOATING_INT32 = per_product("FLOAT FLOAT16 BF16 INT32")
ADD_LIST = per_product("FLOAT FLOAT16 BF16 INT32 INT16 INT8 UINT8")
MUL_SCALAR = per_product("FLOAT FLOAT16 BF16 INT32")
EXP = per_product("FLOAT FLOAT16 BF16 INT16 INT8 UINT8")
ONE = (1,)   # Add's and Sub's alpha where the form has none
ON_950 = ("950",)
ROUND_MODE = codes("INT8 INT64")



def _copy(x):
    return x


def _zero(x):
    return np.zeros_like(x)


def _round_off(x, mode):
    """roundMode 1 half to even, 2 floor, 3 ceil, 4 half away from zero, 5 toward zero, 6 half to odd;
    any other leaves values that need no rounding as they are (same-dtype data: all of them)."""
    mode = int(mode)
    if x.dtype.kind != "f" or mode not in _ROUNDINGS:
        return x
    return _ROUNDINGS[mode](x)


def _half_to_odd(x):
    low = np.floor(x)
    tie = (x - low) == 0.5
    nearest = np.rint(x)
    return np.where(tie, np.where(np.fmod(low, 2) == 0, low + 1, low), nearest)


_ROUNDINGS = {1: np.rint, 2: np.floor, 3: np.ceil, 4: lambda x: np.trunc(x + np.copysign(0.5, x)),
              5: np.trunc, 6: _half_to_odd}


def _norm(x, p):
    """‖x‖_p over the whole tensor: max |x| for +inf, Σ|x| for 1, (Σ|x|^p)^(1/p) otherwise (fp32)."""
    magnitude = np.abs(x)
    if np.isinf(p) and p > 0:
        return magnitude.max()
    if p == 1:
        return magnitude.sum(dtype=np.float32)
    if p == 2:
        return np.sqrt(np.square(magnitude).sum(dtype=np.float32))
    return np.power(np.power(magnitude, np.float32(p)).sum(dtype=np.float32), np.float32(1 / p))


FORMS = (
    # x → out: the unary rows (opbuild's generated checks, except Sqrt's op_api)
    Form("Sqrt", OpApiUnary, FLOATING),
    Form("Abs", Generated, FLOATING),
    Form("Cos", Generated, FLOATING),
    Form("Sin", Generated, FLOATING),
    Form("Tanh", Generated, FLOATING),
    Form("Log", Generated, FLOATING),
    Form("Exp", Generated, EXP),
    Form("Neg", Generated, ADD_LIST),
    Form("Sigmoid", Generated, FLOATING),
    Form("Log", Generated, FLOATING, spelling="ForeachLogInplace", lines=ON_950),
    Form(_copy, OpApiCopy, COPY, spelling="ForeachCopy"),
    Form(_zero, Generated, ZERO, spelling="ForeachZeroInplace"),
    Form(_round_off, Generated, ROUND, spelling="ForeachRoundOffNumber"),
    Form(_round_off, OpApiScalar, ROUND_V2, spelling="ForeachRoundOffNumberV2", scalar_dtypes=ROUND_MODE,
         scalar_as=np.int8),
    Form(_norm, Generated, FLOATING, spelling="ForeachNorm", reduces=True, scalar_as=np.float64),
    # x1, x2 → out
    Form("Add", OpApiList, ADD_LIST, sizes_first=True),
    Form("Sub", OpApiList, ADD_LIST),
    Form("Add", OpApiList, ADD_LIST, spelling="ForeachAddList"),
    Form("Sub", Generated, ADD_LIST, spelling="ForeachSubList"),
    Form("Add", Generated, FLOATING_INT32, spelling="ForeachAddListInplace", lines=ON_950),
    Form("Sub", Generated, FLOATING_INT32, spelling="ForeachSubListInplace", lines=ON_950),
    Form("Mul", OpApiUnary, ADD_LIST, spelling="ForeachMulList"),
    Form("Mul", Generated, FLOATING_INT32, spelling="ForeachMulListInplace", lines=ON_950),
    Form("Div", OpApiUnary, FLOATING, spelling="ForeachDivList"),
    Form("Div", Generated, FLOATING, spelling="ForeachDivListInplace", lines=ON_950),
    Form("Maximum", Generated, FLOATING_INT32, spelling="ForeachMaximumList"),
    Form("Minimum", Generated, FLOATING_INT32, spelling="ForeachMinimumList"),
    Form("Pow", Generated, FLOATING_INT32, spelling="ForeachPowList"),
    # x, an aclScalar → out (op_api V2 sources)
    Form("Mul", OpApiScalar, MUL_SCALAR, item_nulls=True, fp16_float_scalar=True),
    Form("Div", OpApiScalar, FLOATING),
    Form("Add", OpApiScalar, ADD_LIST, item_nulls=True, fp16_float_scalar=True, constants=ONE),
    Form("Sub", OpApiScalar, ADD_LIST, item_nulls=True, fp16_float_scalar=True, constants=ONE),
    Form("Maximum", OpApiScalar, FLOATING_INT32, item_nulls=True),
    Form("Minimum", OpApiScalar, FLOATING_INT32, item_nulls=True),
    Form("Pow", OpApiScalar, FLOATING_INT32, item_nulls=True),
    # x, a tensor holding the scalar → out
    Form("Add", Generated, ADD_LIST, spelling="ForeachAddScalar", constants=ONE),
    Form("Sub", Generated, FLOATING_INT32, spelling="ForeachSubScalar", constants=ONE),
    Form("Mul", Generated, FLOATING_INT32, spelling="ForeachMulScalar"),
    Form("Div", OpApiScalar, FLOATING, spelling="ForeachDivScalar"),
    Form("Maximum", Generated, FLOATING_INT32, spelling="ForeachMaximumScalar"),
    Form("Minimum", Generated, FLOATING_INT32, spelling="ForeachMinimumScalar"),
    Form("Pow", Generated, FLOATING_INT32, spelling="ForeachPowScalar"),
    Form("Mul", Generated, FLOATING_INT32, spelling="ForeachMulScalarInplace", lines=ON_950),
    Form("Sub", Generated, FLOATING_INT32, spelling="ForeachSubScalarInplace", lines=ON_950, constants=ONE),
    # x, an aclScalarList (one scalar per tensor) → out
    Form("Add", Generated, FLOATING_INT32, spelling="ForeachAddScalarList", constants=ONE),
    Form("Sub", Generated, FLOATING_INT32, spelling="ForeachSubScalarList", constants=ONE),
    Form("Mul", Generated, FLOATING_INT32, spelling="ForeachMulScalarList"),
    Form("Div", Generated, FLOATING, spelling="ForeachDivScalarList"),
    Form("Maximum", Generated, FLOATING_INT32, spelling="ForeachMaximumScalarList"),
    Form("Minimum", Generated, FLOATING_INT32, spelling="ForeachMinimumScalarList"),
    Form("Pow", Generated, FLOATING_INT32, spelling="ForeachPowScalarList"),
    Form("Pow", Generated, FLOATING_INT32, spelling="ForeachPowScalarAndTensor"),
)
generate(__name__, FORMS)
