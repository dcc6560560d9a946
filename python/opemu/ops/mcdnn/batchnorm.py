"""Batch normalization: the kernels shared with the mcdnnNormalization* family, and the mcdnnBatchNormalization*
routines (reference mcdnn.md §3.1, §3.1b, §3.9; seed 3.1.1.2-3.1.1.5, 3.1.1.8-3.1.1.10).

Math (M = elements per statistic: N·spatial per channel, N per activation):
    mean = Σx/M, var = Σ(x-mean)²/M (biased: normalizes y and gives saveInvVariance = 1/sqrt(var+eps));
    running stats: r = (1-f)·r + f·new, the variance unbiased (var·M/(M-1)); f == 1 does not read r;
    y = alpha·act(scale·(x-mean)·invstd + bias [+ z]) + beta·y;
    backward (dy' = dy·act'(y_pre), read from the reserve): dBias = Σdy', dScale = Σdy'·xhat,
    dx = scale·invstd/M·(M·dy' - dBias - xhat·dScale), dz = dy' — data gradients blended with the DataDiff
    pair, dScale/dBias with the ParamDiff pair (betaParamDiff = 1 accumulates).

How: when every data tensor keeps each channel's spatial plane apart (NCHW-like layouts, per-channel
mode, plain ops) the routines walk blocks of channels: a block is read in place (gathered into scratch
when it needs a conversion), reduced (sums over the batch in the compute type then over the plane in
float64; BLAS dot products of rows centred on the fp32-rounded mean — the saved mean in the backward —
corrected in float64), transformed and written back while it is still in cache — one trip to memory, as
the hardware's per-channel kernels make.
Otherwise (NHWC, per activation, the fused ops) they walk images: each image's partial sums around its own
mean, combined in float64 in image order. The blocks are fixed by the shape, never by the thread count, so
results are deterministic. The float64 statistics live in the Ex / Normalization workspace when the app
gives one large enough, else on the host (a NULL workspace of size 0 behaves as the non-Ex routine, as
documented). fp16/bf16 are computed in fp32 and rounded once; double in double.

The reserve space of the fused ops (BN_ACTIVATION, BN_ADD_ACTIVATION: ReLU) holds the activation's
keep mask, one bit per element, image by image: forward writes it, backward reads it — an app that
loses it gets wrong gradients, as on the hardware. Plain BN needs no reserve (size 0).

Decisions where the documents leave room (docs/DESIGN-NOTES.md): the fused ops need NHWC layouts and a
RELU activation (NOT_SUPPORTED otherwise, as the seed states for the layout); ForwardTrainingEx
supports z only for HALF data (its configuration table); bf16 is supported where the seed's tables list
it (ForwardTraining; ForwardInference follows it); dz is blended with the DataDiff pair like dx."""
from opemu.core import device, mcdnn
from opemu.ops.mcdnn import bn_channels_last
from opemu.ops.mcdnn.bn_channels import affine_by_channels, backward_by_channels, forward_by_channels, small_backward
from opemu.ops.mcdnn.bn_checks import (check_backward, check_inference, check_size_query, check_training,
                                       epsilon_at_least, matching, param_layout, read_scalars, tensor_rank, verdict_key)
from opemu.ops.mcdnn.bn_common import (BF16, BN_MIN_EPSILON, BN_MODE, BN_OPS, DOUBLE, FLOAT, HALF, NORM_ALGO,
                                       NORM_MODE, NORM_OPS, OPS_ADD_ACTIVATION, OPS_NORM, backward_coefficients,
                                       as_positions, blend_param, invstd, param, running_update, unbiased)
from opemu.ops.mcdnn.bn_images import gradient_input, gradient_sums, moments, normalize

# ---------------------------------------------------------------- the routines, both families

