/* Private to csrc/acl/: the single-operator API's C objects (tensor descriptions, attributes). */
#ifndef OPEMU_ACL_ACLOP_H
#define OPEMU_ACL_ACLOP_H

#include "acl/acl.h"
#include "acl/aclop_objects.h"
#include "core/core.h"
#include "core/device.h"
#include "core/handles.h"
#include "core/stream.h"

/* A live aclTensorDesc, or NULL. */
static inline struct aclTensorDesc *opemu_live_desc(const aclTensorDesc *desc)
{
    return opemu_handle_is(desc, OPEMU_KIND_TENSOR_DESC) ? (struct aclTensorDesc *)desc : NULL;
}

/* The message of a failed parameter check, in the runtime's "[Check][name]" form; returns `code`. */
#define OPEMU_ACL_CHECK_NULL(name) \
    opemu_fail(ACL_ERROR_INVALID_PARAM, "[Check][%s]param must not be null.", name)

#endif
