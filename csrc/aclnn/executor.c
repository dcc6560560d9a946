/* aclOpExecutor: created by phase 1 (from Python), consumed by phase 2 unless repeatable.
 *
 * An executor that a deferred stream still holds is freed when its task has run, so the app may
 * destroy it right after launching. */
#include <stdlib.h>
#include <string.h>
#include "aclnn_internal.h"
#include "core/core.h"
#include "core/hooks.h"

typedef struct {
    aclOpExecutor public_part;
    int inflight;
    int doomed;
    int64_t *twin; /* per input: the output slot of the same Ref parameter, or -1 */
    /* per slot (inputs, then outputs) of a tensor-list element: the list's IR index (among the
     * inputs or among the outputs) and the element's index in the list; -1 for plain tensors */
    int64_t *list_ir;
    int64_t *list_item;
    uint64_t ir_inputs; /* how many IR inputs the op has (aclSetDynamicTensorAddr counts them first) */
} executor_record;

aclOpExecutor *opemu_executor_create(const char *op, uint64_t n_inputs, uint64_t n_outputs)
{
    executor_record *r = calloc(1, sizeof *r);
    aclOpExecutor *e = &r->public_part;
    strncpy(e->op, op, sizeof e->op - 1);
    e->n_inputs = n_inputs;
    e->n_outputs = n_outputs;
    e->inputs = calloc(n_inputs ? n_inputs : 1, sizeof(aclTensor));
    e->outputs = calloc(n_outputs ? n_outputs : 1, sizeof(aclTensor));
    r->twin = malloc((n_inputs ? n_inputs : 1) * sizeof *r->twin);
    for (uint64_t i = 0; i < n_inputs; i++)
        r->twin[i] = -1;
    uint64_t slots = n_inputs + n_outputs;
    r->list_ir = malloc((slots ? slots : 1) * sizeof *r->list_ir);
    r->list_item = malloc((slots ? slots : 1) * sizeof *r->list_item);
    for (uint64_t i = 0; i < slots; i++)
        r->list_ir[i] = r->list_item[i] = -1;
    opemu_handle_add(e, OPEMU_KIND_EXECUTOR);
    return e;
}

void opemu_executor_set_input(aclOpExecutor *e, uint64_t index, const aclTensor *tensor)
{
    if (index < e->n_inputs && tensor)
        e->inputs[index] = *tensor;
}

void opemu_executor_set_output(aclOpExecutor *e, uint64_t index, const aclTensor *tensor)
{
    if (index < e->n_outputs && tensor)
        e->outputs[index] = *tensor;
}

/* Input `input` and output `output` are one Ref parameter (updated in place): a new address for
 * the input is the output's too (nnopbase's NnopbaseSetRefTensorAddr); not the other way round. */
void opemu_executor_set_ref(aclOpExecutor *e, uint64_t input, uint64_t output)
{
    if (input < e->n_inputs && output < e->n_outputs)
        ((executor_record *)e)->twin[input] = (int64_t)output;
}

/* The executor's tensors from phase 1's tensor arguments in one call: sources[3k], [3k+1], [3k+2] =
 * (is_output, slot, index into `tensors`) for k < n; twins[2k], [2k+1] = a Ref's (input, output) for k < n_twins. */
void opemu_executor_fill(aclOpExecutor *e, int64_t n, const int64_t *sources, const void *const *tensors,
                         int64_t n_twins, const int64_t *twins)
{
    for (int64_t k = 0; k < n; k++) {
        const int64_t *s = sources + 3 * k;
        if (s[0])
            opemu_executor_set_output(e, (uint64_t)s[1], tensors[s[2]]);
        else
            opemu_executor_set_input(e, (uint64_t)s[1], tensors[s[2]]);
    }
    for (int64_t k = 0; k < n_twins; k++)
        opemu_executor_set_ref(e, (uint64_t)twins[2 * k], (uint64_t)twins[2 * k + 1]);
}

/* Slot `slot` of the inputs (or outputs) holds element `item` of the tensor list that is IR input
 * (or output) `ir_index`; the op has `ir_inputs` IR inputs. */
