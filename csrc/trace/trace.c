/* OPEMU_TRACE=<file>: one JSON line per API call — function, arguments (tensors with their shape,
 * dtype, strides and data pointer), status, duration, thread; the names of the status ("status_name")
 * and of enum arguments ("arg_names": {argument: member}) from tables generated from the headers. The
 * generated shims call these functions only when tracing is on, so a normal call pays one branch.
 * Tracing is on too while anyone listens to the calls (the sanitizer names the call behind each
 * finding and opens device memory while a call runs; mcDNN's API log). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <pthread.h>
#include "core/errors.h"
#include "core/hooks.h"
#include "trace/trace.h"

int opemu_trace_enabled;
static FILE *trace_file;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread opemu_trace *current; /* the call in progress on this thread, for the sanitizer */
enum { LISTENERS_MAX = 8 };
static const opemu_call_listener *listeners[LISTENERS_MAX];
static int n_listeners;

/* OPEMU_TRACE with "%p" in it names one file per process (the pid replaces it); without, each run
 * starts the file afresh rather than appending to the last run's records. */
FILE *opemu_trace_open(const char *pattern)
{
    char path[4096];
    const char *mark = strstr(pattern, "%p");
    if (mark)
        snprintf(path, sizeof path, "%.*s%d%s", (int)(mark - pattern), pattern, (int)getpid(), mark + 2);
    else
        snprintf(path, sizeof path, "%s", pattern);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "opemu: OPEMU_TRACE=%s: cannot write %s: %s\n", pattern, path, strerror(errno));
    return f;
}

/* A listener joins at load time or while calls run on other threads: its place is filled before the count
 * that makes readers see it is published, and a call that began before it is heard at its end only. */
void opemu_trace_listen(const opemu_call_listener *listener)
{
    static pthread_mutex_t joining = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&joining);
    int n = __atomic_load_n(&n_listeners, __ATOMIC_RELAXED);
    if (n == LISTENERS_MAX)
        abort(); /* more listening layers than places: fix LISTENERS_MAX */
    listeners[n] = listener;
    __atomic_store_n(&n_listeners, n + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&opemu_trace_enabled, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&joining);
}

static void trace_unsupported(const char *function, int status, const char *status_name);

__attribute__((constructor)) static void open_trace(void)
{
    static const opemu_hooks hooks = {.not_supported = trace_unsupported};
    opemu_hooks_register(&hooks);
    const char *path = getenv("OPEMU_TRACE");
    if (path && *path)
        trace_file = opemu_trace_open(path);
    if (trace_file)
        opemu_trace_enabled = 1;
}