class Normalization(mcdnn.McdnnOp):
    """The parts of a BN / normalization routine: `roles` names its parameters (role → header name);
    `family` is "bn" or "norm"; `stage` is "inference", "training" or "backward"."""
    roles = {}
    family = "bn"
    stage = None
    data_types = (HALF, FLOAT, DOUBLE, BF16)

    def __init_subclass__(cls, **kwargs):
        r = cls.roles
        if r and not cls.host_only:
            pairs = [("x", "xd"), ("y", "yd"), ("z", "zd"), ("dy", "dyd"), ("dx", "dxd"), ("dz", "dzd"),
                     ("scale", "pd"), ("bias", "pd"), ("dscale", "pd"), ("dbias", "pd"),
                     ("rmean", "mvd"), ("rvar", "mvd"), ("smean", "mvd"), ("sinv", "mvd"),
                     ("emean", "mvd"), ("evar", "mvd")]
            tensors = {r[p]: (r[d] if d in r else r["pd"]) for p, d in pairs if p in r}
            if "ws" in r:
                tensors[r["ws"]] = "_workspace_desc"
            if "rs" in r:
                tensors[r["rs"]] = "_reserve_desc"
            cls.tensors = tensors
            cls.outputs = tuple(r[p] for p in ("y", "dx", "dz", "dscale", "dbias", "rmean", "rvar", "smean", "sinv",
                                               "ws", "rs") if p in r)
        super().__init_subclass__(**kwargs)

    def check(self, a):
        """The stage's checks, once per verdict key: a call like one that passed gets that call's derived
        attributes (the `_` ones: layout, compute type, workspace and reserve descriptors) and reads only its
        scaling factors."""
        mcdnn.checked(verdict_key(self, a), self.stage_check, a)
        read_scalars(self, a)

    def stage_check(self, a):
        _STAGES[self.stage][0](self, a)

    def compute(self, a, v):
        if a._layout.positions:
            v = as_positions(a._layout, v)
        _STAGES[self.stage][1](self, a, v)

    # -- argument access by role
    def get(self, a, role):
        name = self.roles.get(role)
        return getattr(a, name) if name else None

    def name_of(self, role):
        return self.roles[role]

    def null(self, a, role):
        value = self.get(a, role)
        return value is None or (not isinstance(value, (mcdnn.Tensor, mcdnn.Struct)) and mcdnn.is_null(value))

    # -- the family's enums
    def per_channel(self, a):
        mode = self.get(a, "mode")
        if self.family == "bn":
            if mode not in BN_MODE.values():
                raise mcdnn.bad_param("invalid mcdnnBatchNormMode_t %d" % mode)
            return mode != BN_MODE["MCDNN_BATCHNORM_PER_ACTIVATION"]
        if mode not in NORM_MODE.values():
            raise mcdnn.bad_param("invalid mcdnnNormMode_t %d" % mode)
        return mode == NORM_MODE["MCDNN_NORM_PER_CHANNEL"]

    def mode_name(self, a):
        mode = self.get(a, "mode")
        table = BN_MODE if self.family == "bn" else NORM_MODE
        return next(k for k, v in table.items() if v == mode)

    def ops(self, a):
        if "ops" not in self.roles:
            return OPS_NORM
        ops = self.get(a, "ops")
        table, type_name = (BN_OPS, "mcdnnBatchNormOps_t") if self.family == "bn" else (NORM_OPS, "mcdnnNormOps_t")
        if ops not in table.values():
            raise mcdnn.bad_param("invalid %s %d" % (type_name, ops))
        return ops

    def ops_name(self, ops):
        table = BN_OPS if self.family == "bn" else NORM_OPS
        return next(k for k, v in table.items() if v == ops)

    def family_checks(self, a):
        """Normalization only: algo and groupCnt."""
        if self.family != "norm":
            return
        if self.get(a, "algo") not in NORM_ALGO.values():
            raise mcdnn.bad_param("invalid mcdnnNormAlgo_t %d" % self.get(a, "algo"))

    def group_count(self, a):
        if self.family == "norm" and self.get(a, "groups") != 1:
            raise mcdnn.not_supported("groupCnt is %d: only 1 is supported" % self.get(a, "groups"))

    def epsilon(self, a):
        if self.family == "bn":
            epsilon_at_least(self.get(a, "eps"), BN_MIN_EPSILON, "MCDNN_BN_MIN_EPSILON (%g)" % BN_MIN_EPSILON)
        else:
            epsilon_at_least(self.get(a, "eps"), 0.0, "0")

    # -- the descriptor checks every routine and its size query share
    def descriptor_checks(self, a, per_channel, ops):
        """BAD_PARAM for ranks, parameter layouts and mismatched data tensors, in the seed's order; the
        fused ops' extra tensors and descriptor."""
        r = self.roles
        data = [(r[k], self.get(a, k)) for k in ("xd", "yd", "dyd", "dxd") if k in r]
        tensor_rank(*data)
        x = self.get(a, "xd")
        for role in ("pd", "mvd"):
            if role in r and self.get(a, role) is not None:
                param_layout(r[role], self.get(a, role), x, per_channel, self.mode_name(a))
        return data

    def fused_checks(self, a, ops, with_z, with_dz):
        """BAD_PARAM for what the fused ops need; returns the activation snapshot (None for plain ops)."""
        if ops == OPS_NORM:
            return None
        name = self.ops_name(ops)
        if self.get(a, "act") is None:
            raise mcdnn.bad_param("activationDesc is NULL: %s needs it" % name)
        x = self.get(a, "xd")
        if ops == OPS_ADD_ACTIVATION:
            for role in (("z", "zd") if with_z else ()) + (("dz", "dzd") if with_dz else ()):
                if self.null(a, role):
                    raise mcdnn.bad_param("%s is NULL: %s needs it" % (self.name_of(role), name))
            for role in (("zd",) if with_z else ()) + (("dzd",) if with_dz else ()):
                t = self.get(a, role)
                if t is not None:
                    matching((self.name_of("xd"), x), (self.name_of(role), t))
        return self.get(a, "act")

    def write_size(self, a, value):
        device.ffi.cast("size_t *", self.get(a, "size"))[0] = int(value)


