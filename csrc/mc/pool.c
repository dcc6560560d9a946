/* Stream-ordered allocation (mcMallocAsync, mcFreeAsync) from each device's default memory pool.
 *
 * As in CUDA, a pool keeps the memory of freed blocks reserved for reuse and gives back what exceeds
 * its release threshold (mcMemPoolAttrReleaseThreshold, 0 by default) when the device, a stream or
 * an event is synchronised, or down to a floor on mcMemPoolTrimTo. A block is a device allocation
 * of the registry (core/memory.c), so reserved memory counts as used in mcMemGetInfo, as on the
 * device. The free itself is a stream task: the block becomes reusable once the stream reaches it,
 * and at once for later allocations on the stream that freed it (stream order makes that safe).
 * Pools other than the default ones (mcMemPoolCreate) are not emulated. */
#include <stdlib.h>
#include <string.h>
#include "mc_internal.h"

typedef struct block {
    void *ptr;
    size_t size;
    int live;                 /* handed out; else reserved for reuse */
    opemu_stream *freed_on;   /* mcFreeAsync issued on this stream, not yet reached: reusable there */
    unsigned long generation; /* counts hand-outs, so a late free task spares a block handed out again */
    struct block *next;
} block;

typedef struct pool {
    int device;
    block *blocks;
    uint64_t release_threshold;
    int reuse_follow_events, reuse_opportunistic, reuse_internal_dependencies;
    uint64_t reserved_high, used_high;
} pool;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pool **pools;    /* the default pool of each device, created on first use */
static pool **current;  /* each device's current pool (mcDeviceSetMemPool) */

static pool *default_pool(int device)
{
    if (pools == NULL) {
        pools = calloc((size_t)opemu_device_count(), sizeof *pools);
        current = calloc((size_t)opemu_device_count(), sizeof *current);
    }
    if (pools[device] == NULL) {
        pool *p = calloc(1, sizeof *p);
        p->device = device;
        p->reuse_follow_events = p->reuse_opportunistic = p->reuse_internal_dependencies = 1;
        pools[device] = current[device] = p;
        opemu_handle_add(p, OPEMU_KIND_MC_MEMPOOL);
    }
    return pools[device];
}

/* Bytes handed out (live) or held (all blocks). Lock held. */
static uint64_t bytes(const pool *p, int live_only)
{
    uint64_t total = 0;
    for (const block *b = p->blocks; b; b = b->next)
        if (b->live || !live_only)
            total += b->size;
    return total;
}

static void note_highs(pool *p)
{
    uint64_t used = bytes(p, 1), reserved = bytes(p, 0);
    if (used > p->used_high)
        p->used_high = used;
    if (reserved > p->reserved_high)
        p->reserved_high = reserved;
}

/* Gives back reserved blocks until at most `keep` bytes are held (live blocks always stay). Lock held. */
static void release_above(pool *p, uint64_t keep)
{
    uint64_t held = bytes(p, 0);
    for (block **b = &p->blocks; *b && held > keep;) {
        if ((*b)->live) {
            b = &(*b)->next;
            continue;
        }
        block *gone = *b;
        *b = gone->next;
        held -= gone->size;
        opemu_memory_free(gone->ptr, OPEMU_MEM_DEVICE);
        free(gone);
    }
}

void mc_pools_trim(int device)
{
    pthread_mutex_lock(&lock);
    if (pools && pools[device])
        release_above(pools[device], pools[device]->release_threshold);
    pthread_mutex_unlock(&lock);
}

/* The device's memory was released wholesale: start from an empty pool with default attributes. */
void mc_pools_reset(int device)
{
    pthread_mutex_lock(&lock);
    pool *p = pools ? pools[device] : NULL;
    if (p) {
        for (block *b = p->blocks, *next; b; b = next) {
            next = b->next;
            free(b);
        }
        opemu_handle_remove(p);
        free(p);
        pools[device] = current[device] = NULL;
    }
    pthread_mutex_unlock(&lock);
}

/* The live pool `memPool` names; NULL after recording the error. */
static pool *live_pool(mcMemPool_t memPool, const char *api, mcError_t *rc)
{
    if (memPool == NULL || !opemu_handle_is(memPool, OPEMU_KIND_MC_MEMPOOL)) {
        *rc = mc_fail(mcErrorInvalidValue, "%s: %p is not a memory pool", api, (void *)memPool);
        return NULL;
    }
    return (pool *)memPool;
}

/* ---- pools of a device ---- */

