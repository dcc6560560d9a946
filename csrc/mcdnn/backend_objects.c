/* The backend graph API's descriptors: create, destroy, initialize, set and get attributes. Cheap calls,
 * all in C; finalize (what each descriptor type requires and what it derives: engine counts, heuristic
 * results, workspace sizes) and execute are Python (python/opemu/ops/mcdnn/backend_*.py).
 *
 * A descriptor keeps the attributes set on it as typed element arrays. A descriptor given as an attribute
 * value (BACKEND_DESCRIPTOR) must be live and finalized, and is copied: what an operation graph refers to
 * cannot change after it was set, even if the program destroys the original (as cudnn-frontend does with
 * its temporaries). Reading a BACKEND_DESCRIPTOR attribute copies into descriptors the program created, of
 * the right type (how cudnn-frontend receives heuristic results and engines).
 *
 * Statuses (cuDNN 8.9's): a NULL or foreign descriptor, an attribute the descriptor type does not have, the
 * wrong attribute type, an element count out of range, setting a finalized descriptor: BAD_PARAM; reading
 * one not finalized: NOT_INITIALIZED; a descriptor type opemu does not emulate: NOT_SUPPORTED at create. */
#include <stdlib.h>
#include <string.h>
#include "mcdnn_internal.h"

#define ANY_COUNT 1024 /* the longest array attribute accepted */
#define ALPHA_TYPES (1 << MCDNN_TYPE_FLOAT | 1 << MCDNN_TYPE_DOUBLE)

/* One attribute a descriptor type has: the attribute types it accepts (a bit mask) and how many elements. */
typedef struct {
    int desc;
    int name;
    unsigned types;
    int max_count;
} attribute_rule;

#define T(x) (1u << MCDNN_TYPE_##x)
#define D(x) MCDNN_BACKEND_##x##_DESCRIPTOR
#define A(x) MCDNN_ATTR_##x

