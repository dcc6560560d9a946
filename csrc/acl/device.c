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

/* ---- system parameters ----
 * As the runtime keeps them (aclrt[Ctx]{Set,Get}SysParamOpt): a process-wide value per option, 0 until
 * set, and per-context values that read back only once set (107021 before). The acl layer checks the
 * option (100000), the runtime the value (107000): the deterministic level is 0..3, other options 0 or
 * 1. ACL_OPT_ENABLE_DEBUG_KERNEL and early start have no observable effect on a host emulation; the
 * deterministic level is what core's kernels ask (opemu_deterministic). */
enum { SYS_PARAMS = OPEMU_SYS_PARAMS };
static int64_t sys_params[SYS_PARAMS];

/* 0 when `opt` is an option of this level (3, early start, is process-wide only), else the error. */
static aclError check_sys_param(aclSysParamOpt opt, int in_context, const char *api)
{
    if ((int)opt < 0 || (int)opt >= SYS_PARAMS - in_context)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: opt %d must be ACL_OPT_DETERMINISTIC(0), "
                          "ACL_OPT_ENABLE_DEBUG_KERNEL(1), ACL_OPT_STRONG_CONSISTENCY(2)%s", api, (int)opt,
                          in_context ? "" : " or ACL_OPT_ENABLE_KERNEL_EARLY_START(3)");
    return ACL_SUCCESS;
}

static aclError check_sys_value(aclSysParamOpt opt, int64_t value, const char *api)
{
    int64_t limit = opt == ACL_OPT_DETERMINISTIC ? 4 : 2;
    if (value < 0 || value >= limit)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: value %lld must be in [0, %lld)", api, (long long)value,
                          (long long)limit);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    aclError rc = check_sys_param(opt, 1, "aclrtCtxSetSysParamOpt");
    if (rc == ACL_SUCCESS)
        rc = check_sys_value(opt, value, "aclrtCtxSetSysParamOpt");
    if (rc)
        return rc;
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    ctx->sys_param[opt] = value;
    ctx->sys_param_set[opt] = 1;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    if (value == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][value]param must not be null.");
    aclError rc = check_sys_param(opt, 1, "aclrtCtxGetSysParamOpt");
    if (rc)
        return rc;
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    if (!ctx->sys_param_set[opt])
        return opemu_fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "aclrtCtxGetSysParamOpt: option %d was not set in "
                          "the current context", (int)opt);
    *value = ctx->sys_param[opt];
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    aclError rc = check_sys_param(opt, 0, "aclrtSetSysParamOpt");
    if (rc == ACL_SUCCESS)
        rc = check_sys_value(opt, value, "aclrtSetSysParamOpt");
    if (rc == ACL_SUCCESS) {
        __atomic_store_n(&sys_params[opt], value, __ATOMIC_RELAXED);
        if (opt == ACL_OPT_DETERMINISTIC)
            opemu_set_deterministic(value != 0);
    }
    return rc;
}

OPEMU_EXPORT aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    if (value == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][value]param must not be null.");
    aclError rc = check_sys_param(opt, 0, "aclrtGetSysParamOpt");
    if (rc == ACL_SUCCESS)
        *value = __atomic_load_n(&sys_params[opt], __ATOMIC_RELAXED);
    return rc;
}

OPEMU_EXPORT const char *aclrtGetSocName(void) { return opemu_soc_name(); }
