/* Streams, events, host callbacks and synchronisation.
 *
 * A stream is a FIFO of tasks. By default (OPEMU_STREAM=eager) a task runs as it is launched;
 * with OPEMU_STREAM=deferred tasks wait for a synchronisation point, so an app that reads results
 * without synchronising sees stale data, as it would on hardware. A deferred task that fails makes
 * the stream report that status at its next synchronisation; an eager one returns it at launch.
 *
 * A task may also finish later, off the thread that ran it (a collective waits for its peers): it
 * returns OPEMU_TASK_PENDING and someone calls opemu_stream_complete once. Until then nothing after
 * it runs; an eager launch behind it is queued rather than run, so the caller never waits for a
 * peer, and the thread that completes it runs what was queued behind it. A synchronisation waits
 * for it, calling the helper the task named (which may run the peers' deferred streams). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

typedef struct task {
    opemu_task_fn fn;
    opemu_task_drop_fn drop;
    void *payload;
    struct task *next;
} task;

struct opemu_stream {
    opemu_context *ctx;
    int is_default;
    pthread_mutex_t lock;
    pthread_cond_t idle;
    task *head, *tail;
    int running;
    int pending;       /* a task returned OPEMU_TASK_PENDING and is not yet complete */
    int early;         /* ... or completed before it returned */
    int resume_queued; /* on a thread's list of streams to run after a completion */
    void (*help)(void *);
    void *help_arg;
    opemu_stream *resume_next;
    int error;
    char message[1024];
    int subscribed;
    uint64_t subscriber;
    int32_t id;
    uint32_t priority;
    uint32_t flags;
    aclrtStreamAttrValue attributes[ACL_STREAM_ATTR_PRIORITY + 1]; /* by aclrtStreamAttr */
    opemu_stream *next;
};

/* Stream priorities run from 0 (greatest) to 7 (least); one host thread runs every stream, so a
 * priority is recorded and reported but cannot change an order. */
#define GREATEST_PRIORITY 0
#define LEAST_PRIORITY 7
#define DEFAULT_PRIORITY 0
#define KNOWN_STREAM_FLAGS (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE | \
                            ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static opemu_stream *streams;

/* ---- the task queue ---- */

opemu_stream *opemu_stream_new(opemu_context *ctx, int is_default)
{
    static int32_t next_id;
    opemu_stream *s = calloc(1, sizeof *s);
    s->ctx = ctx;
    s->is_default = is_default;
    s->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    s->priority = DEFAULT_PRIORITY;
    s->attributes[ACL_STREAM_ATTR_PRIORITY].streamPriority = DEFAULT_PRIORITY;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    pthread_mutex_lock(&streams_lock);
    s->next = streams;
    streams = s;
    pthread_mutex_unlock(&streams_lock);
    opemu_handle_add(s, OPEMU_KIND_STREAM);
    return s;
}

static void discard_tasks(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    task *t = s->head;
    s->head = s->tail = NULL;
    pthread_mutex_unlock(&s->lock);
    while (t) {
        task *next = t->next;
        if (t->drop)
            t->drop(t->payload);
        free(t);
        t = next;
    }
}

void opemu_stream_release(opemu_stream *s)
{
    opemu_handle_remove(s);
    discard_tasks(s);
    pthread_mutex_lock(&streams_lock);
    for (opemu_stream **p = &streams; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            break;
        }
    }
    pthread_mutex_unlock(&streams_lock);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->idle);
    free(s);
}

/* Called with s->lock held; a task that will finish later counts as run (its status comes through
 * opemu_stream_complete). */
static int run_task(opemu_stream *s, task *t)
{
    s->running = 1;
    pthread_mutex_unlock(&s->lock);
    int rc = t->fn(t->payload);
    if (t->drop)
        t->drop(t->payload);
    free(t);
    pthread_mutex_lock(&s->lock);
    s->running = 0;
    if (rc == OPEMU_TASK_PENDING) {
        s->pending = !s->early;
        s->early = 0;
        rc = 0;
    }
    pthread_cond_broadcast(&s->idle);
    return rc;
}

