/* mcDNN's library calls (versions, status strings), the handle and the work queued on its stream,
 * and tensor descriptors (the other descriptors: activation.c, pooling.c, lrn.c, norm.c, conv.c,
 * opdesc.c, algorithm.c). Cheap calls, all in C; the compute routines are Python entry points that read these
 * descriptors (descriptors.h) and queue their work on the handle's stream via opemu_mcdnn_submit.
 *
 * Every handle and descriptor is registered in the handle table, so a NULL, destroyed or foreign
 * pointer is MCDNN_STATUS_BAD_PARAM, never a dereference. Parameter rules are cuDNN 8.5's (reference
 * mcdnn.md §2-§3), renamed. */
#include <stdlib.h>
#include "mcdnn_internal.h"

/* 11.6: the CUDA runtime API level MACA's compatibility layer targets (reference §1b). */
#define OPEMU_MC_CUDART_VERSION 11060
#define MAX_ELEMENTS 2147483647LL

struct mcdnnContext {
    int32_t device;
    mcStream_t stream; /* NULL: the device's default stream */
};

#define bad_param(...) opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, __VA_ARGS__)

/* ---- library ---- */

OPEMU_EXPORT size_t mcdnnGetVersion(void) { return MCDNN_VERSION; }
OPEMU_EXPORT size_t mcdnnGetCudartVersion(void) { return OPEMU_MC_CUDART_VERSION; }
OPEMU_EXPORT mcdnnStatus_t mcdnnOpsInferVersionCheck(void) { return MCDNN_STATUS_SUCCESS; }
OPEMU_EXPORT mcdnnStatus_t mcdnnOpsTrainVersionCheck(void) { return MCDNN_STATUS_SUCCESS; }
/* One library under every sub-library's name: their versions always agree (the adv routines themselves are
 * not emulated; their version check only compares versions). */
OPEMU_EXPORT mcdnnStatus_t mcdnnCnnInferVersionCheck(void) { return MCDNN_STATUS_SUCCESS; }
OPEMU_EXPORT mcdnnStatus_t mcdnnCnnTrainVersionCheck(void) { return MCDNN_STATUS_SUCCESS; }
OPEMU_EXPORT mcdnnStatus_t mcdnnAdvInferVersionCheck(void) { return MCDNN_STATUS_SUCCESS; }
OPEMU_EXPORT mcdnnStatus_t mcdnnAdvTrainVersionCheck(void) { return MCDNN_STATUS_SUCCESS; }

