/* What the MACA runtime's C files share: the error model, the current device and streams of
 * runtime.c, the copy machinery of copy.c, the pools of pool.c, the host-memory records of memory.c. */
#ifndef OPEMU_MC_INTERNAL_H
#define OPEMU_MC_INTERNAL_H

#include <pthread.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/stream.h"
#include "mc/mc.h"
#include "mcr/mc_runtime_api.h"
#include "sanitizer/sanitizer.h"

/* ---- errors (runtime.c) ---- */
/* Records `code` as the thread's sticky error with a message (mcGetLastError, aclGetRecentErrMsg). */
mcError_t mc_fail(mcError_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A status from the shared runtime (an aclError or a task's status) as a recorded mcError_t. */
mcError_t mc_from_runtime(int code, const char *api);
mcError_t mc_check_device(int device, const char *api);
/* Checks a byte count the caller is about to round up to `granule`: sizes near 2^64 would wrap. */
mcError_t mc_check_size(size_t size, size_t granule, const char *api);
/* A device allocation of `size` (> 0) bytes on `device`, 512-byte aligned. */
mcError_t mc_device_malloc(void **devPtr, size_t size, int device, const char *api);

/* Whether `function` is a runtime function (mc*, not mcdnn*, mcblas* or mccl*). */
int mc_runtime_function(const char *function);

/* ---- the thread's device and streams (runtime.c) ---- */
/* The current device's primary context, created on first use. */
opemu_context *mc_context(void);
/* The stream an mc call names (0: the current device's default stream); NULL after recording
 * mcErrorInvalidResourceHandle in *error. */
opemu_stream *mc_stream(mcStream_t stream, const char *api, mcError_t *error);

/* ---- copies and sets (copy.c): `height` rows of `width` bytes, rows `pitch` apart ---- */
typedef struct {
    void *dst;
    size_t dpitch;
    const void *src;
    size_t spitch;
    size_t width, height;
    int value;
    int is_set;
    int synchronous; /* the host waits for it: a read of memory a queued task will still write is stale */
} mc_transfer;
/* Checks a copy's kind and pointers: the side(s) the kind (or, for mcMemcpyDefault, the pointers)
 * puts on the device must hold `dspan`/`sspan` bytes inside one live device allocation. */
mcError_t mc_check_copy(void *dst, size_t dspan, const void *src, size_t sspan, mcMemcpyKind kind, const char *api);
/* `count` bytes at `address` inside one live device allocation (on `device`, unless it is -1). */
mcError_t mc_device_side(const void *address, size_t count, int device, const char *api, const char *side);
/* Runs a transfer after the device's queued work (synchronous calls), or queues it on a stream. */
mcError_t mc_transfer_now(const mc_transfer *t, const char *api);
mcError_t mc_transfer_on(const mc_transfer *t, mcStream_t stream, const char *api);

/* ---- memory pools (pool.c) ---- */
/* Frees `ptr` when a pool allocated it (after the device's queued work): 1 when it did, else 0. */
int mc_pool_free_now(void *ptr);
/* Gives back cached pool memory above each pool's release threshold, as a synchronisation does. */
void mc_pools_trim(int device);
/* Forgets the device's pools' bookkeeping (mcDeviceReset releases their memory). */
void mc_pools_reset(int device);

/* ---- host memory (memory.c) ---- */
/* Whether `ptr` is page-locked host memory (mcHostAlloc, mcMallocHost or mcHostRegister). */
int mc_host_pinned(const void *ptr);
/* Whether `ptr` starts a managed allocation, and forgetting one at mcFree or mcDeviceReset. */
int mc_managed_release(void *ptr);
void mc_managed_reset(int device);

/* ---- peer access (device.c) ---- */
void mc_peer_reset(int device);

/* ---- stream attributes (stream.c) ---- */
void mc_stream_forget(mcStream_t stream);
/* Whether the legacy default stream waits for stream `s` (it was not created mcStreamNonBlocking). */
int mc_stream_blocking(const opemu_stream *s);

#endif
