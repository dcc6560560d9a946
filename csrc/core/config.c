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

static int deterministic;

int opemu_deterministic(void) { return deterministic; }

static aclError set_sys_param(aclSysParamOpt opt, int64_t value)
{
    switch (opt) {
    case ACL_OPT_DETERMINISTIC:
        deterministic = value != 0;
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
