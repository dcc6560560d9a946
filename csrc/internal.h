/* C-only internals of the runtime: locks, handle table, devices, contexts, streams, memory. */
#ifndef OPEMU_INTERNAL_H
#define OPEMU_INTERNAL_H

#include <pthread.h>
#include "bridge_api.h"
#include "aclnn/opdev/op_errno.h"

/* Marks a definition of a public entry point. The build renames each to opemu_impl_X
 * (cmake/gen_bridge.py --impl-names); the exported X is the generated shim that calls it. */
#define OPEMU_EXPORT

/* ---- the API trace (trace.c), written by the generated shims when OPEMU_TRACE names a file ---- */
extern int opemu_trace_enabled;
typedef struct {
    char text[8192];
    size_t length;
    double start_us;
    unsigned long error_mark; /* opemu_error_serial() when the call began */
    char names[1024];         /* "argument": "member name" of the enum arguments so far */
    size_t names_length;
} opemu_trace;
void opemu_trace_begin(opemu_trace *t, const char *function);
void opemu_trace_integer(opemu_trace *t, const char *name, long long value);
void opemu_trace_double(opemu_trace *t, const char *name, double value);
void opemu_trace_pointer(opemu_trace *t, const char *name, const void *value);
void opemu_trace_string(opemu_trace *t, const char *name, const char *value);
void opemu_trace_tensor(opemu_trace *t, const char *name, const aclTensor *tensor);
/* An enum argument: its value, and the member's name (from the tables generated from the headers;
 * NULL when the value has none), which the record lists under "arg_names". */
void opemu_trace_enum(opemu_trace *t, const char *name, long long value, const char *member);
/* `status_name`: the returned status code's name, or NULL (not a status type, or a code without one). */
void opemu_trace_end(opemu_trace *t, long long status, const char *status_name, const void *returned);
size_t opemu_handle_count(int kind);

/* A line flagged "not_supported" for a function with no emulation (its shim records no arguments). */
void opemu_trace_unsupported(const char *function, int status, const char *status_name);

/* ---- phase 1 without Python for a signature seen before (plan_cache.c), from the generated shims ---- */
enum { OPEMU_PLAN_KEY_WORDS = 512 };
typedef struct opemu_plan_cache opemu_plan_cache;
typedef struct opemu_plan_key {
    int64_t words[OPEMU_PLAN_KEY_WORDS];
    int64_t n_words;
    int valid; /* 0: a dead handle, an injected fault or too long a key; Python decides */
    opemu_plan_cache **cache;
    struct opemu_plan_key *outer;
} opemu_plan_key;
void opemu_key_begin(opemu_plan_key *k, opemu_plan_cache **cache, const char *entry);
void opemu_key_tensor(opemu_plan_key *k, const aclTensor *tensor);
void opemu_key_tensor_list(opemu_plan_key *k, const aclTensorList *list);
void opemu_key_scalar(opemu_plan_key *k, const aclScalar *scalar);
void opemu_key_scalar_list(opemu_plan_key *k, const aclScalarList *list);
void opemu_key_array(opemu_plan_key *k, const void *array, int kind);
void opemu_key_value(opemu_plan_key *k, const void *value, size_t n);
/* 0 with the executor made and the workspace size written when the key's plan is remembered, else -1. */
int opemu_plan_reuse(opemu_plan_key *k, const void *const *arguments, uint64_t *workspace_size,
                     aclOpExecutor **executor);
/* Around the call into Python: the key opemu_plan_remember files the plan under. */
void opemu_key_enter(opemu_plan_key *k);
void opemu_key_leave(opemu_plan_key *k);

/* ---- functions opemu exports but does not emulate (unsupported.c) ---- */
/* Records the not-supported message for `function` (declared in `header`, "" when no public header
 * does) the family's way, flags the trace, warns once per process; returns `status`. */
int opemu_not_supported(int status, const char *status_name, const char *function, const char *header);
/* `text` (a status's fixed description), followed by the thread's last not-supported message when
 * `status` is what that call returned: how mcGetErrorString and friends name the function. */
const char *opemu_status_text(int status, const char *text);

/* ---- errors and log (errors.c) ---- */
/* Records `code`'s message for aclGetRecentErrMsg and the log, returns `code`. */
int opemu_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Puts back a message taken with aclGetRecentErrMsg, already in the vendor's format. */
void opemu_error_restore(const char *formatted);

