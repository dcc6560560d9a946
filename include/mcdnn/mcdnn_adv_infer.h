/* mcDNN adv_infer (opemu): RNN, sequence-data and multi-head attention inference (the v8 RNN API and attention
 * are emulated; the legacy per-step-descriptor RNN routines, persistent plans and RNN algorithm searches
 * answer MCDNN_STATUS_NOT_SUPPORTED).
 *
 * Prototypes and values are cuDNN 8.9's renamed (cudnn -> mcdnn, CUDNN_ -> MCDNN_, cudaStream_t ->
 * mcStream_t): reference surface/mcdnn.tsv. */
#ifndef MCDNN_ADV_INFER_H_
#define MCDNN_ADV_INFER_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime.h"
#include "mcdnn_version.h"
#include "mcdnn_ops_infer.h"

#define MCDNN_ADV_INFER_MAJOR 1
#define MCDNN_ADV_INFER_MINOR 1
#define MCDNN_ADV_INFER_PATCH 1

#if (MCDNN_ADV_INFER_MAJOR != MCDNN_MAJOR) || (MCDNN_ADV_INFER_MINOR != MCDNN_MINOR) || \
    (MCDNN_ADV_INFER_PATCH != MCDNN_PATCHLEVEL)
#error Version mismatch between mcdnn_adv_infer.h and mcdnn_version.h
#endif

