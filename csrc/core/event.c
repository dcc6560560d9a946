/* Events: a record is a task that stamps the time when its stream reaches it; a wait is a task that
 * drains the stream of the record it waits for. Event tasks name the event by address and check it
 * is still live when they run, so an event may be destroyed while its tasks are queued. */
#include <stdlib.h>
#include <time.h>
#include "core/errors.h"
#include "core/handles.h"
#include "core/stream.h"

struct opemu_event {
    uint32_t flags;
    int recorded;
    int completed;
    double time_ms;
    opemu_stream *stream;
    int waits_pending; /* waits queued on it that have yet to run */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

opemu_event *opemu_event_new(uint32_t flags)
{
    opemu_event *e = calloc(1, sizeof *e);
    e->flags = flags;
    opemu_handle_add(e, OPEMU_KIND_EVENT);
    return e;
}

void opemu_event_free(opemu_event *e)
{
    opemu_handle_remove(e);
    free(e);
}

opemu_event *opemu_event_live(const void *handle)
{
    return opemu_handle_is(handle, OPEMU_KIND_EVENT) ? (opemu_event *)handle : NULL;
}

int opemu_event_info(const void *event, opemu_event_state *state)
{
    const opemu_event *e = opemu_event_live(event);
    if (e == NULL)
        return -1;
    *state = (opemu_event_state){e->recorded, e->completed, e->flags, e->time_ms};
    return 0;
}

int opemu_event_waits_pending(const opemu_event *e) { return __atomic_load_n(&e->waits_pending, __ATOMIC_RELAXED); }

static int record_task(void *event)
{
    opemu_event *e = opemu_event_live(event);
    if (e) {
        e->time_ms = now_ms();
        e->completed = 1;
    }
    return 0;
}

static int reset_task(void *event)
{
    opemu_event *e = opemu_event_live(event);
    if (e)
        e->recorded = e->completed = 0;
    return 0;
}

int opemu_event_record(opemu_event *e, opemu_stream *s)
{
    e->recorded = 1;
    e->completed = 0;
    e->stream = s;
    return opemu_stream_submit(s, record_task, NULL, e);
}

int opemu_event_reset(opemu_event *e, opemu_stream *s) { return opemu_stream_submit(s, reset_task, NULL, e); }

int opemu_event_synchronize(opemu_event *e)
{
    if (e->recorded && !e->completed && opemu_handle_is(e->stream, OPEMU_KIND_STREAM))
        return opemu_stream_drain(e->stream);
    return 0;
}

/* A wait names the stream of the record it waits for, taken when the wait is issued: the app may
 * destroy the event before the waiting stream runs (CANN 8 allows it: the event's resources go
 * when the wait completes), and a later record must not change what an earlier wait waits for. */
typedef struct {
    opemu_stream *recording; /* NULL: nothing to wait for (never recorded, or already complete) */
    opemu_event *event;      /* for its count of pending waits, while it lives */
} pending_wait;

static int wait_stream_task(void *payload)
{
    pending_wait *w = payload;
    opemu_event *e = opemu_event_live(w->event);
    if (e)
        __atomic_fetch_sub(&e->waits_pending, 1, __ATOMIC_RELAXED);
    return w->recording && opemu_handle_is(w->recording, OPEMU_KIND_STREAM) ? opemu_stream_drain(w->recording) : 0;
}

int opemu_event_wait(opemu_stream *s, opemu_event *e, const char *api)
{
    pending_wait *w = malloc(sizeof *w);
    if (w == NULL)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
    *w = (pending_wait){e->recorded && !e->completed ? e->stream : NULL, e};
    __atomic_fetch_add(&e->waits_pending, 1, __ATOMIC_RELAXED);
    return opemu_stream_submit(s, wait_stream_task, free, w);
}
