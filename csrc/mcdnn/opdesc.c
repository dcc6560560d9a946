/* mcDNN op-tensor, reduce-tensor and tensor-transform descriptors (cuDNN 8 rules, renamed). Cheap
 * calls, all in C; mcdnnOpTensor, mcdnnReduceTensor, the reduction size queries and
 * mcdnnTransformTensorEx / mcdnnTransformFilter are Python entry points that read these structs. */
#include "mcdnn_internal.h"

#define FAIL opemu_mcdnn_fail
#define LIVE_OP(p, api) ((struct mcdnnOpTensorStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_OP_TENSOR, \
                                                                        "mcdnnOpTensorDescriptor_t", (api)))
#define LIVE_REDUCE(p, api) ((struct mcdnnReduceTensorStruct *)opemu_mcdnn_live( \
    (p), OPEMU_KIND_MCDNN_REDUCE_TENSOR, "mcdnnReduceTensorDescriptor_t", (api)))
#define LIVE_TRANSFORM(p, api) ((struct mcdnnTensorTransformStruct *)opemu_mcdnn_live( \
    (p), OPEMU_KIND_MCDNN_TENSOR_TRANSFORM, "mcdnnTensorTransformDescriptor_t", (api)))
#define LIVE_TENSOR(p, api) ((struct mcdnnTensorStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_TENSOR, \
                                                                          "mcdnnTensorDescriptor_t", (api)))

/* Compute types of element-wise and reduction math: FLOAT, DOUBLE, HALF, BFLOAT16. */
static int math_type(mcdnnDataType_t t)
{
    return t == MCDNN_DATA_FLOAT || t == MCDNN_DATA_DOUBLE || t == MCDNN_DATA_HALF || t == MCDNN_DATA_BFLOAT16;
}

