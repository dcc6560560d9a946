/* Streams: the task queues every family submits its work to (core/stream.h).
 *
 * A deferred task that fails makes the stream report that status at its next synchronisation; an
 * eager one returns it at launch. One task runs at a time; a task that submits to its own stream queues
 * the new task behind itself, and one that holds its stream (a blocking host callback) leaves the tasks
 * behind it queued until the hold ends: no thread ever waits for work that only it can do. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/config.h"
#include "core/errors.h"
#include "core/handles.h"
#include "core/hooks.h"
#include "core/stream.h"

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
    pthread_t runner; /* the thread running a task, while `running` */
    int held;         /* a task held the stream (opemu_stream_hold) */
    uint64_t hold_owner;
    int hold_status;
    const char *hold_reason;
    int error;
    char message[1024];
    opemu_stream_settings settings;
    opemu_stream *next;
};

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static opemu_stream *streams;

opemu_stream *opemu_stream_new(opemu_context *ctx, int is_default)
{
    static int32_t next_id;
    opemu_stream *s = calloc(1, sizeof *s); /* settings: priority 0 (the greatest, the default), no flags */
    s->ctx = ctx;
    s->is_default = is_default;
    s->settings.id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
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

/* Called with s->lock held; runs `t` with it released. */
static int run_task(opemu_stream *s, task *t)
{
    s->running = 1;
    s->runner = pthread_self();
    pthread_mutex_unlock(&s->lock);
    int rc = t->fn(t->payload);
    if (t->drop)
        t->drop(t->payload);
    free(t);
    pthread_mutex_lock(&s->lock);
    s->running = 0;
    pthread_cond_broadcast(&s->idle);
    return rc;
}

/* A task queued earlier failed: the stream's next synchronisation reports it (the first since the last one). */
static void keep_failure(opemu_stream *s, int rc)
{
    if (rc != 0 && s->error == 0) {
        s->error = rc;
        const char *msg = opemu_error_take();
        snprintf(s->message, sizeof s->message, "%s", msg ? msg : "a task on the stream failed");
    }
}

static int running_here(const opemu_stream *s) { return s->running && pthread_equal(s->runner, pthread_self()); }

/* Runs the queued tasks in order until none is left or one holds the stream; never waits for a hold. Called
 * with s->lock held, and not while another thread runs a task. */
static void run_queued(opemu_stream *s)
{
    while (s->head && !s->held && !s->running) {
        task *t = s->head;
        s->head = t->next;
        if (s->head == NULL)
            s->tail = NULL;
        keep_failure(s, run_task(s, t));
    }
}

/* Runs every queued task in order; returns (and clears) the first failure since the last sync. Inside a task of
 * this stream (a host function synchronising its own stream) everything before that task has run: nothing to wait
 * for. A hold is waited out, unless this thread is the one that must end it: then the hold's status. */
int opemu_stream_drain(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    if (running_here(s)) {
        pthread_mutex_unlock(&s->lock);
        return 0;
    }
    for (;;) {
        while (s->running)
            pthread_cond_wait(&s->idle, &s->lock);
        if (s->held && s->hold_owner == (uint64_t)pthread_self()) {
            int status = s->hold_status;
            const char *reason = s->hold_reason;
            pthread_mutex_unlock(&s->lock);
            return opemu_fail(status, "%s", reason);
        }
        if (s->held) {
            pthread_cond_wait(&s->idle, &s->lock);
            continue;
        }
        if (s->head == NULL)
            break;
        run_queued(s);
    }
    int error = s->error;
    s->error = 0;
    pthread_mutex_unlock(&s->lock);
    if (error)
        opemu_error_restore(s->message);
    return error;
}

void opemu_stream_hold(opemu_stream *s, uint64_t owner, int status, const char *reason)
{
    pthread_mutex_lock(&s->lock);
    s->held = 1;
    s->hold_owner = owner;
    s->hold_status = status;
    s->hold_reason = reason;
    pthread_mutex_unlock(&s->lock);
}

void opemu_stream_resume(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->held = 0;
    pthread_cond_broadcast(&s->idle);
    if (!opemu_deferred_streams())
        run_queued(s); /* what waited behind the hold would have run as it was launched */
    pthread_mutex_unlock(&s->lock);
}

void opemu_stream_advance(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    if (!s->running)
        run_queued(s);
    pthread_mutex_unlock(&s->lock);
}


int opemu_stream_submit(opemu_stream *s, opemu_task_fn fn, opemu_task_drop_fn drop, void *payload)
{
    task *t = calloc(1, sizeof *t);
    t->fn = fn;
    t->drop = drop;
    t->payload = payload;
    pthread_mutex_lock(&s->lock);
    if (!opemu_deferred_streams() && !running_here(s)) {
        while (s->running)
            pthread_cond_wait(&s->idle, &s->lock);
        if (!s->held && s->head == NULL) {
            int rc = run_task(s, t);
            run_queued(s); /* what the task submitted to its own stream */
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

int32_t opemu_stream_device(const opemu_stream *s) { return s->ctx->device; }

/* Applies `fn` to every live stream of `device` (all devices when device < 0) that `which` accepts
 * (every one when it is NULL), outside the list's lock. */
static int for_each_stream_where(int32_t device, int (*fn)(opemu_stream *, void *), void *context,
                                 int (*which)(const opemu_stream *))
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
        int rc = fn(list[i], context);
        if (rc && !first_error)
            first_error = rc;
    }
    free(list);
    return first_error;
}

static int drain(opemu_stream *s, void *unused) { return opemu_stream_drain(s); }

int opemu_device_drain(int32_t device) { return for_each_stream_where(device, drain, NULL, NULL); }

int opemu_device_drain_where(int32_t device, int (*which)(const opemu_stream *))
{
    return for_each_stream_where(device, drain, NULL, which);
}

static int release_user_stream(opemu_stream *s, void *unused)
{
    if (!s->is_default)
        opemu_stream_release(s);
    return 0;
}

void opemu_streams_release_device(int32_t device) { for_each_stream_where(device, release_user_stream, NULL, NULL); }

void opemu_streams_each(int (*fn)(opemu_stream *, void *), void *context)
{
    for_each_stream_where(-1, fn, context, NULL);
}

int opemu_stream_is_default(const opemu_stream *s) { return s->is_default; }

int opemu_stream_busy(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    int busy = s->head || s->running || s->held;
    pthread_mutex_unlock(&s->lock);
    return busy;
}

opemu_stream_settings *opemu_stream_settings_of(opemu_stream *s) { return &s->settings; }

int opemu_streams_any(int (*match)(opemu_stream *, void *), void *context)
{
    int found = 0;
    pthread_mutex_lock(&streams_lock);
    for (opemu_stream *s = streams; s && !found; s = s->next)
        found = match(s, context);
    pthread_mutex_unlock(&streams_lock);
    return found;
}