static void record_failure(opemu_stream *s, int rc, const char *message)
{
    if (rc != 0 && s->error == 0) {
        s->error = rc;
        snprintf(s->message, sizeof s->message, "%s", message ? message : "a task on the stream failed");
    }
}

/* Runs the queued tasks in order on this thread (s->lock held), recording the first failure for the
 * next synchronisation. With `wait`, also waits out a task another thread runs and a pending one
 * (helping it along) until nothing is left; without, stops there. */
static void run_queued(opemu_stream *s, int wait)
{
    for (;;) {
        if (s->running || s->pending) {
            if (!wait)
                return;
            if (s->pending && s->help) {
                void (*help)(void *) = s->help;
                void *arg = s->help_arg;
                pthread_mutex_unlock(&s->lock);
                help(arg);
                pthread_mutex_lock(&s->lock);
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_nsec += 5000000;
                if (until.tv_nsec >= 1000000000L) {
                    until.tv_sec++;
                    until.tv_nsec -= 1000000000L;
                }
                if (s->pending)
                    pthread_cond_timedwait(&s->idle, &s->lock, &until);
            } else {
                pthread_cond_wait(&s->idle, &s->lock);
            }
            continue;
        }
        task *t = s->head;
        if (t == NULL)
            return;
        s->head = t->next;
        if (s->head == NULL)
            s->tail = NULL;
        int rc = run_task(s, t);
        if (rc != 0 && s->error == 0)
            record_failure(s, rc, aclGetRecentErrMsg()); /* (reading the message clears it) */
    }
}

void opemu_stream_progress(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    run_queued(s, 0);
    pthread_mutex_unlock(&s->lock);
}

void opemu_stream_helper(opemu_stream *s, void (*help)(void *), void *arg)
{
    pthread_mutex_lock(&s->lock);
    s->help = help;
    s->help_arg = arg;
    pthread_mutex_unlock(&s->lock);
}

/* An eager stream's tasks queued behind a completed one run on the completing thread; completions
 * that those tasks cause in turn are put on the thread's list rather than run recursively. */
static __thread opemu_stream *resume_list;
static __thread int resuming;

static void resume(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    int queue = !s->resume_queued;
    s->resume_queued = 1;
    if (queue) {
        s->resume_next = resume_list;
        resume_list = s;
    }
    pthread_mutex_unlock(&s->lock);
    if (resuming)
        return;
    resuming = 1;
    while (resume_list) {
        opemu_stream *next = resume_list;
        resume_list = next->resume_next;
        if (!opemu_handle_is(next, OPEMU_KIND_STREAM))
            continue;
        pthread_mutex_lock(&next->lock);
        next->resume_queued = 0;
        run_queued(next, 0);
        pthread_mutex_unlock(&next->lock);
    }
    resuming = 0;
}

int opemu_stream_complete(opemu_stream *s, int status, const char *message)
{
    if (!opemu_handle_is(s, OPEMU_KIND_STREAM))
        return -1;
    pthread_mutex_lock(&s->lock);
    record_failure(s, status, message);
    if (s->pending)
        s->pending = 0;
    else
        s->early = 1;
    s->help = NULL;
    pthread_cond_broadcast(&s->idle);
    int more = s->head != NULL && !s->running && !opemu_deferred_streams();
    pthread_mutex_unlock(&s->lock);
    if (more)
        resume(s);
    return 0;
}

/* Runs every queued task in order; returns (and clears) the first failure since the last sync. */
int opemu_stream_drain(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    run_queued(s, 1);
    int error = s->error;
    s->error = 0;
    pthread_mutex_unlock(&s->lock);
    if (error)
        opemu_error_restore(s->message);
    return error;
}