static const attribute_rule rules[] = {
    {D(POINTWISE), A(POINTWISE_MODE), T(POINTWISE_MODE), 1},
    {D(POINTWISE), A(POINTWISE_MATH_PREC), T(DATA_TYPE), 1},
    {D(POINTWISE), A(POINTWISE_NAN_PROPAGATION), T(NAN_PROPOGATION), 1},
    {D(POINTWISE), A(POINTWISE_RELU_LOWER_CLIP), ALPHA_TYPES, 1},
    {D(POINTWISE), A(POINTWISE_RELU_UPPER_CLIP), ALPHA_TYPES, 1},
    {D(POINTWISE), A(POINTWISE_RELU_LOWER_CLIP_SLOPE), ALPHA_TYPES, 1},
    {D(POINTWISE), A(POINTWISE_ELU_ALPHA), ALPHA_TYPES, 1},
    {D(POINTWISE), A(POINTWISE_SOFTPLUS_BETA), ALPHA_TYPES, 1},
    {D(POINTWISE), A(POINTWISE_SWISH_BETA), ALPHA_TYPES, 1},
    {D(POINTWISE), A(POINTWISE_AXIS), T(INT64), 1},
    {D(CONVOLUTION), A(CONVOLUTION_COMP_TYPE), T(DATA_TYPE), 1},
    {D(CONVOLUTION), A(CONVOLUTION_CONV_MODE), T(CONVOLUTION_MODE), 1},
    {D(CONVOLUTION), A(CONVOLUTION_DILATIONS), T(INT64), MCDNN_DIM_MAX},
    {D(CONVOLUTION), A(CONVOLUTION_FILTER_STRIDES), T(INT64), MCDNN_DIM_MAX},
    {D(CONVOLUTION), A(CONVOLUTION_POST_PADDINGS), T(INT64), MCDNN_DIM_MAX},
    {D(CONVOLUTION), A(CONVOLUTION_PRE_PADDINGS), T(INT64), MCDNN_DIM_MAX},
    {D(CONVOLUTION), A(CONVOLUTION_SPATIAL_DIMS), T(INT64), 1},
    {D(ENGINE), A(ENGINE_OPERATION_GRAPH), T(BACKEND_DESCRIPTOR), 1},
    {D(ENGINE), A(ENGINE_GLOBAL_INDEX), T(INT64), 1},
    {D(ENGINE), A(ENGINE_KNOB_INFO), T(BACKEND_DESCRIPTOR), ANY_COUNT},
    {D(ENGINE), A(ENGINE_NUMERICAL_NOTE), T(NUMERICAL_NOTE), ANY_COUNT},
    {D(ENGINE), A(ENGINE_LAYOUT_INFO), T(BACKEND_DESCRIPTOR), ANY_COUNT},
    {D(ENGINE), A(ENGINE_BEHAVIOR_NOTE), T(BEHAVIOR_NOTE), ANY_COUNT},
    {D(ENGINECFG), A(ENGINECFG_ENGINE), T(BACKEND_DESCRIPTOR), 1},
    {D(ENGINECFG), A(ENGINECFG_INTERMEDIATE_INFO), T(BACKEND_DESCRIPTOR), 1},
    {D(ENGINECFG), A(ENGINECFG_KNOB_CHOICES), T(BACKEND_DESCRIPTOR), ANY_COUNT},
    {D(ENGINEHEUR), A(ENGINEHEUR_MODE), T(HEUR_MODE), 1},
    {D(ENGINEHEUR), A(ENGINEHEUR_OPERATION_GRAPH), T(BACKEND_DESCRIPTOR), 1},
    {D(ENGINEHEUR), A(ENGINEHEUR_RESULTS), T(BACKEND_DESCRIPTOR), ANY_COUNT},
    {D(EXECUTION_PLAN), A(EXECUTION_PLAN_HANDLE), T(HANDLE), 1},
    {D(EXECUTION_PLAN), A(EXECUTION_PLAN_ENGINE_CONFIG), T(BACKEND_DESCRIPTOR), 1},
    {D(EXECUTION_PLAN), A(EXECUTION_PLAN_WORKSPACE_SIZE), T(INT64), 1},
    {D(EXECUTION_PLAN), A(EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS), T(INT64), ANY_COUNT},
    {D(EXECUTION_PLAN), A(EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS), T(INT64), ANY_COUNT},
    {D(EXECUTION_PLAN), A(EXECUTION_PLAN_JSON_REPRESENTATION), T(CHAR), 1 << 16},
    {D(KNOB_CHOICE), A(KNOB_CHOICE_KNOB_TYPE), T(KNOB_TYPE), 1},
    {D(KNOB_CHOICE), A(KNOB_CHOICE_KNOB_VALUE), T(INT64), 1},
    {D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_ALPHA), ALPHA_TYPES, 1},
    {D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_BETA), ALPHA_TYPES, 1},
    {D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_CONV_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_W), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_X), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_Y), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_ALPHA), ALPHA_TYPES, 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_BETA), ALPHA_TYPES, 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_W), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_DX), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_DY), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_ALPHA), ALPHA_TYPES, 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_BETA), ALPHA_TYPES, 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC), T(BACKEND_DESCRIPTOR),
     1},
    {D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_DW), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_X), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_DY), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_PW_DESCRIPTOR), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_XDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_BDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_YDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_ALPHA1), ALPHA_TYPES, 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_ALPHA2), ALPHA_TYPES, 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_DXDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_DYDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_POINTWISE), A(OPERATION_POINTWISE_TDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATIONGRAPH), A(OPERATIONGRAPH_HANDLE), T(HANDLE), 1},
    {D(OPERATIONGRAPH), A(OPERATIONGRAPH_OPS), T(BACKEND_DESCRIPTOR), ANY_COUNT},
    {D(OPERATIONGRAPH), A(OPERATIONGRAPH_ENGINE_GLOBAL_COUNT), T(INT64), 1},
    {D(VARIANT_PACK), A(VARIANT_PACK_UNIQUE_IDS), T(INT64), ANY_COUNT},
    {D(VARIANT_PACK), A(VARIANT_PACK_DATA_POINTERS), T(VOID_PTR), ANY_COUNT},
    {D(VARIANT_PACK), A(VARIANT_PACK_INTERMEDIATES), T(VOID_PTR), ANY_COUNT},
    {D(VARIANT_PACK), A(VARIANT_PACK_WORKSPACE), T(VOID_PTR), 1},
    {D(TENSOR), A(TENSOR_BYTE_ALIGNMENT), T(INT64), 1},
    {D(TENSOR), A(TENSOR_DATA_TYPE), T(DATA_TYPE), 1},
    {D(TENSOR), A(TENSOR_DIMENSIONS), T(INT64), MCDNN_DIM_MAX},
    {D(TENSOR), A(TENSOR_STRIDES), T(INT64), MCDNN_DIM_MAX},
    {D(TENSOR), A(TENSOR_VECTOR_COUNT), T(INT64), 1},
    {D(TENSOR), A(TENSOR_VECTORIZED_DIMENSION), T(INT64), 1},
    {D(TENSOR), A(TENSOR_UNIQUE_ID), T(INT64), 1},
    {D(TENSOR), A(TENSOR_IS_VIRTUAL), T(BOOLEAN), 1},
    {D(TENSOR), A(TENSOR_IS_BY_VALUE), T(BOOLEAN), 1},
    {D(TENSOR), A(TENSOR_REORDERING_MODE), T(TENSOR_REORDERING_MODE), 1},
    {D(TENSOR), A(TENSOR_RAGGED_OFFSET_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(MATMUL), A(MATMUL_COMP_TYPE), T(DATA_TYPE), 1},
    {D(MATMUL), A(MATMUL_PADDING_VALUE), ALPHA_TYPES, 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_ADESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_BDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_CDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT), T(INT64), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_MATMUL), A(OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC), T(BACKEND_DESCRIPTOR), 1},
    {D(REDUCTION), A(REDUCTION_OPERATOR), T(REDUCTION_OPERATOR_TYPE), 1},
    {D(REDUCTION), A(REDUCTION_COMP_TYPE), T(DATA_TYPE), 1},
    {D(OPERATION_REDUCTION), A(OPERATION_REDUCTION_XDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_REDUCTION), A(OPERATION_REDUCTION_YDESC), T(BACKEND_DESCRIPTOR), 1},
    {D(OPERATION_REDUCTION), A(OPERATION_REDUCTION_DESC), T(BACKEND_DESCRIPTOR), 1},
};

