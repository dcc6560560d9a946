/* The MACA runtime (mc*): the CUDA-runtime model on the CANN runtime's machinery.
 *
 * Devices, their primary contexts, the device-memory registry, streams and events are the ones
 * AscendCL uses (device.c, memory.c, stream.c); this file adds what differs: an implicit current
 * device per thread (0 until mcSetDevice) whose primary context is created on first use, CUDA's
 * error model (a thread-local sticky error read by mcGetLastError/mcPeekAtLastError) and CUDA's
 * rules for each call. No call here starts Python. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mc_internal.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* cudaMalloc guarantees 256-byte alignment; the mapped size is rounded to that granule. Starts are
 * 512-byte aligned, as the device allocator places them (issue 16: clients assume more than 256). */
#define MC_MALLOC_GRANULE 256
#define MC_MALLOC_ALIGNMENT 512

static __thread mcError_t last_error = mcSuccess;
static __thread int current_device = 0;

/* Records `code` as the thread's sticky error with a message (aclGetRecentErrMsg, the log). */
mcError_t mc_fail(mcError_t code, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    opemu_error_message((int)code, text);
    last_error = code;
    return code;
}

mcError_t mc_from_runtime(int code, const char *api)
{
    mcError_t mc;
    switch (code) {
    case 0: return mcSuccess;
    case ACL_ERROR_INVALID_PARAM:
    case ACL_ERROR_RT_PARAM_INVALID: mc = mcErrorInvalidValue; break;
    case ACL_ERROR_RT_MEMORY_ALLOCATION: mc = mcErrorMemoryAllocation; break;
    case ACL_ERROR_RT_INVALID_DEVICEID: mc = mcErrorInvalidDevice; break;
    case ACL_ERROR_RT_AICORE_EXCEPTION: mc = mcErrorIllegalAddress; break;
    default: mc = code > 0 && code < 1000 ? (mcError_t)code : mcErrorLaunchFailure; break;
    }
    const char *recent = aclGetRecentErrMsg();
    return mc_fail(mc, "%s: %s", api, recent ? recent : "a task on the stream failed");
}

int opemu_mc_current_device(void) { return current_device; }

void opemu_mc_set_last_error(int code) { last_error = (mcError_t)code; }

opemu_context *mc_context(void) { return opemu_primary_context(current_device); }

opemu_stream *mc_stream(mcStream_t stream, const char *api, mcError_t *error)
{
    opemu_context *ctx = mc_context();
    /* one host thread runs all streams: the legacy and per-thread default streams are the one default */
    if (stream == NULL || stream == mcStreamLegacy || stream == mcStreamPerThread)
        return ctx->default_stream;
    if (!opemu_handle_is(stream, OPEMU_KIND_STREAM)) {
        *error = mc_fail(mcErrorInvalidResourceHandle, "%s: %p is not a live stream", api, (void *)stream);
        return NULL;
    }
    return (opemu_stream *)stream;
}

/* ---- errors ---- */

OPEMU_EXPORT mcError_t mcGetLastError(void)
{
    mcError_t error = last_error;
    last_error = mcSuccess;
    return error;
}

OPEMU_EXPORT mcError_t mcPeekAtLastError(void) { return last_error; }

