/* Device-fault reporting and operator timeouts.
 *
 * On the device a task that faults (an AI Core exception) is reported to the exception callbacks the
 * app registered, with an aclrtExceptionInfo the getters read. opemu's device faults are the
 * kernel accesses outside every device allocation (opemu_device_range_check): core's hooks tell this
 * file of them, and it calls the callbacks in registration order, on the faulting thread.
 * The operator timeouts are kept and reported back; kernels are host computations that opemu
 * cannot interrupt, so no timeout ever fires. */
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "acl/acl.h"
#include "acl/diagnostics.h"
#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"

/* The vendor's getters answer 0xFFFFFFFF for a null exception info. */
#define INVALID_EXCEPTION_INFO 0xFFFFFFFFU
#define MAX_CALLBACKS 64
/* opemu's timeout granularity (aclrtGetOpTimeOutInterval): execute timeouts are multiples of it. */
#define TIMEOUT_INTERVAL_US 1000ULL

/* Opaque in the public header (typedef struct rtExceptionInfo aclrtExceptionInfo). */
struct rtExceptionInfo {
    uint32_t taskid;
    uint32_t streamid;
    uint32_t tid;
    uint32_t deviceid;
    uint32_t retcode;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static aclrtExceptionInfoCallback callbacks[MAX_CALLBACKS];
static size_t n_callbacks;
static aclrtExceptionInfoCallback legacy_callback; /* aclrtSetExceptionInfoCallback: one, replaced */
static uint32_t faults;
static uint64_t execute_timeout_us;
static uint32_t wait_timeout_s; /* bounds a collective's wait for its peers (0: no bound) */

static void raise_exception(int code, int32_t device)
{
    if (device < 0) {
        opemu_context *ctx = opemu_current_context();
        device = ctx ? ctx->device : 0;
    }
    pthread_mutex_lock(&lock);
    aclrtExceptionInfo info = {faults++, 0, (uint32_t)syscall(SYS_gettid), (uint32_t)device, (uint32_t)code};
    aclrtExceptionInfoCallback run[MAX_CALLBACKS + 1];
    size_t n = 0;
    if (legacy_callback)
        run[n++] = legacy_callback;
    for (size_t i = 0; i < n_callbacks; i++)
        run[n++] = callbacks[i];
    pthread_mutex_unlock(&lock);
    /* the info is live while the callbacks run: the getters accept it then, and nothing else */
    opemu_handle_add(&info, OPEMU_KIND_EXCEPTION_INFO);
    for (size_t i = 0; i < n; i++)
        run[i](&info);
    opemu_handle_remove(&info);
}

__attribute__((constructor)) static void hear_device_faults(void)
{
    static const opemu_hooks hooks = {.device_fault = raise_exception};
    opemu_hooks_register(&hooks);
}

OPEMU_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    pthread_mutex_lock(&lock);
    legacy_callback = callback; /* null unregisters, as the vendor's module registration does */
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    if (callback == NULL)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtExceptionInfoCallbackRegister: callback is null");
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < n_callbacks && callbacks[i] != callback)
        i++;
    int full = i == n_callbacks && n_callbacks == MAX_CALLBACKS;
    if (i == n_callbacks && !full)
        callbacks[n_callbacks++] = callback; /* registering one twice keeps one registration */
    pthread_mutex_unlock(&lock);
    if (full)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtExceptionInfoCallbackRegister: %d callbacks are "
                          "registered already", MAX_CALLBACKS);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    if (callback == NULL)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtExceptionInfoCallbackUnregister: callback is null");
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_callbacks; i++) {
        if (callbacks[i] == callback) {
            callbacks[i] = callbacks[--n_callbacks];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* An exception info is only valid inside the callback it was passed to. */
static int live_info(const aclrtExceptionInfo *info, const char *api)
{
    if (info == NULL || !opemu_handle_is(info, OPEMU_KIND_EXCEPTION_INFO)) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: info %p is not the exception info of a running exception callback",
                   api, (const void *)info);
        return 0;
    }
    return 1;
}

static uint32_t info_field(const aclrtExceptionInfo *info, size_t offset, const char *api)
{
    if (!live_info(info, api))
        return INVALID_EXCEPTION_INFO;
    return *(const uint32_t *)((const char *)info + offset);
}

