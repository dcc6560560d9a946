"""The entry points opemu implements in Python: the explicit list of the "declared once" design.

Every function of the vendor headers is exported. One that C defines is C's (the build asks `nm`);
one named here is routed into the embedded interpreter; every other one is a generated C shim that
answers its family's not-supported status without starting Python. The build reads this file as
plain data (cmake/gen_bridge.py executes it alone, without numpy), so it imports nothing.

An aclnn operator is named by its phase-2 function (`aclnnEmbedding`): its
`aclnnXxxGetWorkspaceSize` runs the op's check and workspace in Python, `aclnnXxx` is C's launcher.
A test keeps this list and the registries (opemu.core.op.OPS, opemu.core.mcdnn.OPS, …) equal."""

ACLNN_OPERATORS = frozenset("""
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
    mcdnnConvolutionBackwardBias
    mcdnnConvolutionBackwardData
    mcdnnConvolutionBackwardFilter
    mcdnnConvolutionBiasActivationForward
    mcdnnConvolutionForward
    mcdnnDivisiveNormalizationBackward
    mcdnnDivisiveNormalizationForward
    mcdnnDropoutBackward
    mcdnnDropoutForward
    mcdnnFindConvolutionBackwardDataAlgorithm
    mcdnnFindConvolutionBackwardDataAlgorithmEx
    mcdnnFindConvolutionBackwardFilterAlgorithm
    mcdnnFindConvolutionBackwardFilterAlgorithmEx
    mcdnnFindConvolutionForwardAlgorithm
    mcdnnFindConvolutionForwardAlgorithmEx
    mcdnnGetBatchNormalizationBackwardExWorkspaceSize
    mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize
    mcdnnGetBatchNormalizationTrainingExReserveSpaceSize
    mcdnnGetConvolutionBackwardDataAlgorithm_v7
    mcdnnGetConvolutionBackwardDataWorkspaceSize
    mcdnnGetConvolutionBackwardFilterAlgorithm_v7
    mcdnnGetConvolutionBackwardFilterWorkspaceSize
    mcdnnGetConvolutionForwardAlgorithm_v7
    mcdnnGetConvolutionForwardWorkspaceSize
    mcdnnGetNormalizationBackwardWorkspaceSize
    mcdnnGetNormalizationForwardTrainingWorkspaceSize
    mcdnnGetNormalizationTrainingReserveSpaceSize
    mcdnnGetReductionIndicesSize
    mcdnnGetReductionWorkspaceSize
    mcdnnIm2Col
    mcdnnLRNCrossChannelBackward
    mcdnnLRNCrossChannelForward
    mcdnnNormalizationBackward
    mcdnnNormalizationForwardInference
    mcdnnNormalizationForwardTraining
    mcdnnOpTensor
    mcdnnPoolingBackward
    mcdnnPoolingForward
    mcdnnReduceTensor
    mcdnnScaleTensor
    mcdnnSetDropoutDescriptor
    mcdnnSetTensor
    mcdnnSoftmaxBackward
    mcdnnSoftmaxForward
    mcdnnSpatialTfGridGeneratorBackward
    mcdnnSpatialTfGridGeneratorForward
    mcdnnSpatialTfSamplerBackward
    mcdnnSpatialTfSamplerForward
    mcdnnTransformFilter
    mcdnnTransformTensor
    mcdnnTransformTensorEx
""".split())

# mcBLAS routines whose arithmetic is Python's (NumPy's BLAS); handles and the rest are C's.
MCBLAS = frozenset("""
    mcblasCaxpy
    mcblasCcopy
    mcblasCdgmm
    mcblasCdotc
    mcblasCdotu
    mcblasCgeam
    mcblasCgemm
    mcblasCgemmBatched
    mcblasCgemmStridedBatched
    mcblasCgemv
    mcblasCgerc
    mcblasCgeru
    mcblasChemm
    mcblasChemv
    mcblasCherk
    mcblasCrot
    mcblasCscal
    mcblasCsrot
    mcblasCsscal
    mcblasCswap
    mcblasCsymm
    mcblasCsymv
    mcblasCsyrk
    mcblasCtrmm
    mcblasCtrmv
    mcblasCtrsm
    mcblasCtrsv
    mcblasDasum
    mcblasDaxpy
    mcblasDcopy
    mcblasDdgmm
    mcblasDdot
    mcblasDgeam
    mcblasDgemm
    mcblasDgemmBatched
    mcblasDgemmStridedBatched
    mcblasDgemv
    mcblasDger
    mcblasDnrm2
    mcblasDrot
    mcblasDscal
    mcblasDswap
    mcblasDsymm
    mcblasDsymv
    mcblasDsyrk
    mcblasDtrmm
    mcblasDtrmv
    mcblasDtrsm
    mcblasDtrsv
    mcblasDzasum
    mcblasDznrm2
    mcblasGemmBatchedEx
    mcblasGemmEx
    mcblasGemmStridedBatchedEx
    mcblasGetMatrix
    mcblasGetMatrixAsync
    mcblasGetVector
    mcblasGetVectorAsync
    mcblasHgemm
    mcblasHgemmBatched
    mcblasHgemmStridedBatched
    mcblasIcamax
    mcblasIcamin
    mcblasIdamax
    mcblasIdamin
    mcblasIsamax
    mcblasIsamin
    mcblasIzamax
    mcblasIzamin
    mcblasSasum
    mcblasSaxpy
    mcblasScasum
    mcblasScnrm2
    mcblasScopy
    mcblasSdgmm
    mcblasSdot
    mcblasSetMatrix
    mcblasSetMatrixAsync
    mcblasSetVector
    mcblasSetVectorAsync
    mcblasSgeam
    mcblasSgemm
    mcblasSgemmBatched
    mcblasSgemmStridedBatched
    mcblasSgemv
    mcblasSger
    mcblasSnrm2
    mcblasSrot
    mcblasSscal
    mcblasSswap
    mcblasSsymm
    mcblasSsymv
    mcblasSsyrk
    mcblasStrmm
    mcblasStrmv
    mcblasStrsm
    mcblasStrsv
    mcblasZaxpy
    mcblasZcopy
    mcblasZdgmm
    mcblasZdotc
    mcblasZdotu
    mcblasZdrot
    mcblasZdscal
    mcblasZgeam
    mcblasZgemm
    mcblasZgemmBatched
    mcblasZgemmStridedBatched
    mcblasZgemv
    mcblasZgerc
    mcblasZgeru
    mcblasZhemm
    mcblasZhemv
    mcblasZherk
    mcblasZrot
    mcblasZscal
    mcblasZswap
    mcblasZsymm
    mcblasZsymv
    mcblasZsyrk
    mcblasZtrmm
    mcblasZtrmv
    mcblasZtrsm
    mcblasZtrsv
""".split())


def python_entry_points():
    """Every exported function the embedded interpreter implements."""
    return (frozenset(name + "GetWorkspaceSize" for name in ACLNN_OPERATORS) | MCDNN | MCBLAS)
