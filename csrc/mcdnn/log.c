/* mcDNN's API log, cuDNN 8's by name (MCDNN_LOGINFO_DBG=1: every mcdnn call; MCDNN_LOGERR_DBG=1:
 * failed ones) to MCDNN_LOGDEST_DBG (stdout, stderr or a file name); nothing without a destination.
 * The log listens to the trace's calls (trace/trace.h), which records the arguments it prints. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "mcdnn_internal.h"
#include "trace/trace.h"

static FILE *mcdnn_log;
static int mcdnn_log_info;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int env_is_one(const char *name)
{
    const char *value = getenv(name);
    return value && strcmp(value, "1") == 0;
}

static void log_call(const opemu_trace *t, long long status)
{
    if (strncmp(t->function, "mcdnn", 5) != 0 || (status == 0 && !mcdnn_log_info))
        return;
    char mark = status ? 'e' : 'i';
    pthread_mutex_lock(&lock);
    fprintf(mcdnn_log, "%c! mcDNN (v%d) function %s() called:\n", status ? 'E' : 'I', MCDNN_VERSION, t->function);
    if (status)
        fprintf(mcdnn_log, "%c!     Error: %s; Reason: %s\n", mark,
                mcdnnGetErrorString((mcdnnStatus_t)status),
                opemu_error_serial() != t->error_mark ? opemu_error_last() : "");
    fprintf(mcdnn_log, "%c!     Call: %s}}\n", mark, t->text); /* the record so far: arguments, not yet closed */
    fprintf(mcdnn_log, "%c! Time: %.6f s (monotonic clock); Process=%d; Thread=%ld.\n\n", mark, t->start_us / 1e6,
            (int)getpid(), (long)syscall(SYS_gettid));
    fflush(mcdnn_log);
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void open_log(void)
{
    const char *dest = getenv("MCDNN_LOGDEST_DBG");
    mcdnn_log_info = env_is_one("MCDNN_LOGINFO_DBG");
    int log_errors = mcdnn_log_info || env_is_one("MCDNN_LOGERR_DBG") || env_is_one("MCDNN_LOGWARN_DBG");
    if (!log_errors || dest == NULL || *dest == 0)
        return;
    mcdnn_log = strcmp(dest, "stdout") == 0 ? stdout : strcmp(dest, "stderr") == 0 ? stderr : opemu_trace_open(dest);
    static const opemu_call_listener listener = {.end = log_call};
    if (mcdnn_log)
        opemu_trace_listen(&listener);
}
