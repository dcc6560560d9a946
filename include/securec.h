/*
 * securec.h: the bounds-checked C library functions of the CANN toolkit (libc_sec.so), the
 * memcpy_s/strcpy_s/sprintf_s family the vendor's programs call. Each takes the destination's size
 * (destMax) and, on bad arguments, returns an error code and clears the destination as the vendor's
 * library does (the *_AND_RESET codes say it did).
 */
#ifndef __SECUREC_H__5D13A042_DC3F_4ED9_A8D1_882811274C27
#define __SECUREC_H__5D13A042_DC3F_4ED9_A8D1_882811274C27

#include "securectype.h"

#include <stdarg.h>

#ifndef EOK
#define EOK 0
#endif
#ifndef EINVAL
#define EINVAL 22
#endif
#ifndef ERANGE
#define ERANGE 34
#endif
/* The destination was cleared (set to zeros, or its first character to '\0') before returning. */
#define EINVAL_AND_RESET (22 | 128)
#define ERANGE_AND_RESET (34 | 128)
#define EOVERLAP_AND_RESET (54 | 128)

#ifdef __cplusplus
extern "C" {
#endif

SECUREC_API errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
SECUREC_API errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);

SECUREC_API errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API char *strtok_s(char *strToken, const char *strDelimit, char **context);

SECUREC_API int sprintf_s(char *strDest, size_t destMax, const char *format, ...) SECUREC_ATTRIBUTE(3, 4);
SECUREC_API int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList) SECUREC_ATTRIBUTE(3, 0);
SECUREC_API int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
    SECUREC_ATTRIBUTE(4, 5);
SECUREC_API int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list argList)
    SECUREC_ATTRIBUTE(4, 0);
SECUREC_API int snprintf_truncated_s(char *strDest, size_t destMax, const char *format, ...) SECUREC_ATTRIBUTE(3, 4);
SECUREC_API int vsnprintf_truncated_s(char *strDest, size_t destMax, const char *format, va_list argList)
    SECUREC_ATTRIBUTE(3, 0);

#ifdef __cplusplus
}
#endif

#endif
