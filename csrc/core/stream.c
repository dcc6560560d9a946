/* Streams: the task queues every family submits its work to (core/stream.h).
 *
 * A deferred task that fails makes the stream report that status at its next synchronisation; an
 * eager one returns it at launch.
 *
 * A task may also finish later, off the thread that ran it (a collective waits for its peers): it
 * returns OPEMU_TASK_PENDING and someone calls opemu_stream_complete once. Until then nothing after
 * it runs; an eager launch behind it is queued rather than run, so the caller never waits for a
 * peer, and the thread that completes it runs what was queued behind it. A synchronisation waits
 * for it, calling the helper the task named (which may run the peers' deferred streams). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
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
    int pending;       /* a task returned OPEMU_TASK_PENDING and is not yet complete */
    int early;         /* ... or completed before it returned */
    int resume_queued; /* on a thread's list of streams to run after a completion */
    void (*help)(void *);
    void *help_arg;
    opemu_stream *resume_next;
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
            record_failure(s, rc, opemu_error_take());
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

int opemu_stream_is_default(const opemu_stream *s) { return s->is_default; }

int opemu_stream_busy(opemu_stream *s)
{
    pthread_mutex_lock(&s->lock);
    int busy = s->head || s->running || s->pending;
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