static const struct { mcError_t code; const char *name; const char *text; } errors[] = {
    {mcSuccess, "mcSuccess", "no error"},
    {mcErrorInvalidValue, "mcErrorInvalidValue", "invalid argument"},
    {mcErrorMemoryAllocation, "mcErrorMemoryAllocation", "out of memory"},
    {mcErrorInitializationError, "mcErrorInitializationError", "initialization error"},
    {mcErrorDeinitialized, "mcErrorDeinitialized", "driver shutting down"},
    {mcErrorProfilerDisabled, "mcErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {mcErrorInvalidConfiguration, "mcErrorInvalidConfiguration", "invalid configuration argument"},
    {mcErrorInvalidPitchValue, "mcErrorInvalidPitchValue", "invalid pitch argument"},
    {mcErrorInvalidSymbol, "mcErrorInvalidSymbol", "invalid device symbol"},
    {mcErrorInvalidHostPointer, "mcErrorInvalidHostPointer", "invalid host pointer"},
    {mcErrorInvalidDevicePointer, "mcErrorInvalidDevicePointer", "invalid device pointer"},
    {mcErrorInvalidMemcpyDirection, "mcErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {mcErrorNotYetImplemented, "mcErrorNotYetImplemented", "feature not yet implemented"},
    {mcErrorInvalidDeviceFunction, "mcErrorInvalidDeviceFunction", "invalid device function"},
    {mcErrorNoDevice, "mcErrorNoDevice", "no MACA-capable device is detected"},
    {mcErrorInvalidDevice, "mcErrorInvalidDevice", "invalid device ordinal"},
    {mcErrorInvalidResourceHandle, "mcErrorInvalidResourceHandle", "invalid resource handle"},
    {mcErrorNotReady, "mcErrorNotReady", "device not ready"},
    {mcErrorIllegalAddress, "mcErrorIllegalAddress", "an illegal memory access was encountered"},
    {mcErrorLaunchOutOfResources, "mcErrorLaunchOutOfResources", "too many resources requested for launch"},
    {mcErrorLaunchFailure, "mcErrorLaunchFailure", "unspecified launch failure"},
    {mcErrorNotSupported, "mcErrorNotSupported", "operation not supported"},
    {mcErrorUnknown, "mcErrorUnknown", "unknown error"},
};

OPEMU_EXPORT const char *mcGetErrorName(mcError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error)
            return errors[i].name;
    return "unrecognized error code";
}

OPEMU_EXPORT const char *mcGetErrorString(mcError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error)
            return opemu_status_text(error, errors[i].text);
    return "unrecognized error code";
}

/* ---- devices ---- */

