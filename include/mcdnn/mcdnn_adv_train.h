/* mcDNN adv_train (opemu): RNN, attention and CTC-loss training (the v8 RNN routines, attention and both CTC
 * losses are emulated; the legacy RNN routines and their algorithm searches answer MCDNN_STATUS_NOT_SUPPORTED).
 *
 * Prototypes and values are cuDNN 8.9's renamed (cudnn -> mcdnn, CUDNN_ -> MCDNN_, cudaStream_t ->
 * mcStream_t): reference surface/mcdnn.tsv. */
#ifndef MCDNN_ADV_TRAIN_H_
#define MCDNN_ADV_TRAIN_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime.h"
#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"
#include "mcdnn_ops_train.h"
#include "mcdnn_adv_infer.h"

#define MCDNN_ADV_TRAIN_MAJOR 1
#define MCDNN_ADV_TRAIN_MINOR 1
#define MCDNN_ADV_TRAIN_PATCH 1

#if (MCDNN_ADV_TRAIN_MAJOR != MCDNN_MAJOR) || (MCDNN_ADV_TRAIN_MINOR != MCDNN_MINOR) || \
    (MCDNN_ADV_TRAIN_PATCH != MCDNN_PATCHLEVEL)
#error Version mismatch between mcdnn_adv_train.h and mcdnn_version.h
#endif

