/* AscendCL base header: in this release only the union of the base runtime types, the (empty) base
 * model types and the error codes. Programs of the older layout include it for everything basic. */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The older layout's tensor-description handle; kept so its programs still compile. No function of
 * this release takes it. */
typedef struct aclTensorDesc aclTensorDesc;

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */
