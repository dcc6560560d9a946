/* MACA streams: creation with flags and priorities, synchronisation and destruction, host callbacks,
 * and events recorded with flags.
 *
 * One host thread runs every stream's tasks in issue order, so a priority orders nothing and a
 * non-blocking stream differs only in not waiting for the default stream (which a synchronous copy
 * drains anyway): both are kept so the app reads back what it asked for, as CUDA reports them. */
#include <stdlib.h>
#include "mc_internal.h"

/* CUDA's range: 0 is the least (the default) and -1 the greatest priority; requests outside it are
 * clamped (assumption: MACA's numbers are not public). */
#define LEAST_PRIORITY 0
#define GREATEST_PRIORITY (-1)

typedef struct attributes {
    mcStream_t stream;
    unsigned int flags;
    int priority;
    struct attributes *next;
} attributes;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static attributes *known; /* streams created by mcStreamCreate*; others have flags 0, priority 0 */

static void remember(mcStream_t stream, unsigned int flags, int priority)
{
    attributes *a = malloc(sizeof *a);
    *a = (attributes){stream, flags, priority, NULL};
    pthread_mutex_lock(&lock);
    a->next = known;
    known = a;
    pthread_mutex_unlock(&lock);
}

void mc_stream_forget(mcStream_t stream)
{
    pthread_mutex_lock(&lock);
    for (attributes **p = &known; *p; p = &(*p)->next) {
        if ((*p)->stream == stream) {
            attributes *gone = *p;
            *p = gone->next;
            free(gone);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

static attributes lookup(mcStream_t stream)
{
    attributes found = {stream, mcStreamDefault, LEAST_PRIORITY, NULL};
    pthread_mutex_lock(&lock);
    for (attributes *a = known; a; a = a->next)
        if (a->stream == stream)
            found = *a;
    pthread_mutex_unlock(&lock);
    return found;
}

int mc_stream_blocking(const opemu_stream *s)
{
    return !(lookup((mcStream_t)s).flags & mcStreamNonBlocking);
}

OPEMU_EXPORT mcError_t mcDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority) /* either may be null: that one is not returned */
        *leastPriority = LEAST_PRIORITY;
    if (greatestPriority)
        *greatestPriority = GREATEST_PRIORITY;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamCreateWithPriority(mcStream_t *pStream, unsigned int flags, int priority)
{
    if (pStream == NULL)
        return mc_fail(mcErrorInvalidValue, "mcStreamCreateWithPriority: pStream is null");
    if (flags & ~(unsigned)mcStreamNonBlocking)
        return mc_fail(mcErrorInvalidValue, "mcStreamCreateWithPriority: invalid flags %#x (mcStreamDefault or "
                       "mcStreamNonBlocking)", flags);
    if (priority > LEAST_PRIORITY)
        priority = LEAST_PRIORITY;
    if (priority < GREATEST_PRIORITY)
        priority = GREATEST_PRIORITY;
    mcStream_t stream = (mcStream_t)opemu_stream_new(mc_context(), 0);
    mc_stream_forget(stream); /* a stream destroyed by a device reset may have had this address */
    remember(stream, flags, priority);
    *pStream = stream;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamCreateWithFlags(mcStream_t *pStream, unsigned int flags)
{
    return mcStreamCreateWithPriority(pStream, flags, LEAST_PRIORITY);
}

OPEMU_EXPORT mcError_t mcStreamCreate(mcStream_t *pStream)
{
    return mcStreamCreateWithPriority(pStream, mcStreamDefault, LEAST_PRIORITY);
}

/* The default stream (0) answers too: flags 0, priority 0. */
OPEMU_EXPORT mcError_t mcStreamGetFlags(mcStream_t hStream, unsigned int *flags)
{
    mcError_t rc = mcSuccess;
    if (mc_stream(hStream, "mcStreamGetFlags", &rc) == NULL)
        return rc;
    if (flags == NULL)
        return mc_fail(mcErrorInvalidValue, "mcStreamGetFlags: flags is null");
    *flags = lookup(hStream).flags;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamGetPriority(mcStream_t hStream, int *priority)
{
    mcError_t rc = mcSuccess;
    if (mc_stream(hStream, "mcStreamGetPriority", &rc) == NULL)
        return rc;
    if (priority == NULL)
        return mc_fail(mcErrorInvalidValue, "mcStreamGetPriority: priority is null");
    *priority = lookup(hStream).priority;
    return mcSuccess;
}

/* ---- synchronisation and destruction ---- */

OPEMU_EXPORT mcError_t mcStreamDestroy(mcStream_t stream)
{
    if (stream == NULL || !opemu_handle_is(stream, OPEMU_KIND_STREAM))
        return mc_fail(mcErrorInvalidResourceHandle, "mcStreamDestroy: %p is not a live stream", (void *)stream);
    if (stream == (mcStream_t)mc_context()->default_stream)
        return mc_fail(mcErrorInvalidResourceHandle, "mcStreamDestroy: the default stream cannot be destroyed");
    /* queued work completes before the stream's resources go, as in CUDA */
    int rc = opemu_stream_drain((opemu_stream *)stream);
    mc_stream_forget(stream);
    opemu_stream_release((opemu_stream *)stream);
    return rc ? mc_from_runtime(rc, "mcStreamDestroy") : mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamSynchronize(mcStream_t stream)
{
    mcError_t error = mcSuccess;
    opemu_stream *s = mc_stream(stream, "mcStreamSynchronize", &error);
    if (s == NULL)
        return error;
    int rc = opemu_stream_drain(s);
    mc_pools_trim(opemu_stream_device(s));
    return rc ? mc_from_runtime(rc, "mcStreamSynchronize") : mcSuccess;
}

/* mcErrorNotReady is an answer, not an error: it is not recorded as the sticky error. */
OPEMU_EXPORT mcError_t mcStreamQuery(mcStream_t stream)
{
    mcError_t error = mcSuccess;
    opemu_stream *s = mc_stream(stream, "mcStreamQuery", &error);
    if (s == NULL)
        return error;
    return opemu_stream_busy(s) ? mcErrorNotReady : mcSuccess;
}

/* ---- host functions in stream order ---- */

typedef struct {
    mcStreamCallback_t callback; /* mcStreamAddCallback */
    mcHostFn_t fn;               /* mcLaunchHostFunc */
    mcStream_t stream;
    void *userData;
} host_call;

static int run_host_call(void *payload)
{
    host_call *c = payload;
    if (c->callback)
        c->callback(c->stream, mcSuccess, c->userData);
    else
        c->fn(c->userData);
    return 0;
}

static mcError_t submit_host_call(const host_call *call, const char *api)
{
    mcError_t rc = mcSuccess;
    opemu_stream *s = mc_stream(call->stream, api, &rc);
    if (s == NULL)
        return rc;
    host_call *queued = malloc(sizeof *queued);
    *queued = *call;
    int status = opemu_stream_submit(s, run_host_call, free, queued);
    return status ? mc_from_runtime(status, api) : mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamAddCallback(mcStream_t stream, mcStreamCallback_t callback, void *userData,
                                           unsigned int flags)
{
    if (callback == NULL)
        return mc_fail(mcErrorInvalidValue, "mcStreamAddCallback: callback is null");
    if (flags != 0)
        return mc_fail(mcErrorInvalidValue, "mcStreamAddCallback: flags must be 0, got %#x", flags);
    host_call call = {callback, NULL, stream, userData};
    return submit_host_call(&call, "mcStreamAddCallback");
}

OPEMU_EXPORT mcError_t mcLaunchHostFunc(mcStream_t stream, mcHostFn_t fn, void *userData)
{
    if (fn == NULL)
        return mc_fail(mcErrorInvalidValue, "mcLaunchHostFunc: fn is null");
    host_call call = {NULL, fn, stream, userData};
    return submit_host_call(&call, "mcLaunchHostFunc");
}

/* mcEventRecordExternal only matters to stream capture, which opemu does not emulate. */
OPEMU_EXPORT mcError_t mcEventRecordWithFlags(mcEvent_t event, mcStream_t stream, unsigned int flags)
{
    if (flags & ~(unsigned)mcEventRecordExternal)
        return mc_fail(mcErrorInvalidValue, "mcEventRecordWithFlags: invalid flags %#x (mcEventRecordDefault or "
                       "mcEventRecordExternal)", flags);
    return mcEventRecord(event, stream);
}