/* The descriptor types opemu emulates: every type a rule names. */
static int emulated(int type)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].desc == type)
            return 1;
    return 0;
}

static const attribute_rule *rule_of(int desc, int name)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].desc == desc && rules[i].name == name)
            return &rules[i];
    return NULL;
}

/* Bytes per element of an attribute type. */
static size_t element_bytes(int type)
{
    switch (type) {
    case MCDNN_TYPE_HANDLE: case MCDNN_TYPE_VOID_PTR: case MCDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(void *);
    case MCDNN_TYPE_INT64: case MCDNN_TYPE_DOUBLE: return 8;
    case MCDNN_TYPE_BOOLEAN: return sizeof(bool);
    case MCDNN_TYPE_CHAR: return 1;
    case MCDNN_TYPE_FRACTION: return sizeof(mcdnnFraction_t);
    }
    return 4; /* enums, int32, float */
}

static struct opemu_backend_desc *live(const void *descriptor, const char *api)
{
    return opemu_mcdnn_live(descriptor, OPEMU_KIND_MCDNN_BACKEND, "mcdnnBackendDescriptor_t", api);
}

static void clear(struct opemu_backend_desc *d);

static void free_desc(struct opemu_backend_desc *d)
{
    clear(d);
    free(d->attrs);
    free(d);
}

/* Frees one attribute's elements (and the descriptor copies they own). */
static void free_attr(struct opemu_backend_attr *a)
{
    if (a->type == MCDNN_TYPE_BACKEND_DESCRIPTOR)
        for (int64_t j = 0; j < a->count; j++)
            if (((void **)a->data)[j] != NULL)
                free_desc(((struct opemu_backend_desc **)a->data)[j]);
    free(a->data);
}

static void clear(struct opemu_backend_desc *d)
{
    for (int i = 0; i < d->n_attrs; i++)
        free_attr(&d->attrs[i]);
    d->n_attrs = 0;
    d->finalized = 0;
}

/* A deep copy of descriptor d (not in the handle table), or NULL when out of memory. */
static struct opemu_backend_desc *copy_desc(const struct opemu_backend_desc *d)
{
    struct opemu_backend_desc *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->type = d->type;
    for (int i = 0; i < d->n_attrs; i++) {
        const struct opemu_backend_attr *a = &d->attrs[i];
        if (opemu_backend_put(c, a->name, a->type, a->count, a->data) != 0) {
            free_desc(c);
            return NULL;
        }
    }
    c->finalized = d->finalized;
    return c;
}

const struct opemu_backend_attr *opemu_backend_attr(const void *descriptor, int32_t name)
{
    const struct opemu_backend_desc *d = descriptor;
    for (int i = 0; d != NULL && i < d->n_attrs; i++)
        if (d->attrs[i].name == name)
            return &d->attrs[i];
    return NULL;
}

