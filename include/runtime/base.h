/* The runtime layer's (librts / libruntime.so) basic types, as its base.h declares them: the status
 * type whose codes acl/error_codes/rt_error_codes.h lists, and the stream handle. */
#ifndef CCE_RUNTIME_BASE_H
#define CCE_RUNTIME_BASE_H

#include <stdint.h>
#include "acl/error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RTS_API __attribute__((visibility("default")))

typedef int32_t rtError_t;
typedef void *rtStream_t;

#define RT_ERROR_NONE 0

#ifdef __cplusplus
}
#endif

#endif /* CCE_RUNTIME_BASE_H */
