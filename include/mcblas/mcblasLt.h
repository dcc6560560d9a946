/* mcBLASLt (opemu), <mcblas/mcblasLt.h>: the lightweight matmul API of mcBLAS in libmcblasLt.so, cuBLASLt
 * renamed (cublasLt -> mcblasLt, CUBLASLT_ -> MCBLASLT_, cudaDataType -> macaDataType, cudaStream_t ->
 * mcStream_t), at the level of the cuBLAS release mcblas.h declares (11.11). Statuses, operations, fill
 * modes and compute types are mcblas.h's.
 *
 * Matmul, layout, transform and preference descriptors are semi-opaque: a program may hold them in its own
 * storage of the struct's size and initialize them with the *Init functions, or let the *Create functions
 * allocate them. */
#ifndef OPEMU_MCBLASLT_H_
#define OPEMU_MCBLASLT_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mcblas.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct mcblasLtContext *mcblasLtHandle_t;

mcblasStatus_t MCBLASWINAPI mcblasLtCreate(mcblasLtHandle_t *lightHandle);
mcblasStatus_t MCBLASWINAPI mcblasLtDestroy(mcblasLtHandle_t lightHandle);
const char *MCBLASWINAPI mcblasLtGetStatusName(mcblasStatus_t status);
const char *MCBLASWINAPI mcblasLtGetStatusString(mcblasStatus_t status);
size_t MCBLASWINAPI mcblasLtGetVersion(void);
size_t MCBLASWINAPI mcblasLtGetCudartVersion(void);
mcblasStatus_t MCBLASWINAPI mcblasLtGetProperty(libraryPropertyType type, int *value);

/* ---- semi-opaque descriptors: storage a program may own ---- */

typedef struct {
    uint64_t data[8];
} mcblasLtMatrixLayoutOpaque_t;
typedef mcblasLtMatrixLayoutOpaque_t *mcblasLtMatrixLayout_t;

typedef struct {
    uint64_t data[8];
} mcblasLtMatmulAlgo_t;

typedef struct {
    uint64_t data[23];
} mcblasLtMatmulDescOpaque_t;
typedef mcblasLtMatmulDescOpaque_t *mcblasLtMatmulDesc_t;

typedef struct {
    uint64_t data[8];
} mcblasLtMatrixTransformDescOpaque_t;
typedef mcblasLtMatrixTransformDescOpaque_t *mcblasLtMatrixTransformDesc_t;

typedef struct {
    uint64_t data[10];
} mcblasLtMatmulPreferenceOpaque_t;
typedef mcblasLtMatmulPreferenceOpaque_t *mcblasLtMatmulPreference_t;

typedef enum {
    MCBLASLT_MATMUL_TILE_UNDEFINED = 0,
    MCBLASLT_MATMUL_TILE_8x8 = 1,
    MCBLASLT_MATMUL_TILE_8x16 = 2,
    MCBLASLT_MATMUL_TILE_16x8 = 3,
    MCBLASLT_MATMUL_TILE_8x32 = 4,
    MCBLASLT_MATMUL_TILE_16x16 = 5,
    MCBLASLT_MATMUL_TILE_32x8 = 6,
    MCBLASLT_MATMUL_TILE_8x64 = 7,
    MCBLASLT_MATMUL_TILE_16x32 = 8,
    MCBLASLT_MATMUL_TILE_32x16 = 9,
    MCBLASLT_MATMUL_TILE_64x8 = 10,
    MCBLASLT_MATMUL_TILE_32x32 = 11,
    MCBLASLT_MATMUL_TILE_32x64 = 12,
    MCBLASLT_MATMUL_TILE_64x32 = 13,
    MCBLASLT_MATMUL_TILE_32x128 = 14,
    MCBLASLT_MATMUL_TILE_64x64 = 15,
    MCBLASLT_MATMUL_TILE_128x32 = 16,
    MCBLASLT_MATMUL_TILE_64x128 = 17,
    MCBLASLT_MATMUL_TILE_128x64 = 18,
    MCBLASLT_MATMUL_TILE_64x256 = 19,
    MCBLASLT_MATMUL_TILE_128x128 = 20,
    MCBLASLT_MATMUL_TILE_256x64 = 21,
    MCBLASLT_MATMUL_TILE_64x512 = 22,
    MCBLASLT_MATMUL_TILE_128x256 = 23,
    MCBLASLT_MATMUL_TILE_256x128 = 24,
    MCBLASLT_MATMUL_TILE_512x64 = 25,
    MCBLASLT_MATMUL_TILE_64x96 = 26,
    MCBLASLT_MATMUL_TILE_96x64 = 27,
    MCBLASLT_MATMUL_TILE_96x128 = 28,
    MCBLASLT_MATMUL_TILE_128x160 = 29,
    MCBLASLT_MATMUL_TILE_160x128 = 30,
    MCBLASLT_MATMUL_TILE_192x128 = 31,
    MCBLASLT_MATMUL_TILE_END
} mcblasLtMatmulTile_t;

