/* aclTensorDesc (acl_base.h): the description of one operand of the single-operator API.
 *
 * A C object in the handle table: a destroyed or foreign pointer is refused (getters answer their
 * documented "null" value, setters ACL_ERROR_INVALID_PARAM). Shapes take -1 (unknown dimension) and
 * -2 (unknown rank) as GE does; a dimension below -2 is refused. Getters answer as the header
 * documents for a null description: ACL_DT_UNDEFINED, ACL_FORMAT_UNDEFINED, 0, -1. */
#include <stdlib.h>
#include <string.h>
#include "aclop.h"

static int set_shape(opemu_shape *shape, int numDims, const int64_t *dims, const char *api)
{
    if (numDims < 0 || numDims > OPEMU_DESC_MAX_DIMS)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: numDims %d must be in [0, %d].", api, numDims,
                          OPEMU_DESC_MAX_DIMS);
    if (numDims > 0 && dims == NULL)
        return OPEMU_ACL_CHECK_NULL("dims");
    for (int i = 0; i < numDims; i++)
        if (dims[i] < -2)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: dims[%d] is %lld; a dimension is -2 (unknown rank), "
                              "-1 (unknown) or at least 0.", api, i, (long long)dims[i]);
    shape->ndim = numDims;
    if (numDims)
        memcpy(shape->dims, dims, (size_t)numDims * sizeof *dims);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims,
                                                aclFormat format)
{
    struct aclTensorDesc *desc = calloc(1, sizeof *desc);
    if (desc == NULL) {
        opemu_fail(ACL_ERROR_BAD_ALLOC, "aclCreateTensorDesc: out of host memory");
        return NULL;
    }
    if (set_shape(&desc->shape, numDims, dims, "aclCreateTensorDesc") != ACL_SUCCESS) {
        free(desc);
        return NULL;
    }
    desc->dtype = dataType;
    desc->format = desc->storage_format = desc->origin_format = format;
    desc->storage_shape = desc->origin_shape = desc->shape;
    desc->placement = ACL_MEMTYPE_DEVICE;
    opemu_handle_add(desc, OPEMU_KIND_TENSOR_DESC);
    return desc;
}

static void free_desc(struct aclTensorDesc *desc)
{
    free(desc->name);
    free(desc->dynamic_input);
    free(desc->const_data);
    free(desc->shape_ranges);
    free(desc->value_ranges);
    free(desc);
}

OPEMU_EXPORT void aclDestroyTensorDesc(const aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d == NULL)
        return; /* the vendor's delete of nullptr; a dead pointer is never freed twice */
    opemu_handle_remove(d);
    free_desc(d);
}

/* A live description for a setter, or NULL with the error recorded in *rc. */
static struct aclTensorDesc *for_setter(aclTensorDesc *desc, const char *api, aclError *rc)
{
    if (desc == NULL) {
        *rc = OPEMU_ACL_CHECK_NULL("desc");
        return NULL;
    }
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d == NULL)
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclTensorDesc.", api, (void *)desc);
    return d;
}

static aclError copy_ranges(int64_t **to, int64_t *count, size_t n, const int64_t (*ranges)[2], const char *api)
{
    if (n > OPEMU_DESC_MAX_DIMS * 64)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %zu ranges is too many.", api, n);
    if (n > 0 && ranges == NULL)
        return OPEMU_ACL_CHECK_NULL("range");
    int64_t *copy = n ? malloc(n * 2 * sizeof *copy) : NULL;
    if (n && copy == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    for (size_t i = 0; i < n; i++) {
        copy[2 * i] = ranges[i][0];
        copy[2 * i + 1] = ranges[i][1];
    }
    free(*to);
    *to = copy;
    *count = (int64_t)n;
    return ACL_SUCCESS;
}

static aclError set_ranges(aclTensorDesc *desc, size_t count, const int64_t (*ranges)[2], int values,
                           const char *api)
{
    aclError rc;
    struct aclTensorDesc *d = for_setter(desc, api, &rc);
    if (d == NULL)
        return rc;
    return values ? copy_ranges(&d->value_ranges, &d->n_value_ranges, count, ranges, api)
                  : copy_ranges(&d->shape_ranges, &d->n_shape_ranges, count, ranges, api);
}

OPEMU_EXPORT aclError aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount,
                                             int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM])
{
    return set_ranges(desc, dimsCount, (const int64_t (*)[2])dimsRange, 0, "aclSetTensorShapeRange");
}

OPEMU_EXPORT aclError aclSetTensorValueRange(aclTensorDesc *desc, size_t valueCount,
                                             int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM])
{
    return set_ranges(desc, valueCount, (const int64_t (*)[2])valueRange, 1, "aclSetTensorValueRange");
}

OPEMU_EXPORT aclDataType aclGetTensorDescType(const aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    return d ? (aclDataType)d->dtype : ACL_DT_UNDEFINED;
}