int opemu_stream_submit(opemu_stream *s, opemu_task_fn fn, opemu_task_drop_fn drop, void *payload)
{
    task *t = calloc(1, sizeof *t);
    t->fn = fn;
    t->drop = drop;
    t->payload = payload;
    pthread_mutex_lock(&s->lock);
    if (!opemu_deferred_streams()) {
        while (s->running && !s->pending && s->head == NULL)
            pthread_cond_wait(&s->idle, &s->lock);
        if (!s->pending && s->head == NULL) {
            int rc = run_task(s, t);
            pthread_mutex_unlock(&s->lock);
            return rc;
        }
    }
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

opemu_stream *opemu_stream_resolve(aclrtStream stream, int *error)
{
    if (stream == NULL) {
        opemu_context *ctx = opemu_current_context();
        *error = ACL_ERROR_RT_CONTEXT_NULL;
        return ctx ? ctx->default_stream : NULL;
    }
    if (!opemu_handle_is(stream, OPEMU_KIND_STREAM)) {
        if (opemu_strict())
            opemu_finding("invalid-handle", "%p is not a live stream (destroyed or never created)", stream);
        *error = opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live stream (destroyed or never created)", stream);
        return NULL;
    }
    return stream;
}

int32_t opemu_stream_device(const opemu_stream *s) { return s->ctx->device; }

/* Applies `fn` to every live stream of `device` (all devices when device < 0) that `which` accepts
 * (every one when it is NULL). */
static int for_each_stream_where(int32_t device, int (*fn)(opemu_stream *), int (*which)(const opemu_stream *))
{
    int first_error = 0;
    pthread_mutex_lock(&streams_lock);
    size_t n = 0;
    for (opemu_stream *s = streams; s; s = s->next)
        n++;
    opemu_stream **list = malloc((n + 1) * sizeof *list);
    n = 0;
    for (opemu_stream *s = streams; s; s = s->next)
        if (device < 0 || s->ctx->device == device)
            list[n++] = s;
    pthread_mutex_unlock(&streams_lock);
    for (size_t i = 0; i < n; i++) {
        if (!opemu_handle_is(list[i], OPEMU_KIND_STREAM) || (which && !which(list[i])))
            continue;
        int rc = fn(list[i]);
        if (rc && !first_error)
            first_error = rc;
    }
    free(list);
    return first_error;
}

static int for_each_stream(int32_t device, int (*fn)(opemu_stream *))
{
    return for_each_stream_where(device, fn, NULL);
}

int opemu_device_drain(int32_t device) { return for_each_stream(device, opemu_stream_drain); }

int opemu_device_drain_where(int32_t device, int (*which)(const opemu_stream *))
{
    return for_each_stream_where(device, opemu_stream_drain, which);
}

static int release_user_stream(opemu_stream *s)
{
    if (!s->is_default)
        opemu_stream_release(s);
    return 0;
}

void opemu_streams_release_device(int32_t device) { for_each_stream(device, release_user_stream); }

/* ---- stream APIs ---- */

OPEMU_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = opemu_stream_new(ctx, 0);
    return ACL_SUCCESS;
}

static aclError create_configured(aclrtStream *stream, uint32_t priority, uint32_t flag, const char *api)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is null", api);
    if (priority > LEAST_PRIORITY)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: priority %u is outside [%d, %d]", api, priority,
                          GREATEST_PRIORITY, LEAST_PRIORITY);
    if (flag & ~(uint32_t)KNOWN_STREAM_FLAGS)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: flag 0x%x has bits no ACL_STREAM_* flag names", api, flag);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    opemu_stream *s = opemu_stream_new(ctx, 0);
    s->priority = priority;
    s->attributes[ACL_STREAM_ATTR_PRIORITY].streamPriority = priority;
    s->flags = flag;
    *stream = s;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    return create_configured(stream, priority, flag, "aclrtCreateStreamWithConfig");
}

static aclError destroy_stream(aclrtStream stream, int force, const char *api)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is null", api);
    if (!opemu_handle_is(stream, OPEMU_KIND_STREAM))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not a live stream", api, stream);
    opemu_stream *s = stream;
    if (s->is_default)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: a default stream cannot be destroyed", api);
    if (!force)
        opemu_stream_drain(s);
    opemu_stream_release(s);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtDestroyStream(aclrtStream stream) { return destroy_stream(stream, 0, "aclrtDestroyStream"); }
OPEMU_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream(stream, 1, "aclrtDestroyStreamForce");
}

OPEMU_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    return s ? opemu_stream_drain(s) : rc;
}