typedef enum {
    MCBLASLT_MATMUL_STAGES_UNDEFINED = 0,
    MCBLASLT_MATMUL_STAGES_16x1 = 1,
    MCBLASLT_MATMUL_STAGES_16x2 = 2,
    MCBLASLT_MATMUL_STAGES_16x3 = 3,
    MCBLASLT_MATMUL_STAGES_16x4 = 4,
    MCBLASLT_MATMUL_STAGES_16x5 = 5,
    MCBLASLT_MATMUL_STAGES_16x6 = 6,
    MCBLASLT_MATMUL_STAGES_32x1 = 7,
    MCBLASLT_MATMUL_STAGES_32x2 = 8,
    MCBLASLT_MATMUL_STAGES_32x3 = 9,
    MCBLASLT_MATMUL_STAGES_32x4 = 10,
    MCBLASLT_MATMUL_STAGES_32x5 = 11,
    MCBLASLT_MATMUL_STAGES_32x6 = 12,
    MCBLASLT_MATMUL_STAGES_64x1 = 13,
    MCBLASLT_MATMUL_STAGES_64x2 = 14,
    MCBLASLT_MATMUL_STAGES_64x3 = 15,
    MCBLASLT_MATMUL_STAGES_64x4 = 16,
    MCBLASLT_MATMUL_STAGES_64x5 = 17,
    MCBLASLT_MATMUL_STAGES_64x6 = 18,
    MCBLASLT_MATMUL_STAGES_128x1 = 19,
    MCBLASLT_MATMUL_STAGES_128x2 = 20,
    MCBLASLT_MATMUL_STAGES_128x3 = 21,
    MCBLASLT_MATMUL_STAGES_128x4 = 22,
    MCBLASLT_MATMUL_STAGES_128x5 = 23,
    MCBLASLT_MATMUL_STAGES_128x6 = 24,
    MCBLASLT_MATMUL_STAGES_32x10 = 25,
    MCBLASLT_MATMUL_STAGES_8x4 = 26,
    MCBLASLT_MATMUL_STAGES_16x10 = 27,
    MCBLASLT_MATMUL_STAGES_8x5 = 28,
    MCBLASLT_MATMUL_STAGES_16x80 = 29,
    MCBLASLT_MATMUL_STAGES_64x80 = 30,
    MCBLASLT_MATMUL_STAGES_END
} mcblasLtMatmulStages_t;

typedef enum {
    MCBLASLT_POINTER_MODE_HOST = 0,   /* MCBLAS_POINTER_MODE_HOST */
    MCBLASLT_POINTER_MODE_DEVICE = 1, /* MCBLAS_POINTER_MODE_DEVICE */
    MCBLASLT_POINTER_MODE_DEVICE_VECTOR = 2,
    MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO = 3,
    MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST = 4
} mcblasLtPointerMode_t;

typedef enum {
    MCBLASLT_POINTER_MODE_MASK_NO_FILTERING = 0,
    MCBLASLT_POINTER_MODE_MASK_HOST = 1,
    MCBLASLT_POINTER_MODE_MASK_DEVICE = 2,
    MCBLASLT_POINTER_MODE_MASK_DEVICE_VECTOR = 4,
    MCBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_ZERO = 8,
    MCBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_HOST = 16
} mcblasLtPointerModeMask_t;