OPEMU_EXPORT aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    return d ? (aclFormat)d->format : ACL_FORMAT_UNDEFINED;
}

/* Elements of the described shape; 0 for an unknown dimension or rank, or a count past 64 bits. */
static size_t element_count(const struct aclTensorDesc *d)
{
    uint64_t n = 1;
    for (int64_t i = 0; i < d->shape.ndim; i++) {
        int64_t dim = d->shape.dims[i];
        if (dim < 0 || (dim > 0 && n > UINT64_MAX / (uint64_t)dim))
            return 0;
        n *= (uint64_t)dim;
    }
    return (size_t)n;
}

OPEMU_EXPORT size_t aclGetTensorDescElementCount(const aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    return d ? element_count(d) : 0;
}

OPEMU_EXPORT size_t aclGetTensorDescSize(const aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d == NULL)
        return 0;
    size_t n = element_count(d), item = aclDataTypeSize((aclDataType)d->dtype);
    return item && n > SIZE_MAX / item ? 0 : n * item;
}

OPEMU_EXPORT size_t aclGetTensorDescNumDims(const aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d == NULL)
        return 0;
    if (d->shape.ndim == 1 && d->shape.dims[0] == -2)
        return (size_t)ACL_UNKNOWN_RANK;
    return (size_t)d->shape.ndim;
}

OPEMU_EXPORT int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d == NULL || index >= (size_t)d->shape.ndim)
        return -1;
    return d->shape.dims[index];
}

/* The live description holding dimension `index`, for a getter writing to `out` (named `out_name`);
 * NULL with the error in *rc. dimRangeNum's check (range getter only) comes between liveness and index. */
static struct aclTensorDesc *dimension_of(const aclTensorDesc *desc, size_t index, const void *out,
                                          const char *out_name, size_t range_num, const char *api, aclError *rc)
{
    struct aclTensorDesc *d = NULL;
    if (desc == NULL)
        *rc = OPEMU_ACL_CHECK_NULL("desc");
    else if (out == NULL)
        *rc = OPEMU_ACL_CHECK_NULL(out_name);
    else if ((d = opemu_live_desc(desc)) == NULL)
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclTensorDesc.", api, (const void *)desc);
    else if (range_num < ACL_TENSOR_SHAPE_RANGE_NUM)
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][dimRangeNum]dimRangeNum[%zu] must be at least %d.",
                         range_num, ACL_TENSOR_SHAPE_RANGE_NUM);
    else if (index >= (size_t)d->shape.ndim)
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][Index]index[%zu] must be less than dims num[%lld].",
                         index, (long long)d->shape.ndim);
    else
        return d;
    return NULL;
}

OPEMU_EXPORT aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize)
{
    aclError rc;
    struct aclTensorDesc *d = dimension_of(desc, index, dimSize, "dimSize", ACL_TENSOR_SHAPE_RANGE_NUM,
                                           "aclGetTensorDescDimV2", &rc);
    if (d == NULL)
        return rc;
    *dimSize = d->shape.dims[index];
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index, size_t dimRangeNum,
                                               int64_t *dimRange)
{
    aclError rc;
    struct aclTensorDesc *d = dimension_of(desc, index, dimRange, "dimRange", dimRangeNum,
                                           "aclGetTensorDescDimRange", &rc);
    if (d == NULL)
        return rc;
    if ((int64_t)index < d->n_shape_ranges) {
        dimRange[0] = d->shape_ranges[2 * index];
        dimRange[1] = d->shape_ranges[2 * index + 1];
    } else { /* no range set: a static dimension is its own range */
        dimRange[0] = dimRange[1] = d->shape.dims[index];
    }
    return ACL_SUCCESS;
}

static aclError set_string(char **to, const char *value, const char *api)
{
    char *copy = value ? strdup(value) : NULL;
    if (value && copy == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    free(*to);
    *to = copy;
    return ACL_SUCCESS;
}

OPEMU_EXPORT void aclSetTensorDescName(aclTensorDesc *desc, const char *name)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d != NULL)
        set_string(&d->name, name, "aclSetTensorDescName");
}

OPEMU_EXPORT const char *aclGetTensorDescName(aclTensorDesc *desc)
{
    struct aclTensorDesc *d = opemu_live_desc(desc);
    return d && d->name ? d->name : "";
}

