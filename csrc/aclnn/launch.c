/* Phase 2 of every aclnn operator: validate the executor and workspace in C, then queue the
 * kernel on the stream; the kernel itself runs in Python (opemu_py_execute). */
#include <stdlib.h>
#include <string.h>
#include "aclnn_internal.h"
#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/memory.h"
#include "core/stream.h"
#include "sanitizer/sanitizer.h"

/* A launch captures the tensor addresses as they are at launch time, as a kernel's arguments
 * are on hardware, so later aclSet*TensorAddr calls do not reach a queued task. */
typedef struct {
    aclOpExecutor *executor;
    void *workspace;
    aclTensor *inputs;
    aclTensor *outputs;
    int32_t device;
} launch;

/* Bytes from a tensor's data pointer to the end of its view (0 for an empty one). */
static uint64_t span_bytes(const aclTensor *t)
{
    int64_t last = t->offset;
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] <= 0)
            return 0;
        last += (t->dims[i] - 1) * t->strides[i];
    }
    return (uint64_t)(last + 1) * aclDataTypeSize((aclDataType)t->dtype);
}

/* For the sanitizer: what a launch reads (inputs) and will write (outputs). */
static void sanitize_tensors(const launch *l, int stage)
{
    for (uint64_t i = 0; stage == 0 && i < l->executor->n_inputs; i++)
        if (l->inputs[i].data && span_bytes(&l->inputs[i]))
            opemu_sanitize_access(l->inputs[i].data, span_bytes(&l->inputs[i]), 0, l->executor->op);
    for (uint64_t i = 0; i < l->executor->n_outputs; i++) {
        const aclTensor *t = &l->outputs[i];
        if (t->data == NULL || span_bytes(t) == 0)
            continue;
        if (stage == 1)
            opemu_sanitize_access(t->data, span_bytes(t), 1, l->executor->op);
        else
            opemu_sanitize_pending(t->data, stage == 2 ? +1 : -1);
    }
}

static int run_kernel(void *payload)
{
    launch *l = payload;
    if (opemu_python_ready(l->executor->op) != 0)
        return ACLNN_ERR_INNER;
    if (opemu_strict())
        sanitize_tensors(l, 0);
    opemu_device_busy(l->device, +1);
    int rc = opemu_py_execute(l->executor, l->inputs, l->outputs, l->workspace);
    opemu_device_busy(l->device, -1);
    if (opemu_strict() && rc == 0)
        sanitize_tensors(l, 1);
    return rc;
}

static void drop_launch(void *payload)
{
    launch *l = payload;
    if (opemu_strict())
        sanitize_tensors(l, 3);
    opemu_executor_task_end(l->executor);
    free(l->inputs);
    free(l->outputs);
    free(l);
}

static aclTensor *copy_tensors(const aclTensor *tensors, uint64_t n)
{
    aclTensor *copy = malloc((n ? n : 1) * sizeof *copy);
    memcpy(copy, tensors, n * sizeof *copy);
    return copy;
}

aclnnStatus opemu_aclnn_launch(const char *op, void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                               aclrtStream stream)
{
    if (executor == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "The executor is nullptr.");
    if (!opemu_handle_is(executor, OPEMU_KIND_EXECUTOR)) {
        if (opemu_strict())
            opemu_finding("executor-reuse", "%s: executor %p is not live: phase 2 ran twice without "
                          "aclSetAclOpExecutorRepeatable, or the executor was destroyed", op, (void *)executor);
        return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                          "%s: %p is not a live executor: phase 2 releases an executor unless "
                          "aclSetAclOpExecutorRepeatable was called after phase 1.", op, (void *)executor);
    }
    if (strcmp(executor->op, op) != 0)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: the executor was created by %sGetWorkspaceSize.", op,
                          executor->op);
    uint64_t required = executor->workspace_size;
    if (required > 0 && workspace == NULL) {
        if (!executor->repeatable)
            opemu_executor_discard(executor); /* as opbase, which deletes it on this path */
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "The workspace is nullptr.");
    }
    /* opbase never compares workspaceSize with what phase 1 asked; the kernel simply uses the
     * memory, so what matters is that the memory given really holds `required` bytes. */
    if (required > 0 && opemu_device_range_check(workspace, required) != 0)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                          "%s: the workspace at %p (workspaceSize %llu) cannot hold the %llu bytes phase 1 asked "
                          "for.", op, workspace, (unsigned long long)workspace_size, (unsigned long long)required);
    if (opemu_strict() && workspace_size < required)
        opemu_finding("short-workspace", "%s: workspaceSize %llu is smaller than the %llu bytes phase 1 asked for", op,
                      (unsigned long long)workspace_size, (unsigned long long)required);
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return opemu_fail(ACLNN_ERR_RUNTIME_ERROR, "%s: launch failed: stream %p is not usable (runtime error %d).",
                          op, stream, rc);
    launch *l = malloc(sizeof *l);
    l->executor = executor;
    l->workspace = workspace;
    l->device = opemu_stream_device(s);
    l->inputs = copy_tensors(executor->inputs, executor->n_inputs);
    l->outputs = copy_tensors(executor->outputs, executor->n_outputs);
    opemu_executor_task_begin(executor);
    if (opemu_strict())
        sanitize_tensors(l, 2);
    executor->state = OPEMU_EXEC_LAUNCHED;
    if (!executor->repeatable)
        opemu_executor_discard(executor);
    return opemu_stream_submit(s, run_kernel, drop_launch, l);
}