/* ---- op-tensor descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateOpTensorDescriptor(mcdnnOpTensorDescriptor_t *opTensorDesc)
{
    return opemu_mcdnn_create((void **)opTensorDesc, sizeof(struct mcdnnOpTensorStruct), OPEMU_KIND_MCDNN_OP_TENSOR,
                              "mcdnnCreateOpTensorDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyOpTensorDescriptor(mcdnnOpTensorDescriptor_t opTensorDesc)
{
    return opemu_mcdnn_destroy(opTensorDesc, OPEMU_KIND_MCDNN_OP_TENSOR, "mcdnnOpTensorDescriptor_t",
                               "mcdnnDestroyOpTensorDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetOpTensorDescriptor(mcdnnOpTensorDescriptor_t opTensorDesc,
                                                      mcdnnOpTensorOp_t opTensorOp, mcdnnDataType_t opTensorCompType,
                                                      mcdnnNanPropagation_t opTensorNanOpt)
{
    const char *api = "mcdnnSetOpTensorDescriptor";
    struct mcdnnOpTensorStruct *d = LIVE_OP(opTensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)opTensorOp > MCDNN_OP_TENSOR_NOT)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnOpTensorOp_t %d", api, (int)opTensorOp);
    if (!math_type(opTensorCompType))
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid compute type %d", api, (int)opTensorCompType);
    if ((unsigned)opTensorNanOpt > MCDNN_PROPAGATE_NAN)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnNanPropagation_t %d", api, (int)opTensorNanOpt);
    d->op = opTensorOp;
    d->compType = opTensorCompType;
    d->nanOpt = opTensorNanOpt;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetOpTensorDescriptor(const mcdnnOpTensorDescriptor_t opTensorDesc,
                                                      mcdnnOpTensorOp_t *opTensorOp, mcdnnDataType_t *opTensorCompType,
                                                      mcdnnNanPropagation_t *opTensorNanOpt)
{
    const char *api = "mcdnnGetOpTensorDescriptor";
    struct mcdnnOpTensorStruct *d = LIVE_OP(opTensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!opTensorOp || !opTensorCompType || !opTensorNanOpt)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    *opTensorOp = (mcdnnOpTensorOp_t)d->op;
    *opTensorCompType = (mcdnnDataType_t)d->compType;
    *opTensorNanOpt = (mcdnnNanPropagation_t)d->nanOpt;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- reduce-tensor descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateReduceTensorDescriptor(mcdnnReduceTensorDescriptor_t *reduceTensorDesc)
{
    return opemu_mcdnn_create((void **)reduceTensorDesc, sizeof(struct mcdnnReduceTensorStruct),
                              OPEMU_KIND_MCDNN_REDUCE_TENSOR, "mcdnnCreateReduceTensorDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyReduceTensorDescriptor(mcdnnReduceTensorDescriptor_t reduceTensorDesc)
{
    return opemu_mcdnn_destroy(reduceTensorDesc, OPEMU_KIND_MCDNN_REDUCE_TENSOR, "mcdnnReduceTensorDescriptor_t",
                               "mcdnnDestroyReduceTensorDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetReduceTensorDescriptor(mcdnnReduceTensorDescriptor_t reduceTensorDesc,
                                                          mcdnnReduceTensorOp_t reduceTensorOp,
                                                          mcdnnDataType_t reduceTensorCompType,
                                                          mcdnnNanPropagation_t reduceTensorNanOpt,
                                                          mcdnnReduceTensorIndices_t reduceTensorIndices,
                                                          mcdnnIndicesType_t reduceTensorIndicesType)
{
    const char *api = "mcdnnSetReduceTensorDescriptor";
    struct mcdnnReduceTensorStruct *d = LIVE_REDUCE(reduceTensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)reduceTensorOp > MCDNN_REDUCE_TENSOR_MUL_NO_ZEROS)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnReduceTensorOp_t %d", api, (int)reduceTensorOp);
    if (!math_type(reduceTensorCompType))
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid compute type %d", api, (int)reduceTensorCompType);
    if ((unsigned)reduceTensorNanOpt > MCDNN_PROPAGATE_NAN)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnNanPropagation_t %d", api, (int)reduceTensorNanOpt);
    if ((unsigned)reduceTensorIndices > MCDNN_REDUCE_TENSOR_FLATTENED_INDICES)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnReduceTensorIndices_t %d", api,
                    (int)reduceTensorIndices);
    if ((unsigned)reduceTensorIndicesType > MCDNN_8BIT_INDICES)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnIndicesType_t %d", api, (int)reduceTensorIndicesType);
    d->op = reduceTensorOp;
    d->compType = reduceTensorCompType;
    d->nanOpt = reduceTensorNanOpt;
    d->indices = reduceTensorIndices;
    d->indicesType = reduceTensorIndicesType;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetReduceTensorDescriptor(const mcdnnReduceTensorDescriptor_t reduceTensorDesc,
                                                          mcdnnReduceTensorOp_t *reduceTensorOp,
                                                          mcdnnDataType_t *reduceTensorCompType,
                                                          mcdnnNanPropagation_t *reduceTensorNanOpt,
                                                          mcdnnReduceTensorIndices_t *reduceTensorIndices,
                                                          mcdnnIndicesType_t *reduceTensorIndicesType)
{
    const char *api = "mcdnnGetReduceTensorDescriptor";
    struct mcdnnReduceTensorStruct *d = LIVE_REDUCE(reduceTensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!reduceTensorOp || !reduceTensorCompType || !reduceTensorNanOpt || !reduceTensorIndices ||
        !reduceTensorIndicesType)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    *reduceTensorOp = (mcdnnReduceTensorOp_t)d->op;
    *reduceTensorCompType = (mcdnnDataType_t)d->compType;
    *reduceTensorNanOpt = (mcdnnNanPropagation_t)d->nanOpt;
    *reduceTensorIndices = (mcdnnReduceTensorIndices_t)d->indices;
    *reduceTensorIndicesType = (mcdnnIndicesType_t)d->indicesType;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- tensor-transform descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t *transformDesc)
{
    return opemu_mcdnn_create((void **)transformDesc, sizeof(struct mcdnnTensorTransformStruct),
                              OPEMU_KIND_MCDNN_TENSOR_TRANSFORM, "mcdnnCreateTensorTransformDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t transformDesc)
{
    return opemu_mcdnn_destroy(transformDesc, OPEMU_KIND_MCDNN_TENSOR_TRANSFORM, "mcdnnTensorTransformDescriptor_t",
                               "mcdnnDestroyTensorTransformDescriptor");
}

/* NULL padding arrays mean no padding, a NULL fold array folds nothing (1 everywhere). */
OPEMU_EXPORT mcdnnStatus_t mcdnnSetTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t transformDesc,
                                                             const uint32_t nbDims,
                                                             const mcdnnTensorFormat_t destFormat,
                                                             const int32_t padBeforeA[], const int32_t padAfterA[],
                                                             const uint32_t foldA[],
                                                             const mcdnnFoldingDirection_t direction)
{
    const char *api = "mcdnnSetTensorTransformDescriptor";
    struct mcdnnTensorTransformStruct *d = LIVE_TRANSFORM(transformDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (nbDims < 3 || nbDims > MCDNN_DIM_MAX)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: nbDims %u is outside [3, %d]", api, nbDims, MCDNN_DIM_MAX);
    if ((unsigned)destFormat > MCDNN_TENSOR_NCHW_VECT_C)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnTensorFormat_t %d", api, (int)destFormat);
    if ((unsigned)direction > MCDNN_TRANSFORM_UNFOLD)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnFoldingDirection_t %d", api, (int)direction);
    for (uint32_t i = 0; i < nbDims; i++) {
        if ((padBeforeA && padBeforeA[i] < 0) || (padAfterA && padAfterA[i] < 0) || (foldA && foldA[i] == 0))
            return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: dimension %u: paddings must not be negative, folds positive",
                        api, i);
    }
    d->nbDims = (int32_t)nbDims;
    d->destFormat = destFormat;
    d->direction = direction;
    for (int i = 0; i < MCDNN_DIM_MAX; i++) {
        int in = i < (int)nbDims;
        d->padBeforeA[i] = in && padBeforeA ? padBeforeA[i] : 0;
        d->padAfterA[i] = in && padAfterA ? padAfterA[i] : 0;
        d->foldA[i] = in && foldA ? foldA[i] : 1;
    }
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetTensorTransformDescriptor(mcdnnTensorTransformDescriptor_t transformDesc,
                                                             uint32_t nbDimsRequested,
                                                             mcdnnTensorFormat_t *destFormat, int32_t padBeforeA[],
                                                             int32_t padAfterA[], uint32_t foldA[],
                                                             mcdnnFoldingDirection_t *direction)
{
    const char *api = "mcdnnGetTensorTransformDescriptor";
    struct mcdnnTensorTransformStruct *d = LIVE_TRANSFORM(transformDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!destFormat || !direction || (nbDimsRequested > 0 && (!padBeforeA || !padAfterA || !foldA)))
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    if (!d->is_set)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the descriptor was never set", api);
    if (nbDimsRequested > (uint32_t)d->nbDims)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: nbDimsRequested %u is above the descriptor's %d", api,
                    nbDimsRequested, d->nbDims);
    *destFormat = (mcdnnTensorFormat_t)d->destFormat;
    *direction = (mcdnnFoldingDirection_t)d->direction;
    for (uint32_t i = 0; i < nbDimsRequested; i++) {
        padBeforeA[i] = d->padBeforeA[i];
        padAfterA[i] = d->padAfterA[i];
        foldA[i] = d->foldA[i];
    }
    return MCDNN_STATUS_SUCCESS;
}

