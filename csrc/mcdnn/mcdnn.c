/* mcDNN objects: the library handle and its stream, activation and LRN descriptors, versions and
 * status strings (tensor descriptors: tensor.c, pooling descriptors: pooling.c). Cheap calls, all in C; the compute routines are Python entry points that read these
 * descriptors (descriptors.h) and queue their work on the handle's stream via opemu_mcdnn_submit.
 *
 * Every handle and descriptor is registered in the handle table, so a NULL, destroyed or foreign
 * pointer is MCDNN_STATUS_BAD_PARAM, never a dereference. Parameter rules are cuDNN 8.5's (reference
 * mcdnn.md §2-§3), renamed. */
#include <stdlib.h>
#include "mcdnn_internal.h"

/* 11.6: the CUDA runtime API level MACA's compatibility layer targets (reference §1b). */
#define OPEMU_MC_CUDART_VERSION 11060

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

/* ---- activation descriptors ---- */

static struct mcdnnActivationStruct *live_activation(const void *desc, const char *api)
{
    if (desc == NULL || !opemu_handle_is(desc, OPEMU_KIND_MCDNN_ACTIVATION)) {
        bad_param("%s: %p is not a live mcdnnActivationDescriptor_t", api, desc);
        return NULL;
    }
    return (struct mcdnnActivationStruct *)desc;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateActivationDescriptor(mcdnnActivationDescriptor_t *activationDesc)
{
    if (activationDesc == NULL)
        return bad_param("mcdnnCreateActivationDescriptor: activationDesc is null");
    struct mcdnnActivationStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    d->swishBeta = 1.0; /* swish(x) = x * sigmoid(x) until mcdnnSetActivationDescriptorSwishBeta */
    opemu_handle_add(d, OPEMU_KIND_MCDNN_ACTIVATION);
    *activationDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetActivationDescriptor(mcdnnActivationDescriptor_t activationDesc,
                                                        mcdnnActivationMode_t mode, mcdnnNanPropagation_t reluNanOpt,
                                                        double coef)
{
    const char *api = "mcdnnSetActivationDescriptor";
    struct mcdnnActivationStruct *d = live_activation(activationDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if ((unsigned)mode > MCDNN_ACTIVATION_SWISH)
        return bad_param("%s: invalid mcdnnActivationMode_t %d", api, (int)mode);
    if ((unsigned)reluNanOpt > MCDNN_PROPAGATE_NAN)
        return bad_param("%s: invalid mcdnnNanPropagation_t %d", api, (int)reluNanOpt);
    d->mode = mode;
    d->reluNanOpt = reluNanOpt;
    d->coef = coef;
    d->is_set = 1;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetActivationDescriptor(const mcdnnActivationDescriptor_t activationDesc,
                                                        mcdnnActivationMode_t *mode,
                                                        mcdnnNanPropagation_t *reluNanOpt, double *coef)
{
    const char *api = "mcdnnGetActivationDescriptor";
    struct mcdnnActivationStruct *d = live_activation(activationDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (mode == NULL || reluNanOpt == NULL || coef == NULL)
        return bad_param("%s: an output pointer is null", api);
    *mode = (mcdnnActivationMode_t)d->mode;
    *reluNanOpt = (mcdnnNanPropagation_t)d->reluNanOpt;
    *coef = d->coef;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetActivationDescriptorSwishBeta(mcdnnActivationDescriptor_t activationDesc,
                                                                 double swish_beta)
{
    struct mcdnnActivationStruct *d = live_activation(activationDesc, "mcdnnSetActivationDescriptorSwishBeta");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    d->swishBeta = swish_beta;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetActivationDescriptorSwishBeta(mcdnnActivationDescriptor_t activationDesc,
                                                                 double *swish_beta)
{
    struct mcdnnActivationStruct *d = live_activation(activationDesc, "mcdnnGetActivationDescriptorSwishBeta");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (swish_beta == NULL)
        return bad_param("mcdnnGetActivationDescriptorSwishBeta: swish_beta is null");
    *swish_beta = d->swishBeta;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyActivationDescriptor(mcdnnActivationDescriptor_t activationDesc)
{
    if (activationDesc == NULL)
        return MCDNN_STATUS_SUCCESS;
    if (!live_activation(activationDesc, "mcdnnDestroyActivationDescriptor"))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(activationDesc);
    free(activationDesc);
    return MCDNN_STATUS_SUCCESS;
}

/* ---- LRN descriptors ---- */

static struct mcdnnLRNStruct *live_lrn(const void *desc, const char *api)
{
    if (desc == NULL || !opemu_handle_is(desc, OPEMU_KIND_MCDNN_LRN)) {
        bad_param("%s: %p is not a live mcdnnLRNDescriptor_t", api, desc);
        return NULL;
    }
    return (struct mcdnnLRNStruct *)desc;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnCreateLRNDescriptor(mcdnnLRNDescriptor_t *normDesc)
{
    if (normDesc == NULL)
        return bad_param("mcdnnCreateLRNDescriptor: normDesc is null");
    struct mcdnnLRNStruct *d = calloc(1, sizeof *d);
    if (d == NULL)
        return MCDNN_STATUS_ALLOC_FAILED;
    d->lrnN = 5;
    d->lrnAlpha = 1e-4;
    d->lrnBeta = 0.75;
    d->lrnK = 2.0;
    opemu_handle_add(d, OPEMU_KIND_MCDNN_LRN);
    *normDesc = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetLRNDescriptor(mcdnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                                 double lrnBeta, double lrnK)
{
    const char *api = "mcdnnSetLRNDescriptor";
    struct mcdnnLRNStruct *d = live_lrn(normDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (lrnN < MCDNN_LRN_MIN_N || lrnN > MCDNN_LRN_MAX_N || !(lrnK >= MCDNN_LRN_MIN_K) ||
        !(lrnBeta >= MCDNN_LRN_MIN_BETA))
        return bad_param("%s: lrnN %u must be in [%d, %d], lrnK %g >= %g and lrnBeta %g >= %g", api, lrnN,
                         MCDNN_LRN_MIN_N, MCDNN_LRN_MAX_N, lrnK, MCDNN_LRN_MIN_K, lrnBeta, MCDNN_LRN_MIN_BETA);
    d->lrnN = lrnN;
    d->lrnAlpha = lrnAlpha;
    d->lrnBeta = lrnBeta;
    d->lrnK = lrnK;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetLRNDescriptor(mcdnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                                 double *lrnBeta, double *lrnK)
{
    const char *api = "mcdnnGetLRNDescriptor";
    struct mcdnnLRNStruct *d = live_lrn(normDesc, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (!lrnN || !lrnAlpha || !lrnBeta || !lrnK)
        return bad_param("%s: an output pointer is null", api);
    *lrnN = d->lrnN;
    *lrnAlpha = d->lrnAlpha;
    *lrnBeta = d->lrnBeta;
    *lrnK = d->lrnK;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnDestroyLRNDescriptor(mcdnnLRNDescriptor_t lrnDesc)
{
    if (lrnDesc == NULL)
        return MCDNN_STATUS_SUCCESS;
    if (!live_lrn(lrnDesc, "mcdnnDestroyLRNDescriptor"))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(lrnDesc);
    free(lrnDesc);
    return MCDNN_STATUS_SUCCESS;
}