#define MCBLASLT_NUMERICAL_IMPL_FLAGS_FMA (0x01ull << 0)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_HMMA (0x02ull << 0)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_IMMA (0x04ull << 0)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_DMMA (0x08ull << 0)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_TENSOR_OP_MASK (0xfeull << 0)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_OP_TYPE_MASK (0xffull << 0)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_16F (0x01ull << 8)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32F (0x02ull << 8)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_64F (0x04ull << 8)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_32I (0x08ull << 8)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_ACCUMULATOR_TYPE_MASK (0xffull << 8)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16F (0x01ull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_16BF (0x02ull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_TF32 (0x04ull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_32F (0x08ull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_64F (0x10ull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_INPUT_8I (0x20ull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_OP_INPUT_TYPE_MASK (0xffull << 16)
#define MCBLASLT_NUMERICAL_IMPL_FLAGS_GAUSSIAN (0x01ull << 32)
typedef uint64_t mcblasLtNumericalImplFlags_t;

/* D = epilogue(alpha * op(A) * op(B) + beta * C) */
mcblasStatus_t MCBLASWINAPI mcblasLtMatmul(mcblasLtHandle_t lightHandle, mcblasLtMatmulDesc_t computeDesc,
                                           const void *alpha, const void *A, mcblasLtMatrixLayout_t Adesc,
                                           const void *B, mcblasLtMatrixLayout_t Bdesc, const void *beta,
                                           const void *C, mcblasLtMatrixLayout_t Cdesc, void *D,
                                           mcblasLtMatrixLayout_t Ddesc, const mcblasLtMatmulAlgo_t *algo,
                                           void *workspace, size_t workspaceSizeInBytes, mcStream_t stream);

/* C = alpha * op(A) + beta * op(B), each in its own layout */
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixTransform(mcblasLtHandle_t lightHandle,
                                                    mcblasLtMatrixTransformDesc_t transformDesc, const void *alpha,
                                                    const void *A, mcblasLtMatrixLayout_t Adesc, const void *beta,
                                                    const void *B, mcblasLtMatrixLayout_t Bdesc, void *C,
                                                    mcblasLtMatrixLayout_t Cdesc, mcStream_t stream);

/* ---- matrix layouts ---- */

typedef enum {
    MCBLASLT_ORDER_COL = 0,
    MCBLASLT_ORDER_ROW = 1,
    MCBLASLT_ORDER_COL32 = 2,
    MCBLASLT_ORDER_COL4_4R2_8C = 3,
    MCBLASLT_ORDER_COL32_2R_4R4 = 4
} mcblasLtOrder_t;

typedef enum {
    MCBLASLT_MATRIX_LAYOUT_TYPE = 0,                 /* uint32_t (macaDataType) */
    MCBLASLT_MATRIX_LAYOUT_ORDER = 1,                /* int32_t, default MCBLASLT_ORDER_COL */
    MCBLASLT_MATRIX_LAYOUT_ROWS = 2,                 /* uint64_t */
    MCBLASLT_MATRIX_LAYOUT_COLS = 3,                 /* uint64_t */
    MCBLASLT_MATRIX_LAYOUT_LD = 4,                   /* int64_t */
    MCBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,          /* int32_t, default 1 */
    MCBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6, /* int64_t, elements, default 0 */
    MCBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7          /* int64_t, bytes, default 0 (interleaved complex) */
} mcblasLtMatrixLayoutAttribute_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatrixLayoutInit_internal(mcblasLtMatrixLayout_t matLayout, size_t size,
                                                              macaDataType type, uint64_t rows, uint64_t cols,
                                                              int64_t ld);
