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
    mcdnnBackendExecute
    mcdnnBackendFinalize
    mcdnnBatchNormalizationBackward
    mcdnnBatchNormalizationBackwardEx
    mcdnnBatchNormalizationForwardInference
    mcdnnBatchNormalizationForwardTraining
    mcdnnBatchNormalizationForwardTrainingEx
    mcdnnCTCLoss
    mcdnnCTCLoss_v8
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
    mcdnnGetCTCLossWorkspaceSize
    mcdnnGetCTCLossWorkspaceSize_v8
    mcdnnGetConvolutionBackwardDataAlgorithm_v7
    mcdnnGetConvolutionBackwardDataWorkspaceSize
    mcdnnGetConvolutionBackwardFilterAlgorithm_v7
    mcdnnGetConvolutionBackwardFilterWorkspaceSize
    mcdnnGetConvolutionForwardAlgorithm_v7
    mcdnnGetConvolutionForwardWorkspaceSize
    mcdnnGetMultiHeadAttnBuffers
    mcdnnGetMultiHeadAttnWeights
    mcdnnGetNormalizationBackwardWorkspaceSize
    mcdnnGetNormalizationForwardTrainingWorkspaceSize
    mcdnnGetNormalizationTrainingReserveSpaceSize
    mcdnnGetRNNTempSpaceSizes
    mcdnnGetRNNWeightParams
    mcdnnGetRNNWeightSpaceSize
    mcdnnGetReductionIndicesSize
    mcdnnGetReductionWorkspaceSize
    mcdnnIm2Col
    mcdnnLRNCrossChannelBackward
    mcdnnLRNCrossChannelForward
    mcdnnMultiHeadAttnBackwardData
    mcdnnMultiHeadAttnBackwardWeights
    mcdnnMultiHeadAttnForward
    mcdnnNormalizationBackward
    mcdnnNormalizationForwardInference
    mcdnnNormalizationForwardTraining
    mcdnnOpTensor
    mcdnnPoolingBackward
    mcdnnPoolingForward
    mcdnnRNNBackwardData_v8
    mcdnnRNNBackwardWeights_v8
    mcdnnRNNForward
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

