"""aclnnMaxN and aclnnMinN (ops-math math/maximum, minimum: aclnn_maxn.cpp, aclnn_minn.cpp): the elementwise
maximum or minimum of a list of tensors of out's dtype, broadcast together, folded pairwise from the first
as the op_api folds Maximum/Minimum (NaN propagates)."""
import numpy as np

from opemu.core import checks, status
from opemu.core.op import AclnnOp
from opemu.ops.aclnn.common import promotion as P

LISTED = P.per_line("FLOAT16 FLOAT INT8 INT32 INT64", "FLOAT16 FLOAT INT8 INT32 INT64 BF16",
                    regbase="FLOAT16 FLOAT INT8 UINT8 INT32 INT64 BF16")


class _Fold(AclnnOp):
    inputs = ("tensors",)
    outputs = ("out",)
    ufunc = None

    def dtype_table(self):
        return {"tensors": LISTED(), "out": LISTED()}

    def check(self, a):
        if a.tensors is None:
            raise status.param_nullptr("Expected a proper TensorList but got null for argument tensors.")
        for tensor in a.tensors:
            if tensor is None:
                raise status.param_nullptr("Expected a proper Tensor but got null for argument (*tensors)[i].")
        checks.not_null(a, "out")
        checks.dtype_in("out", a.out, LISTED())
        for tensor in a.tensors:
            checks.dtype_in("(*tensors)[i]", tensor, LISTED())
            checks.dtype_match("(*tensors)[i]", tensor, a.out.dtype)
        for tensor in a.tensors:
            checks.max_dim("(*tensors)[i]", tensor)
        checks.max_dim("out", a.out)
        if not a.tensors:
            raise status.param_invalid("The input tensor list should not be empty.")
        shape = tuple(a.tensors[0].shape)
        for tensor in a.tensors[1:]:
            try:
                shape = np.broadcast_shapes(tuple(tensor.shape), shape)
            except ValueError:
                raise status.param_invalid("the size of tensor %s must match the size of tensor %s."
                                           % (checks.shape_text(tensor.shape), checks.shape_text(shape))) from None
        checks.shape_is("out", a.out, shape, checks.shape_text(shape))

    def compute(self, a, v, workspace):
        if a.out.is_empty():
            return
        ct = P.compute_type(a.out.dtype)
        result = P.as_compute(v["tensors"][0], ct)
        with np.errstate(all="ignore"):
            for operand in v["tensors"][1:]:
                result = self.ufunc(result, P.as_compute(operand, ct))
        P.store(v["out"], np.broadcast_to(result, v["out"].shape))


class MaxN(_Fold):
    name = "aclnnMaxN"
    ufunc = staticmethod(np.maximum)


class MinN(_Fold):
    name = "aclnnMinN"
    ufunc = staticmethod(np.minimum)
