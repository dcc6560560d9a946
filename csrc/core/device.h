/* Devices and contexts (device.c): each device's default context (with its default stream), the
 * calling thread's current context, and what a device holds until it is reset. AscendCL counts
 * aclrtSetDevice calls; MACA's primary context is the same default context, created on first use. */
#ifndef OPEMU_CORE_DEVICE_H
#define OPEMU_CORE_DEVICE_H

#include <stdint.h>
#include "acl/acl.h"

typedef struct opemu_stream opemu_stream;
/* The runtime's system parameters (aclSysParamOpt: deterministic, debug kernel, strong consistency,
 * early start); a context keeps its own values of the first three. */
#define OPEMU_SYS_PARAMS 4
typedef struct opemu_context {
    int32_t device;
    int is_default;
    opemu_stream *default_stream;
    int64_t sys_param[OPEMU_SYS_PARAMS];     /* aclrtCtxSetSysParamOpt's values, by aclSysParamOpt */
    uint8_t sys_param_set[OPEMU_SYS_PARAMS];
} opemu_context;

/* The calling thread's current context, or NULL after recording ACL_ERROR_RT_CONTEXT_NULL. */
opemu_context *opemu_current_context(void);
void opemu_set_current_context(opemu_context *ctx);
/* Resolves an app's stream argument: NULL is the current context's default stream. Records the
 * error and returns NULL when it is not a live stream. */
opemu_stream *opemu_stream_resolve(aclrtStream stream, int *error);
/* aclrtSetDevice on a valid device id: its default context, created on first use, counted and made
 * current. opemu_device_unset undoes one count (all with `force`) and releases the device at 0. */
opemu_context *opemu_device_set(int32_t device);
void opemu_device_unset(int32_t device, int force);
/* The device's primary context (MACA): its default context, created on first use without counting;
 * made the thread's current context unless that is already on the device. NULL for an invalid id. */
opemu_context *opemu_primary_context(int32_t device);
/* Releases everything `device` holds (memory, streams, its default context), however it was set. */
void opemu_device_reset(int32_t device);
/* A context of its own on `device` (aclrtCreateContext), made current; and its end. */
opemu_context *opemu_context_create(int32_t device);
void opemu_context_destroy(opemu_context *ctx);

/* A kernel starts (+1) or ends (-1) on `device`; whether one runs now (aclrtGetDeviceUtilizationRate). */
void opemu_device_busy(int32_t device, int delta);
int opemu_device_running(int32_t device);

#endif
