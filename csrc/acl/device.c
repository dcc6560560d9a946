/* aclInit/aclFinalize, devices and contexts.
 *
 * aclrtSetDevice creates a device's default context (with its default stream) on first use and
 * counts the calls; aclrtResetDevice releases the device's resources when the count reaches 0.
 * The current context is per thread. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

typedef struct {
    int set_count;
    opemu_context *default_context;
} device_state;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static device_state *devices;
static int init_count;
static __thread opemu_context *current;

static int check_device(int64_t id)
{
    if (id < 0 || id >= opemu_device_count())
        return opemu_fail(ACL_ERROR_RT_INVALID_DEVICEID,
                          "device id %lld is invalid: %d devices are available (OPEMU_DEVICE_COUNT)",
                          (long long)id, opemu_device_count());
    return ACL_SUCCESS;
}

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

int opemu_initialized(void) { return init_count > 0; }

OPEMU_EXPORT aclError aclInit(const char *configPath)
{
    if (configPath && *configPath && access(configPath, R_OK) != 0)
        return opemu_fail(ACL_ERROR_INVALID_FILE, "aclInit: config file %s cannot be read", configPath);
    pthread_mutex_lock(&lock);
    int repeat = init_count++ > 0;
    pthread_mutex_unlock(&lock);
    if (repeat)
        return opemu_fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: repeated initialization");
    return ACL_SUCCESS;
}

static aclError finalize_reference(uint64_t *remaining, int all)
{
    pthread_mutex_lock(&lock);
    if (init_count == 0) {
        pthread_mutex_unlock(&lock);
        return opemu_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: not initialized or already finalized");
    }
    init_count = all ? 0 : init_count - 1;
    if (remaining)
        *remaining = (uint64_t)init_count;
    int finalized = init_count == 0;
    pthread_mutex_unlock(&lock);
    if (finalized)
        opemu_sanitize_leaks("aclFinalize");
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclFinalize(void) { return finalize_reference(NULL, 1); }

OPEMU_EXPORT aclError aclFinalizeReference(uint64_t *refCount)
{
    if (refCount == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclFinalizeReference: refCount is null");
    return finalize_reference(refCount, 0);
}

OPEMU_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    int rc = check_device(deviceId);
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    device_state *d = device(deviceId);
    if (d->default_context == NULL)
        d->default_context = context_new(deviceId, 1);
    d->set_count++;
    current = d->default_context;
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

static void release_device(int32_t id)
{
    device_state *d = device(id);
    opemu_streams_release_device(id);
    opemu_sanitize_reset(id, "the device's reset");
    opemu_memory_release_device(id);
    if (d->default_context) {
        context_free(d->default_context);
        d->default_context = NULL;
    }
    d->set_count = 0;
}

static aclError reset_device(int32_t deviceId, int force)
{
    int rc = check_device(deviceId);
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    device_state *d = device(deviceId);
    if (d->set_count > 0 && (force || --d->set_count == 0))
        release_device(deviceId);
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* MACA's runtime has an implicit current device with a primary context: the device's default context,
 * created on first use without counting as an aclrtSetDevice. It becomes the thread's current context
 * unless that is already a context of the same device. */
opemu_context *opemu_primary_context(int32_t deviceId)
{
    if (deviceId < 0 || deviceId >= opemu_device_count())
        return NULL;
    pthread_mutex_lock(&lock);
    device_state *d = device(deviceId);
    if (d->default_context == NULL)
        d->default_context = context_new(deviceId, 1);
    opemu_context *ctx = d->default_context;
    if (current == NULL || !opemu_handle_is(current, OPEMU_KIND_CONTEXT) || current->device != deviceId)
        current = ctx;
    pthread_mutex_unlock(&lock);
    return ctx;
}

/* MACA's device reset: releases the device's resources whoever created them (its primary context
 * is not counted by aclrtSetDevice). */
void opemu_device_reset(int32_t deviceId)
{
    if (deviceId < 0 || deviceId >= opemu_device_count())
        return;
    pthread_mutex_lock(&lock);
    release_device(deviceId);
    pthread_mutex_unlock(&lock);
}

OPEMU_EXPORT aclError aclrtResetDevice(int32_t deviceId) { return reset_device(deviceId, 0); }
OPEMU_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId) { return reset_device(deviceId, 1); }

OPEMU_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    if (deviceId == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *deviceId = ctx->device;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    if (count == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
    *count = (uint32_t)opemu_device_count();
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    if (runMode == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetRunMode: runMode is null");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (!majorVersion || !minorVersion || !patchVersion)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetVersion: an output pointer is null");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    if (context == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateContext: context is null");
    int rc = check_device(deviceId);
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    opemu_context *ctx = context_new(deviceId, 0);
    current = ctx;
    pthread_mutex_unlock(&lock);
    *context = ctx;
    return ACL_SUCCESS;
}

static opemu_context *live_context(aclrtContext context, const char *api)
{
    if (context == NULL) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: context is null", api);
        return NULL;
    }
    if (!opemu_handle_is(context, OPEMU_KIND_CONTEXT)) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live context", api, context);
        return NULL;
    }
    return context;
}

OPEMU_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    opemu_context *ctx = live_context(context, "aclrtDestroyContext");
    if (ctx == NULL)
        return ACL_ERROR_INVALID_PARAM;
    if (ctx->is_default)
        return opemu_fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtDestroyContext: the default context of a device is released by aclrtResetDevice");
    pthread_mutex_lock(&lock);
    if (current == ctx)
        current = NULL;
    context_free(ctx);
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    opemu_context *ctx = live_context(context, "aclrtSetCurrentContext");
    if (ctx == NULL)
        return ACL_ERROR_INVALID_PARAM;
    current = ctx;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    if (context == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetCurrentContext: context is null");
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *context = ctx;
    return ACL_SUCCESS;
}

/* Figures of an Atlas A2 training device (Ascend910B1). */
OPEMU_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    int rc = check_device((int64_t)deviceId);
    if (rc)
        return rc;
    if (value == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceInfo: value is null");
    switch (attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: *value = 6; break;
    case ACL_DEV_ATTR_AICORE_CORE_NUM: *value = 24; break;
    case ACL_DEV_ATTR_CUBE_CORE_NUM: *value = 24; break;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = 48; break;
    case ACL_DEV_ATTR_WARP_SIZE: *value = 32; break;
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE: *value = 2048; break;
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE: *value = 196608; break; /* = the deprecated LOCAL_MEM_PER_VECTOR_CORE */
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: *value = (int64_t)opemu_device_memory_bytes(); break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = 192LL << 20; break;
    default:
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceInfo: unknown attribute %d", (int)attr);
    }
    return ACL_SUCCESS;
}