# ---------------------------------------------------------------- compute of the three stages

def inference_compute(op, a, v):
    layout, ct = a._layout, a._ct
    scale, bias = param(v[op.name_of("scale")]), param(v[op.name_of("bias")])
    mean, var = param(v[op.name_of("emean")]), param(v[op.name_of("evar")])
    inv = invstd(var, op.get(a, "eps"))
    a_coef = scale * inv
    b_coef = bias - mean * a_coef
    x, y = v[op.name_of("x")], v[op.name_of("y")]
    if layout.by_channels and affine_by_channels(layout, x, y, a_coef * a.alpha_value, b_coef * a.alpha_value, ct,
                                                 a.beta_value):
        return
    z = v.get(op.roles.get("z")) if a._ops == OPS_ADD_ACTIVATION else None
    normalize(layout, x, y, a_coef, b_coef, ct, a.alpha_value, a.beta_value, z=z,
              activation=a._activation)  # inference keeps no mask


def training_compute(op, a, v):
    layout, ct = a._layout, a._ct
    x = v[op.name_of("x")]
    workspace = v.get(op.roles.get("ws"))
    eps = op.get(a, "eps")
    scale, bias = param(v[op.name_of("scale")]), param(v[op.name_of("bias")])
    statistics = None
    if layout.by_channels:
        statistics = forward_by_channels(layout, x, v[op.name_of("y")], scale, bias, eps, ct, a.alpha_value,
                                         a.beta_value, workspace)
    elif layout.per_channel and a._activation is None:
        statistics = bn_channels_last.forward(layout, x, v[op.name_of("y")], scale, bias, eps, ct, a.alpha_value,
                                              a.beta_value, workspace)
    if statistics is not None:
        mean, var, inv = (t.reshape(layout.pshape) for t in statistics)
    else:
        mean, var = moments(layout, x, ct, workspace)
        inv = invstd(var, eps)
        a_coef = scale * inv
        b_coef = bias - mean * a_coef
        z = v.get(op.roles.get("z")) if a._ops == OPS_ADD_ACTIVATION else None
        reserve = v.get(op.roles.get("rs")) if a._activation is not None else None
        normalize(layout, x, v[op.name_of("y")], a_coef, b_coef, ct, a.alpha_value, a.beta_value, z=z,
                  activation=a._activation, reserve=reserve)
    factor = op.get(a, "factor")
    if v.get(op.roles["rmean"]) is not None:
        running_update(v[op.roles["rmean"]], mean, factor)
        running_update(v[op.roles["rvar"]], unbiased(var, layout.count), factor)
    if v.get(op.roles["smean"]) is not None:
        v[op.roles["smean"]][...] = mean.reshape(v[op.roles["smean"]].shape)
        v[op.roles["sinv"]][...] = inv.reshape(v[op.roles["sinv"]].shape)


