/* mcDNN ops_infer (opemu): handle, tensor and operator descriptors, and the inference-side routines.
 *
 * mcDNN is cuDNN 8.5 renamed (cudnn -> mcdnn, CUDNN_ -> MCDNN_, cudaStream_t -> mcStream_t): the enum
 * values and prototypes below are that ABI (reference mcdnn.md §2). */
#ifndef MCDNN_OPS_INFER_H_
#define MCDNN_OPS_INFER_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime_api.h"
#include "../common/library_types.h" /* libraryPropertyType, shared with mcBLAS */
#include "mcdnn_version.h"

#define MCDNN_OPS_INFER_MAJOR 1
#define MCDNN_OPS_INFER_MINOR 1
#define MCDNN_OPS_INFER_PATCH 1

#if (MCDNN_OPS_INFER_MAJOR != MCDNN_MAJOR) || (MCDNN_OPS_INFER_MINOR != MCDNN_MINOR) || \
    (MCDNN_OPS_INFER_PATCH != MCDNN_PATCHLEVEL)
#error Version mismatch between mcdnn_ops_infer.h and mcdnn_version.h
#endif

#ifndef MCDNNWINAPI
#ifdef _WIN32
#define MCDNNWINAPI __stdcall
#else
#define MCDNNWINAPI
#endif
#endif

