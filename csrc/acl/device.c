/* aclInit/aclFinalize, devices and contexts: AscendCL's calls on core's devices (core/device.c),
 * with the vendor's checks and statuses, and the process's system parameters. */
#include <pthread.h>
#include <unistd.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "sanitizer/sanitizer.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int init_count;

static int check_device(int64_t id)
{
    if (id < 0 || id >= opemu_device_count())
        return opemu_fail(ACL_ERROR_RT_INVALID_DEVICEID,
                          "device id %lld is invalid: %d devices are available (OPEMU_DEVICE_COUNT)",
                          (long long)id, opemu_device_count());
    return ACL_SUCCESS;
}

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
    opemu_device_set(deviceId);
    return ACL_SUCCESS;
}

static aclError reset_device(int32_t deviceId, int force)
{
    int rc = check_device(deviceId);
    if (rc)
        return rc;
    opemu_device_unset(deviceId, force);
    return ACL_SUCCESS;
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
    *context = opemu_context_create(deviceId);
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
    opemu_context_destroy(ctx);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    opemu_context *ctx = live_context(context, "aclrtSetCurrentContext");
    if (ctx == NULL)
        return ACL_ERROR_INVALID_PARAM;
    opemu_set_current_context(ctx);
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

/* ---- system parameters ---- */

static aclError set_sys_param(aclSysParamOpt opt, int64_t value)
{
    switch (opt) {
    case ACL_OPT_DETERMINISTIC:
        opemu_set_deterministic(value != 0);
        return ACL_SUCCESS;
    case ACL_OPT_ENABLE_DEBUG_KERNEL:
    case ACL_OPT_ENABLE_KERNEL_EARLY_START:
        return ACL_SUCCESS; /* no observable effect on a host emulation */
    default:
        /* 2 is the deprecated ACL_OPT_STRONG_CONSISTENCY (named by value: the name warns) */
        if ((int)opt == 2)
            return ACL_SUCCESS;
        break;
    }
    return opemu_fail(ACL_ERROR_INVALID_PARAM, "invalid aclSysParamOpt %d", (int)opt);
}

OPEMU_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    return set_sys_param(opt, value);
}

OPEMU_EXPORT aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    return set_sys_param(opt, value);
}

OPEMU_EXPORT const char *aclrtGetSocName(void) { return opemu_soc_name(); }
