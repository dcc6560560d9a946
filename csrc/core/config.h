/* Settings read from the environment once (config.c), and the process-wide options the app sets.
 * Python reads the SoC, determinism, strictness and fault injection through the bridge. */
#ifndef OPEMU_CORE_CONFIG_H
#define OPEMU_CORE_CONFIG_H

#include <stdint.h>

/* OPEMU_SOC, or the product that supports every operator opemu implements. */
const char *opemu_soc_name(void);
/* ACL_OPT_DETERMINISTIC as the app last set it (aclrtSetSysParamOpt). */
int opemu_deterministic(void);
/* OPEMU_STRICT=1: the sanitizer's checks (`opemu check`). */
int opemu_strict(void);
/* Test-only fault injection: 1 when OPEMU_FAULT (a comma-separated list) names `entry`. */
int opemu_fault_at(const char *entry);

#ifndef OPEMU_GENERATOR /* C only: what Python does not see */
/* OPEMU_DEVICE_COUNT, OPEMU_DEVICE_MEMORY_MB, OPEMU_STREAM=deferred. */
int opemu_device_count(void);
uint64_t opemu_device_memory_bytes(void);
int opemu_deferred_streams(void);
void opemu_set_deterministic(int on);
/* An invalid OPEMU_* value: one line on stderr; the caller goes on with the default. */
void opemu_setting_refused(const char *name, const char *value, const char *expected, const char *fallback);
#endif

#endif