OPEMU_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout < -1)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout: timeout %d is below -1", timeout);
    return aclrtSynchronizeStream(stream);
}

OPEMU_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is null");
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    pthread_mutex_lock(&s->lock);
    *status = s->head || s->running || s->pending ? ACL_STREAM_STATUS_NOT_READY : ACL_STREAM_STATUS_COMPLETE;
    pthread_mutex_unlock(&s->lock);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSynchronizeDevice(void)
{
    opemu_context *ctx = opemu_current_context();
    return ctx ? opemu_device_drain(ctx->device) : ACL_ERROR_RT_CONTEXT_NULL;
}

OPEMU_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    if (timeout < -1)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeDeviceWithTimeout: timeout %d is below -1", timeout);
    return aclrtSynchronizeDevice();
}

/* ---- events ---- */

/* One issued record, shared by the record task and the waits issued while it had not executed: on an
 * eager stream a wait does not block its thread but waits (pending) until the record runs, whatever
 * thread runs it. Counted references; `done` and `waiters` under tickets_lock. */
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

typedef struct {
    uint32_t flags;
    int recorded;  /* a record was issued */
    int completed; /* ... and has executed */
    double time_ms;
    opemu_stream *stream;
    int waits_pending; /* aclrtStreamWaitEvent tasks on it that have yet to run */
    record_ticket *ticket; /* the last record's */
} opemu_event;

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

static opemu_event *live_event(aclrtEvent event, const char *api, int *rc)
{
    if (event == NULL) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: event is null", api);
        return NULL;
    }
    if (!opemu_handle_is(event, OPEMU_KIND_EVENT)) {
        *rc = opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not a live event", api, event);
        return NULL;
    }
    return event;
}

static aclError create_event(aclrtEvent *event, uint32_t flag, const char *api)
{
    if (event == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: event is null", api);
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    opemu_event *e = calloc(1, sizeof *e);
    e->flags = flag;
    opemu_handle_add(e, OPEMU_KIND_EVENT);
    *event = e;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCreateEvent(aclrtEvent *event) { return create_event(event, 0, "aclrtCreateEvent"); }
OPEMU_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event(event, flag, "aclrtCreateEventWithFlag");
}
OPEMU_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event(event, flag, "aclrtCreateEventExWithFlag");
}

OPEMU_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    int rc;
    opemu_event *e = live_event(event, "aclrtDestroyEvent", &rc);
    if (e == NULL)
        return rc;
    opemu_handle_remove(e);
    ticket_release(e->ticket);
    free(e);
    return ACL_SUCCESS;
}

/* Event tasks name the event by address and check it is still live when they run. */
typedef struct {
    opemu_event *event;
    record_ticket *ticket;
} pending_record;

static int record_task(void *payload)
{
    pending_record *r = payload;
    if (opemu_handle_is(r->event, OPEMU_KIND_EVENT) && r->event->ticket == r->ticket) {
        r->event->time_ms = now_ms();
        r->event->completed = 1;
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
    if (opemu_handle_is(event, OPEMU_KIND_EVENT)) {
        opemu_event *e = event;
        e->recorded = e->completed = 0;
    }
    return 0;
}

static aclError submit_event_task(aclrtEvent event, aclrtStream stream, opemu_task_fn fn, const char *api)
{
    int rc;
    opemu_event *e = live_event(event, api, &rc);
    if (e == NULL)
        return rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    if (fn == record_task) {
        pending_record *r = malloc(sizeof *r);
        if (r == NULL)
            return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
        ticket_release(e->ticket);
        e->ticket = ticket_new();
        *r = (pending_record){e, ticket_hold(e->ticket)};
        e->recorded = 1;
        e->completed = 0;
        e->stream = s;
        return opemu_stream_submit(s, fn, drop_record, r);
    }
    return opemu_stream_submit(s, fn, NULL, e);
}

int opemu_event_info(const void *event, int *recorded, int *completed, uint32_t *flags, double *time_ms)
{
    if (!opemu_handle_is(event, OPEMU_KIND_EVENT))
        return -1;
    const opemu_event *e = event;
    *recorded = e->recorded;
    *completed = e->completed;
    *flags = e->flags;
    *time_ms = e->time_ms;
    return 0;
}

OPEMU_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    return submit_event_task(event, stream, record_task, "aclrtRecordEvent");
}

