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

typedef struct {
    uint64_t task_id;
    int ran;
} aclop_task;

static int run_task(void *payload)
{
    aclop_task *t = payload;
    t->ran = 1;
    return opemu_py_aclop_run(t->task_id);
}

static void drop_task(void *payload)
{
    aclop_task *t = payload;
    if (!t->ran)
        opemu_py_aclop_drop(t->task_id);
    free(t);
}

int opemu_aclop_submit(void *stream, uint64_t task_id)
{
    int error = 0;
    opemu_stream *s = opemu_stream_resolve(stream, &error);
    aclop_task *t = s ? calloc(1, sizeof *t) : NULL;
    if (t == NULL) {
        opemu_py_aclop_drop(task_id);
        return s ? opemu_fail(ACL_ERROR_BAD_ALLOC, "out of host memory queueing an operator") : error;
    }
    t->task_id = task_id;
    return opemu_stream_submit(s, run_task, drop_task, t);
}
