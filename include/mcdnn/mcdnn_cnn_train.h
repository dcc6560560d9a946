/* mcDNN cnn_train (opemu): the backward-filter and backward-bias convolutions and their algorithm queries.
 *
 * Prototypes and values are cuDNN 8.9's renamed (cudnn -> mcdnn, CUDNN_ -> MCDNN_, cudaStream_t ->
 * mcStream_t): reference surface/mcdnn.tsv. */
#ifndef MCDNN_CNN_TRAIN_H_
#define MCDNN_CNN_TRAIN_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime.h"
#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"
#include "mcdnn_ops_train.h"
#include "mcdnn_cnn_infer.h"

#define MCDNN_CNN_TRAIN_MAJOR 1
#define MCDNN_CNN_TRAIN_MINOR 1
#define MCDNN_CNN_TRAIN_PATCH 1

#if (MCDNN_CNN_TRAIN_MAJOR != MCDNN_MAJOR) || (MCDNN_CNN_TRAIN_MINOR != MCDNN_MINOR) || \
    (MCDNN_CNN_TRAIN_PATCH != MCDNN_PATCHLEVEL)
#error Version mismatch between mcdnn_cnn_train.h and mcdnn_version.h
#endif

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct mcdnnConvolutionBwdFilterAlgoPerfStruct {
    mcdnnConvolutionBwdFilterAlgo_t algo;
    mcdnnStatus_t status;
    float time;
    size_t memory;
    mcdnnDeterminism_t determinism;
    mcdnnMathType_t mathType;
    int reserved[3];
} mcdnnConvolutionBwdFilterAlgoPerf_t;
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionBackwardFilterAlgorithmMaxCount(mcdnnHandle_t handle, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnFindConvolutionBackwardFilterAlgorithm(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const mcdnnTensorDescriptor_t dyDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnConvolutionBwdFilterAlgoPerf_t *perfResults);
mcdnnStatus_t MCDNNWINAPI mcdnnFindConvolutionBackwardFilterAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const void *x, const mcdnnTensorDescriptor_t dyDesc,
    const void *y, const mcdnnConvolutionDescriptor_t convDesc, const mcdnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, mcdnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionBackwardFilterAlgorithm_v7(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t srcDesc, const mcdnnTensorDescriptor_t diffDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnConvolutionBwdFilterAlgoPerf_t *perfResults);
mcdnnStatus_t MCDNNWINAPI mcdnnGetConvolutionBackwardFilterWorkspaceSize(
    mcdnnHandle_t handle, const mcdnnTensorDescriptor_t xDesc, const mcdnnTensorDescriptor_t dyDesc,
    const mcdnnConvolutionDescriptor_t convDesc, const mcdnnFilterDescriptor_t gradDesc,
    mcdnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnConvolutionBackwardFilter(mcdnnHandle_t handle, const void *alpha,
                                                         const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                         const mcdnnTensorDescriptor_t dyDesc, const void *dy,
                                                         const mcdnnConvolutionDescriptor_t convDesc,
                                                         mcdnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                                         size_t workSpaceSizeInBytes, const void *beta,
                                                         const mcdnnFilterDescriptor_t dwDesc, void *dw);
mcdnnStatus_t MCDNNWINAPI mcdnnConvolutionBackwardBias(mcdnnHandle_t handle, const void *alpha,
                                                       const mcdnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const void *beta, const mcdnnTensorDescriptor_t dbDesc,
                                                       void *db);
mcdnnStatus_t MCDNNWINAPI mcdnnCreateFusedOpsConstParamPack(mcdnnFusedOpsConstParamPack_t *constPack,
                                                            mcdnnFusedOps_t ops);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyFusedOpsConstParamPack(mcdnnFusedOpsConstParamPack_t constPack);
mcdnnStatus_t MCDNNWINAPI mcdnnSetFusedOpsConstParamPackAttribute(
    mcdnnFusedOpsConstParamPack_t constPack, mcdnnFusedOpsConstParamLabel_t paramLabel, const void *param);
mcdnnStatus_t MCDNNWINAPI mcdnnGetFusedOpsConstParamPackAttribute(
    const mcdnnFusedOpsConstParamPack_t constPack, mcdnnFusedOpsConstParamLabel_t paramLabel, void *param,
    int *isNULL);
mcdnnStatus_t MCDNNWINAPI mcdnnCreateFusedOpsVariantParamPack(
    mcdnnFusedOpsVariantParamPack_t *varPack, mcdnnFusedOps_t ops);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyFusedOpsVariantParamPack(mcdnnFusedOpsVariantParamPack_t varPack);
mcdnnStatus_t MCDNNWINAPI mcdnnSetFusedOpsVariantParamPackAttribute(
    mcdnnFusedOpsVariantParamPack_t varPack, mcdnnFusedOpsVariantParamLabel_t paramLabel, void *ptr);
mcdnnStatus_t MCDNNWINAPI mcdnnGetFusedOpsVariantParamPackAttribute(
    const mcdnnFusedOpsVariantParamPack_t varPack, mcdnnFusedOpsVariantParamLabel_t paramLabel, void *ptr);
mcdnnStatus_t MCDNNWINAPI mcdnnCreateFusedOpsPlan(mcdnnFusedOpsPlan_t *plan, mcdnnFusedOps_t ops);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyFusedOpsPlan(mcdnnFusedOpsPlan_t plan);
mcdnnStatus_t MCDNNWINAPI mcdnnMakeFusedOpsPlan(mcdnnHandle_t handle, mcdnnFusedOpsPlan_t plan,
                                                const mcdnnFusedOpsConstParamPack_t constPack,
                                                size_t *workspaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnFusedOpsExecute(mcdnnHandle_t handle, const mcdnnFusedOpsPlan_t plan,
                                               mcdnnFusedOpsVariantParamPack_t varPack);
mcdnnStatus_t MCDNNWINAPI mcdnnCnnTrainVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
