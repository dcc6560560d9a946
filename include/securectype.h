/* securectype.h: the types and limits securec.h's functions use. */
#ifndef __SECURECTYPE_H__A7BBB686_AADA_451B_B9F9_44DACDAE18A7
#define __SECURECTYPE_H__A7BBB686_AADA_451B_B9F9_44DACDAE18A7

#include <stddef.h>
#include <string.h>

#ifndef SECUREC_API
#define SECUREC_API extern
#endif

#if defined(__GNUC__)
#define SECUREC_ATTRIBUTE(x, y) __attribute__((format(printf, (x), (y))))
#else
#define SECUREC_ATTRIBUTE(x, y)
#endif

#ifndef __errno_t_defined
#define __errno_t_defined
typedef int errno_t;
#endif

/* The largest destMax a call accepts: anything larger is a negative size passed as size_t. */
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL

#endif