/* ---- handle table (handles.c): a wrong, destroyed or random pointer is never dereferenced ---- */
void opemu_handle_add(const void *handle, int kind);
void opemu_handle_remove(const void *handle);

/* ---- configuration (config.c) ---- */
int opemu_device_count(void);
uint64_t opemu_device_memory_bytes(void);
int opemu_deferred_streams(void);

/* ---- devices and contexts (device.c) ---- */
typedef struct opemu_stream opemu_stream;
typedef struct opemu_context {
    int32_t device;
    int is_default;
    opemu_stream *default_stream;
} opemu_context;

/* The calling thread's current context, or NULL after recording ACL_ERROR_RT_CONTEXT_NULL. */
opemu_context *opemu_current_context(void);
int opemu_initialized(void);
/* The device's primary context (MACA): its default context, created on first use; made the thread's
 * current context unless that is already on the device. NULL for an invalid device id. */
opemu_context *opemu_primary_context(int32_t device);
/* Releases everything `device` holds (memory, streams, its default context), however it was set. */
void opemu_device_reset(int32_t device);

/* ---- streams, events, tasks (stream.c) ---- */
typedef int (*opemu_task_fn)(void *payload);
typedef void (*opemu_task_drop_fn)(void *payload);
/* Resolves an app's stream argument: NULL is the current context's default stream. Records the
 * error and returns NULL when it is not a live stream. */
opemu_stream *opemu_stream_resolve(aclrtStream stream, int *error);
/* Runs `fn(payload)` in stream order: now (eager) or at the next synchronisation (deferred).
 * `drop` frees the payload once the task ran or was discarded. Returns the task's status when it
 * ran now, else 0. */
int opemu_stream_submit(opemu_stream *stream, opemu_task_fn fn, opemu_task_drop_fn drop, void *payload);
opemu_stream *opemu_stream_new(opemu_context *ctx, int is_default);
void opemu_stream_release(opemu_stream *stream);
int opemu_stream_drain(opemu_stream *stream);
/* A task that finishes later (off the running thread) returns OPEMU_TASK_PENDING; whoever finishes
 * it calls opemu_stream_complete once, with its status (0, or an aclError and its message). Nothing
 * after it on the stream runs before that; eager launches behind it are queued, and the completing
 * thread runs them. -1 when the stream is no longer live. */
#define OPEMU_TASK_PENDING (-0x7ffe)
int opemu_stream_complete(opemu_stream *stream, int status, const char *message);
/* Set by a task about to return OPEMU_TASK_PENDING: a synchronisation waiting for it calls
 * help(arg) now and then (e.g. to run the peers' deferred streams). */
void opemu_stream_helper(opemu_stream *stream, void (*help)(void *), void *arg);
/* Runs the stream's queued tasks on this thread while they can run now; never waits. */
void opemu_stream_progress(opemu_stream *stream);
int opemu_device_drain(int32_t device);
/* Drains the streams of `device` that `which` accepts. */
int opemu_device_drain_where(int32_t device, int (*which)(const opemu_stream *));
void opemu_streams_release_device(int32_t device);
int32_t opemu_stream_device(const opemu_stream *stream);
/* A live event's state; -1 when `event` is not a live event. */
int opemu_event_info(const void *event, int *recorded, int *completed, uint32_t *flags, double *time_ms);

/* ---- device memory registry (memory.c) ---- */
enum { OPEMU_MEM_DEVICE = 1, OPEMU_MEM_HOST = 2 };
typedef struct opemu_shadow opemu_shadow;
typedef struct opemu_allocation {
    uintptr_t start;
    uint64_t requested;
    uint64_t mapped;
    int32_t device;
    int32_t kind;
    opemu_shadow *shadow; /* the sanitizer's bookkeeping (OPEMU_STRICT=1), else NULL */
    int32_t borrowed;     /* memory the registry does not own: an OPEMU_BORROWED_* source, else 0 */
} opemu_allocation;
/* Copies the live allocation containing `address` into *out; returns 1 when found. */
int opemu_memory_find(const void *address, opemu_allocation *out);
void opemu_memory_release_device(int32_t device);
/* Registers `mapped` bytes (start aligned to `alignment`) as an allocation of `kind` on `device`
 * (-1 for host memory); 0, or -1 when the device's memory is exhausted. */