/* Stores copies of `count` elements; descriptor elements are deep-copied. */
int opemu_backend_put(void *descriptor, int32_t name, int32_t type, int64_t count, const void *data)
{
    struct opemu_backend_desc *d = descriptor;
    size_t bytes = (size_t)count * element_bytes(type);
    void *copy = malloc(bytes ? bytes : 1);
    if (copy == NULL)
        return -1;
    if (type == MCDNN_TYPE_BACKEND_DESCRIPTOR) {
        for (int64_t j = 0; j < count; j++) {
            const struct opemu_backend_desc *source = ((void *const *)data)[j];
            ((void **)copy)[j] = source ? copy_desc(source) : NULL;
            if (source && ((void **)copy)[j] == NULL) {
                for (int64_t k = 0; k < j; k++)
                    if (((void **)copy)[k])
                        free_desc(((struct opemu_backend_desc **)copy)[k]);
                free(copy);
                return -1;
            }
        }
    } else if (bytes) {
        memcpy(copy, data, bytes);
    }
    struct opemu_backend_attr *slot = (struct opemu_backend_attr *)opemu_backend_attr(d, name);
    if (slot != NULL) {
        free_attr(slot);
    } else {
        if (d->n_attrs == d->capacity) {
            int capacity = d->capacity ? 2 * d->capacity : 8;
            struct opemu_backend_attr *grown = realloc(d->attrs, (size_t)capacity * sizeof *grown);
            if (grown == NULL) {
                free(copy);
                return -1;
            }
            d->attrs = grown;
            d->capacity = capacity;
        }
        slot = &d->attrs[d->n_attrs++];
    }
    slot->name = name;
    slot->type = type;
    slot->count = count;
    slot->data = copy;
    return 0;
}

void opemu_backend_finalize_mark(void *descriptor)
{
    ((struct opemu_backend_desc *)descriptor)->finalized = 1;
}

void *opemu_backend_new(int32_t type)
{
    struct opemu_backend_desc *d = calloc(1, sizeof *d);
    if (d != NULL)
        d->type = type;
    return d;
}

void opemu_backend_free(void *descriptor)
{
    if (descriptor != NULL)
        free_desc(descriptor);
}

/* ---- the entry points ---- */

