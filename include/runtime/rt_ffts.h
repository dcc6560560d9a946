/* The runtime layer's FFTS+ task support (runtime/rt_ffts.h): of it, the function a framework binary
 * links by name. The cross-chip control address belongs to the hardware; it answers not supported. */
#ifndef CCE_RUNTIME_RT_FFTS_H
#define CCE_RUNTIME_RT_FFTS_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

RTS_API rtError_t rtGetC2cCtrlAddr(uint64_t *addr, uint32_t *len);

#ifdef __cplusplus
}
#endif

#endif /* CCE_RUNTIME_RT_FFTS_H */