#if defined(__cplusplus)
extern "C" {
#endif

typedef enum {
    MCDNN_WGRAD_MODE_ADD = 0,
    MCDNN_WGRAD_MODE_SET = 1
} mcdnnWgradMode_t;
mcdnnStatus_t MCDNNWINAPI mcdnnRNNForwardTraining(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                  const int seqLength, const mcdnnTensorDescriptor_t *xDesc,
                                                  const void *x, const mcdnnTensorDescriptor_t hxDesc, const void *hx,
                                                  const mcdnnTensorDescriptor_t cxDesc, const void *cx,
                                                  const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                  const mcdnnTensorDescriptor_t *yDesc, void *y,
                                                  const mcdnnTensorDescriptor_t hyDesc, void *hy,
                                                  const mcdnnTensorDescriptor_t cyDesc, void *cy, void *workSpace,
                                                  size_t workSpaceSizeInBytes, void *reserveSpace,
                                                  size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNBackwardData(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                               const int seqLength, const mcdnnTensorDescriptor_t *yDesc,
                                               const void *y, const mcdnnTensorDescriptor_t *dyDesc, const void *dy,
                                               const mcdnnTensorDescriptor_t dhyDesc, const void *dhy,
                                               const mcdnnTensorDescriptor_t dcyDesc, const void *dcy,
                                               const mcdnnFilterDescriptor_t wDesc, const void *w,
                                               const mcdnnTensorDescriptor_t hxDesc, const void *hx,
                                               const mcdnnTensorDescriptor_t cxDesc, const void *cx,
                                               const mcdnnTensorDescriptor_t *dxDesc, void *dx,
                                               const mcdnnTensorDescriptor_t dhxDesc, void *dhx,
                                               const mcdnnTensorDescriptor_t dcxDesc, void *dcx, void *workSpace,
                                               size_t workSpaceSizeInBytes, void *reserveSpace,
                                               size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNBackwardData_v8(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                  const int32_t devSeqLengths[], mcdnnRNNDataDescriptor_t yDesc,
                                                  const void *y, const void *dy, mcdnnRNNDataDescriptor_t xDesc,
                                                  void *dx, mcdnnTensorDescriptor_t hDesc, const void *hx,
                                                  const void *dhy, void *dhx, mcdnnTensorDescriptor_t cDesc,
                                                  const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
                                                  const void *weightSpace, size_t workSpaceSize, void *workSpace,
                                                  size_t reserveSpaceSize, void *reserveSpace);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNBackwardWeights(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                  const int seqLength, const mcdnnTensorDescriptor_t *xDesc,
                                                  const void *x, const mcdnnTensorDescriptor_t hxDesc, const void *hx,
                                                  const mcdnnTensorDescriptor_t *yDesc, const void *y,
                                                  const void *workSpace, size_t workSpaceSizeInBytes,
                                                  const mcdnnFilterDescriptor_t dwDesc, void *dw,
                                                  const void *reserveSpace, size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNBackwardWeights_v8(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                     mcdnnWgradMode_t addGrad, const int32_t devSeqLengths[],
                                                     mcdnnRNNDataDescriptor_t xDesc, const void *x,
                                                     mcdnnTensorDescriptor_t hDesc, const void *hx,
                                                     mcdnnRNNDataDescriptor_t yDesc, const void *y,
                                                     size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
                                                     void *workSpace, size_t reserveSpaceSize, void *reserveSpace);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNForwardTrainingEx(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                    const mcdnnRNNDataDescriptor_t xDesc, const void *x,
                                                    const mcdnnTensorDescriptor_t hxDesc, const void *hx,
                                                    const mcdnnTensorDescriptor_t cxDesc, const void *cx,
                                                    const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                    const mcdnnRNNDataDescriptor_t yDesc, void *y,
                                                    const mcdnnTensorDescriptor_t hyDesc, void *hy,
                                                    const mcdnnTensorDescriptor_t cyDesc, void *cy,
                                                    const mcdnnRNNDataDescriptor_t kDesc, const void *keys,
                                                    const mcdnnRNNDataDescriptor_t cDesc, void *cAttn,
                                                    const mcdnnRNNDataDescriptor_t iDesc, void *iAttn,
                                                    const mcdnnRNNDataDescriptor_t qDesc, void *queries,
                                                    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
                                                    size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNBackwardDataEx(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                 const mcdnnRNNDataDescriptor_t yDesc, const void *y,
                                                 const mcdnnRNNDataDescriptor_t dyDesc, const void *dy,
                                                 const mcdnnRNNDataDescriptor_t dcDesc, const void *dcAttn,
                                                 const mcdnnTensorDescriptor_t dhyDesc, const void *dhy,
                                                 const mcdnnTensorDescriptor_t dcyDesc, const void *dcy,
                                                 const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                 const mcdnnTensorDescriptor_t hxDesc, const void *hx,
                                                 const mcdnnTensorDescriptor_t cxDesc, const void *cx,
                                                 const mcdnnRNNDataDescriptor_t dxDesc, void *dx,
                                                 const mcdnnTensorDescriptor_t dhxDesc, void *dhx,
                                                 const mcdnnTensorDescriptor_t dcxDesc, void *dcx,
                                                 const mcdnnRNNDataDescriptor_t dkDesc, void *dkeys, void *workSpace,
                                                 size_t workSpaceSizeInBytes, void *reserveSpace,
                                                 size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNBackwardWeightsEx(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                    const mcdnnRNNDataDescriptor_t xDesc, const void *x,
                                                    const mcdnnTensorDescriptor_t hxDesc, const void *hx,
                                                    const mcdnnRNNDataDescriptor_t yDesc, const void *y,
                                                    void *workSpace, size_t workSpaceSizeInBytes,
                                                    const mcdnnFilterDescriptor_t dwDesc, void *dw,
                                                    void *reserveSpace, size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNForwardTrainingAlgorithmMaxCount(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnFindRNNForwardTrainingAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, const int seqLength,
    const mcdnnTensorDescriptor_t *xDesc, const void *x, const mcdnnTensorDescriptor_t hxDesc, const void *hx,
    const mcdnnTensorDescriptor_t cxDesc, const void *cx, const mcdnnFilterDescriptor_t wDesc, const void *w,
    const mcdnnTensorDescriptor_t *yDesc, void *y, const mcdnnTensorDescriptor_t hyDesc, void *hy,
    const mcdnnTensorDescriptor_t cyDesc, void *cy, const float findIntensity, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNBackwardDataAlgorithmMaxCount(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnFindRNNBackwardDataAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, const int seqLength,
    const mcdnnTensorDescriptor_t *yDesc, const void *y, const mcdnnTensorDescriptor_t *dyDesc, const void *dy,
    const mcdnnTensorDescriptor_t dhyDesc, const void *dhy, const mcdnnTensorDescriptor_t dcyDesc, const void *dcy,
    const mcdnnFilterDescriptor_t wDesc, const void *w, const mcdnnTensorDescriptor_t hxDesc, const void *hx,
    const mcdnnTensorDescriptor_t cxDesc, const void *cx, const mcdnnTensorDescriptor_t *dxDesc, void *dx,
    const mcdnnTensorDescriptor_t dhxDesc, void *dhx, const mcdnnTensorDescriptor_t dcxDesc, void *dcx,
    const float findIntensity, const int requestedAlgoCount, int *returnedAlgoCount,
    mcdnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNBackwardWeightsAlgorithmMaxCount(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnFindRNNBackwardWeightsAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, const int seqLength,
    const mcdnnTensorDescriptor_t *xDesc, const void *x, const mcdnnTensorDescriptor_t hxDesc, const void *hx,
    const mcdnnTensorDescriptor_t *yDesc, const void *y, const float findIntensity, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnAlgorithmPerformance_t *perfResults, const void *workspace,
    size_t workSpaceSizeInBytes, const mcdnnFilterDescriptor_t dwDesc, void *dw, const void *reserveSpace,
    size_t reserveSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnMultiHeadAttnBackwardData(mcdnnHandle_t handle, const mcdnnAttnDescriptor_t attnDesc,
                                                         const int loWinIdx[], const int hiWinIdx[],
                                                         const int devSeqLengthsDQDO[], const int devSeqLengthsDKDV[],
                                                         const mcdnnSeqDataDescriptor_t doDesc, const void *dout,
                                                         const mcdnnSeqDataDescriptor_t dqDesc, void *dqueries,
                                                         const void *queries, const mcdnnSeqDataDescriptor_t dkDesc,
                                                         void *dkeys, const void *keys,
                                                         const mcdnnSeqDataDescriptor_t dvDesc, void *dvalues,
                                                         const void *values, size_t weightSizeInBytes,
                                                         const void *weights, size_t workSpaceSizeInBytes,
                                                         void *workSpace, size_t reserveSpaceSizeInBytes,
                                                         void *reserveSpace);
mcdnnStatus_t MCDNNWINAPI mcdnnMultiHeadAttnBackwardWeights(mcdnnHandle_t handle,
                                                            const mcdnnAttnDescriptor_t attnDesc,
                                                            mcdnnWgradMode_t addGrad,
                                                            const mcdnnSeqDataDescriptor_t qDesc, const void *queries,
                                                            const mcdnnSeqDataDescriptor_t kDesc, const void *keys,
                                                            const mcdnnSeqDataDescriptor_t vDesc, const void *values,
                                                            const mcdnnSeqDataDescriptor_t doDesc, const void *dout,
                                                            size_t weightSizeInBytes, const void *weights,
                                                            void *dweights, size_t workSpaceSizeInBytes,
                                                            void *workSpace, size_t reserveSpaceSizeInBytes,
                                                            void *reserveSpace);
typedef enum {
    MCDNN_LOSS_NORMALIZATION_NONE    = 0,
    MCDNN_LOSS_NORMALIZATION_SOFTMAX = 1
} mcdnnLossNormalizationMode_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateCTCLossDescriptor(mcdnnCTCLossDescriptor_t *ctcLossDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetCTCLossDescriptor(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t compType);
mcdnnStatus_t MCDNNWINAPI mcdnnSetCTCLossDescriptorEx(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t compType,
                                                      mcdnnLossNormalizationMode_t normMode,
                                                      mcdnnNanPropagation_t gradMode);
mcdnnStatus_t MCDNNWINAPI mcdnnSetCTCLossDescriptor_v8(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t compType,
                                                       mcdnnLossNormalizationMode_t normMode,
                                                       mcdnnNanPropagation_t gradMode, int maxLabelLength);
mcdnnStatus_t MCDNNWINAPI mcdnnGetCTCLossDescriptor(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t *compType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetCTCLossDescriptorEx(mcdnnCTCLossDescriptor_t ctcLossDesc, mcdnnDataType_t *compType,
                                                      mcdnnLossNormalizationMode_t *normMode,
                                                      mcdnnNanPropagation_t *gradMode);
mcdnnStatus_t MCDNNWINAPI mcdnnGetCTCLossDescriptor_v8(mcdnnCTCLossDescriptor_t ctcLossDesc,
                                                       mcdnnDataType_t *compType,
                                                       mcdnnLossNormalizationMode_t *normMode,
                                                       mcdnnNanPropagation_t *gradMode, int *maxLabelLength);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyCTCLossDescriptor(mcdnnCTCLossDescriptor_t ctcLossDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnCTCLoss(mcdnnHandle_t handle, const mcdnnTensorDescriptor_t probsDesc,
                                       const void *probs, const int hostLabels[], const int hostLabelLengths[],
                                       const int hostInputLengths[], void *costs,
                                       const mcdnnTensorDescriptor_t gradientsDesc, void *gradients,
                                       mcdnnCTCLossAlgo_t algo, mcdnnCTCLossDescriptor_t ctcLossDesc, void *workspace,
                                       size_t workSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnCTCLoss_v8(mcdnnHandle_t handle, mcdnnCTCLossAlgo_t algo,
                                          mcdnnCTCLossDescriptor_t ctcLossDesc,
                                          const mcdnnTensorDescriptor_t probsDesc, const void *probs,
                                          const int labels[], const int labelLengths[], const int inputLengths[],
                                          void *costs, const mcdnnTensorDescriptor_t gradientsDesc, void *gradients,
                                          size_t workSpaceSizeInBytes, void *workspace);
mcdnnStatus_t MCDNNWINAPI mcdnnGetCTCLossWorkspaceSize(mcdnnHandle_t handle, const mcdnnTensorDescriptor_t probsDesc,
                                                       const mcdnnTensorDescriptor_t gradientsDesc, const int *labels,
                                                       const int *labelLengths, const int *inputLengths,
                                                       mcdnnCTCLossAlgo_t algo, mcdnnCTCLossDescriptor_t ctcLossDesc,
                                                       size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetCTCLossWorkspaceSize_v8(mcdnnHandle_t handle, mcdnnCTCLossAlgo_t algo,
                                                          mcdnnCTCLossDescriptor_t ctcLossDesc,
                                                          const mcdnnTensorDescriptor_t probsDesc,
                                                          const mcdnnTensorDescriptor_t gradientsDesc,
                                                          size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnAdvTrainVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
