/* aclTensor, aclScalar, the host arrays and the lists (reference §3.1, §3.5).
 *
 * Creation mirrors opbase: only structural nulls are refused (a null stride means contiguous);
 * values are checked by the operators, never here. */
#include <stdlib.h>
#include <string.h>
#include "aclnn_internal.h"
#include "core/core.h"

/* operator new[] lives in the C++ unit: callers free these arrays with delete[]. */
static int check_handle(const void *handle, int kind, const char *api, const char *what)
{
    if (handle == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is nullptr.", api, what);
    if (!opemu_handle_is(handle, kind))
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: %p is not a live %s (destroyed or never created).", api,
                          handle, what);
    return ACLNN_SUCCESS;
}

static int fill_tensor(aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                       const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                       uint64_t storageDimsNum, void *tensorData, const char *api)
{
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0))
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: viewDims or storageDims is nullptr with a non-zero count.", api);
    if (viewDimsNum > OPEMU_MAX_DIMS || storageDimsNum > OPEMU_MAX_DIMS)
        return opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: at most %d dimensions are supported.", api, OPEMU_MAX_DIMS);
    memset(t, 0, sizeof *t);
    t->dtype = dataType;
    t->format = format;
    t->ndim = viewDimsNum;
    t->storage_ndim = storageDimsNum;
    t->offset = offset;
    t->data = tensorData;
    if (viewDimsNum)
        memcpy(t->dims, viewDims, viewDimsNum * sizeof *viewDims);
    if (storageDimsNum)
        memcpy(t->storage_dims, storageDims, storageDimsNum * sizeof *storageDims);
    if (stride) {
        if (viewDimsNum)
            memcpy(t->strides, stride, viewDimsNum * sizeof *stride);
    } else {
        int64_t step = 1;
        for (uint64_t i = viewDimsNum; i-- > 0;) {
            t->strides[i] = step;
            step *= viewDims[i];
        }
    }
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                        const int64_t *stride, int64_t offset, aclFormat format,
                                        const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    aclTensor *t = malloc(sizeof *t);
    if (t == NULL || fill_tensor(t, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims,
                                 storageDimsNum, tensorData, "aclCreateTensor") != ACLNN_SUCCESS) {
        free(t);
        return NULL;
    }
    opemu_handle_add(t, OPEMU_KIND_TENSOR);
    return t;
}

OPEMU_EXPORT aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                                       aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
                                       const int64_t *storageDims, uint64_t storageDimsNum, void *tensorDataAddr)
{
    int rc = check_handle(tensor, OPEMU_KIND_TENSOR, "aclInitTensor", "tensor");
    if (rc)
        return rc;
    aclTensor fresh;
    rc = fill_tensor(&fresh, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum,
                     tensorDataAddr, "aclInitTensor");
    if (rc == ACLNN_SUCCESS)
        *tensor = fresh;
    return rc;
}

OPEMU_EXPORT aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    size_t size = aclDataTypeSize(dataType);
    if (value == NULL || size == 0 || size > sizeof(((aclScalar *)0)->value)) {
        opemu_fail(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: value is nullptr or dtype %d cannot be a scalar.",
                   (int)dataType);
        return NULL;
    }
    aclScalar *s = calloc(1, sizeof *s);
    s->dtype = dataType;
    memcpy(s->value, value, size);
    opemu_handle_add(s, OPEMU_KIND_SCALAR);
    return s;
}

/* The host arrays copy their input; an empty array may come from a null pointer. */
static void *copy_array(const void *value, uint64_t size, size_t item, int kind, const char *api)
{
    if (value == NULL && size > 0) {
        opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: value is nullptr.", api);
        return NULL;
    }
    struct { uint64_t size; void *data; } *array = calloc(1, sizeof *array);
    array->size = size;
    array->data = malloc(size ? size * item : 1);
    if (size)
        memcpy(array->data, value, size * item);
    opemu_handle_add(array, kind);
    return array;
}

OPEMU_EXPORT aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return copy_array(value, size, sizeof *value, OPEMU_KIND_INT_ARRAY, "aclCreateIntArray");
}

OPEMU_EXPORT aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
    return copy_array(value, size, sizeof *value, OPEMU_KIND_FLOAT_ARRAY, "aclCreateFloatArray");
}

OPEMU_EXPORT aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    return copy_array(value, size, sizeof *value, OPEMU_KIND_BOOL_ARRAY, "aclCreateBoolArray");
}

/* Lists hold the app's objects (null entries allowed) and destroy them with the list. */
static void *make_list(const void *const *value, uint64_t size, int list_kind, int item_kind, const char *api)
{
    if (value == NULL && size > 0) {
        opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: value is nullptr.", api);
        return NULL;
    }
    for (uint64_t i = 0; i < size; i++) {
        if (value[i] && !opemu_handle_is(value[i], item_kind)) {
            opemu_fail(ACLNN_ERR_PARAM_INVALID, "%s: element %llu is not a live object.", api, (unsigned long long)i);
            return NULL;
        }
    }
    struct { uint64_t size; void **items; } *list = calloc(1, sizeof *list);
    list->size = size;
    list->items = calloc(size ? size : 1, sizeof(void *));
    for (uint64_t i = 0; i < size; i++)
        list->items[i] = (void *)value[i];
    opemu_handle_add(list, list_kind);
    return list;
}