#if defined(__cplusplus)
extern "C" {
#endif

struct mcdnnContext;
typedef struct mcdnnContext *mcdnnHandle_t;

size_t MCDNNWINAPI mcdnnGetVersion(void);
size_t MCDNNWINAPI mcdnnGetCudartVersion(void);

typedef enum {
    MCDNN_STATUS_SUCCESS                      = 0,
    MCDNN_STATUS_NOT_INITIALIZED              = 1,
    MCDNN_STATUS_ALLOC_FAILED                 = 2,
    MCDNN_STATUS_BAD_PARAM                    = 3,
    MCDNN_STATUS_INTERNAL_ERROR               = 4,
    MCDNN_STATUS_INVALID_VALUE                = 5,
    MCDNN_STATUS_ARCH_MISMATCH                = 6,
    MCDNN_STATUS_MAPPING_ERROR                = 7,
    MCDNN_STATUS_EXECUTION_FAILED             = 8,
    MCDNN_STATUS_NOT_SUPPORTED                = 9,
    MCDNN_STATUS_LICENSE_ERROR                = 10,
    MCDNN_STATUS_RUNTIME_PREREQUISITE_MISSING = 11,
    MCDNN_STATUS_RUNTIME_IN_PROGRESS          = 12,
    MCDNN_STATUS_RUNTIME_FP_OVERFLOW          = 13,
    MCDNN_STATUS_VERSION_MISMATCH             = 14
} mcdnnStatus_t;

/* The enumerator's own spelling, e.g. "MCDNN_STATUS_BAD_PARAM". */
const char *MCDNNWINAPI mcdnnGetErrorString(mcdnnStatus_t status);

typedef struct mcdnnRuntimeTag_t mcdnnRuntimeTag_t;

typedef enum {
    MCDNN_ERRQUERY_RAWCODE     = 0,
    MCDNN_ERRQUERY_NONBLOCKING = 1,
    MCDNN_ERRQUERY_BLOCKING    = 2
} mcdnnErrQueryMode_t;

mcdnnStatus_t MCDNNWINAPI mcdnnQueryRuntimeError(mcdnnHandle_t handle, mcdnnStatus_t *rstatus,
                                                  mcdnnErrQueryMode_t mode, mcdnnRuntimeTag_t *tag);

mcdnnStatus_t MCDNNWINAPI mcdnnGetProperty(libraryPropertyType type, int *value);

mcdnnStatus_t MCDNNWINAPI mcdnnCreate(mcdnnHandle_t *handle);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroy(mcdnnHandle_t handle);
mcdnnStatus_t MCDNNWINAPI mcdnnSetStream(mcdnnHandle_t handle, mcStream_t streamId);
mcdnnStatus_t MCDNNWINAPI mcdnnGetStream(mcdnnHandle_t handle, mcStream_t *streamId);

/* Opaque descriptors. */
typedef struct mcdnnTensorStruct *mcdnnTensorDescriptor_t;
typedef struct mcdnnPoolingStruct *mcdnnPoolingDescriptor_t;
typedef struct mcdnnFilterStruct *mcdnnFilterDescriptor_t;
typedef struct mcdnnLRNStruct *mcdnnLRNDescriptor_t;
typedef struct mcdnnActivationStruct *mcdnnActivationDescriptor_t;
typedef struct mcdnnSpatialTransformerStruct *mcdnnSpatialTransformerDescriptor_t;
typedef struct mcdnnOpTensorStruct *mcdnnOpTensorDescriptor_t;
typedef struct mcdnnReduceTensorStruct *mcdnnReduceTensorDescriptor_t;
typedef struct mcdnnCTCLossStruct *mcdnnCTCLossDescriptor_t;
typedef struct mcdnnTensorTransformStruct *mcdnnTensorTransformDescriptor_t;
typedef struct mcdnnDropoutStruct *mcdnnDropoutDescriptor_t;

typedef enum {
    MCDNN_DATA_FLOAT    = 0,
    MCDNN_DATA_DOUBLE   = 1,
    MCDNN_DATA_HALF     = 2,
    MCDNN_DATA_INT8     = 3,
    MCDNN_DATA_INT32    = 4,
    MCDNN_DATA_INT8x4   = 5,
    MCDNN_DATA_UINT8    = 6,
    MCDNN_DATA_UINT8x4  = 7,
    MCDNN_DATA_INT8x32  = 8,
    MCDNN_DATA_BFLOAT16 = 9,
    MCDNN_DATA_INT64    = 10,
    MCDNN_DATA_BOOLEAN  = 11
} mcdnnDataType_t;

typedef enum {
    MCDNN_DEFAULT_MATH                    = 0,
    MCDNN_TENSOR_OP_MATH                  = 1,
    MCDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    MCDNN_FMA_MATH                        = 3
} mcdnnMathType_t;

typedef enum {
    MCDNN_NOT_PROPAGATE_NAN = 0,
    MCDNN_PROPAGATE_NAN     = 1
} mcdnnNanPropagation_t;

typedef enum {
    MCDNN_NON_DETERMINISTIC = 0,
    MCDNN_DETERMINISTIC     = 1
} mcdnnDeterminism_t;

#define MCDNN_DIM_MAX 8

typedef enum {
    MCDNN_TENSOR_NCHW        = 0, /* row major (wStride = 1, hStride = w) */
    MCDNN_TENSOR_NHWC        = 1, /* feature maps interleaved (cStride = 1) */
    MCDNN_TENSOR_NCHW_VECT_C = 2  /* each image point is a vector of C elements, vector length in data type */
} mcdnnTensorFormat_t;

typedef enum {
    MCDNN_TRANSFORM_FOLD   = 0U,
    MCDNN_TRANSFORM_UNFOLD = 1U
} mcdnnFoldingDirection_t;

typedef enum {
    MCDNN_OP_TENSOR_ADD  = 0,
    MCDNN_OP_TENSOR_MUL  = 1,
    MCDNN_OP_TENSOR_MIN  = 2,
    MCDNN_OP_TENSOR_MAX  = 3,
    MCDNN_OP_TENSOR_SQRT = 4,
    MCDNN_OP_TENSOR_NOT  = 5
} mcdnnOpTensorOp_t;

typedef enum {
    MCDNN_SOFTMAX_FAST     = 0, /* straightforward implementation */
    MCDNN_SOFTMAX_ACCURATE = 1, /* subtract max from every point to avoid overflow */
    MCDNN_SOFTMAX_LOG      = 2
} mcdnnSoftmaxAlgorithm_t;

typedef enum {
    MCDNN_SOFTMAX_MODE_INSTANCE = 0, /* softmax over C, H, W for each N */
    MCDNN_SOFTMAX_MODE_CHANNEL  = 1  /* softmax over C for each H, W, N */
} mcdnnSoftmaxMode_t;

typedef enum {
    MCDNN_POOLING_MAX                           = 0,
    MCDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1, /* the average's count includes padded values */
    MCDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2, /* the average's count excludes padded values */
    MCDNN_POOLING_MAX_DETERMINISTIC             = 3
} mcdnnPoolingMode_t;

typedef enum {
    MCDNN_ACTIVATION_SIGMOID      = 0,
    MCDNN_ACTIVATION_RELU         = 1,
    MCDNN_ACTIVATION_TANH         = 2,
    MCDNN_ACTIVATION_CLIPPED_RELU = 3,
    MCDNN_ACTIVATION_ELU          = 4,
    MCDNN_ACTIVATION_IDENTITY     = 5,
    MCDNN_ACTIVATION_SWISH        = 6
} mcdnnActivationMode_t;

#define MCDNN_LRN_MIN_N 1       /* minimum allowed lrnN */
#define MCDNN_LRN_MAX_N 16      /* maximum allowed lrnN */
#define MCDNN_LRN_MIN_K 1e-5    /* minimum allowed lrnK */
#define MCDNN_LRN_MIN_BETA 0.01 /* minimum allowed lrnBeta */

typedef enum {
    MCDNN_LRN_CROSS_CHANNEL_DIM1 = 0 /* normalize across the tensor's dimA[1] */
} mcdnnLRNMode_t;

typedef enum {
    MCDNN_DIVNORM_PRECOMPUTED_MEANS = 0
} mcdnnDivNormMode_t;

typedef enum {
    MCDNN_BATCHNORM_PER_ACTIVATION     = 0, /* bnScale, bnBias 1xCxHxW.., normalized over N */
    MCDNN_BATCHNORM_SPATIAL            = 1, /* 1xCx1x1, normalized over N, H, W */
    MCDNN_BATCHNORM_SPATIAL_PERSISTENT = 2  /* as SPATIAL, may be faster, limits on the range of values */
} mcdnnBatchNormMode_t;

#define MCDNN_BN_MIN_EPSILON 0.0 /* minimum epsilon of the batch normalization formula */

typedef enum {
    MCDNN_BATCHNORM_OPS_BN                = 0, /* batch normalization only */
    MCDNN_BATCHNORM_OPS_BN_ACTIVATION     = 1, /* batch normalization, then activation */
    MCDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2  /* batch normalization, element-wise add, then activation */
} mcdnnBatchNormOps_t;

typedef enum {
    MCDNN_NORM_PER_ACTIVATION = 0,
    MCDNN_NORM_PER_CHANNEL    = 1
} mcdnnNormMode_t;

typedef enum {
    MCDNN_NORM_ALGO_STANDARD = 0,
    MCDNN_NORM_ALGO_PERSIST  = 1
} mcdnnNormAlgo_t;

typedef enum {
    MCDNN_NORM_OPS_NORM                = 0,
    MCDNN_NORM_OPS_NORM_ACTIVATION     = 1,
    MCDNN_NORM_OPS_NORM_ADD_ACTIVATION = 2
} mcdnnNormOps_t;

typedef enum {
    MCDNN_SAMPLER_BILINEAR = 0
} mcdnnSamplerType_t;

/* ---- tensor descriptors ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateTensorDescriptor(mcdnnTensorDescriptor_t *tensorDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetTensor4dDescriptor(mcdnnTensorDescriptor_t tensorDesc, mcdnnTensorFormat_t format,
                                                     mcdnnDataType_t dataType, int n, int c, int h, int w);
mcdnnStatus_t MCDNNWINAPI mcdnnSetTensor4dDescriptorEx(mcdnnTensorDescriptor_t tensorDesc, mcdnnDataType_t dataType,
                                                       int n, int c, int h, int w, int nStride, int cStride,
                                                       int hStride, int wStride);
mcdnnStatus_t MCDNNWINAPI mcdnnGetTensor4dDescriptor(const mcdnnTensorDescriptor_t tensorDesc,
                                                     mcdnnDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                     int *nStride, int *cStride, int *hStride, int *wStride);
mcdnnStatus_t MCDNNWINAPI mcdnnSetTensorNdDescriptor(mcdnnTensorDescriptor_t tensorDesc, mcdnnDataType_t dataType,
                                                     int nbDims, const int dimA[], const int strideA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnSetTensorNdDescriptorEx(mcdnnTensorDescriptor_t tensorDesc,
                                                       mcdnnTensorFormat_t format, mcdnnDataType_t dataType,
                                                       int nbDims, const int dimA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetTensorNdDescriptor(const mcdnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                     mcdnnDataType_t *dataType, int *nbDims, int dimA[],
                                                     int strideA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetTensorSizeInBytes(const mcdnnTensorDescriptor_t tensorDesc, size_t *size);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyTensorDescriptor(mcdnnTensorDescriptor_t tensorDesc);

/* ---- tensor utilities: dst = alpha*result + beta*dst ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnTransformTensor(mcdnnHandle_t handle, const void *alpha,
                                               const mcdnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                               const mcdnnTensorDescriptor_t yDesc, void *y);
mcdnnStatus_t MCDNNWINAPI mcdnnAddTensor(mcdnnHandle_t handle, const void *alpha, const mcdnnTensorDescriptor_t aDesc,
                                         const void *A, const void *beta, const mcdnnTensorDescriptor_t cDesc,
                                         void *C);
mcdnnStatus_t MCDNNWINAPI mcdnnSetTensor(mcdnnHandle_t handle, const mcdnnTensorDescriptor_t yDesc, void *y,
                                         const void *valuePtr);
mcdnnStatus_t MCDNNWINAPI mcdnnScaleTensor(mcdnnHandle_t handle, const mcdnnTensorDescriptor_t yDesc, void *y,
                                           const void *alpha);

/* ---- softmax ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnSoftmaxForward(mcdnnHandle_t handle, mcdnnSoftmaxAlgorithm_t algo,
                                              mcdnnSoftmaxMode_t mode, const void *alpha,
                                              const mcdnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                              const mcdnnTensorDescriptor_t yDesc, void *y);

/* ---- pooling ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreatePoolingDescriptor(mcdnnPoolingDescriptor_t *poolingDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetPooling2dDescriptor(mcdnnPoolingDescriptor_t poolingDesc, mcdnnPoolingMode_t mode,
                                                      mcdnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                      int windowWidth, int verticalPadding, int horizontalPadding,
                                                      int verticalStride, int horizontalStride);
mcdnnStatus_t MCDNNWINAPI mcdnnGetPooling2dDescriptor(const mcdnnPoolingDescriptor_t poolingDesc,
                                                      mcdnnPoolingMode_t *mode,
                                                      mcdnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                                      int *windowWidth, int *verticalPadding, int *horizontalPadding,
                                                      int *verticalStride, int *horizontalStride);
mcdnnStatus_t MCDNNWINAPI mcdnnSetPoolingNdDescriptor(mcdnnPoolingDescriptor_t poolingDesc,
                                                      const mcdnnPoolingMode_t mode,
                                                      const mcdnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                      const int windowDimA[], const int paddingA[],
                                                      const int strideA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetPoolingNdDescriptor(const mcdnnPoolingDescriptor_t poolingDesc,
                                                      int nbDimsRequested, mcdnnPoolingMode_t *mode,
                                                      mcdnnNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                                      int windowDimA[], int paddingA[], int strideA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetPoolingNdForwardOutputDim(const mcdnnPoolingDescriptor_t poolingDesc,
                                                            const mcdnnTensorDescriptor_t inputTensorDesc,
                                                            int nbDims, int outputTensorDimA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetPooling2dForwardOutputDim(const mcdnnPoolingDescriptor_t poolingDesc,
                                                            const mcdnnTensorDescriptor_t inputTensorDesc, int *n,
                                                            int *c, int *h, int *w);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyPoolingDescriptor(mcdnnPoolingDescriptor_t poolingDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnPoolingForward(mcdnnHandle_t handle, const mcdnnPoolingDescriptor_t poolingDesc,
                                              const void *alpha, const mcdnnTensorDescriptor_t xDesc, const void *x,
                                              const void *beta, const mcdnnTensorDescriptor_t yDesc, void *y);

/* ---- activation ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateActivationDescriptor(mcdnnActivationDescriptor_t *activationDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetActivationDescriptor(mcdnnActivationDescriptor_t activationDesc,
                                                       mcdnnActivationMode_t mode, mcdnnNanPropagation_t reluNanOpt,
                                                       double coef);
mcdnnStatus_t MCDNNWINAPI mcdnnGetActivationDescriptor(const mcdnnActivationDescriptor_t activationDesc,
                                                       mcdnnActivationMode_t *mode,
                                                       mcdnnNanPropagation_t *reluNanOpt, double *coef);
mcdnnStatus_t MCDNNWINAPI mcdnnSetActivationDescriptorSwishBeta(mcdnnActivationDescriptor_t activationDesc,
                                                                double swish_beta);
mcdnnStatus_t MCDNNWINAPI mcdnnGetActivationDescriptorSwishBeta(mcdnnActivationDescriptor_t activationDesc,
                                                                double *swish_beta);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyActivationDescriptor(mcdnnActivationDescriptor_t activationDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnActivationForward(mcdnnHandle_t handle, mcdnnActivationDescriptor_t activationDesc,
                                                 const void *alpha, const mcdnnTensorDescriptor_t xDesc,
                                                 const void *x, const void *beta,
                                                 const mcdnnTensorDescriptor_t yDesc, void *y);

/* ---- LRN and divisive normalization ---- */
/* A new LRN descriptor holds lrnN=5, lrnAlpha=1e-4, lrnBeta=0.75, lrnK=2.0. */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateLRNDescriptor(mcdnnLRNDescriptor_t *normDesc);
/* The window is [center-lookBehind, center+lookAhead], lookBehind = floor((lrnN-1)/2),
 * lookAhead = lrnN-lookBehind-1. The double parameters are cast to the tensor data type. */
mcdnnStatus_t MCDNNWINAPI mcdnnSetLRNDescriptor(mcdnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                                double lrnBeta, double lrnK);
mcdnnStatus_t MCDNNWINAPI mcdnnGetLRNDescriptor(mcdnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                                double *lrnBeta, double *lrnK);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyLRNDescriptor(mcdnnLRNDescriptor_t lrnDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnLRNCrossChannelForward(mcdnnHandle_t handle, mcdnnLRNDescriptor_t normDesc,
                                                      mcdnnLRNMode_t lrnMode, const void *alpha,
                                                      const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                      const void *beta, const mcdnnTensorDescriptor_t yDesc,
                                                      void *y);
/* means may be NULL (zero means); xDesc describes x, means, temp and temp2. */
mcdnnStatus_t MCDNNWINAPI mcdnnDivisiveNormalizationForward(mcdnnHandle_t handle, mcdnnLRNDescriptor_t normDesc,
                                                            mcdnnDivNormMode_t mode, const void *alpha,
                                                            const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                            const void *means, void *temp, void *temp2,
                                                            const void *beta, const mcdnnTensorDescriptor_t yDesc,
                                                            void *y);

/* ---- batch normalization (inference) ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnDeriveBNTensorDescriptor(mcdnnTensorDescriptor_t derivedBnDesc,
                                                        const mcdnnTensorDescriptor_t xDesc,
                                                        mcdnnBatchNormMode_t mode);
mcdnnStatus_t MCDNNWINAPI mcdnnBatchNormalizationForwardInference(
    mcdnnHandle_t handle, mcdnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const mcdnnTensorDescriptor_t xDesc, const void *x, const mcdnnTensorDescriptor_t yDesc, void *y,
    const mcdnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon);

/* ---- normalization (inference) ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnDeriveNormTensorDescriptor(mcdnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                          mcdnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                          const mcdnnTensorDescriptor_t xDesc, mcdnnNormMode_t mode,
                                                          int groupCnt);
mcdnnStatus_t MCDNNWINAPI mcdnnNormalizationForwardInference(
    mcdnnHandle_t handle, mcdnnNormMode_t mode, mcdnnNormOps_t normOps, mcdnnNormAlgo_t algo, const void *alpha,
    const void *beta, const mcdnnTensorDescriptor_t xDesc, const void *x,
    const mcdnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const mcdnnTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const mcdnnTensorDescriptor_t zDesc, const void *z, mcdnnActivationDescriptor_t activationDesc,
    const mcdnnTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt);

/* ---- spatial transformer ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateSpatialTransformerDescriptor(mcdnnSpatialTransformerDescriptor_t *stDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetSpatialTransformerNdDescriptor(mcdnnSpatialTransformerDescriptor_t stDesc,
                                                                 mcdnnSamplerType_t samplerType,
                                                                 mcdnnDataType_t dataType, const int nbDims,
                                                                 const int dimA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroySpatialTransformerDescriptor(mcdnnSpatialTransformerDescriptor_t stDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSpatialTfGridGeneratorForward(mcdnnHandle_t handle,
                                                             const mcdnnSpatialTransformerDescriptor_t stDesc,
                                                             const void *theta, void *grid);
mcdnnStatus_t MCDNNWINAPI mcdnnSpatialTfSamplerForward(mcdnnHandle_t handle,
                                                       mcdnnSpatialTransformerDescriptor_t stDesc, const void *alpha,
                                                       const mcdnnTensorDescriptor_t xDesc, const void *x,
                                                       const void *grid, const void *beta,
                                                       mcdnnTensorDescriptor_t yDesc, void *y);

/* ---- dropout ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateDropoutDescriptor(mcdnnDropoutDescriptor_t *dropoutDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnDropoutGetStatesSize(mcdnnHandle_t handle, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnDropoutGetReserveSpaceSize(mcdnnTensorDescriptor_t xdesc, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnSetDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc, mcdnnHandle_t handle,
                                                    float dropout, void *states, size_t stateSizeInBytes,
                                                    unsigned long long seed);
mcdnnStatus_t MCDNNWINAPI mcdnnRestoreDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc, mcdnnHandle_t handle,
                                                        float dropout, void *states, size_t stateSizeInBytes,
                                                        unsigned long long seed);
mcdnnStatus_t MCDNNWINAPI mcdnnGetDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc, mcdnnHandle_t handle,
                                                    float *dropout, void **states, unsigned long long *seed);
mcdnnStatus_t MCDNNWINAPI mcdnnDropoutForward(mcdnnHandle_t handle, const mcdnnDropoutDescriptor_t dropoutDesc,
                                              const mcdnnTensorDescriptor_t xdesc, const void *x,
                                              const mcdnnTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                              size_t reserveSpaceSizeInBytes);

mcdnnStatus_t MCDNNWINAPI mcdnnOpsInferVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
