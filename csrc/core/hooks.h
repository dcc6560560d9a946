/* The hooks: how core tells the layers above it what happens, without naming them.
 *
 * A layer that wants to hear of core's events, or that provides something core needs from above,
 * fills an opemu_hooks table and registers it once, when the library loads (a constructor). Core
 * calls each registered table's function for an event, in registration order; a NULL member is an
 * event that table ignores. Who registers today: the sanitizer (memory, resets, findings), the trace
 * (not-supported calls), AscendCL's exception callbacks (device faults), the MACA runtime
 * (not-supported calls, their reasons) and the bridge (the interpreter). */
#ifndef OPEMU_CORE_HOOKS_H
#define OPEMU_CORE_HOOKS_H

#include <stdint.h>
#include "core/memory.h"

typedef struct opemu_hooks {
    /* the memory registry (memory.c), under its lock: an allocation enters (it may attach a shadow)
     * or leaves the table, before the memory behind it is freed */
    void (*allocated)(opemu_allocation *a);
    void (*released)(const opemu_allocation *a);
    /* an access found no live device allocation at `address` */
    void (*missing)(const void *address, const char *what);
    /* a kernel's access outside device memory faulted on `device` (-1: the calling thread's current
     * device); the app's exception callbacks hear of it */
    void (*device_fault)(int code, int32_t device);
    /* a device is reset: called before its memory is released */
    void (*device_reset)(int32_t device, const char *when);
    /* misuse the checks report (opemu_finding) */
    void (*finding)(const char *kind, const char *message);
    /* an exported function opemu does not emulate was called */
    void (*not_supported)(const char *function, int status, const char *status_name);
    /* why `function` is not supported, when there is more to say than that it is not emulated; else NULL */
    const char *(*unsupported_reason)(const char *function);
    /* starts the embedded interpreter once; 0, or -1 with the reason recorded for `entry_point` */
    int (*start_python)(const char *entry_point);
} opemu_hooks;

/* At load time only: tables are read without a lock. */
void opemu_hooks_register(const opemu_hooks *hooks);

/* Reports misuse the sanitizer reports (kind: a short tag such as "invalid-handle"); nothing
 * happens unless a layer registered a `finding` hook. */
void opemu_finding(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts Python once (through the bridge's hook); returns 0 or records the failure and returns -1. */
int opemu_python_ready(const char *entry_point);

/* ---- core's side: calls `event` of every registered table that has it ---- */
enum { OPEMU_HOOK_TABLES = 16 };
extern const opemu_hooks *opemu_hook_tables[OPEMU_HOOK_TABLES];
extern int opemu_hook_table_count;
#define OPEMU_NOTIFY(event, ...)                                              \
    do {                                                                      \
        for (int opemu_t_ = 0; opemu_t_ < opemu_hook_table_count; opemu_t_++) \
            if (opemu_hook_tables[opemu_t_]->event)                           \
                opemu_hook_tables[opemu_t_]->event(__VA_ARGS__);              \
    } while (0)

#endif
