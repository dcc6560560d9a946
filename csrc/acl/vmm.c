/* Virtual memory management: reserve an address range, allocate physical memory, map one into the
 * other (what caching allocators such as llama.cpp's CANN pool and PyTorch's expandable segments do).
 *
 * A reservation is an inaccessible anonymous mapping; physical memory is a memfd counted against the
 * device's memory; mapping places the memfd's pages into the reservation (MAP_FIXED|MAP_SHARED, so
 * one physical allocation may back several ranges). Mapped ranges enter the device memory registry
 * as borrowed device allocations, so kernels, copies and the sanitizer accept them; adjacent
 * mappings of one reservation form one registry entry, because a tensor may straddle two of them. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/memory.h"

/* Both the minimum and the recommended granularity: the device's huge page. */
#define GRANULARITY (2ULL << 20)
#define MAX_MAPPINGS 4096


typedef struct physical {
    int fd;
    uint64_t size;
    int32_t device;
    int maps; /* live mappings of it: it may not be freed while mapped */
} physical;

typedef struct {
    uintptr_t start;
    uint64_t size;
    physical *backing;
} mapping;

typedef struct reservation {
    uintptr_t start;
    uint64_t size;
    int32_t device;
    mapping maps[MAX_MAPPINGS]; /* sorted by start */
    size_t n_maps;
    struct reservation *next;
} reservation;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static reservation *reservations;

static int known(const void *handle, int kind)
{
    return opemu_handle_is(handle, kind);
}

static reservation *reservation_holding(uintptr_t address)
{
    for (reservation *r = reservations; r; r = r->next)
        if (address - r->start < r->size)
            return r;
    return NULL;
}

/* Re-registers the reservation's mapped runs (maximal sequences of adjacent mappings). */
static void register_runs(reservation *r, int add)
{
    for (size_t i = 0; i < r->n_maps;) {
        size_t j = i + 1;
        uint64_t size = r->maps[i].size;
        while (j < r->n_maps && r->maps[j].start == r->maps[j - 1].start + r->maps[j - 1].size)
            size += r->maps[j++].size;
        if (add)
            opemu_memory_register((void *)r->maps[i].start, size, r->device, OPEMU_BORROWED_MAPPING);
        else
            opemu_memory_unregister((void *)r->maps[i].start);
        i = j;
    }
}

