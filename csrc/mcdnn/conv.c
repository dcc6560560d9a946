/* mcDNN filter and convolution descriptors, and the forward output dims (cuDNN 8 rules, renamed).
 * Cheap calls, all in C; the convolution routines and their algorithm queries are Python entry points
 * (python/opemu/ops/mcdnn/convolution.py) that read these structs (descriptors.h).
 *
 * Descriptors live in the handle table: a NULL, destroyed or foreign pointer is BAD_PARAM. */
#include <string.h>
#include "mcdnn_internal.h"

#define FAIL opemu_mcdnn_fail
#define MAX_ELEMENTS 2147483647LL
#define LIVE_FILTER(p, api) ((struct mcdnnFilterStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_FILTER, \
                                                                          "mcdnnFilterDescriptor_t", (api)))
#define LIVE_CONV(p, api) ((struct mcdnnConvolutionStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_CONVOLUTION, \
                                                                              "mcdnnConvolutionDescriptor_t", (api)))
#define LIVE_TENSOR(p, api) ((struct mcdnnTensorStruct *)opemu_mcdnn_live((p), OPEMU_KIND_MCDNN_TENSOR, \
                                                                          "mcdnnTensorDescriptor_t", (api)))

/* ---- filter descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateFilterDescriptor(mcdnnFilterDescriptor_t *filterDesc)
{
    return opemu_mcdnn_create((void **)filterDesc, sizeof(struct mcdnnFilterStruct), OPEMU_KIND_MCDNN_FILTER,
                              "mcdnnCreateFilterDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyFilterDescriptor(mcdnnFilterDescriptor_t filterDesc)
{
    return opemu_mcdnn_destroy(filterDesc, OPEMU_KIND_MCDNN_FILTER, "mcdnnFilterDescriptor_t",
                               "mcdnnDestroyFilterDescriptor");
}

static mcdnnStatus_t store_filter(struct mcdnnFilterStruct *d, mcdnnDataType_t dataType, mcdnnTensorFormat_t format,
                                  int nbDims, const int *dims, const char *api)
{
    if (opemu_mcdnn_element_size(dataType) == 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    if ((unsigned)format > MCDNN_TENSOR_NCHW_VECT_C)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnTensorFormat_t %d", api, (int)format);
    long long elements = 1;
    for (int i = 0; i < nbDims; i++) {
        if (dims[i] <= 0)
            return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: filter dimension %d is %d: every dimension must be positive",
                        api, i, dims[i]);
        elements *= dims[i];
        if (elements > MAX_ELEMENTS)
            return FAIL(MCDNN_STATUS_NOT_SUPPORTED, "%s: the filter exceeds 2 Giga-elements", api);
    }
    mcdnnStatus_t rc = opemu_mcdnn_vect_check(dataType, format, nbDims, dims, api);
    if (rc)
        return rc;
    d->dataType = dataType;
    d->format = format;
    d->nbDims = nbDims;
    for (int i = 0; i < MCDNN_DIM_MAX; i++)
        d->dimA[i] = i < nbDims ? dims[i] : 0;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetFilter4dDescriptor(mcdnnFilterDescriptor_t filterDesc, mcdnnDataType_t dataType,
                                                      mcdnnTensorFormat_t format, int k, int c, int h, int w)
{
    const char *api = "mcdnnSetFilter4dDescriptor";
    struct mcdnnFilterStruct *d = LIVE_FILTER(filterDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    int dims[4] = {k, c, h, w};
    return store_filter(d, dataType, format, 4, dims, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetFilterNdDescriptor(mcdnnFilterDescriptor_t filterDesc, mcdnnDataType_t dataType,
                                                      mcdnnTensorFormat_t format, int nbDims, const int filterDimA[])
{
    const char *api = "mcdnnSetFilterNdDescriptor";
    struct mcdnnFilterStruct *d = LIVE_FILTER(filterDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (filterDimA == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: filterDimA is null", api);
    if (nbDims < 3)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: nbDims %d is below 3", api, nbDims);
    if (nbDims > MCDNN_DIM_MAX)
        return FAIL(MCDNN_STATUS_NOT_SUPPORTED, "%s: nbDims %d is above MCDNN_DIM_MAX (8)", api, nbDims);
    return store_filter(d, dataType, format, nbDims, filterDimA, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetFilter4dDescriptor(const mcdnnFilterDescriptor_t filterDesc,
                                                      mcdnnDataType_t *dataType, mcdnnTensorFormat_t *format, int *k,
                                                      int *c, int *h, int *w)
{
    const char *api = "mcdnnGetFilter4dDescriptor";
    struct mcdnnFilterStruct *d = LIVE_FILTER(filterDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!dataType || !format || !k || !c || !h || !w)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    if (!d->is_set || d->nbDims != 4)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the descriptor does not hold a 4-D filter", api);
    *dataType = (mcdnnDataType_t)d->dataType;
    *format = (mcdnnTensorFormat_t)d->format;
    *k = d->dimA[0];
    *c = d->dimA[1];
    *h = d->dimA[2];
    *w = d->dimA[3];
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetFilterNdDescriptor(const mcdnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                      mcdnnDataType_t *dataType, mcdnnTensorFormat_t *format,
                                                      int *nbDims, int filterDimA[])
{
    const char *api = "mcdnnGetFilterNdDescriptor";
    struct mcdnnFilterStruct *d = LIVE_FILTER(filterDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (nbDimsRequested < 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: nbDimsRequested %d is negative", api, nbDimsRequested);
    if (!dataType || !format || !nbDims || (nbDimsRequested > 0 && !filterDimA))
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    if (!d->is_set)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the descriptor was never set", api);
    *dataType = (mcdnnDataType_t)d->dataType;
    *format = (mcdnnTensorFormat_t)d->format;
    *nbDims = d->nbDims;
    for (int i = 0; i < nbDimsRequested && i < d->nbDims; i++)
        filterDimA[i] = d->dimA[i];
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetFilterSizeInBytes(const mcdnnFilterDescriptor_t filterDesc, size_t *size)
{
    const char *api = "mcdnnGetFilterSizeInBytes";
    struct mcdnnFilterStruct *d = LIVE_FILTER(filterDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (size == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: size is null", api);
    if (!d->is_set)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the descriptor was never set", api);
    size_t bytes = (size_t)opemu_mcdnn_element_size(d->dataType);
    for (int i = 0; i < d->nbDims; i++)
        bytes *= (size_t)opemu_mcdnn_vect_extent(d->dataType, i, d->dimA[i]);
    *size = bytes;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- convolution descriptors ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateConvolutionDescriptor(mcdnnConvolutionDescriptor_t *convDesc)
{
    mcdnnStatus_t rc = opemu_mcdnn_create((void **)convDesc, sizeof(struct mcdnnConvolutionStruct),
                                          OPEMU_KIND_MCDNN_CONVOLUTION, "mcdnnCreateConvolutionDescriptor");
    if (rc == MCDNN_STATUS_SUCCESS) {
        (*convDesc)->groupCount = 1;
        (*convDesc)->mathType = MCDNN_DEFAULT_MATH;
        (*convDesc)->reorderType = MCDNN_DEFAULT_REORDER;
    }
    return rc;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyConvolutionDescriptor(mcdnnConvolutionDescriptor_t convDesc)
{
    return opemu_mcdnn_destroy(convDesc, OPEMU_KIND_MCDNN_CONVOLUTION, "mcdnnConvolutionDescriptor_t",
                               "mcdnnDestroyConvolutionDescriptor");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetConvolutionMathType(mcdnnConvolutionDescriptor_t convDesc,
                                                       mcdnnMathType_t mathType)
{
    const char *api = "mcdnnSetConvolutionMathType";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)mathType > MCDNN_FMA_MATH)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnMathType_t %d", api, (int)mathType);
    d->mathType = mathType;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionMathType(mcdnnConvolutionDescriptor_t convDesc,
                                                       mcdnnMathType_t *mathType)
{
    const char *api = "mcdnnGetConvolutionMathType";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (mathType == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: mathType is null", api);
    *mathType = (mcdnnMathType_t)d->mathType;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetConvolutionGroupCount(mcdnnConvolutionDescriptor_t convDesc, int groupCount)
{
    const char *api = "mcdnnSetConvolutionGroupCount";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (groupCount < 1)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: groupCount %d must be at least 1", api, groupCount);
    d->groupCount = groupCount;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionGroupCount(mcdnnConvolutionDescriptor_t convDesc, int *groupCount)
{
    const char *api = "mcdnnGetConvolutionGroupCount";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (groupCount == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: groupCount is null", api);
    *groupCount = d->groupCount;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetConvolutionReorderType(mcdnnConvolutionDescriptor_t convDesc,
                                                          mcdnnReorderType_t reorderType)
{
    const char *api = "mcdnnSetConvolutionReorderType";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)reorderType > MCDNN_NO_REORDER)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnReorderType_t %d", api, (int)reorderType);
    d->reorderType = reorderType;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionReorderType(mcdnnConvolutionDescriptor_t convDesc,
                                                          mcdnnReorderType_t *reorderType)
{
    const char *api = "mcdnnGetConvolutionReorderType";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (reorderType == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: reorderType is null", api);
    *reorderType = (mcdnnReorderType_t)d->reorderType;
    return MCDNN_STATUS_SUCCESS;
}

/* The compute types a convolution accumulates in (cuDNN's tables: HALF, BFLOAT16, FLOAT, DOUBLE, INT32). */
static int valid_compute_type(mcdnnDataType_t t)
{
    return t == MCDNN_DATA_FLOAT || t == MCDNN_DATA_DOUBLE || t == MCDNN_DATA_HALF || t == MCDNN_DATA_BFLOAT16 ||
           t == MCDNN_DATA_INT32;
}

