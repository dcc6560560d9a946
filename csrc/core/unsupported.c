/* What an exported function that opemu does not emulate does.
 *
 * Every vendor function is exported, so a program built for the real toolkit loads; one with no
 * emulation answers its family's documented not-supported status (the generated shim passes it),
 * with a message naming the function and its header. The message is retrievable the family's way
 * (aclGetRecentErrMsg; appended by mcGetErrorString / mcdnnGetErrorString / mcblasGetStatusString
 * to the not-supported status's text), the hooks hear of the call (the trace flags it, the MACA
 * runtime makes its own functions' status sticky, and may name a reason), and the first call of each
 * such function in a process prints one warning on stderr, since a program that ignores statuses
 * would otherwise go on with data the call never produced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "core/errors.h"
#include "core/hooks.h"

#define WARNED_MAX 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *warned[WARNED_MAX]; /* the shims' string literals: one address per function */
static size_t n_warned;
static __thread int detail_status;
static __thread char detail[512];

static int first_call(const char *function)
{
    int first = 1;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_warned && first; i++)
        first = warned[i] != function;
    if (first && n_warned < WARNED_MAX)
        warned[n_warned++] = function;
    pthread_mutex_unlock(&lock);
    return first;
}

int opemu_not_supported(int status, const char *status_name, const char *function, const char *header)
{
    const char *reason = NULL;
    for (int i = 0; i < opemu_hook_table_count && reason == NULL; i++)
        if (opemu_hook_tables[i]->unsupported_reason)
            reason = opemu_hook_tables[i]->unsupported_reason(function);
    if (header[0] && reason)
        snprintf(detail, sizeof detail, "%s (%s) is not supported by opemu: %s", function, header, reason);
    else if (header[0])
        snprintf(detail, sizeof detail, "%s (%s) is not supported by opemu: the function is exported so that "
                 "programs load, but the emulator does not implement it", function, header);
    else
        snprintf(detail, sizeof detail, "%s is not supported by opemu: the vendor library exports it (no public "
                 "header declares it), the emulator does not implement it", function);
    detail_status = status;
    opemu_error_message(status, detail);
    OPEMU_NOTIFY(not_supported, function, status, status_name);
    if (first_call(function))
        fprintf(stderr, "opemu: warning: %s (status %d)\n", detail, status);
    return status;
}

const char *opemu_status_text(int status, const char *text)
{
    static __thread char joined[sizeof detail + 128];
    if (detail_status != status || detail[0] == 0)
        return text;
    snprintf(joined, sizeof joined, "%s: %s", text, detail);
    return joined;
}
