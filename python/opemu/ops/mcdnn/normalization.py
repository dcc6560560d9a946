"""mcdnnNormalization* (cuDNN 8's generalized batch normalization; reference mcdnn.md §3.9; seed 3.1.1.11-3.1.1.13,
3.1.1.15, 3.1.1.16): the batch normalization math of batchnorm.py with MCDNN_NORM_PER_CHANNEL ≡ SPATIAL and
MCDNN_NORM_PER_ACTIVATION ≡ PER_ACTIVATION, a separate normMeanVarDesc for the running and saved statistics,
`algo` (STANDARD or PERSIST: the same arithmetic here), and `groupCnt`, which must be 1 (NOT_SUPPORTED
otherwise). NORM_ACTIVATION / NORM_ADD_ACTIVATION are the fused ReLU (and residual add) of the BN Ex routines,
with the same reserve-space keep mask, so a forward of either family pairs with a backward of either.

epsilon must be >= 0 (BAD_PARAM otherwise). The NULLs a framework passes for plain normOps (zDesc, z, yDesc,
y, dzDesc, dz, normBias in backward, activationDesc, workspace and reserve space of size 0) are accepted."""
from opemu.ops.mcdnn.batchnorm import BF16, DOUBLE, FLOAT, HALF, Normalization, _SizeQuery

_ALL = (HALF, BF16, FLOAT, DOUBLE)


class NormalizationForwardInference(Normalization):
    name = "mcdnnNormalizationForwardInference"
    family = "norm"
    stage = "inference"
    data_types = _ALL
    roles = dict(mode="mode", ops="normOps", algo="algo", alpha="alpha", beta="beta", xd="xDesc", x="x",
                 pd="normScaleBiasDesc", scale="normScale", bias="normBias", mvd="normMeanVarDesc",
                 emean="estimatedMean", evar="estimatedVariance", zd="zDesc", z="z", act="activationDesc",
                 yd="yDesc", y="y", eps="epsilon", groups="groupCnt")



class NormalizationForwardTraining(Normalization):
    name = "mcdnnNormalizationForwardTraining"
    family = "norm"
    stage = "training"
    data_types = _ALL
    roles = dict(mode="mode", ops="normOps", algo="algo", alpha="alpha", beta="beta", xd="xDesc", x="xData",
                 pd="normScaleBiasDesc", scale="normScale", bias="normBias", factor="exponentialAverageFactor",
                 mvd="normMeanVarDesc", rmean="resultRunningMean", rvar="resultRunningVariance", eps="epsilon",
                 smean="resultSaveMean", sinv="resultSaveInvVariance", act="activationDesc", zd="zDesc", z="zData",
                 yd="yDesc", y="yData", ws="workspace", wsize="workSpaceSizeInBytes", rs="reserveSpace",
                 rsize="reserveSpaceSizeInBytes", groups="groupCnt")



class NormalizationBackward(Normalization):
    name = "mcdnnNormalizationBackward"
    family = "norm"
    stage = "backward"
    data_types = _ALL
    roles = dict(mode="mode", ops="normOps", algo="algo", xd="xDesc", x="xData", yd="yDesc", y="yData",
                 dyd="dyDesc", dy="dyData", dzd="dzDesc", dz="dzData", dxd="dxDesc", dx="dxData",
                 pd="dNormScaleBiasDesc", scale="normScaleData", bias="normBiasData", dscale="dNormScaleData",
                 dbias="dNormBiasData", eps="epsilon", mvd="normMeanVarDesc", smean="savedMean",
                 sinv="savedInvVariance", act="activationDesc", ws="workSpace", wsize="workSpaceSizeInBytes",
                 rs="reserveSpace", rsize="reserveSpaceSizeInBytes", groups="groupCnt")



class GetNormalizationForwardTrainingWorkspaceSize(_SizeQuery):
    name = "mcdnnGetNormalizationForwardTrainingWorkspaceSize"
    family = "norm"
    query = "forward"
    roles = dict(mode="mode", ops="normOps", algo="algo", xd="xDesc", zd="zDesc", yd="yDesc", pd="normScaleBiasDesc",
                 act="activationDesc", mvd="normMeanVarDesc", size="sizeInBytes", groups="groupCnt")


class GetNormalizationBackwardWorkspaceSize(_SizeQuery):
    name = "mcdnnGetNormalizationBackwardWorkspaceSize"
    family = "norm"
    query = "backward"
    roles = dict(mode="mode", ops="normOps", algo="algo", xd="xDesc", yd="yDesc", dyd="dyDesc", dzd="dzDesc",
                 dxd="dxDesc", pd="dNormScaleBiasDesc", act="activationDesc", mvd="normMeanVarDesc",
                 size="sizeInBytes", groups="groupCnt")


class GetNormalizationTrainingReserveSpaceSize(_SizeQuery):
    name = "mcdnnGetNormalizationTrainingReserveSpaceSize"
    family = "norm"
    query = "reserve"
    roles = dict(mode="mode", ops="normOps", algo="algo", act="activationDesc", xd="xDesc", size="sizeInBytes",
                 groups="groupCnt")
