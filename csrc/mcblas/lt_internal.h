/* What the mcBLASLt C files share: the failure report and the attribute tables' access helper. */
#ifndef OPEMU_MCBLAS_LT_INTERNAL_H
#define OPEMU_MCBLAS_LT_INTERNAL_H

#include <stddef.h>
#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/stream.h"
#include "mc/mc.h"
#include "mcblas/lt_descriptors.h"

/* Records the message (aclGetRecentErrMsg, the log) and answers the status. */
#define lt_fail(status, ...) ((mcblasStatus_t)opemu_fail((status), __VA_ARGS__))

/* One attribute of a descriptor: where it lives in the C struct and how many bytes it has. */
typedef struct {
    int attr;
    size_t offset;
    size_t size;
} opemu_lt_field;

/* The field of `attr` in `fields`, or NULL. */
const opemu_lt_field *opemu_lt_field_of(const opemu_lt_field *fields, size_t count, int attr);

/* The vendor's rules for reading an attribute: sizeInBytes 0 asks only for the size (sizeWritten must be
 * given); otherwise buf must be given and sizeInBytes must be the attribute's size. */
mcblasStatus_t opemu_lt_get(const char *api, const void *object, const opemu_lt_field *field, void *buf,
                            size_t sizeInBytes, size_t *sizeWritten);
/* Writing one: buf given and sizeInBytes the attribute's size. */
mcblasStatus_t opemu_lt_check_set(const char *api, const opemu_lt_field *field, const void *buf, size_t sizeInBytes);

/* An attribute table's entry and its length. */
#define FIELD(attr, type, member) {attr, offsetof(type, member), sizeof(((type *)0)->member)}
#define COUNT(table) (sizeof(table) / sizeof(table[0]))

/* INVALID_VALUE from the calling entry point unless `object` is a live object of `kind`. */
#define LIVE(object, kind, type, api)                                                                   \
    do {                                                                                                \
        if ((object) == NULL || !opemu_handle_is((object), (kind)))                                      \
            return lt_fail(MCBLAS_STATUS_INVALID_VALUE, "%s: %p is not a live %s", api, (void *)(object), \
                           type);                                                                       \
    } while (0)

/* Storage of `size` bytes for a descriptor of `need` bytes: the program's (*Init: out NULL) or a new block of
 * `opaque` bytes (*Create), registered as `kind`. */
mcblasStatus_t opemu_lt_place(void **out, void *storage, size_t size, size_t need, size_t opaque, int kind,
                              const char *api);
/* Unregisters a descriptor and frees it unless its storage was the program's (the int at owned_offset). */
mcblasStatus_t opemu_lt_destroy(void *object, int kind, int owned_offset, const char *type, const char *api);
/* 1 for a macaDataType a matrix may hold. */
int opemu_lt_storage_type(int type);

#endif
