/* mcBLASLt objects as the C core keeps them (csrc/mcblas/lt_objects.c) and the embedded Python reads them
 * (python/opemu/ops/mcblas/lt_*.py). Included by bridge_api.h: plain C for pycparser.
 *
 * The matmul, layout, transform and preference descriptors live inside the semi-opaque storage of
 * mcblasLt.h (the program's own, initialized by *Init, or allocated by *Create: `owned`), registered in the
 * handle table by address. An algorithm is a value the program copies: it carries `magic` once
 * mcblasLtMatmulAlgoInit or a heuristic filled it. */
#ifndef OPEMU_MCBLAS_LT_BRIDGE_H
#define OPEMU_MCBLAS_LT_BRIDGE_H

#include <stdint.h>
#include "mcblas/mcblasLt.h"

enum opemu_kind_mcblaslt {
    OPEMU_KIND_MCBLASLT_HANDLE = 70,
    OPEMU_KIND_MCBLASLT_LAYOUT = 71,
    OPEMU_KIND_MCBLASLT_MATMUL = 72,
    OPEMU_KIND_MCBLASLT_TRANSFORM = 73,
    OPEMU_KIND_MCBLASLT_PREFERENCE = 74
};

struct mcblasLtContext {
    int32_t device;
};

struct opemu_lt_layout {
    int32_t type;
    int32_t order;
    int32_t batchCount;
    int32_t owned;
    uint64_t rows;
    uint64_t cols;
    int64_t ld;
    int64_t stridedBatchOffset;
    int64_t planeOffset;
};

struct opemu_lt_matmul {
    int32_t computeType;
    int32_t scaleType;
    int32_t pointerMode;
    int32_t transa;
    int32_t transb;
    int32_t transc;
    int32_t fillMode;
    int32_t smCountTarget;
    uint32_t epilogue;
    int32_t auxDataType;
    int32_t biasDataType;
    int8_t fastAccum;
    int32_t owned;
    void *bias;
    int64_t biasBatchStride;
    void *aux;
    int64_t auxLd;
    int64_t auxBatchStride;
    int64_t alphaVectorBatchStride;
    void *aScale;
    void *bScale;
    void *cScale;
    void *dScale;
    void *amaxD;
    void *auxScale;
    void *auxAmax;
};

struct opemu_lt_transform {
    int32_t scaleType;
    int32_t pointerMode;
    int32_t transa;
    int32_t transb;
    int32_t owned;
};

struct opemu_lt_preference {
    uint32_t searchMode;
    uint32_t mathModeMask;
    uint32_t reductionSchemeMask;
    uint32_t gaussianModeMask;
    uint32_t alignment[4]; /* A, B, C, D */
    uint32_t pointerModeMask;
    uint32_t epilogueMask;
    uint64_t maxWorkspaceBytes;
    uint64_t implMask;
    float maxWavesCount;
    int32_t smCountTarget;
    int32_t owned;
};

#define OPEMU_LT_ALGO_MAGIC 0x6d634c74u /* "mcLt" */

struct opemu_lt_algo {
    uint32_t magic;
    int32_t id;
    int32_t computeType;
    int32_t scaleType;
    int32_t types[4]; /* A, B, C, D */
    uint32_t tile;
    uint32_t splitK;
    uint32_t reductionScheme;
    uint32_t swizzle;
    uint32_t customOption;
    uint32_t stages;
};

#endif