static inline mcblasStatus_t mcblasLtMatrixLayoutInit(mcblasLtMatrixLayout_t matLayout, macaDataType type,
                                                      uint64_t rows, uint64_t cols, int64_t ld)
{
    return mcblasLtMatrixLayoutInit_internal(matLayout, sizeof(*matLayout), type, rows, cols, ld);
}
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixLayoutCreate(mcblasLtMatrixLayout_t *matLayout, macaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld);
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixLayoutDestroy(mcblasLtMatrixLayout_t matLayout);
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixLayoutSetAttribute(mcblasLtMatrixLayout_t matLayout,
                                                             mcblasLtMatrixLayoutAttribute_t attr, const void *buf,
                                                             size_t sizeInBytes);
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixLayoutGetAttribute(mcblasLtMatrixLayout_t matLayout,
                                                             mcblasLtMatrixLayoutAttribute_t attr, void *buf,
                                                             size_t sizeInBytes, size_t *sizeWritten);

/* ---- matmul descriptors ---- */

typedef enum {
    MCBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,                /* int32_t (mcblasComputeType_t) */
    MCBLASLT_MATMUL_DESC_SCALE_TYPE = 1,                  /* int32_t (macaDataType) */
    MCBLASLT_MATMUL_DESC_POINTER_MODE = 2,                /* int32_t, default MCBLASLT_POINTER_MODE_HOST */
    MCBLASLT_MATMUL_DESC_TRANSA = 3,                      /* int32_t, default MCBLAS_OP_N */
    MCBLASLT_MATMUL_DESC_TRANSB = 4,                      /* int32_t, default MCBLAS_OP_N */
    MCBLASLT_MATMUL_DESC_TRANSC = 5,                      /* int32_t, only MCBLAS_OP_N */
    MCBLASLT_MATMUL_DESC_FILL_MODE = 6,                   /* int32_t, default MCBLAS_FILL_MODE_FULL */
    MCBLASLT_MATMUL_DESC_EPILOGUE = 7,                    /* uint32_t, default MCBLASLT_EPILOGUE_DEFAULT */
    MCBLASLT_MATMUL_DESC_BIAS_POINTER = 8,                /* void *, default NULL */
    MCBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,          /* int64_t, default 0 */
    MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,       /* void *, default NULL */
    MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,            /* int64_t, default 0 */
    MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13,  /* int64_t, default 0 */
    MCBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14,  /* int64_t, default 0 */
    MCBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,            /* int32_t, default 0 */
    MCBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,            /* const void * */
    MCBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,            /* const void * */
    MCBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,            /* const void * */
    MCBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,            /* const void * */
    MCBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,             /* void * */
    MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22,     /* int32_t, default -1 (D's type) */
    MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER = 23, /* void * */
    MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER = 24,  /* void * */
    MCBLASLT_MATMUL_DESC_FAST_ACCUM = 25,                 /* int8_t, default 0 */
    MCBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26              /* int32_t, default -1 (D's type) */
} mcblasLtMatmulDescAttributes_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatmulDescInit_internal(mcblasLtMatmulDesc_t matmulDesc, size_t size,
                                                            mcblasComputeType_t computeType, macaDataType_t scaleType);
static inline mcblasStatus_t mcblasLtMatmulDescInit(mcblasLtMatmulDesc_t matmulDesc, mcblasComputeType_t computeType,
                                                    macaDataType_t scaleType)
{
    return mcblasLtMatmulDescInit_internal(matmulDesc, sizeof(*matmulDesc), computeType, scaleType);
}
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulDescCreate(mcblasLtMatmulDesc_t *matmulDesc, mcblasComputeType_t computeType,
                                                     macaDataType_t scaleType);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulDescDestroy(mcblasLtMatmulDesc_t matmulDesc);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulDescSetAttribute(mcblasLtMatmulDesc_t matmulDesc,
                                                           mcblasLtMatmulDescAttributes_t attr, const void *buf,
                                                           size_t sizeInBytes);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulDescGetAttribute(mcblasLtMatmulDesc_t matmulDesc,
                                                           mcblasLtMatmulDescAttributes_t attr, void *buf,
                                                           size_t sizeInBytes, size_t *sizeWritten);

/* ---- matrix transform descriptors ---- */

