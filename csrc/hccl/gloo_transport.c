/* The Gloo transport as the core sees it: the module (gloo_loader.c finds it) gets the core's
 * services once, and every rank of a multi-host communicator joins, submits and leaves through it. */
#include "gloo_module.h"

static const hccl_gloo_services services = {
    hccl_now, hccl_fail, hccl_local_address, hccl_store_set, hccl_store_get, hccl_op_finish, hccl_reduce,
    hccl_signatures_differ, hccl_cmd_name, hccl_dtype_name, hccl_dtype_size, hccl_overlap, hccl_worker_start,
    hccl_worker_submit, hccl_worker_stop};
static const hccl_gloo_module *module;
static const char *why;

static void start(void)
{
    hccl_gloo_entry entry = hccl_gloo_entry_point(&why);
    module = entry ? entry(&services) : NULL;
    if (entry && module == NULL)
        why = "libopemu_gloo.so refused to start";
}

HcclResult hccl_gloo_join(hccl_rank *rank, double deadline)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start);
    if (module == NULL)
        return hccl_fail(HCCL_E_NOT_SUPPORT, "multi-host HCCL needs opemu built with Gloo (apt install libgloo-dev, "
                         "then reinstall opemu): %s", why);
    return module->join(rank, deadline);
}

static void submit(hccl_rank *rank, hccl_op *op) { module->submit(rank, op); }
static void leave(hccl_rank *rank) { module->leave(rank); }

const hccl_transport hccl_gloo_transport = {HCCL_GLOO, submit, NULL, leave};
