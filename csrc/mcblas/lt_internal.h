/* What the mcBLASLt C files share: the failure report and the attribute tables' access helper. */
#ifndef OPEMU_MCBLAS_LT_INTERNAL_H
#define OPEMU_MCBLAS_LT_INTERNAL_H

#include <stddef.h>
#include "../internal.h"

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

#endif