void opemu_executor_set_list_item(aclOpExecutor *e, int is_output, uint64_t slot, uint64_t ir_index, uint64_t item,
                                  uint64_t ir_inputs)
{
    executor_record *r = (executor_record *)e;
    uint64_t at = is_output ? e->n_inputs + slot : slot;
    if (slot < (is_output ? e->n_outputs : e->n_inputs)) {
        r->list_ir[at] = (int64_t)ir_index;
        r->list_item[at] = (int64_t)item;
        r->ir_inputs = ir_inputs;
    }
}

static void free_executor(aclOpExecutor *e)
{
    if (e->plan_id && opemu_python_ready("aclDestroyAclOpExecutor") == 0)
        opemu_py_release_plan(e->plan_id);
    free(e->inputs);
    free(e->outputs);
    free(((executor_record *)e)->twin);
    free(((executor_record *)e)->list_ir);
    free(((executor_record *)e)->list_item);
    free(e);
}

/* Takes the executor away from the app; frees it now or when its last queued task has run. */
void opemu_executor_discard(aclOpExecutor *e)
{
    executor_record *r = (executor_record *)e;
    opemu_handle_remove(e);
    if (r->inflight)
        r->doomed = 1;
    else
        free_executor(e);
}

void opemu_executor_task_begin(aclOpExecutor *e) { ((executor_record *)e)->inflight++; }

void opemu_executor_task_end(aclOpExecutor *e)
{
    executor_record *r = (executor_record *)e;
    if (--r->inflight == 0 && r->doomed)
        free_executor(e);
}

static int live_executor(const aclOpExecutor *e, const char *api)
{
    if (e == NULL)
        return opemu_fail(ACLNN_ERR_INNER_NULLPTR, "%s: The executor is nullptr.", api);
    if (!opemu_handle_is(e, OPEMU_KIND_EXECUTOR))
        return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                          "%s: %p is not a live executor: phase 2 releases an executor that was not made "
                          "repeatable, and aclDestroyAclOpExecutor releases one that was.", api, (const void *)e);
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    int rc = live_executor(executor, "aclSetAclOpExecutorRepeatable");
    if (rc)
        return rc;
    if (executor->state != OPEMU_EXEC_READY)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                          "aclSetAclOpExecutorRepeatable must be called right after the GetWorkspaceSize call.");
    executor->repeatable = 1;
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor)
{
    if (executor == NULL)
        return ACLNN_SUCCESS;
    int rc = live_executor(executor, "aclDestroyAclOpExecutor");
    if (rc)
        return rc;
    opemu_executor_discard(executor);
    return ACLNN_SUCCESS;
}

/* ---- the address setters of repeatable executors ---- */

static aclnnStatus set_addr(aclOpExecutor *e, size_t index, aclTensor *tensor, void *addr, int which, const char *api)
{
    int rc = live_executor(e, api);
    if (rc)
        return rc;
    uint64_t n = which == 0 ? e->n_inputs : which == 1 ? e->n_outputs : e->n_inputs + e->n_outputs;
    if (index >= n)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: index %zu is out of range: the %s has %llu tensors.", api,
                          index, e->op, (unsigned long long)n);
    aclTensor *slot = which == 1 ? &e->outputs[index]
                      : index < e->n_inputs ? &e->inputs[index] : &e->outputs[index - e->n_inputs];
    slot->data = addr;
    if (which != 1 && index < e->n_inputs && ((executor_record *)e)->twin[index] >= 0)
        e->outputs[((executor_record *)e)->twin[index]].data = addr;
    if (tensor && opemu_handle_is(tensor, OPEMU_KIND_TENSOR))
        tensor->data = addr;
    return ACLNN_SUCCESS;
}

/* Element `relativeIndex` of the tensor list at IR index `irIndex` (which: 0 inputs, 1 outputs,
 * 2 inputs then outputs): its slot gets `addr` (an input's Ref twin too), and so does the list's
 * aclTensor, as nnopbase's NnopbaseSetDynamicTensorAddr does. */
