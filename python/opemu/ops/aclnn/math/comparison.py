"""Comparisons (ops-math math/equal, not_equal, greater, less, greater_equal, less_equal): one row
each, whose in-place forms write 1/0 into selfRef's own dtype (opemu.ops.aclnn.common.elementwise
says how a row becomes operators).

The operands are promoted (op::PromoteType) and compared in the promoted dtype (fp16/bf16 widen
to fp32 exactly); the bool result is cast into `out`, which may have any dtype bool can reach.
NeScalar, GtScalar, LtScalar, GeScalar and LeScalar are not among the forms yet: each has an op_api
file of its own (scalar dtype lists, a float-epsilon equality) still to be read."""
import numpy as np

from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import per_product

COMPARABLE = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL UINT64", "BF16")

ROWS = (
    Row("Eq", np.equal, COMPARABLE, forms="EqTensor EqScalar", result="bool"),
    Row("Ne", np.not_equal, COMPARABLE, forms="NeTensor", result="bool"),
    Row("Gt", np.greater, COMPARABLE, forms="GtTensor", result="bool"),
    Row("Lt", np.less, COMPARABLE, forms="LtTensor", result="bool"),
    Row("Ge", np.greater_equal, COMPARABLE, forms="GeTensor", result="bool"),
    Row("Le", np.less_equal, COMPARABLE, forms="LeTensor", result="bool"),
)
generate(__name__, ROWS)
