/* The formatting functions of libc_sec (securec.h): the output must fit destMax (and count, for the
 * snprintf_s pair) with its terminator. A result that does not fit is an error (-1, destination
 * emptied), except where count asks for truncation; the *_truncated_s pair always truncates. */
#include "securec.h"

#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))
#define FORMAT_ERROR (-1)

static int bad_destination(char *strDest, size_t destMax, const char *format)
{
    if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN || strDest == NULL) {
        return 1;
    }
    if (format == NULL) {
        strDest[0] = '\0';
        return 1;
    }
    return 0;
}

EXPORT int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
{
    if (bad_destination(strDest, destMax, format)) {
        return FORMAT_ERROR;
    }
    int n = vsnprintf(strDest, destMax, format, argList);
    if (n < 0 || (size_t)n >= destMax) {
        strDest[0] = '\0';
        return FORMAT_ERROR;
    }
    return n;
}

EXPORT int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList)
{
    if (bad_destination(strDest, destMax, format)) {
        return FORMAT_ERROR;
    }
    if (count > SECUREC_STRING_MAX_LEN) {
        strDest[0] = '\0';
        return FORMAT_ERROR;
    }
    if (count >= destMax) {  /* no truncation asked for: the whole output must fit */
        return vsprintf_s(strDest, destMax, format, argList);
    }
    int n = vsnprintf(strDest, count + 1, format, argList);
    if (n < 0) {
        strDest[0] = '\0';
        return FORMAT_ERROR;
    }
    return (size_t)n > count ? FORMAT_ERROR : n;  /* truncated to count characters */
}

EXPORT int vsnprintf_truncated_s(char *strDest, size_t destMax, const char *format, va_list argList)
{
    if (bad_destination(strDest, destMax, format)) {
        return FORMAT_ERROR;
    }
    int n = vsnprintf(strDest, destMax, format, argList);
    if (n < 0) {
        strDest[0] = '\0';
        return FORMAT_ERROR;
    }
    return (size_t)n >= destMax ? (int)(destMax - 1) : n;
}

EXPORT int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsprintf_s(strDest, destMax, format, ap);
    va_end(ap);
    return n;
}

EXPORT int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf_s(strDest, destMax, count, format, ap);
    va_end(ap);
    return n;
}

EXPORT int snprintf_truncated_s(char *strDest, size_t destMax, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf_truncated_s(strDest, destMax, format, ap);
    va_end(ap);
    return n;
}
