/* mcDNN objects of the normalization, dropout and spatial transformer routines: the derived
 * BN / normalization parameter descriptors, the dropout descriptor and the spatial transformer
 * descriptor. Cheap calls, all in C; the compute routines (and mcdnnSetDropoutDescriptor, which
 * initialises the RNG states on the handle's stream) are Python entry points that read these
 * structs (descriptors.h).
 *
 * Rules are cuDNN 8.5's, renamed (reference mcdnn.md §3.1, §3.3, §3.7, §3.9). Descriptors live in the
 * handle table, so a NULL, destroyed or foreign pointer is MCDNN_STATUS_BAD_PARAM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcdnn_internal.h"

#define LIVE_TENSOR(p, api) ((struct mcdnnTensorStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_TENSOR, \
                                                               "mcdnnTensorDescriptor_t", (api)))
#define LIVE_DROPOUT(p, api) ((struct mcdnnDropoutStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_DROPOUT, \
                                                                 "mcdnnDropoutDescriptor_t", (api)))
#define LIVE_SPATIAL(p, api) ((struct mcdnnSpatialTransformerStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_SPATIAL_TF, \
                                                                         "mcdnnSpatialTransformerDescriptor_t", (api)))

/* ---- derived parameter descriptors ---- */

/* The parameter descriptor of x for a per-channel (`per_channel`) or per-activation normalization:
 * 1xCx1x1(x1) or 1xCxHxW(xD), packed NCHW, FLOAT for HALF/BFLOAT16/FLOAT data and DOUBLE for DOUBLE. */
static mcdnnStatus_t derive(struct mcdnnTensorStruct *out, const struct mcdnnTensorStruct *x, int per_channel,
                            const char *api)
{
    if (!x->is_set)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: xDesc was created but never set", api);
    if (x->nbDims != 4 && x->nbDims != 5)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: xDesc has %d dimensions: only 4-D and 5-D tensors are supported",
                    api, x->nbDims);
    int type;
    switch (x->dataType) {
    case MCDNN_DATA_HALF: case MCDNN_DATA_BFLOAT16: case MCDNN_DATA_FLOAT: type = MCDNN_DATA_FLOAT; break;
    case MCDNN_DATA_DOUBLE: type = MCDNN_DATA_DOUBLE; break;
    default:
        return opemu_mcdnn_fail(MCDNN_STATUS_NOT_SUPPORTED, "%s: xDesc's data type %d is not HALF, BFLOAT16, FLOAT or DOUBLE",
                    api, x->dataType);
    }
    int dims[MCDNN_DIM_MAX];
    dims[0] = 1;
    for (int i = 1; i < x->nbDims; i++)
        dims[i] = (per_channel && i >= 2) ? 1 : x->dimA[i];
    long long stride = 1;
    for (int i = x->nbDims - 1; i >= 0; i--) {
        out->strideA[i] = (int)stride;
        stride *= dims[i];
    }
    for (int i = 0; i < MCDNN_DIM_MAX; i++) {
        out->dimA[i] = i < x->nbDims ? dims[i] : 0;
        if (i >= x->nbDims)
            out->strideA[i] = 0;
    }
    out->nbDims = x->nbDims;
    out->dataType = type;
    out->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDeriveBNTensorDescriptor(mcdnnTensorDescriptor_t derivedBnDesc,
                                                         const mcdnnTensorDescriptor_t xDesc,
                                                         mcdnnBatchNormMode_t mode)
{
    const char *api = "mcdnnDeriveBNTensorDescriptor";
    struct mcdnnTensorStruct *out = LIVE_TENSOR(derivedBnDesc, api);
    struct mcdnnTensorStruct *x = out ? LIVE_TENSOR(xDesc, api) : NULL;
    if (x == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)mode > MCDNN_BATCHNORM_SPATIAL_PERSISTENT)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnBatchNormMode_t %d", api, (int)mode);
    return derive(out, x, mode != MCDNN_BATCHNORM_PER_ACTIVATION, api);
}