static int check_prop(const aclrtPhysicalMemProp *prop, const char *api)
{
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->handleType %d must be ACL_MEM_HANDLE_TYPE_NONE", api,
                          (int)prop->handleType);
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return opemu_fail(ACL_ERROR_INVALID_PARAM,
                          "%s: prop->allocationType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED", api,
                          (int)prop->allocationType);
    if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->location.type %d is not supported: opemu emulates "
                          "device physical memory (ACL_MEM_LOCATION_TYPE_DEVICE) only", api, (int)prop->location.type);
    /* DDR attributes are host memory attributes; the device takes HBM and the generic ones */
    switch (prop->memAttr) {
    case ACL_HBM_MEM_HUGE: case ACL_HBM_MEM_NORMAL: case ACL_HBM_MEM_HUGE1G: case ACL_MEM_NORMAL: case ACL_MEM_HUGE:
    case ACL_MEM_HUGE1G: case ACL_MEM_P2P_NORMAL: case ACL_MEM_P2P_HUGE: case ACL_MEM_P2P_HUGE1G:
        break;
    default:
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: prop->memAttr %d is not supported for device memory", api,
                          (int)prop->memAttr);
    }
    if (prop->location.id >= (uint32_t)opemu_device_count())
        return opemu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: prop->location.id %u is not a device (there are %d)",
                          api, prop->location.id, opemu_device_count());
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                       size_t *granularity)
{
    if (prop == NULL || granularity == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMemGetAllocationGranularity: prop and granularity must not "
                          "be null");
    int rc = check_prop(prop, "aclrtMemGetAllocationGranularity");
    if (rc)
        return rc;
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMemGetAllocationGranularity: invalid option %d", (int)option);
    *granularity = GRANULARITY;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                             uint64_t flags)
{
    if (virPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtReserveMemAddress: virPtr is null");
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtReserveMemAddress: size must be positive");
    if (flags > 1) /* 1 is kept for compatibility with early releases */
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtReserveMemAddress: flags %llu must be 0",
                          (unsigned long long)flags);
    if (alignment != 0 && (alignment & (alignment - 1)) != 0)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtReserveMemAddress: alignment %zu is not a power of 2",
                          alignment);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    /* the range is whole granules (callers such as llama.cpp reserve the device's total memory,
     * whatever its size); mappings inside it are granule-aligned */
    uint64_t align = alignment > GRANULARITY ? alignment : GRANULARITY;
    if (size > (1ULL << 47) || align > (1ULL << 46))
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtReserveMemAddress: cannot reserve %zu bytes", size);
    uint64_t whole = (size + GRANULARITY - 1) / GRANULARITY * GRANULARITY;
    uint64_t span = whole + align; /* room to align the start, given back below */
    /* expectPtr is a hint: the range starts there when that part of the address space is free */
    void *base = mmap(expectPtr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtReserveMemAddress: cannot reserve %zu bytes", size);
    uintptr_t start = ((uintptr_t)base + align - 1) & ~(uintptr_t)(align - 1);
    uintptr_t end = (uintptr_t)base + span, kept = start + whole;
    if (start > (uintptr_t)base)
        munmap(base, start - (uintptr_t)base);
    if (end > kept)
        munmap((void *)kept, end - kept);
    reservation *r = calloc(1, sizeof *r);
    r->start = start;
    r->size = whole;
    r->device = ctx->device;
    pthread_mutex_lock(&lock);
    r->next = reservations;
    reservations = r;
    pthread_mutex_unlock(&lock);
    opemu_handle_add((void *)start, OPEMU_KIND_VIRTUAL_RANGE);
    *virPtr = (void *)start;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
    if (virPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtReleaseMemAddress: virPtr is null");
    if (!known(virPtr, OPEMU_KIND_VIRTUAL_RANGE))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "aclrtReleaseMemAddress: %p is not the start of a range aclrtReserveMemAddress reserved",
                          virPtr);
    pthread_mutex_lock(&lock);
    reservation **link = &reservations;
    while ((*link)->start != (uintptr_t)virPtr)
        link = &(*link)->next;
    reservation *r = *link;
    if (r->n_maps > 0) {
        pthread_mutex_unlock(&lock);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "aclrtReleaseMemAddress: %zu mappings in the range are still mapped; unmap them first",
                          r->n_maps);
    }
    *link = r->next;
    pthread_mutex_unlock(&lock);
    opemu_handle_remove(virPtr);
    munmap(virPtr, r->size);
    free(r);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                          uint64_t flags)
{
    if (handle == NULL || prop == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocPhysical: handle and prop must not be null");
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocPhysical: size must be positive");
    if (flags != 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocPhysical: flags %llu must be 0",
                          (unsigned long long)flags);
    int rc = check_prop(prop, "aclrtMallocPhysical");
    if (rc)
        return rc;
    if (size % GRANULARITY != 0)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "aclrtMallocPhysical: size %zu is not a multiple of the granularity %llu", size,
                          GRANULARITY);
    int32_t device = (int32_t)prop->location.id;
    if (opemu_memory_charge(device, (int64_t)(size > (1ULL << 62) ? (1ULL << 62) : size)) != 0)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "aclrtMallocPhysical: out of device memory: %zu bytes requested, %llu of %llu in use on "
                          "device %d", size, (unsigned long long)opemu_memory_used(device),
                          (unsigned long long)opemu_device_memory_bytes(), device);
    int fd = memfd_create("opemu-physical", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        if (fd >= 0)
            close(fd);
        opemu_memory_charge(device, -(int64_t)size);
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMallocPhysical: cannot back %zu bytes", size);
    }
    physical *p = calloc(1, sizeof *p);
    p->fd = fd;
    p->size = size;
    p->device = device;
    opemu_handle_add(p, OPEMU_KIND_PHYSICAL_MEMORY);
    *handle = p;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    if (handle == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtFreePhysical: handle is null");
    if (!known(handle, OPEMU_KIND_PHYSICAL_MEMORY))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "aclrtFreePhysical: %p is not a live handle from aclrtMallocPhysical", handle);
    physical *p = handle;
    pthread_mutex_lock(&lock);
    int maps = p->maps;
    pthread_mutex_unlock(&lock);
    if (maps > 0)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtFreePhysical: %p is still mapped %d time(s)", handle, maps);
    opemu_handle_remove(p);
    close(p->fd);
    opemu_memory_charge(p->device, -(int64_t)p->size);
    free(p);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    if (virPtr == NULL || handle == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: virPtr and handle must not be null");
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: size must be positive");
    if (flags != 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtMapMem: flags %llu must be 0", (unsigned long long)flags);
    if (!known(handle, OPEMU_KIND_PHYSICAL_MEMORY))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtMapMem: %p is not a live handle from aclrtMallocPhysical",
                          handle);
    physical *p = handle;
    uintptr_t start = (uintptr_t)virPtr;
    if (start % GRANULARITY || size % GRANULARITY || offset % GRANULARITY)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtMapMem: virPtr %p, size %zu and offset %zu must be "
                          "multiples of the granularity %llu", virPtr, size, offset, GRANULARITY);
    if (offset > p->size || size > p->size - offset)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtMapMem: offset %zu + size %zu runs past the physical "
                          "allocation's %llu bytes", offset, size, (unsigned long long)p->size);
    pthread_mutex_lock(&lock);
    reservation *r = reservation_holding(start);
    const char *problem = NULL;
    size_t at = 0;
    if (r == NULL || size > r->size - (start - r->start))
        problem = "does not lie inside one range aclrtReserveMemAddress reserved";
    else if (r->n_maps == MAX_MAPPINGS)
        problem = "would exceed the mappings one reserved range can hold";
    else {
        while (at < r->n_maps && r->maps[at].start < start)
            at++;
        if ((at > 0 && r->maps[at - 1].start + r->maps[at - 1].size > start) ||
            (at < r->n_maps && r->maps[at].start < start + size))
            problem = "overlaps a range that is already mapped";
    }
    if (problem) {
        pthread_mutex_unlock(&lock);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtMapMem: [%p, +%zu) %s", virPtr, size, problem);
    }
    if (mmap(virPtr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->fd, (off_t)offset) == MAP_FAILED) {
        pthread_mutex_unlock(&lock);
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMapMem: the host could not map %zu bytes", size);
    }
    register_runs(r, 0);
    memmove(&r->maps[at + 1], &r->maps[at], (r->n_maps - at) * sizeof r->maps[0]);
    r->maps[at] = (mapping){start, size, p};
    r->n_maps++;
    p->maps++;
    register_runs(r, 1);
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
    if (virPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtUnmapMem: virPtr is null");
    pthread_mutex_lock(&lock);
    reservation *r = reservation_holding((uintptr_t)virPtr);
    size_t at = 0;
    while (r && at < r->n_maps && r->maps[at].start != (uintptr_t)virPtr)
        at++;
    if (r == NULL || at == r->n_maps) {
        pthread_mutex_unlock(&lock);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtUnmapMem: %p is not the start of a mapped range", virPtr);
    }
    mapping m = r->maps[at];
    register_runs(r, 0);
    memmove(&r->maps[at], &r->maps[at + 1], (r->n_maps - at - 1) * sizeof r->maps[0]);
    r->n_maps--;
    m.backing->maps--;
    register_runs(r, 1);
    /* the range becomes inaccessible again, as on the device */
    mmap(virPtr, m.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}
