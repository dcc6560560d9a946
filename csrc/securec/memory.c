/* The memory functions of libc_sec (securec.h): destMax bounds every write; on an error the
 * destination is zeroed where the vendor's library zeroes it and the code says so (*_AND_RESET). */
#include "securec.h"

#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

static int overlaps(const void *a, const void *b, size_t count)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y ? y - x < count : x - y < count;
}

EXPORT errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) {
        return ERANGE;
    }
    if (dest == NULL) {
        return EINVAL;
    }
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    memset(dest, c, count);
    return EOK;
}

/* The checks memcpy_s and memmove_s share; EOK means "go ahead". */
static errno_t check_copy(void *dest, size_t destMax, const void *src, size_t count)
{
    if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN) {
        return ERANGE;
    }
    if (dest == NULL) {
        return EINVAL;
    }
    if (src == NULL) {
        memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    return EOK;
}

EXPORT errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
    errno_t status = check_copy(dest, destMax, src, count);
    if (status != EOK || dest == src || count == 0) {
        return status;
    }
    if (overlaps(dest, src, count)) {
        memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    memcpy(dest, src, count);
    return EOK;
}

EXPORT errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
    errno_t status = check_copy(dest, destMax, src, count);
    if (status == EOK && dest != src && count != 0) {
        memmove(dest, src, count);
    }
    return status;
}
