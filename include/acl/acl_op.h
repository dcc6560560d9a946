/* AscendCL single-operator header. In this release the runtime ships it as an empty placeholder (the
 * single-operator API comes with the compiler package); opemu declares no aclop* execution function.
 * It keeps the two types the operator-compiler header (acl_op_compiler.h) takes, and includes the
 * base and runtime headers as the older layout's programs expect. */
#ifndef INC_EXTERNAL_ACL_ACL_OP_H_
#define INC_EXTERNAL_ACL_ACL_OP_H_

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopAttr aclopAttr;

typedef enum aclEngineType {
    ACL_ENGINE_SYS = 0,
    ACL_ENGINE_AICORE = 1,
    ACL_ENGINE_VECTOR = 2,
} aclopEngineType;

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_H_ */
