/* What the generated aclnn entry points call besides Python: phase 1 without Python for a signature
 * seen before (plan_cache.c), phase 2 (launch.c), and how an aclTensor argument shows in the trace. */
#ifndef OPEMU_ACLNN_ENTRY_H
#define OPEMU_ACLNN_ENTRY_H

#include "acl/acl.h"
#include "aclnn/objects.h"
#include "trace/trace.h"

/* ---- phase 1 without Python (plan_cache.c) ---- */
enum { OPEMU_PLAN_KEY_WORDS = 512 };
typedef struct opemu_plan_cache opemu_plan_cache;
typedef struct opemu_plan_key {
    int64_t words[OPEMU_PLAN_KEY_WORDS];
    int64_t n_words;
    int valid; /* 0: a dead handle, an injected fault or too long a key; Python decides */
    opemu_plan_cache **cache;
    struct opemu_plan_key *outer;
} opemu_plan_key;
void opemu_key_begin(opemu_plan_key *k, opemu_plan_cache **cache, const char *entry);
void opemu_key_tensor(opemu_plan_key *k, const aclTensor *tensor);
void opemu_key_tensor_list(opemu_plan_key *k, const aclTensorList *list);
void opemu_key_scalar(opemu_plan_key *k, const aclScalar *scalar);
void opemu_key_scalar_list(opemu_plan_key *k, const aclScalarList *list);
void opemu_key_array(opemu_plan_key *k, const void *array, int kind);
void opemu_key_value(opemu_plan_key *k, const void *value, size_t n);
/* 0 with the executor made and the workspace size written when the key's plan is remembered, else -1. */
int opemu_plan_reuse(opemu_plan_key *k, const void *const *arguments, uint64_t *workspace_size,
                     aclOpExecutor **executor);
/* Around the call into Python: the key opemu_plan_remember files the plan under. */
void opemu_key_enter(opemu_plan_key *k);
void opemu_key_leave(opemu_plan_key *k);

/* ---- phase 2 (launch.c): validate the executor and workspace, queue the kernel on the stream ---- */
aclnnStatus opemu_aclnn_launch(const char *op, void *workspace, uint64_t workspace_size,
                               aclOpExecutor *executor, aclrtStream stream);

/* An aclTensor argument in the trace: its shape, dtype, strides and data pointer (tensor.c). */
void opemu_trace_tensor(opemu_trace *t, const char *name, const aclTensor *tensor);

#endif
