/* Host callbacks and host functions on AscendCL streams.
 *
 * A callback (aclrtLaunchCallback) runs on the thread subscribed to its stream (aclrtSubscribeReport),
 * when that thread calls aclrtProcessReport; a host function (aclrtLaunchHostFunc) runs in stream
 * order, no subscribed thread needed. The launch of a callback returns at once, as on the device; a blocking
 * one holds its stream (core/stream.h) until its thread ran it, so that thread may be the launching one. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/stream.h"

typedef struct report {
    aclrtCallback fn;
    void *user_data;
    uint64_t thread;
    opemu_stream *stream; /* a blocking callback's, which it holds */
    struct report *next;
} report;

static pthread_mutex_t reports_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reports_changed = PTHREAD_COND_INITIALIZER;
static report *reports;

static int subscribed_by(opemu_stream *s, void *thread)
{
    const opemu_stream_settings *settings = opemu_stream_settings_of(s);
    return settings->subscribed && settings->subscriber == *(const uint64_t *)thread;
}

static int subscribed_to_any(uint64_t thread) { return opemu_streams_any(subscribed_by, &thread); }

/* What is recorded on the stream the app named (NULL: the default stream); NULL with *rc set. */
static opemu_stream_settings *settings_of(aclrtStream stream, int *rc)
{
    opemu_stream *s = opemu_stream_resolve(stream, rc);
    return s ? opemu_stream_settings_of(s) : NULL;
}

OPEMU_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    int rc;
    opemu_stream_settings *s = settings_of(stream, &rc);
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
    opemu_stream_settings *s = settings_of(stream, &rc);
    if (s == NULL)
        return rc;
    if (!s->subscribed || s->subscriber != threadId)
        return opemu_fail(ACL_ERROR_STREAM_NOT_SUBSCRIBE, "aclrtUnSubscribeReport: the stream is not subscribed to this thread");
    s->subscribed = 0;
    return ACL_SUCCESS;
}

/* The callback reaches the head of its stream: its subscribed thread may run it now. */
static int callback_task(void *payload)
{
    report *r = payload;
    if (r->stream)
        opemu_stream_hold(r->stream, r->thread, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                          "the stream waits for a blocking callback that only this thread's aclrtProcessReport "
                          "can run");
    pthread_mutex_lock(&reports_lock);
    r->next = reports;
    reports = r;
    pthread_cond_broadcast(&reports_changed);
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
    const opemu_stream_settings *settings = opemu_stream_settings_of(s);
    if (!settings->subscribed)
        return opemu_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                          "The stream used by this user's callback function is not registered to any thread, "
                          "retCode=%#x", ACL_ERROR_RT_STREAM_NO_CB_REG);
    report *r = calloc(1, sizeof *r);
    r->fn = fn;
    r->user_data = userData;
    r->thread = settings->subscriber;
    r->stream = blockType == ACL_CALLBACK_BLOCK ? s : NULL;
    return opemu_stream_submit(s, callback_task, NULL, r);
}

/* A deferred stream's tasks up to the callbacks this thread is subscribed to (on the device the stream reaches
 * them by itself). */
static int advance_subscribed(opemu_stream *s, void *thread)
{
    if (subscribed_by(s, thread))
        opemu_stream_advance(s);
    return 0;
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
    opemu_streams_each(advance_subscribed, &self);
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
    if (r->stream && opemu_handle_is(r->stream, OPEMU_KIND_STREAM))
        opemu_stream_resume(r->stream);
    free(r);
    return ACL_SUCCESS;
}


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
