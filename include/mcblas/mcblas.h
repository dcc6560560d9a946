/* mcBLAS (opemu), <mcblas/mcblas.h>: MetaX's BLAS library, the cuBLAS v2 API under MACA names
 * (cublas -> mcblas, CUBLAS_ -> MCBLAS_, cudaStream_t -> mcStream_t, cudaDataType -> macaDataType,
 * cuComplex -> mcComplex, __half -> mcblas_half), column-major, in libmcblas.so.
 *
 * The function list and enum values are cuBLAS 11.11.3's (the surface list mcblas.tsv). Unlike
 * cublas_v2.h, mcBLAS does not rename entry points to `_v2` symbols: public MetaX code resolves
 * "mcblasCreate", "mcblasSetStream", "mcblasGemmEx" in libmcblas.so with dlsym and interposes
 * mcblasSgemm by that name, and no public code names an mcblas*_v2 symbol. */
#ifndef OPEMU_MCBLAS_H_
#define OPEMU_MCBLAS_H_

#include <stddef.h>
#include <stdint.h>
#include "../mcr/mc_runtime.h"
#include "../common/library_types.h"
#include "../common/mcComplex.h"
#include "../common/maca_fp16.h"
#include "../common/maca_bfloat16.h"

#ifndef MCBLASWINAPI
#ifdef _WIN32
#define MCBLASWINAPI __stdcall
#else
#define MCBLASWINAPI
#endif
#endif
#ifndef MCBLASAPIENTRY
#define MCBLASAPIENTRY
#endif

/* The cuBLAS release whose API this is (mcblasGetVersion / mcblasGetProperty answer it). */
#define MCBLAS_VER_MAJOR 11
#define MCBLAS_VER_MINOR 11
#define MCBLAS_VER_PATCH 3
#define MCBLAS_VER_BUILD 6
#define MCBLAS_VERSION (MCBLAS_VER_MAJOR * 10000 + MCBLAS_VER_MINOR * 100 + MCBLAS_VER_PATCH)

