/* OPEMU_TRACE=<file>: one JSON line per API call — function, arguments (tensors with their shape,
 * dtype, strides and data pointer), status, duration, thread; the names of the status ("status_name")
 * and of enum arguments ("arg_names": {argument: member}) from tables generated from the headers. The generated shims call these
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

/* mcDNN's API log, cuDNN 8's by name (MCDNN_LOGINFO_DBG=1: every mcdnn call; MCDNN_LOGERR_DBG=1:
 * failed ones) to MCDNN_LOGDEST_DBG (stdout, stderr or a file name); nothing without a destination. */
static FILE *mcdnn_log;
static int mcdnn_log_info, mcdnn_log_errors;

static int env_is_one(const char *name)
{
    const char *value = getenv(name);
    return value && strcmp(value, "1") == 0;
}

static void open_mcdnn_log(void)
{
    const char *dest = getenv("MCDNN_LOGDEST_DBG");
    mcdnn_log_info = env_is_one("MCDNN_LOGINFO_DBG");
    mcdnn_log_errors = mcdnn_log_info || env_is_one("MCDNN_LOGERR_DBG") || env_is_one("MCDNN_LOGWARN_DBG");
    if (!mcdnn_log_errors || dest == NULL || *dest == 0)
        return;
    mcdnn_log = strcmp(dest, "stdout") == 0 ? stdout : strcmp(dest, "stderr") == 0 ? stderr : open_trace_file(dest);
}

static void log_mcdnn_call(const opemu_trace *t, const char *function, long long status, double start_us)
{
    if (mcdnn_log == NULL || strncmp(function, "mcdnn", 5) != 0 || (status == 0 && !mcdnn_log_info))
        return;
    char mark = status ? 'e' : 'i';
    pthread_mutex_lock(&lock);
    fprintf(mcdnn_log, "%c! mcDNN (v%d) function %s() called:\n", status ? 'E' : 'I', MCDNN_VERSION, function);
    if (status)
        fprintf(mcdnn_log, "%c!     Error: %s; Reason: %s\n", mark,
                mcdnnGetErrorString((mcdnnStatus_t)status),
                opemu_error_serial() != t->error_mark ? opemu_error_last() : "");
    fprintf(mcdnn_log, "%c!     Call: %s}}\n", mark, t->text); /* the record so far: arguments, not yet closed */
    fprintf(mcdnn_log, "%c! Time: %.6f s (monotonic clock); Process=%d; Thread=%ld.\n\n", mark, start_us / 1e6,
            (int)getpid(), (long)syscall(SYS_gettid));
    fflush(mcdnn_log);
    pthread_mutex_unlock(&lock);
}

/* The sanitizer needs the record too: it names the call behind each finding. */
__attribute__((constructor)) static void open_trace(void)
{
    const char *path = getenv("OPEMU_TRACE");
    if (path && *path)
        trace_file = open_trace_file(path);
    open_mcdnn_log();
    opemu_trace_enabled = trace_file != NULL || mcdnn_log != NULL || opemu_strict();
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
    t->names_length = 0;
    current = t;
    opemu_sanitize_enter();
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

void opemu_trace_end(opemu_trace *t, long long status, const char *status_name, const void *returned)
{
    current = NULL;
    opemu_sanitize_leave();
    if (mcdnn_log) {
        char function[128];
        const char *name = t->text + strlen("{\"function\": \"");
        snprintf(function, sizeof function, "%.*s", (int)strcspn(name, "\""), name);
        log_mcdnn_call(t, function, status, t->start_us);
    }
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
    if (returned)
        append(t, ", \"returned\": \"%p\"", returned);
    append(t, ", \"duration_us\": %.3f, \"thread\": %ld}\n", duration, (long)syscall(SYS_gettid));
    pthread_mutex_lock(&lock);
    fputs(t->text, trace_file);
    fflush(trace_file);
    pthread_mutex_unlock(&lock);
}

void opemu_trace_unsupported(const char *function, int status, const char *status_name)
{
    if (!opemu_trace_enabled)
        return;
    opemu_trace t;
    opemu_trace_begin(&t, function);
    append(&t, "%s\"not_supported\": true", t.text[t.length - 1] == '{' ? "" : ", ");
    opemu_trace_end(&t, status, status_name, NULL);
}
