/* The message and status model every family shares (errors.c, unsupported.c): the thread's recent
 * message (aclGetRecentErrMsg's, in the vendor's format), its last failed status, the log, and what
 * a function opemu does not emulate answers. Codes are ints: each family passes its own statuses. */
#ifndef OPEMU_CORE_ERRORS_H
#define OPEMU_CORE_ERRORS_H

#include <stdint.h>

/* Records `message` as the thread's recent error for status `code`, in the vendor's format, and
 * logs it (Python reports its statuses through this too). */
void opemu_error_message(int code, const char *message);

#ifndef OPEMU_GENERATOR /* C only: what Python does not see */
/* Bytes of a message, its terminator included. */
#define OPEMU_MSG_MAX 2048

/* opemu_error_message with a printf format; returns `code`. */
int opemu_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The recent message, cleared as it is read (NULL when there is none): aclGetRecentErrMsg. The
 * pointer stays valid until the thread's next call. */
const char *opemu_error_take(void);
/* Puts back a message taken with opemu_error_take, already in the vendor's format. */
void opemu_error_restore(const char *formatted);
/* The messages set on this thread: a count, and the text of the last one (for the trace). */
unsigned long opemu_error_serial(void);
const char *opemu_error_last(void);
/* The thread's last failed status (aclrtGetLastError), cleared when `clear`. */
int opemu_error_status(int clear);
/* ASCEND_GLOBAL_LOG_LEVEL: 0 debug, 1 info, 2 warning, 3 error (the default, and for a value outside
 * 0..4), 4 none. */
int opemu_log_level(void);
/* A line of the vendor's log (ASCEND_GLOBAL_LOG_LEVEL, ASCEND_SLOG_PRINT_TO_STDOUT): `level` 0 debug
 * .. 3 error; `func` and `file` may be NULL. */
void opemu_log_line(int level, const char *module, const char *func, const char *file, uint32_t line,
                    const char *message);

/* ---- functions opemu exports but does not emulate (unsupported.c) ---- */
/* Records the not-supported message for `function` (declared in `header`, "" when no public header
 * does) the family's way, tells the hooks (the trace flags it, a family may make it sticky), warns
 * once per process; returns `status`. */
int opemu_not_supported(int status, const char *status_name, const char *function, const char *header);
/* `text` (a status's fixed description), followed by the thread's last not-supported message when
 * `status` is what that call returned: how mcGetErrorString and friends name the function. */
const char *opemu_status_text(int status, const char *text);
#endif

#endif
