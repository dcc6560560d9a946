/* Built when Debian's libgloo-dev was not found: communicators that span hosts are refused (the
 * rendezvous says so before any rank picks this transport). */
#include "hccl_internal.h"

int hccl_gloo_available(void) { return 0; }

HcclResult hccl_gloo_join(hccl_rank *rank, double deadline)
{
    (void)rank, (void)deadline;
    return hccl_fail(HCCL_E_NOT_SUPPORT, "multi-host HCCL needs opemu built with Gloo (apt install libgloo-dev, "
                     "then reinstall opemu)");
}

static void submit(hccl_rank *rank, hccl_op *op)
{
    (void)rank;
    hccl_op_finish(op, HCCL_E_NOT_SUPPORT, "opemu was built without Gloo");
}

static void leave(hccl_rank *rank) { (void)rank; }

const hccl_transport hccl_gloo_transport = {HCCL_GLOO, submit, NULL, leave};