# mcBLAS and mcBLASLt routines whose arithmetic is Python's (NumPy's BLAS, LAPACK); handles, descriptors and the
# rest are C's.
MCBLAS = frozenset("""
    mcblasAsumEx
    mcblasAxpyEx
    mcblasCaxpy
    mcblasCcopy
    mcblasCdgmm
    mcblasCdotc
    mcblasCdotu
    mcblasCgbmv
    mcblasCgeam
    mcblasCgelsBatched
    mcblasCgemm
    mcblasCgemm3m
    mcblasCgemm3mBatched
    mcblasCgemm3mEx
    mcblasCgemm3mStridedBatched
    mcblasCgemmBatched
    mcblasCgemmEx
    mcblasCgemmStridedBatched
    mcblasCgemv
    mcblasCgemvBatched
    mcblasCgemvStridedBatched
    mcblasCgeqrfBatched
    mcblasCgerc
    mcblasCgeru
    mcblasCgetrfBatched
    mcblasCgetriBatched
    mcblasCgetrsBatched
    mcblasChbmv
    mcblasChemm
    mcblasChemv
    mcblasCher
    mcblasCher2
    mcblasCher2k
    mcblasCherk
    mcblasCherkx
    mcblasChpmv
    mcblasChpr
    mcblasChpr2
    mcblasCmatinvBatched
    mcblasCopyEx
    mcblasCrot
    mcblasCrotg
    mcblasCscal
    mcblasCsrot
    mcblasCsscal
    mcblasCswap
    mcblasCsymm
    mcblasCsymv
    mcblasCsyr
    mcblasCsyr2
    mcblasCsyr2k
    mcblasCsyrk
    mcblasCsyrkx
    mcblasCtbmv
    mcblasCtbsv
    mcblasCtpmv
    mcblasCtpsv
    mcblasCtpttr
    mcblasCtrmm
    mcblasCtrmv
    mcblasCtrsm
    mcblasCtrsmBatched
    mcblasCtrsv
    mcblasCtrttp
    mcblasDasum
    mcblasDaxpy
    mcblasDcopy
    mcblasDdgmm
    mcblasDdot
    mcblasDgbmv
    mcblasDgeam
    mcblasDgelsBatched
    mcblasDgemm
    mcblasDgemmBatched
    mcblasDgemmStridedBatched
    mcblasDgemv
    mcblasDgemvBatched
    mcblasDgemvStridedBatched
    mcblasDgeqrfBatched
    mcblasDger
    mcblasDgetrfBatched
    mcblasDgetriBatched
    mcblasDgetrsBatched
    mcblasDmatinvBatched
    mcblasDnrm2
    mcblasDotEx
    mcblasDotcEx
    mcblasDrot
    mcblasDrotg
    mcblasDsbmv
    mcblasDscal
    mcblasDspmv
    mcblasDspr
    mcblasDspr2
    mcblasDswap
    mcblasDsymm
    mcblasDsymv
    mcblasDsyr
    mcblasDsyr2
    mcblasDsyr2k
    mcblasDsyrk
    mcblasDsyrkx
    mcblasDtbmv
    mcblasDtbsv
    mcblasDtpmv
    mcblasDtpsv
    mcblasDtpttr
    mcblasDtrmm
    mcblasDtrmv
    mcblasDtrsm
    mcblasDtrsmBatched
    mcblasDtrsv
    mcblasDtrttp
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
    mcblasIamaxEx
    mcblasIaminEx
    mcblasIcamax
    mcblasIcamin
    mcblasIdamax
    mcblasIdamin
    mcblasIsamax
    mcblasIsamin
    mcblasIzamax
    mcblasIzamin
    mcblasLtMatmul
    mcblasLtMatmulAlgoCheck
    mcblasLtMatmulAlgoGetHeuristic
    mcblasLtMatmulAlgoGetIds
    mcblasLtMatmulAlgoInit
    mcblasLtMatrixTransform
    mcblasNrm2Ex
    mcblasSasum
    mcblasSaxpy
    mcblasScalEx
    mcblasScasum
    mcblasScnrm2
    mcblasScopy
    mcblasSdgmm
    mcblasSdot
    mcblasSetMatrix
    mcblasSetMatrixAsync
    mcblasSetVector
    mcblasSetVectorAsync
    mcblasSgbmv
    mcblasSgeam
    mcblasSgelsBatched
    mcblasSgemm
    mcblasSgemmBatched
    mcblasSgemmEx
    mcblasSgemmStridedBatched
    mcblasSgemv
    mcblasSgemvBatched
    mcblasSgemvStridedBatched
    mcblasSgeqrfBatched
    mcblasSger
    mcblasSgetrfBatched
    mcblasSgetriBatched
    mcblasSgetrsBatched
    mcblasSmatinvBatched
    mcblasSnrm2
    mcblasSrot
    mcblasSrotg
    mcblasSsbmv
    mcblasSscal
    mcblasSspmv
    mcblasSspr
    mcblasSspr2
    mcblasSswap
    mcblasSsymm
    mcblasSsymv
    mcblasSsyr
    mcblasSsyr2
    mcblasSsyr2k
    mcblasSsyrk
    mcblasSsyrkx
    mcblasStbmv
    mcblasStbsv
    mcblasStpmv
    mcblasStpsv
    mcblasStpttr
    mcblasStrmm
    mcblasStrmv
    mcblasStrsm
    mcblasStrsmBatched
    mcblasStrsv
    mcblasStrttp
    mcblasSwapEx
    mcblasZaxpy
    mcblasZcopy
    mcblasZdgmm
    mcblasZdotc
    mcblasZdotu
    mcblasZdrot
    mcblasZdscal
    mcblasZgbmv
    mcblasZgeam
    mcblasZgelsBatched
    mcblasZgemm
    mcblasZgemm3m
    mcblasZgemmBatched
    mcblasZgemmStridedBatched
    mcblasZgemv
    mcblasZgemvBatched
    mcblasZgemvStridedBatched
    mcblasZgeqrfBatched
    mcblasZgerc
    mcblasZgeru
    mcblasZgetrfBatched
    mcblasZgetriBatched
    mcblasZgetrsBatched
    mcblasZhbmv
    mcblasZhemm
    mcblasZhemv
    mcblasZher
    mcblasZher2
    mcblasZher2k
    mcblasZherk
    mcblasZherkx
    mcblasZhpmv
    mcblasZhpr
    mcblasZhpr2
    mcblasZmatinvBatched
    mcblasZrot
    mcblasZrotg
    mcblasZscal
    mcblasZswap
    mcblasZsymm
    mcblasZsymv
    mcblasZsyr
    mcblasZsyr2
    mcblasZsyr2k
    mcblasZsyrk
    mcblasZsyrkx
    mcblasZtbmv
    mcblasZtbsv
    mcblasZtpmv
    mcblasZtpsv
    mcblasZtpttr
    mcblasZtrmm
    mcblasZtrmv
    mcblasZtrsm
    mcblasZtrsmBatched
    mcblasZtrsv
    mcblasZtrttp
""".split())


def python_entry_points():
    """Every exported function the embedded interpreter implements."""
    return (frozenset(name + "GetWorkspaceSize" for name in ACLNN_OPERATORS) | MCDNN | MCBLAS)
