"""The checks of the batch normalization routines of both families, in the seed's order, and the verdict
key under which a passed check is remembered (mcdnn.checked)."""
from opemu.core import device, mcdnn
from opemu.ops.mcdnn.bn_common import OPS_ADD_ACTIVATION, OPS_NORM, PARAM_TYPE, RELU, byte_tensor, walk_layout

# ---------------------------------------------------------------- checks shared by both families

def tensor_rank(*named):
    for name, t in named:
        if t is not None and t.ndim not in (4, 5):
            raise mcdnn.bad_param("%s has %d dimensions: only 4-D and 5-D tensors are supported" % (name, t.ndim))


def param_layout(name, t, x, per_channel, mode_name):
    expected = (1, x.shape[1]) + ((1,) * (x.ndim - 2) if per_channel else x.shape[2:])
    if t.shape != expected:
        raise mcdnn.bad_param("%s has dims %s: %s on a %d-D x %s needs %s"
                              % (name, list(t.shape), mode_name, x.ndim, list(x.shape), list(expected)))


def null_pair(a, first, second):
    if mcdnn.is_null(getattr(a, first)) != mcdnn.is_null(getattr(a, second)):
        raise mcdnn.bad_param("only one of %s and %s is NULL: they may be NULL only together" % (first, second))


def epsilon_at_least(epsilon, minimum, what):
    if not epsilon >= minimum:
        raise mcdnn.bad_param("epsilon %r is less than %s" % (epsilon, what))


def matching(first, *others):
    mcdnn.same_dims(mcdnn.bad_param, first, *others)
    mcdnn.same_type(mcdnn.bad_param, first, *others)


def configuration(x_name, x, params, allowed):
    """NOT_SUPPORTED for a data type outside the routine's configuration table: x's type, and the
    parameter descriptors' (float for HALF/BFLOAT16/FLOAT data, double for DOUBLE)."""
    if x.dtype_code not in allowed:
        names = ", ".join(mcdnn.type_name(t) for t in allowed)
        raise mcdnn.not_supported("%s has data type %s: the supported configurations are %s"
                                  % (x_name, mcdnn.type_name(x.dtype_code), names))
    for name, t in params:
        if t is not None and t.dtype_code != PARAM_TYPE[x.dtype_code]:
            raise mcdnn.not_supported("%s has data type %s: %s data needs %s parameters"
                                      % (name, mcdnn.type_name(t.dtype_code), mcdnn.type_name(x.dtype_code),
                                         mcdnn.type_name(PARAM_TYPE[x.dtype_code])))


def channels_innermost(t):
    return t.shape[1] == 1 or (t.strides[1] == 1 and all(s >= t.shape[1] for i, s in enumerate(t.strides) if i != 1))


def fused_supported(ops_name, activation, named):
    """The fused ops: a RELU activation on NHWC tensors (NOT_SUPPORTED otherwise)."""
    if activation.mode != RELU:
        raise mcdnn.not_supported("%s fuses only MCDNN_ACTIVATION_RELU, the activation descriptor holds mode %d"
                                  % (ops_name, activation.mode))
    for name, t in named:
        if t is not None and not channels_innermost(t):
            raise mcdnn.not_supported("%s is supported only in the NHWC layout: %s has strides %s"
                                      % (ops_name, name, list(t.strides)))


def scalars(a, names, x):
    """Reads the named host scaling factors (float, or double for DOUBLE data) into a.<name>_value."""
    values = a.__dict__
    for name in names:
        values[name + "_value"] = mcdnn.scaling(values[name], x, name)


# ---------------------------------------------------------------- verdicts kept between calls

def verdict_key(op, a):
    """Everything the checks read: the numbers (mode, ops, epsilon, sizes…), the descriptor snapshots (shared
    per distinct C content by the bridge, and kept alive by the key: equal identity is equal content) and,
    of each pointer, only whether it is null (no check compares addresses; the scaling factors behind
    theirs are read at every call)."""
    null = device.ffi.NULL
    pointer = type(null)
    kept = (int, float, mcdnn.Tensor, mcdnn.Struct)
    key = [op.name]
    append = key.append
    for value in a.__dict__.values():
        if type(value) is pointer:
            append(not value)  # a cdata pointer is false when null: cheaper than comparing with NULL
        elif value is None or isinstance(value, kept):
            append(value)
        else:
            append(value == null)
    return tuple(key)


