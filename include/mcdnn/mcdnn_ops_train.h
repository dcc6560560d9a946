/* mcDNN ops_train (opemu): the training routines, each the backward partner of an ops_infer forward.
 * Prototypes are cuDNN 8.5's renamed (reference mcdnn.md §2.2); the documented parameter rules and
 * return codes are the mcdnn_ops_train reference's. */
#ifndef MCDNN_OPS_TRAIN_H_
#define MCDNN_OPS_TRAIN_H_

#include <stdint.h>
#include "../mcr/mc_runtime.h"
#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"

#define MCDNN_OPS_TRAIN_MAJOR 1
#define MCDNN_OPS_TRAIN_MINOR 1
#define MCDNN_OPS_TRAIN_PATCH 1

#if (MCDNN_OPS_TRAIN_MAJOR != MCDNN_MAJOR) || (MCDNN_OPS_TRAIN_MINOR != MCDNN_MINOR) || \
    (MCDNN_OPS_TRAIN_PATCH != MCDNN_PATCHLEVEL)
#error Version mismatch between mcdnn_ops_train.h and mcdnn_version.h
#endif

#if defined(__cplusplus)
extern "C" {
#endif

mcdnnStatus_t MCDNNWINAPI mcdnnSoftmaxBackward(mcdnnHandle_t handle, mcdnnSoftmaxAlgorithm_t algo,
                                               mcdnnSoftmaxMode_t mode, const void *alpha,
                                               const mcdnnTensorDescriptor_t yDesc, const void *y,
                                               const mcdnnTensorDescriptor_t dyDesc, const void *dy,
                                               const void *beta, const mcdnnTensorDescriptor_t dxDesc, void *dx);

/* For the average modes x, y and their descriptors may be NULL. */
mcdnnStatus_t MCDNNWINAPI mcdnnPoolingBackward(mcdnnHandle_t handle, const mcdnnPoolingDescriptor_t poolingDesc,
                                               const void *alpha, const mcdnnTensorDescriptor_t yDesc,
                                               const void *y, const mcdnnTensorDescriptor_t dyDesc, const void *dy,
                                               const mcdnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                               const mcdnnTensorDescriptor_t dxDesc, void *dx);

mcdnnStatus_t MCDNNWINAPI mcdnnActivationBackward(mcdnnHandle_t handle, mcdnnActivationDescriptor_t activationDesc,
                                                  const void *alpha, const mcdnnTensorDescriptor_t yDesc,
                                                  const void *y, const mcdnnTensorDescriptor_t dyDesc,
                                                  const void *dy, const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                  const void *beta, const mcdnnTensorDescriptor_t dxDesc, void *dx);

mcdnnStatus_t MCDNNWINAPI mcdnnLRNCrossChannelBackward(mcdnnHandle_t handle, mcdnnLRNDescriptor_t normDesc,
                                                       mcdnnLRNMode_t lrnMode, const void *alpha,
                                                       const mcdnnTensorDescriptor_t yDesc, const void *y,
                                                       const mcdnnTensorDescriptor_t dyDesc, const void *dy,
                                                       const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                       const void *beta, const mcdnnTensorDescriptor_t dxDesc,
                                                       void *dx);

/* xDesc describes x, means, dy, temp and temp2; dXdMeansDesc describes dx and dMeans (which may be NULL). */
mcdnnStatus_t MCDNNWINAPI mcdnnDivisiveNormalizationBackward(mcdnnHandle_t handle, mcdnnLRNDescriptor_t normDesc,
                                                             mcdnnDivNormMode_t mode, const void *alpha,
                                                             const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                             const void *means, const void *dy, void *temp,
                                                             void *temp2, const void *beta,
                                                             const mcdnnTensorDescriptor_t dXdMeansDesc, void *dx,
                                                             void *dMeans);

mcdnnStatus_t MCDNNWINAPI mcdnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, mcdnnBatchNormOps_t bnOps, const mcdnnTensorDescriptor_t xDesc,
    const mcdnnTensorDescriptor_t zDesc, const mcdnnTensorDescriptor_t yDesc,
    const mcdnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const mcdnnActivationDescriptor_t activationDesc,
    size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetBatchNormalizationBackwardExWorkspaceSize(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, mcdnnBatchNormOps_t bnOps, const mcdnnTensorDescriptor_t xDesc,
    const mcdnnTensorDescriptor_t yDesc, const mcdnnTensorDescriptor_t dyDesc, const mcdnnTensorDescriptor_t dzDesc,
    const mcdnnTensorDescriptor_t dxDesc, const mcdnnTensorDescriptor_t dBnScaleBiasDesc,
    const mcdnnActivationDescriptor_t activationDesc, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetBatchNormalizationTrainingExReserveSpaceSize(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, mcdnnBatchNormOps_t bnOps,
    const mcdnnActivationDescriptor_t activationDesc, const mcdnnTensorDescriptor_t xDesc, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnBatchNormalizationForwardTraining(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const mcdnnTensorDescriptor_t xDesc, const void *x, const mcdnnTensorDescriptor_t yDesc, void *y,
    const mcdnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance);
mcdnnStatus_t MCDNNWINAPI mcdnnBatchNormalizationForwardTrainingEx(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, mcdnnBatchNormOps_t bnOps, const void *alpha, const void *beta,
    const mcdnnTensorDescriptor_t xDesc, const void *xData, const mcdnnTensorDescriptor_t zDesc, const void *zData,
    const mcdnnTensorDescriptor_t yDesc, void *yData, const mcdnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const void *bnScale, const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    mcdnnActivationDescriptor_t activationDesc, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnBatchNormalizationBackward(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const mcdnnTensorDescriptor_t xDesc, const void *x,
    const mcdnnTensorDescriptor_t dyDesc, const void *dy, const mcdnnTensorDescriptor_t dxDesc, void *dx,
    const mcdnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult, void *dBnBiasResult,
    double epsilon, const void *savedMean, const void *savedInvVariance);
mcdnnStatus_t MCDNNWINAPI mcdnnBatchNormalizationBackwardEx(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, mcdnnBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const mcdnnTensorDescriptor_t xDesc, const void *xData, const mcdnnTensorDescriptor_t yDesc, const void *yData,
    const mcdnnTensorDescriptor_t dyDesc, const void *dyData, const mcdnnTensorDescriptor_t dzDesc, void *dzData,
    const mcdnnTensorDescriptor_t dxDesc, void *dxData, const mcdnnTensorDescriptor_t dBnScaleBiasDesc,
    const void *bnScaleData, const void *bnBiasData, void *dBnScaleData, void *dBnBiasData, double epsilon,
    const void *savedMean, const void *savedInvVariance, mcdnnActivationDescriptor_t activationDesc,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes);

mcdnnStatus_t MCDNNWINAPI mcdnnGetNormalizationForwardTrainingWorkspaceSize(
    mcdnnHandle_t handle, mcdnnNormMode_t mode, mcdnnNormOps_t normOps, mcdnnNormAlgo_t algo,
    const mcdnnTensorDescriptor_t xDesc, const mcdnnTensorDescriptor_t zDesc, const mcdnnTensorDescriptor_t yDesc,
    const mcdnnTensorDescriptor_t normScaleBiasDesc, const mcdnnActivationDescriptor_t activationDesc,
    const mcdnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt);
mcdnnStatus_t MCDNNWINAPI mcdnnGetNormalizationBackwardWorkspaceSize(
    mcdnnHandle_t handle, mcdnnNormMode_t mode, mcdnnNormOps_t normOps, mcdnnNormAlgo_t algo,
    const mcdnnTensorDescriptor_t xDesc, const mcdnnTensorDescriptor_t yDesc, const mcdnnTensorDescriptor_t dyDesc,
    const mcdnnTensorDescriptor_t dzDesc, const mcdnnTensorDescriptor_t dxDesc,
    const mcdnnTensorDescriptor_t dNormScaleBiasDesc, const mcdnnActivationDescriptor_t activationDesc,
    const mcdnnTensorDescriptor_t normMeanVarDesc, size_t *sizeInBytes, int groupCnt);
mcdnnStatus_t MCDNNWINAPI mcdnnGetNormalizationTrainingReserveSpaceSize(
    mcdnnHandle_t handle, mcdnnNormMode_t mode, mcdnnNormOps_t normOps, mcdnnNormAlgo_t algo,
    const mcdnnActivationDescriptor_t activationDesc, const mcdnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt);
mcdnnStatus_t MCDNNWINAPI mcdnnNormalizationForwardTraining(
    mcdnnHandle_t handle, mcdnnNormMode_t mode, mcdnnNormOps_t normOps, mcdnnNormAlgo_t algo, const void *alpha,
    const void *beta, const mcdnnTensorDescriptor_t xDesc, const void *xData,
    const mcdnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const mcdnnTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    mcdnnActivationDescriptor_t activationDesc, const mcdnnTensorDescriptor_t zDesc, const void *zData,
    const mcdnnTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt);
mcdnnStatus_t MCDNNWINAPI mcdnnNormalizationBackward(
    mcdnnHandle_t handle, mcdnnNormMode_t mode, mcdnnNormOps_t normOps, mcdnnNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const mcdnnTensorDescriptor_t xDesc, const void *xData, const mcdnnTensorDescriptor_t yDesc, const void *yData,
    const mcdnnTensorDescriptor_t dyDesc, const void *dyData, const mcdnnTensorDescriptor_t dzDesc, void *dzData,
    const mcdnnTensorDescriptor_t dxDesc, void *dxData, const mcdnnTensorDescriptor_t dNormScaleBiasDesc,
    const void *normScaleData, const void *normBiasData, void *dNormScaleData, void *dNormBiasData,
    double epsilon, const mcdnnTensorDescriptor_t normMeanVarDesc, const void *savedMean,
    const void *savedInvVariance, mcdnnActivationDescriptor_t activationDesc, void *workSpace,
    size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt);

mcdnnStatus_t MCDNNWINAPI mcdnnSpatialTfGridGeneratorBackward(mcdnnHandle_t handle,
                                                              const mcdnnSpatialTransformerDescriptor_t stDesc,
                                                              const void *dgrid, void *dtheta);
mcdnnStatus_t MCDNNWINAPI mcdnnSpatialTfSamplerBackward(
    mcdnnHandle_t handle, mcdnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
    const mcdnnTensorDescriptor_t xDesc, const void *x, const void *beta, const mcdnnTensorDescriptor_t dxDesc,
    void *dx, const void *alphaDgrid, const mcdnnTensorDescriptor_t dyDesc, const void *dy, const void *grid,
    const void *betaDgrid, void *dgrid);

mcdnnStatus_t MCDNNWINAPI mcdnnDropoutBackward(mcdnnHandle_t handle, const mcdnnDropoutDescriptor_t dropoutDesc,
                                               const mcdnnTensorDescriptor_t dydesc, const void *dy,
                                               const mcdnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                               size_t reserveSpaceSizeInBytes);

mcdnnStatus_t MCDNNWINAPI mcdnnOpsTrainVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
