"""Comparisons (ops-math math/equal, not_equal, greater, less, greater_equal, less_equal): one row
each, with the in-place variants that write 1/0 into selfRef's own dtype.

The operands are promoted (op::PromoteType) and compared in the promoted dtype (fp16/bf16 widen
to fp32 exactly); the bool result is cast into `out`, which may have any dtype bool can reach."""
import numpy as np

from opemu.ops.aclnn._family import make
from opemu.ops.aclnn._promotion import per_product

COMPARABLE = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL UINT64", "BF16")

ROWS = (("Eq", np.equal), ("Ne", np.not_equal), ("Gt", np.greater), ("Lt", np.less),
        ("Ge", np.greater_equal), ("Le", np.less_equal))

for prefix, kernel in ROWS:
    make(prefix + "Tensor", "self:T other:T", kernel, COMPARABLE, result="bool")
    make("Inplace%sTensor" % prefix, "selfRef:T other:T", kernel, COMPARABLE, "selfRef", result="bool")
make("EqScalar", "self:T other:S", np.equal, COMPARABLE, result="bool")
make("InplaceEqScalar", "selfRef:T other:S", np.equal, COMPARABLE, "selfRef", result="bool")
