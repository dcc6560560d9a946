/* mcDNN cnn_infer (opemu): convolution descriptors, forward convolution and its algorithm queries, the
 * backward-data convolution (it is a transposed forward), and the fused-ops plans (not emulated).
 *
 * Prototypes and values are cuDNN 8.9's renamed (cudnn -> mcdnn, CUDNN_ -> MCDNN_, cudaStream_t ->
 * mcStream_t): reference surface/mcdnn.tsv. */
#ifndef MCDNN_CNN_INFER_H_
#define MCDNN_CNN_INFER_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime.h"
#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"

#define MCDNN_CNN_INFER_MAJOR 1
#define MCDNN_CNN_INFER_MINOR 1
#define MCDNN_CNN_INFER_PATCH 1

#if (MCDNN_CNN_INFER_MAJOR != MCDNN_MAJOR) || (MCDNN_CNN_INFER_MINOR != MCDNN_MINOR) || \
    (MCDNN_CNN_INFER_PATCH != MCDNN_PATCHLEVEL)
#error Version mismatch between mcdnn_cnn_infer.h and mcdnn_version.h
#endif

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct mcdnnConvolutionStruct *mcdnnConvolutionDescriptor_t;
typedef enum {
    MCDNN_CONVOLUTION       = 0,
    MCDNN_CROSS_CORRELATION = 1
} mcdnnConvolutionMode_t;
typedef enum {
    MCDNN_DEFAULT_REORDER = 0,
    MCDNN_NO_REORDER      = 1
} mcdnnReorderType_t;
typedef struct mcdnnConvolutionFwdAlgoPerfStruct {
    mcdnnConvolutionFwdAlgo_t algo;
    mcdnnStatus_t status;
    float time;
    size_t memory;
    mcdnnDeterminism_t determinism;
    mcdnnMathType_t mathType;
    int reserved[3];
} mcdnnConvolutionFwdAlgoPerf_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateConvolutionDescriptor(mcdnnConvolutionDescriptor_t *convDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyConvolutionDescriptor(mcdnnConvolutionDescriptor_t convDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetConvolutionMathType(mcdnnConvolutionDescriptor_t convDesc,
                                                      mcdnnMathType_t mathType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionMathType(mcdnnConvolutionDescriptor_t convDesc,
                                                      mcdnnMathType_t *mathType);
mcdnnStatus_t MCDNNWINAPI mcdnnSetConvolutionGroupCount(mcdnnConvolutionDescriptor_t convDesc, int groupCount);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionGroupCount(mcdnnConvolutionDescriptor_t convDesc, int *groupCount);
mcdnnStatus_t MCDNNWINAPI mcdnnSetConvolutionReorderType(mcdnnConvolutionDescriptor_t convDesc,
                                                         mcdnnReorderType_t reorderType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionReorderType(mcdnnConvolutionDescriptor_t convDesc,
                                                         mcdnnReorderType_t *reorderType);
mcdnnStatus_t MCDNNWINAPI mcdnnSetConvolution2dDescriptor(mcdnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                          int u, int v, int dilation_h, int dilation_w,
                                                          mcdnnConvolutionMode_t mode, mcdnnDataType_t computeType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolution2dDescriptor(const mcdnnConvolutionDescriptor_t convDesc, int *pad_h,
                                                          int *pad_w, int *u, int *v, int *dilation_h,
                                                          int *dilation_w, mcdnnConvolutionMode_t *mode,
                                                          mcdnnDataType_t *computeType);
mcdnnStatus_t MCDNNWINAPI mcdnnSetConvolutionNdDescriptor(mcdnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                          const int padA[], const int filterStrideA[],
                                                          const int dilationA[], mcdnnConvolutionMode_t mode,
                                                          mcdnnDataType_t computeType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionNdDescriptor(const mcdnnConvolutionDescriptor_t convDesc,
                                                          int arrayLengthRequested, int *arrayLength, int padA[],
                                                          int strideA[], int dilationA[],
                                                          mcdnnConvolutionMode_t *mode, mcdnnDataType_t *computeType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolution2dForwardOutputDim(
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t inputTensorDesc,
    const mcdnnFilterDescriptor_t filterDesc, int *n, int *c, int *h, int *w);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionNdForwardOutputDim(
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t inputTensorDesc,
    const mcdnnFilterDescriptor_t filterDesc, int nbDims, int tensorOuputDimA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionForwardAlgorithmMaxCount(mcdnnHandle_t handle, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionForwardAlgorithm_v7(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t srcDesc, const mcdnnFilterDescriptor_t filterDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnConvolutionFwdAlgoPerf_t *perfResults);
mcdnnStatus_t MCDNNWINAPI mcdnnFindConvolutionForwardAlgorithm(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const mcdnnFilterDescriptor_t wDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnConvolutionFwdAlgoPerf_t *perfResults);
mcdnnStatus_t MCDNNWINAPI mcdnnFindConvolutionForwardAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const void *x, const mcdnnFilterDescriptor_t wDesc,
    const void *w, const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, mcdnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
    size_t workSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnIm2Col(mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const void *x,
                                      const mcdnnFilterDescriptor_t wDesc,
                                      const mcdnnConvolutionDescriptor_t convDesc, void *colBuffer);
mcdnnStatus_t MCDNNWINAPI mcdnnReorderFilterAndBias(mcdnnHandle_t handle, const mcdnnFilterDescriptor_t filterDesc,
                                                    mcdnnReorderType_t reorderType, const void *filterData,
                                                    void *reorderedFilterData, int reorderBias, const void *biasData,
                                                    void *reorderedBiasData);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionForwardWorkspaceSize(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const mcdnnFilterDescriptor_t wDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t yDesc, mcdnnConvolutionFwdAlgo_t algo,
    size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnConvolutionForward(mcdnnHandle_t handle, const void *alpha,
                                                  const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                  const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                  const mcdnnConvolutionDescriptor_t convDesc,
                                                  mcdnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                  size_t workSpaceSizeInBytes, const void *beta,
                                                  const mcdnnTensorDescriptor_t yDesc, void *y);
mcdnnStatus_t MCDNNWINAPI mcdnnConvolutionBiasActivationForward(
    mcdnnHandle_t handle, const void *alpha1, const mcdnnTensorDescriptor_t xDesc, const void *x,
    const mcdnnFilterDescriptor_t wDesc, const void *w, const mcdnnConvolutionDescriptor_t convDesc,
    mcdnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const mcdnnTensorDescriptor_t zDesc, const void *z, const mcdnnTensorDescriptor_t biasDesc, const void *bias,
    const mcdnnActivationDescriptor_t activationDesc, const mcdnnTensorDescriptor_t yDesc, void *y);
typedef struct mcdnnConvolutionBwdDataAlgoPerfStruct {
    mcdnnConvolutionBwdDataAlgo_t algo;
    mcdnnStatus_t status;
    float time;
    size_t memory;
    mcdnnDeterminism_t determinism;
    mcdnnMathType_t mathType;
    int reserved[3];
} mcdnnConvolutionBwdDataAlgoPerf_t;
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionBackwardDataAlgorithmMaxCount(mcdnnHandle_t handle, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnFindConvolutionBackwardDataAlgorithm(
    mcdnnHandle_t handle, const mcdnnFilterDescriptor_t wDesc, const mcdnnTensorDescriptor_t dyDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnConvolutionBwdDataAlgoPerf_t *perfResults);
mcdnnStatus_t MCDNNWINAPI mcdnnFindConvolutionBackwardDataAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnFilterDescriptor_t wDesc, const void *w, const mcdnnTensorDescriptor_t dyDesc,
    const void *dy, const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, mcdnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionBackwardDataAlgorithm_v7(
    mcdnnHandle_t handle, const mcdnnFilterDescriptor_t filterDesc, const mcdnnTensorDescriptor_t diffDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnConvolutionBwdDataAlgoPerf_t *perfResults);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionBackwardDataWorkspaceSize(
    mcdnnHandle_t handle, const mcdnnFilterDescriptor_t wDesc, const mcdnnTensorDescriptor_t dyDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t dxDesc,
    mcdnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnConvolutionBackwardData(mcdnnHandle_t handle, const void *alpha,
                                                       const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                       const mcdnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const mcdnnConvolutionDescriptor_t convDesc,
                                                       mcdnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                       size_t workSpaceSizeInBytes, const void *beta,
                                                       const mcdnnTensorDescriptor_t dxDesc, void *dx);
mcdnnStatus_t MCDNNWINAPI mcdnnGetFoldedConvBackwardDataDescriptors(
    const mcdnnHandle_t handle, const mcdnnFilterDescriptor_t filterDesc, const mcdnnTensorDescriptor_t diffDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnTensorDescriptor_t gradDesc,
    const mcdnnTensorFormat_t transformFormat, mcdnnFilterDescriptor_t foldedFilterDesc,
    mcdnnTensorDescriptor_t paddedDiffDesc, mcdnnConvolutionDescriptor_t foldedConvDesc,
    mcdnnTensorDescriptor_t foldedGradDesc, mcdnnTensorTransformDescriptor_t filterFoldTransDesc,
    mcdnnTensorTransformDescriptor_t diffPadTransDesc, mcdnnTensorTransformDescriptor_t gradFoldTransDesc,
    mcdnnTensorTransformDescriptor_t gradUnfoldTransDesc);
typedef struct mcdnnFusedOpsConstParamStruct *mcdnnFusedOpsConstParamPack_t;
typedef struct mcdnnFusedOpsVariantParamStruct *mcdnnFusedOpsVariantParamPack_t;
typedef struct mcdnnFusedOpsPlanStruct *mcdnnFusedOpsPlan_t;
typedef enum {
    MCDNN_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS    = 0,
    MCDNN_FUSED_SCALE_BIAS_ACTIVATION_WGRAD           = 1,
    MCDNN_FUSED_BN_FINALIZE_STATISTICS_TRAINING       = 2,
    MCDNN_FUSED_BN_FINALIZE_STATISTICS_INFERENCE      = 3,
    MCDNN_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION        = 4,
    MCDNN_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK = 5,
    MCDNN_FUSED_DACTIVATION_FORK_DBATCHNORM           = 6
} mcdnnFusedOps_t;
typedef enum {
    MCDNN_PARAM_XDESC                          = 0,
    MCDNN_PARAM_XDATA_PLACEHOLDER              = 1,
    MCDNN_PARAM_BN_MODE                        = 2,
    MCDNN_PARAM_BN_EQSCALEBIAS_DESC            = 3,
    MCDNN_PARAM_BN_EQSCALE_PLACEHOLDER         = 4,
    MCDNN_PARAM_BN_EQBIAS_PLACEHOLDER          = 5,
    MCDNN_PARAM_ACTIVATION_DESC                = 6,
    MCDNN_PARAM_CONV_DESC                      = 7,
    MCDNN_PARAM_WDESC                          = 8,
    MCDNN_PARAM_WDATA_PLACEHOLDER              = 9,
    MCDNN_PARAM_DWDESC                         = 10,
    MCDNN_PARAM_DWDATA_PLACEHOLDER             = 11,
    MCDNN_PARAM_YDESC                          = 12,
    MCDNN_PARAM_YDATA_PLACEHOLDER              = 13,
    MCDNN_PARAM_DYDESC                         = 14,
    MCDNN_PARAM_DYDATA_PLACEHOLDER             = 15,
    MCDNN_PARAM_YSTATS_DESC                    = 16,
    MCDNN_PARAM_YSUM_PLACEHOLDER               = 17,
    MCDNN_PARAM_YSQSUM_PLACEHOLDER             = 18,
    MCDNN_PARAM_BN_SCALEBIAS_MEANVAR_DESC      = 19,
    MCDNN_PARAM_BN_SCALE_PLACEHOLDER           = 20,
    MCDNN_PARAM_BN_BIAS_PLACEHOLDER            = 21,
    MCDNN_PARAM_BN_SAVED_MEAN_PLACEHOLDER      = 22,
    MCDNN_PARAM_BN_SAVED_INVSTD_PLACEHOLDER    = 23,
    MCDNN_PARAM_BN_RUNNING_MEAN_PLACEHOLDER    = 24,
    MCDNN_PARAM_BN_RUNNING_VAR_PLACEHOLDER     = 25,
    MCDNN_PARAM_ZDESC                          = 26,
    MCDNN_PARAM_ZDATA_PLACEHOLDER              = 27,
    MCDNN_PARAM_BN_Z_EQSCALEBIAS_DESC          = 28,
    MCDNN_PARAM_BN_Z_EQSCALE_PLACEHOLDER       = 29,
    MCDNN_PARAM_BN_Z_EQBIAS_PLACEHOLDER        = 30,
    MCDNN_PARAM_ACTIVATION_BITMASK_DESC        = 31,
    MCDNN_PARAM_ACTIVATION_BITMASK_PLACEHOLDER = 32,
    MCDNN_PARAM_DXDESC                         = 33,
    MCDNN_PARAM_DXDATA_PLACEHOLDER             = 34,
    MCDNN_PARAM_DZDESC                         = 35,
    MCDNN_PARAM_DZDATA_PLACEHOLDER             = 36,
    MCDNN_PARAM_BN_DSCALE_PLACEHOLDER          = 37,
    MCDNN_PARAM_BN_DBIAS_PLACEHOLDER           = 38
} mcdnnFusedOpsConstParamLabel_t;
typedef enum {
    MCDNN_PTR_NULL         = 0,
    MCDNN_PTR_ELEM_ALIGNED = 1,
    MCDNN_PTR_16B_ALIGNED  = 2
} mcdnnFusedOpsPointerPlaceHolder_t;
typedef enum {
    MCDNN_PTR_XDATA                             = 0,
    MCDNN_PTR_BN_EQSCALE                        = 1,
    MCDNN_PTR_BN_EQBIAS                         = 2,
    MCDNN_PTR_WDATA                             = 3,
    MCDNN_PTR_DWDATA                            = 4,
    MCDNN_PTR_YDATA                             = 5,
    MCDNN_PTR_DYDATA                            = 6,
    MCDNN_PTR_YSUM                              = 7,
    MCDNN_PTR_YSQSUM                            = 8,
    MCDNN_PTR_WORKSPACE                         = 9,
    MCDNN_PTR_BN_SCALE                          = 10,
    MCDNN_PTR_BN_BIAS                           = 11,
    MCDNN_PTR_BN_SAVED_MEAN                     = 12,
    MCDNN_PTR_BN_SAVED_INVSTD                   = 13,
    MCDNN_PTR_BN_RUNNING_MEAN                   = 14,
    MCDNN_PTR_BN_RUNNING_VAR                    = 15,
    MCDNN_PTR_ZDATA                             = 16,
    MCDNN_PTR_BN_Z_EQSCALE                      = 17,
    MCDNN_PTR_BN_Z_EQBIAS                       = 18,
    MCDNN_PTR_ACTIVATION_BITMASK                = 19,
    MCDNN_PTR_DXDATA                            = 20,
    MCDNN_PTR_DZDATA                            = 21,
    MCDNN_PTR_BN_DSCALE                         = 22,
    MCDNN_PTR_BN_DBIAS                          = 23,
    MCDNN_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES = 100,
    MCDNN_SCALAR_INT64_T_BN_ACCUMULATION_COUNT  = 101,
    MCDNN_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR       = 102,
    MCDNN_SCALAR_DOUBLE_BN_EPSILON              = 103
} mcdnnFusedOpsVariantParamLabel_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCnnInferVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
