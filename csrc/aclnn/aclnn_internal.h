/* What the aclnn files share beyond their headers for the layers above. */
#ifndef OPEMU_ACLNN_INTERNAL_H
#define OPEMU_ACLNN_INTERNAL_H

#include "acl/acl.h"
#include "aclnn/entry.h"
#include "aclnn/objects.h"
#include "aclnn/opdev/op_errno.h"

/* A launch holds the executor (launch.c) until its task ran or was discarded (executor.c frees a
 * destroyed executor then). */
void opemu_executor_task_begin(aclOpExecutor *e);
void opemu_executor_task_end(aclOpExecutor *e);
/* Arrays the app releases with delete[] (new_arrays.cpp). */
int64_t *opemu_new_int64_array(uint64_t n);

#endif