int opemu_memory_alloc(void **out, size_t size, uint64_t mapped, size_t alignment, int32_t device, int kind);
/* Releases the allocation of `kind` starting at ptr; 0, or -1 when ptr is no such allocation's start. */
int opemu_memory_free(void *ptr, int kind);
uint64_t opemu_memory_used(int32_t device);
uint64_t opemu_memory_peak(int32_t device);
/* Registers memory someone else owns (a mapped virtual range) as device memory of `device`, so
 * kernels and copies accept it; unregistering forgets it without freeing. */
enum { OPEMU_BORROWED_MAPPING = 1 /* vmm.c */, OPEMU_BORROWED_HOST = 2 /* aclrtHostRegister */ };
int opemu_memory_register(void *start, uint64_t size, int32_t device, int borrowed);
void opemu_memory_unregister(void *start);
/* Counts `bytes` (negative: gives back) against the device's memory; -1 when it does not fit. */
int opemu_memory_charge(int32_t device, int64_t bytes);

/* ---- MACA runtime (mc_runtime.c) ---- */
/* The calling thread's MACA device (mcSetDevice; 0 until then). */
int opemu_mc_current_device(void);
/* Makes `code` the thread's sticky MACA runtime error (mcGetLastError), as a failed mc call does. */
void opemu_mc_set_last_error(int code);
/* Why an mc function is not supported when there is more to say than that (device code: mc_kernel.c),
 * else NULL. */
const char *opemu_mc_unsupported_reason(const char *function);

/* Calls `fn` on every live allocation (under the registry lock: `fn` must not call back in). */
void opemu_memory_each(void (*fn)(const opemu_allocation *, void *), void *context);

/* ---- device queries (device_query.c) ---- */
/* A kernel starts (+1) or ends (-1) on `device`: what aclrtGetDeviceUtilizationRate samples. */
void opemu_device_busy(int32_t device, int delta);

/* ---- device faults (diagnostics.c) ---- */
/* aclrtSetOpWaitTimeout's seconds (0: none set). */
uint32_t opemu_op_wait_timeout_s(void);
/* A task on `device` faulted with `code`: calls the app's exception callbacks. */
void opemu_raise_exception(int code, int32_t device);

/* ---- the sanitizer (sanitizer.c): OPEMU_STRICT=1, driven by `opemu check` ---- */
/* An invalid OPEMU_* value: one line on stderr; the caller goes on with the default (config.c). */
void opemu_setting_refused(const char *name, const char *value, const char *expected, const char *fallback);
/* Records a finding with the API call being made (kind: a short tag such as "use-after-free"). */
void opemu_finding(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void opemu_sanitize_alloc(opemu_allocation *a);
void opemu_sanitize_free(const opemu_allocation *a);
void opemu_sanitize_bad_free(const void *ptr, const char *api);
/* An access that found no live device allocation: reported as a use after free when it was one. */
void opemu_sanitize_missing(const void *address, const char *what);
/* opemu_strict and opemu_sanitize_access: bridge_api.h (Python kernels report their accesses too). */
/* A write queued on a stream (+1) or executed (-1). */
void opemu_sanitize_leaks(const char *when);
/* The memory behind an allocation: under the sanitizer device memory gets pages of its own (kept
 * inaccessible while no API call runs, so a host dereference faults as on the hardware). */
int opemu_block_obtain(void **out, size_t alignment, uint64_t mapped, int kind);
void opemu_block_release(const opemu_allocation *a);
/* Device memory the host may touch (managed memory): never made inaccessible. */
void opemu_block_host_accessible(const void *start);
/* Around every API call (the shims' trace): device memory is accessible while any call runs. */
void opemu_sanitize_enter(void);
void opemu_sanitize_leave(void);
/* Before a device reset releases the device's memory: what the app never freed is a leak. */
void opemu_sanitize_reset(int32_t device, const char *when);
/* A copy or set as it executes: its source is read (synchronous: the host waits for it), its
 * destination written. */
void opemu_sanitize_transfer(void *dst, const void *src, uint64_t count, int is_set, int synchronous);
const char *opemu_trace_current(void);
/* the messages set on this thread (errors.c): a count, and the text of the last one */
unsigned long opemu_error_serial(void);
const char *opemu_error_last(void);

/* ---- the embedded interpreter (python.c) ---- */
/* Starts Python once; returns 0 or records the failure and returns -1. */
int opemu_python_ready(const char *entry_point);

/* ---- aclnn phase 2 (launch.c) ---- */
aclnnStatus opemu_aclnn_launch(const char *op, void *workspace, uint64_t workspace_size,
                               aclOpExecutor *executor, aclrtStream stream);

#endif
