/* The API trace (trace.c): OPEMU_TRACE=<file>, one JSON line per API call, written by the generated
 * shims when tracing is on. Other layers hear of every call through it: a call listener registers
 * once, and tracing is then on (the shims record every call). */
#ifndef OPEMU_TRACE_H
#define OPEMU_TRACE_H

#include <stddef.h>
#include <stdio.h>

extern int opemu_trace_enabled;
typedef struct {
    char text[8192];
    size_t length;
    const char *function;
    double start_us;
    unsigned long error_mark; /* opemu_error_serial() when the call began */
    char names[1024];         /* "argument": "member name" of the enum arguments so far */
    size_t names_length;
    char returned[64];        /* what a function that returns a value (not a status) returned, as JSON */
} opemu_trace;
void opemu_trace_begin(opemu_trace *t, const char *function);
void opemu_trace_integer(opemu_trace *t, const char *name, long long value);
void opemu_trace_double(opemu_trace *t, const char *name, double value);
void opemu_trace_pointer(opemu_trace *t, const char *name, const void *value);
void opemu_trace_string(opemu_trace *t, const char *name, const char *value);
/* An enum argument: its value, and the member's name (from the tables generated from the headers;
 * NULL when the value has none), which the record lists under "arg_names". */
void opemu_trace_enum(opemu_trace *t, const char *name, long long value, const char *member);
/* An argument already in JSON (an object a library describes), formatted by `fmt`. */
void opemu_trace_json(opemu_trace *t, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What a function that returns a value rather than a status returned (its record's status is 0: a value is no
 * failure), given before opemu_trace_end. */
void opemu_trace_returned_integer(opemu_trace *t, long long value);
void opemu_trace_returned_double(opemu_trace *t, double value);
void opemu_trace_returned_pointer(opemu_trace *t, const void *value);
/* `status_name`: the returned status code's name, or NULL (not a status type, or a code without one). Arguments
 * recorded after the call and before this (a buffer the call filled) show what the call left there. */
void opemu_trace_end(opemu_trace *t, long long status, const char *status_name);
/* The record of the call in progress on this thread (its arguments, not yet closed), or NULL. */
const char *opemu_trace_current(void);

/* Who hears of every API call: `begin` as it starts, `end` as it returns (before its record is
 * written; t->text holds the function and its arguments). */
typedef struct {
    void (*begin)(void);
    void (*end)(const opemu_trace *t, long long status);
} opemu_call_listener;
/* At load time, or later from any thread (a call already running is heard at its end only); turns tracing
 * on for good. */
void opemu_trace_listen(const opemu_call_listener *listener);

/* Opens a trace-like output: "%p" in `pattern` is replaced by the process id; NULL (with a line on
 * stderr) when it cannot be written. */
FILE *opemu_trace_open(const char *pattern);

#endif
