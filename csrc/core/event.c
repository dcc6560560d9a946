/* Events: a record is a task that stamps the time when its stream reaches it; a wait is a task that
 * waits for the record it names: on a deferred stream by draining the record's stream, on an eager
 * one by holding its stream (core/stream.h) until the record runs, whatever thread runs it, so that
 * an eager wait never blocks its thread. Event tasks name the event by address and check it
 * is still live when they run, so an event may be destroyed while its tasks are queued. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/handles.h"
#include "core/stream.h"

/* One issued record, shared by the record task and the waits issued while it had not executed.
 * Counted references; `done` and `waiters` under tickets_lock. */
typedef struct waiter {
    opemu_stream *stream;
    struct waiter *next;
} waiter;

typedef struct {
    int refs;
    int done;
    waiter *waiters;
} record_ticket;

static pthread_mutex_t tickets_lock = PTHREAD_MUTEX_INITIALIZER;

struct opemu_event {
    uint32_t flags;
    int recorded;
    int completed;
    double time_ms;
    opemu_stream *stream;
    int waits_pending; /* waits queued on it that have yet to run */
    record_ticket *ticket; /* the last record's */
};

static record_ticket *ticket_new(void)
{
    record_ticket *t = calloc(1, sizeof *t);
    t->refs = 1;
    return t;
}

static record_ticket *ticket_hold(record_ticket *t)
{
    pthread_mutex_lock(&tickets_lock);
    t->refs++;
    pthread_mutex_unlock(&tickets_lock);
    return t;
}

/* Marks the record executed (or never to be: its stream went away) and lets its waiters go on. */
static void ticket_done(record_ticket *t)
{
    pthread_mutex_lock(&tickets_lock);
    t->done = 1;
    waiter *list = t->waiters;
    t->waiters = NULL;
    pthread_mutex_unlock(&tickets_lock);
    while (list) {
        waiter *next = list->next;
        opemu_stream_complete(list->stream, 0, NULL);
        free(list);
        list = next;
    }
}

static void ticket_release(record_ticket *t)
{
    if (t == NULL)
        return;
    pthread_mutex_lock(&tickets_lock);
    int last = --t->refs == 0;
    pthread_mutex_unlock(&tickets_lock);
    if (last)
        free(t);
}

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
    ticket_release(e->ticket);
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

typedef struct {
    opemu_event *event;
    record_ticket *ticket;
} pending_record;

static int record_task(void *payload)
{
    pending_record *r = payload;
    opemu_event *e = opemu_event_live(r->event);
    if (e && e->ticket == r->ticket) {
        e->time_ms = now_ms();
        e->completed = 1;
    }
    return 0;
}

/* After the record ran, or when it was discarded unrun (its stream went away): either way its
 * waiters go on (a discarded record would otherwise keep them waiting for ever). */
static void drop_record(void *payload)
{
    pending_record *r = payload;
    ticket_done(r->ticket);
    ticket_release(r->ticket);
    free(r);
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
    pending_record *r = malloc(sizeof *r);
    if (r == NULL)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory recording an event");
    ticket_release(e->ticket);
    e->ticket = ticket_new();
    *r = (pending_record){e, ticket_hold(e->ticket)};
    e->recorded = 1;
    e->completed = 0;
    e->stream = s;
    return opemu_stream_submit(s, record_task, drop_record, r);
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
    record_ticket *ticket;   /* the record waited for */
    opemu_stream *waiting;
} pending_wait;

static int wait_stream_task(void *payload)
{
    pending_wait *w = payload;
    opemu_event *e = opemu_event_live(w->event);
    if (e)
        __atomic_fetch_sub(&e->waits_pending, 1, __ATOMIC_RELAXED);
    if (w->recording == NULL || !opemu_handle_is(w->recording, OPEMU_KIND_STREAM))
        return 0;
    if (opemu_deferred_streams())
        return opemu_stream_drain(w->recording);
    opemu_stream_hold(w->waiting, 0, 0, NULL); /* until the record runs (ticket_done) */
    waiter *entry = malloc(sizeof *entry);
    pthread_mutex_lock(&tickets_lock);
    int done = w->ticket->done || entry == NULL;
    if (!done) {
        *entry = (waiter){w->waiting, w->ticket->waiters};
        w->ticket->waiters = entry;
    }
    pthread_mutex_unlock(&tickets_lock);
    if (done) {
        opemu_stream_resume(w->waiting);
        if (entry == NULL)
            return opemu_stream_drain(w->recording);
        free(entry);
    }
    return 0;
}

static void drop_wait(void *payload)
{
    pending_wait *w = payload;
    ticket_release(w->ticket);
    free(w);
}

int opemu_event_wait(opemu_stream *s, opemu_event *e, const char *api)
{
    pending_wait *w = malloc(sizeof *w);
    if (w == NULL)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
    int waits = e->recorded && !e->completed && e->ticket;
    *w = (pending_wait){waits ? e->stream : NULL, e, waits ? ticket_hold(e->ticket) : NULL, s};
    __atomic_fetch_add(&e->waits_pending, 1, __ATOMIC_RELAXED);
    return opemu_stream_submit(s, wait_stream_task, drop_wait, w);
}