OPEMU_EXPORT aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    return make_list((const void *const *)value, size, OPEMU_KIND_TENSOR_LIST, OPEMU_KIND_TENSOR,
                     "aclCreateTensorList");
}

OPEMU_EXPORT aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    return make_list((const void *const *)value, size, OPEMU_KIND_SCALAR_LIST, OPEMU_KIND_SCALAR,
                     "aclCreateScalarList");
}

/* ---- destruction: null is fine; a dead or foreign pointer is reported, never freed ---- */

static aclnnStatus destroy(const void *handle, int kind, const char *api)
{
    if (handle == NULL)
        return ACLNN_SUCCESS;
    int rc = check_handle(handle, kind, api, "object of this type");
    if (rc)
        return rc;
    opemu_handle_remove(handle);
    if (kind == OPEMU_KIND_INT_ARRAY || kind == OPEMU_KIND_FLOAT_ARRAY || kind == OPEMU_KIND_BOOL_ARRAY)
        free(((aclIntArray *)handle)->data);
    if (kind == OPEMU_KIND_TENSOR_LIST || kind == OPEMU_KIND_SCALAR_LIST) {
        const aclTensorList *list = handle;
        int item_kind = kind == OPEMU_KIND_TENSOR_LIST ? OPEMU_KIND_TENSOR : OPEMU_KIND_SCALAR;
        for (uint64_t i = 0; i < list->size; i++)
            if (list->items[i] && opemu_handle_is(list->items[i], item_kind))
                destroy(list->items[i], item_kind, api);
        free(list->items);
    }
    free((void *)handle);
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclDestroyTensor(const aclTensor *tensor) { return destroy(tensor, OPEMU_KIND_TENSOR, "aclDestroyTensor"); }
OPEMU_EXPORT aclnnStatus aclDestroyScalar(const aclScalar *scalar) { return destroy(scalar, OPEMU_KIND_SCALAR, "aclDestroyScalar"); }
OPEMU_EXPORT aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    return destroy(array, OPEMU_KIND_INT_ARRAY, "aclDestroyIntArray");
}
OPEMU_EXPORT aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
    return destroy(array, OPEMU_KIND_FLOAT_ARRAY, "aclDestroyFloatArray");
}
OPEMU_EXPORT aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
    return destroy(array, OPEMU_KIND_BOOL_ARRAY, "aclDestroyBoolArray");
}
OPEMU_EXPORT aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    return destroy(array, OPEMU_KIND_TENSOR_LIST, "aclDestroyTensorList");
}
OPEMU_EXPORT aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    return destroy(array, OPEMU_KIND_SCALAR_LIST, "aclDestroyScalarList");
}

/* ---- getters ---- */

static aclnnStatus copy_out(const int64_t *values, uint64_t n, int64_t **out, uint64_t *out_n)
{
    int64_t *copy = opemu_new_int64_array(n);
    if (n)
        memcpy(copy, values, n * sizeof *values);
    *out = copy;
    *out_n = n;
    return ACLNN_SUCCESS;
}

#define CHECK_GETTER(handle, kind, api, out)                                                 \
    do {                                                                                      \
        int rc_ = check_handle(handle, kind, api, "object of this type");                    \
        if (rc_)                                                                              \
            return rc_;                                                                       \
        if ((out) == NULL)                                                                    \
            return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: output pointer is nullptr.", api); \
    } while (0)

OPEMU_EXPORT aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetViewShape", viewDims);
    if (viewDimsNum == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape: viewDimsNum is nullptr.");
    return copy_out(tensor->dims, tensor->ndim, viewDims, viewDimsNum);
}

OPEMU_EXPORT aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetStorageShape", storageDims);
    if (storageDimsNum == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetStorageShape: storageDimsNum is nullptr.");
    return copy_out(tensor->storage_dims, tensor->storage_ndim, storageDims, storageDimsNum);
}

OPEMU_EXPORT aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetViewStrides", stridesValue);
    if (stridesNum == NULL)
        return opemu_fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewStrides: stridesNum is nullptr.");
    return copy_out(tensor->strides, tensor->ndim, stridesValue, stridesNum);
}

OPEMU_EXPORT aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetViewOffset", offset);
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetFormat", format);
    *format = (aclFormat)tensor->format;
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetDataType", dataType);
    *dataType = (aclDataType)tensor->dtype;
    return ACLNN_SUCCESS;
}

