"""aclnnClamp (ops-math conversion/clip_by_value_v2): an elementwise row whose bounds are optional
aclScalars, at least one of them given (opemu.ops.aclnn.common.elementwise says how a row becomes
operators)."""
import numpy as np

from opemu.core import status
from opemu.ops.aclnn.common.elementwise import Row, generate
from opemu.ops.aclnn.common.promotion import per_product

CLAMPABLE = per_product("FLOAT FLOAT16 INT32 INT64 INT8 UINT8 INT16 DOUBLE BOOL", "BF16")


def _clamp(x, low, high, out=None):
    return np.clip(x, low, high, out=out)


def _check_bounds(a):
    if a.clipValueMin is None and a.clipValueMax is None:
        raise status.param_nullptr("At least one of clipValueMin and clipValueMax must not be nullptr.")


ROWS = (
    Row("Clamp", _clamp, CLAMPABLE, optional=("clipValueMin", "clipValueMax"), check=_check_bounds),
)
generate(__name__, ROWS)