typedef enum {
    MCBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE,   /* int32_t */
    MCBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, /* int32_t, default MCBLASLT_POINTER_MODE_HOST */
    MCBLASLT_MATRIX_TRANSFORM_DESC_TRANSA,       /* int32_t, default MCBLAS_OP_N */
    MCBLASLT_MATRIX_TRANSFORM_DESC_TRANSB        /* int32_t, default MCBLAS_OP_N */
} mcblasLtMatrixTransformDescAttributes_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatrixTransformDescInit_internal(mcblasLtMatrixTransformDesc_t transformDesc,
                                                                     size_t size, macaDataType scaleType);
static inline mcblasStatus_t mcblasLtMatrixTransformDescInit(mcblasLtMatrixTransformDesc_t transformDesc,
                                                             macaDataType scaleType)
{
    return mcblasLtMatrixTransformDescInit_internal(transformDesc, sizeof(*transformDesc), scaleType);
}
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixTransformDescCreate(mcblasLtMatrixTransformDesc_t *transformDesc,
                                                              macaDataType scaleType);
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixTransformDescDestroy(mcblasLtMatrixTransformDesc_t transformDesc);
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixTransformDescSetAttribute(mcblasLtMatrixTransformDesc_t transformDesc,
                                                                    mcblasLtMatrixTransformDescAttributes_t attr,
                                                                    const void *buf, size_t sizeInBytes);
mcblasStatus_t MCBLASWINAPI mcblasLtMatrixTransformDescGetAttribute(mcblasLtMatrixTransformDesc_t transformDesc,
                                                                    mcblasLtMatrixTransformDescAttributes_t attr,
                                                                    void *buf, size_t sizeInBytes,
                                                                    size_t *sizeWritten);

/* ---- epilogues, reductions, heuristics preferences ---- */

typedef enum {
    MCBLASLT_3M_MODE_DISALLOWED = 0,
    MCBLASLT_3M_MODE_ALLOWED = 1
} mcblasLt3mMode_t;

typedef enum {
    MCBLASLT_REDUCTION_SCHEME_NONE = 0,
    MCBLASLT_REDUCTION_SCHEME_INPLACE = 1,
    MCBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2,
    MCBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE = 4,
    MCBLASLT_REDUCTION_SCHEME_MASK = 0x7
} mcblasLtReductionScheme_t;

typedef enum {
    /* bits: 2 ReLU, 4 bias, 8 ReLU gradient, 16 bias gradient, 32 GELU, 64 GELU gradient, 128 auxiliary
     * matrix, 256 / 512 bias gradient of A / B */
    MCBLASLT_EPILOGUE_DEFAULT = 1,
    MCBLASLT_EPILOGUE_RELU = 2,
    MCBLASLT_EPILOGUE_RELU_AUX = 130,
    MCBLASLT_EPILOGUE_BIAS = 4,
    MCBLASLT_EPILOGUE_RELU_BIAS = 6,
    MCBLASLT_EPILOGUE_RELU_AUX_BIAS = 134,
    MCBLASLT_EPILOGUE_DRELU = 136,
    MCBLASLT_EPILOGUE_DRELU_BGRAD = 152,
    MCBLASLT_EPILOGUE_GELU = 32,
    MCBLASLT_EPILOGUE_GELU_AUX = 160,
    MCBLASLT_EPILOGUE_GELU_BIAS = 36,
    MCBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
    MCBLASLT_EPILOGUE_DGELU = 192,
    MCBLASLT_EPILOGUE_DGELU_BGRAD = 208,
    MCBLASLT_EPILOGUE_BGRADA = 256,
    MCBLASLT_EPILOGUE_BGRADB = 512
} mcblasLtEpilogue_t;

typedef enum {
    MCBLASLT_SEARCH_BEST_FIT = 0,
    MCBLASLT_SEARCH_LIMITED_BY_ALGO_ID = 1,
    MCBLASLT_SEARCH_RESERVED_02 = 2,
    MCBLASLT_SEARCH_RESERVED_03 = 3,
    MCBLASLT_SEARCH_RESERVED_04 = 4,
    MCBLASLT_SEARCH_RESERVED_05 = 5
} mcblasLtMatmulSearch_t;

