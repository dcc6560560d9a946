/* MACA's plain copies and sets (mcMemcpy*, mcMemset*) and the transfer machinery the pitched and peer
 * copies share (mc_internal.h): a side the kind (or, for mcMemcpyDefault, the pointers) puts on the
 * device lies inside one live device allocation; a synchronous transfer runs after the device's
 * queued work, an asynchronous one is a task on its stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mc_internal.h"

static int is_device(const void *address)
{
    opemu_allocation a;
    return opemu_memory_find(address, &a) && a.kind == OPEMU_MEM_DEVICE;
}

mcError_t mc_device_side(const void *address, size_t count, int device, const char *api, const char *side)
{
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE) {
        char what[160];
        snprintf(what, sizeof what, "%s: %s", api, side);
        opemu_sanitize_missing(address, what); /* under opemu check: memory freed before the call */
        return mc_fail(mcErrorInvalidValue, "%s: %s %p is not device memory", api, side, address);
    }
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
    int pending = opemu_device_drain_where(opemu_mc_current_device(), mc_stream_blocking);
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
