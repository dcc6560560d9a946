"""The entry points opemu implements in Python: the explicit list of the "declared once" design.

Every function of the vendor headers is exported. One that C defines is C's (the build asks `nm`);
one named here is routed into the embedded interpreter; every other one is a generated C shim that
answers its family's not-supported status without starting Python. The build reads this file as
plain data (cmake/gen_bridge.py executes it alone, without numpy), so it imports nothing.

An aclnn operator is named by its phase-2 function (`aclnnEmbedding`): its
`aclnnXxxGetWorkspaceSize` runs the op's check and workspace in Python, `aclnnXxx` is C's launcher.
A test keeps this list and the registries (opemu.core.op.OPS, opemu.core.mcdnn.OPS, …) equal."""

ACLNN_OPERATORS = frozenset("""
    aclnnAbs aclnnAdd aclnnAdds aclnnCos aclnnDiv aclnnDivs aclnnExp aclnnGelu aclnnGeluV2
    aclnnInplaceAdd aclnnInplaceAdds aclnnInplaceCos aclnnInplaceDiv aclnnInplaceDivs aclnnInplaceExp
    aclnnInplaceLog aclnnInplaceMul aclnnInplaceMuls aclnnInplaceNeg aclnnInplacePowTensorScalar
    aclnnInplacePowTensorTensor aclnnInplaceRelu aclnnInplaceRsqrt aclnnInplaceSigmoid aclnnInplaceSin
    aclnnInplaceSqrt aclnnInplaceSub aclnnInplaceSubs aclnnInplaceTanh aclnnLog aclnnMaximum aclnnMinimum
    aclnnMul aclnnMuls aclnnNeg aclnnPowTensorScalar aclnnPowTensorTensor aclnnRelu aclnnRsqrt aclnnSigmoid
    aclnnSilu aclnnSin aclnnSqrt aclnnSub aclnnSubs aclnnTanh
    aclnnEqTensor aclnnNeTensor aclnnGtTensor aclnnLtTensor aclnnGeTensor aclnnLeTensor aclnnEqScalar
    aclnnInplaceEqTensor aclnnInplaceNeTensor aclnnInplaceGtTensor aclnnInplaceLtTensor aclnnInplaceGeTensor
    aclnnInplaceLeTensor aclnnInplaceEqScalar aclnnClamp aclnnCast aclnnSWhere
    aclnnReduceSum aclnnMean aclnnArgMax aclnnNorm
    aclnnInplaceZero aclnnInplaceOne aclnnInplaceFillScalar aclnnInplaceFillTensor aclnnInplaceCopy aclnnArange
    aclnnMatmul aclnnMm aclnnBatchMatMul aclnnAddmm aclnnInplaceAddmm
    aclnnSoftmax aclnnLogSoftmax aclnnRmsNorm aclnnLayerNorm
    aclnnTopk aclnnCat aclnnSplitWithSize aclnnRepeat aclnnPermute aclnnIndexSelect aclnnIndexPutImpl
    aclnnApplyFusedEmaAdam
    aclnnEmbedding
    aclnnEmbeddingDenseBackward
    aclnnFusedCrossEntropyLossWithMaxSum
    aclnnFusedLinearCrossEntropyLossGrad
    aclnnFusedLinearOnlineMaxSum
    aclnnNLLLoss
    aclnnNLLLoss2d
    aclnnNLLLoss2dBackward
    aclnnNLLLossBackward
""".split())

MCDNN = frozenset("""
    mcdnnActivationBackward
    mcdnnActivationForward
    mcdnnAddTensor
    mcdnnBatchNormalizationBackward
    mcdnnBatchNormalizationBackwardEx
    mcdnnBatchNormalizationForwardInference
    mcdnnBatchNormalizationForwardTraining
    mcdnnBatchNormalizationForwardTrainingEx
    mcdnnDivisiveNormalizationBackward
    mcdnnDivisiveNormalizationForward
    mcdnnDropoutBackward
    mcdnnDropoutForward
    mcdnnGetBatchNormalizationBackwardExWorkspaceSize
    mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize
    mcdnnGetBatchNormalizationTrainingExReserveSpaceSize
    mcdnnGetNormalizationBackwardWorkspaceSize
    mcdnnGetNormalizationForwardTrainingWorkspaceSize
    mcdnnGetNormalizationTrainingReserveSpaceSize
    mcdnnLRNCrossChannelBackward
    mcdnnLRNCrossChannelForward
    mcdnnNormalizationBackward
    mcdnnNormalizationForwardInference
    mcdnnNormalizationForwardTraining
    mcdnnPoolingBackward
    mcdnnPoolingForward
    mcdnnScaleTensor
    mcdnnSetDropoutDescriptor
    mcdnnSetTensor
    mcdnnSoftmaxBackward
    mcdnnSoftmaxForward
    mcdnnSpatialTfGridGeneratorBackward
    mcdnnSpatialTfGridGeneratorForward
    mcdnnSpatialTfSamplerBackward
    mcdnnSpatialTfSamplerForward
    mcdnnTransformTensor
""".split())

# mcBLAS routines whose arithmetic is Python's (NumPy's BLAS); handles and the rest are C's.
MCBLAS = frozenset()


def python_entry_points():
    """Every exported function the embedded interpreter implements."""
    return (frozenset(name + "GetWorkspaceSize" for name in ACLNN_OPERATORS) | MCDNN | MCBLAS)