OPEMU_EXPORT const char *mcdnnGetErrorString(mcdnnStatus_t status)
{
    static const char *names[] = {
        "MCDNN_STATUS_SUCCESS", "MCDNN_STATUS_NOT_INITIALIZED", "MCDNN_STATUS_ALLOC_FAILED",
        "MCDNN_STATUS_BAD_PARAM", "MCDNN_STATUS_INTERNAL_ERROR", "MCDNN_STATUS_INVALID_VALUE",
        "MCDNN_STATUS_ARCH_MISMATCH", "MCDNN_STATUS_MAPPING_ERROR", "MCDNN_STATUS_EXECUTION_FAILED",
        "MCDNN_STATUS_NOT_SUPPORTED", "MCDNN_STATUS_LICENSE_ERROR", "MCDNN_STATUS_RUNTIME_PREREQUISITE_MISSING",
        "MCDNN_STATUS_RUNTIME_IN_PROGRESS", "MCDNN_STATUS_RUNTIME_FP_OVERFLOW", "MCDNN_STATUS_VERSION_MISMATCH",
    };
    if ((unsigned)status < sizeof names / sizeof names[0])
        return opemu_status_text(status, names[status]);
    return "MCDNN_UNKNOWN_STATUS";
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetProperty(libraryPropertyType type, int *value)
{
    if (value == NULL)
        return bad_param("mcdnnGetProperty: value is null");
    switch (type) {
    case MAJOR_VERSION: *value = MCDNN_MAJOR; return MCDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = MCDNN_MINOR; return MCDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = MCDNN_PATCHLEVEL; return MCDNN_STATUS_SUCCESS;
    }
    return bad_param("mcdnnGetProperty: invalid libraryPropertyType %d", (int)type);
}

/* Kernels here report failures through their return values; no device-side error is ever pending. */
OPEMU_EXPORT mcdnnStatus_t mcdnnQueryRuntimeError(mcdnnHandle_t handle, mcdnnStatus_t *rstatus,
                                                   mcdnnErrQueryMode_t mode, mcdnnRuntimeTag_t *tag)
{
    if (rstatus == NULL)
        return bad_param("mcdnnQueryRuntimeError: rstatus is null");
    if ((unsigned)mode > MCDNN_ERRQUERY_BLOCKING)
        return bad_param("mcdnnQueryRuntimeError: invalid mode %d", (int)mode);
    if (mode != MCDNN_ERRQUERY_RAWCODE && !opemu_handle_is(handle, OPEMU_KIND_MCDNN_HANDLE))
        return bad_param("mcdnnQueryRuntimeError: %p is not a live mcdnnHandle_t", (void *)handle);
    *rstatus = MCDNN_STATUS_SUCCESS;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- handle ---- */

static int live_handle(mcdnnHandle_t handle, const char *api)
{
    if (handle == NULL || !opemu_handle_is(handle, OPEMU_KIND_MCDNN_HANDLE)) {
        bad_param("%s: %p is not a live mcdnnHandle_t", api, (void *)handle);
        return 0;
    }
    return 1;
}

/* The handle belongs to the calling thread's current device. The embedded interpreter starts here,
 * so a failure to start is this call's status (NOT_INITIALIZED), never a crash later. */
OPEMU_EXPORT mcdnnStatus_t mcdnnCreate(mcdnnHandle_t *handle)
{
    if (handle == NULL)
        return bad_param("mcdnnCreate: handle is null");
    int device = opemu_mc_current_device();
    if (opemu_primary_context(device) == NULL) {
        opemu_error_message(MCDNN_STATUS_NOT_INITIALIZED, "mcdnnCreate: the current device is not usable");
        return MCDNN_STATUS_NOT_INITIALIZED;
    }
    if (opemu_python_ready("mcdnnCreate") != 0)
        return MCDNN_STATUS_NOT_INITIALIZED;
    struct mcdnnContext *h = calloc(1, sizeof *h);
    if (h == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    h->device = device;
    opemu_handle_add(h, OPEMU_KIND_MCDNN_HANDLE);
    *handle = h;
    return MCDNN_STATUS_SUCCESS;
}

/* Destroying a handle waits for the device, as cudnnDestroy's implicit device synchronisation. */
OPEMU_EXPORT mcdnnStatus_t mcdnnDestroy(mcdnnHandle_t handle)
{
    if (!live_handle(handle, "mcdnnDestroy"))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_device_drain(handle->device);
    opemu_handle_remove(handle);
    free(handle);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetStream(mcdnnHandle_t handle, mcStream_t streamId)
{
    if (!live_handle(handle, "mcdnnSetStream"))
        return MCDNN_STATUS_BAD_PARAM;
    if (streamId != NULL) {
        if (!opemu_handle_is(streamId, OPEMU_KIND_STREAM))
            return bad_param("mcdnnSetStream: %p is not a live mcStream_t", (void *)streamId);
        if (opemu_stream_device((opemu_stream *)streamId) != handle->device) {
            opemu_error_message(MCDNN_STATUS_MAPPING_ERROR, "mcdnnSetStream: the stream belongs to another device "
                                "than the handle");
            return MCDNN_STATUS_MAPPING_ERROR;
        }
    }
    handle->stream = streamId;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetStream(mcdnnHandle_t handle, mcStream_t *streamId)
{
    if (!live_handle(handle, "mcdnnGetStream"))
        return MCDNN_STATUS_BAD_PARAM;
    if (streamId == NULL)
        return bad_param("mcdnnGetStream: streamId is null");
    *streamId = handle->stream;
    return MCDNN_STATUS_SUCCESS;
}

/* ---- work on the handle's stream ---- */

typedef struct {
    uint64_t task_id;
    int ran;
} mcdnn_task;

static int run_task(void *payload)
{
    mcdnn_task *t = payload;
    t->ran = 1;
    return opemu_py_mcdnn_run(t->task_id);
}

static void drop_task(void *payload)
{
    mcdnn_task *t = payload;
    if (!t->ran)
        opemu_py_mcdnn_drop(t->task_id);
    free(t);
}

int opemu_mcdnn_submit(mcdnnHandle_t handle, uint64_t task_id)
{
    opemu_stream *s;
    if (handle->stream == NULL) {
        opemu_context *ctx = opemu_primary_context(handle->device);
        s = ctx ? ctx->default_stream : NULL;
    } else if (opemu_handle_is(handle->stream, OPEMU_KIND_STREAM)) {
        s = (opemu_stream *)handle->stream;
    } else {
        s = NULL;
    }
    if (s == NULL) {
        opemu_py_mcdnn_drop(task_id);
        opemu_error_message(MCDNN_STATUS_BAD_PARAM, "the handle's stream was destroyed: set a live stream with "
                            "mcdnnSetStream");
        return -1;
    }
    mcdnn_task *t = calloc(1, sizeof *t);
    t->task_id = task_id;
    return opemu_stream_submit(s, run_task, drop_task, t);
}

/* ---- tensor descriptors ---- */

static int element_size(mcdnnDataType_t type) { return opemu_mcdnn_element_size(type); }

static struct mcdnnTensorStruct *live_tensor(const void *desc, const char *api)
{
    if (desc == NULL || !opemu_handle_is(desc, OPEMU_KIND_MCDNN_TENSOR)) {
        bad_param("%s: %p is not a live mcdnnTensorDescriptor_t", api, desc);
        return NULL;
    }
    return (struct mcdnnTensorStruct *)desc;
}

struct mcdnnTensorStruct *opemu_mcdnn_live_tensor(const void *desc, const char *api) { return live_tensor(desc, api); }

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
        elements *= opemu_mcdnn_vect_extent(dataType, i, dims[i]);
        if (elements > MAX_ELEMENTS) {
            opemu_error_message(MCDNN_STATUS_NOT_SUPPORTED, "the tensor exceeds 2 Giga-elements");
            return MCDNN_STATUS_NOT_SUPPORTED;
        }
    }
    mcdnnStatus_t rc = opemu_mcdnn_vect_channels(dataType, nbDims, dims, api);
    if (rc)
        return rc;
    d->dataType = dataType;
    d->nbDims = nbDims;
    for (int i = 0; i < MCDNN_DIM_MAX; i++) {
        d->dimA[i] = i < nbDims ? dims[i] : 0;
        d->strideA[i] = i < nbDims ? strides[i] : 0;
    }
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

/* Packed strides of `format` (NCHW: row-major; NHWC: channels innermost, then the spatial dims; NCHW_VECT_C:
 * row-major over vectors of channels, mcdnn/vector_formats.c). */
static mcdnnStatus_t packed_strides(mcdnnTensorFormat_t format, mcdnnDataType_t dataType, int nbDims, const int *dims,
                                    int *strides, const char *api)
{
    mcdnnStatus_t rc = opemu_mcdnn_vect_check(dataType, format, nbDims, dims, api);
    if (rc || format == MCDNN_TENSOR_NCHW_VECT_C)
        return rc ? rc : opemu_mcdnn_vect_strides(dataType, nbDims, dims, strides, api);
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
    mcdnnStatus_t rc = packed_strides(format, dataType, 4, dims, strides, api);
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
    rc = packed_strides(format, dataType, nbDims, dimA, strides, api);
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
        last += (unsigned long long)(opemu_mcdnn_vect_extent(d->dataType, i, d->dimA[i]) - 1) *
                (unsigned long long)d->strideA[i];
    *size = (size_t)((last + 1) * (unsigned long long)element_size((mcdnnDataType_t)d->dataType));
    return MCDNN_STATUS_SUCCESS;
}
