/* Stream capture into a model runtime instance (aclmdlRI*, acl_rt.h): opemu does not capture, so no
 * stream is ever capturing. aclmdlRICaptureGetInfo answers that for a live stream (frameworks ask it
 * around ordinary calls, torch.manual_seed among them); starting a capture stays not supported. */
#include "aclop.h"

OPEMU_EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    if (status == NULL)
        return OPEMU_ACL_CHECK_NULL("status");
    int error = 0;
    if (opemu_stream_resolve(stream, &error) == NULL)
        return error;
    *status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    if (modelRI != NULL)
        *modelRI = NULL;
    return ACL_SUCCESS;
}