#if defined(__cplusplus)
extern "C" {
#endif

typedef enum {
    MCDNN_FWD_MODE_INFERENCE = 0,
    MCDNN_FWD_MODE_TRAINING  = 1
} mcdnnForwardMode_t;
typedef enum {
    MCDNN_RNN_RELU = 0,
    MCDNN_RNN_TANH = 1,
    MCDNN_LSTM     = 2,
    MCDNN_GRU      = 3
} mcdnnRNNMode_t;
typedef enum {
    MCDNN_RNN_NO_BIAS         = 0,
    MCDNN_RNN_SINGLE_INP_BIAS = 1,
    MCDNN_RNN_DOUBLE_BIAS     = 2,
    MCDNN_RNN_SINGLE_REC_BIAS = 3
} mcdnnRNNBiasMode_t;
typedef enum {
    MCDNN_UNIDIRECTIONAL = 0,
    MCDNN_BIDIRECTIONAL  = 1
} mcdnnDirectionMode_t;
typedef enum {
    MCDNN_LINEAR_INPUT = 0,
    MCDNN_SKIP_INPUT   = 1
} mcdnnRNNInputMode_t;
typedef enum {
    MCDNN_RNN_CLIP_NONE   = 0,
    MCDNN_RNN_CLIP_MINMAX = 1
} mcdnnRNNClipMode_t;
typedef enum {
    MCDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED   = 0,
    MCDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED     = 1,
    MCDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2
} mcdnnRNNDataLayout_t;
typedef unsigned mcdnnRNNPaddingMode_t;
#define MCDNN_RNN_PADDED_IO_DISABLED 0
#define MCDNN_RNN_PADDED_IO_ENABLED (1U << 0)
typedef struct mcdnnRNNStruct *mcdnnRNNDescriptor_t;
typedef struct mcdnnPersistentRNNPlan *mcdnnPersistentRNNPlan_t;
typedef struct mcdnnRNNDataStruct *mcdnnRNNDataDescriptor_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateRNNDescriptor(mcdnnRNNDescriptor_t *rnnDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyRNNDescriptor(mcdnnRNNDescriptor_t rnnDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNDescriptor_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNAlgo_t algo,
                                                   mcdnnRNNMode_t cellMode, mcdnnRNNBiasMode_t biasMode,
                                                   mcdnnDirectionMode_t dirMode, mcdnnRNNInputMode_t inputMode,
                                                   mcdnnDataType_t dataType, mcdnnDataType_t mathPrec,
                                                   mcdnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize,
                                                   int32_t projSize, int32_t numLayers,
                                                   mcdnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNDescriptor_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNAlgo_t *algo,
                                                   mcdnnRNNMode_t *cellMode, mcdnnRNNBiasMode_t *biasMode,
                                                   mcdnnDirectionMode_t *dirMode, mcdnnRNNInputMode_t *inputMode,
                                                   mcdnnDataType_t *dataType, mcdnnDataType_t *mathPrec,
                                                   mcdnnMathType_t *mathType, int32_t *inputSize, int32_t *hiddenSize,
                                                   int32_t *projSize, int32_t *numLayers,
                                                   mcdnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNDescriptor_v6(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                   const int hiddenSize, const int numLayers,
                                                   mcdnnDropoutDescriptor_t dropoutDesc,
                                                   mcdnnRNNInputMode_t inputMode, mcdnnDirectionMode_t direction,
                                                   mcdnnRNNMode_t cellMode, mcdnnRNNAlgo_t algo,
                                                   mcdnnDataType_t mathPrec);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNDescriptor_v6(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                   int *hiddenSize, int *numLayers,
                                                   mcdnnDropoutDescriptor_t *dropoutDesc,
                                                   mcdnnRNNInputMode_t *inputMode, mcdnnDirectionMode_t *direction,
                                                   mcdnnRNNMode_t *cellMode, mcdnnRNNAlgo_t *algo,
                                                   mcdnnDataType_t *mathPrec);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNMatrixMathType(mcdnnRNNDescriptor_t rnnDesc, mcdnnMathType_t mType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNMatrixMathType(mcdnnRNNDescriptor_t rnnDesc, mcdnnMathType_t *mType);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNBiasMode(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNBiasMode_t biasMode);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNBiasMode(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNBiasMode_t *biasMode);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNSetClip_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNClipMode_t clipMode,
                                             mcdnnNanPropagation_t clipNanOpt, double lclip, double rclip);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNGetClip_v8(mcdnnRNNDescriptor_t rnnDesc, mcdnnRNNClipMode_t *clipMode,
                                             mcdnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNSetClip(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                          mcdnnRNNClipMode_t clipMode, mcdnnNanPropagation_t clipNanOpt, double lclip,
                                          double rclip);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNGetClip(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                          mcdnnRNNClipMode_t *clipMode, mcdnnNanPropagation_t *clipNanOpt,
                                          double *lclip, double *rclip);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNProjectionLayers(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                      const int recProjSize, const int outProjSize);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNProjectionLayers(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                      int *recProjSize, int *outProjSize);
mcdnnStatus_t MCDNNWINAPI mcdnnCreatePersistentRNNPlan(mcdnnRNNDescriptor_t rnnDesc, const int minibatch,
                                                       const mcdnnDataType_t dataType,
                                                       mcdnnPersistentRNNPlan_t *plan);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyPersistentRNNPlan(mcdnnPersistentRNNPlan_t plan);
mcdnnStatus_t MCDNNWINAPI mcdnnSetPersistentRNNPlan(mcdnnRNNDescriptor_t rnnDesc, mcdnnPersistentRNNPlan_t plan);
mcdnnStatus_t MCDNNWINAPI mcdnnBuildRNNDynamic(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc, int miniBatch);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNWorkspaceSize(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                   const int seqLength, const mcdnnTensorDescriptor_t *xDesc,
                                                   size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNTrainingReserveSize(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                         const int seqLength, const mcdnnTensorDescriptor_t *xDesc,
                                                         size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNTempSpaceSizes(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                    mcdnnForwardMode_t fMode, mcdnnRNNDataDescriptor_t xDesc,
                                                    size_t *workSpaceSize, size_t *reserveSpaceSize);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNParamsSize(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                const mcdnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
                                                mcdnnDataType_t dataType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNWeightSpaceSize(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                     size_t *weightSpaceSize);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNLinLayerMatrixParams(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                          const int pseudoLayer, const mcdnnTensorDescriptor_t xDesc,
                                                          const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                          const int linLayerID,
                                                          mcdnnFilterDescriptor_t linLayerMatDesc,
                                                          void **linLayerMat);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNLinLayerBiasParams(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                        const int pseudoLayer, const mcdnnTensorDescriptor_t xDesc,
                                                        const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                        const int linLayerID,
                                                        mcdnnFilterDescriptor_t linLayerBiasDesc,
                                                        void **linLayerBias);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNWeightParams(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                  int32_t pseudoLayer, size_t weightSpaceSize,
                                                  const void *weightSpace, int32_t linLayerID,
                                                  mcdnnTensorDescriptor_t mDesc, void **mAddr,
                                                  mcdnnTensorDescriptor_t bDesc, void **bAddr);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNForwardInference(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
                                                   const int seqLength, const mcdnnTensorDescriptor_t *xDesc,
                                                   const void *x, const mcdnnTensorDescriptor_t hxDesc,
                                                   const void *hx, const mcdnnTensorDescriptor_t cxDesc,
                                                   const void *cx, const mcdnnFilterDescriptor_t wDesc, const void *w,
                                                   const mcdnnTensorDescriptor_t *yDesc, void *y,
                                                   const mcdnnTensorDescriptor_t hyDesc, void *hy,
                                                   const mcdnnTensorDescriptor_t cyDesc, void *cy, void *workSpace,
                                                   size_t workSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNPaddingMode(mcdnnRNNDescriptor_t rnnDesc, unsigned paddingMode);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNPaddingMode(mcdnnRNNDescriptor_t rnnDesc, unsigned *paddingMode);
mcdnnStatus_t MCDNNWINAPI mcdnnCreateRNNDataDescriptor(mcdnnRNNDataDescriptor_t *rnnDataDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyRNNDataDescriptor(mcdnnRNNDataDescriptor_t rnnDataDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNDataDescriptor(mcdnnRNNDataDescriptor_t rnnDataDesc, mcdnnDataType_t dataType,
                                                    mcdnnRNNDataLayout_t layout, int maxSeqLength, int batchSize,
                                                    int vectorSize, const int seqLengthArray[], void *paddingFill);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNDataDescriptor(mcdnnRNNDataDescriptor_t rnnDataDesc, mcdnnDataType_t *dataType,
                                                    mcdnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize,
                                                    int *vectorSize, int arrayLengthRequested, int seqLengthArray[],
                                                    void *paddingFill);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNForwardInferenceEx(mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc,
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
                                                     void *workSpace, size_t workSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRNNForward(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                          mcdnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
                                          mcdnnRNNDataDescriptor_t xDesc, const void *x,
                                          mcdnnRNNDataDescriptor_t yDesc, void *y, mcdnnTensorDescriptor_t hDesc,
                                          const void *hx, void *hy, mcdnnTensorDescriptor_t cDesc, const void *cx,
                                          void *cy, size_t weightSpaceSize, const void *weightSpace,
                                          size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                                          void *reserveSpace);
mcdnnStatus_t MCDNNWINAPI mcdnnSetRNNAlgorithmDescriptor(mcdnnHandle_t handle, mcdnnRNNDescriptor_t rnnDesc,
                                                         mcdnnAlgorithmDescriptor_t algoDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnGetRNNForwardInferenceAlgorithmMaxCount(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, int *count);
mcdnnStatus_t MCDNNWINAPI mcdnnFindRNNForwardInferenceAlgorithmEx(
    mcdnnHandle_t handle, const mcdnnRNNDescriptor_t rnnDesc, const int seqLength,
    const mcdnnTensorDescriptor_t *xDesc, const void *x, const mcdnnTensorDescriptor_t hxDesc, const void *hx,
    const mcdnnTensorDescriptor_t cxDesc, const void *cx, const mcdnnFilterDescriptor_t wDesc, const void *w,
    const mcdnnTensorDescriptor_t *yDesc, void *y, const mcdnnTensorDescriptor_t hyDesc, void *hy,
    const mcdnnTensorDescriptor_t cyDesc, void *cy, const float findIntensity, const int requestedAlgoCount,
    int *returnedAlgoCount, mcdnnAlgorithmPerformance_t *perfResults, void *workspace, size_t workSpaceSizeInBytes);
typedef enum {
    MCDNN_SEQDATA_TIME_DIM  = 0,
    MCDNN_SEQDATA_BATCH_DIM = 1,
    MCDNN_SEQDATA_BEAM_DIM  = 2,
    MCDNN_SEQDATA_VECT_DIM  = 3
} mcdnnSeqDataAxis_t;
#define MCDNN_SEQDATA_DIM_COUNT 4
typedef struct mcdnnSeqDataStruct *mcdnnSeqDataDescriptor_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateSeqDataDescriptor(mcdnnSeqDataDescriptor_t *seqDataDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroySeqDataDescriptor(mcdnnSeqDataDescriptor_t seqDataDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetSeqDataDescriptor(mcdnnSeqDataDescriptor_t seqDataDesc, mcdnnDataType_t dataType,
                                                    int nbDims, const int dimA[], const mcdnnSeqDataAxis_t axes[],
                                                    size_t seqLengthArraySize, const int seqLengthArray[],
                                                    void *paddingFill);
mcdnnStatus_t MCDNNWINAPI mcdnnGetSeqDataDescriptor(const mcdnnSeqDataDescriptor_t seqDataDesc,
                                                    mcdnnDataType_t *dataType, int *nbDims, int nbDimsRequested,
                                                    int dimA[], mcdnnSeqDataAxis_t axes[], size_t *seqLengthArraySize,
                                                    size_t seqLengthSizeRequested, int seqLengthArray[],
                                                    void *paddingFill);
typedef unsigned mcdnnAttnQueryMap_t;
#define MCDNN_ATTN_QUERYMAP_ALL_TO_ONE 0
#define MCDNN_ATTN_QUERYMAP_ONE_TO_ONE (1U << 0)
#define MCDNN_ATTN_DISABLE_PROJ_BIASES 0
#define MCDNN_ATTN_ENABLE_PROJ_BIASES (1U << 1)
typedef struct mcdnnAttnStruct *mcdnnAttnDescriptor_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateAttnDescriptor(mcdnnAttnDescriptor_t *attnDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyAttnDescriptor(mcdnnAttnDescriptor_t attnDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetAttnDescriptor(mcdnnAttnDescriptor_t attnDesc, unsigned attnMode, int nHeads,
                                                 double smScaler, mcdnnDataType_t dataType,
                                                 mcdnnDataType_t computePrec, mcdnnMathType_t mathType,
                                                 mcdnnDropoutDescriptor_t attnDropoutDesc,
                                                 mcdnnDropoutDescriptor_t postDropoutDesc, int qSize, int kSize,
                                                 int vSize, int qProjSize, int kProjSize, int vProjSize,
                                                 int oProjSize, int qoMaxSeqLength, int kvMaxSeqLength,
                                                 int maxBatchSize, int maxBeamSize);
mcdnnStatus_t MCDNNWINAPI mcdnnGetAttnDescriptor(mcdnnAttnDescriptor_t attnDesc, unsigned *attnMode, int *nHeads,
                                                 double *smScaler, mcdnnDataType_t *dataType,
                                                 mcdnnDataType_t *computePrec, mcdnnMathType_t *mathType,
                                                 mcdnnDropoutDescriptor_t *attnDropoutDesc,
                                                 mcdnnDropoutDescriptor_t *postDropoutDesc, int *qSize, int *kSize,
                                                 int *vSize, int *qProjSize, int *kProjSize, int *vProjSize,
                                                 int *oProjSize, int *qoMaxSeqLength, int *kvMaxSeqLength,
                                                 int *maxBatchSize, int *maxBeamSize);
mcdnnStatus_t MCDNNWINAPI mcdnnGetMultiHeadAttnBuffers(mcdnnHandle_t handle, const mcdnnAttnDescriptor_t attnDesc,
                                                       size_t *weightSizeInBytes, size_t *workSpaceSizeInBytes,
                                                       size_t *reserveSpaceSizeInBytes);
typedef enum {
    MCDNN_MH_ATTN_Q_WEIGHTS = 0,
    MCDNN_MH_ATTN_K_WEIGHTS = 1,
    MCDNN_MH_ATTN_V_WEIGHTS = 2,
    MCDNN_MH_ATTN_O_WEIGHTS = 3,
    MCDNN_MH_ATTN_Q_BIASES  = 4,
    MCDNN_MH_ATTN_K_BIASES  = 5,
    MCDNN_MH_ATTN_V_BIASES  = 6,
    MCDNN_MH_ATTN_O_BIASES  = 7
} mcdnnMultiHeadAttnWeightKind_t;
#define MCDNN_ATTN_WKIND_COUNT 8
mcdnnStatus_t MCDNNWINAPI mcdnnGetMultiHeadAttnWeights(mcdnnHandle_t handle, const mcdnnAttnDescriptor_t attnDesc,
                                                       mcdnnMultiHeadAttnWeightKind_t wKind, size_t weightSizeInBytes,
                                                       const void *weights, mcdnnTensorDescriptor_t wDesc,
                                                       void **wAddr);
mcdnnStatus_t MCDNNWINAPI mcdnnMultiHeadAttnForward(mcdnnHandle_t handle, const mcdnnAttnDescriptor_t attnDesc,
                                                    int currIdx, const int loWinIdx[], const int hiWinIdx[],
                                                    const int devSeqLengthsQO[], const int devSeqLengthsKV[],
                                                    const mcdnnSeqDataDescriptor_t qDesc, const void *queries,
                                                    const void *residuals, const mcdnnSeqDataDescriptor_t kDesc,
                                                    const void *keys, const mcdnnSeqDataDescriptor_t vDesc,
                                                    const void *values, const mcdnnSeqDataDescriptor_t oDesc,
                                                    void *out, size_t weightSizeInBytes, const void *weights,
                                                    size_t workSpaceSizeInBytes, void *workSpace,
                                                    size_t reserveSpaceSizeInBytes, void *reserveSpace);
mcdnnStatus_t MCDNNWINAPI mcdnnAdvInferVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