OPEMU_EXPORT mcError_t mcDeviceGetDefaultMemPool(mcMemPool_t *memPool, int device)
{
    if (memPool == NULL)
        return mc_fail(mcErrorInvalidValue, "mcDeviceGetDefaultMemPool: memPool is null");
    mcError_t rc = mc_check_device(device, "mcDeviceGetDefaultMemPool");
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    *memPool = (mcMemPool_t)default_pool(device);
    pthread_mutex_unlock(&lock);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcDeviceGetMemPool(mcMemPool_t *memPool, int device)
{
    if (memPool == NULL)
        return mc_fail(mcErrorInvalidValue, "mcDeviceGetMemPool: memPool is null");
    mcError_t rc = mc_check_device(device, "mcDeviceGetMemPool");
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    default_pool(device);
    *memPool = (mcMemPool_t)current[device];
    pthread_mutex_unlock(&lock);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcDeviceSetMemPool(int device, mcMemPool_t memPool)
{
    mcError_t rc = mcSuccess;
    pool *p = live_pool(memPool, "mcDeviceSetMemPool", &rc);
    if (p == NULL)
        return rc;
    rc = mc_check_device(device, "mcDeviceSetMemPool");
    if (rc)
        return rc;
    if (p->device != device)
        return mc_fail(mcErrorInvalidDevice, "mcDeviceSetMemPool: the pool belongs to device %d, not %d", p->device,
                       device);
    pthread_mutex_lock(&lock);
    current[device] = p;
    pthread_mutex_unlock(&lock);
    return mcSuccess;
}

/* ---- allocation and free ---- */

/* A reserved block of at least `size` bytes, handed out again, or a new one. */
static mcError_t pool_alloc(pool *p, void **ptr, size_t size, opemu_stream *stream, const char *api)
{
    pthread_mutex_lock(&lock);
    for (block *b = p->blocks; b; b = b->next) {
        if ((!b->live || b->freed_on == stream) && b->size >= size) {
            b->live = 1;
            b->freed_on = NULL;
            b->generation++;
            *ptr = b->ptr;
            note_highs(p);
            pthread_mutex_unlock(&lock);
            return mcSuccess;
        }
    }
    /* reserved memory goes back before the device is called full */
    if (size > opemu_device_memory_bytes() - opemu_memory_used(p->device))
        release_above(p, bytes(p, 1));
    pthread_mutex_unlock(&lock);
    void *fresh = NULL;
    mcError_t rc = mc_device_malloc(&fresh, size, p->device, api);  /* the pool's device */
    if (rc != mcSuccess)
        return rc;
    block *b = malloc(sizeof *b);
    pthread_mutex_lock(&lock);
    *b = (block){fresh, size, 1, NULL, 0, p->blocks};
    p->blocks = b;
    note_highs(p);
    pthread_mutex_unlock(&lock);
    *ptr = fresh;
    return mcSuccess;
}

static mcError_t malloc_async(void **ptr, size_t size, pool *p, mcStream_t stream, const char *api)
{
    if (ptr == NULL)
        return mc_fail(mcErrorInvalidValue, "%s: the pointer to return is null", api);
    if (size == 0)
        return mc_fail(mcErrorInvalidValue, "%s: size must be positive", api);
    mcError_t rc = mcSuccess;
    opemu_stream *s = mc_stream(stream, api, &rc);
    if (s == NULL)
        return rc;
    if (p == NULL) {
        pthread_mutex_lock(&lock);
        default_pool(opemu_stream_device(s));
        p = current[opemu_stream_device(s)];
        pthread_mutex_unlock(&lock);
    }
    return pool_alloc(p, ptr, size, s, api);
}

OPEMU_EXPORT mcError_t mcMallocAsync(void **devPtr, size_t size, mcStream_t hStream)
{
    return malloc_async(devPtr, size, NULL, hStream, "mcMallocAsync");
}

OPEMU_EXPORT mcError_t mcMallocFromPoolAsync(void **ptr, size_t size, mcMemPool_t memPool, mcStream_t stream)
{
    mcError_t rc = mcSuccess;
    pool *p = live_pool(memPool, "mcMallocFromPoolAsync", &rc);
    return p ? malloc_async(ptr, size, p, stream, "mcMallocFromPoolAsync") : rc;
}

/* The block handed out at `ptr` (lock held), or NULL. */
static block *live_block(void *ptr)
{
    for (int d = 0; pools && d < opemu_device_count(); d++)
        for (block *b = pools[d] ? pools[d]->blocks : NULL; b; b = b->next)
            if (b->ptr == ptr && b->live)
                return b;
    return NULL;
}

typedef struct {
    void *ptr;
    unsigned long generation;
} pending_free;

/* Runs in stream order: the block becomes reusable (it stays reserved until a trim). */
static int free_task(void *payload)
{
    pending_free *f = payload;
    pthread_mutex_lock(&lock);
    block *b = live_block(f->ptr);
    if (b && b->generation == f->generation) {
        b->live = 0;
        b->freed_on = NULL;
    }
    pthread_mutex_unlock(&lock);
    return 0;
}

OPEMU_EXPORT mcError_t mcFreeAsync(void *devPtr, mcStream_t hStream)
{
    mcError_t rc = mcSuccess;
    opemu_stream *s = mc_stream(hStream, "mcFreeAsync", &rc);
    if (s == NULL)
        return rc;
    pthread_mutex_lock(&lock);
    block *b = devPtr ? live_block(devPtr) : NULL;
    pending_free *f = NULL;
    if (b && b->freed_on == NULL) {
        b->freed_on = s;
        f = malloc(sizeof *f);
        *f = (pending_free){devPtr, b->generation};
    }
    pthread_mutex_unlock(&lock);
    if (f == NULL)
        return mc_fail(mcErrorInvalidValue, "mcFreeAsync: %p was not allocated by mcMallocAsync or was freed already",
                       devPtr);
    int status = opemu_stream_submit(s, free_task, free, f);
    return status ? mc_from_runtime(status, "mcFreeAsync") : mcSuccess;
}

int mc_pool_free_now(void *ptr)
{
    pthread_mutex_lock(&lock);
    block *b = live_block(ptr);
    if (b) {
        b->live = 0;
        b->freed_on = NULL;
    }
    pthread_mutex_unlock(&lock);
    return b != NULL;
}

/* ---- attributes ---- */

OPEMU_EXPORT mcError_t mcMemPoolGetAttribute(mcMemPool_t memPool, enum mcMemPoolAttr attr, void *value)
{
    mcError_t rc = mcSuccess;
    pool *p = live_pool(memPool, "mcMemPoolGetAttribute", &rc);
    if (p == NULL)
        return rc;
    if (value == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMemPoolGetAttribute: value is null");
    pthread_mutex_lock(&lock);
    uint64_t number = 0;
    int flag = -1; /* the three reuse policies are ints, the sizes 64-bit */
    switch (attr) {
    case mcMemPoolReuseFollowEventDependencies: flag = p->reuse_follow_events; break;
    case mcMemPoolReuseAllowOpportunistic: flag = p->reuse_opportunistic; break;
    case mcMemPoolReuseAllowInternalDependencies: flag = p->reuse_internal_dependencies; break;
    case mcMemPoolAttrReleaseThreshold: number = p->release_threshold; break;
    case mcMemPoolAttrReservedMemCurrent: number = bytes(p, 0); break;
    case mcMemPoolAttrReservedMemHigh: number = p->reserved_high; break;
    case mcMemPoolAttrUsedMemCurrent: number = bytes(p, 1); break;
    case mcMemPoolAttrUsedMemHigh: number = p->used_high; break;
    default: rc = mcErrorInvalidValue; break;
    }
    pthread_mutex_unlock(&lock);
    if (rc)
        return mc_fail(rc, "mcMemPoolGetAttribute: %d is not a memory pool attribute", (int)attr);
    if (flag >= 0)
        memcpy(value, &flag, sizeof flag);
    else
        memcpy(value, &number, sizeof number);
    return mcSuccess;
}

/* The current sizes are read-only; the high-water marks can only be reset, by setting 0. */
OPEMU_EXPORT mcError_t mcMemPoolSetAttribute(mcMemPool_t memPool, enum mcMemPoolAttr attr, void *value)
{
    mcError_t rc = mcSuccess;
    pool *p = live_pool(memPool, "mcMemPoolSetAttribute", &rc);
    if (p == NULL)
        return rc;
    if (value == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMemPoolSetAttribute: value is null");
    int flag;
    uint64_t number;
    memcpy(&flag, value, sizeof flag);
    memcpy(&number, value, sizeof number);
    const char *why = NULL;
    pthread_mutex_lock(&lock);
    switch (attr) {
    case mcMemPoolReuseFollowEventDependencies: p->reuse_follow_events = flag != 0; break;
    case mcMemPoolReuseAllowOpportunistic: p->reuse_opportunistic = flag != 0; break;
    case mcMemPoolReuseAllowInternalDependencies: p->reuse_internal_dependencies = flag != 0; break;
    case mcMemPoolAttrReleaseThreshold: p->release_threshold = number; break;
    case mcMemPoolAttrReservedMemHigh:
        if (number != 0)
            why = "the high-water mark can only be reset to 0";
        else
            p->reserved_high = bytes(p, 0);
        break;
    case mcMemPoolAttrUsedMemHigh:
        if (number != 0)
            why = "the high-water mark can only be reset to 0";
        else
            p->used_high = bytes(p, 1);
        break;
    case mcMemPoolAttrReservedMemCurrent:
    case mcMemPoolAttrUsedMemCurrent: why = "the current sizes are read-only"; break;
    default: why = "not a memory pool attribute"; break;
    }
    pthread_mutex_unlock(&lock);
    if (why)
        return mc_fail(mcErrorInvalidValue, "mcMemPoolSetAttribute: attribute %d: %s", (int)attr, why);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcMemPoolTrimTo(mcMemPool_t memPool, size_t minBytesToKeep)
{
    mcError_t rc = mcSuccess;
    pool *p = live_pool(memPool, "mcMemPoolTrimTo", &rc);
    if (p == NULL)
        return rc;
    pthread_mutex_lock(&lock);
    release_above(p, minBytesToKeep);
    pthread_mutex_unlock(&lock);
    return mcSuccess;
}
