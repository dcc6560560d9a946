"""Phase 1 of the operators opbuild generates from an op_host definition (no op_api file): the generated
function refuses null tensors, then a product the definition's AddConfig list does not name (ACLNN_ERR_RUNTIME_ERROR,
opemu's platform rule), then a dtype combination the definition does not list (ACLNN_ERR_PARAM_INVALID); the
shape rules are the tiling's (ACLNN_ERR_INNER_TILING_ERROR, phase 1 too)."""
from opemu.core import checks, dtypes, status
from opemu.ops.aclnn.common import products as _products


def check(op_name, a, names, combinations, lines):
    """nulls → product → dtype combination; `combinations`: the definition's columns as tuples of dtype codes, one
    entry per tensor in `names` (a None tensor, an absent optional input, matches any)."""
    checks.not_null(a, *[n for n in names if not n.endswith("Optional")])
    _products.check_supported(op_name, lines)
    present = [(n, getattr(a, n)) for n in names]
    for combo in combinations:
        if all(t is None or t.dtype == code for (_, t), code in zip(present, combo)):
            return
    raise status.param_invalid("The dtypes of %s are not a supported combination." % ", ".join(
        "%s %s" % (n, dtypes.serial_name(t.dtype)) for n, t in present if t is not None))


def tiling_error(op_name, message):
    return status.tiling_error("%s tiling: %s" % (op_name, message))
