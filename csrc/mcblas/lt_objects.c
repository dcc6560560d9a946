/* mcBLASLt objects: the handle, matrix layouts and matmul descriptors, versions and status strings (the
 * transform descriptors, preferences, logger and heuristics cache: lt_settings.c). Cheap calls, all in C;
 * the matmul, the transform and the algorithm queries that judge a problem are Python entry points
 * (python/opemu/ops/mcblas/lt_*.py) reading these structs (lt_descriptors.h).
 *
 * Rules are cuBLASLt 11's, renamed: a handle that is NULL, destroyed or foreign is NOT_INITIALIZED; a
 * descriptor or attribute argument that is NULL, the wrong size or out of range is INVALID_VALUE; storage
 * given to *Init smaller than the descriptor is ALLOC_FAILED. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_internal.h"

_Static_assert(sizeof(struct opemu_lt_layout) <= sizeof(mcblasLtMatrixLayoutOpaque_t), "layout storage");
_Static_assert(sizeof(struct opemu_lt_matmul) <= sizeof(mcblasLtMatmulDescOpaque_t), "matmul storage");
_Static_assert(sizeof(struct opemu_lt_transform) <= sizeof(mcblasLtMatrixTransformDescOpaque_t), "transform");
_Static_assert(sizeof(struct opemu_lt_preference) <= sizeof(mcblasLtMatmulPreferenceOpaque_t), "preference");
_Static_assert(sizeof(struct opemu_lt_algo) <= sizeof(mcblasLtMatmulAlgo_t), "algo storage");


const opemu_lt_field *opemu_lt_field_of(const opemu_lt_field *fields, size_t count, int attr)
{
    for (size_t i = 0; i < count; i++)
        if (fields[i].attr == attr)
            return &fields[i];
    return NULL;
}

mcblasStatus_t opemu_lt_get(const char *api, const void *object, const opemu_lt_field *field, void *buf,
                            size_t sizeInBytes, size_t *sizeWritten)
{
    if (field == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: not an attribute of this descriptor", api);
    if (sizeInBytes == 0) {
        if (sizeWritten == NULL)
            return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: sizeInBytes is 0 and sizeWritten is null", api);
        *sizeWritten = field->size;
        return MCBLAS_STATUS_SUCCESS;
    }
    if (buf == NULL || sizeInBytes != field->size)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: buf is null or sizeInBytes %zu is not the attribute's %zu "
                       "bytes", api, sizeInBytes, field->size);
    memcpy(buf, (const char *)object + field->offset, field->size);
    if (sizeWritten != NULL)
        *sizeWritten = field->size;
    return MCBLAS_STATUS_SUCCESS;
}

mcblasStatus_t opemu_lt_check_set(const char *api, const opemu_lt_field *field, const void *buf, size_t sizeInBytes)
{
    if (field == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: not an attribute of this descriptor", api);
    if (buf == NULL || sizeInBytes != field->size)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: buf is null or sizeInBytes %zu is not the attribute's %zu "
                       "bytes", api, sizeInBytes, field->size);
    return MCBLAS_STATUS_SUCCESS;
}

/* ---- library ---- */

/* cuBLASLt shares its version with the cuBLAS release it ships in. */
OPEMU_EXPORT size_t mcblasLtGetVersion(void) { return MCBLAS_VERSION; }
OPEMU_EXPORT size_t mcblasLtGetCudartVersion(void) { return mcblasGetCudartVersion(); }
OPEMU_EXPORT mcblasStatus_t mcblasLtGetProperty(libraryPropertyType type, int *value)
{
    return mcblasGetProperty(type, value);
}
OPEMU_EXPORT const char *mcblasLtGetStatusName(mcblasStatus_t status) { return mcblasGetStatusName(status); }
OPEMU_EXPORT const char *mcblasLtGetStatusString(mcblasStatus_t status) { return mcblasGetStatusString(status); }

/* ---- handle ---- */

/* The handle belongs to the calling thread's current device; the embedded interpreter starts here, so a
 * failure to start is this call's status. */
