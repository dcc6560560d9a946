/* The aclnn objects (tensor.c, executor.c, plan_cache.c): their layouts and what the Python side of
 * the two phases calls to read and make them. Python reads these structs through the bridge; the
 * functions it implements for aclnn (opemu_py_*) are declared here too, where they are called. */
#ifndef OPEMU_ACLNN_OBJECTS_H
#define OPEMU_ACLNN_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>
#include "aclnn/aclnn_base.h"

#define OPEMU_MAX_DIMS 32

/* An aclTensor: the view (dims, element strides, element offset) over storage at `data`. */
struct aclTensor {
    int32_t dtype;
    int32_t format;
    uint64_t ndim;
    uint64_t storage_ndim;
    int64_t offset;
    void *data;
    int64_t dims[OPEMU_MAX_DIMS];
    int64_t strides[OPEMU_MAX_DIMS];
    int64_t storage_dims[OPEMU_MAX_DIMS];
};

struct aclScalar {
    int32_t dtype;
    uint8_t value[16];
};

struct aclIntArray { uint64_t size; int64_t *data; };
struct aclFloatArray { uint64_t size; float *data; };
struct aclBoolArray { uint64_t size; bool *data; };
struct aclTensorList { uint64_t size; aclTensor **items; };
struct aclScalarList { uint64_t size; aclScalar **items; };

/* Executor states: phase 1 leaves it READY; phase 2 consumes it unless it was made repeatable. */
enum { OPEMU_EXEC_READY = 0, OPEMU_EXEC_LAUNCHED = 1 };

/* The executor keeps its own copies of the tensors phase 1 saw (as the vendor's does), so the
 * app may destroy its aclTensors before phase 2; only addresses may change afterwards. */
struct aclOpExecutor {
    char op[64];
    int32_t state;
    int32_t repeatable;
    uint64_t workspace_size;
    uint64_t n_inputs;
    uint64_t n_outputs;
    aclTensor *inputs;
    aclTensor *outputs;
    uint64_t plan_id;
};

/* A live aclTensor as int64s: dtype, format, offset, ndim, storage_ndim, dims, strides,
 * storage dims. Returns how many were written, or -1 when `handle` is not a live aclTensor. */
enum { OPEMU_SUMMARY_MAX = 5 + 3 * OPEMU_MAX_DIMS };
int opemu_tensor_summary(const void *handle, int64_t *out);
int64_t opemu_tensor_summaries(const void *const *tensors, int64_t n, int64_t *out);
/* What a phase 1 that converts a tensor in place (aclnnTransMatmulWeight) leaves in the app's aclTensor: its
 * storage format and storage shape. Returns -1 when `handle` is not a live aclTensor or the shape too long. */
int opemu_tensor_restyle(void *handle, int32_t format, const int64_t *storage_dims, uint64_t storage_ndim);
/* The data addresses of a launch's tensors, inputs then outputs, into `out`: what phase 2 keys its views on. */
void opemu_tensor_addresses(const aclTensor *inputs, uint64_t n_inputs, const aclTensor *outputs, uint64_t n_outputs,
                            uint64_t *out);

/* Executors, driven by the Python side of phase 1. */
aclOpExecutor *opemu_executor_create(const char *op, uint64_t n_inputs, uint64_t n_outputs);
void opemu_executor_set_input(aclOpExecutor *executor, uint64_t index, const aclTensor *tensor);
void opemu_executor_set_output(aclOpExecutor *executor, uint64_t index, const aclTensor *tensor);
void opemu_executor_set_ref(aclOpExecutor *executor, uint64_t input, uint64_t output);
void opemu_executor_fill(aclOpExecutor *executor, int64_t n, const int64_t *sources, const void *const *tensors,
                         int64_t n_twins, const int64_t *twins);
/* A slot holding element `item` of the tensor list at IR index `ir_index` (among the inputs or the
 * outputs); `ir_inputs` is the op's IR input count (for aclSetDynamicTensorAddr). */
void opemu_executor_set_list_item(aclOpExecutor *executor, int is_output, uint64_t slot, uint64_t ir_index,
                                  uint64_t item, uint64_t ir_inputs);
void opemu_executor_discard(aclOpExecutor *executor);
/* After a successful phase 1 in Python: the executor layout of its plan (`plan_id`, pinned by the bridge),
 * for the generated shim to reuse without Python when the same signature comes again (plan_cache.c).
 * sources: per slot, is_output, slot, argument position, list item or -1, IR index; twins: a Ref's input
 * and output slots. Returns 0 when remembered, 1 when the signature already was, -1 when it is not kept. */
int opemu_plan_remember(uint64_t plan_id, const char *op, uint64_t workspace, uint64_t n_inputs, uint64_t n_outputs,
                        uint64_t ir_inputs, int64_t n_sources, const int64_t *sources, int64_t n_twins,
                        const int64_t *twins);

/* Implemented in Python (cffi embedded functions the bridge generates from these declarations and
 * Python fills in when it starts): phase 2's kernel, and forgetting a plan no executor uses. */
int opemu_py_execute(aclOpExecutor *executor, aclTensor *inputs, aclTensor *outputs, void *workspace);
void opemu_py_release_plan(uint64_t plan_id);

#endif
