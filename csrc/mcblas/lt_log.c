/* mcBLASLt's logger, cuBLASLt's renamed. Messages have a level and a mask bit: 1 Error (a call that failed,
 * with its reason), 2 Trace (mcblasLtMatmul and mcblasLtMatrixTransform, the calls that launch work, with
 * their arguments), 16 API Trace (every mcblasLt call with its arguments); opemu gives no Hints (4) or Info
 * (8). A message whose bit is in the mask goes to the callback (mcblasLtLoggerSetCallback) and to the log
 * file (stdout unless MCBLASLT_LOG_FILE, mcblasLtLoggerSetFile or OpenFile named another) as one line:
 *     [2024-01-31 12:00:00][mcblasLt][pid][Level][function] message
 * The mask starts from MCBLASLT_LOG_MASK or MCBLASLT_LOG_LEVEL (level L: the bits below 1 << L); SetLevel and
 * SetMask replace it; mcblasLtLoggerForceDisable turns logging off for the rest of the run.
 *
 * The logger hears the calls from the trace (trace/trace.h), which records the arguments it prints, and
 * starts listening only once the mask is not 0, so a program that logs nothing pays nothing for it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lt_internal.h"
#include "trace/trace.h"

enum { LOG_ERROR = 1, LOG_TRACE = 2, LOG_API = 16 };

static struct {
    pthread_mutex_t lock;
    mcblasLtLoggerCallback_t callback;
    FILE *file;   /* NULL: stdout */
    FILE *opened; /* the file the logger opened (OpenFile, MCBLASLT_LOG_FILE), closed when replaced */
    int mask;
    int disabled;
} logger = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, NULL, 0, 0};
static __thread int in_callback;

static void emit(int level, const char *name, const char *function, const char *message)
{
    pthread_mutex_lock(&logger.lock);
    mcblasLtLoggerCallback_t callback = logger.callback;
    FILE *file = logger.file ? logger.file : stdout;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
    fprintf(file, "[%s][mcblasLt][%d][%s][%s] %s\n", stamp, (int)getpid(), name, function, message);
    fflush(file);
    pthread_mutex_unlock(&logger.lock);
    if (callback && !in_callback) {
        in_callback = 1; /* what the callback calls is not logged */
        callback(level, function, message);
        in_callback = 0;
    }
}

static void log_call(const opemu_trace *t, long long status)
{
    if (strncmp(t->function, "mcblasLt", 8) != 0 || in_callback)
        return;
    int mask = __atomic_load_n(&logger.mask, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&logger.disabled, __ATOMIC_ACQUIRE) || mask == 0)
        return;
    const char *args = strstr(t->text, "\"args\": ");
    args = args ? args + strlen("\"args\": ") : t->text;
    if (status && (mask & LOG_ERROR))
        emit(1, "Error", t->function, opemu_error_serial() != t->error_mark ? opemu_error_last() : "failed");
    if (status == 0 && (mask & LOG_TRACE) &&
        (strcmp(t->function, "mcblasLtMatmul") == 0 || strcmp(t->function, "mcblasLtMatrixTransform") == 0))
        emit(2, "Trace", t->function, args);
    if (mask & LOG_API)
        emit(5, "Api", t->function, args);
}

static pthread_once_t listening = PTHREAD_ONCE_INIT;

static void start_listening(void)
{
    static const opemu_call_listener listener = {.end = log_call};
    opemu_trace_listen(&listener);
}

static void set_mask(int mask)
{
    __atomic_store_n(&logger.mask, mask, __ATOMIC_RELEASE);
    if (mask)
        pthread_once(&listening, start_listening);
}

/* Opens `name` for the log ("%i" in it replaced by the process id, as cuBLASLt does), with logger.lock held. */
static FILE *open_log(const char *name)
{
    char path[4096];
    const char *mark = strstr(name, "%i");
    if (mark)
        snprintf(path, sizeof path, "%.*s%d%s", (int)(mark - name), name, (int)getpid(), mark + 2);
    else
        snprintf(path, sizeof path, "%s", name);
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return NULL;
    if (logger.opened != NULL)
        fclose(logger.opened);
    logger.opened = logger.file = f;
    return f;
}

__attribute__((constructor)) static void logger_from_environment(void)
{
    const char *file = getenv("MCBLASLT_LOG_FILE"), *mask = getenv("MCBLASLT_LOG_MASK");
    const char *level = getenv("MCBLASLT_LOG_LEVEL");
    if (file && *file && strcmp(file, "stdout") != 0)
        logger.file = strcmp(file, "stderr") == 0 ? stderr : open_log(file);
    if (mask && *mask)
        set_mask(atoi(mask) & 31);
    else if (level && *level) {
        int l = atoi(level);
        set_mask(l <= 0 ? 0 : l >= 5 ? 31 : (1 << l) - 1);
    }
}

OPEMU_EXPORT mcblasStatus_t mcblasLtLoggerSetCallback(mcblasLtLoggerCallback_t callback)
{
    pthread_mutex_lock(&logger.lock);
    logger.callback = callback;
    pthread_mutex_unlock(&logger.lock);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtLoggerSetFile(FILE *file)
{
    pthread_mutex_lock(&logger.lock);
    logger.file = file;
    pthread_mutex_unlock(&logger.lock);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtLoggerOpenFile(const char *logFile)
{
    if (logFile == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtLoggerOpenFile: logFile is null");
    pthread_mutex_lock(&logger.lock);
    FILE *f = open_log(logFile);
    pthread_mutex_unlock(&logger.lock);
    if (f == NULL)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtLoggerOpenFile: cannot open %s", logFile);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtLoggerSetLevel(int level)
{
    if (level < 0 || level > 5)
        return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLtLoggerSetLevel: level %d is outside 0..5", level);
    set_mask((1 << level) - 1);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtLoggerSetMask(int mask)
{
    set_mask(mask & 31); /* bits past API Trace name no messages */
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasLtLoggerForceDisable(void)
{
    __atomic_store_n(&logger.disabled, 1, __ATOMIC_RELEASE);
    return MCBLAS_STATUS_SUCCESS;
}
