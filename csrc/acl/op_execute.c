/* The single-operator API's execution (aclopCompileAndExecute(V2), aclopExecute(V2)) is Python's
 * (opemu/bridge_aclop.py: GE type string → the aclnn operator's check and kernel); C gives it the data
 * buffers and queues its kernel on the app's stream. */
#include <stdlib.h>
#include "aclop.h"

void *opemu_data_buffer(const void *buffer, uint64_t *size)
{
    if (!opemu_handle_is(buffer, OPEMU_KIND_DATA_BUFFER))
        return NULL;
    *size = aclGetDataBufferSizeV2(buffer);
    return aclGetDataBufferAddr(buffer);
}

/* The payload is the task id itself: Python forgets a task when it runs it, so the drop that follows a
 * run finds nothing left to forget. */
static int run_task(void *payload) { return opemu_py_aclop_run((uint64_t)(uintptr_t)payload); }

static void drop_task(void *payload) { opemu_py_aclop_drop((uint64_t)(uintptr_t)payload); }

int opemu_aclop_submit(void *stream, uint64_t task_id)
{
    int error = 0;
    opemu_stream *s = opemu_stream_resolve(stream, &error);
    if (s == NULL) {
        opemu_py_aclop_drop(task_id);
        return error;
    }
    return opemu_stream_submit(s, run_task, drop_task, (void *)(uintptr_t)task_id);
}