OPEMU_EXPORT aclError aclTransTensorDescFormat(const aclTensorDesc *srcDesc, aclFormat dstFormat,
                                               aclTensorDesc **dstDesc)
{
    if (srcDesc == NULL)
        return OPEMU_ACL_CHECK_NULL("srcDesc");
    if (dstDesc == NULL)
        return OPEMU_ACL_CHECK_NULL("dstDesc");
    struct aclTensorDesc *d = opemu_live_desc(srcDesc);
    if (d == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclTransTensorDescFormat: %p is not a live aclTensorDesc.",
                          (const void *)srcDesc);
    if (dstFormat != d->format)
        return opemu_not_supported(ACL_ERROR_API_NOT_SUPPORT, "ACL_ERROR_API_NOT_SUPPORT", "aclTransTensorDescFormat",
                                   "acl/acl_base.h");
    /* the same format: a copy of the description */
    aclTensorDesc *copy = aclCreateTensorDesc((aclDataType)d->dtype, (int)d->shape.ndim, d->shape.dims,
                                              (aclFormat)d->format);
    if (copy == NULL)
        return ACL_ERROR_BAD_ALLOC;
    struct aclTensorDesc *c = (struct aclTensorDesc *)copy;
    c->storage_format = d->storage_format;
    c->storage_shape = d->storage_shape;
    c->origin_format = d->origin_format;
    c->origin_shape = d->origin_shape;
    c->placement = d->placement;
    *dstDesc = copy;
    return ACL_SUCCESS;
}

static aclError set_format(aclTensorDesc *desc, aclFormat format, const char *api, int which)
{
    aclError rc;
    struct aclTensorDesc *d = for_setter(desc, api, &rc);
    if (d == NULL)
        return rc;
    if (which == 0) {
        d->storage_format = format;
        d->has_storage_format = 1;
    } else {
        d->origin_format = format;
    }
    return ACL_SUCCESS;
}

static aclError set_desc_shape(aclTensorDesc *desc, int numDims, const int64_t *dims, const char *api, int which)
{
    aclError rc;
    struct aclTensorDesc *d = for_setter(desc, api, &rc);
    if (d == NULL)
        return rc;
    return set_shape(which == 0 ? &d->storage_shape : &d->origin_shape, numDims, dims, api);
}

OPEMU_EXPORT aclError aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format)
{
    return set_format(desc, format, "aclSetTensorStorageFormat", 0);
}

OPEMU_EXPORT aclError aclSetTensorFormat(aclTensorDesc *desc, aclFormat format)
{
    return set_format(desc, format, "aclSetTensorFormat", 0);
}

OPEMU_EXPORT aclError aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format)
{
    return set_format(desc, format, "aclSetTensorOriginFormat", 1);
}

OPEMU_EXPORT aclError aclSetTensorStorageShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    return set_desc_shape(desc, numDims, dims, "aclSetTensorStorageShape", 0);
}

OPEMU_EXPORT aclError aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    return set_desc_shape(desc, numDims, dims, "aclSetTensorShape", 0);
}

OPEMU_EXPORT aclError aclSetTensorOriginShape(aclTensorDesc *desc, int numDims, const int64_t *dims)
{
    return set_desc_shape(desc, numDims, dims, "aclSetTensorOriginShape", 1);
}

OPEMU_EXPORT aclTensorDesc *aclGetTensorDescByIndex(aclTensorDesc *desc, size_t index)
{
    /* `desc` is an array of descriptions (as a model's output descriptions are handed out); opemu makes
     * each one alone, so only index 0 is one */
    struct aclTensorDesc *d = opemu_live_desc(desc);
    if (d == NULL || index != 0) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "aclGetTensorDescByIndex: no description at index %zu of %p.", index,
                   (void *)desc);
        return NULL;
    }
    return desc;
}

OPEMU_EXPORT void *aclGetTensorDescAddress(const aclTensorDesc *desc)
{
    /* an address belongs to descriptions a model hands out with its data; an app's own has none */
    return NULL;
}

OPEMU_EXPORT aclError aclSetTensorDynamicInput(aclTensorDesc *desc, const char *dynamicInputName)
{
    aclError rc;
    struct aclTensorDesc *d = for_setter(desc, "aclSetTensorDynamicInput", &rc);
    if (d == NULL)
        return rc;
    if (dynamicInputName == NULL)
        return OPEMU_ACL_CHECK_NULL("dynamicInputName");
    return set_string(&d->dynamic_input, dynamicInputName, "aclSetTensorDynamicInput");
}

OPEMU_EXPORT aclError aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length)
{
    aclError rc;
    struct aclTensorDesc *d = for_setter(desc, "aclSetTensorConst", &rc);
    if (d == NULL)
        return rc;
    if (dataBuffer == NULL)
        return OPEMU_ACL_CHECK_NULL("dataBuffer");
    if (length == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][length]length must be positive.");
    void *copy = malloc(length); /* the runtime keeps its own copy of const data */
    if (copy == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "aclSetTensorConst: out of host memory for %zu bytes", length);
    memcpy(copy, dataBuffer, length);
    free(d->const_data);
    d->const_data = copy;
    d->const_length = length;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType)
{
    aclError rc;
    struct aclTensorDesc *d = for_setter(desc, "aclSetTensorPlaceMent", &rc);
    if (d == NULL)
        return rc;
    if (memType != ACL_MEMTYPE_DEVICE && memType != ACL_MEMTYPE_HOST && memType != ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclSetTensorPlaceMent: memType %d is not an aclMemType.",
                          (int)memType);
    d->placement = memType;
    return ACL_SUCCESS;
}
