/* mcDNN's API log and logging callback, cuDNN 8's by name. Every mcdnn call is a message: severity INFO when
 * it returns success, ERROR when it fails (opemu has no warnings to give and nothing fatal). A message whose
 * severity bit is in the mask goes to the program's callback (mcdnnSetCallback) or, without one, to the
 * built-in one, which writes the lines to MCDNN_LOGDEST_DBG (stdout, stderr or a file name; nothing
 * without a destination).
 *
 * The mask starts from the environment: MCDNN_LOGLEVEL_DBG=0..3 (clipped; the levels nest: 1 errors, 2
 * warnings too, 3 info too) or the older switches MCDNN_LOGERR_DBG / LOGWARN_DBG / LOGINFO_DBG=1 (each
 * with the levels more severe than its own, as the nested level does); mcdnnSetCallback replaces it.
 *
 * The log hears the calls from the trace (trace/trace.h), which records the arguments it prints. It starts
 * listening only once a message can be delivered (at load, or at the mcdnnSetCallback that first enables
 * one): until then a program pays nothing for it. Calls the callback itself makes are not reported. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include "mcdnn_internal.h"
#include "trace/trace.h"

#define SEVERITY_BITS (MCDNN_SEV_ERROR_EN | MCDNN_SEV_WARNING_EN | MCDNN_SEV_INFO_EN)

static struct {
    pthread_mutex_t lock;
    unsigned mask;
    void *udata;
    mcdnnCallback_t fptr; /* NULL: the built-in callback */
    FILE *dest;           /* the built-in callback's destination once a message may go there, or NULL */
    const char *dest_name; /* MCDNN_LOGDEST_DBG, or NULL */
    time_t start;         /* when the library loaded: dbg->time_delta counts from here */
} logging = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL, NULL, NULL, 0};
static __thread int in_callback;

/* The handle a call names (its "handle" argument in the trace's record), or NULL. */
static mcdnnHandle_t handle_of(const opemu_trace *t)
{
    const char *arg = strstr(t->text, "\"handle\": \"");
    if (arg == NULL)
        return NULL;
    void *handle = (void *)(uintptr_t)strtoull(arg + strlen("\"handle\": \""), NULL, 16);
    return opemu_handle_is(handle, OPEMU_KIND_MCDNN_HANDLE) ? (mcdnnHandle_t)handle : NULL;
}

/* The message of a call, cuDNN's form: lines each ended by '\0', the message by a second '\0'. */
static void compose(char *msg, size_t size, const opemu_trace *t, long long status, pid_t pid, long tid)
{
    char mark = status ? 'e' : 'i';
    size_t n = 0;
#define LINE(...)                                                                   \
    do {                                                                            \
        int k = snprintf(msg + n, size - n - 1, __VA_ARGS__);                        \
        n = k < 0 ? n : (n + (size_t)k < size - 2 ? n + (size_t)k : size - 2);     \
        msg[n++] = 0;                                                               \
    } while (0)
    LINE("%c! mcDNN (v%d) function %s() called:", status ? 'E' : 'I', MCDNN_VERSION, t->function);
    if (status)
        LINE("%c!     Error: %s; Reason: %s", mark, mcdnnGetErrorString((mcdnnStatus_t)status),
             opemu_error_serial() != t->error_mark ? opemu_error_last() : "");
    LINE("%c!     Call: %s}}", mark, t->text); /* the record so far: arguments, not yet closed */
    LINE("%c! Time: %.6f s (monotonic clock); Process=%d; Thread=%ld.", mark, t->start_us / 1e6, (int)pid, tid);
#undef LINE
    msg[n] = 0;
}

static void write_lines(FILE *dest, const char *msg)
{
    for (const char *line = msg; *line; line += strlen(line) + 1)
        fprintf(dest, "%s\n", line);
    fputc('\n', dest);
    fflush(dest);
}