OPEMU_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    return submit_event_task(event, stream, reset_task, "aclrtResetEvent");
}

/* Both query APIs answer whether the event's last record has executed. */
static aclError query_event(aclrtEvent event, void *status, const char *api, int *completed)
{
    int rc;
    opemu_event *e = live_event(event, api, &rc);
    if (e == NULL)
        return rc;
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: status is null", api);
    *completed = e->completed;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    int completed = 0, rc = query_event(event, status, "aclrtQueryEvent", &completed);
    if (rc == ACL_SUCCESS)
        *status = completed ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return rc;
}

OPEMU_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    int completed = 0, rc = query_event(event, status, "aclrtQueryEventStatus", &completed);
    if (rc == ACL_SUCCESS)
        *status = completed ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return rc;
}

static int wait_for_event(opemu_event *e)
{
    if (e->recorded && !e->completed && opemu_handle_is(e->stream, OPEMU_KIND_STREAM))
        return opemu_stream_drain(e->stream);
    return 0;
}

OPEMU_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    int rc;
    opemu_event *e = live_event(event, "aclrtSynchronizeEvent", &rc);
    return e ? wait_for_event(e) : rc;
}

OPEMU_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    if (timeout < -1)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEventWithTimeout: timeout %d is below -1", timeout);
    return aclrtSynchronizeEvent(event);
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

/* Deferred streams run the recording stream here (nothing else would); an eager wait becomes a
 * pending task that the record completes, run by whichever thread runs the recording stream. */
static int wait_stream_task(void *payload)
{
    pending_wait *w = payload;
    if (opemu_handle_is(w->event, OPEMU_KIND_EVENT))
        __atomic_fetch_sub(&w->event->waits_pending, 1, __ATOMIC_RELAXED);
    if (w->recording == NULL || !opemu_handle_is(w->recording, OPEMU_KIND_STREAM))
        return 0;
    if (opemu_deferred_streams())
        return opemu_stream_drain(w->recording);
    waiter *entry = malloc(sizeof *entry);
    pthread_mutex_lock(&tickets_lock);
    int done = w->ticket->done || entry == NULL;
    if (!done) {
        *entry = (waiter){w->waiting, w->ticket->waiters};
        w->ticket->waiters = entry;
    }
    pthread_mutex_unlock(&tickets_lock);
    if (done) {
        free(entry);
        return entry == NULL ? opemu_stream_drain(w->recording) : 0;
    }
    return OPEMU_TASK_PENDING;
}

static void drop_wait(void *payload)
{
    pending_wait *w = payload;
    ticket_release(w->ticket);
    free(w);
}

static aclError wait_event(aclrtStream stream, aclrtEvent event, const char *api)
{
    int rc;
    opemu_event *e = live_event(event, api, &rc);
    if (e == NULL)
        return rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    pending_wait *w = malloc(sizeof *w);
    if (w == NULL)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory", api);
    int waits = e->recorded && !e->completed && e->ticket;
    *w = (pending_wait){waits ? e->stream : NULL, e, waits ? ticket_hold(e->ticket) : NULL, s};
    __atomic_fetch_add(&e->waits_pending, 1, __ATOMIC_RELAXED);
    return opemu_stream_submit(s, wait_stream_task, drop_wait, w);
}

OPEMU_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return wait_event(stream, event, "aclrtStreamWaitEvent");
}

/* The timeout bounds how long the device waits; opemu's waits never block (the recording stream
 * is drained), so it cannot expire. */
OPEMU_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    if (timeout < 0)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtStreamWaitEventWithTimeout: timeout %d is not in "
                          "[0, INT_MAX]", timeout);
    return wait_event(stream, event, "aclrtStreamWaitEventWithTimeout");
}

/* Complete once every wait queued on the event has run. */
OPEMU_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    int rc;
    opemu_event *e = live_event(event, "aclrtQueryEventWaitStatus", &rc);
    if (e == NULL)
        return rc;
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is null");
    *status = __atomic_load_n(&e->waits_pending, __ATOMIC_RELAXED) > 0 ? ACL_EVENT_WAIT_STATUS_NOT_READY
                                                                        : ACL_EVENT_WAIT_STATUS_COMPLETE;
    return ACL_SUCCESS;
}