static mcdnnStatus_t store_convolution(struct mcdnnConvolutionStruct *d, int n, const int *pad, const int *stride,
                                       const int *dilation, mcdnnConvolutionMode_t mode,
                                       mcdnnDataType_t computeType, const char *api)
{
    if ((unsigned)mode > MCDNN_CROSS_CORRELATION)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid mcdnnConvolutionMode_t %d", api, (int)mode);
    if (!valid_compute_type(computeType))
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: invalid compute type %d", api, (int)computeType);
    for (int i = 0; i < n; i++) {
        if (pad[i] < 0 || stride[i] <= 0 || dilation[i] <= 0)
            return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: spatial dimension %d has padding %d, stride %d, dilation %d: "
                        "paddings must not be negative, strides and dilations must be positive", api, i, pad[i],
                        stride[i], dilation[i]);
    }
    d->mode = mode;
    d->computeType = computeType;
    d->arrayLength = n;
    for (int i = 0; i < MCDNN_DIM_MAX; i++) {
        d->padA[i] = i < n ? pad[i] : 0;
        d->strideA[i] = i < n ? stride[i] : 0;
        d->dilationA[i] = i < n ? dilation[i] : 0;
    }
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetConvolution2dDescriptor(mcdnnConvolutionDescriptor_t convDesc, int pad_h,
                                                           int pad_w, int u, int v, int dilation_h, int dilation_w,
                                                           mcdnnConvolutionMode_t mode, mcdnnDataType_t computeType)
{
    const char *api = "mcdnnSetConvolution2dDescriptor";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    int pad[2] = {pad_h, pad_w}, stride[2] = {u, v}, dilation[2] = {dilation_h, dilation_w};
    return store_convolution(d, 2, pad, stride, dilation, mode, computeType, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolution2dDescriptor(const mcdnnConvolutionDescriptor_t convDesc, int *pad_h,
                                                           int *pad_w, int *u, int *v, int *dilation_h,
                                                           int *dilation_w, mcdnnConvolutionMode_t *mode,
                                                           mcdnnDataType_t *computeType)
{
    const char *api = "mcdnnGetConvolution2dDescriptor";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!pad_h || !pad_w || !u || !v || !dilation_h || !dilation_w || !mode || !computeType)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    if (!d->is_set || d->arrayLength != 2)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the descriptor does not hold a 2-D convolution", api);
    *pad_h = d->padA[0];
    *pad_w = d->padA[1];
    *u = d->strideA[0];
    *v = d->strideA[1];
    *dilation_h = d->dilationA[0];
    *dilation_w = d->dilationA[1];
    *mode = (mcdnnConvolutionMode_t)d->mode;
    *computeType = (mcdnnDataType_t)d->computeType;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetConvolutionNdDescriptor(mcdnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                           const int padA[], const int filterStrideA[],
                                                           const int dilationA[], mcdnnConvolutionMode_t mode,
                                                           mcdnnDataType_t computeType)
{
    const char *api = "mcdnnSetConvolutionNdDescriptor";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (arrayLength <= 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: arrayLength %d must be positive", api, arrayLength);
    if (arrayLength > MCDNN_DIM_MAX - 2)
        return FAIL(MCDNN_STATUS_NOT_SUPPORTED, "%s: arrayLength %d is above MCDNN_DIM_MAX-2 (6)", api, arrayLength);
    if (padA == NULL || filterStrideA == NULL || dilationA == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: padA, filterStrideA and dilationA must not be null", api);
    return store_convolution(d, arrayLength, padA, filterStrideA, dilationA, mode, computeType, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionNdDescriptor(const mcdnnConvolutionDescriptor_t convDesc,
                                                           int arrayLengthRequested, int *arrayLength, int padA[],
                                                           int strideA[], int dilationA[],
                                                           mcdnnConvolutionMode_t *mode, mcdnnDataType_t *computeType)
{
    const char *api = "mcdnnGetConvolutionNdDescriptor";
    struct mcdnnConvolutionStruct *d = LIVE_CONV(convDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (arrayLengthRequested < 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: arrayLengthRequested %d is negative", api, arrayLengthRequested);
    if (arrayLengthRequested > MCDNN_DIM_MAX - 2)
        return FAIL(MCDNN_STATUS_NOT_SUPPORTED, "%s: arrayLengthRequested %d is above MCDNN_DIM_MAX-2 (6)", api,
                    arrayLengthRequested);
    if (!arrayLength || !mode || !computeType ||
        (arrayLengthRequested > 0 && (!padA || !strideA || !dilationA)))
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    if (!d->is_set)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the descriptor was never set", api);
    *arrayLength = d->arrayLength;
    *mode = (mcdnnConvolutionMode_t)d->mode;
    *computeType = (mcdnnDataType_t)d->computeType;
    for (int i = 0; i < arrayLengthRequested && i < d->arrayLength; i++) {
        padA[i] = d->padA[i];
        strideA[i] = d->strideA[i];
        dilationA[i] = d->dilationA[i];
    }
    return MCDNN_STATUS_SUCCESS;
}

/* out = N, K, then 1 + (in + 2*pad - ((filter-1)*dilation + 1)) / stride per spatial dimension. */
static mcdnnStatus_t forward_dims(const struct mcdnnConvolutionStruct *conv, const struct mcdnnTensorStruct *x,
                                  const struct mcdnnFilterStruct *w, int *out, const char *api)
{
    if (!conv->is_set || !x->is_set || !w->is_set)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: a descriptor was created but never set", api);
    if (w->nbDims != x->nbDims)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the filter has %d dimensions, the input tensor %d", api, w->nbDims,
                    x->nbDims);
    if (conv->arrayLength != x->nbDims - 2)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the convolution has %d spatial dimensions, the input tensor %d", api,
                    conv->arrayLength, x->nbDims - 2);
    if ((long long)w->dimA[1] * conv->groupCount != x->dimA[1])
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the input has %d feature maps, the filter %d per group x %d groups",
                    api, x->dimA[1], w->dimA[1], conv->groupCount);
    if (w->dimA[0] % conv->groupCount != 0)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the filter's %d outputs do not divide into %d groups", api,
                    w->dimA[0], conv->groupCount);
    out[0] = x->dimA[0];
    out[1] = w->dimA[0];
    for (int i = 0; i < conv->arrayLength; i++) {
        long long span = (long long)(w->dimA[i + 2] - 1) * conv->dilationA[i] + 1;
        long long padded = (long long)x->dimA[i + 2] + 2LL * conv->padA[i];
        if (span > padded)
            return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the dilated filter (%lld) is larger than the padded input (%lld) "
                        "in spatial dimension %d", api, span, padded, i);
        out[i + 2] = (int)(1 + (padded - span) / conv->strideA[i]);
    }
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionNdForwardOutputDim(const mcdnnConvolutionDescriptor_t convDesc,
                                                                 const mcdnnTensorDescriptor_t inputTensorDesc,
                                                                 const mcdnnFilterDescriptor_t filterDesc, int nbDims,
                                                                 int tensorOuputDimA[])
{
    const char *api = "mcdnnGetConvolutionNdForwardOutputDim";
    struct mcdnnConvolutionStruct *conv = LIVE_CONV(convDesc, api);
    struct mcdnnTensorStruct *x = conv ? LIVE_TENSOR(inputTensorDesc, api) : NULL;
    struct mcdnnFilterStruct *w = x ? LIVE_FILTER(filterDesc, api) : NULL;
    if (w == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (tensorOuputDimA == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: tensorOuputDimA is null", api);
    int out[MCDNN_DIM_MAX];
    mcdnnStatus_t rc = forward_dims(conv, x, w, out, api);
    if (rc)
        return rc;
    if (nbDims < 0 || nbDims > x->nbDims)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: nbDims %d is outside [0, %d]", api, nbDims, x->nbDims);
    memcpy(tensorOuputDimA, out, (size_t)nbDims * sizeof(int));
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolution2dForwardOutputDim(const mcdnnConvolutionDescriptor_t convDesc,
                                                                 const mcdnnTensorDescriptor_t inputTensorDesc,
                                                                 const mcdnnFilterDescriptor_t filterDesc, int *n,
                                                                 int *c, int *h, int *w)
{
    const char *api = "mcdnnGetConvolution2dForwardOutputDim";
    struct mcdnnConvolutionStruct *conv = LIVE_CONV(convDesc, api);
    struct mcdnnTensorStruct *x = conv ? LIVE_TENSOR(inputTensorDesc, api) : NULL;
    struct mcdnnFilterStruct *f = x ? LIVE_FILTER(filterDesc, api) : NULL;
    if (f == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!n || !c || !h || !w)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: an output pointer is null", api);
    if (x->is_set && x->nbDims != 4)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: the input tensor is %d-D, not 4-D", api, x->nbDims);
    int out[MCDNN_DIM_MAX];
    mcdnnStatus_t rc = forward_dims(conv, x, f, out, api);
    if (rc)
        return rc;
    *n = out[0];
    *c = out[1];
    *h = out[2];
    *w = out[3];
    return MCDNN_STATUS_SUCCESS;
}

/* ---- algorithm counts: every value of the algorithm enumerations, emulated or not ---- */

static mcdnnStatus_t algorithm_count(mcdnnHandle_t handle, int *count, int value, const char *api)
{
    if (!opemu_mcdnn_live(handle, OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t", api))
        return MCDNN_STATUS_BAD_PARAM;
    if (count == NULL)
        return FAIL(MCDNN_STATUS_BAD_PARAM, "%s: count is null", api);
    *count = value;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionForwardAlgorithmMaxCount(mcdnnHandle_t handle, int *count)
{
    return algorithm_count(handle, count, MCDNN_CONVOLUTION_FWD_ALGO_COUNT,
                           "mcdnnGetConvolutionForwardAlgorithmMaxCount");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionBackwardDataAlgorithmMaxCount(mcdnnHandle_t handle, int *count)
{
    return algorithm_count(handle, count, MCDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                           "mcdnnGetConvolutionBackwardDataAlgorithmMaxCount");
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetConvolutionBackwardFilterAlgorithmMaxCount(mcdnnHandle_t handle, int *count)
{
    return algorithm_count(handle, count, MCDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                           "mcdnnGetConvolutionBackwardFilterAlgorithmMaxCount");
}
