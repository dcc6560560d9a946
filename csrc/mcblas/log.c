/* mcBLAS's API log, cuBLAS's by name: MCBLAS_LOGINFO_DBG=1 logs every mcBLAS call to
 * MCBLAS_LOGDEST_DBG (stdout, stderr or a file name), and at run time mcblasLoggerConfigure turns it on
 * or off and chooses stdout, stderr and a file, mcblasSetLoggerCallback hands every message to the
 * app's function as well (and turns logging on, as cuBLAS's does). mcblasLt's calls have their own
 * logger (lt_settings.c). The log listens to the trace's calls (trace/trace.h), which hold the
 * arguments it prints; its listener joins the first time logging is turned on. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "core/core.h"
#include "mcblas/handle.h"
#include "trace/trace.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int on, to_stdout, to_stderr, listening;
    FILE *file; /* the file logFileName (or MCBLAS_LOGDEST_DBG) named, closed when replaced */
    mcblasLogCallback callback;
} logger;

static void log_call(const opemu_trace *t, long long status)
{
    if (strncmp(t->function, "mcblas", 6) != 0 || strncmp(t->function, "mcblasLt", 8) == 0)
        return;
    pthread_mutex_lock(&lock);
    if (logger.on) {
        char message[sizeof t->text + 512];
        snprintf(message, sizeof message,
                 "I! mcBLAS (v%d) function %s() called:\n"
                 "i!     Call: %s}}\n" /* the record so far: arguments, not yet closed */
                 "i!     Returned: %lld\n"
                 "i! Time: %.6f s (monotonic clock); Process=%d; Thread=%ld.\n",
                 MCBLAS_VERSION, t->function, t->text, status, t->start_us / 1e6, (int)getpid(),
                 (long)syscall(SYS_gettid));
        FILE *outs[] = {logger.to_stdout ? stdout : NULL, logger.to_stderr ? stderr : NULL, logger.file};
        for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
            if (outs[i]) {
                fputs(message, outs[i]);
                fflush(outs[i]);
            }
        if (logger.callback)
            logger.callback(message);
    }
    pthread_mutex_unlock(&lock);
}

/* Under the lock. */
static void turn_on(void)
{
    static const opemu_call_listener listener = {.end = log_call};
    logger.on = 1;
    if (!logger.listening) {
        logger.listening = 1;
        opemu_trace_listen(&listener);
    }
}

static void set_file(FILE *file)
{
    if (logger.file && logger.file != stdout && logger.file != stderr)
        fclose(logger.file);
    logger.file = file;
}

OPEMU_EXPORT mcblasStatus_t mcblasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr,
                                                  const char *logFileName)
{
    FILE *file = NULL;
    if (logFileName && *logFileName && (file = fopen(logFileName, "a")) == NULL)
        return (mcblasStatus_t)opemu_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasLoggerConfigure: cannot open %s",
                                          logFileName);
    pthread_mutex_lock(&lock);
    logger.to_stdout = logToStdOut != 0;
    logger.to_stderr = logToStdErr != 0;
    set_file(file);
    if (logIsOn)
        turn_on();
    else
        logger.on = 0;
    pthread_mutex_unlock(&lock);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasSetLoggerCallback(mcblasLogCallback userCallback)
{
    pthread_mutex_lock(&lock);
    logger.callback = userCallback;
    if (userCallback)
        turn_on();
    pthread_mutex_unlock(&lock);
    return MCBLAS_STATUS_SUCCESS;
}

OPEMU_EXPORT mcblasStatus_t mcblasGetLoggerCallback(mcblasLogCallback *userCallback)
{
    if (userCallback == NULL)
        return (mcblasStatus_t)opemu_fail(MCBLAS_STATUS_INVALID_VALUE, "mcblasGetLoggerCallback: userCallback is null");
    pthread_mutex_lock(&lock);
    *userCallback = logger.callback;
    pthread_mutex_unlock(&lock);
    return MCBLAS_STATUS_SUCCESS;
}

__attribute__((constructor)) static void configure_from_environment(void)
{
    const char *info = getenv("MCBLAS_LOGINFO_DBG"), *dest = getenv("MCBLAS_LOGDEST_DBG");
    if (info == NULL || strcmp(info, "1") != 0 || dest == NULL || *dest == 0)
        return;
    FILE *file = strcmp(dest, "stdout") == 0 || strcmp(dest, "stderr") == 0 ? NULL : opemu_trace_open(dest);
    pthread_mutex_lock(&lock);
    logger.to_stdout = strcmp(dest, "stdout") == 0;
    logger.to_stderr = strcmp(dest, "stderr") == 0;
    set_file(file);
    if (logger.to_stdout || logger.to_stderr || logger.file)
        turn_on();
    pthread_mutex_unlock(&lock);
}