static void log_call(const opemu_trace *t, long long status)
{
    if (strncmp(t->function, "mcdnn", 5) != 0 || in_callback)
        return;
    mcdnnSeverity_t severity = status ? MCDNN_SEV_ERROR : MCDNN_SEV_INFO;
    pthread_mutex_lock(&logging.lock);
    unsigned mask = logging.mask;
    void *udata = logging.udata;
    mcdnnCallback_t fptr = logging.fptr;
    FILE *dest = logging.dest;
    pthread_mutex_unlock(&logging.lock);
    if (!(mask & (1U << severity)) || (fptr == NULL && dest == NULL))
        return;
    pid_t pid = getpid();
    long tid = (long)syscall(SYS_gettid);
    char msg[sizeof t->text + 1024];
    compose(msg, sizeof msg, t, status, pid, tid);
    if (fptr == NULL) {
        pthread_mutex_lock(&logging.lock);
        write_lines(dest, msg);
        pthread_mutex_unlock(&logging.lock);
        return;
    }
    struct timeval now;
    gettimeofday(&now, NULL);
    mcdnnDebug_t dbg = {.mcdnn_version = MCDNN_VERSION, .mcdnnStatus = (mcdnnStatus_t)status,
                        .time_sec = (unsigned)now.tv_sec, .time_usec = (unsigned)now.tv_usec,
                        .time_delta = (unsigned)(now.tv_sec - logging.start), .handle = handle_of(t),
                        .pid = (unsigned long long)pid, .tid = (unsigned long long)tid,
                        .mcDeviceId = opemu_mc_current_device()};
    if (dbg.handle)
        mcdnnGetStream(dbg.handle, &dbg.stream);
    in_callback = 1;
    fptr(severity, udata, &dbg, msg);
    in_callback = 0;
}

static void start_listening(void)
{
    static const opemu_call_listener listener = {.end = log_call};
    opemu_trace_listen(&listener);
}

static pthread_once_t listening = PTHREAD_ONCE_INIT;

static int env_is_one(const char *name)
{
    const char *value = getenv(name);
    return value && strcmp(value, "1") == 0;
}

/* The mask the environment asks for: the nested level, else the older switches. */
static unsigned env_mask(void)
{
    const char *level_text = getenv("MCDNN_LOGLEVEL_DBG");
    int level = 0;
    if (level_text && *level_text) {
        level = atoi(level_text);
        level = level < 0 ? 0 : level > MCDNN_SEV_INFO ? MCDNN_SEV_INFO : level;
    } else {
        level = env_is_one("MCDNN_LOGINFO_DBG") ? MCDNN_SEV_INFO
                : env_is_one("MCDNN_LOGWARN_DBG") ? MCDNN_SEV_WARNING
                : env_is_one("MCDNN_LOGERR_DBG") ? MCDNN_SEV_ERROR : 0;
    }
    return level ? ((2U << level) - 1) & SEVERITY_BITS : 0;
}

/* Opens MCDNN_LOGDEST_DBG the first time the built-in callback may need it (with logging.lock held); 1 when
 * it is open. */
static int open_destination(void)
{
    const char *name = logging.dest_name;
    if (logging.dest == NULL && name)
        logging.dest = strcmp(name, "stdout") == 0 ? stdout : strcmp(name, "stderr") == 0 ? stderr
                                                                                          : opemu_trace_open(name);
    return logging.dest != NULL;
}

__attribute__((constructor)) static void open_log(void)
{
    logging.start = time(NULL);
    logging.mask = env_mask();
    const char *dest = getenv("MCDNN_LOGDEST_DBG");
    logging.dest_name = dest && *dest ? dest : NULL;
    if (logging.mask && open_destination())
        pthread_once(&listening, start_listening);
}

OPEMU_EXPORT mcdnnStatus_t mcdnnSetCallback(unsigned mask, void *udata, mcdnnCallback_t fptr)
{
    pthread_mutex_lock(&logging.lock);
    logging.mask = mask;
    logging.udata = udata;
    logging.fptr = fptr;
    int deliverable = (mask & SEVERITY_BITS) && (fptr || open_destination());
    pthread_mutex_unlock(&logging.lock);
    if (deliverable)
        pthread_once(&listening, start_listening);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnGetCallback(unsigned *mask, void **udata, mcdnnCallback_t *fptr)
{
    if (mask == NULL || udata == NULL || fptr == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "mcdnnGetCallback: an output pointer is null");
    pthread_mutex_lock(&logging.lock);
    *mask = logging.mask;
    *udata = logging.udata;
    *fptr = logging.fptr;
    pthread_mutex_unlock(&logging.lock);
    return MCDNN_STATUS_SUCCESS;
}
