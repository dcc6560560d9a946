/* Finds the Gloo transport module (gloo_module.h says why it is one) beside libopemu.so (the library
 * this file is linked into, as dladdr names it). A build without Gloo has no module: a communicator
 * spanning hosts is then refused with a message. The transport itself (gloo_transport.c) hands the
 * module the core's services. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "gloo_module.h"

static hccl_gloo_entry entry;
static char why[512];

static void find(void)
{
    char path[4096];
    Dl_info self;
    const char *library = dladdr((void *)hccl_gloo_entry_point, &self) && self.dli_fname ? self.dli_fname : "";
    const char *slash = strrchr(library, '/');
    snprintf(path, sizeof path, "%.*slibopemu_gloo.so", slash ? (int)(slash - library + 1) : 0, library);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    entry = handle ? (hccl_gloo_entry)dlsym(handle, HCCL_GLOO_ENTRY) : NULL;
    if (entry == NULL)
        snprintf(why, sizeof why, "%s", handle ? "libopemu_gloo.so has no entry point" : dlerror());
}

hccl_gloo_entry hccl_gloo_entry_point(const char **reason)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find);
    if (reason)
        *reason = why;
    return entry;
}

int hccl_gloo_available(void) { return hccl_gloo_entry_point(NULL) != NULL; }
