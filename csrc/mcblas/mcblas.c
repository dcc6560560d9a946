/* mcBLAS handle and helper functions: create/destroy, stream, pointer/math/atomics modes, workspace,
 * versions and status strings. Cheap calls, all in C; the routines (level 1-3, the vector/matrix
 * copies) are Python entry points that read the handle (handle.h) and queue their work on its
 * stream with opemu_mcblas_submit.
 *
 * The handle is registered in the handle table: a NULL, destroyed or foreign handle is
 * MCBLAS_STATUS_NOT_INITIALIZED (cuBLAS's status for a handle it does not know), never a
 * dereference. Statuses and their order are cuBLAS 11's, renamed. */
#include <stdlib.h>
#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/memory.h"
#include "core/stream.h"
#include "mc/mc.h"
#include "mcblas/handle.h"

/* mcBLAS answers the CUDA runtime level MACA's compatibility layer targets, as mcDNN does. */
#define OPEMU_MCBLAS_CUDART_VERSION 11060
/* cuBLAS: "The workspace pointer has to be aligned to at least 256 bytes". */
#define WORKSPACE_ALIGNMENT 256

/* Records the message (aclGetRecentErrMsg, the log) and answers the status. */
#define fail(status, ...) ((mcblasStatus_t)opemu_fail((status), __VA_ARGS__))

static int live(mcblasHandle_t handle)
{
    return handle != NULL && opemu_handle_is(handle, OPEMU_KIND_MCBLAS_HANDLE);
}

#define REQUIRE_LIVE(handle, api)                                                                         \
    do {                                                                                                  \
        if (!live(handle))                                                                                \
            return fail(MCBLAS_STATUS_NOT_INITIALIZED, "%s: %p is not a live mcblasHandle_t (destroyed " \
                        "or never created)", api, (void *)(handle));                                      \
    } while (0)