/* When the event's last record executed, in microseconds of the monotonic clock. */
OPEMU_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    if (timestamp == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: timestamp is null");
    int rc;
    opemu_event *e = live_event(event, "aclrtEventGetTimestamp", &rc);
    if (e == NULL)
        return rc;
    if (!e->completed)
        return opemu_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventGetTimestamp: event %p has no executed "
                          "record", event);
    *timestamp = (uint64_t)(e->time_ms * 1000.0);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    int rc;
    if (ms == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is null");
    opemu_event *start = live_event(startEvent, "aclrtEventElapsedTime", &rc);
    if (start == NULL)
        return rc;
    opemu_event *end = live_event(endEvent, "aclrtEventElapsedTime", &rc);
    if (end == NULL)
        return rc;
    if (!start->completed || !end->completed)
        return opemu_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                          "aclrtEventElapsedTime: event recorder null: both events must have been recorded and completed");
    *ms = (float)(end->time_ms - start->time_ms);
    return ACL_SUCCESS;
}

/* ---- host callbacks: a subscribed thread runs them in aclrtProcessReport ---- */

typedef struct report {
    aclrtCallback fn;
    void *user_data;
    uint64_t thread;
    int block;
    int done;
    struct report *next;
} report;

static pthread_mutex_t reports_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reports_changed = PTHREAD_COND_INITIALIZER;
static report *reports;

static int subscribed_to_any(uint64_t thread)
{
    int found = 0;
    pthread_mutex_lock(&streams_lock);
    for (opemu_stream *s = streams; s && !found; s = s->next)
        found = s->subscribed && s->subscriber == thread;
    pthread_mutex_unlock(&streams_lock);
    return found;
}

OPEMU_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    if (s->subscribed)
        return opemu_fail(ACL_ERROR_REPEAT_SUBSCRIBE, "aclrtSubscribeReport: the stream is already subscribed");
    s->subscriber = threadId;
    s->subscribed = 1;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    if (!s->subscribed || s->subscriber != threadId)
        return opemu_fail(ACL_ERROR_STREAM_NOT_SUBSCRIBE, "aclrtUnSubscribeReport: the stream is not subscribed to this thread");
    s->subscribed = 0;
    return ACL_SUCCESS;
}

static int callback_task(void *payload)
{
    report *r = payload;
    pthread_mutex_lock(&reports_lock);
    r->next = reports;
    reports = r;
    pthread_cond_broadcast(&reports_changed);
    if (r->block) {
        while (!r->done)
            pthread_cond_wait(&reports_changed, &reports_lock);
        free(r);
    }
    pthread_mutex_unlock(&reports_lock);
    return 0;
}

OPEMU_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                          aclrtStream stream)
{
    if (fn == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is null");
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: invalid blockType %d", (int)blockType);
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    if (!s->subscribed)
        return opemu_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                          "The stream used by this user's callback function is not registered to any thread, "
                          "retCode=%#x", ACL_ERROR_RT_STREAM_NO_CB_REG);
    report *r = calloc(1, sizeof *r);
    r->fn = fn;
    r->user_data = userData;
    r->thread = s->subscriber;
    r->block = blockType == ACL_CALLBACK_BLOCK;
    return opemu_stream_submit(s, callback_task, NULL, r);
}

static report *take_report(uint64_t thread)
{
    for (report **p = &reports; *p; p = &(*p)->next) {
        if ((*p)->thread == thread) {
            report *r = *p;
            *p = r->next;
            return r;
        }
    }
    return NULL;
}

