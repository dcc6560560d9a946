/* mcBLASLt settings objects: matrix transform descriptors, heuristic preferences and the heuristics cache
 * capacity (rules as lt_objects.c says; the logger is lt_log.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lt_internal.h"

/* ---- matrix transform descriptors ---- */

static const opemu_lt_field transform_fields[] = {
    FIELD(MCBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE, struct opemu_lt_transform, scaleType),
    FIELD(MCBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE, struct opemu_lt_transform, pointerMode),
    FIELD(MCBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, struct opemu_lt_transform, transa),
    FIELD(MCBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, struct opemu_lt_transform, transb),
};

static mcblasStatus_t transform_init(mcblasLtMatrixTransformDesc_t *out, mcblasLtMatrixTransformDesc_t storage,
                                     size_t size, macaDataType scaleType, const char *api)
{
    if (!opemu_lt_storage_type(scaleType))
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: scaleType %d is not a macaDataType", api, (int)scaleType);
    void *placed = storage;
    mcblasStatus_t rc = opemu_lt_place(out ? (void **)&placed : NULL, storage, size, sizeof(struct opemu_lt_transform),
                              sizeof(mcblasLtMatrixTransformDescOpaque_t), OPEMU_KIND_MCBLASLT_TRANSFORM, api);
    if (rc)
        return rc;
    struct opemu_lt_transform *d = placed;
    d->scaleType = scaleType;
    d->pointerMode = MCBLASLT_POINTER_MODE_HOST;
    d->transa = d->transb = MCBLAS_OP_N;
    d->owned = out != NULL;
    if (out)
        *out = placed;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixTransformDescInit_internal(mcblasLtMatrixTransformDesc_t transformDesc,
                                                                     size_t size, macaDataType scaleType)
{
    return transform_init(NULL, transformDesc, size, scaleType, "mcblasLtMatrixTransformDescInit");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixTransformDescCreate(mcblasLtMatrixTransformDesc_t *transformDesc,
                                                              macaDataType scaleType)
{
    if (transformDesc == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtMatrixTransformDescCreate: transformDesc is null");
    return transform_init(transformDesc, NULL, 0, scaleType, "mcblasLtMatrixTransformDescCreate");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixTransformDescDestroy(mcblasLtMatrixTransformDesc_t transformDesc)
{
    return opemu_lt_destroy(transformDesc, OPEMU_KIND_MCBLASLT_TRANSFORM, offsetof(struct opemu_lt_transform, owned),
                   "mcblasLtMatrixTransformDesc_t", "mcblasLtMatrixTransformDescDestroy");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixTransformDescSetAttribute(mcblasLtMatrixTransformDesc_t transformDesc,
                                                                    mcblasLtMatrixTransformDescAttributes_t attr,
                                                                    const void *buf, size_t sizeInBytes)
{
    const char *api = "mcblasLtMatrixTransformDescSetAttribute";
    LIVE(transformDesc, OPEMU_KIND_MCBLASLT_TRANSFORM, "mcblasLtMatrixTransformDesc_t", api);
    const opemu_lt_field *field = opemu_lt_field_of(transform_fields, COUNT(transform_fields), attr);
    mcblasStatus_t rc = opemu_lt_check_set(api, field, buf, sizeInBytes);
    if (rc)
        return rc;
    int32_t v;
    memcpy(&v, buf, 4);
    int bad = (attr == MCBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE && !opemu_lt_storage_type(v)) ||
              (attr == MCBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE &&
               v != MCBLASLT_POINTER_MODE_HOST && v != MCBLASLT_POINTER_MODE_DEVICE) ||
              ((attr == MCBLASLT_MATRIX_TRANSFORM_DESC_TRANSA || attr == MCBLASLT_MATRIX_TRANSFORM_DESC_TRANSB) &&
               (v < MCBLAS_OP_N || v > MCBLAS_OP_C));
    if (bad)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %d is not a valid value of attribute %d", api, (int)v,
                       (int)attr);
    memcpy((char *)transformDesc + field->offset, buf, field->size);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatrixTransformDescGetAttribute(mcblasLtMatrixTransformDesc_t transformDesc,
                                                                    mcblasLtMatrixTransformDescAttributes_t attr,
                                                                    void *buf, size_t sizeInBytes,
                                                                    size_t *sizeWritten)
{
    const char *api = "mcblasLtMatrixTransformDescGetAttribute";
    LIVE(transformDesc, OPEMU_KIND_MCBLASLT_TRANSFORM, "mcblasLtMatrixTransformDesc_t", api);
    return opemu_lt_get(api, transformDesc, opemu_lt_field_of(transform_fields, COUNT(transform_fields), attr), buf,
                        sizeInBytes, sizeWritten);
}

/* ---- heuristic preferences ---- */

static const opemu_lt_field preference_fields[] = {
    FIELD(MCBLASLT_MATMUL_PREF_SEARCH_MODE, struct opemu_lt_preference, searchMode),
    FIELD(MCBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, struct opemu_lt_preference, maxWorkspaceBytes),
    FIELD(MCBLASLT_MATMUL_PREF_MATH_MODE_MASK, struct opemu_lt_preference, mathModeMask),
    FIELD(MCBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, struct opemu_lt_preference, reductionSchemeMask),
    FIELD(MCBLASLT_MATMUL_PREF_GAUSSIAN_MODE_MASK, struct opemu_lt_preference, gaussianModeMask),
    FIELD(MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, struct opemu_lt_preference, alignment[0]),
    FIELD(MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, struct opemu_lt_preference, alignment[1]),
    FIELD(MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, struct opemu_lt_preference, alignment[2]),
    FIELD(MCBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, struct opemu_lt_preference, alignment[3]),
    FIELD(MCBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, struct opemu_lt_preference, maxWavesCount),
    FIELD(MCBLASLT_MATMUL_PREF_POINTER_MODE_MASK, struct opemu_lt_preference, pointerModeMask),
    FIELD(MCBLASLT_MATMUL_PREF_EPILOGUE_MASK, struct opemu_lt_preference, epilogueMask),
    FIELD(MCBLASLT_MATMUL_PREF_IMPL_MASK, struct opemu_lt_preference, implMask),
    FIELD(MCBLASLT_MATMUL_PREF_SM_COUNT_TARGET, struct opemu_lt_preference, smCountTarget),
};

static mcblasStatus_t preference_init(mcblasLtMatmulPreference_t *out, mcblasLtMatmulPreference_t storage,
                                      size_t size, const char *api)
{
    void *placed = storage;
    mcblasStatus_t rc = opemu_lt_place(out ? (void **)&placed : NULL, storage, size, sizeof(struct opemu_lt_preference),
                              sizeof(mcblasLtMatmulPreferenceOpaque_t), OPEMU_KIND_MCBLASLT_PREFERENCE, api);
    if (rc)
        return rc;
    struct opemu_lt_preference *p = placed;
    p->searchMode = MCBLASLT_SEARCH_BEST_FIT;
    p->mathModeMask = 1;
    p->reductionSchemeMask = MCBLASLT_REDUCTION_SCHEME_MASK;
    p->gaussianModeMask = MCBLASLT_3M_MODE_ALLOWED;
    for (int i = 0; i < 4; i++)
        p->alignment[i] = 256;
    p->pointerModeMask = MCBLASLT_POINTER_MODE_MASK_HOST | MCBLASLT_POINTER_MODE_MASK_DEVICE;
    p->epilogueMask = MCBLASLT_EPILOGUE_DEFAULT;
    p->implMask = ~(uint64_t)0;
    p->owned = out != NULL;
    if (out)
        *out = placed;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulPreferenceInit_internal(mcblasLtMatmulPreference_t pref, size_t size)
{
    return preference_init(NULL, pref, size, "mcblasLtMatmulPreferenceInit");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulPreferenceCreate(mcblasLtMatmulPreference_t *pref)
{
    if (pref == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtMatmulPreferenceCreate: pref is null");
    return preference_init(pref, NULL, 0, "mcblasLtMatmulPreferenceCreate");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulPreferenceDestroy(mcblasLtMatmulPreference_t pref)
{
    return opemu_lt_destroy(pref, OPEMU_KIND_MCBLASLT_PREFERENCE, offsetof(struct opemu_lt_preference, owned),
                   "mcblasLtMatmulPreference_t", "mcblasLtMatmulPreferenceDestroy");
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulPreferenceSetAttribute(mcblasLtMatmulPreference_t pref,
                                                                 mcblasLtMatmulPreferenceAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes)
{
    const char *api = "mcblasLtMatmulPreferenceSetAttribute";
    LIVE(pref, OPEMU_KIND_MCBLASLT_PREFERENCE, "mcblasLtMatmulPreference_t", api);
    const opemu_lt_field *field = opemu_lt_field_of(preference_fields, COUNT(preference_fields), attr);
    mcblasStatus_t rc = opemu_lt_check_set(api, field, buf, sizeInBytes);
    if (rc)
        return rc;
    uint32_t v = 0;
    if (field->size == 4)
        memcpy(&v, buf, 4);
    if (attr == MCBLASLT_MATMUL_PREF_SEARCH_MODE && v > MCBLASLT_SEARCH_RESERVED_05)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: search mode %u is not an mcblasLtMatmulSearch_t", api, v);
    memcpy((char *)pref + field->offset, buf, field->size);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtMatmulPreferenceGetAttribute(mcblasLtMatmulPreference_t pref,
                                                                 mcblasLtMatmulPreferenceAttributes_t attr, void *buf,
                                                                 size_t sizeInBytes, size_t *sizeWritten)
{
    const char *api = "mcblasLtMatmulPreferenceGetAttribute";
    LIVE(pref, OPEMU_KIND_MCBLASLT_PREFERENCE, "mcblasLtMatmulPreference_t", api);
    return opemu_lt_get(api, pref, opemu_lt_field_of(preference_fields, COUNT(preference_fields), attr), buf,
                        sizeInBytes, sizeWritten);
}

/* ---- the heuristics cache: opemu's one algorithm needs none, its capacity is kept and answered ---- */

static struct {
    pthread_mutex_t lock;
    size_t cache_capacity;
} heuristics = {PTHREAD_MUTEX_INITIALIZER, 8192};

OPEMU_EXPORT mcblasStatus_t mcblasLtHeuristicsCacheGetCapacity(size_t *capacity)
{
    if (capacity == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtHeuristicsCacheGetCapacity: capacity is null");
    pthread_mutex_lock(&heuristics.lock);
    *capacity = heuristics.cache_capacity;
    pthread_mutex_unlock(&heuristics.lock);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtHeuristicsCacheSetCapacity(size_t capacity)
{
    pthread_mutex_lock(&heuristics.lock);
    heuristics.cache_capacity = capacity;
    pthread_mutex_unlock(&heuristics.lock);
    return MCBLAS_STATUS_SUCCESS;
}
