/* Settings read from the environment once, and the process-wide options the app can set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"

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

int opemu_strict(void)
{
    static int strict = -1;
    if (strict < 0) {
        const char *env = getenv("OPEMU_STRICT");
        strict = env && strcmp(env, "1") == 0;
        if (env && *env && !strict && strcmp(env, "0") != 0)
            opemu_setting_refused("OPEMU_STRICT", env, "0 or 1", "0");
    }
    return strict;
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
void opemu_set_deterministic(int on) { deterministic = on; }