OPEMU_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
    if (timeout < -1 || timeout == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtProcessReport: timeout must be -1 or positive, got %d", timeout);
    uint64_t self = (uint64_t)pthread_self();
    if (!subscribed_to_any(self))
        return opemu_fail(ACL_ERROR_THREAD_NOT_SUBSCRIBE, "aclrtProcessReport: this thread is not subscribed to any stream");
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout / 1000;
    deadline.tv_nsec += (long)(timeout % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&reports_lock);
    report *r;
    while ((r = take_report(self)) == NULL) {
        int waited = timeout == -1 ? pthread_cond_wait(&reports_changed, &reports_lock)
                                   : pthread_cond_timedwait(&reports_changed, &reports_lock, &deadline);
        if (waited == ETIMEDOUT) {
            pthread_mutex_unlock(&reports_lock);
            return opemu_fail(ACL_ERROR_WAIT_CALLBACK_TIMEOUT, "aclrtProcessReport: no callback within %d ms", timeout);
        }
    }
    pthread_mutex_unlock(&reports_lock);
    r->fn(r->user_data);
    pthread_mutex_lock(&reports_lock);
    if (r->block) {
        r->done = 1;
        pthread_cond_broadcast(&reports_changed);
    } else {
        free(r);
    }
    pthread_mutex_unlock(&reports_lock);
    return ACL_SUCCESS;
}

/* ---- stream configuration, identity and attributes ---- */

OPEMU_EXPORT aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    aclrtStreamConfigHandle *handle = calloc(1, sizeof *handle);
    opemu_handle_add(handle, OPEMU_KIND_STREAM_CONFIG);
    return handle;
}

static aclError live_config(const aclrtStreamConfigHandle *handle, const char *api)
{
    if (handle == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is null", api);
    if (!opemu_handle_is(handle, OPEMU_KIND_STREAM_CONFIG))
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclrtStreamConfigHandle", api, (void *)handle);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    int rc = live_config(handle, "aclrtDestroyStreamConfigHandle");
    if (rc)
        return rc;
    opemu_handle_remove(handle);
    free(handle);
    return ACL_SUCCESS;
}

/* Each attribute takes a value of its own type, and valueSize must be that type's size. */
OPEMU_EXPORT aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                              const void *attrValue, size_t valueSize)
{
    int rc = live_config(handle, "aclrtSetStreamConfigOpt");
    if (rc)
        return rc;
    if (attrValue == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: attrValue is null");
    static const size_t sizes[] = {sizeof(void *), sizeof(size_t), sizeof(size_t), sizeof(uint32_t)};
    if ((unsigned)attr > ACL_RT_STREAM_PRIORITY)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: invalid attribute %d", (int)attr);
    if (valueSize != sizes[attr])
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: attribute %d takes %zu bytes, not %zu",
                          (int)attr, sizes[attr], valueSize);
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR: memcpy(&handle->workptr, attrValue, sizeof handle->workptr); break;
    case ACL_RT_STREAM_WORK_SIZE: memcpy(&handle->workSize, attrValue, sizeof handle->workSize); break;
    case ACL_RT_STREAM_FLAG: memcpy(&handle->flag, attrValue, sizeof handle->flag); break;
    case ACL_RT_STREAM_PRIORITY: {
        uint32_t priority;
        memcpy(&priority, attrValue, sizeof priority);
        if (priority > LEAST_PRIORITY)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: priority %u is outside [%d, %d]",
                              priority, GREATEST_PRIORITY, LEAST_PRIORITY);
        handle->priority = priority;
        break;
    }
    }
    return ACL_SUCCESS;
}

/* A null handle is the default configuration. */
OPEMU_EXPORT aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    if (handle != NULL) {
        int rc = live_config(handle, "aclrtCreateStreamV2");
        if (rc)
            return rc;
        if (handle->flag > UINT32_MAX)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStreamV2: flag 0x%zx has bits no ACL_STREAM_* "
                              "flag names", handle->flag);
    }
    return create_configured(stream, handle ? handle->priority : DEFAULT_PRIORITY,
                             handle ? (uint32_t)handle->flag : 0, "aclrtCreateStreamV2");
}

/* The stream the app named, NULL meaning the current context's default stream. */
static opemu_stream *stream_arg(aclrtStream stream, const void *out, const char *api, int *rc)
{
    if (out == NULL) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: output pointer is null", api);
        return NULL;
    }
    return opemu_stream_resolve(stream, rc);
}

