"""opbase's parameter-error log formats (op_common/log/log.h, OP_LOGE_FOR_INVALID_*), which the newer op_api files
(convolutions and others) report their refusals in: ACLNN_ERR_PARAM_INVALID with

    Parameter <name> of <op> has incorrect <what> <got>. It should be <want>.
    Parameter <name> of <op> has incorrect <what> <got>. Reason: <reason>.
    Parameters <names> of <op> have incorrect <whats> <got>. Reason: <reason>.

<what> is value, shape, shape dim, format, dtype or element nums (a list's size)."""
from opemu.core import checks, status


def should_be(op, name, what, got, want):
    return status.param_invalid("Parameter %s of %s has incorrect %s %s. It should be %s." % (name, op, what, got, want))


def reason(op, name, what, got, why):
    return status.param_invalid("Parameter %s of %s has incorrect %s %s. Reason: %s." % (name, op, what, got, why))


def reasons(op, names, whats, got, why):
    return status.param_invalid("Parameters %s of %s have incorrect %s %s. Reason: %s." % (names, op, whats, got, why))


def null(op, name):
    """CHECK_PARAM_NULLPTR: ACLNN_ERR_PARAM_NULLPTR in the value form."""
    return status.param_nullptr("Parameter %s of %s has incorrect value nullptr. It should be not nullptr." % (name, op))


def shape(values):
    """op::FVectorToString / ToString of a shape or int list: [1, 2, 3]."""
    return checks.shape_text(values)