#define SIZE_GETTER(fn, type, kind)                      \
    OPEMU_EXPORT aclnnStatus fn(const type *array, uint64_t *size) \
    {                                                     \
        CHECK_GETTER(array, kind, #fn, size);             \
        *size = array->size;                              \
        return ACLNN_SUCCESS;                             \
    }

SIZE_GETTER(aclGetIntArraySize, aclIntArray, OPEMU_KIND_INT_ARRAY)
SIZE_GETTER(aclGetFloatArraySize, aclFloatArray, OPEMU_KIND_FLOAT_ARRAY)
SIZE_GETTER(aclGetBoolArraySize, aclBoolArray, OPEMU_KIND_BOOL_ARRAY)
SIZE_GETTER(aclGetTensorListSize, aclTensorList, OPEMU_KIND_TENSOR_LIST)
SIZE_GETTER(aclGetScalarListSize, aclScalarList, OPEMU_KIND_SCALAR_LIST)

int opemu_tensor_summary(const void *handle, int64_t *out)
{
    if (!opemu_handle_is(handle, OPEMU_KIND_TENSOR))
        return -1;
    const aclTensor *t = handle;
    int64_t *p = out;
    *p++ = t->dtype;
    *p++ = t->format;
    *p++ = t->offset;
    *p++ = (int64_t)t->ndim;
    *p++ = (int64_t)t->storage_ndim;
    memcpy(p, t->dims, t->ndim * sizeof *p);
    p += t->ndim;
    memcpy(p, t->strides, t->ndim * sizeof *p);
    p += t->ndim;
    memcpy(p, t->storage_dims, t->storage_ndim * sizeof *p);
    p += t->storage_ndim;
    return (int)(p - out);
}

int opemu_tensor_restyle(void *handle, int32_t format, const int64_t *storage_dims, uint64_t storage_ndim)
{
    if (!opemu_handle_is(handle, OPEMU_KIND_TENSOR) || storage_ndim > OPEMU_MAX_DIMS)
        return -1;
    aclTensor *t = handle;
    t->format = format;
    t->storage_ndim = storage_ndim;
    memcpy(t->storage_dims, storage_dims, storage_ndim * sizeof *storage_dims);
    return 0;
}

/* opemu_tensor_summary of tensors[0..n) one after another, each preceded by its length (0: a NULL tensor);
 * `out` holds n * (OPEMU_SUMMARY_MAX + 1) int64s. One call for all of a phase 1's tensors: the bridge keys
 * its plans on these. Returns the int64s written, or -(k + 1) when tensors[k] is not a live aclTensor. */
int64_t opemu_tensor_summaries(const void *const *tensors, int64_t n, int64_t *out)
{
    int64_t *p = out;
    for (int64_t k = 0; k < n; k++) {
        if (tensors[k] == NULL) {
            *p++ = 0;
            continue;
        }
        int m = opemu_tensor_summary(tensors[k], p + 1);
        if (m < 0)
            return -(k + 1);
        *p = m;
        p += m + 1;
    }
    return p - out;
}

void opemu_tensor_addresses(const aclTensor *inputs, uint64_t n_inputs, const aclTensor *outputs, uint64_t n_outputs,
                            uint64_t *out)
{
    for (uint64_t i = 0; i < n_inputs; i++)
        *out++ = (uint64_t)(uintptr_t)inputs[i].data;
    for (uint64_t i = 0; i < n_outputs; i++)
        *out++ = (uint64_t)(uintptr_t)outputs[i].data;
}

OPEMU_EXPORT aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    int rc = check_handle(tensor, OPEMU_KIND_TENSOR, "aclSetRawTensorAddr", "tensor");
    if (rc)
        return rc;
    tensor->data = addr;
    return ACLNN_SUCCESS;
}

OPEMU_EXPORT aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    CHECK_GETTER(tensor, OPEMU_KIND_TENSOR, "aclGetRawTensorAddr", addr);
    *addr = tensor->data;
    return ACLNN_SUCCESS;
}

/* `n` values as a JSON list's items, into out (truncated, as the trace is, when too long). */
static void json_items(char *out, size_t size, const int64_t *values, uint64_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (uint64_t i = 0; i < n && used < size; i++) {
        int written = snprintf(out + used, size - used, i ? ", %lld" : "%lld", (long long)values[i]);
        if (written < 0)
            break;
        used += (size_t)written;
    }
}

void opemu_trace_tensor(opemu_trace *t, const char *name, const aclTensor *tensor)
{
    if (tensor == NULL) {
        opemu_trace_json(t, name, "null");
        return;
    }
    if (!opemu_handle_is(tensor, OPEMU_KIND_TENSOR)) {
        opemu_trace_json(t, name, "{\"handle\": \"%p\", \"live\": false}", (const void *)tensor);
        return;
    }
    uint64_t ndim = tensor->ndim < OPEMU_MAX_DIMS ? tensor->ndim : OPEMU_MAX_DIMS;
    char shape[OPEMU_MAX_DIMS * 24], strides[OPEMU_MAX_DIMS * 24];
    json_items(shape, sizeof shape, tensor->dims, ndim);
    json_items(strides, sizeof strides, tensor->strides, ndim);
    opemu_trace_json(t, name, "{\"handle\": \"%p\", \"dtype\": %d, \"format\": %d, \"shape\": [%s], \"strides\": [%s], "
                     "\"offset\": %lld, \"data\": \"%p\"}", (const void *)tensor, tensor->dtype, tensor->format, shape,
                     strides, (long long)tensor->offset, tensor->data);
}
