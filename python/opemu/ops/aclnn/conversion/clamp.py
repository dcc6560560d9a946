"""aclnnClamp, its Min/Max/Tensor forms and aclnnHardtanh (ops-math conversion/clip_by_value_v2): elementwise
rows whose bounds are aclScalars or tensors (broadcast), Clamp's optional with at least one given
(opemu.ops.aclnn.common.elementwise says how a row becomes operators and their Inplace twins)."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import per_product

CLAMPABLE = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL", "BF16")
HARDTANH = per_product("FLOAT16 FLOAT INT32 INT64 INT16 INT8 UINT8 DOUBLE", "BF16")


def _clamp(x, low, high, out=None):
    return np.clip(x, low, high, out=out)


def _check_bounds(a):
    if a.clipValueMin is None and a.clipValueMax is None:
        raise status.param_nullptr("clamp: At least one of 'min' or 'max' must not be None.")


ROWS = (
    Row("Clamp", _clamp, CLAMPABLE, optional=("clipValueMin", "clipValueMax"), check=_check_bounds),
    Row("ClampTensor", _clamp, CLAMPABLE, optional=("clipValueMin", "clipValueMax"), check=_check_bounds),
    Row("ClampMin", np.maximum, CLAMPABLE, forms="ClampMin ClampMinTensor"),
    Row("ClampMax", np.minimum, CLAMPABLE, forms="ClampMax ClampMaxTensor"),
    Row("Hardtanh", _clamp, HARDTANH),
)
generate(__name__, ROWS)
