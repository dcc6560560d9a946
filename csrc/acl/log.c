/* AscendCL's error and log APIs: the recent message (aclGetRecentErrMsg), the thread's last failed
 * status (aclrtGetLastError, aclrtPeekAtLastError) and the app's log lines (aclAppLog), on core's
 * message model and log (core/errors.c). */
#include <stdarg.h>
#include <stdio.h>
#include "acl/acl.h"
#include "core/core.h"

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
