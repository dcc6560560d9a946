"""Foreach forms of the elementwise rows (ops-nn foreach/foreach_sqrt, foreach_abs, foreach_add_list,
foreach_sub_list, foreach_mul_scalar, foreach_div_scalar): one line each, naming the row, the check
template its vendor source follows and its dtype list (foreach/family.py says how a line becomes an
operator).

Dtype lists: the op_api sources' (hicann/ops-nn@e5c3fa93), which have kernels on Atlas A2/A3 and the
950 line only; ForeachAbs has no op_api source, its list is the op definition's (foreach_abs_def.cpp).
The kernels compute bf16 (and INT8/INT16/UINT8) data in fp32 and fp16 in fp16 (ForeachAddListV2's
Axpy) or fp32: here every floating form computes in fp32 and rounds once, within one rounding of
an fp16 x1 + alpha * x2. Integer results that overflow their dtype wrap."""
from opemu.ops.aclnn.common.promotion import per_product
from opemu.ops.aclnn.foreach.family import Form, Generated, OpApiList, OpApiScalar, OpApiUnary, generate
from opemu.ops.aclnn.math import elementwise  # noqa: F401  (registers the rows these forms loop over)

FLOATING = per_product("FLOAT FLOAT16 BF16")
ADD_LIST = per_product("FLOAT FLOAT16 BF16 INT32 INT16 INT8 UINT8")
MUL_SCALAR = per_product("FLOAT FLOAT16 BF16 INT32")

FORMS = (
    Form("Sqrt", OpApiUnary, FLOATING),
    Form("Abs", Generated, FLOATING),
    Form("Add", OpApiList, ADD_LIST, sizes_first=True),
    Form("Sub", OpApiList, ADD_LIST),
    Form("Mul", OpApiScalar, MUL_SCALAR, item_nulls=True, fp16_float_scalar=True),
    Form("Div", OpApiScalar, FLOATING),
)
generate(__name__, FORMS)
