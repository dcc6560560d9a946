/* Loads the Gloo transport module (gloo_module.h says why it is one) from beside libopemu.so. A
 * build without Gloo has no module: a communicator spanning hosts is then refused with a message. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "gloo_module.h"

static const hccl_gloo_services services = {
    hccl_now, hccl_fail, hccl_local_address, hccl_store_set, hccl_store_get, hccl_op_finish, hccl_reduce,
    hccl_signatures_differ, hccl_cmd_name, hccl_dtype_name, hccl_dtype_size, hccl_overlap, hccl_worker_start,
    hccl_worker_submit, hccl_worker_stop};
static const hccl_gloo_module *module;
static char why[512];

static void load(void)
{
    char path[4096];
    const char *library = opemu_library_file();
    const char *slash = strrchr(library, '/');
    snprintf(path, sizeof path, "%.*slibopemu_gloo.so", slash ? (int)(slash - library + 1) : 0, library);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    hccl_gloo_entry entry = handle ? (hccl_gloo_entry)dlsym(handle, HCCL_GLOO_ENTRY) : NULL;
    module = entry ? entry(&services) : NULL;
    if (module == NULL)
        snprintf(why, sizeof why, "%s", handle ? "libopemu_gloo.so has no entry point" : dlerror());
}

int hccl_gloo_available(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load);
    return module != NULL;
}

HcclResult hccl_gloo_join(hccl_rank *rank, double deadline)
{
    if (!hccl_gloo_available())
        return hccl_fail(HCCL_E_NOT_SUPPORT, "multi-host HCCL needs opemu built with Gloo (apt install libgloo-dev, "
                         "then reinstall opemu): %s", why);
    return module->join(rank, deadline);
}

static void submit(hccl_rank *rank, hccl_op *op) { module->submit(rank, op); }
static void leave(hccl_rank *rank) { module->leave(rank); }

const hccl_transport hccl_gloo_transport = {HCCL_GLOO, submit, NULL, leave};
