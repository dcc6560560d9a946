/* OPEMU_TRACE=<file>: one JSON line per API call — function, arguments (tensors with their shape,
 * dtype, strides and data pointer), status, duration, thread. The generated shims call these
 * functions only when tracing is on, so a normal call pays one branch. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "internal.h"

int opemu_trace_enabled;
static FILE *trace_file;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread opemu_trace *current; /* the call in progress on this thread, for the sanitizer */

/* OPEMU_TRACE with "%p" in it names one file per process (the pid replaces it); without, each run
 * starts the file afresh rather than appending to the last run's records. */
static FILE *open_trace_file(const char *pattern)
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

/* The sanitizer needs the record too: it names the call behind each finding. */
__attribute__((constructor)) static void open_trace(void)
{
    const char *path = getenv("OPEMU_TRACE");
    if (path && *path)
        trace_file = open_trace_file(path);
    opemu_trace_enabled = trace_file != NULL || opemu_strict();
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

static void append(opemu_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(opemu_trace *t, const char *fmt, ...)
{
    if (t->length >= sizeof t->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->text + t->length, sizeof t->text - t->length, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->length = t->length + (size_t)n < sizeof t->text ? t->length + (size_t)n : sizeof t->text - 1;
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
    t->start_us = now_us();
    t->error_mark = opemu_error_serial();
    current = t;
}

void opemu_trace_integer(opemu_trace *t, const char *name, long long value)
{
    key(t, name);
    append(t, "%lld", value);
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

static void dims(opemu_trace *t, const char *label, const int64_t *values, uint64_t n)
{
    append(t, ", \"%s\": [", label);
    for (uint64_t i = 0; i < n; i++)
        append(t, i ? ", %lld" : "%lld", (long long)values[i]);
    append(t, "]");
}

void opemu_trace_tensor(opemu_trace *t, const char *name, const aclTensor *tensor)
{
    key(t, name);
    if (tensor == NULL) {
        append(t, "null");
        return;
    }
    if (!opemu_handle_is(tensor, OPEMU_KIND_TENSOR)) {
        append(t, "{\"handle\": \"%p\", \"live\": false}", (const void *)tensor);
        return;
    }
    append(t, "{\"handle\": \"%p\", \"dtype\": %d, \"format\": %d", (const void *)tensor, tensor->dtype, tensor->format);
    dims(t, "shape", tensor->dims, tensor->ndim);
    dims(t, "strides", tensor->strides, tensor->ndim);
    append(t, ", \"offset\": %lld, \"data\": \"%p\"}", (long long)tensor->offset, tensor->data);
}

void opemu_trace_end(opemu_trace *t, long long status, const void *returned)
{
    current = NULL;
    if (trace_file == NULL)
        return;
    double duration = now_us() - t->start_us;
    append(t, "}, \"status\": %lld", status);
    if (opemu_error_serial() != t->error_mark) /* the message this call set, as the app would read it */
        opemu_trace_string(t, "message", opemu_error_last());
    if (returned)
        append(t, ", \"returned\": \"%p\"", returned);
    append(t, ", \"duration_us\": %.3f, \"thread\": %ld}\n", duration, (long)syscall(SYS_gettid));
    pthread_mutex_lock(&lock);
    fputs(t->text, trace_file);
    fflush(trace_file);
    pthread_mutex_unlock(&lock);
}