const char *opemu_trace_current(void)
{
    return current ? current->text : NULL;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void append_list(opemu_trace *t, const char *fmt, va_list ap)
{
    if (t->length >= sizeof t->text - 1)
        return;
    int n = vsnprintf(t->text + t->length, sizeof t->text - t->length, fmt, ap);
    if (n > 0)
        t->length = t->length + (size_t)n < sizeof t->text ? t->length + (size_t)n : sizeof t->text - 1;
}

static void append(opemu_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(opemu_trace *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_list(t, fmt, ap);
    va_end(ap);
}

static void key(opemu_trace *t, const char *name)
{
    append(t, "%s\"%s\": ", t->text[t->length - 1] == '{' ? "" : ", ", name);
}

void opemu_trace_begin(opemu_trace *t, const char *function)
{
    t->length = 0;
    t->text[0] = 0;
    append(t, "{\"function\": \"%s\", \"args\": {", function);
    t->function = function;
    t->start_us = now_us();
    t->error_mark = opemu_error_serial();
    t->names_length = 0;
    t->returned[0] = 0;
    current = t;
    for (int i = 0, n = __atomic_load_n(&n_listeners, __ATOMIC_ACQUIRE); i < n; i++)
        if (listeners[i]->begin)
            listeners[i]->begin();
}

void opemu_trace_integer(opemu_trace *t, const char *name, long long value)
{
    key(t, name);
    append(t, "%lld", value);
}

void opemu_trace_enum(opemu_trace *t, const char *name, long long value, const char *member)
{
    opemu_trace_integer(t, name, value);
    if (member == NULL || t->names_length >= sizeof t->names - 1)
        return;
    int n = snprintf(t->names + t->names_length, sizeof t->names - t->names_length, "%s\"%s\": \"%s\"",
                     t->names_length ? ", " : "", name, member);
    if (n > 0 && t->names_length + (size_t)n < sizeof t->names)
        t->names_length += (size_t)n;
    else
        t->names[t->names_length] = 0; /* a name that does not fit is left out whole */
}

void opemu_trace_double(opemu_trace *t, const char *name, double value)
{
    key(t, name);
    if (value != value || value - value != 0)
        append(t, "\"%g\"", value); /* JSON has no NaN or infinity */
    else
        append(t, "%.9g", value);
}

void opemu_trace_pointer(opemu_trace *t, const char *name, const void *value)
{
    key(t, name);
    append(t, value ? "\"%p\"" : "null", value);
}

void opemu_trace_string(opemu_trace *t, const char *name, const char *value)
{
    key(t, name);
    if (value == NULL) {
        append(t, "null");
        return;
    }
    append(t, "\"");
    for (const char *p = value; *p && p - value < 256; p++)
        append(t, (*p == '"' || *p == '\\') ? "\\%c" : (*p < 0x20 ? "\\u%04x" : "%c"), *p);
    append(t, "\"");
}

void opemu_trace_json(opemu_trace *t, const char *name, const char *fmt, ...)
{
    key(t, name);
    va_list ap;
    va_start(ap, fmt);
    append_list(t, fmt, ap);
    va_end(ap);
}

void opemu_trace_returned_integer(opemu_trace *t, long long value)
{
    snprintf(t->returned, sizeof t->returned, "%lld", value);
}

void opemu_trace_returned_double(opemu_trace *t, double value)
{
    snprintf(t->returned, sizeof t->returned, value != value || value - value != 0 ? "\"%g\"" : "%.9g", value);
}

void opemu_trace_returned_pointer(opemu_trace *t, const void *value)
{
    snprintf(t->returned, sizeof t->returned, value ? "\"%p\"" : "null", value);
}

void opemu_trace_end(opemu_trace *t, long long status, const char *status_name)
{
    current = NULL;
    for (int i = 0, n = __atomic_load_n(&n_listeners, __ATOMIC_ACQUIRE); i < n; i++)
        if (listeners[i]->end)
            listeners[i]->end(t, status);
    if (trace_file == NULL)
        return;
    double duration = now_us() - t->start_us;
    append(t, "}, \"status\": %lld", status);
    if (status_name)
        append(t, ", \"status_name\": \"%s\"", status_name);
    if (t->names_length)
        append(t, ", \"arg_names\": {%s}", t->names);
    if (opemu_error_serial() != t->error_mark) /* the message this call set, as the app would read it */
        opemu_trace_string(t, "message", opemu_error_last());
    if (t->returned[0])
        append(t, ", \"returned\": %s", t->returned);
    append(t, ", \"duration_us\": %.3f, \"thread\": %ld}\n", duration, (long)syscall(SYS_gettid));
    pthread_mutex_lock(&lock);
    fputs(t->text, trace_file);
    fflush(trace_file);
    pthread_mutex_unlock(&lock);
}

/* A function with no emulation: flagged "not_supported" (its shim records no arguments). */
static void trace_unsupported(const char *function, int status, const char *status_name)
{
    if (!opemu_trace_enabled)
        return;
    opemu_trace t;
    opemu_trace_begin(&t, function);
    append(&t, "%s\"not_supported\": true", t.text[t.length - 1] == '{' ? "" : ", ");
    opemu_trace_end(&t, status, status_name);
}
