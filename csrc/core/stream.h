/* Streams and events (stream.c, event.c): the task queues every family submits its work to, and the
 * events recorded on them.
 *
 * A stream is a FIFO of tasks. By default (OPEMU_STREAM=eager) a task runs as it is launched;
 * with OPEMU_STREAM=deferred tasks wait for a synchronisation point, so an app that reads results
 * without synchronising sees stale data, as it would on hardware. */
#ifndef OPEMU_CORE_STREAM_H
#define OPEMU_CORE_STREAM_H

#include <stdint.h>
#include "acl/acl.h"
#include "core/device.h"

typedef int (*opemu_task_fn)(void *payload);
typedef void (*opemu_task_drop_fn)(void *payload);

opemu_stream *opemu_stream_new(opemu_context *ctx, int is_default);
void opemu_stream_release(opemu_stream *stream);
/* Runs `fn(payload)` in stream order: now (eager) or at the next synchronisation (deferred).
 * `drop` frees the payload once the task ran or was discarded. Returns the task's status when it
 * ran now, else 0. */
int opemu_stream_submit(opemu_stream *stream, opemu_task_fn fn, opemu_task_drop_fn drop, void *payload);
/* Runs every queued task in order; returns (and clears) the first failure since the last sync, whose
 * message becomes the thread's recent message again. */
int opemu_stream_drain(opemu_stream *stream);
/* From inside a task: when it returns, the tasks behind it wait until opemu_stream_resume (a blocking host
 * callback waits for its subscribed thread to run it). While the stream is held, a synchronisation waits,
 * except on the thread `owner` names, the one that must end the hold: that one fails with `status` and `reason`
 * (a static string), as the hardware would have waited for ever. */
void opemu_stream_hold(opemu_stream *stream, uint64_t owner, int status, const char *reason);
/* Ends the hold; on an eager stream, runs what was queued behind it on this thread. */
void opemu_stream_resume(opemu_stream *stream);
/* Runs the queued tasks up to the first that holds the stream, without waiting for a hold (a deferred stream's
 * work, up to a callback its subscribed thread is about to run). */
void opemu_stream_advance(opemu_stream *stream);
int32_t opemu_stream_device(const opemu_stream *stream);
int opemu_stream_is_default(const opemu_stream *stream);
/* Whether tasks are queued or running (aclrtStreamQuery, mcStreamQuery). */
int opemu_stream_busy(opemu_stream *stream);

/* What AscendCL's stream APIs set on a stream and read back; kept with the stream, which assigns the
 * id, so that it lives exactly as long. */
typedef struct {
    int32_t id;
    uint32_t priority;
    uint32_t flags;
    aclrtStreamAttrValue attributes[ACL_STREAM_ATTR_PRIORITY + 1]; /* by aclrtStreamAttr */
    int subscribed;
    uint64_t subscriber;
} opemu_stream_settings;
opemu_stream_settings *opemu_stream_settings_of(opemu_stream *stream);
/* Whether `match` accepts any live stream (asked under the list's lock: `match` must not call back in). */
int opemu_streams_any(int (*match)(opemu_stream *, void *), void *context);
/* Applies `fn` to every live stream, outside the list's lock (`fn` may run tasks). */
void opemu_streams_each(int (*fn)(opemu_stream *, void *), void *context);

int opemu_device_drain(int32_t device);
/* Drains the streams of `device` that `which` accepts. */
int opemu_device_drain_where(int32_t device, int (*which)(const opemu_stream *));
/* Releases every stream of `device` but the default ones (a device reset). */
void opemu_streams_release_device(int32_t device);

/* ---- events (event.c): a record executes in stream order and stamps the time ---- */
typedef struct opemu_event opemu_event;
/* A new live event with the creator's flags. */
opemu_event *opemu_event_new(uint32_t flags);
void opemu_event_free(opemu_event *event);
/* The live event `handle` is, or NULL (nothing recorded). */
opemu_event *opemu_event_live(const void *handle);
/* A live event's state: -1 when `event` is not a live event. */
typedef struct {
    int recorded;  /* a record was issued */
    int completed; /* ... and has executed */
    uint32_t flags;
    double time_ms; /* when it executed, on the monotonic clock */
} opemu_event_state;
int opemu_event_info(const void *event, opemu_event_state *state);
int opemu_event_waits_pending(const opemu_event *event);
/* Queues a record (or a reset) of `event` on `stream`; the status of submitting it. */
int opemu_event_record(opemu_event *event, opemu_stream *stream);
int opemu_event_reset(opemu_event *event, opemu_stream *stream);
/* Waits until the event's last record executed (drains its stream). */
int opemu_event_synchronize(opemu_event *event);
/* Queues on `stream` a wait for the event's last record: `api` names the call in a failure. */
int opemu_event_wait(opemu_stream *stream, opemu_event *event, const char *api);

#endif
