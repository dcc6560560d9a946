/* The handle table (handles.c): which pointers are live objects of which kind. Every check looks a
 * pointer up here before touching it, so a destroyed, foreign or random pointer yields an error code
 * instead of a dereference. The kinds are one namespace for every family; Python reads them too. */
#ifndef OPEMU_CORE_HANDLES_H
#define OPEMU_CORE_HANDLES_H

#include <stddef.h>

enum opemu_kind {
    OPEMU_KIND_NONE = 0,
    OPEMU_KIND_TENSOR = 1,
    OPEMU_KIND_SCALAR = 2,
    OPEMU_KIND_INT_ARRAY = 3,
    OPEMU_KIND_FLOAT_ARRAY = 4,
    OPEMU_KIND_BOOL_ARRAY = 5,
    OPEMU_KIND_TENSOR_LIST = 6,
    OPEMU_KIND_SCALAR_LIST = 7,
    OPEMU_KIND_EXECUTOR = 8,
    OPEMU_KIND_CONTEXT = 9,
    OPEMU_KIND_STREAM = 10,
    OPEMU_KIND_EVENT = 11,
    OPEMU_KIND_DATA_BUFFER = 12,
    OPEMU_KIND_MCDNN_HANDLE = 13,
    OPEMU_KIND_MCDNN_TENSOR = 14,
    OPEMU_KIND_MCDNN_ACTIVATION = 15,
    OPEMU_KIND_MCDNN_POOLING = 16,
    OPEMU_KIND_MCDNN_LRN = 17,
    OPEMU_KIND_MCDNN_DROPOUT = 18,
    OPEMU_KIND_MCDNN_SPATIAL_TF = 19,
    OPEMU_KIND_MCDNN_FILTER = 20,
    OPEMU_KIND_MCDNN_CONVOLUTION = 21,
    OPEMU_KIND_MCDNN_OP_TENSOR = 22,
    OPEMU_KIND_MCDNN_REDUCE_TENSOR = 23,
    OPEMU_KIND_MCDNN_TENSOR_TRANSFORM = 24,
    OPEMU_KIND_MCDNN_ALGORITHM = 25,
    OPEMU_KIND_MCDNN_ALGORITHM_PERF = 26,
    OPEMU_KIND_STREAM_CONFIG = 60,
    OPEMU_KIND_EXCEPTION_INFO = 61,
    OPEMU_KIND_ALLOCATOR_DESC = 62,
    OPEMU_KIND_VIRTUAL_RANGE = 63,
    OPEMU_KIND_MCBLAS_HANDLE = 64, /* apart from the small numbers other families add */
    OPEMU_KIND_PHYSICAL_MEMORY = 65,
    OPEMU_KIND_MC_MEMPOOL = 66,
    OPEMU_KIND_TENSOR_DESC = 80,   /* the single-operator API's tensor descriptions (acl/tensor_desc.c) */
    OPEMU_KIND_OP_ATTR = 81        /* and attribute sets (acl/op_attr.c) */
};

int opemu_handle_is(const void *handle, int kind);

#ifndef OPEMU_GENERATOR /* C only: what Python does not see */
void opemu_handle_add(const void *handle, int kind);
void opemu_handle_remove(const void *handle);
size_t opemu_handle_count(int kind);
#endif

#endif