/* Both outputs get the same shape and type (scale/bias and mean/variance share the layout). */
OPEMU_EXPORT mcdnnStatus_t mcdnnDeriveNormTensorDescriptor(mcdnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                           mcdnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                           const mcdnnTensorDescriptor_t xDesc, mcdnnNormMode_t mode,
                                                           int groupCnt)
{
    const char *api = "mcdnnDeriveNormTensorDescriptor";
    struct mcdnnTensorStruct *scale_bias = LIVE_TENSOR(derivedNormScaleBiasDesc, api);
    struct mcdnnTensorStruct *mean_var = scale_bias ? LIVE_TENSOR(derivedNormMeanVarDesc, api) : NULL;
    struct mcdnnTensorStruct *x = mean_var ? LIVE_TENSOR(xDesc, api) : NULL;
    if (x == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)mode > MCDNN_NORM_PER_CHANNEL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnNormMode_t %d", api, (int)mode);
    if (groupCnt != 1)
        return opemu_mcdnn_fail(MCDNN_STATUS_NOT_SUPPORTED, "%s: groupCnt is %d: only 1 is supported", api, groupCnt);
    struct mcdnnTensorStruct derived;
    mcdnnStatus_t rc = derive(&derived, x, mode == MCDNN_NORM_PER_CHANNEL, api);
    if (rc)
        return rc;
    *scale_bias = derived;
    *mean_var = derived;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- dropout descriptors ---- */

/* The states hold the seed and a 256-bit Philox counter (python/opemu/ops/mcdnn/dropout.py). */
#define DROPOUT_STATES_BYTES 64

uint64_t opemu_mcdnn_dropout_states_size(void) { return DROPOUT_STATES_BYTES; }

/* One keep bit per element, in 16-byte units. */
uint64_t opemu_mcdnn_dropout_reserve_size(uint64_t elements) { return (elements + 127) / 128 * 16; }

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateDropoutDescriptor(mcdnnDropoutDescriptor_t *dropoutDesc)
{
    if (dropoutDesc == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "mcdnnCreateDropoutDescriptor: dropoutDesc is null");
    struct mcdnnDropoutStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    opemu_handle_add(d, OPEMU_KIND_MCDNN_DROPOUT);
    *dropoutDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc)
{
    if (dropoutDesc == NULL)
        return MCDNN_STATUS_SUCCESS;
    if (!LIVE_DROPOUT(dropoutDesc, "mcdnnDestroyDropoutDescriptor"))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(dropoutDesc);
    free(dropoutDesc);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDropoutGetStatesSize(mcdnnHandle_t handle, size_t *sizeInBytes)
{
    const char *api = "mcdnnDropoutGetStatesSize";
    if (!opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api))
        return MCDNN_STATUS_BAD_PARAM;
    if (sizeInBytes == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: sizeInBytes is null", api);
    *sizeInBytes = DROPOUT_STATES_BYTES;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDropoutGetReserveSpaceSize(mcdnnTensorDescriptor_t xdesc, size_t *sizeInBytes)
{
    const char *api = "mcdnnDropoutGetReserveSpaceSize";
    struct mcdnnTensorStruct *x = LIVE_TENSOR(xdesc, api);
    if (x == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (sizeInBytes == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: sizeInBytes is null", api);
    if (!x->is_set)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: xdesc was created but never set", api);
    uint64_t elements = 1;
    for (int i = 0; i < x->nbDims; i++)
        elements *= (uint64_t)x->dimA[i];
    *sizeInBytes = (size_t)opemu_mcdnn_dropout_reserve_size(elements);
    return MCDNN_STATUS_SUCCESS;
}

/* Records a previously initialised states buffer without touching it ("restores the dropout
 * descriptor to a previously saved-off state"); `seed` is recorded for mcdnnGetDropoutDescriptor only:
 * the states carry the generator. */
OPEMU_EXPORT mcdnnStatus_t mcdnnRestoreDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc, mcdnnHandle_t handle,
                                                         float dropout, void *states, size_t stateSizeInBytes,
                                                         unsigned long long seed)
{
    const char *api = "mcdnnRestoreDropoutDescriptor";
    struct mcdnnDropoutStruct *d = LIVE_DROPOUT(dropoutDesc, api);
    if (d == NULL || !opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api))
        return MCDNN_STATUS_BAD_PARAM;
    if (!(dropout >= 0.0f && dropout <= 1.0f))
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: dropout %g is outside [0, 1]", api, (double)dropout);
    if (states == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: states is null", api);
    if (stateSizeInBytes < DROPOUT_STATES_BYTES)
        return opemu_mcdnn_fail(MCDNN_STATUS_INVALID_VALUE, "%s: stateSizeInBytes %zu is less than the %d bytes "
                    "mcdnnDropoutGetStatesSize returns", api, stateSizeInBytes, DROPOUT_STATES_BYTES);
    d->dropout = dropout;
    d->states = states;
    d->stateSizeInBytes = stateSizeInBytes;
    d->seed = seed;
    d->has_states = 1;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetDropoutDescriptor(mcdnnDropoutDescriptor_t dropoutDesc, mcdnnHandle_t handle,
                                                     float *dropout, void **states, unsigned long long *seed)
{
    const char *api = "mcdnnGetDropoutDescriptor";
    struct mcdnnDropoutStruct *d = LIVE_DROPOUT(dropoutDesc, api);
    if (d == NULL || !opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api))
        return MCDNN_STATUS_BAD_PARAM;
    if (dropout == NULL || states == NULL || seed == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    *dropout = d->dropout;
    *states = d->states;
    *seed = d->seed;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- spatial transformer descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateSpatialTransformerDescriptor(mcdnnSpatialTransformerDescriptor_t *stDesc)
{
    if (stDesc == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "mcdnnCreateSpatialTransformerDescriptor: stDesc is null");
    struct mcdnnSpatialTransformerStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    opemu_handle_add(d, OPEMU_KIND_MCDNN_SPATIAL_TF);
    *stDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

/* dimA is the transformed (output) tensor's N, C, H, W. Only 2-D transformations (nbDims 4) are
 * computed; the routines answer NOT_SUPPORTED for another nbDims, as the reference states. */
OPEMU_EXPORT mcdnnStatus_t mcdnnSetSpatialTransformerNdDescriptor(mcdnnSpatialTransformerDescriptor_t stDesc,
                                                                  mcdnnSamplerType_t samplerType,
                                                                  mcdnnDataType_t dataType, const int nbDims,
                                                                  const int dimA[])
{
    const char *api = "mcdnnSetSpatialTransformerNdDescriptor";
    struct mcdnnSpatialTransformerStruct *d = LIVE_SPATIAL(stDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (dimA == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: dimA is null", api);
    if (samplerType != MCDNN_SAMPLER_BILINEAR)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnSamplerType_t %d", api, (int)samplerType);
    if ((unsigned)dataType > MCDNN_DATA_BOOLEAN)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    if (nbDims < 1 || nbDims > MCDNN_DIM_MAX)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: nbDims %d is outside [1, %d]", api, nbDims, MCDNN_DIM_MAX);
    for (int i = 0; i < nbDims; i++) {
        if (dimA[i] <= 0)
            return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: dimA[%d] is %d: every dimension must be positive", api, i,
                        dimA[i]);
    }
    d->samplerType = samplerType;
    d->dataType = dataType;
    d->nbDims = nbDims;
    for (int i = 0; i < MCDNN_DIM_MAX; i++)
        d->dimA[i] = i < nbDims ? dimA[i] : 0;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroySpatialTransformerDescriptor(mcdnnSpatialTransformerDescriptor_t stDesc)
{
    if (stDesc == NULL)
        return MCDNN_STATUS_SUCCESS;
    if (!LIVE_SPATIAL(stDesc, "mcdnnDestroySpatialTransformerDescriptor"))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(stDesc);
    free(stDesc);
    return MCDNN_STATUS_SUCCESS;
}