#define FIELD_GETTER(api, field)                                                          \
    OPEMU_EXPORT uint32_t api(const aclrtExceptionInfo *info)                              \
    {                                                                                      \
        return info_field(info, offsetof(aclrtExceptionInfo, field), #api);                \
    }
FIELD_GETTER(aclrtGetTaskIdFromExceptionInfo, taskid)
FIELD_GETTER(aclrtGetStreamIdFromExceptionInfo, streamid)
FIELD_GETTER(aclrtGetThreadIdFromExceptionInfo, tid)
FIELD_GETTER(aclrtGetDeviceIdFromExceptionInfo, deviceid)
FIELD_GETTER(aclrtGetErrorCodeFromExceptionInfo, retcode)

/* opemu's faults are accesses by whole operators, not by a launched kernel with an argument block
 * or function handle: the vendor answers a fault of that kind as an invalid exception type. */
OPEMU_EXPORT aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                    uint32_t *devArgsLen)
{
    if (!live_info(info, "aclrtGetArgsFromExceptionInfo")) /* null: the vendor's answer; a foreign pointer: an invalid parameter */
        return info == NULL ? (aclError)INVALID_EXCEPTION_INFO : ACL_ERROR_INVALID_PARAM;
    if (devArgsPtr == NULL || devArgsLen == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetArgsFromExceptionInfo: devArgsPtr and devArgsLen must "
                          "not be null");
    return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetArgsFromExceptionInfo: the exception (an operator's access "
                      "outside device memory) has no kernel argument block");
}

OPEMU_EXPORT aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func)
{
    if (!live_info(info, "aclrtGetFuncHandleFromExceptionInfo")) /* null: the vendor's answer; a foreign pointer: an invalid parameter */
        return info == NULL ? (aclError)INVALID_EXCEPTION_INFO : ACL_ERROR_INVALID_PARAM;
    if (func == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetFuncHandleFromExceptionInfo: func is null");
    return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetFuncHandleFromExceptionInfo: the exception (an operator's "
                      "access outside device memory) did not come from a launched kernel function");
}

/* opemu's devices raise no memory (UCE), L2 or link errors: the verbose error is "no error". */
OPEMU_EXPORT aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    if (errorInfo == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetErrorVerbose: errorInfo is null");
    if (deviceId < 0 || deviceId >= opemu_device_count())
        return opemu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetErrorVerbose: device %d does not exist", deviceId);
    memset(errorInfo, 0, sizeof *errorInfo);
    errorInfo->errorType = ACL_RT_NO_ERROR;
    return ACL_SUCCESS;
}

/* ---- operator timeouts ---- */

static void set_execute_timeout_us(uint64_t us)
{
    pthread_mutex_lock(&lock);
    execute_timeout_us = us;
    pthread_mutex_unlock(&lock);
}

OPEMU_EXPORT aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    set_execute_timeout_us((uint64_t)timeout * 1000000ULL);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    set_execute_timeout_us((uint64_t)timeout * 1000ULL);
    return ACL_SUCCESS;
}

/* The timeout actually applied is the request rounded up to the interval (0 keeps the default). */
OPEMU_EXPORT aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    if (actualTimeout == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetOpExecuteTimeOutV2: actualTimeout is null");
    if (timeout > UINT64_MAX - TIMEOUT_INTERVAL_US)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetOpExecuteTimeOutV2: timeout %llu us is too large",
                          (unsigned long long)timeout);
    uint64_t actual = (timeout + TIMEOUT_INTERVAL_US - 1) / TIMEOUT_INTERVAL_US * TIMEOUT_INTERVAL_US;
    set_execute_timeout_us(actual);
    *actualTimeout = actual;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    if (timeoutMs == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetOpExecuteTimeout: timeoutMs is null");
    pthread_mutex_lock(&lock);
    uint64_t ms = execute_timeout_us / 1000ULL;
    pthread_mutex_unlock(&lock);
    *timeoutMs = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    if (interval == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetOpTimeOutInterval: interval is null");
    *interval = TIMEOUT_INTERVAL_US;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    pthread_mutex_lock(&lock);
    wait_timeout_s = timeout; /* 0: wait without limit */
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

uint32_t opemu_op_wait_timeout_s(void)
{
    pthread_mutex_lock(&lock);
    uint32_t seconds = wait_timeout_s;
    pthread_mutex_unlock(&lock);
    return seconds;
}
