/* AscendCL's error and log APIs: the recent message (aclGetRecentErrMsg), the thread's last failed
 * status (aclrtGetLastError, aclrtPeekAtLastError) and the app's log lines (aclAppLog), on core's
 * message model and log (core/errors.c).
 *
 * At ASCEND_GLOBAL_LOG_LEVEL=0 (debug) the log also gets a line for every CANN call that succeeds
 * (failures are logged as errors wherever they are recorded): the log listens to the trace's calls,
 * which hold the arguments. MACA's calls have their own logs (MCDNN_LOG*_DBG, MCBLAS_LOG*_DBG). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "core/core.h"
#include "trace/trace.h"

static aclError last_error_of(aclrtLastErrLevel level, int clear, const char *api)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: level %d must be ACL_RT_THREAD_LEVEL", api, (int)level);
    return opemu_error_status(clear);
}

OPEMU_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    return last_error_of(level, 1, "aclrtGetLastError");
}

OPEMU_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    return last_error_of(level, 0, "aclrtPeekAtLastError");
}

OPEMU_EXPORT const char *aclGetRecentErrMsg(void) { return opemu_error_take(); }

/* Variadic, so no shim can forward to it: it is exported as it is. */
__attribute__((visibility("default"))) void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                            const char *fmt, ...)
{
    if (fmt == NULL)
        return;
    char text[OPEMU_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char body[OPEMU_MSG_MAX + 512];
    snprintf(body, sizeof body, "%s:%u: \"%s\"", file ? file : "", line, text);
    opemu_log_line((int)logLevel, "APP", func, file, line, body);
}

static void log_success(const opemu_trace *t, long long status)
{
    if (status != 0 || strncmp(t->function, "mc", 2) == 0)
        return;
    char body[sizeof t->text + 64];
    snprintf(body, sizeof body, "success, call: %s}}", t->text); /* the record so far: arguments, not yet closed */
    opemu_log_line(ACL_DEBUG, strncmp(t->function, "Hccl", 4) == 0 ? "HCCL" : "ASCENDCL", t->function, NULL, 0, body);
}

__attribute__((constructor)) static void listen_at_debug_level(void)
{
    static const opemu_call_listener listener = {.end = log_success};
    if (opemu_log_level() == ACL_DEBUG)
        opemu_trace_listen(&listener);
}