OPEMU_EXPORT mcdnnStatus_t mcdnnBackendCreateDescriptor(mcdnnBackendDescriptorType_t descriptorType,
                                                        mcdnnBackendDescriptor_t *descriptor)
{
    const char *api = "mcdnnBackendCreateDescriptor";
    if (descriptor == NULL)
        return MORE_BAD("%s: descriptor is null", api);
    if ((unsigned)descriptorType > MCDNN_BACKEND_OPERATION_RNG_DESCRIPTOR)
        return MORE_BAD("%s: invalid mcdnnBackendDescriptorType_t %d", api, (int)descriptorType);
    if (!emulated(descriptorType))
        return MORE_NOT_SUPPORTED("%s: descriptor type %d is not emulated by opemu (convolution, matmul, pointwise "
                                  "and reduction graphs are)", api, (int)descriptorType);
    struct opemu_backend_desc *d = opemu_backend_new(descriptorType);
    if (d == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    opemu_handle_add(d, OPEMU_KIND_MCDNN_BACKEND);
    *descriptor = d;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnBackendDestroyDescriptor(mcdnnBackendDescriptor_t descriptor)
{
    struct opemu_backend_desc *d = live(descriptor, "mcdnnBackendDestroyDescriptor");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(d);
    free_desc(d);
    return MCDNN_STATUS_SUCCESS;
}

/* Back to the state mcdnnBackendCreateDescriptor leaves: no attributes, not finalized. */
OPEMU_EXPORT mcdnnStatus_t mcdnnBackendInitialize(mcdnnBackendDescriptor_t descriptor)
{
    struct opemu_backend_desc *d = live(descriptor, "mcdnnBackendInitialize");
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    clear(d);
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnBackendSetAttribute(mcdnnBackendDescriptor_t descriptor,
                                                    mcdnnBackendAttributeName_t attributeName,
                                                    mcdnnBackendAttributeType_t attributeType, int64_t elementCount,
                                                    const void *arrayOfElements)
{
    const char *api = "mcdnnBackendSetAttribute";
    struct opemu_backend_desc *d = live(descriptor, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (d->finalized)
        return MORE_BAD("%s: the descriptor is finalized", api);
    const attribute_rule *rule = rule_of(d->type, attributeName);
    if (rule == NULL)
        return MORE_BAD("%s: attribute %d does not belong to descriptor type %d", api, (int)attributeName, d->type);
    if ((unsigned)attributeType > MCDNN_TYPE_RNG_DISTRIBUTION || !(rule->types & (1u << attributeType)))
        return MORE_BAD("%s: attribute %d does not take attribute type %d", api, (int)attributeName,
                        (int)attributeType);
    if (elementCount < 0 || elementCount > rule->max_count)
        return MORE_BAD("%s: elementCount %lld for attribute %d is outside [0, %d]", api, (long long)elementCount,
                        (int)attributeName, rule->max_count);
    if (elementCount > 0 && arrayOfElements == NULL)
        return MORE_BAD("%s: arrayOfElements is null", api);
    if (attributeType == MCDNN_TYPE_HANDLE && elementCount == 1 &&
        !opemu_handle_is(*(void *const *)arrayOfElements, OPEMU_KIND_MCDNN_HANDLE))
        return MORE_BAD("%s: %p is not a live mcdnnHandle_t", api, *(void *const *)arrayOfElements);
    if (attributeType == MCDNN_TYPE_BACKEND_DESCRIPTOR) {
        for (int64_t j = 0; j < elementCount; j++) {
            struct opemu_backend_desc *e = ((void *const *)arrayOfElements)[j];
            if (live(e, api) == NULL)
                return MCDNN_STATUS_BAD_PARAM;
            if (!e->finalized)
                return MORE_BAD("%s: element %lld of attribute %d is a descriptor that was not finalized", api,
                                (long long)j, (int)attributeName);
        }
    }
    if (opemu_backend_put(d, attributeName, attributeType, elementCount, arrayOfElements) != 0)
        return opemu_mcdnn_fail(MCDNN_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    return MCDNN_STATUS_SUCCESS;
}

/* Copies descriptor `source` into the program's descriptor `target` (created, of the same type). */
static mcdnnStatus_t copy_into(struct opemu_backend_desc *target, const struct opemu_backend_desc *source,
                               const char *api)
{
    if (live(target, api) == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    if (target->type != source->type)
        return MORE_BAD("%s: the descriptor given for the result has type %d, not %d", api, target->type,
                        source->type);
    clear(target);
    for (int i = 0; i < source->n_attrs; i++) {
        const struct opemu_backend_attr *a = &source->attrs[i];
        if (opemu_backend_put(target, a->name, a->type, a->count, a->data) != 0)
            return opemu_mcdnn_fail(MCDNN_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    }
    target->finalized = source->finalized;
    return MCDNN_STATUS_SUCCESS;
}

OPEMU_EXPORT mcdnnStatus_t mcdnnBackendGetAttribute(mcdnnBackendDescriptor_t const descriptor,
                                                    mcdnnBackendAttributeName_t attributeName,
                                                    mcdnnBackendAttributeType_t attributeType,
                                                    int64_t requestedElementCount, int64_t *elementCount,
                                                    void *arrayOfElements)
{
    const char *api = "mcdnnBackendGetAttribute";
    struct opemu_backend_desc *d = live(descriptor, api);
    if (d == NULL)
        return MCDNN_STATUS_BAD_PARAM;
    const attribute_rule *rule = rule_of(d->type, attributeName);
    if (rule == NULL)
        return MORE_BAD("%s: attribute %d does not belong to descriptor type %d", api, (int)attributeName, d->type);
    if (!d->finalized) {
        opemu_error_message(MCDNN_STATUS_NOT_INITIALIZED, "mcdnnBackendGetAttribute: the descriptor is not finalized");
        return MCDNN_STATUS_NOT_INITIALIZED;
    }
    if (elementCount == NULL && arrayOfElements == NULL)
        return MORE_BAD("%s: elementCount and arrayOfElements are both null", api);
    if (requestedElementCount < 0 || (requestedElementCount > 0 && arrayOfElements == NULL))
        return MORE_BAD("%s: requestedElementCount %lld with arrayOfElements %p", api,
                        (long long)requestedElementCount, arrayOfElements);
    const struct opemu_backend_attr *a = opemu_backend_attr(d, attributeName);
    int64_t count = a ? a->count : 0;
    if (a != NULL && a->type != (int)attributeType)
        return MORE_BAD("%s: attribute %d holds attribute type %d, not %d", api, (int)attributeName, a->type,
                        (int)attributeType);
    if (a == NULL && !(rule->types & (1u << attributeType)))
        return MORE_BAD("%s: attribute %d does not take attribute type %d", api, (int)attributeName,
                        (int)attributeType);
    int64_t n = count < requestedElementCount ? count : requestedElementCount;
    if (a != NULL && a->type == MCDNN_TYPE_BACKEND_DESCRIPTOR) {
        for (int64_t j = 0; j < n; j++) {
            mcdnnStatus_t rc = copy_into(((struct opemu_backend_desc **)arrayOfElements)[j],
                                         ((struct opemu_backend_desc **)a->data)[j], api);
            if (rc)
                return rc;
        }
    } else if (n > 0) {
        memcpy(arrayOfElements, a->data, (size_t)n * element_bytes(a->type));
    }
    if (elementCount != NULL)
        *elementCount = count;
    return MCDNN_STATUS_SUCCESS;
}
