/* Settings read from the environment once, and the process-wide options the app can set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* A product that supports every operator opemu implements (Atlas A2 training series). */
#define OPEMU_DEFAULT_SOC "Ascend910B1"
#define OPEMU_DEFAULT_DEVICES 8
#define OPEMU_DEFAULT_MEMORY (64ULL << 30)

/* An OPEMU_* value that is not one of its documented values is refused with one line on stderr,
 * and the default applies (a library must not end the app over a setting). */
void opemu_setting_refused(const char *name, const char *value, const char *expected, const char *fallback)
{
    fprintf(stderr, "opemu: %s=%s is refused: expected %s; using %s\n", name, value, expected, fallback);
}

static long env_long(const char *name, long fallback, long lo, long hi)
{
    const char *text = getenv(name);
    if (text == NULL || *text == 0)
        return fallback;
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*end == 0 && errno == 0 && value >= lo && value <= hi)
        return value;
    char expected[96], fallback_text[32];
    snprintf(expected, sizeof expected, "an integer from %ld to %ld", lo, hi);
    snprintf(fallback_text, sizeof fallback_text, fallback ? "%ld" : "the default", fallback);
    opemu_setting_refused(name, text, expected, fallback_text);
    return fallback;
}

int opemu_device_count(void)
{
    static int count;
    if (count == 0)
        count = (int)env_long("OPEMU_DEVICE_COUNT", OPEMU_DEFAULT_DEVICES, 1, 1024);
    return count;
}

uint64_t opemu_device_memory_bytes(void)
{
    static uint64_t bytes;
    if (bytes == 0) {
        long mib = env_long("OPEMU_DEVICE_MEMORY_MB", 0, 1, 1L << 30);
        bytes = mib ? (uint64_t)mib << 20 : OPEMU_DEFAULT_MEMORY;
    }
    return bytes;
}

int opemu_deferred_streams(void)
{
    static int refused;
    const char *mode = getenv("OPEMU_STREAM");
    if (mode && *mode && strcmp(mode, "deferred") != 0 && strcmp(mode, "eager") != 0 &&
        !__atomic_exchange_n(&refused, 1, __ATOMIC_RELAXED))
        opemu_setting_refused("OPEMU_STREAM", mode, "eager or deferred", "eager");
    return mode && strcmp(mode, "deferred") == 0;
}

const char *opemu_soc_name(void)
{
    const char *soc = getenv("OPEMU_SOC");
    return soc && *soc ? soc : OPEMU_DEFAULT_SOC;
}

int opemu_fault_at(const char *entry)
{
    const char *list = getenv("OPEMU_FAULT");
    size_t n = strlen(entry);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, entry, n) == 0 && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

/* System parameters (aclrt[Ctx]{Set,Get}SysParamOpt), as the runtime keeps them: a process-wide value
 * per option, 0 until set, and per context values that read back only once set (107021 before). The
 * acl layer checks the option (100000), the runtime the value (107000): the deterministic level is
 * 0..3, other options 0 or 1. ACL_OPT_ENABLE_DEBUG_KERNEL and early start have no observable effect
 * on a host emulation. */
enum { SYS_PARAMS = 4 };
static int64_t sys_params[SYS_PARAMS];

int opemu_deterministic(void) { return __atomic_load_n(&sys_params[ACL_OPT_DETERMINISTIC], __ATOMIC_RELAXED) != 0; }

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
    if (rc == ACL_SUCCESS)
        __atomic_store_n(&sys_params[opt], value, __ATOMIC_RELAXED);
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