static aclnnStatus set_dynamic_addr(aclOpExecutor *e, size_t irIndex, size_t relativeIndex, aclTensorList *tensors,
                                    void *addr, int which, const char *api)
{
    int rc = live_executor(e, api);
    if (rc)
        return rc;
    executor_record *r = (executor_record *)e;
    int is_output = which == 1 || (which == 2 && irIndex >= r->ir_inputs);
    size_t ir = which == 2 && is_output ? irIndex - r->ir_inputs : irIndex;
    uint64_t first = is_output ? e->n_inputs : 0, count = is_output ? e->n_outputs : e->n_inputs;
    for (uint64_t at = first; at < first + count; at++) {
        if (r->list_ir[at] != (int64_t)ir || r->list_item[at] != (int64_t)relativeIndex)
            continue;
        uint64_t slot = at - first;
        (is_output ? e->outputs : e->inputs)[slot].data = addr;
        if (!is_output && r->twin[slot] >= 0)
            e->outputs[r->twin[slot]].data = addr;
        if (tensors && opemu_handle_is(tensors, OPEMU_KIND_TENSOR_LIST) && relativeIndex < tensors->size &&
            tensors->items[relativeIndex] && opemu_handle_is(tensors->items[relativeIndex], OPEMU_KIND_TENSOR))
            tensors->items[relativeIndex]->data = addr;
        return ACLNN_SUCCESS;
    }
    return opemu_fail(ACLNN_ERR_PARAM_INVALID,
                      "%s: %s has no tensor list element %zu at %s irIndex %zu (the list's index among the op's %s).",
                      api, e->op, relativeIndex, is_output ? "output" : "input", irIndex,
                      which == 2 ? "inputs, then outputs" : is_output ? "outputs" : "inputs");
}

#define ADDR_SETTERS(prefix)                                                                                   \
    OPEMU_EXPORT aclnnStatus prefix##SetInputTensorAddr(aclOpExecutor *executor, const size_t index,           \
                                                        aclTensor *tensor, void *addr)                         \
    {                                                                                                          \
        return set_addr(executor, index, tensor, addr, 0, #prefix "SetInputTensorAddr");                       \
    }                                                                                                          \
    OPEMU_EXPORT aclnnStatus prefix##SetOutputTensorAddr(aclOpExecutor *executor, const size_t index,          \
                                                         aclTensor *tensor, void *addr)                        \
    {                                                                                                          \
        return set_addr(executor, index, tensor, addr, 1, #prefix "SetOutputTensorAddr");                      \
    }                                                                                                          \
    OPEMU_EXPORT aclnnStatus prefix##SetTensorAddr(aclOpExecutor *executor, const size_t index,                \
                                                   aclTensor *tensor, void *addr)                              \
    {                                                                                                          \
        return set_addr(executor, index, tensor, addr, 2, #prefix "SetTensorAddr");                            \
    }                                                                                                          \
    OPEMU_EXPORT aclnnStatus prefix##SetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex,        \
                                                               const size_t relativeIndex,                     \
                                                               aclTensorList *tensors, void *addr)             \
    {                                                                                                          \
        return set_dynamic_addr(executor, irIndex, relativeIndex, tensors, addr, 0,                            \
                                #prefix "SetDynamicInputTensorAddr");                                          \
    }                                                                                                          \
    OPEMU_EXPORT aclnnStatus prefix##SetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex,       \
                                                                const size_t relativeIndex,                    \
                                                                aclTensorList *tensors, void *addr)            \
    {                                                                                                          \
        return set_dynamic_addr(executor, irIndex, relativeIndex, tensors, addr, 1,                            \
                                #prefix "SetDynamicOutputTensorAddr");                                         \
    }                                                                                                          \
    OPEMU_EXPORT aclnnStatus prefix##SetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex,             \
                                                          const size_t relativeIndex, aclTensorList *tensors,  \
                                                          void *addr)                                          \
    {                                                                                                          \
        return set_dynamic_addr(executor, irIndex, relativeIndex, tensors, addr, 2,                            \
                                #prefix "SetDynamicTensorAddr");                                               \
    }

/* opbase exports both spellings: the older `Acl` prefix and the current `acl` one. */
ADDR_SETTERS(Acl)
ADDR_SETTERS(acl)

OPEMU_EXPORT aclnnStatus aclnnInit(const char *configPath)
{
    (void)configPath; /* the op library needs no configuration here */
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }
