/* mcDNN pooling descriptors (2-D and N-D) and the forward output dims they give a tensor (cuDNN 8.5's
 * rules, renamed: reference mcdnn.md §3). */
#include <stdlib.h>
#include <string.h>
#include "mcdnn_internal.h"

#define bad_param(...) opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, __VA_ARGS__)

static struct mcdnnPoolingStruct *live_pooling(const void *desc, const char *api)
{
    return opemu_mcdnn_live(desc, OPEMU_KIND_MCDNN_POOLING, "mcdnnPoolingDescriptor_t", api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCreatePoolingDescriptor(mcdnnPoolingDescriptor_t *poolingDesc)
{
    if (poolingDesc == NULL)
        return bad_param("mcdnnCreatePoolingDescriptor: poolingDesc is null");
    struct mcdnnPoolingStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    opemu_handle_add(d, OPEMU_KIND_MCDNN_POOLING);
    *poolingDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

static mcdnnStatus_t store_pooling(struct mcdnnPoolingStruct *d, mcdnnPoolingMode_t mode,
                                   mcdnnNanPropagation_t nanOpt, int nbDims, const int *window, const int *padding,
                                   const int *stride, const char *api)
{
    if ((unsigned)mode > MCDNN_POOLING_MAX_DETERMINISTIC)
        return bad_param("%s: invalid mcdnnPoolingMode_t %d", api, (int)mode);
    if ((unsigned)nanOpt > MCDNN_PROPAGATE_NAN)
        return bad_param("%s: invalid mcdnnNanPropagation_t %d", api, (int)nanOpt);
    for (int i = 0; i < nbDims; i++) {
        if (window[i] <= 0 || stride[i] <= 0 || padding[i] < 0)
            return bad_param("%s: dimension %d has window %d, padding %d, stride %d: windows and strides must be "
                             "positive, paddings not negative", api, i, window[i], padding[i], stride[i]);
    }
    d->mode = mode;
    d->maxpoolingNanOpt = nanOpt;
    d->nbDims = nbDims;
    for (int i = 0; i < MCDNN_DIM_MAX; i++) {
        d->windowDimA[i] = i < nbDims ? window[i] : 0;
        d->paddingA[i] = i < nbDims ? padding[i] : 0;
        d->strideA[i] = i < nbDims ? stride[i] : 0;
    }
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetPooling2dDescriptor(mcdnnPoolingDescriptor_t poolingDesc, mcdnnPoolingMode_t mode,
                                                       mcdnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                       int windowWidth, int verticalPadding, int horizontalPadding,
                                                       int verticalStride, int horizontalStride)
{
    const char *api = "mcdnnSetPooling2dDescriptor";
    struct mcdnnPoolingStruct *d = live_pooling(poolingDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    int window[2] = {windowHeight, windowWidth}, padding[2] = {verticalPadding, horizontalPadding},
        stride[2] = {verticalStride, horizontalStride};
    return store_pooling(d, mode, maxpoolingNanOpt, 2, window, padding, stride, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetPooling2dDescriptor(const mcdnnPoolingDescriptor_t poolingDesc,
                                                       mcdnnPoolingMode_t *mode,
                                                       mcdnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                                       int *windowWidth, int *verticalPadding, int *horizontalPadding,
                                                       int *verticalStride, int *horizontalStride)
{
    const char *api = "mcdnnGetPooling2dDescriptor";
    struct mcdnnPoolingStruct *d = live_pooling(poolingDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!mode || !maxpoolingNanOpt || !windowHeight || !windowWidth || !verticalPadding || !horizontalPadding ||
        !verticalStride || !horizontalStride)
        return bad_param("%s: an output pointer is null", api);
    if (!d->is_set || d->nbDims != 2)
        return bad_param("%s: the descriptor does not hold a 2-D pooling", api);
    *mode = (mcdnnPoolingMode_t)d->mode;
    *maxpoolingNanOpt = (mcdnnNanPropagation_t)d->maxpoolingNanOpt;
    *windowHeight = d->windowDimA[0];
    *windowWidth = d->windowDimA[1];
    *verticalPadding = d->paddingA[0];
    *horizontalPadding = d->paddingA[1];
    *verticalStride = d->strideA[0];
    *horizontalStride = d->strideA[1];
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetPoolingNdDescriptor(mcdnnPoolingDescriptor_t poolingDesc,
                                                       const mcdnnPoolingMode_t mode,
                                                       const mcdnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                       const int windowDimA[], const int paddingA[],
                                                       const int strideA[])
{
    const char *api = "mcdnnSetPoolingNdDescriptor";
    struct mcdnnPoolingStruct *d = live_pooling(poolingDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (nbDims < 1 || nbDims > MCDNN_DIM_MAX - 2)
        return bad_param("%s: nbDims %d is outside [1, %d]", api, nbDims, MCDNN_DIM_MAX - 2);
    if (windowDimA == NULL || paddingA == NULL || strideA == NULL)
        return bad_param("%s: windowDimA, paddingA and strideA must not be null", api);
    return store_pooling(d, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetPoolingNdDescriptor(const mcdnnPoolingDescriptor_t poolingDesc,
                                                       int nbDimsRequested, mcdnnPoolingMode_t *mode,
                                                       mcdnnNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                                       int windowDimA[], int paddingA[], int strideA[])
{
    const char *api = "mcdnnGetPoolingNdDescriptor";
    struct mcdnnPoolingStruct *d = live_pooling(poolingDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (nbDimsRequested < 0)
        return bad_param("%s: nbDimsRequested %d is negative", api, nbDimsRequested);
    if (!mode || !maxpoolingNanOpt || !nbDims ||
        (nbDimsRequested > 0 && (!windowDimA || !paddingA || !strideA)))
        return bad_param("%s: an output pointer is null", api);
    if (!d->is_set)
        return bad_param("%s: the descriptor was never set", api);
    *mode = (mcdnnPoolingMode_t)d->mode;
    *maxpoolingNanOpt = (mcdnnNanPropagation_t)d->maxpoolingNanOpt;
    *nbDims = d->nbDims;
    for (int i = 0; i < nbDimsRequested && i < d->nbDims; i++) {
        windowDimA[i] = d->windowDimA[i];
        paddingA[i] = d->paddingA[i];
        strideA[i] = d->strideA[i];
    }
    return MCDNN_STATUS_SUCCESS;
}

/* outputDim = 1 + (inputDim + 2*padding - windowDim) / poolingStride, C integer division. */
static mcdnnStatus_t pooled_dims(const struct mcdnnPoolingStruct *p, const struct mcdnnTensorStruct *t, int *out,
                                 const char *api)
{
    if (!p->is_set)
        return bad_param("%s: the pooling descriptor was never set", api);
    if (!t->is_set)
        return bad_param("%s: the input tensor descriptor was never set", api);
    if (t->nbDims != p->nbDims + 2)
        return bad_param("%s: a %d-D pooling needs a %d-D input tensor, got %d-D", api, p->nbDims, p->nbDims + 2,
                         t->nbDims);
    out[0] = t->dimA[0];
    out[1] = t->dimA[1];
    for (int i = 0; i < p->nbDims; i++) {
        out[i + 2] = 1 + (t->dimA[i + 2] + 2 * p->paddingA[i] - p->windowDimA[i]) / p->strideA[i];
        if (out[i + 2] <= 0)
            return bad_param("%s: the window %d is larger than the padded input %d in spatial dimension %d", api,
                             p->windowDimA[i], t->dimA[i + 2] + 2 * p->paddingA[i], i);
    }
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetPoolingNdForwardOutputDim(const mcdnnPoolingDescriptor_t poolingDesc,
                                                             const mcdnnTensorDescriptor_t inputTensorDesc,
                                                             int nbDims, int outputTensorDimA[])
{
    const char *api = "mcdnnGetPoolingNdForwardOutputDim";
    struct mcdnnPoolingStruct *p = live_pooling(poolingDesc, api);
    struct mcdnnTensorStruct *t = p ? opemu_mcdnn_live_tensor(inputTensorDesc, api) : NULL;
    if (t == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (outputTensorDimA == NULL)
        return bad_param("%s: outputTensorDimA is null", api);
    if (nbDims != t->nbDims)
        return bad_param("%s: nbDims %d differs from the input tensor's %d", api, nbDims, t->nbDims);
    int out[MCDNN_DIM_MAX];
    mcdnnStatus_t rc = pooled_dims(p, t, out, api);
    if (rc)
        return rc;
    memcpy(outputTensorDimA, out, (size_t)nbDims * sizeof(int));
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetPooling2dForwardOutputDim(const mcdnnPoolingDescriptor_t poolingDesc,
                                                             const mcdnnTensorDescriptor_t inputTensorDesc, int *n,
                                                             int *c, int *h, int *w)
{
    const char *api = "mcdnnGetPooling2dForwardOutputDim";
    struct mcdnnPoolingStruct *p = live_pooling(poolingDesc, api);
    struct mcdnnTensorStruct *t = p ? opemu_mcdnn_live_tensor(inputTensorDesc, api) : NULL;
    if (t == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!n || !c || !h || !w)
        return bad_param("%s: an output pointer is null", api);
    if (p->nbDims != 2)
        return bad_param("%s: the pooling descriptor is %d-D, not 2-D", api, p->nbDims);
    int out[MCDNN_DIM_MAX];
    mcdnnStatus_t rc = pooled_dims(p, t, out, api);
    if (rc)
        return rc;
    *n = out[0];
    *c = out[1];
    *h = out[2];
    *w = out[3];
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyPoolingDescriptor(mcdnnPoolingDescriptor_t poolingDesc)
{
    return opemu_mcdnn_destroy(poolingDesc, OPEMU_KIND_MCDNN_POOLING, "mcdnnPoolingDescriptor_t",
                               "mcdnnDestroyPoolingDescriptor");
}