/* A handle setting read back: NOT_INITIALIZED for a dead handle, INVALID_VALUE for a null output. */
#define GETTER(api, type, out, field)                                                                     \
    OPEMU_EXPORT mcblasStatus_t api(mcblasHandle_t handle, type *out)                                     \
    {                                                                                                     \
        REQUIRE_LIVE(handle, #api);                                                                       \
        if (out == NULL)                                                                                  \
            return fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %s is null", #api, #out);                       \
        *out = (type)handle->field;                                                                       \
        return MCBLAS_STATUS_SUCCESS;                                                                     \
    }

/* A handle setting: NOT_INITIALIZED for a dead handle, INVALID_VALUE for a value outside `valid`. */
#define SETTER(api, type, in, field, valid)                                                               \
    OPEMU_EXPORT mcblasStatus_t api(mcblasHandle_t handle, type in)                                       \
    {                                                                                                     \
        REQUIRE_LIVE(handle, #api);                                                                       \
        if (!(valid))                                                                                     \
            return fail(MCBLAS_STATUS_INVALID_VALUE, "%s: invalid %s %d", #api, #in, (int)in);            \
        handle->field = in;                                                                               \
        return MCBLAS_STATUS_SUCCESS;                                                                     \
    }

/* ---- library ---- */

OPEMU_EXPORT mcblasStatus_t mcblasGetVersion(mcblasHandle_t handle, int *version)
{
    (void)handle; /* cuBLAS answers without looking at the handle */
    if (version == NULL)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasGetVersion: version is null");
    *version = MCBLAS_VERSION;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasGetProperty(libraryPropertyType type, int *value)
{
    if (value == NULL)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasGetProperty: value is null");
    switch (type) {
    case MAJOR_VERSION: *value = MCBLAS_VER_MAJOR; return MCBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = MCBLAS_VER_MINOR; return MCBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = MCBLAS_VER_PATCH; return MCBLAS_STATUS_SUCCESS;
    }
    return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasGetProperty: invalid libraryPropertyType %d", (int)type);
}

OPEMU_EXPORT size_t mcblasGetCudartVersion(void) { return OPEMU_MCBLAS_CUDART_VERSION; }

static const struct {
    mcblasStatus_t status;
    const char *name;
    const char *text;
} statuses[] = {
    {MCBLAS_STATUS_SUCCESS, "MCBLAS_STATUS_SUCCESS", "the operation completed successfully"},
    {MCBLAS_STATUS_NOT_INITIALIZED, "MCBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
    {MCBLAS_STATUS_ALLOC_FAILED, "MCBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {MCBLAS_STATUS_INVALID_VALUE, "MCBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"},
    {MCBLAS_STATUS_ARCH_MISMATCH, "MCBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required"},
    {MCBLAS_STATUS_MAPPING_ERROR, "MCBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"},
    {MCBLAS_STATUS_EXECUTION_FAILED, "MCBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"},
    {MCBLAS_STATUS_INTERNAL_ERROR, "MCBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"},
    {MCBLAS_STATUS_NOT_SUPPORTED, "MCBLAS_STATUS_NOT_SUPPORTED", "the feature required is not supported"},
    {MCBLAS_STATUS_LICENSE_ERROR, "MCBLAS_STATUS_LICENSE_ERROR", "the functionality requested requires some license"},
};

OPEMU_EXPORT const char *mcblasGetStatusName(mcblasStatus_t status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i].status == status)
            return statuses[i].name;
    return "MCBLAS_STATUS_UNKNOWN";
}

OPEMU_EXPORT const char *mcblasGetStatusString(mcblasStatus_t status)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i].status == status)
            return statuses[i].text;
    return "unknown error";
}

/* ---- handle ---- */

/* The handle belongs to the calling thread's current device. The embedded interpreter starts here,
 * so a failure to start is this call's status (NOT_INITIALIZED), never a crash later. */
OPEMU_EXPORT mcblasStatus_t mcblasCreate(mcblasHandle_t *handle)
{
    if (handle == NULL)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasCreate: handle is null");
    int device = opemu_mc_current_device();
    if (opemu_primary_context(device) == NULL)
        return fail(MCBLAS_STATUS_NOT_INITIALIZED, "mcblasCreate: the current device is not usable");
    if (opemu_python_ready("mcblasCreate") != 0)
        return MCBLAS_STATUS_NOT_INITIALIZED;
    struct mcblasContext *h = calloc(1, sizeof *h);
    if (h == NULL)
        return fail(MCBLAS_STATUS_ALLOC_FAILED, "mcblasCreate: out of host memory");
    h->device = device;
    h->pointerMode = MCBLAS_POINTER_MODE_HOST;
    h->mathMode = MCBLAS_DEFAULT_MATH;
    h->atomicsMode = MCBLAS_ATOMICS_NOT_ALLOWED;
    opemu_handle_add(h, OPEMU_KIND_MCBLAS_HANDLE);
    *handle = h;
    return MCBLAS_STATUS_SUCCESS;
}

/* Destroying a handle waits for the device, as cublasDestroy's implicit device synchronisation. */
OPEMU_EXPORT mcblasStatus_t mcblasDestroy(mcblasHandle_t handle)
{
    REQUIRE_LIVE(handle, "mcblasDestroy");
    opemu_handle_remove(handle);
    opemu_device_drain(handle->device);
    free(handle);
    return MCBLAS_STATUS_SUCCESS;
}

/* Setting a stream also returns the handle to the default workspace pool, as cuBLAS documents. */
OPEMU_EXPORT mcblasStatus_t mcblasSetStream(mcblasHandle_t handle, mcStream_t streamId)
{
    REQUIRE_LIVE(handle, "mcblasSetStream");
    if (streamId != NULL) {
        if (!opemu_handle_is(streamId, OPEMU_KIND_STREAM))
            return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasSetStream: %p is not a live mcStream_t", (void *)streamId);
        if (opemu_stream_device((opemu_stream *)streamId) != handle->device)
            return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasSetStream: the stream belongs to another device than "
                        "the handle");
    }
    handle->stream = streamId;
    handle->workspace = NULL;
    handle->workspaceSize = 0;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasGetStream(mcblasHandle_t handle, mcStream_t *streamId)
{
    REQUIRE_LIVE(handle, "mcblasGetStream");
    if (streamId == NULL)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasGetStream: streamId is null");
    *streamId = handle->stream;
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasSetWorkspace(mcblasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    REQUIRE_LIVE(handle, "mcblasSetWorkspace");
    if ((uintptr_t)workspace % WORKSPACE_ALIGNMENT != 0)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasSetWorkspace: workspace %p is not aligned to %d bytes",
                    workspace, WORKSPACE_ALIGNMENT);
    if (workspace == NULL && workspaceSizeInBytes != 0)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasSetWorkspace: workspace is null but its size is %zu",
                    workspaceSizeInBytes);
    if (workspace != NULL && opemu_device_range_check(workspace, workspaceSizeInBytes) != 0)
        return fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasSetWorkspace: [%p, +%zu) is not inside one device "
                    "allocation", workspace, workspaceSizeInBytes);
    handle->workspace = workspace;
    handle->workspaceSize = workspace ? workspaceSizeInBytes : 0;
    return MCBLAS_STATUS_SUCCESS;
}