OPEMU_EXPORT mcblasStatus_t mcblasLtCreate(mcblasLtHandle_t *lightHandle)
{
    if (lightHandle == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtCreate: lightHandle is null");
    int device = opemu_mc_current_device();
    if (opemu_primary_context(device) == NULL)
        return lt_fail(MCBLAS_STATUS_NOT_INITIALIZED, "mcblasLtCreate: the current device is not usable");
    if (opemu_python_ready("mcblasLtCreate") != 0)
        return MCBLAS_STATUS_NOT_INITIALIZED;
    struct mcblasLtContext *h = calloc(1, sizeof *h);
    if (h == NULL)
        return lt_fail(MCBLAS_STATUS_ALLOC_FAILED, "mcblasLtCreate: out of host memory");
    h->device = device;
    opemu_handle_add(h, OPEMU_KIND_MCBLASLT_HANDLE);
    *lightHandle = h;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtDestroy(mcblasLtHandle_t lightHandle)
{
    if (lightHandle == NULL || !opemu_handle_is(lightHandle, OPEMU_KIND_MCBLASLT_HANDLE))
        return lt_fail(MCBLAS_STATUS_NOT_INITIALIZED, "mcblasLtDestroy: %p is not a live mcblasLtHandle_t",
                       (void *)lightHandle);
    opemu_device_drain(lightHandle->device);
    opemu_handle_remove(lightHandle);
    free(lightHandle);
    return MCBLAS_STATUS_SUCCESS;
}

/* ---- descriptors in semi-opaque storage ---- */

/* Zeroes n bytes of the program's memory at p, or answers 0 when they are not writable: the kernel fills them
 * from /dev/zero and reports a fault instead of raising it, so a wild pointer given to *Init is an error. */
static int zero_host(void *p, size_t n)
{
    int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        memset(p, 0, n);
        return 1;
    }
    ssize_t got = read(fd, p, n);
    close(fd);
    return got == (ssize_t)n;
}

/* Storage of `size` bytes for a descriptor of `need` bytes: the program's (Init) or a new block (Create). */
mcblasStatus_t opemu_lt_place(void **out, void *storage, size_t size, size_t need, size_t opaque, int kind,
                              const char *api)
{
    if (storage == NULL && out == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: the descriptor pointer is null", api);
    if (out != NULL) { /* Create */
        storage = calloc(1, opaque);
        if (storage == NULL)
            return lt_fail(MCBLAS_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
        *out = storage;
    } else {
        if (size < need)
            return lt_fail(MCBLAS_STATUS_ALLOC_FAILED, "%s: the storage of %zu bytes is smaller than the descriptor's "
                           "%zu", api, size, need);
        if (!zero_host(storage, need))
            return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: the storage at %p is not writable memory", api, storage);
    }
    opemu_handle_add(storage, kind);
    return MCBLAS_STATUS_SUCCESS;
}

mcblasStatus_t opemu_lt_destroy(void *object, int kind, int owned_offset, const char *type, const char *api)
{
    if (object == NULL)
        return MCBLAS_STATUS_SUCCESS;
    if (!opemu_handle_is(object, kind))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %p is not a live %s", api, object, type);
    opemu_handle_remove(object);
    int owned;
    memcpy(&owned, (const char *)object + owned_offset, sizeof owned);
    if (owned) /* storage a program gave to *Init stays its own */
        free(object);
    return MCBLAS_STATUS_SUCCESS;
}

int opemu_lt_storage_type(int type)
{
    switch (type) {
    case MACA_R_16F: case MACA_R_16BF: case MACA_R_32F: case MACA_R_64F: case MACA_C_16F: case MACA_C_16BF:
    case MACA_C_32F: case MACA_C_64F: case MACA_R_8I: case MACA_C_8I: case MACA_R_8U: case MACA_C_8U:
    case MACA_R_32I: case MACA_C_32I: case MACA_R_32U: case MACA_C_32U: case MACA_R_8F_E4M3: case MACA_R_8F_E5M2:
        return 1;
    }
    return 0;
}

/* ---- matrix layouts ---- */

static const opemu_lt_field layout_fields[] = {
    FIELD(MCBLASLT_MATRIX_LAYOUT_TYPE, struct opemu_lt_layout, type),
    FIELD(MCBLASLT_MATRIX_LAYOUT_ORDER, struct opemu_lt_layout, order),
    FIELD(MCBLASLT_MATRIX_LAYOUT_ROWS, struct opemu_lt_layout, rows),
    FIELD(MCBLASLT_MATRIX_LAYOUT_COLS, struct opemu_lt_layout, cols),
    FIELD(MCBLASLT_MATRIX_LAYOUT_LD, struct opemu_lt_layout, ld),
    FIELD(MCBLASLT_MATRIX_LAYOUT_BATCH_COUNT, struct opemu_lt_layout, batchCount),
    FIELD(MCBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, struct opemu_lt_layout, stridedBatchOffset),
    FIELD(MCBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, struct opemu_lt_layout, planeOffset),
};

static mcblasStatus_t layout_init(mcblasLtMatrixLayout_t *out, mcblasLtMatrixLayout_t storage, size_t size,
                                  macaDataType type, uint64_t rows, uint64_t cols, int64_t ld, const char *api)
{
    if (!opemu_lt_storage_type(type))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: type %d is not a macaDataType of matrix storage", api,
                       (int)type);
    if (ld < 0)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: ld %lld is negative", api, (long long)ld);
    void *placed = storage;
    mcblasStatus_t rc = opemu_lt_place(out ? (void **)&placed : NULL, storage, size, sizeof(struct opemu_lt_layout),
                              sizeof(mcblasLtMatrixLayoutOpaque_t), OPEMU_KIND_MCBLASLT_LAYOUT, api);
    if (rc)
        return rc;
    struct opemu_lt_layout *l = placed;
    l->type = type;
    l->order = MCBLASLT_ORDER_COL;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    l->batchCount = 1;
    l->owned = out != NULL;
    if (out)
        *out = placed;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixLayoutInit_internal(mcblasLtMatrixLayout_t matLayout, size_t size,
                                                              macaDataType type, uint64_t rows, uint64_t cols,
                                                              int64_t ld)
{
    return layout_init(NULL, matLayout, size, type, rows, cols, ld, "mcblasLtMatrixLayoutInit");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixLayoutCreate(mcblasLtMatrixLayout_t *matLayout, macaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld)
{
    if (matLayout == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtMatrixLayoutCreate: matLayout is null");
    return layout_init(matLayout, NULL, 0, type, rows, cols, ld, "mcblasLtMatrixLayoutCreate");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixLayoutDestroy(mcblasLtMatrixLayout_t matLayout)
{
    return opemu_lt_destroy(matLayout, OPEMU_KIND_MCBLASLT_LAYOUT, offsetof(struct opemu_lt_layout, owned),
                   "mcblasLtMatrixLayout_t", "mcblasLtMatrixLayoutDestroy");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixLayoutSetAttribute(mcblasLtMatrixLayout_t matLayout,
                                                             mcblasLtMatrixLayoutAttribute_t attr, const void *buf,
                                                             size_t sizeInBytes)
{
    const char *api = "mcblasLtMatrixLayoutSetAttribute";
    LIVE(matLayout, OPEMU_KIND_MCBLASLT_LAYOUT, "mcblasLtMatrixLayout_t", api);
    const opemu_lt_field *field = opemu_lt_field_of(layout_fields, COUNT(layout_fields), attr);
    mcblasStatus_t rc = opemu_lt_check_set(api, field, buf, sizeInBytes);
    if (rc)
        return rc;
    int32_t i32 = 0;
    int64_t i64 = 0;
    if (field->size == 4)
        memcpy(&i32, buf, 4);
    else
        memcpy(&i64, buf, 8);
    if ((attr == MCBLASLT_MATRIX_LAYOUT_TYPE && !opemu_lt_storage_type(i32)) ||
        (attr == MCBLASLT_MATRIX_LAYOUT_ORDER && (i32 < MCBLASLT_ORDER_COL || i32 > MCBLASLT_ORDER_COL32_2R_4R4)) ||
        (attr == MCBLASLT_MATRIX_LAYOUT_BATCH_COUNT && i32 < 1) || (attr == MCBLASLT_MATRIX_LAYOUT_LD && i64 < 0))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %lld is not a valid value of attribute %d", api,
                       field->size == 4 ? (long long)i32 : (long long)i64, (int)attr);
    memcpy((char *)matLayout + field->offset, buf, field->size);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixLayoutGetAttribute(mcblasLtMatrixLayout_t matLayout,
                                                             mcblasLtMatrixLayoutAttribute_t attr, void *buf,
                                                             size_t sizeInBytes, size_t *sizeWritten)
{
    const char *api = "mcblasLtMatrixLayoutGetAttribute";
    LIVE(matLayout, OPEMU_KIND_MCBLASLT_LAYOUT, "mcblasLtMatrixLayout_t", api);
    return opemu_lt_get(api, matLayout, opemu_lt_field_of(layout_fields, COUNT(layout_fields), attr), buf,
                        sizeInBytes, sizeWritten);
}

/* ---- matmul descriptors ---- */

static const opemu_lt_field matmul_fields[] = {
    FIELD(MCBLASLT_MATMUL_DESC_COMPUTE_TYPE, struct opemu_lt_matmul, computeType),
    FIELD(MCBLASLT_MATMUL_DESC_SCALE_TYPE, struct opemu_lt_matmul, scaleType),
    FIELD(MCBLASLT_MATMUL_DESC_POINTER_MODE, struct opemu_lt_matmul, pointerMode),
    FIELD(MCBLASLT_MATMUL_DESC_TRANSA, struct opemu_lt_matmul, transa),
    FIELD(MCBLASLT_MATMUL_DESC_TRANSB, struct opemu_lt_matmul, transb),
    FIELD(MCBLASLT_MATMUL_DESC_TRANSC, struct opemu_lt_matmul, transc),
    FIELD(MCBLASLT_MATMUL_DESC_FILL_MODE, struct opemu_lt_matmul, fillMode),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE, struct opemu_lt_matmul, epilogue),
    FIELD(MCBLASLT_MATMUL_DESC_BIAS_POINTER, struct opemu_lt_matmul, bias),
    FIELD(MCBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, struct opemu_lt_matmul, biasBatchStride),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, struct opemu_lt_matmul, aux),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, struct opemu_lt_matmul, auxLd),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, struct opemu_lt_matmul, auxBatchStride),
    FIELD(MCBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, struct opemu_lt_matmul, alphaVectorBatchStride),
    FIELD(MCBLASLT_MATMUL_DESC_SM_COUNT_TARGET, struct opemu_lt_matmul, smCountTarget),
    FIELD(MCBLASLT_MATMUL_DESC_A_SCALE_POINTER, struct opemu_lt_matmul, aScale),
    FIELD(MCBLASLT_MATMUL_DESC_B_SCALE_POINTER, struct opemu_lt_matmul, bScale),
    FIELD(MCBLASLT_MATMUL_DESC_C_SCALE_POINTER, struct opemu_lt_matmul, cScale),
    FIELD(MCBLASLT_MATMUL_DESC_D_SCALE_POINTER, struct opemu_lt_matmul, dScale),
    FIELD(MCBLASLT_MATMUL_DESC_AMAX_D_POINTER, struct opemu_lt_matmul, amaxD),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, struct opemu_lt_matmul, auxDataType),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, struct opemu_lt_matmul, auxScale),
    FIELD(MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, struct opemu_lt_matmul, auxAmax),
    FIELD(MCBLASLT_MATMUL_DESC_FAST_ACCUM, struct opemu_lt_matmul, fastAccum),
    FIELD(MCBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, struct opemu_lt_matmul, biasDataType),
};

static int compute_type(int type)
{
    switch (type) {
    case MCBLAS_COMPUTE_16F: case MCBLAS_COMPUTE_16F_PEDANTIC: case MCBLAS_COMPUTE_32F:
    case MCBLAS_COMPUTE_32F_PEDANTIC: case MCBLAS_COMPUTE_32F_FAST_16F: case MCBLAS_COMPUTE_32F_FAST_16BF:
    case MCBLAS_COMPUTE_32F_FAST_TF32: case MCBLAS_COMPUTE_64F: case MCBLAS_COMPUTE_64F_PEDANTIC:
    case MCBLAS_COMPUTE_32I: case MCBLAS_COMPUTE_32I_PEDANTIC:
        return 1;
    }
    return 0;
}

static int epilogue(uint32_t value)
{
    switch (value) {
    case MCBLASLT_EPILOGUE_DEFAULT: case MCBLASLT_EPILOGUE_RELU: case MCBLASLT_EPILOGUE_RELU_AUX:
    case MCBLASLT_EPILOGUE_BIAS: case MCBLASLT_EPILOGUE_RELU_BIAS: case MCBLASLT_EPILOGUE_RELU_AUX_BIAS:
    case MCBLASLT_EPILOGUE_DRELU: case MCBLASLT_EPILOGUE_DRELU_BGRAD: case MCBLASLT_EPILOGUE_GELU:
    case MCBLASLT_EPILOGUE_GELU_AUX: case MCBLASLT_EPILOGUE_GELU_BIAS: case MCBLASLT_EPILOGUE_GELU_AUX_BIAS:
    case MCBLASLT_EPILOGUE_DGELU: case MCBLASLT_EPILOGUE_DGELU_BGRAD: case MCBLASLT_EPILOGUE_BGRADA:
    case MCBLASLT_EPILOGUE_BGRADB:
        return 1;
    }
    return 0;
}

static mcblasStatus_t matmul_init(mcblasLtMatmulDesc_t *out, mcblasLtMatmulDesc_t storage, size_t size,
                                  mcblasComputeType_t computeType, macaDataType_t scaleType, const char *api)
{
    if (!compute_type(computeType))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: computeType %d is not an mcblasComputeType_t", api,
                       (int)computeType);
    if (!opemu_lt_storage_type(scaleType))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: scaleType %d is not a macaDataType", api, (int)scaleType);
    void *placed = storage;
    mcblasStatus_t rc = opemu_lt_place(out ? (void **)&placed : NULL, storage, size, sizeof(struct opemu_lt_matmul),
                              sizeof(mcblasLtMatmulDescOpaque_t), OPEMU_KIND_MCBLASLT_MATMUL, api);
    if (rc)
        return rc;
    struct opemu_lt_matmul *d = placed;
    d->computeType = computeType;
    d->scaleType = scaleType;
    d->pointerMode = MCBLASLT_POINTER_MODE_HOST;
    d->transa = d->transb = d->transc = MCBLAS_OP_N;
    d->fillMode = MCBLAS_FILL_MODE_FULL;
    d->epilogue = MCBLASLT_EPILOGUE_DEFAULT;
    d->auxDataType = d->biasDataType = -1;
    d->owned = out != NULL;
    if (out)
        *out = placed;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulDescInit_internal(mcblasLtMatmulDesc_t matmulDesc, size_t size,
                                                            mcblasComputeType_t computeType, macaDataType_t scaleType)
{
    return matmul_init(NULL, matmulDesc, size, computeType, scaleType, "mcblasLtMatmulDescInit");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulDescCreate(mcblasLtMatmulDesc_t *matmulDesc,
                                                     mcblasComputeType_t computeType, macaDataType_t scaleType)
{
    if (matmulDesc == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtMatmulDescCreate: matmulDesc is null");
    return matmul_init(matmulDesc, NULL, 0, computeType, scaleType, "mcblasLtMatmulDescCreate");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulDescDestroy(mcblasLtMatmulDesc_t matmulDesc)
{
    return opemu_lt_destroy(matmulDesc, OPEMU_KIND_MCBLASLT_MATMUL, offsetof(struct opemu_lt_matmul, owned),
                   "mcblasLtMatmulDesc_t", "mcblasLtMatmulDescDestroy");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulDescSetAttribute(mcblasLtMatmulDesc_t matmulDesc,
                                                           mcblasLtMatmulDescAttributes_t attr, const void *buf,
                                                           size_t sizeInBytes)
{
    const char *api = "mcblasLtMatmulDescSetAttribute";
    LIVE(matmulDesc, OPEMU_KIND_MCBLASLT_MATMUL, "mcblasLtMatmulDesc_t", api);
    const opemu_lt_field *field = opemu_lt_field_of(matmul_fields, COUNT(matmul_fields), attr);
    mcblasStatus_t rc = opemu_lt_check_set(api, field, buf, sizeInBytes);
    if (rc)
        return rc;
    int32_t v = 0;
    if (field->size == 4)
        memcpy(&v, buf, 4);
    int bad = 0;
    switch (attr) {
    case MCBLASLT_MATMUL_DESC_COMPUTE_TYPE: bad = !compute_type(v); break;
    case MCBLASLT_MATMUL_DESC_SCALE_TYPE: bad = !opemu_lt_storage_type(v); break;
    case MCBLASLT_MATMUL_DESC_POINTER_MODE:
        bad = v < MCBLASLT_POINTER_MODE_HOST || v > MCBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST;
        break;
    case MCBLASLT_MATMUL_DESC_TRANSA: case MCBLASLT_MATMUL_DESC_TRANSB:
        bad = v < MCBLAS_OP_N || v > MCBLAS_OP_C;
        break;
    case MCBLASLT_MATMUL_DESC_TRANSC: bad = v != MCBLAS_OP_N; break; /* "currently only CUBLAS_OP_N" */
    case MCBLASLT_MATMUL_DESC_FILL_MODE: bad = v < MCBLAS_FILL_MODE_LOWER || v > MCBLAS_FILL_MODE_FULL; break;
    case MCBLASLT_MATMUL_DESC_EPILOGUE: bad = !epilogue((uint32_t)v); break;
    case MCBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: case MCBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
        bad = v != -1 && !opemu_lt_storage_type(v);
        break;
    default: break;
    }
    if (bad)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %d is not a valid value of attribute %d", api, (int)v,
                       (int)attr);
    memcpy((char *)matmulDesc + field->offset, buf, field->size);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulDescGetAttribute(mcblasLtMatmulDesc_t matmulDesc,
                                                           mcblasLtMatmulDescAttributes_t attr, void *buf,
                                                           size_t sizeInBytes, size_t *sizeWritten)
{
    const char *api = "mcblasLtMatmulDescGetAttribute";
    LIVE(matmulDesc, OPEMU_KIND_MCBLASLT_MATMUL, "mcblasLtMatmulDesc_t", api);
    return opemu_lt_get(api, matmulDesc, opemu_lt_field_of(matmul_fields, COUNT(matmul_fields), attr), buf,
                        sizeInBytes, sizeWritten);
}
