/* Devices and contexts.
 *
 * A device's default context (with its default stream) is created on first use: by aclrtSetDevice,
 * which counts its calls so that aclrtResetDevice releases the device when the count reaches 0, or
 * as MACA's primary context, which is not counted. The current context is per thread. */
#include <pthread.h>
#include <stdlib.h>
#include "acl/acl.h"
#include "core/config.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/handles.h"
#include "core/hooks.h"
#include "core/memory.h"
#include "core/stream.h"

#define MAX_BUSY_DEVICES 64

typedef struct {
    int set_count;
    opemu_context *default_context;
} device_state;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static device_state *devices;
static __thread opemu_context *current;
static int busy[MAX_BUSY_DEVICES];

static device_state *device(int32_t id)
{
    if (devices == NULL)
        devices = calloc((size_t)opemu_device_count(), sizeof *devices);
    return &devices[id];
}

static opemu_context *context_new(int32_t dev, int is_default)
{
    opemu_context *ctx = calloc(1, sizeof *ctx);
    ctx->device = dev;
    ctx->is_default = is_default;
    opemu_handle_add(ctx, OPEMU_KIND_CONTEXT);
    ctx->default_stream = opemu_stream_new(ctx, 1);
    return ctx;
}

static void context_free(opemu_context *ctx)
{
    opemu_stream_release(ctx->default_stream);
    opemu_handle_remove(ctx);
    free(ctx);
}

opemu_context *opemu_current_context(void)
{
    if (current && opemu_handle_is(current, OPEMU_KIND_CONTEXT))
        return current;
    current = NULL;
    opemu_fail(ACL_ERROR_RT_CONTEXT_NULL, "no current context: call aclrtSetDevice or aclrtSetCurrentContext first");
    return NULL;
}

void opemu_set_current_context(opemu_context *ctx) { current = ctx; }

/* An app's stream argument: NULL is the current context's default stream. */
opemu_stream *opemu_stream_resolve(aclrtStream stream, int *error)
{
    if (stream == NULL) {
        opemu_context *ctx = opemu_current_context();
        *error = ACL_ERROR_RT_CONTEXT_NULL;
        return ctx ? ctx->default_stream : NULL;
    }
    if (!opemu_handle_is(stream, OPEMU_KIND_STREAM)) {
        if (opemu_strict())
            opemu_finding("invalid-handle", "%p is not a live stream (destroyed or never created)", stream);
        *error = opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live stream (destroyed or never created)", stream);
        return NULL;
    }
    return stream;
}

opemu_context *opemu_device_set(int32_t id)
{
    pthread_mutex_lock(&lock);
    device_state *d = device(id);
    if (d->default_context == NULL)
        d->default_context = context_new(id, 1);
    d->set_count++;
    current = d->default_context;
    pthread_mutex_unlock(&lock);
    return current;
}

/* A device reset gives back everything the device held, as the driver does; the hooks hear of it
 * first (the sanitizer reports what the app never freed). Caller holds lock. */
static void release_device(int32_t id)
{
    device_state *d = device(id);
    opemu_streams_release_device(id);
    OPEMU_NOTIFY(device_reset, id, "the device's reset");
    opemu_memory_release_device(id);
    if (d->default_context) {
        context_free(d->default_context);
        d->default_context = NULL;
    }
    d->set_count = 0;
}

void opemu_device_unset(int32_t id, int force)
{
    pthread_mutex_lock(&lock);
    device_state *d = device(id);
    if (d->set_count > 0 && (force || --d->set_count == 0))
        release_device(id);
    pthread_mutex_unlock(&lock);
}

opemu_context *opemu_primary_context(int32_t id)
{
    if (id < 0 || id >= opemu_device_count())
        return NULL;
    pthread_mutex_lock(&lock);
    device_state *d = device(id);
    if (d->default_context == NULL)
        d->default_context = context_new(id, 1);
    opemu_context *ctx = d->default_context;
    if (current == NULL || !opemu_handle_is(current, OPEMU_KIND_CONTEXT) || current->device != id)
        current = ctx;
    pthread_mutex_unlock(&lock);
    return ctx;
}

void opemu_device_reset(int32_t id)
{
    if (id < 0 || id >= opemu_device_count())
        return;
    pthread_mutex_lock(&lock);
    release_device(id);
    pthread_mutex_unlock(&lock);
}

opemu_context *opemu_context_create(int32_t id)
{
    pthread_mutex_lock(&lock);
    opemu_context *ctx = context_new(id, 0);
    current = ctx;
    pthread_mutex_unlock(&lock);
    return ctx;
}

void opemu_context_destroy(opemu_context *ctx)
{
    pthread_mutex_lock(&lock);
    if (current == ctx)
        current = NULL;
    context_free(ctx);
    pthread_mutex_unlock(&lock);
}

void opemu_device_busy(int32_t device, int delta)
{
    if (device >= 0 && device < MAX_BUSY_DEVICES)
        __atomic_fetch_add(&busy[device], delta, __ATOMIC_RELAXED);
}

int opemu_device_running(int32_t device)
{
    return device >= 0 && device < MAX_BUSY_DEVICES && __atomic_load_n(&busy[device], __ATOMIC_RELAXED) > 0;
}
