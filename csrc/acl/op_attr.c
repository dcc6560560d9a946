/* aclopAttr (acl_op.h): a single operator's attributes by name.
 *
 * Setting a name again replaces its value, whatever its type (the runtime's attribute map). The
 * checks follow the runtime's op_attr.cpp: the attribute set must be given (and live), a string or
 * data-type list and a list of int lists need their arrays; a negative count is refused here (the
 * runtime would make an empty vector of it). */
#include <stdlib.h>
#include <string.h>
#include "aclop.h"

OPEMU_EXPORT aclopAttr *aclopCreateAttr(void)
{
    aclopAttr *attr = calloc(1, sizeof *attr);
    if (attr == NULL) {
        opemu_fail(ACL_ERROR_BAD_ALLOC, "[Check][Attr]opAttr memory apply failed");
        return NULL;
    }
    opemu_handle_add(attr, OPEMU_KIND_OP_ATTR);
    return attr;
}

static void clear_item(opemu_attr *item)
{
    if (item->strings)
        for (int64_t i = 0; i < item->count; i++)
            free(item->strings[i]);
    free(item->strings);
    free(item->ints);
    free(item->floats);
    free(item->lengths);
    item->strings = NULL;
    item->ints = NULL;
    item->floats = NULL;
    item->lengths = NULL;
}

OPEMU_EXPORT void aclopDestroyAttr(const aclopAttr *attr)
{
    if (!opemu_handle_is(attr, OPEMU_KIND_OP_ATTR))
        return;
    aclopAttr *a = (aclopAttr *)attr;
    opemu_handle_remove(a);
    for (int64_t i = 0; i < a->count; i++) {
        clear_item(&a->items[i]);
        free(a->items[i].name);
    }
    free(a->items);
    free(a);
}

/* The entry for `name` in a live attribute set, emptied for a new value; NULL with the error recorded. */
static opemu_attr *slot_for(aclopAttr *attr, const char *name, const char *api, aclError *rc)
{
    if (attr == NULL) {
        *rc = OPEMU_ACL_CHECK_NULL("attr");
        return NULL;
    }
    if (!opemu_handle_is(attr, OPEMU_KIND_OP_ATTR)) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclopAttr.", api, (void *)attr);
        return NULL;
    }
    if (name == NULL) {
        *rc = OPEMU_ACL_CHECK_NULL("attrName");
        return NULL;
    }
    for (int64_t i = 0; i < attr->count; i++)
        if (strcmp(attr->items[i].name, name) == 0) {
            clear_item(&attr->items[i]);
            return &attr->items[i];
        }
    if (attr->count == attr->capacity) {
        int64_t capacity = attr->capacity ? 2 * attr->capacity : 8;
        opemu_attr *grown = realloc(attr->items, (size_t)capacity * sizeof *grown);
        if (grown == NULL) {
            *rc = opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
            return NULL;
        }
        attr->items = grown;
        attr->capacity = capacity;
    }
    opemu_attr *item = &attr->items[attr->count];
    memset(item, 0, sizeof *item);
    item->name = strdup(name);
    if (item->name == NULL) {
        *rc = opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
        return NULL;
    }
    attr->count++;
    return item;
}

/* A list's count; -1 with the error recorded when negative or when values are missing. */
static int64_t list_count(int numValues, const void *values, const char *api, aclError *rc)
{
    if (numValues < 0) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: numValues %d must not be negative.", api, numValues);
        return -1;
    }
    if (numValues > 0 && values == NULL) {
        *rc = OPEMU_ACL_CHECK_NULL("values");
        return -1;
    }
    return numValues;
}