OPEMU_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    int rc;
    opemu_stream *s = stream_arg(stream, streamId, "aclrtStreamGetId", &rc);
    if (s)
        *streamId = s->id;
    return s ? ACL_SUCCESS : rc;
}

OPEMU_EXPORT aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    int rc;
    opemu_stream *s = stream_arg(stream, priority, "aclrtStreamGetPriority", &rc);
    if (s)
        *priority = s->priority;
    return s ? ACL_SUCCESS : rc;
}

OPEMU_EXPORT aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    int rc;
    opemu_stream *s = stream_arg(stream, flags, "aclrtStreamGetFlags", &rc);
    if (s)
        *flags = s->flags;
    return s ? ACL_SUCCESS : rc;
}

OPEMU_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    if (leastPriority == NULL || greatestPriority == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtDeviceGetStreamPriorityRange: leastPriority and greatestPriority must not be null");
    *leastPriority = LEAST_PRIORITY;
    *greatestPriority = GREATEST_PRIORITY;
    return ACL_SUCCESS;
}

/* Which values each attribute takes: failure mode and the switches are 0/1, a priority 0..7, the
 * user tag anything. */
static int attribute_value_ok(aclrtStreamAttr attr, const aclrtStreamAttrValue *value)
{
    switch (attr) {
    case ACL_STREAM_ATTR_FAILURE_MODE: return value->failureMode <= ACL_STOP_ON_FAILURE;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: return value->overflowSwitch <= 1;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: return 1;
    case ACL_STREAM_ATTR_CACHE_OP_INFO: return value->cacheOpInfoSwitch <= 1;
    case ACL_STREAM_ATTR_PRIORITY: return value->streamPriority <= LEAST_PRIORITY;
    }
    return 0;
}

static opemu_stream *attribute_args(aclrtStream stream, aclrtStreamAttr attr, const aclrtStreamAttrValue *value,
                                    const char *api, int *rc)
{
    opemu_stream *s = stream_arg(stream, value, api, rc);
    if (s && (attr < ACL_STREAM_ATTR_FAILURE_MODE || attr > ACL_STREAM_ATTR_PRIORITY)) {
        *rc = opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: invalid stream attribute %d", api, (int)attr);
        return NULL;
    }
    return s;
}

OPEMU_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                              aclrtStreamAttrValue *value)
{
    int rc;
    opemu_stream *s = attribute_args(stream, stmAttrType, value, "aclrtSetStreamAttribute", &rc);
    if (s == NULL)
        return rc;
    if (!attribute_value_ok(stmAttrType, value))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetStreamAttribute: value out of range for attribute %d",
                          (int)stmAttrType);
    s->attributes[stmAttrType] = *value;
    if (stmAttrType == ACL_STREAM_ATTR_PRIORITY)
        s->priority = value->streamPriority;
    return ACL_SUCCESS;
}

/* What the stream does after a task fails: go on (ACL_CONTINUE_ON_FAILURE, the default) or stop. */
OPEMU_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamFailureMode: mode %llu is neither "
                          "ACL_CONTINUE_ON_FAILURE nor ACL_STOP_ON_FAILURE", (unsigned long long)mode);
    s->attributes[ACL_STREAM_ATTR_FAILURE_MODE].failureMode = mode;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                              aclrtStreamAttrValue *value)
{
    int rc;
    opemu_stream *s = attribute_args(stream, stmAttrType, value, "aclrtGetStreamAttribute", &rc);
    if (s == NULL)
        return rc;
    *value = s->attributes[stmAttrType];
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetCurrentDefaultStream: stream is null");
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = ctx->default_stream;
    return ACL_SUCCESS;
}

/* ---- host functions: run in stream order, no subscribed thread needed ---- */

typedef struct {
    aclrtHostFunc fn;
    void *args;
} host_func;

static int host_func_task(void *payload)
{
    host_func *h = payload;
    h->fn(h->args);
    return 0;
}

OPEMU_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    if (fn == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc: fn is null");
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    host_func *h = malloc(sizeof *h);
    *h = (host_func){fn, args};
    return opemu_stream_submit(s, host_func_task, free, h);
}
