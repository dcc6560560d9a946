/* External allocator registration (acl_rt_allocator.h): an app describes its own caching allocator
 * and registers it per stream, for the runtime to draw operator memory from.
 *
 * opemu's operators take no device memory beyond the workspace the app passes, so a registered
 * allocator is never called; the registration is kept and answered back exactly as registered
 * (aclrtAllocatorGetByStream returns the functions as they were at registration, the vendor's
 * copy, even if the description changed since). */
#include <pthread.h>
#include <stdlib.h>
#include "acl/acl.h"
#include "core/core.h"

#define MAX_REGISTRATIONS 1024

typedef struct {
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free_block;
    aclrtAllocatorAllocAdviseFunc alloc_advise;
    aclrtAllocatorGetAddrFromBlockFunc get_addr;
} description;

typedef struct {
    aclrtStream stream;
    aclrtAllocatorDesc desc;
    description copy;
} registration;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static registration registrations[MAX_REGISTRATIONS];
static size_t n_registrations;

static description *live_desc(aclrtAllocatorDesc desc, const char *api, int *rc)
{
    if (desc == NULL) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: allocatorDesc is null", api);
        return NULL;
    }
    if (!opemu_handle_is(desc, OPEMU_KIND_ALLOCATOR_DESC)) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclrtAllocatorDesc", api, desc);
        return NULL;
    }
    return desc;
}

OPEMU_EXPORT aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    description *d = calloc(1, sizeof *d);
    opemu_handle_add(d, OPEMU_KIND_ALLOCATOR_DESC);
    return d;
}

OPEMU_EXPORT aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    int rc;
    description *d = live_desc(allocatorDesc, "aclrtAllocatorDestroyDesc", &rc);
    if (d == NULL)
        return rc;
    opemu_handle_remove(d);
    free(d);
    return ACL_SUCCESS;
}

#define SETTER(api, type, field, name)                                                     \
    OPEMU_EXPORT aclError api(aclrtAllocatorDesc allocatorDesc, type value)                 \
    {                                                                                       \
        int rc;                                                                             \
        description *d = live_desc(allocatorDesc, #api, &rc);                              \
        if (d == NULL)                                                                      \
            return rc;                                                                      \
        if (value == NULL)                                                                  \
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %s is null", #api, name);       \
        d->field = value;                                                                   \
        return ACL_SUCCESS;                                                                 \
    }
SETTER(aclrtAllocatorSetObjToDesc, aclrtAllocator, obj, "allocator")
SETTER(aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorAllocFunc, alloc, "func")
SETTER(aclrtAllocatorSetFreeFuncToDesc, aclrtAllocatorFreeFunc, free_block, "func")
SETTER(aclrtAllocatorSetAllocAdviseFuncToDesc, aclrtAllocatorAllocAdviseFunc, alloc_advise, "func")
SETTER(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorGetAddrFromBlockFunc, get_addr, "func")

/* A registration needs a real stream (not the default one, which the vendor rejects as null). */
static int live_stream(aclrtStream stream, const char *api)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is null", api);
    if (!opemu_handle_is(stream, OPEMU_KIND_STREAM))
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live stream", api, stream);
    return ACL_SUCCESS;
}

static registration *find(aclrtStream stream)
{
    for (size_t i = 0; i < n_registrations; i++)
        if (registrations[i].stream == stream)
            return &registrations[i];
    return NULL;
}

OPEMU_EXPORT aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    int rc = live_stream(stream, "aclrtAllocatorRegister");
    if (rc)
        return rc;
    description *d = live_desc(allocatorDesc, "aclrtAllocatorRegister", &rc);
    if (d == NULL)
        return rc;
    const char *missing = d->obj == NULL ? "allocatorDesc->obj" : d->alloc == NULL ? "allocatorDesc->allocFunc"
                        : d->free_block == NULL ? "allocatorDesc->freeFunc"
                        : d->get_addr == NULL ? "allocatorDesc->getAddrFromBlockFunc" : NULL;
    if (missing)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtAllocatorRegister: %s is not set", missing);
    pthread_mutex_lock(&lock);
    registration *r = find(stream);
    if (r == NULL && n_registrations < MAX_REGISTRATIONS)
        r = &registrations[n_registrations++];
    if (r)
        *r = (registration){stream, allocatorDesc, *d};
    pthread_mutex_unlock(&lock);
    if (r == NULL)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtAllocatorRegister: %d streams have allocators "
                          "registered already", MAX_REGISTRATIONS);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                aclrtAllocatorFreeFunc *freeFunc,
                                                aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    if (allocatorDesc == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtAllocatorGetByStream: allocatorDesc is null");
    int rc = live_stream(stream, "aclrtAllocatorGetByStream");
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    registration *r = find(stream);
    registration found = r ? *r : (registration){0};
    pthread_mutex_unlock(&lock);
    if (r == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtAllocatorGetByStream: stream %p is not registered with any "
                          "allocator", stream);
    *allocatorDesc = found.desc;
    if (allocator)
        *allocator = found.copy.obj;
    if (allocFunc)
        *allocFunc = found.copy.alloc;
    if (freeFunc)
        *freeFunc = found.copy.free_block;
    if (allocAdviseFunc)
        *allocAdviseFunc = found.copy.alloc_advise;
    if (getAddrFromBlockFunc)
        *getAddrFromBlockFunc = found.copy.get_addr;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    int rc = live_stream(stream, "aclrtAllocatorUnregister");
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    registration *r = find(stream);
    if (r)
        *r = registrations[--n_registrations];
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}
