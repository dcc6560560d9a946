/* The mcDNN descriptor plumbing shared by conv.c, opdesc.c and algorithm.c (see mcdnn_internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "mcdnn_internal.h"

mcdnnStatus_t opemu_mcdnn_fail(mcdnnStatus_t status, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    opemu_error_message(status, text);
    return status;
}

void *opemu_mcdnn_live(const void *object, int kind, const char *type, const char *api)
{
    if (object == NULL || !opemu_handle_is(object, kind)) {
        opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: %p is not a live %s", api, object, type);
        return NULL;
    }
    return (void *)object;
}

mcdnnStatus_t opemu_mcdnn_create(void **out, size_t size, int kind, const char *api)
{
    if (out == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, "%s: the output pointer is null", api);
    void *object = calloc(1, size);
    if (object == NULL)
        return opemu_mcdnn_fail(MCDNN_STATUS_ALLOC_FAILED, "%s: out of host memory", api);
    opemu_handle_add(object, kind);
    *out = object;
    return MCDNN_STATUS_SUCCESS;
}

mcdnnStatus_t opemu_mcdnn_destroy(void *object, int kind, const char *type, const char *api)
{
    if (object == NULL)
        return MCDNN_STATUS_SUCCESS;
    if (!opemu_mcdnn_live(object, kind, type, api))
        return MCDNN_STATUS_BAD_PARAM;
    opemu_handle_remove(object);
    free(object);
    return MCDNN_STATUS_SUCCESS;
}

int opemu_mcdnn_element_size(int type)
{
    switch (type) {
    case MCDNN_DATA_FLOAT: case MCDNN_DATA_INT32: case MCDNN_DATA_INT8x4: case MCDNN_DATA_UINT8x4: return 4;
    case MCDNN_DATA_DOUBLE: case MCDNN_DATA_INT64: return 8;
    case MCDNN_DATA_HALF: case MCDNN_DATA_BFLOAT16: return 2;
    case MCDNN_DATA_INT8: case MCDNN_DATA_UINT8: case MCDNN_DATA_BOOLEAN: return 1;
    case MCDNN_DATA_FP8_E4M3: case MCDNN_DATA_FP8_E5M2: return 1;
    case MCDNN_DATA_INT8x32: return 32;
    }
    return 0;
}