def read_scalars(op, a):
    """The stage's host scaling factors into a.<name>_value (and a.alpha_value / a.beta_value for the
    forward stages)."""
    r = op.roles
    if op.stage == "backward":
        scalars(a, ("alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff"), op.get(a, "xd"))
        return
    scalars(a, (r["alpha"], r["beta"]), op.get(a, "xd"))
    a.alpha_value, a.beta_value = getattr(a, r["alpha"] + "_value"), getattr(a, r["beta"] + "_value")


# ---------------------------------------------------------------- check of the three stages

def _finish(op, a, per_channel, ops, activation):
    """The checks every stage ends with, in the seed's order, then the attributes the compute uses."""
    read_scalars(op, a)
    op.group_count(a)
    _config(op, a)
    if activation is not None:
        fused_supported(op.ops_name(ops), activation, _data_named(op, a))
    _prepare(op, a, per_channel, ops, activation)


def _prepare(op, a, per_channel, ops, activation):
    x = op.get(a, "xd")
    a._layout = walk_layout(x.shape, per_channel, activation is None, _data(op, a), _params(op, a))
    a._ct = x.compute_dtype
    a._ops = ops
    a._activation = activation


def _workspace(op, a, nbytes):
    """The optional workspace (at most `nbytes` of it are used): each set of partial statistics goes there
    when it fits, else to the host — a NULL workspace of size 0 runs the routine as its non-Ex form."""
    a._workspace_desc = None
    if "ws" in op.roles and not op.null(a, "ws") and op.get(a, "wsize") > 0:
        a._workspace_desc = byte_tensor(min(op.get(a, "wsize"), nbytes))


def _reserve(op, a, layout, activation):
    """The reserve space: the keep mask of the fused ops; plain ops use none (size 0)."""
    a._reserve_desc = None
    if "rs" not in op.roles or activation is None:
        return
    need = layout.reserve()
    if op.null(a, "rs"):
        raise mcdnn.bad_param("reserveSpace is NULL: %s keeps its activation mask there (%d bytes)"
                              % (op.ops_name(a._ops), need))
    if op.get(a, "rsize") < need:
        raise mcdnn.bad_param("reserveSpaceSizeInBytes %d is less than the %d bytes the reserve-space size query "
                              "returns" % (op.get(a, "rsize"), need))
    a._reserve_desc = byte_tensor(need)


def check_inference(op, a):
    r = op.roles
    mcdnn.require(a, r["alpha"], r["beta"], r["x"], r["y"], r["scale"], r["bias"], r["emean"], r["evar"])
    mcdnn.require(a, r["xd"], r["yd"], r["pd"], *([r["mvd"]] if "mvd" in r else []))
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    op.descriptor_checks(a, per_channel, ops)
    op.epsilon(a)
    matching((r["xd"], op.get(a, "xd")), (r["yd"], op.get(a, "yd")))
    activation = op.fused_checks(a, ops, with_z=True, with_dz=False)
    _finish(op, a, per_channel, ops, activation)


def check_training(op, a):
    r = op.roles
    mcdnn.require(a, r["alpha"], r["beta"], r["x"], r["y"], r["scale"], r["bias"])
    mcdnn.require(a, r["xd"], r["yd"], r["pd"])
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    if "mvd" in r and op.get(a, "mvd") is None and not (op.null(a, "smean") and op.null(a, "rmean")):
        raise mcdnn.bad_param("%s is NULL but the running or saved statistics are not" % r["mvd"])
    op.descriptor_checks(a, per_channel, ops)
    null_pair(a, r["smean"], r["sinv"])
    null_pair(a, r["rmean"], r["rvar"])
    op.epsilon(a)
    matching((r["xd"], op.get(a, "xd")), (r["yd"], op.get(a, "yd")))
    activation = op.fused_checks(a, ops, with_z=True, with_dz=False)
    _finish(op, a, per_channel, ops, activation)
    _workspace(op, a, a._layout.forward_workspace())
    _reserve(op, a, a._layout, activation)