def backward_compute(op, a, v):
    d_scale, d_bias = _data_gradient(op, a, v)
    blend_param(v[op.name_of("dscale")], d_scale, a.alphaParamDiff_value, a.betaParamDiff_value)
    blend_param(v[op.name_of("dbias")], d_bias, a.alphaParamDiff_value, a.betaParamDiff_value)


def _data_gradient(op, a, v):
    """Writes dx (and dz); returns dScale and dBias in float64, by the first walk that takes the tensors."""
    layout, ct = a._layout, a._ct
    x, dy, dx = v[op.name_of("x")], v[op.name_of("dy")], v[op.name_of("dx")]
    workspace = v.get(op.roles.get("ws"))
    saved_mean = v.get(op.roles["smean"])
    if layout.by_channels:
        saved_inv = None if saved_mean is None else v[op.roles["sinv"]]
        sums = small_backward(layout, ct, (x, dy, dx, v[op.name_of("scale")], saved_mean, saved_inv, workspace),
                              op.get(a, "eps"), a.alphaDataDiff_value, a.betaDataDiff_value)
        if sums is not None:
            return sums
    scale = param(v[op.name_of("scale")])
    if layout.by_channels or (layout.per_channel and a._activation is None):
        mean = inv = None
        if saved_mean is not None:
            mean, inv = param(saved_mean), param(v[op.roles["sinv"]])
        walk = backward_by_channels if layout.by_channels else bn_channels_last.backward
        sums = walk(layout, x, dy, dx, scale, mean, inv, op.get(a, "eps"), ct, a.alphaDataDiff_value,
                    a.betaDataDiff_value, workspace)
        if sums is not None:
            return sums
    if saved_mean is not None:
        mean, inv = param(saved_mean), param(v[op.roles["sinv"]])
    else:
        mean, var = moments(layout, x, ct, workspace)
        inv = invstd(var, op.get(a, "eps"))
    reserve = v.get(op.roles.get("rs")) if a._activation is not None else None
    dz = v.get(op.roles.get("dz")) if a._ops == OPS_ADD_ACTIVATION else None
    sum_dy, sum_dyx = gradient_sums(layout, x, dy, mean, ct, workspace, reserve, dz, a.alphaDataDiff_value,
                                    a.betaDataDiff_value)
    d_scale, d_bias, a_coef, b_coef, c_coef = backward_coefficients(scale, mean, inv, sum_dy, sum_dyx, layout.count)
    gradient_input(layout, x, dy, dx, a_coef, b_coef, c_coef, ct, a.alphaDataDiff_value, a.betaDataDiff_value,
                   reserve)
    return d_scale, d_bias


_STAGES = {"inference": (check_inference, inference_compute), "training": (check_training, training_compute),
           "backward": (check_backward, backward_compute)}


# ---------------------------------------------------------------- mcdnnBatchNormalization*

_BN_TRAIN = (HALF, FLOAT, DOUBLE, BF16)   # ForwardTraining's table lists PSEUDO_BFLOAT16_CONFIG
_BN_EX = (HALF, FLOAT, DOUBLE)            # ForwardTrainingEx, Backward, BackwardEx


class BatchNormalizationForwardInference(Normalization):
    name = "mcdnnBatchNormalizationForwardInference"
    stage = "inference"
    roles = dict(mode="mode", alpha="alpha", beta="beta", xd="xDesc", x="x", yd="yDesc", y="y",
                 pd="bnScaleBiasMeanVarDesc", scale="bnScale", bias="bnBias", emean="estimatedMean",
                 evar="estimatedVariance", eps="epsilon")



