/* The single-operator API's objects as C and the embedded Python both see them (included by
 * bridge_api.h, so plain C that pycparser reads): tensor descriptions, attribute sets, and the
 * task queue an aclop call's kernel runs through.
 *
 * An aclTensorDesc holds what the app described: the data type, the format and shape given at
 * creation (the tensor as the operator sees it), the storage format and shape (aclSetTensorFormat /
 * aclSetTensorShape: how the bytes lie in the buffer; by default the same), the origin format and
 * shape, the placement (device, or host for values the operator reads at compile time), a name,
 * const data, and shape and value ranges. */
#ifndef OPEMU_ACLOP_OBJECTS_H
#define OPEMU_ACLOP_OBJECTS_H

#define OPEMU_DESC_MAX_DIMS 128  /* ACL_MAX_DIM_CNT */

typedef struct opemu_shape {
    int64_t ndim; /* -1: not set */
    int64_t dims[OPEMU_DESC_MAX_DIMS];
} opemu_shape;

struct aclTensorDesc {
    int32_t dtype;
    int32_t format;
    int32_t storage_format;
    int32_t origin_format;
    int32_t placement;
    int32_t has_storage_format;
    opemu_shape shape;
    opemu_shape storage_shape;
    opemu_shape origin_shape;
    char *name;
    char *dynamic_input;
    void *const_data;
    uint64_t const_length;
    int64_t n_shape_ranges;
    int64_t *shape_ranges;  /* [min, max] pairs */
    int64_t n_value_ranges;
    int64_t *value_ranges;
};

/* An attribute's kind: a scalar or a list of one type, or a list of int lists. */
enum {
    OPEMU_ATTR_BOOL = 1,
    OPEMU_ATTR_INT = 2,
    OPEMU_ATTR_FLOAT = 3,
    OPEMU_ATTR_STRING = 4,
    OPEMU_ATTR_DATA_TYPE = 5,
    OPEMU_ATTR_LIST_BOOL = 6,
    OPEMU_ATTR_LIST_INT = 7,
    OPEMU_ATTR_LIST_FLOAT = 8,
    OPEMU_ATTR_LIST_STRING = 9,
    OPEMU_ATTR_LIST_DATA_TYPE = 10,
    OPEMU_ATTR_LIST_LIST_INT = 11
};

/* One attribute: bools, ints and data types in `ints`, floats in `floats`, strings in `strings`; a
 * list of int lists is `count` lists whose lengths are `lengths`, their values back to back in `ints`. */
typedef struct opemu_attr {
    char *name;
    int32_t kind;
    int64_t count;
    int64_t *ints;
    float *floats;
    char **strings;
    int64_t *lengths;
} opemu_attr;

struct aclopAttr {
    int64_t count;
    int64_t capacity;
    opemu_attr *items;
};

/* A live aclDataBuffer's address, its size in *size; NULL when `buffer` is not a live data buffer. */
void *opemu_data_buffer(const void *buffer, uint64_t *size);

/* Queues aclop task `task_id` on `stream` (NULL: the current context's default stream):
 * opemu_py_aclop_run(task_id) runs it, now (eager: its status is returned) or at the next
 * synchronisation (deferred: 0 is returned); opemu_py_aclop_drop(task_id) forgets one discarded
 * unrun. An error status (message recorded) when the stream is not live. */
int opemu_aclop_submit(void *stream, uint64_t task_id);
int opemu_py_aclop_run(uint64_t task_id);
void opemu_py_aclop_drop(uint64_t task_id);

#endif