def check_backward(op, a):
    r = op.roles
    mcdnn.require(a, "alphaDataDiff", "betaDataDiff", "alphaParamDiff", "betaParamDiff", r["x"], r["dy"], r["dx"],
                  r["scale"], r["dscale"], r["dbias"])
    mcdnn.require(a, r["xd"], r["dyd"], r["dxd"], r["pd"])
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    if "mvd" in r and op.get(a, "mvd") is None and not op.null(a, "smean"):
        raise mcdnn.bad_param("%s is NULL but savedMean and savedInvVariance are not" % r["mvd"])
    op.descriptor_checks(a, per_channel, ops)
    null_pair(a, r["smean"], r["sinv"])
    op.epsilon(a)
    matching((r["xd"], op.get(a, "xd")), (r["dyd"], op.get(a, "dyd")), (r["dxd"], op.get(a, "dxd")))
    if "mvd" in r and op.get(a, "mvd") is not None:
        mcdnn.same_type(mcdnn.bad_param, (r["pd"], op.get(a, "pd")), (r["mvd"], op.get(a, "mvd")))
    activation = op.fused_checks(a, ops, with_z=False, with_dz=True)
    if activation is not None:
        for role in ("y", "yd", "bias"):
            if op.null(a, role):
                raise mcdnn.bad_param("%s is NULL: %s needs it" % (r[role], op.ops_name(ops)))
        matching((r["xd"], op.get(a, "xd")), (r["yd"], op.get(a, "yd")))
    _finish(op, a, per_channel, ops, activation)
    layout = a._layout  # without saved statistics the forward partials are recomputed first
    _workspace(op, a, max(layout.backward_workspace(), layout.forward_workspace() if op.null(a, "smean") else 0))
    _reserve(op, a, layout, activation)


def _data(op, a):
    return [op.get(a, k) for k in ("xd", "yd", "dyd", "dxd") if k in op.roles]


def _params(op, a):
    return [op.get(a, k) for k in ("pd", "mvd") if k in op.roles]


def _data_named(op, a):
    return [(op.roles[k], op.get(a, k)) for k in ("xd", "yd", "zd", "dyd", "dxd", "dzd") if k in op.roles]


def _config(op, a):
    r = op.roles
    params = [(r[k], op.get(a, k)) for k in ("pd", "mvd") if k in r]
    configuration(r["xd"], op.get(a, "xd"), params, op.data_types)
    z_types = getattr(op, "z_types", None)
    if z_types is not None and op.ops(a) == OPS_ADD_ACTIVATION and op.get(a, "xd").dtype_code not in z_types:
        raise mcdnn.not_supported("zDesc is not supported with %s data: only %s"
                                  % (mcdnn.type_name(op.get(a, "xd").dtype_code),
                                     ", ".join(mcdnn.type_name(t) for t in z_types)))


def check_size_query(op, a, stage):
    """The workspace / reserve size queries: the routine's descriptor checks, then the size."""
    r = op.roles
    mcdnn.require(a, r["size"], what="must not be null: the size is written there")
    mcdnn.require(a, r["xd"])
    per_channel = op.per_channel(a)
    ops = op.ops(a)
    op.family_checks(a)
    if "pd" in r:
        mcdnn.require(a, r["pd"])
    op.descriptor_checks(a, per_channel, ops)
    data = [(r[k], op.get(a, k)) for k in ("xd", "yd", "dyd", "dxd") if k in r and op.get(a, k) is not None]
    if ops == OPS_ADD_ACTIVATION:
        data += [(r[k], op.get(a, k)) for k in ("zd", "dzd") if k in r and op.get(a, k) is not None]
    if len(data) > 1:
        matching(*data)
    activation = None
    if ops != OPS_NORM:
        if op.get(a, "act") is None:
            raise mcdnn.bad_param("activationDesc is NULL: %s needs it" % op.ops_name(ops))
        activation = op.get(a, "act")
    op.group_count(a)
    if activation is not None:
        fused_supported(op.ops_name(ops), activation, _data_named(op, a))
    layout = walk_layout(op.get(a, "xd").shape, per_channel, activation is None, _data(op, a), _params(op, a))
    a._size = {"forward": layout.forward_workspace(), "backward": layout.backward_workspace(),
               "reserve": layout.reserve() if activation is not None else 0}[stage]