typedef enum {
    MCBLASLT_MATMUL_PREF_SEARCH_MODE = 0,           /* uint32_t, default MCBLASLT_SEARCH_BEST_FIT */
    MCBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,   /* uint64_t, default 0 */
    MCBLASLT_MATMUL_PREF_MATH_MODE_MASK = 2,        /* uint32_t, default 1 */
    MCBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3, /* uint32_t, default MCBLASLT_REDUCTION_SCHEME_MASK */
    MCBLASLT_MATMUL_PREF_GAUSSIAN_MODE_MASK = 4,    /* uint32_t, default MCBLASLT_3M_MODE_ALLOWED */
    MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5, /* uint32_t, default 256 */
    MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6, /* uint32_t, default 256 */
    MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7, /* uint32_t, default 256 */
    MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8, /* uint32_t, default 256 */
    MCBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,       /* float, default 0 */
    MCBLASLT_MATMUL_PREF_POINTER_MODE_MASK = 10,    /* uint32_t, default HOST | DEVICE */
    MCBLASLT_MATMUL_PREF_EPILOGUE_MASK = 11,        /* uint32_t, default MCBLASLT_EPILOGUE_DEFAULT */
    MCBLASLT_MATMUL_PREF_IMPL_MASK = 12,            /* uint64_t, default all */
    MCBLASLT_MATMUL_PREF_SM_COUNT_TARGET = 13       /* int32_t, default 0 */
} mcblasLtMatmulPreferenceAttributes_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatmulPreferenceInit_internal(mcblasLtMatmulPreference_t pref, size_t size);
static inline mcblasStatus_t mcblasLtMatmulPreferenceInit(mcblasLtMatmulPreference_t pref)
{
    return mcblasLtMatmulPreferenceInit_internal(pref, sizeof(*pref));
}
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulPreferenceCreate(mcblasLtMatmulPreference_t *pref);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulPreferenceDestroy(mcblasLtMatmulPreference_t pref);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulPreferenceSetAttribute(mcblasLtMatmulPreference_t pref,
                                                                 mcblasLtMatmulPreferenceAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulPreferenceGetAttribute(mcblasLtMatmulPreference_t pref,
                                                                 mcblasLtMatmulPreferenceAttributes_t attr, void *buf,
                                                                 size_t sizeInBytes, size_t *sizeWritten);

/* ---- algorithms ---- */

typedef struct {
    mcblasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    mcblasStatus_t state;
    float wavesCount;
    int reserved[4];
} mcblasLtMatmulHeuristicResult_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoGetHeuristic(mcblasLtHandle_t lightHandle,
                                                           mcblasLtMatmulDesc_t operationDesc,
                                                           mcblasLtMatrixLayout_t Adesc, mcblasLtMatrixLayout_t Bdesc,
                                                           mcblasLtMatrixLayout_t Cdesc, mcblasLtMatrixLayout_t Ddesc,
                                                           mcblasLtMatmulPreference_t preference,
                                                           int requestedAlgoCount,
                                                           mcblasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                                           int *returnAlgoCount);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoGetIds(mcblasLtHandle_t lightHandle, mcblasComputeType_t computeType,
                                                     macaDataType_t scaleType, macaDataType_t Atype,
                                                     macaDataType_t Btype, macaDataType_t Ctype, macaDataType_t Dtype,
                                                     int requestedAlgoCount, int algoIdsArray[], int *returnAlgoCount);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoInit(mcblasLtHandle_t lightHandle, mcblasComputeType_t computeType,
                                                   macaDataType_t scaleType, macaDataType_t Atype, macaDataType_t Btype,
                                                   macaDataType_t Ctype, macaDataType_t Dtype, int algoId,
                                                   mcblasLtMatmulAlgo_t *algo);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoCheck(mcblasLtHandle_t lightHandle, mcblasLtMatmulDesc_t operationDesc,
                                                    mcblasLtMatrixLayout_t Adesc, mcblasLtMatrixLayout_t Bdesc,
                                                    mcblasLtMatrixLayout_t Cdesc, mcblasLtMatrixLayout_t Ddesc,
                                                    const mcblasLtMatmulAlgo_t *algo,
                                                    mcblasLtMatmulHeuristicResult_t *result);

typedef enum {
    MCBLASLT_ALGO_CAP_SPLITK_SUPPORT = 0,
    MCBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK = 1,
    MCBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT = 2,
    MCBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT = 3,
    MCBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT = 4,
    MCBLASLT_ALGO_CAP_UPLO_SUPPORT = 5,
    MCBLASLT_ALGO_CAP_TILE_IDS = 6,
    MCBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX = 7,
    MCBLASLT_ALGO_CAP_MATHMODE_IMPL = 8,
    MCBLASLT_ALGO_CAP_GAUSSIAN_IMPL = 9,
    MCBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER = 10,
    MCBLASLT_ALGO_CAP_POINTER_MODE_MASK = 11,
    MCBLASLT_ALGO_CAP_EPILOGUE_MASK = 12,
    MCBLASLT_ALGO_CAP_STAGES_IDS = 13,
    MCBLASLT_ALGO_CAP_LD_NEGATIVE = 14,
    MCBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS = 15,
    MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES = 16,
    MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES = 17,
    MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES = 18,
    MCBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES = 19
} mcblasLtMatmulAlgoCapAttributes_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoCapGetAttribute(const mcblasLtMatmulAlgo_t *algo,
                                                              mcblasLtMatmulAlgoCapAttributes_t attr, void *buf,
                                                              size_t sizeInBytes, size_t *sizeWritten);

typedef enum {
    MCBLASLT_ALGO_CONFIG_ID = 0,               /* int32_t, read-only */
    MCBLASLT_ALGO_CONFIG_TILE_ID = 1,          /* uint32_t */
    MCBLASLT_ALGO_CONFIG_SPLITK_NUM = 2,       /* uint32_t */
    MCBLASLT_ALGO_CONFIG_REDUCTION_SCHEME = 3, /* uint32_t */
    MCBLASLT_ALGO_CONFIG_CTA_SWIZZLING = 4,    /* uint32_t */
    MCBLASLT_ALGO_CONFIG_CUSTOM_OPTION = 5,    /* uint32_t */
    MCBLASLT_ALGO_CONFIG_STAGES_ID = 6         /* uint32_t */
} mcblasLtMatmulAlgoConfigAttributes_t;

mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoConfigSetAttribute(mcblasLtMatmulAlgo_t *algo,
                                                                 mcblasLtMatmulAlgoConfigAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes);
mcblasStatus_t MCBLASWINAPI mcblasLtMatmulAlgoConfigGetAttribute(const mcblasLtMatmulAlgo_t *algo,
                                                                 mcblasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                                 size_t sizeInBytes, size_t *sizeWritten);

/* ---- logging (experimental in the vendor's API) and the heuristics cache ---- */

typedef void (*mcblasLtLoggerCallback_t)(int logLevel, const char *functionName, const char *message);
mcblasStatus_t MCBLASWINAPI mcblasLtLoggerSetCallback(mcblasLtLoggerCallback_t callback);
mcblasStatus_t MCBLASWINAPI mcblasLtLoggerSetFile(FILE *file);
mcblasStatus_t MCBLASWINAPI mcblasLtLoggerOpenFile(const char *logFile);
mcblasStatus_t MCBLASWINAPI mcblasLtLoggerSetLevel(int level);
mcblasStatus_t MCBLASWINAPI mcblasLtLoggerSetMask(int mask);
mcblasStatus_t MCBLASWINAPI mcblasLtLoggerForceDisable(void);
mcblasStatus_t MCBLASWINAPI mcblasLtHeuristicsCacheGetCapacity(size_t *capacity);
mcblasStatus_t MCBLASWINAPI mcblasLtHeuristicsCacheSetCapacity(size_t capacity);

#if defined(__cplusplus)
}
#endif

#endif
