/* What AscendCL's device-fault settings (diagnostics.c) tell the libraries built on it. */
#ifndef OPEMU_ACL_DIAGNOSTICS_H
#define OPEMU_ACL_DIAGNOSTICS_H

#include <stdint.h>

/* aclrtSetOpWaitTimeout's seconds (0: none set): bounds a collective's wait for its peers. */
uint32_t opemu_op_wait_timeout_s(void);

#endif
