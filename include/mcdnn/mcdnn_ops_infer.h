/* mcDNN ops_infer (opemu): handle, tensor and operator descriptors, and the inference-side routines.
 *
 * mcDNN is cuDNN 8 renamed (cudnn -> mcdnn, CUDNN_ -> MCDNN_, cudaStream_t -> mcStream_t): the enum
 * values and prototypes below are that ABI (reference mcdnn.md §2); the declared surface is cuDNN 8.9.1's
 * (reference surface/mcdnn.tsv), which adds the FP8 data types and a few queries to 8.5's. */
#ifndef MCDNN_OPS_INFER_H_
#define MCDNN_OPS_INFER_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime.h"
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
size_t MCDNNWINAPI mcdnnGetMaxDeviceVersion(void);
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
    MCDNN_DATA_BOOLEAN  = 11,
    MCDNN_DATA_FP8_E4M3 = 12,
    MCDNN_DATA_FP8_E5M2 = 13,
    MCDNN_DATA_FAST_FLOAT_FOR_FP8 = 14 /* 8.9: a compute type only */
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

/* ---- tensor transforms: layout, padding and folding between two descriptors of the same tensor ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnInitTransformDest(const mcdnnTensorTransformDescriptor_t transformDesc,
                                                 const mcdnnTensorDescriptor_t srcDesc,
                                                 mcdnnTensorDescriptor_t destDesc, size_t *destSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnCreateTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t *transformDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t transformDesc,
                                                            const uint32_t nbDims,
                                                            const mcdnnTensorFormat_t destFormat,
                                                            const int32_t padBeforeA[], const int32_t padAfterA[],
                                                            const uint32_t foldA[],
                                                            const mcdnnFoldingDirection_t direction);
mcdnnStatus_t MCDNNWINAPI mcdnnGetTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t transformDesc,
                                                            uint32_t nbDimsRequested, mcdnnTensorFormat_t *destFormat,
                                                            int32_t padBeforeA[], int32_t padAfterA[],
                                                            uint32_t foldA[], mcdnnFoldingDirection_t *direction);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t transformDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnTransformTensorEx(mcdnnHandle_t handle,
                                                 const mcdnnTensorTransformDescriptor_t transDesc, const void *alpha,
                                                 const mcdnnTensorDescriptor_t srcDesc, const void *srcData,
                                                 const void *beta, const mcdnnTensorDescriptor_t destDesc,
                                                 void *destData);

/* ---- element-wise operations on two tensors: C = op(alpha1*A, alpha2*B) + beta*C ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateOpTensorDescriptor(mcdnnOpTensorDescriptor_t *opTensorDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetOpTensorDescriptor(mcdnnOpTensorDescriptor_t opTensorDesc,
                                                     mcdnnOpTensorOp_t opTensorOp, mcdnnDataType_t opTensorCompType,
                                                     mcdnnNanPropagation_t opTensorNanOpt);
mcdnnStatus_t MCDNNWINAPI mcdnnGetOpTensorDescriptor(const mcdnnOpTensorDescriptor_t opTensorDesc,
                                                     mcdnnOpTensorOp_t *opTensorOp, mcdnnDataType_t *opTensorCompType,
                                                     mcdnnNanPropagation_t *opTensorNanOpt);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyOpTensorDescriptor(mcdnnOpTensorDescriptor_t opTensorDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnOpTensor(mcdnnHandle_t handle, const mcdnnOpTensorDescriptor_t opTensorDesc,
                                        const void *alpha1, const mcdnnTensorDescriptor_t aDesc, const void *A,
                                        const void *alpha2, const mcdnnTensorDescriptor_t bDesc, const void *B,
                                        const void *beta, const mcdnnTensorDescriptor_t cDesc, void *C);

/* ---- reductions over the dimensions where C has extent 1 ---- */
typedef enum {
    MCDNN_REDUCE_TENSOR_ADD          = 0,
    MCDNN_REDUCE_TENSOR_MUL          = 1,
    MCDNN_REDUCE_TENSOR_MIN          = 2,
    MCDNN_REDUCE_TENSOR_MAX          = 3,
    MCDNN_REDUCE_TENSOR_AMAX         = 4,
    MCDNN_REDUCE_TENSOR_AVG          = 5,
    MCDNN_REDUCE_TENSOR_NORM1        = 6,
    MCDNN_REDUCE_TENSOR_NORM2        = 7,
    MCDNN_REDUCE_TENSOR_MUL_NO_ZEROS = 8
} mcdnnReduceTensorOp_t;
typedef enum {
    MCDNN_REDUCE_TENSOR_NO_INDICES        = 0,
    MCDNN_REDUCE_TENSOR_FLATTENED_INDICES = 1
} mcdnnReduceTensorIndices_t;
typedef enum {
    MCDNN_32BIT_INDICES = 0,
    MCDNN_64BIT_INDICES = 1,
    MCDNN_16BIT_INDICES = 2,
    MCDNN_8BIT_INDICES  = 3
} mcdnnIndicesType_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateReduceTensorDescriptor(mcdnnReduceTensorDescriptor_t *reduceTensorDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetReduceTensorDescriptor(mcdnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         mcdnnReduceTensorOp_t reduceTensorOp,
                                                         mcdnnDataType_t reduceTensorCompType,
                                                         mcdnnNanPropagation_t reduceTensorNanOpt,
                                                         mcdnnReduceTensorIndices_t reduceTensorIndices,
                                                         mcdnnIndicesType_t reduceTensorIndicesType);
mcdnnStatus_t MCDNNWINAPI mcdnnGetReduceTensorDescriptor(const mcdnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         mcdnnReduceTensorOp_t *reduceTensorOp,
                                                         mcdnnDataType_t *reduceTensorCompType,
                                                         mcdnnNanPropagation_t *reduceTensorNanOpt,
                                                         mcdnnReduceTensorIndices_t *reduceTensorIndices,
                                                         mcdnnIndicesType_t *reduceTensorIndicesType);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyReduceTensorDescriptor(mcdnnReduceTensorDescriptor_t reduceTensorDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnGetReductionIndicesSize(mcdnnHandle_t handle,
                                                       const mcdnnReduceTensorDescriptor_t reduceTensorDesc,
                                                       const mcdnnTensorDescriptor_t aDesc,
                                                       const mcdnnTensorDescriptor_t cDesc, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnGetReductionWorkspaceSize(mcdnnHandle_t handle,
                                                         const mcdnnReduceTensorDescriptor_t reduceTensorDesc,
                                                         const mcdnnTensorDescriptor_t aDesc,
                                                         const mcdnnTensorDescriptor_t cDesc, size_t *sizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnReduceTensor(mcdnnHandle_t handle,
                                            const mcdnnReduceTensorDescriptor_t reduceTensorDesc, void *indices,
                                            size_t indicesSizeInBytes, void *workspace, size_t workspaceSizeInBytes,
                                            const void *alpha, const mcdnnTensorDescriptor_t aDesc, const void *A,
                                            const void *beta, const mcdnnTensorDescriptor_t cDesc, void *C);

/* ---- filter descriptors (the weights of a convolution: K, C/groups, spatial dims) ---- */
mcdnnStatus_t MCDNNWINAPI mcdnnCreateFilterDescriptor(mcdnnFilterDescriptor_t *filterDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetFilter4dDescriptor(mcdnnFilterDescriptor_t filterDesc, mcdnnDataType_t dataType,
                                                     mcdnnTensorFormat_t format, int k, int c, int h, int w);
mcdnnStatus_t MCDNNWINAPI mcdnnGetFilter4dDescriptor(const mcdnnFilterDescriptor_t filterDesc,
                                                     mcdnnDataType_t *dataType, mcdnnTensorFormat_t *format, int *k,
                                                     int *c, int *h, int *w);
mcdnnStatus_t MCDNNWINAPI mcdnnSetFilterNdDescriptor(mcdnnFilterDescriptor_t filterDesc, mcdnnDataType_t dataType,
                                                     mcdnnTensorFormat_t format, int nbDims, const int filterDimA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetFilterNdDescriptor(const mcdnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                     mcdnnDataType_t *dataType, mcdnnTensorFormat_t *format,
                                                     int *nbDims, int filterDimA[]);
mcdnnStatus_t MCDNNWINAPI mcdnnGetFilterSizeInBytes(const mcdnnFilterDescriptor_t filterDesc, size_t *size);
mcdnnStatus_t MCDNNWINAPI mcdnnTransformFilter(mcdnnHandle_t handle, const mcdnnTensorTransformDescriptor_t transDesc,
                                               const void *alpha, const mcdnnFilterDescriptor_t srcDesc,
                                               const void *srcData, const void *beta,
                                               const mcdnnFilterDescriptor_t destDesc, void *destData);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyFilterDescriptor(mcdnnFilterDescriptor_t filterDesc);

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

/* ---- algorithm enumerations and the deprecated algorithm descriptors ---- */
typedef struct mcdnnAlgorithmStruct *mcdnnAlgorithmDescriptor_t;
typedef struct mcdnnAlgorithmPerformanceStruct *mcdnnAlgorithmPerformance_t;
typedef enum {
    MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM         = 0,
    MCDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
    MCDNN_CONVOLUTION_FWD_ALGO_GEMM                  = 2,
    MCDNN_CONVOLUTION_FWD_ALGO_DIRECT                = 3,
    MCDNN_CONVOLUTION_FWD_ALGO_FFT                   = 4,
    MCDNN_CONVOLUTION_FWD_ALGO_FFT_TILING            = 5,
    MCDNN_CONVOLUTION_FWD_ALGO_WINOGRAD              = 6,
    MCDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED     = 7,
    MCDNN_CONVOLUTION_FWD_ALGO_COUNT                 = 8
} mcdnnConvolutionFwdAlgo_t;
typedef enum {
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_0                 = 0,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_1                 = 1,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT               = 2,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_3                 = 3,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD          = 4,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING        = 6,
    MCDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT             = 7
} mcdnnConvolutionBwdFilterAlgo_t;
typedef enum {
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_0                 = 0,
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_1                 = 1,
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_FFT               = 2,
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING        = 3,
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD          = 4,
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
    MCDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT             = 6
} mcdnnConvolutionBwdDataAlgo_t;
typedef enum {
    MCDNN_RNN_ALGO_STANDARD               = 0,
    MCDNN_RNN_ALGO_PERSIST_STATIC         = 1,
    MCDNN_RNN_ALGO_PERSIST_DYNAMIC        = 2,
    MCDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H = 3,
    MCDNN_RNN_ALGO_COUNT                  = 4
} mcdnnRNNAlgo_t;
typedef enum {
    MCDNN_CTC_LOSS_ALGO_DETERMINISTIC     = 0,
    MCDNN_CTC_LOSS_ALGO_NON_DETERMINISTIC = 1
} mcdnnCTCLossAlgo_t;
typedef struct mcdnnAlgorithmUnionStruct {
    union Algorithm {
        mcdnnConvolutionFwdAlgo_t convFwdAlgo;
        mcdnnConvolutionBwdFilterAlgo_t convBwdFilterAlgo;
        mcdnnConvolutionBwdDataAlgo_t convBwdDataAlgo;
        mcdnnRNNAlgo_t RNNAlgo;
        mcdnnCTCLossAlgo_t CTCLossAlgo;
    } algo;
} mcdnnAlgorithm_t;
mcdnnStatus_t MCDNNWINAPI mcdnnCreateAlgorithmDescriptor(mcdnnAlgorithmDescriptor_t *algoDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnSetAlgorithmDescriptor(mcdnnAlgorithmDescriptor_t algoDesc,
                                                      mcdnnAlgorithm_t algorithm);
mcdnnStatus_t MCDNNWINAPI mcdnnGetAlgorithmDescriptor(const mcdnnAlgorithmDescriptor_t algoDesc,
                                                      mcdnnAlgorithm_t *algorithm);
mcdnnStatus_t MCDNNWINAPI mcdnnCopyAlgorithmDescriptor(const mcdnnAlgorithmDescriptor_t src,
                                                       mcdnnAlgorithmDescriptor_t dest);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyAlgorithmDescriptor(mcdnnAlgorithmDescriptor_t algoDesc);
mcdnnStatus_t MCDNNWINAPI mcdnnCreateAlgorithmPerformance(mcdnnAlgorithmPerformance_t *algoPerf, int numberToCreate);
mcdnnStatus_t MCDNNWINAPI mcdnnSetAlgorithmPerformance(mcdnnAlgorithmPerformance_t algoPerf,
                                                       mcdnnAlgorithmDescriptor_t algoDesc, mcdnnStatus_t status,
                                                       float time, size_t memory);
mcdnnStatus_t MCDNNWINAPI mcdnnGetAlgorithmPerformance(const mcdnnAlgorithmPerformance_t algoPerf,
                                                       mcdnnAlgorithmDescriptor_t *algoDesc, mcdnnStatus_t *status,
                                                       float *time, size_t *memory);
mcdnnStatus_t MCDNNWINAPI mcdnnDestroyAlgorithmPerformance(mcdnnAlgorithmPerformance_t *algoPerf,
                                                           int numberToDestroy);
mcdnnStatus_t MCDNNWINAPI mcdnnGetAlgorithmSpaceSize(mcdnnHandle_t handle, mcdnnAlgorithmDescriptor_t algoDesc,
                                                     size_t *algoSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnSaveAlgorithm(mcdnnHandle_t handle, mcdnnAlgorithmDescriptor_t algoDesc,
                                             void *algoSpace, size_t algoSpaceSizeInBytes);
mcdnnStatus_t MCDNNWINAPI mcdnnRestoreAlgorithm(mcdnnHandle_t handle, void *algoSpace, size_t algoSpaceSizeInBytes,
                                                mcdnnAlgorithmDescriptor_t algoDesc);

/* ---- API logging callbacks ---- */
typedef enum {
    MCDNN_SEV_FATAL   = 0,
    MCDNN_SEV_ERROR   = 1,
    MCDNN_SEV_WARNING = 2,
    MCDNN_SEV_INFO    = 3
} mcdnnSeverity_t;

#define MCDNN_SEV_ERROR_EN (1U << MCDNN_SEV_ERROR)
#define MCDNN_SEV_WARNING_EN (1U << MCDNN_SEV_WARNING)
#define MCDNN_SEV_INFO_EN (1U << MCDNN_SEV_INFO)

typedef struct mcdnnDebugStruct {
    unsigned mcdnn_version;
    mcdnnStatus_t mcdnnStatus;
    unsigned time_sec;
    unsigned time_usec;
    unsigned time_delta;
    mcdnnHandle_t handle;
    mcStream_t stream;
    unsigned long long pid;
    unsigned long long tid;
    int mcDeviceId;
    int reserved[15];
} mcdnnDebug_t;
typedef void (*mcdnnCallback_t)(mcdnnSeverity_t sev, void *udata, const mcdnnDebug_t *dbg, const char *msg);
mcdnnStatus_t MCDNNWINAPI mcdnnSetCallback(unsigned mask, void *udata, mcdnnCallback_t fptr);
mcdnnStatus_t MCDNNWINAPI mcdnnGetCallback(unsigned *mask, void **udata, mcdnnCallback_t *fptr);

mcdnnStatus_t MCDNNWINAPI mcdnnOpsInferVersionCheck(void);

#if defined(__cplusplus)
}
#endif

#endif
