/* mcDNN tensor descriptors: create, set (4-D with a format or strides, N-D with strides or a format),
 * get, size in bytes, destroy (cuDNN 8.5's rules, renamed: reference mcdnn.md §3). */
#include <stdlib.h>
#include "mcdnn_internal.h"

#define MAX_ELEMENTS 2147483647LL
#define bad_param(...) opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, __VA_ARGS__)

static int element_size(mcdnnDataType_t type) { return opemu_mcdnn_element_size(type); }

struct mcdnnTensorStruct *opemu_mcdnn_live_tensor(const void *desc, const char *api)
{
    return opemu_mcdnn_live(desc, OPEMU_KIND_MCDNN_TENSOR, "mcdnnTensorDescriptor_t", api);
}

static struct mcdnnTensorStruct *live_tensor(const void *desc, const char *api)
{
    return opemu_mcdnn_live_tensor(desc, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateTensorDescriptor(mcdnnTensorDescriptor_t *tensorDesc)
{
    if (tensorDesc == NULL)
        return bad_param("mcdnnCreateTensorDescriptor: tensorDesc is null");
    struct mcdnnTensorStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    opemu_handle_add(d, OPEMU_KIND_MCDNN_TENSOR);
    *tensorDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyTensorDescriptor(mcdnnTensorDescriptor_t tensorDesc)
{
    if (tensorDesc == NULL)
        return MCDNN_STATUS_SUCCESS;
    if (!live_tensor(tensorDesc, "mcdnnDestroyTensorDescriptor"))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(tensorDesc);
    free(tensorDesc);
    return MCDNN_STATUS_SUCCESS;
}

/* Validates and stores dims/strides (already checked non-negative by the caller). */
static mcdnnStatus_t store_tensor(struct mcdnnTensorStruct *d, mcdnnDataType_t dataType, int nbDims,
                                  const int *dims, const int *strides, const char *api)
{
    if (element_size(dataType) == 0)
        return bad_param("%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    long long elements = 1;
    for (int i = 0; i < nbDims; i++) {
        if (dims[i] <= 0)
            return bad_param("%s: dimension %d is %d: every dimension must be positive", api, i, dims[i]);
        if (strides[i] < 0)
            return bad_param("%s: stride %d is %d: strides must not be negative", api, i, strides[i]);
        elements *= dims[i];
        if (elements > MAX_ELEMENTS) {
            opemu_error_message(MCDNN_STATUS_NOT_SUPPORTED, "the tensor exceeds 2 Giga-elements");
            return MCDNN_STATUS_NOT_SUPPORTED;
        }
    }
    d->dataType = dataType;
    d->nbDims = nbDims;
    for (int i = 0; i < MCDNN_DIM_MAX; i++) {
        d->dimA[i] = i < nbDims ? dims[i] : 0;
        d->strideA[i] = i < nbDims ? strides[i] : 0;
    }
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

/* Packed strides of `format` (NCHW: row-major; NHWC: channels innermost, then the spatial dims). */
static mcdnnStatus_t packed_strides(mcdnnTensorFormat_t format, int nbDims, const int *dims, int *strides,
                                    const char *api)
{
    if (format == MCDNN_TENSOR_NCHW) {
        long long s = 1;
        for (int i = nbDims - 1; i >= 0; i--) {
            strides[i] = (int)s;
            s *= dims[i] > 0 ? dims[i] : 1;
        }
        return MCDNN_STATUS_SUCCESS;
    }
    if (format == MCDNN_TENSOR_NHWC) {
        long long s = 1;
        strides[1] = 1;
        s = dims[1] > 0 ? dims[1] : 1;
        for (int i = nbDims - 1; i >= 2; i--) {
            strides[i] = (int)s;
            s *= dims[i] > 0 ? dims[i] : 1;
        }
        strides[0] = (int)s;
        return MCDNN_STATUS_SUCCESS;
    }
    if (format == MCDNN_TENSOR_NCHW_VECT_C) {
        opemu_error_message(MCDNN_STATUS_NOT_SUPPORTED, "MCDNN_TENSOR_NCHW_VECT_C tensors are not supported by opemu");
        return MCDNN_STATUS_NOT_SUPPORTED;
    }
    return bad_param("%s: invalid mcdnnTensorFormat_t %d", api, (int)format);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetTensor4dDescriptor(mcdnnTensorDescriptor_t tensorDesc, mcdnnTensorFormat_t format,
                                                      mcdnnDataType_t dataType, int n, int c, int h, int w)
{
    const char *api = "mcdnnSetTensor4dDescriptor";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    int dims[4] = {n, c, h, w}, strides[4];
    if ((unsigned)format > MCDNN_TENSOR_NCHW_VECT_C)
        return bad_param("%s: invalid mcdnnTensorFormat_t %d", api, (int)format);
    if (element_size(dataType) == 0)
        return bad_param("%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    mcdnnStatus_t rc = packed_strides(format, 4, dims, strides, api);
    return rc ? rc : store_tensor(d, dataType, 4, dims, strides, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetTensor4dDescriptorEx(mcdnnTensorDescriptor_t tensorDesc,
                                                        mcdnnDataType_t dataType, int n, int c, int h, int w,
                                                        int nStride, int cStride, int hStride, int wStride)
{
    const char *api = "mcdnnSetTensor4dDescriptorEx";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    int dims[4] = {n, c, h, w}, strides[4] = {nStride, cStride, hStride, wStride};
    return store_tensor(d, dataType, 4, dims, strides, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetTensor4dDescriptor(const mcdnnTensorDescriptor_t tensorDesc,
                                                      mcdnnDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                      int *nStride, int *cStride, int *hStride, int *wStride)
{
    const char *api = "mcdnnGetTensor4dDescriptor";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!dataType || !n || !c || !h || !w || !nStride || !cStride || !hStride || !wStride)
        return bad_param("%s: an output pointer is null", api);
    if (!d->is_set)
        return bad_param("%s: the descriptor was never set", api);
    *dataType = (mcdnnDataType_t)d->dataType;
    int *dims[4] = {n, c, h, w}, *strides[4] = {nStride, cStride, hStride, wStride};
    for (int i = 0; i < 4; i++) { /* the first four dimensions of an N-d descriptor */
        *dims[i] = i < d->nbDims ? d->dimA[i] : 1;
        *strides[i] = i < d->nbDims ? d->strideA[i] : 1;
    }
    return MCDNN_STATUS_SUCCESS;
}

static mcdnnStatus_t check_nb_dims(int nbDims, const char *api)
{
    if (nbDims < 3)
        return bad_param("%s: nbDims %d is below 3", api, nbDims);
    if (nbDims > MCDNN_DIM_MAX) {
        opemu_error_message(MCDNN_STATUS_NOT_SUPPORTED, "nbDims is above MCDNN_DIM_MAX (8)");
        return MCDNN_STATUS_NOT_SUPPORTED;
    }
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetTensorNdDescriptor(mcdnnTensorDescriptor_t tensorDesc, mcdnnDataType_t dataType,
                                                      int nbDims, const int dimA[], const int strideA[])
{
    const char *api = "mcdnnSetTensorNdDescriptor";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (dimA == NULL || strideA == NULL)
        return bad_param("%s: dimA and strideA must not be null", api);
    mcdnnStatus_t rc = check_nb_dims(nbDims, api);
    return rc ? rc : store_tensor(d, dataType, nbDims, dimA, strideA, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetTensorNdDescriptorEx(mcdnnTensorDescriptor_t tensorDesc,
                                                        mcdnnTensorFormat_t format, mcdnnDataType_t dataType,
                                                        int nbDims, const int dimA[])
{
    const char *api = "mcdnnSetTensorNdDescriptorEx";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (dimA == NULL)
        return bad_param("%s: dimA must not be null", api);
    mcdnnStatus_t rc = check_nb_dims(nbDims, api);
    if (rc)
        return rc;
    if ((unsigned)format > MCDNN_TENSOR_NCHW_VECT_C)
        return bad_param("%s: invalid mcdnnTensorFormat_t %d", api, (int)format);
    if (element_size(dataType) == 0)
        return bad_param("%s: invalid mcdnnDataType_t %d", api, (int)dataType);
    int strides[MCDNN_DIM_MAX];
    rc = packed_strides(format, nbDims, dimA, strides, api);
    return rc ? rc : store_tensor(d, dataType, nbDims, dimA, strides, api);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetTensorNdDescriptor(const mcdnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                      mcdnnDataType_t *dataType, int *nbDims, int dimA[],
                                                      int strideA[])
{
    const char *api = "mcdnnGetTensorNdDescriptor";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (nbDimsRequested < 0)
        return bad_param("%s: nbDimsRequested %d is negative", api, nbDimsRequested);
    if (dataType == NULL || nbDims == NULL || (nbDimsRequested > 0 && (dimA == NULL || strideA == NULL)))
        return bad_param("%s: an output pointer is null", api);
    if (!d->is_set)
        return bad_param("%s: the descriptor was never set", api);
    *dataType = (mcdnnDataType_t)d->dataType;
    *nbDims = d->nbDims;
    for (int i = 0; i < nbDimsRequested && i < d->nbDims; i++) {
        dimA[i] = d->dimA[i];
        strideA[i] = d->strideA[i];
    }
    return MCDNN_STATUS_SUCCESS;
}

/* Bytes from the first element to one past the last one the strides reach. */
OPEMU_EXPORT mcdnnStatus_t mcdnnGetTensorSizeInBytes(const mcdnnTensorDescriptor_t tensorDesc, size_t *size)
{
    const char *api = "mcdnnGetTensorSizeInBytes";
    struct mcdnnTensorStruct *d = live_tensor(tensorDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (size == NULL)
        return bad_param("%s: size is null", api);
    if (!d->is_set)
        return bad_param("%s: the descriptor was never set", api);
    unsigned long long last = 0;
    for (int i = 0; i < d->nbDims; i++)
        last += (unsigned long long)(d->dimA[i] - 1) * (unsigned long long)d->strideA[i];
    *size = (size_t)((last + 1) * (unsigned long long)element_size((mcdnnDataType_t)d->dataType));
    return MCDNN_STATUS_SUCCESS;
}