/* destDesc := srcDesc's dims padded (before + dim + after), packed in the transform's format;
 * *destSizeInBytes its size. Folding (a fold other than 1) is not emulated. */
OPEMU_EXPORT mcdnnStatus_t mcdnnInitTransformDest(const mcdnnTensorTransformDescriptor_t transformDesc,
                                                  const mcdnnTensorDescriptor_t srcDesc,
                                                  mcdnnTensorDescriptor_t destDesc, size_t *destSizeInBytes)
{
    const char *api = "mcdnnInitTransformDest";
    struct mcdnnTensorTransformStruct *t = LIVE_TRANSFORM(transformDesc, api);
    struct mcdnnTensorStruct *src = t ? LIVE_TENSOR(srcDesc, api) : NULL;
    struct mcdnnTensorStruct *dst = src ? LIVE_TENSOR(destDesc, api) : NULL;
    if (dst == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (destSizeInBytes == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: destSizeInBytes is null", api);
    if (!t->is_set || !src->is_set)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: a descriptor was created but never set", api);
    if (t->nbDims != src->nbDims)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the transform has %d dimensions, srcDesc %d", api, t->nbDims,
                    src->nbDims);
    int dims[MCDNN_DIM_MAX];
    for (int i = 0; i < src->nbDims; i++) {
        if (t->foldA[i] != 1)
            return FAIL(MCDNN_STATUS_NOT_SUPPORTED, "%s: folding (fold %u in dimension %d) is not emulated by opemu",
                        api, t->foldA[i], i);
        long long d = (long long)src->dimA[i] + t->padBeforeA[i] + t->padAfterA[i];
        if (d <= 0 || d > 2147483647LL)
            return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: dimension %d of the result would be %lld", api, i, d);
        dims[i] = (int)d;
    }
    mcdnnStatus_t rc = mcdnnSetTensorNdDescriptorEx(destDesc, (mcdnnTensorFormat_t)t->destFormat,
                                                    (mcdnnDataType_t)src->dataType, src->nbDims, dims);
    if (rc)
        return rc;
    return mcdnnGetTensorSizeInBytes(destDesc, destSizeInBytes);
}
