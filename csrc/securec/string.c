/* The string functions of libc_sec (securec.h): a result must fit destMax with its terminator; on an
 * error the destination becomes the empty string where the vendor's library does that (*_AND_RESET). */
#include "securec.h"

#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

/* strnlen without reading past max characters. */
static size_t bounded_length(const char *s, size_t max)
{
    const char *end = memchr(s, '\0', max);
    return end == NULL ? max : (size_t)(end - s);
}

static int ranges_overlap(const char *a, size_t a_len, const char *b, size_t b_len)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y ? y - x < a_len : x - y < b_len;
}

/* destMax and the two pointers, as every copying and appending function checks them first. */
static errno_t check_string_arguments(char *strDest, size_t destMax, const char *strSrc)
{
    if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) {
        return ERANGE;
    }
    if (strDest == NULL) {
        return EINVAL;
    }
    if (strSrc == NULL) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return EOK;
}

/* Copies n characters of strSrc to strDest + at and terminates, when they fit destMax. */
static errno_t place(char *strDest, size_t destMax, size_t at, const char *strSrc, size_t n)
{
    if (n >= destMax - at) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (ranges_overlap(strDest + at, n + 1, strSrc, n + 1)) {
        strDest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    memcpy(strDest + at, strSrc, n);
    strDest[at + n] = '\0';
    return EOK;
}

EXPORT errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
    errno_t status = check_string_arguments(strDest, destMax, strSrc);
    if (status != EOK || strDest == strSrc) {
        return status;
    }
    return place(strDest, destMax, 0, strSrc, bounded_length(strSrc, destMax));
}

EXPORT errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    errno_t status = check_string_arguments(strDest, destMax, strSrc);
    if (status != EOK) {
        return status;
    }
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (count == 0) {
        strDest[0] = '\0';
        return EOK;
    }
    size_t n = bounded_length(strSrc, count < destMax ? count : destMax);
    if (strDest == strSrc) {
        return n < destMax ? EOK : (strDest[0] = '\0', ERANGE_AND_RESET);
    }
    return place(strDest, destMax, 0, strSrc, n);
}

/* The length of the string already in strDest; destMax when it holds no terminator. */
static errno_t appending_at(char *strDest, size_t destMax, size_t *at)
{
    *at = bounded_length(strDest, destMax);
    if (*at == destMax) {
        strDest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return EOK;
}

EXPORT errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
    size_t at;
    errno_t status = check_string_arguments(strDest, destMax, strSrc);
    if (status != EOK || (status = appending_at(strDest, destMax, &at)) != EOK) {
        return status;
    }
    return place(strDest, destMax, at, strSrc, bounded_length(strSrc, destMax - at));
}

EXPORT errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    size_t at;
    errno_t status = check_string_arguments(strDest, destMax, strSrc);
    if (status != EOK) {
        return status;
    }
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if ((status = appending_at(strDest, destMax, &at)) != EOK) {
        return status;
    }
    size_t room = destMax - at;
    return place(strDest, destMax, at, strSrc, bounded_length(strSrc, count < room ? count : room));
}

EXPORT char *strtok_s(char *strToken, const char *strDelimit, char **context)
{
    if (context == NULL || strDelimit == NULL) {
        return NULL;
    }
    char *s = strToken != NULL ? strToken : *context;
    if (s == NULL) {
        return NULL;
    }
    s += strspn(s, strDelimit);
    if (*s == '\0') {
        *context = s;
        return NULL;
    }
    char *end = s + strcspn(s, strDelimit);
    if (*end != '\0') {
        *end++ = '\0';
    }
    *context = end;
    return s;
}