mcError_t mc_check_device(int device, const char *api)
{
    if (device < 0 || device >= opemu_device_count())
        return mc_fail(mcErrorInvalidDevice, "%s: device %d is invalid: %d devices are available (OPEMU_DEVICE_COUNT)",
                       api, device, opemu_device_count());
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcGetDeviceCount(int *count)
{
    if (count == NULL)
        return mc_fail(mcErrorInvalidValue, "mcGetDeviceCount: count is null");
    *count = opemu_device_count();
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcGetDevice(int *device)
{
    if (device == NULL)
        return mc_fail(mcErrorInvalidValue, "mcGetDevice: device is null");
    *device = current_device;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcSetDevice(int device)
{
    mcError_t rc = mc_check_device(device, "mcSetDevice");
    if (rc)
        return rc;
    current_device = device;
    mc_context();
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcDeviceSynchronize(void)
{
    mc_context();
    int rc = opemu_device_drain(current_device);
    mc_pools_trim(current_device);
    return rc ? mc_from_runtime(rc, "mcDeviceSynchronize") : mcSuccess;
}

/* Releases everything the current device holds (memory, pools, streams, peer mappings, its primary
 * context); the next call creates a fresh primary context. */
OPEMU_EXPORT mcError_t mcDeviceReset(void)
{
    mc_pools_reset(current_device);
    mc_managed_reset(current_device);
    mc_peer_reset(current_device);
    opemu_device_reset(current_device);
    return mcSuccess;
}

/* ---- memory ---- */

mcError_t mc_check_size(size_t size, size_t granule, const char *api)
{
    if (size > SIZE_MAX - granule)
        return mc_fail(mcErrorMemoryAllocation, "%s: %zu bytes cannot be allocated (the size wraps when rounded up "
                       "to %zu bytes)", api, size, granule);
    return mcSuccess;
}

/* The device allocations of mcMalloc, mcMallocManaged, mcMallocPitch and the pools. */
mcError_t mc_device_malloc(void **devPtr, size_t size, int device, const char *api)
{
    mcError_t rc = mc_check_size(size, MC_MALLOC_GRANULE, api);
    if (rc)
        return rc;
    if (opemu_memory_alloc(devPtr, size, ALIGN_UP((uint64_t)size, MC_MALLOC_GRANULE), MC_MALLOC_ALIGNMENT, device,
                           OPEMU_MEM_DEVICE) != 0)
        return mc_fail(mcErrorMemoryAllocation, "%s: out of device memory: %zu bytes requested, %llu of %llu bytes "
                       "in use on device %d", api, size, (unsigned long long)opemu_memory_used(device),
                       (unsigned long long)opemu_device_memory_bytes(), device);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcMalloc(void **devPtr, size_t size)
{
    if (devPtr == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMalloc: devPtr is null");
    if (size == 0) { /* as cudaMalloc: success, and no allocation */
        *devPtr = NULL;
        return mcSuccess;
    }
    return mc_device_malloc(devPtr, size, mc_context()->device, "mcMalloc");
}

/* Freeing waits for the device's queued work, as cudaFree does, so a queued task never sees memory
 * that was freed after it was issued. Memory from mcMallocAsync and mcMallocManaged is freed too. */
OPEMU_EXPORT mcError_t mcFree(void *devPtr)
{
    if (devPtr == NULL)
        return mcSuccess;
    mc_context();
    int pending = opemu_device_drain(current_device);
    if (!mc_pool_free_now(devPtr)) {
        int managed = mc_managed_release(devPtr);
        if (opemu_memory_free(devPtr, OPEMU_MEM_DEVICE) != 0) {
            opemu_sanitize_bad_free(devPtr, "mcFree");
            return mc_fail(mcErrorInvalidValue, "mcFree: %p was not allocated by mcMalloc%s or was freed already",
                           devPtr, managed ? "Managed" : "");
        }
    }
    return pending ? mc_from_runtime(pending, "mcFree") : mcSuccess;
}

OPEMU_EXPORT mcError_t mcMallocHost(void **ptr, size_t size) { return mcHostAlloc(ptr, size, mcHostAllocDefault); }

OPEMU_EXPORT mcError_t mcMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (free_bytes == NULL || total == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMemGetInfo: free and total must not be null");
    opemu_context *ctx = mc_context();
    *total = (size_t)opemu_device_memory_bytes();
    *free_bytes = *total - (size_t)opemu_memory_used(ctx->device);
    return mcSuccess;
}

/* ---- copies and sets ---- */

static int is_device(const void *address)
{
    opemu_allocation a;
    return opemu_memory_find(address, &a) && a.kind == OPEMU_MEM_DEVICE;
}

mcError_t mc_device_side(const void *address, size_t count, int device, const char *api, const char *side)
{
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE)
        return mc_fail(mcErrorInvalidValue, "%s: %s %p is not device memory", api, side, address);
    if (device >= 0 && a.device != device)
        return mc_fail(mcErrorInvalidValue, "%s: %s %p is memory of device %d, not of device %d", api, side, address,
                       a.device, device);
    if (count > a.mapped - ((uintptr_t)address - a.start))
        return mc_fail(mcErrorInvalidValue,
                       "%s: %zu bytes at %s %p run past the end of its device allocation (%llu bytes from %p)", api,
                       count, side, address, (unsigned long long)a.mapped, (void *)a.start);
    return mcSuccess;
}

mcError_t mc_check_copy(void *dst, size_t dspan, const void *src, size_t sspan, mcMemcpyKind kind, const char *api)
{
    if ((unsigned)kind > mcMemcpyDefault)
        return mc_fail(mcErrorInvalidMemcpyDirection, "%s: invalid memcpy kind %d", api, (int)kind);
    if (dst == NULL || src == NULL)
        return mc_fail(mcErrorInvalidValue, "%s: dst and src must not be null", api);
    if (kind == mcMemcpyDefault) /* unified addressing: the pointers tell the direction */
        kind = is_device(src) ? (is_device(dst) ? mcMemcpyDeviceToDevice : mcMemcpyDeviceToHost)
                              : (is_device(dst) ? mcMemcpyHostToDevice : mcMemcpyHostToHost);
    mcError_t rc = mcSuccess;
    if (kind == mcMemcpyHostToDevice || kind == mcMemcpyDeviceToDevice)
        rc = mc_device_side(dst, dspan, -1, api, "dst");
    if (rc == mcSuccess && (kind == mcMemcpyDeviceToHost || kind == mcMemcpyDeviceToDevice))
        rc = mc_device_side(src, sspan, -1, api, "src");
    return rc;
}

static int run_transfer(void *payload)
{
    const mc_transfer *t = payload;
    for (size_t row = 0; row < t->height; row++) {
        char *dst = (char *)t->dst + row * t->dpitch;
        opemu_sanitize_transfer(dst, t->is_set ? NULL : (const char *)t->src + row * t->spitch, t->width, t->is_set,
                                t->synchronous);
        if (t->is_set)
            memset(dst, t->value, t->width);
        else if (dst != (const char *)t->src + row * t->spitch)
            memmove(dst, (const char *)t->src + row * t->spitch, t->width);
    }
    return 0;
}

/* A synchronous copy or set runs on the legacy default stream: after the queued work of every stream
 * but the non-blocking ones, which it does not wait for (a read of what they will still write is stale). */
mcError_t mc_transfer_now(const mc_transfer *t, const char *api)
{
    int pending = opemu_device_drain_where(current_device, mc_stream_blocking);
    mc_transfer now = *t;
    now.synchronous = 1;
    run_transfer(&now);
    return pending ? mc_from_runtime(pending, api) : mcSuccess;
}

mcError_t mc_transfer_on(const mc_transfer *t, mcStream_t stream, const char *api)
{
    mcError_t error = mcSuccess;
    opemu_stream *s = mc_stream(stream, api, &error);
    if (s == NULL)
        return error;
    mc_transfer *copy = malloc(sizeof *copy);
    *copy = *t;
    int rc = opemu_stream_submit(s, run_transfer, free, copy);
    return rc ? mc_from_runtime(rc, api) : mcSuccess;
}

/* A zero-byte copy succeeds before anything but its kind is looked at. */
static mcError_t copy_1d(void *dst, const void *src, size_t count, mcMemcpyKind kind, mcStream_t stream, int async,
                         const char *api)
{
    if (count == 0)
        return (unsigned)kind > mcMemcpyDefault
                   ? mc_fail(mcErrorInvalidMemcpyDirection, "%s: invalid memcpy kind %d", api, (int)kind) : mcSuccess;
    mc_context();
    mcError_t rc = mc_check_copy(dst, count, src, count, kind, api);
    if (rc)
        return rc;
    mc_transfer t = {dst, count, src, count, count, 1, 0, 0, 0};
    return async ? mc_transfer_on(&t, stream, api) : mc_transfer_now(&t, api);
}

OPEMU_EXPORT mcError_t mcMemcpy(void *dst, const void *src, size_t count, mcMemcpyKind kind)
{
    return copy_1d(dst, src, count, kind, NULL, 0, "mcMemcpy");
}

OPEMU_EXPORT mcError_t mcMemcpyAsync(void *dst, const void *src, size_t count, mcMemcpyKind kind, mcStream_t stream)
{
    return copy_1d(dst, src, count, kind, stream, 1, "mcMemcpyAsync");
}

/* The value is applied byte-wise (its low byte), as cudaMemset. */
static mcError_t set_1d(void *devPtr, int value, size_t count, mcStream_t stream, int async, const char *api)
{
    if (count == 0)
        return mcSuccess;
    mc_context();
    mcError_t rc = devPtr ? mc_device_side(devPtr, count, -1, api, "devPtr")
                          : mc_fail(mcErrorInvalidValue, "%s: devPtr is null", api);
    if (rc)
        return rc;
    mc_transfer t = {devPtr, count, NULL, 0, count, 1, (int)(unsigned char)value, 1, 0};
    return async ? mc_transfer_on(&t, stream, api) : mc_transfer_now(&t, api);
}

OPEMU_EXPORT mcError_t mcMemset(void *devPtr, int value, size_t count)
{
    return set_1d(devPtr, value, count, NULL, 0, "mcMemset");
}

OPEMU_EXPORT mcError_t mcMemsetAsync(void *devPtr, int value, size_t count, mcStream_t stream)
{
    return set_1d(devPtr, value, count, stream, 1, "mcMemsetAsync");
}


/* ---- streams ---- */

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
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    aclrtStreamQuery((aclrtStream)s, &status);
    return status == ACL_STREAM_STATUS_COMPLETE ? mcSuccess : mcErrorNotReady;
}

static mcError_t live_event(mcEvent_t event, const char *api, int *recorded, int *completed, uint32_t *flags,
                            double *time_ms)
{
    if (event == NULL || opemu_event_info(event, recorded, completed, flags, time_ms) != 0)
        return mc_fail(mcErrorInvalidResourceHandle, "%s: %p is not a live event", api, (void *)event);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamWaitEvent(mcStream_t stream, mcEvent_t event, unsigned int flags)
{
    int recorded, completed;
    uint32_t event_flags;
    double t;
    mcError_t rc = live_event(event, "mcStreamWaitEvent", &recorded, &completed, &event_flags, &t);
    if (rc)
        return rc;
    if (flags != 0)
        return mc_fail(mcErrorInvalidValue, "mcStreamWaitEvent: flags must be 0, got %#x", flags);
    opemu_stream *s = mc_stream(stream, "mcStreamWaitEvent", &rc);
    if (s == NULL)
        return rc;
    if (!recorded) /* waiting for an event never recorded is a no-op */
        return mcSuccess;
    int status = aclrtStreamWaitEvent((aclrtStream)s, (aclrtEvent)event);
    return status ? mc_from_runtime(status, "mcStreamWaitEvent") : mcSuccess;
}

/* ---- events ---- */

OPEMU_EXPORT mcError_t mcEventCreateWithFlags(mcEvent_t *event, unsigned int flags)
{
    if (event == NULL)
        return mc_fail(mcErrorInvalidValue, "mcEventCreate: event is null");
    unsigned known = mcEventBlockingSync | mcEventDisableTiming | mcEventInterprocess;
    if ((flags & ~known) || ((flags & mcEventInterprocess) && !(flags & mcEventDisableTiming)))
        return mc_fail(mcErrorInvalidValue, "mcEventCreateWithFlags: invalid flags %#x (mcEventInterprocess needs "
                       "mcEventDisableTiming)", flags);
    mc_context();
    aclrtEvent e = NULL;
    int rc = aclrtCreateEventWithFlag(&e, flags);
    if (rc)
        return mc_from_runtime(rc, "mcEventCreate");
    *event = (mcEvent_t)e;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcEventCreate(mcEvent_t *event) { return mcEventCreateWithFlags(event, mcEventDefault); }

OPEMU_EXPORT mcError_t mcEventRecord(mcEvent_t event, mcStream_t stream)
{
    int recorded, completed;
    uint32_t flags;
    double t;
    mcError_t rc = live_event(event, "mcEventRecord", &recorded, &completed, &flags, &t);
    if (rc)
        return rc;
    opemu_stream *s = mc_stream(stream, "mcEventRecord", &rc);
    if (s == NULL)
        return rc;
    int status = aclrtRecordEvent((aclrtEvent)event, (aclrtStream)s);
    return status ? mc_from_runtime(status, "mcEventRecord") : mcSuccess;
}

/* An event never recorded counts as complete, as in CUDA. */
OPEMU_EXPORT mcError_t mcEventQuery(mcEvent_t event)
{
    int recorded, completed;
    uint32_t flags;
    double t;
    mcError_t rc = live_event(event, "mcEventQuery", &recorded, &completed, &flags, &t);
    if (rc)
        return rc;
    return !recorded || completed ? mcSuccess : mcErrorNotReady;
}

OPEMU_EXPORT mcError_t mcEventSynchronize(mcEvent_t event)
{
    int recorded, completed;
    uint32_t flags;
    double t;
    mcError_t rc = live_event(event, "mcEventSynchronize", &recorded, &completed, &flags, &t);
    if (rc)
        return rc;
    int status = aclrtSynchronizeEvent((aclrtEvent)event);
    mc_pools_trim(current_device);
    return status ? mc_from_runtime(status, "mcEventSynchronize") : mcSuccess;
}

OPEMU_EXPORT mcError_t mcEventElapsedTime(float *ms, mcEvent_t start, mcEvent_t end)
{
    int recorded[2], completed[2];
    uint32_t flags[2];
    double when[2];
    if (ms == NULL)
        return mc_fail(mcErrorInvalidValue, "mcEventElapsedTime: ms is null");
    mcError_t rc = live_event(start, "mcEventElapsedTime", &recorded[0], &completed[0], &flags[0], &when[0]);
    if (rc == mcSuccess)
        rc = live_event(end, "mcEventElapsedTime", &recorded[1], &completed[1], &flags[1], &when[1]);
    if (rc)
        return rc;
    if ((flags[0] | flags[1]) & mcEventDisableTiming)
        return mc_fail(mcErrorInvalidResourceHandle, "mcEventElapsedTime: an event was created with "
                       "mcEventDisableTiming");
    if (!recorded[0] || !recorded[1])
        return mc_fail(mcErrorInvalidResourceHandle, "mcEventElapsedTime: both events must have been recorded");
    if (!completed[0] || !completed[1])
        return mcErrorNotReady;
    *ms = (float)(when[1] - when[0]);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcEventDestroy(mcEvent_t event)
{
    int recorded, completed;
    uint32_t flags;
    double t;
    mcError_t rc = live_event(event, "mcEventDestroy", &recorded, &completed, &flags, &t);
    if (rc)
        return rc;
    int status = aclrtDestroyEvent((aclrtEvent)event);
    return status ? mc_from_runtime(status, "mcEventDestroy") : mcSuccess;
}