/* Stores `n` values of `size` bytes as `name`'s new value: int64s (bools, ints, data types) or floats. */
static aclError set_values(aclopAttr *attr, const char *name, int kind, int64_t n, const void *values, size_t size,
                           const char *api)
{
    aclError rc = ACL_SUCCESS;
    opemu_attr *item = slot_for(attr, name, api, &rc);
    if (item == NULL)
        return rc;
    void *copy = malloc((size_t)(n ? n : 1) * size);
    if (copy == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    if (n)
        memcpy(copy, values, (size_t)n * size);
    item->kind = kind;
    item->count = n;
    if (size == sizeof(float))
        item->floats = copy;
    else
        item->ints = copy;
    return ACL_SUCCESS;
}

static aclError set_ints(aclopAttr *attr, const char *name, int kind, int64_t n, const int64_t *ints, const char *api)
{
    return set_values(attr, name, kind, n, ints, sizeof *ints, api);
}

OPEMU_EXPORT aclError aclopSetAttrBool(aclopAttr *attr, const char *attrName, uint8_t attrValue)
{
    int64_t value = attrValue != 0;
    return set_ints(attr, attrName, OPEMU_ATTR_BOOL, 1, &value, "aclopSetAttrBool");
}

OPEMU_EXPORT aclError aclopSetAttrInt(aclopAttr *attr, const char *attrName, int64_t attrValue)
{
    return set_ints(attr, attrName, OPEMU_ATTR_INT, 1, &attrValue, "aclopSetAttrInt");
}

OPEMU_EXPORT aclError aclopSetAttrDataType(aclopAttr *attr, const char *attrName, aclDataType attrValue)
{
    int64_t value = attrValue;
    return set_ints(attr, attrName, OPEMU_ATTR_DATA_TYPE, 1, &value, "aclopSetAttrDataType");
}

/* A list of bools or data types, widened to int64. */
static aclError set_int_list(aclopAttr *attr, const char *name, int kind, int numValues, const void *values,
                             size_t item_size, const char *api)
{
    aclError rc = ACL_SUCCESS;
    int64_t n = list_count(numValues, values, api, &rc);
    if (n < 0)
        return rc;
    int64_t *wide = malloc((size_t)(n ? n : 1) * sizeof *wide);
    if (wide == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    for (int64_t i = 0; i < n; i++)
        wide[i] = item_size == 1 ? (((const uint8_t *)values)[i] != 0) : ((const aclDataType *)values)[i];
    rc = set_ints(attr, name, kind, n, wide, api);
    free(wide);
    return rc;
}

OPEMU_EXPORT aclError aclopSetAttrListBool(aclopAttr *attr, const char *attrName, int numValues,
                                           const uint8_t *values)
{
    return set_int_list(attr, attrName, OPEMU_ATTR_LIST_BOOL, numValues, values, 1, "aclopSetAttrListBool");
}

OPEMU_EXPORT aclError aclopSetAttrListDataType(aclopAttr *attr, const char *attrName, int numValues,
                                               const aclDataType values[])
{
    return set_int_list(attr, attrName, OPEMU_ATTR_LIST_DATA_TYPE, numValues, values, sizeof(aclDataType),
                        "aclopSetAttrListDataType");
}

OPEMU_EXPORT aclError aclopSetAttrListInt(aclopAttr *attr, const char *attrName, int numValues,
                                          const int64_t *values)
{
    aclError rc = ACL_SUCCESS;
    if (list_count(numValues, values, "aclopSetAttrListInt", &rc) < 0)
        return rc;
    return set_ints(attr, attrName, OPEMU_ATTR_LIST_INT, numValues, values, "aclopSetAttrListInt");
}

static aclError set_floats(aclopAttr *attr, const char *name, int kind, int numValues, const float *values,
                           const char *api)
{
    aclError rc = ACL_SUCCESS;
    int64_t n = list_count(numValues, values, api, &rc);
    return n < 0 ? rc : set_values(attr, name, kind, n, values, sizeof *values, api);
}

OPEMU_EXPORT aclError aclopSetAttrFloat(aclopAttr *attr, const char *attrName, float attrValue)
{
    return set_floats(attr, attrName, OPEMU_ATTR_FLOAT, 1, &attrValue, "aclopSetAttrFloat");
}

OPEMU_EXPORT aclError aclopSetAttrListFloat(aclopAttr *attr, const char *attrName, int numValues,
                                            const float *values)
{
    return set_floats(attr, attrName, OPEMU_ATTR_LIST_FLOAT, numValues, values, "aclopSetAttrListFloat");
}

static aclError set_strings(aclopAttr *attr, const char *name, int kind, int numValues, const char *const *values,
                            const char *api)
{
    aclError rc = ACL_SUCCESS;
    int64_t n = list_count(numValues, values, api, &rc);
    if (n < 0)
        return rc;
    for (int64_t i = 0; i < n; i++)
        if (values[i] == NULL)
            return OPEMU_ACL_CHECK_NULL(kind == OPEMU_ATTR_STRING ? "attrValue" : "values");
    opemu_attr *item = slot_for(attr, name, api, &rc);
    if (item == NULL)
        return rc;
    item->kind = kind;
    item->strings = calloc((size_t)(n ? n : 1), sizeof *item->strings);
    if (item->strings == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    item->count = n;
    for (int64_t i = 0; i < n; i++)
        if ((item->strings[i] = strdup(values[i])) == NULL)
            return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclopSetAttrString(aclopAttr *attr, const char *attrName, const char *attrValue)
{
    if (attr == NULL)
        return OPEMU_ACL_CHECK_NULL("attr");
    if (attrValue == NULL)
        return OPEMU_ACL_CHECK_NULL("attrValue");
    return set_strings(attr, attrName, OPEMU_ATTR_STRING, 1, &attrValue, "aclopSetAttrString");
}

OPEMU_EXPORT aclError aclopSetAttrListString(aclopAttr *attr, const char *attrName, int numValues,
                                             const char **values)
{
    return set_strings(attr, attrName, OPEMU_ATTR_LIST_STRING, numValues, values, "aclopSetAttrListString");
}

OPEMU_EXPORT aclError aclopSetAttrListListInt(aclopAttr *attr, const char *attrName, int numLists,
                                              const int *numValues, const int64_t *const values[])
{
    const char *api = "aclopSetAttrListListInt";
    aclError rc = ACL_SUCCESS;
    if (attr == NULL)
        return OPEMU_ACL_CHECK_NULL("attr");
    if (attrName == NULL)
        return OPEMU_ACL_CHECK_NULL("attrName");
    if (numValues == NULL)
        return OPEMU_ACL_CHECK_NULL("numValues");
    int64_t n = list_count(numLists, values, api, &rc);
    if (n < 0)
        return rc;
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (numValues[i] < 0)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: numValues[%lld] %d must not be negative.", api,
                              (long long)i, numValues[i]);
        if (numValues[i] > 0 && values[i] == NULL)
            return OPEMU_ACL_CHECK_NULL("values");
        total += numValues[i];
    }
    opemu_attr *item = slot_for(attr, attrName, api, &rc);
    if (item == NULL)
        return rc;
    item->kind = OPEMU_ATTR_LIST_LIST_INT;
    item->lengths = malloc((size_t)(n ? n : 1) * sizeof *item->lengths);
    item->ints = malloc((size_t)(total ? total : 1) * sizeof *item->ints);
    if (item->lengths == NULL || item->ints == NULL)
        return opemu_fail(ACL_ERROR_BAD_ALLOC, "%s: out of host memory", api);
    item->count = n;
    for (int64_t i = 0, at = 0; i < n; at += numValues[i], i++) {
        item->lengths[i] = numValues[i];
        if (numValues[i])
            memcpy(item->ints + at, values[i], (size_t)numValues[i] * sizeof *item->ints);
    }
    return ACL_SUCCESS;
}