class BatchNormalizationForwardTraining(Normalization):
    name = "mcdnnBatchNormalizationForwardTraining"
    stage = "training"
    data_types = _BN_TRAIN
    roles = dict(mode="mode", alpha="alpha", beta="beta", xd="xDesc", x="x", yd="yDesc", y="y",
                 pd="bnScaleBiasMeanVarDesc", scale="bnScale", bias="bnBias", factor="exponentialAverageFactor",
                 rmean="resultRunningMean", rvar="resultRunningVariance", eps="epsilon", smean="resultSaveMean",
                 sinv="resultSaveInvVariance")



class BatchNormalizationForwardTrainingEx(Normalization):
    name = "mcdnnBatchNormalizationForwardTrainingEx"
    stage = "training"
    data_types = _BN_EX
    z_types = (HALF,)
    roles = dict(mode="mode", ops="bnOps", alpha="alpha", beta="beta", xd="xDesc", x="xData", zd="zDesc", z="zData",
                 yd="yDesc", y="yData", pd="bnScaleBiasMeanVarDesc", scale="bnScale", bias="bnBias",
                 factor="exponentialAverageFactor", rmean="resultRunningMean", rvar="resultRunningVariance",
                 eps="epsilon", smean="resultSaveMean", sinv="resultSaveInvVariance", act="activationDesc",
                 ws="workspace", wsize="workSpaceSizeInBytes", rs="reserveSpace", rsize="reserveSpaceSizeInBytes")



class BatchNormalizationBackward(Normalization):
    name = "mcdnnBatchNormalizationBackward"
    stage = "backward"
    data_types = _BN_EX
    roles = dict(mode="mode", xd="xDesc", x="x", dyd="dyDesc", dy="dy", dxd="dxDesc", dx="dx",
                 pd="dBnScaleBiasDesc", scale="bnScale", dscale="dBnScaleResult", dbias="dBnBiasResult",
                 eps="epsilon", smean="savedMean", sinv="savedInvVariance")



class BatchNormalizationBackwardEx(Normalization):
    name = "mcdnnBatchNormalizationBackwardEx"
    stage = "backward"
    data_types = _BN_EX
    roles = dict(mode="mode", ops="bnOps", xd="xDesc", x="xData", yd="yDesc", y="yData", dyd="dyDesc", dy="dyData",
                 dzd="dzDesc", dz="dzData", dxd="dxDesc", dx="dxData", pd="dBnScaleBiasDesc", scale="bnScaleData",
                 bias="bnBiasData", dscale="dBnScaleData", dbias="dBnBiasData", eps="epsilon", smean="savedMean",
                 sinv="savedInvVariance", act="activationDesc", ws="workSpace", wsize="workSpaceSizeInBytes",
                 rs="reserveSpace", rsize="reserveSpaceSizeInBytes")



class _SizeQuery(Normalization):
    host_only = True
    query = None

    def check(self, a):
        check_size_query(self, a, self.query)

    def compute(self, a, v):
        self.write_size(a, a._size)


class GetBatchNormalizationForwardTrainingExWorkspaceSize(_SizeQuery):
    name = "mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize"
    query = "forward"
    roles = dict(mode="mode", ops="bnOps", xd="xDesc", zd="zDesc", yd="yDesc", pd="bnScaleBiasMeanVarDesc",
                 act="activationDesc", size="sizeInBytes")


class GetBatchNormalizationBackwardExWorkspaceSize(_SizeQuery):
    name = "mcdnnGetBatchNormalizationBackwardExWorkspaceSize"
    query = "backward"
    roles = dict(mode="mode", ops="bnOps", xd="xDesc", yd="yDesc", dyd="dyDesc", dzd="dzDesc", dxd="dxDesc",
                 pd="dBnScaleBiasDesc", act="activationDesc", size="sizeInBytes")


class GetBatchNormalizationTrainingExReserveSpaceSize(_SizeQuery):
    name = "mcdnnGetBatchNormalizationTrainingExReserveSpaceSize"
    query = "reserve"
    roles = dict(mode="mode", ops="bnOps", act="activationDesc", xd="xDesc", size="sizeInBytes")