SETTER(mcblasSetPointerMode, mcblasPointerMode_t, mode, pointerMode,
       mode == MCBLAS_POINTER_MODE_HOST || mode == MCBLAS_POINTER_MODE_DEVICE)

GETTER(mcblasGetPointerMode, mcblasPointerMode_t, mode, pointerMode)

/* A math mode is one of the four modes, optionally with the reduced-precision-reduction flag. */
SETTER(mcblasSetMathMode, mcblasMath_t, mode, mathMode,
       ((unsigned)mode & ~(unsigned)MCBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) <= MCBLAS_TF32_TENSOR_OP_MATH)

GETTER(mcblasGetMathMode, mcblasMath_t, mode, mathMode)

/* Every routine here is deterministic; the mode is kept so an app reads back what it set. */
SETTER(mcblasSetAtomicsMode, mcblasAtomicsMode_t, mode, atomicsMode,
       mode == MCBLAS_ATOMICS_NOT_ALLOWED || mode == MCBLAS_ATOMICS_ALLOWED)

GETTER(mcblasGetAtomicsMode, mcblasAtomicsMode_t, mode, atomicsMode)

SETTER(mcblasSetSmCountTarget, int, smCountTarget, smCountTarget,
       smCountTarget >= 0)

GETTER(mcblasGetSmCountTarget, int, smCountTarget, smCountTarget)

/* ---- work on a stream ---- */

typedef struct {
    uint64_t task_id;
    int ran;
} mcblas_task;

static int run_task(void *payload)
{
    mcblas_task *t = payload;
    t->ran = 1;
    return opemu_py_mcblas_run(t->task_id);
}

static void drop_task(void *payload)
{
    mcblas_task *t = payload;
    if (!t->ran)
        opemu_py_mcblas_drop(t->task_id);
    free(t);
}

static opemu_stream *stream_of(int32_t device, mcStream_t stream)
{
    if (stream == NULL) {
        opemu_context *ctx = opemu_primary_context(device);
        return ctx ? ctx->default_stream : NULL;
    }
    return opemu_handle_is(stream, OPEMU_KIND_STREAM) ? (opemu_stream *)stream : NULL;
}

int opemu_mcblas_submit(mcblasHandle_t handle, mcStream_t stream, uint64_t task_id, int wait)
{
    opemu_stream *s = handle ? stream_of(handle->device, handle->stream)
                             : stream_of(opemu_mc_current_device(), stream);
    mcblas_task *t = s ? calloc(1, sizeof *t) : NULL;
    if (t == NULL) {
        opemu_py_mcblas_drop(task_id);
        opemu_error_message(MCBLAS_STATUS_INVALID_VALUE, s ? "out of host memory" : "the stream is not live: "
                            "it was destroyed (set a live stream with mcblasSetStream)");
        return -1;
    }
    t->task_id = task_id;
    int rc = opemu_stream_submit(s, run_task, drop_task, t);
    if (rc == 0 && wait)
        rc = opemu_stream_drain(s);
    return rc;
}