#if defined(__cplusplus)
extern "C" {
#endif

typedef int32_t mcblas_int;
typedef int64_t mcblas_stride;
typedef __half mcblas_half;
typedef __maca_bfloat16 mcblas_bfloat16;

typedef enum {
    MCBLAS_STATUS_SUCCESS = 0,
    MCBLAS_STATUS_NOT_INITIALIZED = 1,
    MCBLAS_STATUS_ALLOC_FAILED = 3,
    MCBLAS_STATUS_INVALID_VALUE = 7,
    MCBLAS_STATUS_ARCH_MISMATCH = 8,
    MCBLAS_STATUS_MAPPING_ERROR = 11,
    MCBLAS_STATUS_EXECUTION_FAILED = 13,
    MCBLAS_STATUS_INTERNAL_ERROR = 14,
    MCBLAS_STATUS_NOT_SUPPORTED = 15,
    MCBLAS_STATUS_LICENSE_ERROR = 16
} mcblasStatus_t;

typedef enum { MCBLAS_FILL_MODE_LOWER = 0, MCBLAS_FILL_MODE_UPPER = 1, MCBLAS_FILL_MODE_FULL = 2 } mcblasFillMode_t;
typedef enum { MCBLAS_DIAG_NON_UNIT = 0, MCBLAS_DIAG_UNIT = 1 } mcblasDiagType_t;
typedef enum { MCBLAS_SIDE_LEFT = 0, MCBLAS_SIDE_RIGHT = 1 } mcblasSideMode_t;
typedef enum {
    MCBLAS_OP_N = 0,
    MCBLAS_OP_T = 1,
    MCBLAS_OP_C = 2,
    MCBLAS_OP_HERMITAN = 2,
    MCBLAS_OP_CONJG = 3
} mcblasOperation_t;
typedef enum { MCBLAS_POINTER_MODE_HOST = 0, MCBLAS_POINTER_MODE_DEVICE = 1 } mcblasPointerMode_t;
typedef enum { MCBLAS_ATOMICS_NOT_ALLOWED = 0, MCBLAS_ATOMICS_ALLOWED = 1 } mcblasAtomicsMode_t;

typedef enum {
    MCBLAS_GEMM_DEFAULT = -1,
    MCBLAS_GEMM_DFALT = -1,
    MCBLAS_GEMM_ALGO0 = 0,
    MCBLAS_GEMM_ALGO1 = 1,
    MCBLAS_GEMM_ALGO2 = 2,
    MCBLAS_GEMM_ALGO3 = 3,
    MCBLAS_GEMM_ALGO4 = 4,
    MCBLAS_GEMM_ALGO5 = 5,
    MCBLAS_GEMM_ALGO6 = 6,
    MCBLAS_GEMM_ALGO7 = 7,
    MCBLAS_GEMM_ALGO8 = 8,
    MCBLAS_GEMM_ALGO9 = 9,
    MCBLAS_GEMM_ALGO10 = 10,
    MCBLAS_GEMM_ALGO11 = 11,
    MCBLAS_GEMM_ALGO12 = 12,
    MCBLAS_GEMM_ALGO13 = 13,
    MCBLAS_GEMM_ALGO14 = 14,
    MCBLAS_GEMM_ALGO15 = 15,
    MCBLAS_GEMM_ALGO16 = 16,
    MCBLAS_GEMM_ALGO17 = 17,
    MCBLAS_GEMM_ALGO18 = 18,
    MCBLAS_GEMM_ALGO19 = 19,
    MCBLAS_GEMM_ALGO20 = 20,
    MCBLAS_GEMM_ALGO21 = 21,
    MCBLAS_GEMM_ALGO22 = 22,
    MCBLAS_GEMM_ALGO23 = 23,
    MCBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
    MCBLAS_GEMM_DFALT_TENSOR_OP = 99,
    MCBLAS_GEMM_ALGO0_TENSOR_OP = 100,
    MCBLAS_GEMM_ALGO1_TENSOR_OP = 101,
    MCBLAS_GEMM_ALGO2_TENSOR_OP = 102,
    MCBLAS_GEMM_ALGO3_TENSOR_OP = 103,
    MCBLAS_GEMM_ALGO4_TENSOR_OP = 104,
    MCBLAS_GEMM_ALGO5_TENSOR_OP = 105,
    MCBLAS_GEMM_ALGO6_TENSOR_OP = 106,
    MCBLAS_GEMM_ALGO7_TENSOR_OP = 107,
    MCBLAS_GEMM_ALGO8_TENSOR_OP = 108,
    MCBLAS_GEMM_ALGO9_TENSOR_OP = 109,
    MCBLAS_GEMM_ALGO10_TENSOR_OP = 110,
    MCBLAS_GEMM_ALGO11_TENSOR_OP = 111,
    MCBLAS_GEMM_ALGO12_TENSOR_OP = 112,
    MCBLAS_GEMM_ALGO13_TENSOR_OP = 113,
    MCBLAS_GEMM_ALGO14_TENSOR_OP = 114,
    MCBLAS_GEMM_ALGO15_TENSOR_OP = 115
} mcblasGemmAlgo_t;

typedef enum {
    MCBLAS_DEFAULT_MATH = 0,
    MCBLAS_TENSOR_OP_MATH = 1,
    MCBLAS_PEDANTIC_MATH = 2,
    MCBLAS_TF32_TENSOR_OP_MATH = 3,
    MCBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} mcblasMath_t;

typedef macaDataType mcblasDataType_t;

typedef enum {
    MCBLAS_COMPUTE_16F = 64,
    MCBLAS_COMPUTE_16F_PEDANTIC = 65,
    MCBLAS_COMPUTE_32F = 68,
    MCBLAS_COMPUTE_32F_PEDANTIC = 69,
    MCBLAS_COMPUTE_32F_FAST_16F = 74,
    MCBLAS_COMPUTE_32F_FAST_16BF = 75,
    MCBLAS_COMPUTE_32F_FAST_TF32 = 77,
    MCBLAS_COMPUTE_64F = 70,
    MCBLAS_COMPUTE_64F_PEDANTIC = 71,
    MCBLAS_COMPUTE_32I = 72,
    MCBLAS_COMPUTE_32I_PEDANTIC = 73
} mcblasComputeType_t;

struct mcblasContext;
typedef struct mcblasContext *mcblasHandle_t;

typedef void (*mcblasLogCallback)(const char *msg);

mcblasStatus_t MCBLASWINAPI mcblasAsumEx(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, void *result, macaDataType resultType, macaDataType executiontype);
mcblasStatus_t MCBLASWINAPI mcblasAxpyEx(mcblasHandle_t handle, int n, const void *alpha, macaDataType alphaType, const void *x, macaDataType xType, int incx, void *y, macaDataType yType, int incy, macaDataType executiontype);
mcblasStatus_t MCBLASWINAPI mcblasCaxpy(mcblasHandle_t handle, int n, const mcComplex *alpha, const mcComplex *x, int incx, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCcopy(mcblasHandle_t handle, int n, const mcComplex *x, int incx, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCdgmm(mcblasHandle_t handle, mcblasSideMode_t mode, int m, int n, const mcComplex *A, int lda, const mcComplex *x, int incx, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCdotc(mcblasHandle_t handle, int n, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *result);
mcblasStatus_t MCBLASWINAPI mcblasCdotu(mcblasHandle_t handle, int n, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *result);
mcblasStatus_t MCBLASWINAPI mcblasCgbmv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int kl, int ku, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *x, int incx, const mcComplex *beta, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCgeam(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *beta, const mcComplex *B, int ldb, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCgelsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int nrhs, mcComplex *const Aarray[], int lda, mcComplex *const Carray[], int ldc, int *info, int *devInfoArray, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasCgemm(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCgemm3m(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCgemm3mBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const mcComplex *const Aarray[], int lda, const mcComplex *const Barray[], int ldb, const mcComplex *beta, mcComplex *const Carray[], int ldc, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCgemm3mEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const void *A, macaDataType Atype, int lda, const void *B, macaDataType Btype, int ldb, const mcComplex *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCgemm3mStridedBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, long long int strideA, const mcComplex *B, int ldb, long long int strideB, const mcComplex *beta, mcComplex *C, int ldc, long long int strideC, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCgemmBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const mcComplex *const Aarray[], int lda, const mcComplex *const Barray[], int ldb, const mcComplex *beta, mcComplex *const Carray[], int ldc, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCgemmEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const void *A, macaDataType Atype, int lda, const void *B, macaDataType Btype, int ldb, const mcComplex *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCgemmStridedBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, long long int strideA, const mcComplex *B, int ldb, long long int strideB, const mcComplex *beta, mcComplex *C, int ldc, long long int strideC, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCgemv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *x, int incx, const mcComplex *beta, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const mcComplex *alpha, const mcComplex *const Aarray[], int lda, const mcComplex *const xarray[], int incx, const mcComplex *beta, mcComplex *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, long long int strideA, const mcComplex *x, int incx, long long int stridex, const mcComplex *beta, mcComplex *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCgeqrfBatched(mcblasHandle_t handle, int m, int n, mcComplex *const Aarray[], int lda, mcComplex *const TauArray[], int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasCgerc(mcblasHandle_t handle, int m, int n, const mcComplex *alpha, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCgeru(mcblasHandle_t handle, int m, int n, const mcComplex *alpha, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCgetrfBatched(mcblasHandle_t handle, int n, mcComplex *const A[], int lda, int *P, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasCgetriBatched(mcblasHandle_t handle, int n, const mcComplex *const A[], int lda, const int *P, mcComplex *const C[], int ldc, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasCgetrsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int n, int nrhs, const mcComplex *const Aarray[], int lda, const int *devIpiv, mcComplex *const Barray[], int ldb, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasChbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *x, int incx, const mcComplex *beta, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasChemm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasChemv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *x, int incx, const mcComplex *beta, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCher(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const mcComplex *x, int incx, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCher2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCher2k(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const float *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCherk(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const float *alpha, const mcComplex *A, int lda, const float *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCherk3mEx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const float *alpha, const void *A, macaDataType Atype, int lda, const float *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCherkEx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const float *alpha, const void *A, macaDataType Atype, int lda, const float *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCherkx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const float *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasChpmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *AP, const mcComplex *x, int incx, const mcComplex *beta, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasChpr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const mcComplex *x, int incx, mcComplex *AP);
mcblasStatus_t MCBLASWINAPI mcblasChpr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *AP);
mcblasStatus_t MCBLASWINAPI mcblasCmatinvBatched(mcblasHandle_t handle, int n, const mcComplex *const A[], int lda, mcComplex *const Ainv[], int lda_inv, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasCopyEx(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, void *y, macaDataType yType, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCreate(mcblasHandle_t *handle);
mcblasStatus_t MCBLASWINAPI mcblasCrot(mcblasHandle_t handle, int n, mcComplex *x, int incx, mcComplex *y, int incy, const float *c, const mcComplex *s);
mcblasStatus_t MCBLASWINAPI mcblasCrotg(mcblasHandle_t handle, mcComplex *a, mcComplex *b, float *c, mcComplex *s);
mcblasStatus_t MCBLASWINAPI mcblasCscal(mcblasHandle_t handle, int n, const mcComplex *alpha, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCsrot(mcblasHandle_t handle, int n, mcComplex *x, int incx, mcComplex *y, int incy, const float *c, const float *s);
mcblasStatus_t MCBLASWINAPI mcblasCsscal(mcblasHandle_t handle, int n, const float *alpha, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCswap(mcblasHandle_t handle, int n, mcComplex *x, int incx, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCsymm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCsymv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *x, int incx, const mcComplex *beta, mcComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasCsyr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *x, int incx, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCsyr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *alpha, const mcComplex *x, int incx, const mcComplex *y, int incy, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCsyr2k(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCsyrk(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCsyrk3mEx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const void *A, macaDataType Atype, int lda, const mcComplex *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCsyrkEx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const void *A, macaDataType Atype, int lda, const mcComplex *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCsyrkx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, const mcComplex *beta, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCtbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const mcComplex *A, int lda, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCtbsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const mcComplex *A, int lda, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCtpmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcComplex *AP, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCtpsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcComplex *AP, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCtpttr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *AP, mcComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasCtrmm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, const mcComplex *B, int ldb, mcComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasCtrmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcComplex *A, int lda, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCtrsm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const mcComplex *alpha, const mcComplex *A, int lda, mcComplex *B, int ldb);
mcblasStatus_t MCBLASWINAPI mcblasCtrsmBatched(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const mcComplex *alpha, const mcComplex *const A[], int lda, mcComplex *const B[], int ldb, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasCtrsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcComplex *A, int lda, mcComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasCtrttp(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcComplex *A, int lda, mcComplex *AP);
mcblasStatus_t MCBLASWINAPI mcblasDasum(mcblasHandle_t handle, int n, const double *x, int incx, double *result);
mcblasStatus_t MCBLASWINAPI mcblasDaxpy(mcblasHandle_t handle, int n, const double *alpha, const double *x, int incx, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDcopy(mcblasHandle_t handle, int n, const double *x, int incx, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDdgmm(mcblasHandle_t handle, mcblasSideMode_t mode, int m, int n, const double *A, int lda, const double *x, int incx, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDdot(mcblasHandle_t handle, int n, const double *x, int incx, const double *y, int incy, double *result);
mcblasStatus_t MCBLASWINAPI mcblasDestroy(mcblasHandle_t handle);
mcblasStatus_t MCBLASWINAPI mcblasDgbmv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int kl, int ku, const double *alpha, const double *A, int lda, const double *x, int incx, const double *beta, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDgeam(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, const double *alpha, const double *A, int lda, const double *beta, const double *B, int ldb, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDgelsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int nrhs, double *const Aarray[], int lda, double *const Carray[], int ldc, int *info, int *devInfoArray, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasDgemm(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDgemmBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const double *alpha, const double *const Aarray[], int lda, const double *const Barray[], int ldb, const double *beta, double *const Carray[], int ldc, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasDgemmStridedBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const double *alpha, const double *A, int lda, long long int strideA, const double *B, int ldb, long long int strideB, const double *beta, double *C, int ldc, long long int strideC, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasDgemv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const double *alpha, const double *A, int lda, const double *x, int incx, const double *beta, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const double *alpha, const double *const Aarray[], int lda, const double *const xarray[], int incx, const double *beta, double *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasDgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const double *alpha, const double *A, int lda, long long int strideA, const double *x, int incx, long long int stridex, const double *beta, double *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasDgeqrfBatched(mcblasHandle_t handle, int m, int n, double *const Aarray[], int lda, double *const TauArray[], int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasDger(mcblasHandle_t handle, int m, int n, const double *alpha, const double *x, int incx, const double *y, int incy, double *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasDgetrfBatched(mcblasHandle_t handle, int n, double *const A[], int lda, int *P, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasDgetriBatched(mcblasHandle_t handle, int n, const double *const A[], int lda, const int *P, double *const C[], int ldc, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasDgetrsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int n, int nrhs, const double *const Aarray[], int lda, const int *devIpiv, double *const Barray[], int ldb, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasDmatinvBatched(mcblasHandle_t handle, int n, const double *const A[], int lda, double *const Ainv[], int lda_inv, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasDnrm2(mcblasHandle_t handle, int n, const double *x, int incx, double *result);
mcblasStatus_t MCBLASWINAPI mcblasDotEx(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, const void *y, macaDataType yType, int incy, void *result, macaDataType resultType, macaDataType executionType);
mcblasStatus_t MCBLASWINAPI mcblasDotcEx(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, const void *y, macaDataType yType, int incy, void *result, macaDataType resultType, macaDataType executionType);
mcblasStatus_t MCBLASWINAPI mcblasDrot(mcblasHandle_t handle, int n, double *x, int incx, double *y, int incy, const double *c, const double *s);
mcblasStatus_t MCBLASWINAPI mcblasDrotg(mcblasHandle_t handle, double *a, double *b, double *c, double *s);
mcblasStatus_t MCBLASWINAPI mcblasDrotm(mcblasHandle_t handle, int n, double *x, int incx, double *y, int incy, const double *param);
mcblasStatus_t MCBLASWINAPI mcblasDrotmg(mcblasHandle_t handle, double *d1, double *d2, double *x1, const double *y1, double *param);
mcblasStatus_t MCBLASWINAPI mcblasDsbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, int k, const double *alpha, const double *A, int lda, const double *x, int incx, const double *beta, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDscal(mcblasHandle_t handle, int n, const double *alpha, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDspmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const double *AP, const double *x, int incx, const double *beta, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDspr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const double *x, int incx, double *AP);
mcblasStatus_t MCBLASWINAPI mcblasDspr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const double *x, int incx, const double *y, int incy, double *AP);
mcblasStatus_t MCBLASWINAPI mcblasDswap(mcblasHandle_t handle, int n, double *x, int incx, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDsymm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, int m, int n, const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDsymv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const double *A, int lda, const double *x, int incx, const double *beta, double *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasDsyr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const double *x, int incx, double *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasDsyr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const double *x, int incx, const double *y, int incy, double *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasDsyr2k(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDsyrk(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const double *alpha, const double *A, int lda, const double *beta, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDsyrkx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const double *alpha, const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDtbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const double *A, int lda, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDtbsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const double *A, int lda, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDtpmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const double *AP, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDtpsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const double *AP, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDtpttr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *AP, double *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasDtrmm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const double *alpha, const double *A, int lda, const double *B, int ldb, double *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasDtrmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const double *A, int lda, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDtrsm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const double *alpha, const double *A, int lda, double *B, int ldb);
mcblasStatus_t MCBLASWINAPI mcblasDtrsmBatched(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const double *alpha, const double *const A[], int lda, double *const B[], int ldb, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasDtrsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const double *A, int lda, double *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasDtrttp(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *A, int lda, double *AP);
mcblasStatus_t MCBLASWINAPI mcblasDzasum(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, double *result);
mcblasStatus_t MCBLASWINAPI mcblasDznrm2(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, double *result);
mcblasStatus_t MCBLASWINAPI mcblasGemmBatchedEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const void *alpha, const void *const Aarray[], macaDataType Atype, int lda, const void *const Barray[], macaDataType Btype, int ldb, const void *beta, void *const Carray[], macaDataType Ctype, int ldc, int batchCount, mcblasComputeType_t computeType, mcblasGemmAlgo_t algo);
mcblasStatus_t MCBLASWINAPI mcblasGemmEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const void *alpha, const void *A, macaDataType Atype, int lda, const void *B, macaDataType Btype, int ldb, const void *beta, void *C, macaDataType Ctype, int ldc, mcblasComputeType_t computeType, mcblasGemmAlgo_t algo);
mcblasStatus_t MCBLASWINAPI mcblasGemmStridedBatchedEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const void *alpha, const void *A, macaDataType Atype, int lda, long long int strideA, const void *B, macaDataType Btype, int ldb, long long int strideB, const void *beta, void *C, macaDataType Ctype, int ldc, long long int strideC, int batchCount, mcblasComputeType_t computeType, mcblasGemmAlgo_t algo);
mcblasStatus_t MCBLASWINAPI mcblasGetAtomicsMode(mcblasHandle_t handle, mcblasAtomicsMode_t *mode);
size_t MCBLASWINAPI mcblasGetCudartVersion(void);
mcblasStatus_t MCBLASWINAPI mcblasGetLoggerCallback(mcblasLogCallback *userCallback);
mcblasStatus_t MCBLASWINAPI mcblasGetMathMode(mcblasHandle_t handle, mcblasMath_t *mode);
mcblasStatus_t MCBLASWINAPI mcblasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb);
mcblasStatus_t MCBLASWINAPI mcblasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb, mcStream_t stream);
mcblasStatus_t MCBLASWINAPI mcblasGetPointerMode(mcblasHandle_t handle, mcblasPointerMode_t *mode);
mcblasStatus_t MCBLASWINAPI mcblasGetProperty(libraryPropertyType type, int *value);
mcblasStatus_t MCBLASWINAPI mcblasGetSmCountTarget(mcblasHandle_t handle, int *smCountTarget);
const char *MCBLASWINAPI mcblasGetStatusName(mcblasStatus_t status);
const char *MCBLASWINAPI mcblasGetStatusString(mcblasStatus_t status);
mcblasStatus_t MCBLASWINAPI mcblasGetStream(mcblasHandle_t handle, mcStream_t *streamId);
mcblasStatus_t MCBLASWINAPI mcblasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx, void *hostPtr, int incy, mcStream_t stream);
mcblasStatus_t MCBLASWINAPI mcblasGetVersion(mcblasHandle_t handle, int *version);
mcblasStatus_t MCBLASWINAPI mcblasHSHgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_half *const Aarray[], int lda, const mcblas_half *const xarray[], int incx, const float *beta, mcblas_half *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasHSHgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_half *A, int lda, long long int strideA, const mcblas_half *x, int incx, long long int stridex, const float *beta, mcblas_half *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasHSSgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_half *const Aarray[], int lda, const mcblas_half *const xarray[], int incx, const float *beta, float *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasHSSgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_half *A, int lda, long long int strideA, const mcblas_half *x, int incx, long long int stridex, const float *beta, float *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasHgemm(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcblas_half *alpha, const mcblas_half *A, int lda, const mcblas_half *B, int ldb, const mcblas_half *beta, mcblas_half *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasHgemmBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcblas_half *alpha, const mcblas_half *const Aarray[], int lda, const mcblas_half *const Barray[], int ldb, const mcblas_half *beta, mcblas_half *const Carray[], int ldc, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasHgemmStridedBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcblas_half *alpha, const mcblas_half *A, int lda, long long int strideA, const mcblas_half *B, int ldb, long long int strideB, const mcblas_half *beta, mcblas_half *C, int ldc, long long int strideC, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasIamaxEx(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIaminEx(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIcamax(mcblasHandle_t handle, int n, const mcComplex *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIcamin(mcblasHandle_t handle, int n, const mcComplex *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIdamax(mcblasHandle_t handle, int n, const double *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIdamin(mcblasHandle_t handle, int n, const double *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIsamax(mcblasHandle_t handle, int n, const float *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIsamin(mcblasHandle_t handle, int n, const float *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIzamax(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasIzamin(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, int *result);
mcblasStatus_t MCBLASWINAPI mcblasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr, const char *logFileName);
mcblasStatus_t MCBLASWINAPI mcblasNrm2Ex(mcblasHandle_t handle, int n, const void *x, macaDataType xType, int incx, void *result, macaDataType resultType, macaDataType executionType);
mcblasStatus_t MCBLASWINAPI mcblasRotEx(mcblasHandle_t handle, int n, void *x, macaDataType xType, int incx, void *y, macaDataType yType, int incy, const void *c, const void *s, macaDataType csType, macaDataType executiontype);
mcblasStatus_t MCBLASWINAPI mcblasRotgEx(mcblasHandle_t handle, void *a, void *b, macaDataType abType, void *c, void *s, macaDataType csType, macaDataType executiontype);
mcblasStatus_t MCBLASWINAPI mcblasRotmEx(mcblasHandle_t handle, int n, void *x, macaDataType xType, int incx, void *y, macaDataType yType, int incy, const void *param, macaDataType paramType, macaDataType executiontype);
mcblasStatus_t MCBLASWINAPI mcblasRotmgEx(mcblasHandle_t handle, void *d1, macaDataType d1Type, void *d2, macaDataType d2Type, void *x1, macaDataType x1Type, const void *y1, macaDataType y1Type, void *param, macaDataType paramType, macaDataType executiontype);
mcblasStatus_t MCBLASWINAPI mcblasSasum(mcblasHandle_t handle, int n, const float *x, int incx, float *result);
mcblasStatus_t MCBLASWINAPI mcblasSaxpy(mcblasHandle_t handle, int n, const float *alpha, const float *x, int incx, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasScalEx(mcblasHandle_t handle, int n, const void *alpha, macaDataType alphaType, void *x, macaDataType xType, int incx, macaDataType executionType);
mcblasStatus_t MCBLASWINAPI mcblasScasum(mcblasHandle_t handle, int n, const mcComplex *x, int incx, float *result);
mcblasStatus_t MCBLASWINAPI mcblasScnrm2(mcblasHandle_t handle, int n, const mcComplex *x, int incx, float *result);
mcblasStatus_t MCBLASWINAPI mcblasScopy(mcblasHandle_t handle, int n, const float *x, int incx, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSdgmm(mcblasHandle_t handle, mcblasSideMode_t mode, int m, int n, const float *A, int lda, const float *x, int incx, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSdot(mcblasHandle_t handle, int n, const float *x, int incx, const float *y, int incy, float *result);
mcblasStatus_t MCBLASWINAPI mcblasSetAtomicsMode(mcblasHandle_t handle, mcblasAtomicsMode_t mode);
mcblasStatus_t MCBLASWINAPI mcblasSetLoggerCallback(mcblasLogCallback userCallback);
mcblasStatus_t MCBLASWINAPI mcblasSetMathMode(mcblasHandle_t handle, mcblasMath_t mode);
mcblasStatus_t MCBLASWINAPI mcblasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb);
mcblasStatus_t MCBLASWINAPI mcblasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb, mcStream_t stream);
mcblasStatus_t MCBLASWINAPI mcblasSetPointerMode(mcblasHandle_t handle, mcblasPointerMode_t mode);
mcblasStatus_t MCBLASWINAPI mcblasSetSmCountTarget(mcblasHandle_t handle, int smCountTarget);
mcblasStatus_t MCBLASWINAPI mcblasSetStream(mcblasHandle_t handle, mcStream_t streamId);
mcblasStatus_t MCBLASWINAPI mcblasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx, void *devicePtr, int incy, mcStream_t stream);
mcblasStatus_t MCBLASWINAPI mcblasSetWorkspace(mcblasHandle_t handle, void *workspace, size_t workspaceSizeInBytes);
mcblasStatus_t MCBLASWINAPI mcblasSgbmv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int kl, int ku, const float *alpha, const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSgeam(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, const float *alpha, const float *A, int lda, const float *beta, const float *B, int ldb, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSgelsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int nrhs, float *const Aarray[], int lda, float *const Carray[], int ldc, int *info, int *devInfoArray, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasSgemm(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSgemmBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const float *alpha, const float *const Aarray[], int lda, const float *const Barray[], int ldb, const float *beta, float *const Carray[], int ldc, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasSgemmEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const float *alpha, const void *A, macaDataType Atype, int lda, const void *B, macaDataType Btype, int ldb, const float *beta, void *C, macaDataType Ctype, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSgemmStridedBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const float *alpha, const float *A, int lda, long long int strideA, const float *B, int ldb, long long int strideB, const float *beta, float *C, int ldc, long long int strideC, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasSgemv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const float *const Aarray[], int lda, const float *const xarray[], int incx, const float *beta, float *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasSgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const float *A, int lda, long long int strideA, const float *x, int incx, long long int stridex, const float *beta, float *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasSgeqrfBatched(mcblasHandle_t handle, int m, int n, float *const Aarray[], int lda, float *const TauArray[], int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasSger(mcblasHandle_t handle, int m, int n, const float *alpha, const float *x, int incx, const float *y, int incy, float *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasSgetrfBatched(mcblasHandle_t handle, int n, float *const A[], int lda, int *P, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasSgetriBatched(mcblasHandle_t handle, int n, const float *const A[], int lda, const int *P, float *const C[], int ldc, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasSgetrsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int n, int nrhs, const float *const Aarray[], int lda, const int *devIpiv, float *const Barray[], int ldb, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasSmatinvBatched(mcblasHandle_t handle, int n, const float *const A[], int lda, float *const Ainv[], int lda_inv, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasSnrm2(mcblasHandle_t handle, int n, const float *x, int incx, float *result);
mcblasStatus_t MCBLASWINAPI mcblasSrot(mcblasHandle_t handle, int n, float *x, int incx, float *y, int incy, const float *c, const float *s);
mcblasStatus_t MCBLASWINAPI mcblasSrotg(mcblasHandle_t handle, float *a, float *b, float *c, float *s);
mcblasStatus_t MCBLASWINAPI mcblasSrotm(mcblasHandle_t handle, int n, float *x, int incx, float *y, int incy, const float *param);
mcblasStatus_t MCBLASWINAPI mcblasSrotmg(mcblasHandle_t handle, float *d1, float *d2, float *x1, const float *y1, float *param);
mcblasStatus_t MCBLASWINAPI mcblasSsbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, int k, const float *alpha, const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSscal(mcblasHandle_t handle, int n, const float *alpha, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasSspmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const float *AP, const float *x, int incx, const float *beta, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSspr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const float *x, int incx, float *AP);
mcblasStatus_t MCBLASWINAPI mcblasSspr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const float *x, int incx, const float *y, int incy, float *AP);
mcblasStatus_t MCBLASWINAPI mcblasSswap(mcblasHandle_t handle, int n, float *x, int incx, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSsymm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, int m, int n, const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSsymv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const float *A, int lda, const float *x, int incx, const float *beta, float *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasSsyr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const float *x, int incx, float *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasSsyr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *alpha, const float *x, int incx, const float *y, int incy, float *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasSsyr2k(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSsyrk(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const float *alpha, const float *A, int lda, const float *beta, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasSsyrkx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasStbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const float *A, int lda, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasStbsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const float *A, int lda, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasStpmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const float *AP, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasStpsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const float *AP, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasStpttr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *AP, float *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasStrmm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const float *alpha, const float *A, int lda, const float *B, int ldb, float *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasStrmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const float *A, int lda, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasStrsm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const float *alpha, const float *A, int lda, float *B, int ldb);
mcblasStatus_t MCBLASWINAPI mcblasStrsmBatched(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const float *alpha, const float *const A[], int lda, float *const B[], int ldb, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasStrsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const float *A, int lda, float *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasStrttp(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const float *A, int lda, float *AP);
mcblasStatus_t MCBLASWINAPI mcblasSwapEx(mcblasHandle_t handle, int n, void *x, macaDataType xType, int incx, void *y, macaDataType yType, int incy);
mcblasStatus_t MCBLASWINAPI mcblasTSSgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_bfloat16 *const Aarray[], int lda, const mcblas_bfloat16 *const xarray[], int incx, const float *beta, float *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasTSSgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_bfloat16 *A, int lda, long long int strideA, const mcblas_bfloat16 *x, int incx, long long int stridex, const float *beta, float *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasTSTgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_bfloat16 *const Aarray[], int lda, const mcblas_bfloat16 *const xarray[], int incx, const float *beta, mcblas_bfloat16 *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasTSTgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const float *alpha, const mcblas_bfloat16 *A, int lda, long long int strideA, const mcblas_bfloat16 *x, int incx, long long int stridex, const float *beta, mcblas_bfloat16 *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasUint8gemmBias(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, mcblasOperation_t transc, int m, int n, int k, const unsigned char *A, int A_bias, int lda, const unsigned char *B, int B_bias, int ldb, unsigned char *C, int C_bias, int ldc, int C_mult, int C_shift);
void MCBLASWINAPI mcblasXerbla(const char *srName, int info);
mcblasStatus_t MCBLASWINAPI mcblasZaxpy(mcblasHandle_t handle, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZcopy(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZdgmm(mcblasHandle_t handle, mcblasSideMode_t mode, int m, int n, const mcDoubleComplex *A, int lda, const mcDoubleComplex *x, int incx, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZdotc(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *result);
mcblasStatus_t MCBLASWINAPI mcblasZdotu(mcblasHandle_t handle, int n, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *result);
mcblasStatus_t MCBLASWINAPI mcblasZdrot(mcblasHandle_t handle, int n, mcDoubleComplex *x, int incx, mcDoubleComplex *y, int incy, const double *c, const double *s);
mcblasStatus_t MCBLASWINAPI mcblasZdscal(mcblasHandle_t handle, int n, const double *alpha, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZgbmv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int kl, int ku, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *x, int incx, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZgeam(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *beta, const mcDoubleComplex *B, int ldb, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZgelsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, int nrhs, mcDoubleComplex *const Aarray[], int lda, mcDoubleComplex *const Carray[], int ldc, int *info, int *devInfoArray, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasZgemm(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZgemm3m(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZgemmBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *const Aarray[], int lda, const mcDoubleComplex *const Barray[], int ldb, const mcDoubleComplex *beta, mcDoubleComplex *const Carray[], int ldc, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasZgemmStridedBatched(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb, int m, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, long long int strideA, const mcDoubleComplex *B, int ldb, long long int strideB, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc, long long int strideC, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasZgemv(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *x, int incx, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZgemvBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *const Aarray[], int lda, const mcDoubleComplex *const xarray[], int incx, const mcDoubleComplex *beta, mcDoubleComplex *const yarray[], int incy, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasZgemvStridedBatched(mcblasHandle_t handle, mcblasOperation_t trans, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, long long int strideA, const mcDoubleComplex *x, int incx, long long int stridex, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy, long long int stridey, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasZgeqrfBatched(mcblasHandle_t handle, int m, int n, mcDoubleComplex *const Aarray[], int lda, mcDoubleComplex *const TauArray[], int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasZgerc(mcblasHandle_t handle, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZgeru(mcblasHandle_t handle, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZgetrfBatched(mcblasHandle_t handle, int n, mcDoubleComplex *const A[], int lda, int *P, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasZgetriBatched(mcblasHandle_t handle, int n, const mcDoubleComplex *const A[], int lda, const int *P, mcDoubleComplex *const C[], int ldc, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasZgetrsBatched(mcblasHandle_t handle, mcblasOperation_t trans, int n, int nrhs, const mcDoubleComplex *const Aarray[], int lda, const int *devIpiv, mcDoubleComplex *const Barray[], int ldb, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasZhbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *x, int incx, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZhemm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZhemv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *x, int incx, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZher(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const mcDoubleComplex *x, int incx, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZher2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZher2k(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const double *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZherk(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const double *alpha, const mcDoubleComplex *A, int lda, const double *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZherkx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const double *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZhpmv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *AP, const mcDoubleComplex *x, int incx, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZhpr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const double *alpha, const mcDoubleComplex *x, int incx, mcDoubleComplex *AP);
mcblasStatus_t MCBLASWINAPI mcblasZhpr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *AP);
mcblasStatus_t MCBLASWINAPI mcblasZmatinvBatched(mcblasHandle_t handle, int n, const mcDoubleComplex *const A[], int lda, mcDoubleComplex *const Ainv[], int lda_inv, int *info, int batchSize);
mcblasStatus_t MCBLASWINAPI mcblasZrot(mcblasHandle_t handle, int n, mcDoubleComplex *x, int incx, mcDoubleComplex *y, int incy, const double *c, const mcDoubleComplex *s);
mcblasStatus_t MCBLASWINAPI mcblasZrotg(mcblasHandle_t handle, mcDoubleComplex *a, mcDoubleComplex *b, double *c, mcDoubleComplex *s);
mcblasStatus_t MCBLASWINAPI mcblasZscal(mcblasHandle_t handle, int n, const mcDoubleComplex *alpha, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZswap(mcblasHandle_t handle, int n, mcDoubleComplex *x, int incx, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZsymm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZsymv(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *x, int incx, const mcDoubleComplex *beta, mcDoubleComplex *y, int incy);
mcblasStatus_t MCBLASWINAPI mcblasZsyr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZsyr2(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *x, int incx, const mcDoubleComplex *y, int incy, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZsyr2k(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZsyrk(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZsyrkx(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, int n, int k, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, const mcDoubleComplex *beta, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZtbmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const mcDoubleComplex *A, int lda, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZtbsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, int k, const mcDoubleComplex *A, int lda, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZtpmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcDoubleComplex *AP, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZtpsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcDoubleComplex *AP, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZtpttr(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *AP, mcDoubleComplex *A, int lda);
mcblasStatus_t MCBLASWINAPI mcblasZtrmm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, const mcDoubleComplex *B, int ldb, mcDoubleComplex *C, int ldc);
mcblasStatus_t MCBLASWINAPI mcblasZtrmv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcDoubleComplex *A, int lda, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZtrsm(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *A, int lda, mcDoubleComplex *B, int ldb);
mcblasStatus_t MCBLASWINAPI mcblasZtrsmBatched(mcblasHandle_t handle, mcblasSideMode_t side, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int m, int n, const mcDoubleComplex *alpha, const mcDoubleComplex *const A[], int lda, mcDoubleComplex *const B[], int ldb, int batchCount);
mcblasStatus_t MCBLASWINAPI mcblasZtrsv(mcblasHandle_t handle, mcblasFillMode_t uplo, mcblasOperation_t trans, mcblasDiagType_t diag, int n, const mcDoubleComplex *A, int lda, mcDoubleComplex *x, int incx);
mcblasStatus_t MCBLASWINAPI mcblasZtrttp(mcblasHandle_t handle, mcblasFillMode_t uplo, int n, const mcDoubleComplex *A, int lda, mcDoubleComplex *AP);

#if defined(__cplusplus)
}

/* C++ only: the GemmEx overloads that take the compute type as a macaDataType, kept (as cuBLAS 11
 * keeps them) so older sources compile. The data type becomes the matching compute type, the
 * pedantic one when the handle's math mode is MCBLAS_PEDANTIC_MATH. */
static inline mcblasStatus_t mcblasMigrateComputeType(mcblasHandle_t handle, macaDataType dataType,
                                                      mcblasComputeType_t *computeType)
{
    mcblasMath_t mathMode = MCBLAS_DEFAULT_MATH;
    mcblasStatus_t status = mcblasGetMathMode(handle, &mathMode);
    if (status != MCBLAS_STATUS_SUCCESS)
        return status;
    const bool pedantic = ((int)mathMode & 0xF) == MCBLAS_PEDANTIC_MATH;
    switch (dataType) {
    case MACA_R_32F:
    case MACA_C_32F:
        *computeType = pedantic ? MCBLAS_COMPUTE_32F_PEDANTIC : MCBLAS_COMPUTE_32F;
        return MCBLAS_STATUS_SUCCESS;
    case MACA_R_64F:
    case MACA_C_64F:
        *computeType = pedantic ? MCBLAS_COMPUTE_64F_PEDANTIC : MCBLAS_COMPUTE_64F;
        return MCBLAS_STATUS_SUCCESS;
    case MACA_R_16F:
        *computeType = pedantic ? MCBLAS_COMPUTE_16F_PEDANTIC : MCBLAS_COMPUTE_16F;
        return MCBLAS_STATUS_SUCCESS;
    case MACA_R_32I:
        *computeType = pedantic ? MCBLAS_COMPUTE_32I_PEDANTIC : MCBLAS_COMPUTE_32I;
        return MCBLAS_STATUS_SUCCESS;
    default:
        return MCBLAS_STATUS_NOT_SUPPORTED;
    }
}

static inline mcblasStatus_t mcblasGemmEx(mcblasHandle_t handle, mcblasOperation_t transa, mcblasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, macaDataType Atype,
                                          int lda, const void *B, macaDataType Btype, int ldb, const void *beta,
                                          void *C, macaDataType Ctype, int ldc, macaDataType computeType,
                                          mcblasGemmAlgo_t algo)
{
    mcblasComputeType_t migrated;
    mcblasStatus_t status = mcblasMigrateComputeType(handle, computeType, &migrated);
    if (status != MCBLAS_STATUS_SUCCESS)
        return status;
    return mcblasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                        migrated, algo);
}

static inline mcblasStatus_t mcblasGemmBatchedEx(mcblasHandle_t handle, mcblasOperation_t transa,
                                                 mcblasOperation_t transb, int m, int n, int k, const void *alpha,
                                                 const void *const Aarray[], macaDataType Atype, int lda,
                                                 const void *const Barray[], macaDataType Btype, int ldb,
                                                 const void *beta, void *const Carray[], macaDataType Ctype, int ldc,
                                                 int batchCount, macaDataType computeType, mcblasGemmAlgo_t algo)
{
    mcblasComputeType_t migrated;
    mcblasStatus_t status = mcblasMigrateComputeType(handle, computeType, &migrated);
    if (status != MCBLAS_STATUS_SUCCESS)
        return status;
    return mcblasGemmBatchedEx(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta,
                               Carray, Ctype, ldc, batchCount, migrated, algo);
}

static inline mcblasStatus_t mcblasGemmStridedBatchedEx(mcblasHandle_t handle, mcblasOperation_t transa,
                                                        mcblasOperation_t transb, int m, int n, int k,
                                                        const void *alpha, const void *A, macaDataType Atype, int lda,
                                                        long long int strideA, const void *B, macaDataType Btype,
                                                        int ldb, long long int strideB, const void *beta, void *C,
                                                        macaDataType Ctype, int ldc, long long int strideC,
                                                        int batchCount, macaDataType computeType,
                                                        mcblasGemmAlgo_t algo)
{
    mcblasComputeType_t migrated;
    mcblasStatus_t status = mcblasMigrateComputeType(handle, computeType, &migrated);
    if (status != MCBLAS_STATUS_SUCCESS)
        return status;
    return mcblasGemmStridedBatchedEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                                      strideB, beta, C, Ctype, ldc, strideC, batchCount, migrated, algo);
}
#endif

#endif
