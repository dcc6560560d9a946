/* The thread's recent message (aclGetRecentErrMsg's), its last failed status, and the log.
 *
 * The message is thread-local and cleared when read; the returned pointer stays valid until the
 * thread's next call, so two buffers alternate: `pending` collects, `returned` is what the app
 * holds. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include "acl/acl.h"
#include "core/errors.h"

static __thread char pending[OPEMU_MSG_MAX];
static __thread char returned[OPEMU_MSG_MAX];
static __thread char last[OPEMU_MSG_MAX]; /* the last message's text, for the trace */
static __thread unsigned long serial;
/* The thread's last failed status (aclrtGetLastError / aclrtPeekAtLastError). opemu records every
 * failure a runtime or operator call reports, as the vendor's runtime does for its own calls. */
static __thread int last_error;

unsigned long opemu_error_serial(void) { return serial; }
const char *opemu_error_last(void) { return last; }

int opemu_log_level(void)
{
    static int level = -1;
    if (level < 0) {
        const char *env = getenv("ASCEND_GLOBAL_LOG_LEVEL");
        int value = env && env[0] >= '0' && env[0] <= '4' && env[1] == 0 ? env[0] - '0' : ACL_ERROR;
        level = value;
    }
    return level;
}

static int log_to_stdout(void)
{
    const char *env = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    return env && strcmp(env, "1") == 0;
}

/* Without ASCEND_SLOG_PRINT_TO_STDOUT=1 the lines go where the vendor's log library puts a host
 * process's app log: <ASCEND_PROCESS_LOG_PATH or $HOME/ascend/log>/debug/plog/plog-<pid>_<time>.log,
 * one file per process, created with its directories at the first line. */
static FILE *plog_file(void)
{
    static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;
    static FILE *file;
    static pid_t owner;
    pthread_mutex_lock(&once_lock);
    if (owner != getpid()) { /* a forked child writes its own file */
        owner = getpid();
        const char *root = getenv("ASCEND_PROCESS_LOG_PATH"), *home = getenv("HOME");
        char dir[4096], path[4200];
        if (root && *root)
            snprintf(dir, sizeof dir, "%s/debug/plog", root);
        else
            snprintf(dir, sizeof dir, "%s/ascend/log/debug/plog", home && *home ? home : "/tmp");
        for (char *p = dir + 1; *p; p++) { /* mkdir -p */
            if (*p == '/') {
                *p = 0;
                mkdir(dir, 0750);
                *p = '/';
            }
        }
        mkdir(dir, 0750);
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        snprintf(path, sizeof path, "%s/plog-%d_%04d%02d%02d%02d%02d%02d.log", dir, (int)getpid(), tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        file = fopen(path, "a");
    }
    pthread_mutex_unlock(&once_lock);
    return file;
}

void opemu_log_line(int level, const char *module, const char *func, const char *file, uint32_t line,
                    const char *message)
{
    static const char *names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    if (level < opemu_log_level() || level > ACL_ERROR || level < 0)
        return;
    FILE *out = log_to_stdout() ? stdout : plog_file();
    if (out == NULL)
        return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    const char *base = file ? strrchr(file, '/') : NULL;
    fprintf(out, "[%s] %s(%d,%s):%04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld [%s:%u]%ld %s%s%s\n", names[level], module,
            (int)getpid(), program_invocation_short_name, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
            tm.tm_hour, tm.tm_min, tm.tm_sec, (long)(tv.tv_usec / 1000), (long)(tv.tv_usec % 1000),
            base ? base + 1 : (file ? file : "opemu"), line, (long)syscall(SYS_gettid), func ? func : "",
            func ? ":" : "", message);
    fflush(out);
}

/* aclnn statuses carry the vendor's error title, picked by the code's leading digit. */
static const char *title(int code)
{
    if (code >= 100000 && code < 200000 && code / 1000 != 100 && code / 1000 != 107)
        return "AclNN_Parameter_Error(EZ1001): ";
    if (code >= 300000 && code < 400000)
        return "AclNN_Runtime_Error(EZ9903): ";
    if (code >= 561000 && code < 562000)
        return "AclNN_Inner_Error(EZ9999): ";
    return "";
}

void opemu_error_message(int code, const char *message)
{
    last_error = code;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    snprintf(pending, sizeof pending, "[PID:%d] %04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld %s%s", (int)getpid(),
             tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (long)(tv.tv_usec / 1000), (long)(tv.tv_usec % 1000), title(code), message);
    snprintf(last, sizeof last, "%s", message);
    serial++;
    opemu_log_line(ACL_ERROR, "ASCENDCL", NULL, NULL, 0, message);
}

int opemu_fail(int code, const char *fmt, ...)
{
    char text[OPEMU_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    opemu_error_message(code, text);
    return code;
}

void opemu_error_restore(const char *formatted)
{
    snprintf(pending, sizeof pending, "%s", formatted);
}

int opemu_error_status(int clear)
{
    int code = last_error;
    if (clear)
        last_error = ACL_SUCCESS;
    return code;
}

const char *opemu_error_take(void)
{
    if (pending[0] == 0)
        return NULL;
    memcpy(returned, pending, sizeof returned);
    pending[0] = 0;
    return returned;
}
