/* The MACA runtime (mc*): the CUDA-runtime model on core's machinery.
 *
 * Devices, their primary contexts, the device-memory registry, streams and events are core's, the
 * ones AscendCL uses too (core/device.c, core/memory.c, core/stream.c); this file adds what differs:
 * an implicit current device per thread (0 until mcSetDevice) whose primary context is created on
 * first use, CUDA's error model (a thread-local sticky error read by mcGetLastError/mcPeekAtLastError)
 * and CUDA's rules for each call. No call of the MACA runtime starts Python. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/hooks.h"
#include "mc_internal.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* cudaMalloc guarantees 256-byte alignment; the mapped size is rounded to that granule. Starts are
 * 512-byte aligned, as the device allocator places them: clients assume more than the documented 256. */
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
    const char *recent = opemu_error_take();
    return mc_fail(mc, "%s: %s", api, recent ? recent : "a task on the stream failed");
}

int opemu_mc_current_device(void) { return current_device; }

/* A runtime function opemu does not emulate fails as every runtime call does: its status is sticky
 * (mcDNN's and mcBLAS's are not). */
static void not_supported(const char *function, int status, const char *status_name)
{
    if (mc_runtime_function(function))
        last_error = (mcError_t)status;
}

int mc_runtime_function(const char *function)
{
    return strncmp(function, "mc", 2) == 0 && strncmp(function, "mcdnn", 5) != 0 && strncmp(function, "mcblas", 6) != 0
           && strncmp(function, "mccl", 4) != 0;
}

__attribute__((constructor)) static void hear_unsupported_calls(void)
{
    static const opemu_hooks hooks = {.not_supported = not_supported};
    opemu_hooks_register(&hooks);
}

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

/* ---- device allocations ---- */

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
