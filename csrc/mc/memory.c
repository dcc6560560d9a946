/* MACA memory: device memory (mcMalloc, mcFree, mcMemGetInfo), managed memory, page-locked host
 * memory (allocated or registered), pointer attributes, pitched allocations, 2D copies and sets,
 * peer copies.
 *
 * Device memory is host memory here, so managed memory is device memory the host may touch, and
 * every page-locked host range is mapped for the device at its own address (unified addressing):
 * what differs between the kinds is what the runtime reports and accepts, which is kept in records. */
#include <stdlib.h>
#include <string.h>
#include "mc_internal.h"

#define HOST_ALIGNMENT 64
#define HOST_GRANULE 64
#define PITCH_ALIGNMENT 512 /* the properties' textureAlignment */
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/* Page-locked host memory: an mcHostAlloc allocation or an mcHostRegister range, with its flags. */
typedef struct {
    uintptr_t start;
    size_t size;
    unsigned int flags;
    int registered;
} pinned;

/* A managed allocation: device memory allocated by mcMallocManaged. */
typedef struct {
    uintptr_t start;
    int device;
} managed;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pinned *pins;
static size_t pin_count, pin_capacity;
static managed *manageds;
static size_t managed_count, managed_capacity;

static void grow(void **array, size_t *capacity, size_t count, size_t element)
{
    if (count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 16;
        *array = realloc(*array, *capacity * element);
    }
}

/* The record holding `address` (lock held), or NULL. */
static pinned *pin_of(uintptr_t address)
{
    for (size_t i = 0; i < pin_count; i++)
        if (address - pins[i].start < pins[i].size)
            return &pins[i];
    return NULL;
}

static void pin_add(uintptr_t start, size_t size, unsigned int flags, int registered)
{
    pthread_mutex_lock(&lock);
    grow((void **)&pins, &pin_capacity, pin_count, sizeof *pins);
    pins[pin_count++] = (pinned){start, size, flags, registered};
    pthread_mutex_unlock(&lock);
}

/* Removes the record starting at `start` of that origin; 0 when there was none. */
static int pin_remove(uintptr_t start, int registered)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < pin_count && !found; i++) {
        if (pins[i].start == start && pins[i].registered == registered) {
            pins[i] = pins[--pin_count];
            found = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

/* A copy of the record holding `ptr`; 0 when `ptr` is not page-locked. */
static int pin_find(const void *ptr, pinned *out)
{
    pthread_mutex_lock(&lock);
    pinned *p = pin_of((uintptr_t)ptr);
    if (p)
        *out = *p;
    pthread_mutex_unlock(&lock);
    return p != NULL;
}

int mc_host_pinned(const void *ptr)
{
    pinned p;
    return pin_find(ptr, &p);
}

/* ---- device memory ---- */

OPEMU_EXPORT mcError_t mcMalloc(void **devPtr, size_t size)
{
    if (devPtr == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMalloc: devPtr is null");
    if (size == 0) { /* as cudaMalloc: success, and no allocation */
        *devPtr = NULL;
        return mcSuccess;
    }
    return mc_device_malloc(devPtr, size, mc_context()->device, "mcMalloc");
}

/* Freeing waits for the device's queued work, as cudaFree does, so a queued task never sees memory
 * that was freed after it was issued. Memory from mcMallocAsync and mcMallocManaged is freed too. */
OPEMU_EXPORT mcError_t mcFree(void *devPtr)
{
    if (devPtr == NULL)
        return mcSuccess;
    mc_context();
    int pending = opemu_device_drain(opemu_mc_current_device());
    if (!mc_pool_free_now(devPtr)) {
        int managed = mc_managed_release(devPtr);
        if (opemu_memory_free(devPtr, OPEMU_MEM_DEVICE) != 0) {
            opemu_sanitize_bad_free(devPtr, "mcFree");
            return mc_fail(mcErrorInvalidValue, "mcFree: %p was not allocated by mcMalloc%s or was freed already",
                           devPtr, managed ? "Managed" : "");
        }
    }
    return pending ? mc_from_runtime(pending, "mcFree") : mcSuccess;
}

OPEMU_EXPORT mcError_t mcMallocHost(void **ptr, size_t size) { return mcHostAlloc(ptr, size, mcHostAllocDefault); }

OPEMU_EXPORT mcError_t mcMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (free_bytes == NULL || total == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMemGetInfo: free and total must not be null");
    opemu_context *ctx = mc_context();
    *total = (size_t)opemu_device_memory_bytes();
    *free_bytes = *total - (size_t)opemu_memory_used(ctx->device);
    return mcSuccess;
}

/* ---- page-locked host memory ---- */

OPEMU_EXPORT mcError_t mcHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    if (pHost == NULL)
        return mc_fail(mcErrorInvalidValue, "mcHostAlloc: pHost is null");
    if (flags & ~(unsigned)(mcHostAllocPortable | mcHostAllocMapped | mcHostAllocWriteCombined))
        return mc_fail(mcErrorInvalidValue, "mcHostAlloc: invalid flags %#x (mcHostAllocPortable, mcHostAllocMapped, "
                       "mcHostAllocWriteCombined)", flags);
    if (size == 0) { /* as cudaHostAlloc: success, and no allocation */
        *pHost = NULL;
        return mcSuccess;
    }
    mcError_t rc = mc_check_size(size, HOST_GRANULE, "mcHostAlloc");
    if (rc)
        return rc;
    if (opemu_memory_alloc(pHost, size, ALIGN_UP((uint64_t)size, HOST_GRANULE), HOST_ALIGNMENT, -1,
                           OPEMU_MEM_HOST) != 0)
        return mc_fail(mcErrorMemoryAllocation, "mcHostAlloc: out of host memory (%zu bytes)", size);
    pin_add((uintptr_t)*pHost, size, flags, 0);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcFreeHost(void *ptr)
{
    if (ptr == NULL)
        return mcSuccess;
    if (opemu_memory_free(ptr, OPEMU_MEM_HOST) != 0) {
        opemu_sanitize_bad_free(ptr, "mcFreeHost");
        return mc_fail(mcErrorInvalidValue, "mcFreeHost: %p was not allocated by mcMallocHost or mcHostAlloc, or was "
                       "freed already", ptr);
    }
    pin_remove((uintptr_t)ptr, 0);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcHostRegister(void *ptr, size_t size, unsigned int flags)
{
    unsigned known = mcHostRegisterPortable | mcHostRegisterMapped | mcHostRegisterIoMemory | mcHostRegisterReadOnly;
    if (ptr == NULL || size == 0)
        return mc_fail(mcErrorInvalidValue, "mcHostRegister: ptr must not be null and size must be positive");
    if (flags & ~known)
        return mc_fail(mcErrorInvalidValue, "mcHostRegister: invalid flags %#x", flags);
    if (flags & (mcHostRegisterIoMemory | mcHostRegisterReadOnly)) /* the device attributes say 0 for both */
        return mc_fail(mcErrorNotSupported, "mcHostRegister: mcHostRegisterIoMemory and mcHostRegisterReadOnly are "
                       "not supported on this device");
    uintptr_t start = (uintptr_t)ptr;
    if (size - 1 > UINTPTR_MAX - start)
        return mc_fail(mcErrorInvalidValue, "mcHostRegister: %zu bytes at %p wrap the address space", size, ptr);
    opemu_allocation a;
    if (opemu_memory_find(ptr, &a) && a.kind == OPEMU_MEM_DEVICE)
        return mc_fail(mcErrorInvalidValue, "mcHostRegister: %p is device memory", ptr);
    pthread_mutex_lock(&lock);
    int overlaps = 0;
    for (size_t i = 0; i < pin_count && !overlaps; i++)
        overlaps = start - pins[i].start < pins[i].size || pins[i].start - start < size;
    if (!overlaps) {
        grow((void **)&pins, &pin_capacity, pin_count, sizeof *pins);
        pins[pin_count++] = (pinned){start, size, flags, 1};
    }
    pthread_mutex_unlock(&lock);
    if (overlaps)
        return mc_fail(mcErrorHostMemoryAlreadyRegistered, "mcHostRegister: %zu bytes at %p overlap memory already "
                       "page-locked", size, ptr);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcHostUnregister(void *ptr)
{
    if (ptr == NULL || !pin_remove((uintptr_t)ptr, 1))
        return mc_fail(mcErrorHostMemoryNotRegistered, "mcHostUnregister: %p does not start a range registered with "
                       "mcHostRegister", ptr);
    return mcSuccess;
}

/* Page-locked memory is mapped at its own address (unified addressing). */
OPEMU_EXPORT mcError_t mcHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (pDevice == NULL)
        return mc_fail(mcErrorInvalidValue, "mcHostGetDevicePointer: pDevice is null");
    if (flags != 0)
        return mc_fail(mcErrorInvalidValue, "mcHostGetDevicePointer: flags must be 0, got %#x", flags);
    if (!mc_host_pinned(pHost))
        return mc_fail(mcErrorInvalidValue, "mcHostGetDevicePointer: %p is not page-locked host memory (mcHostAlloc, "
                       "mcMallocHost or mcHostRegister)", pHost);
    *pDevice = pHost;
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcHostGetFlags(unsigned int *pFlags, void *pHost)
{
    if (pFlags == NULL)
        return mc_fail(mcErrorInvalidValue, "mcHostGetFlags: pFlags is null");
    pinned p;
    if (!pin_find(pHost, &p) || p.registered)
        return mc_fail(mcErrorInvalidValue, "mcHostGetFlags: %p was not allocated by mcHostAlloc or mcMallocHost",
                       pHost);
    *pFlags = p.flags;
    return mcSuccess;
}

/* ---- managed memory ---- */

OPEMU_EXPORT mcError_t mcMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (devPtr == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMallocManaged: devPtr is null");
    if (size == 0)
        return mc_fail(mcErrorInvalidValue, "mcMallocManaged: size must be positive");
    if (flags != mcMemAttachGlobal && flags != mcMemAttachHost)
        return mc_fail(mcErrorInvalidValue, "mcMallocManaged: flags must be mcMemAttachGlobal or mcMemAttachHost, "
                       "got %#x", flags);
    mcError_t rc = mc_device_malloc(devPtr, size, mc_context()->device, "mcMallocManaged");
    if (rc)
        return rc;
    opemu_block_host_accessible(*devPtr); /* the host may touch it: the sanitizer keeps it open */
    pthread_mutex_lock(&lock);
    grow((void **)&manageds, &managed_capacity, managed_count, sizeof *manageds);
    manageds[managed_count++] = (managed){(uintptr_t)*devPtr, mc_context()->device};
    pthread_mutex_unlock(&lock);
    return mcSuccess;
}

static int is_managed(uintptr_t start)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < managed_count && !found; i++)
        found = manageds[i].start == start;
    pthread_mutex_unlock(&lock);
    return found;
}

int mc_managed_release(void *ptr)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < managed_count && !found; i++) {
        if (manageds[i].start == (uintptr_t)ptr) {
            manageds[i] = manageds[--managed_count];
            found = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void mc_managed_reset(int device)
{
    pthread_mutex_lock(&lock);
    for (size_t i = managed_count; i-- > 0;)
        if (manageds[i].device == device)
            manageds[i] = manageds[--managed_count];
    pthread_mutex_unlock(&lock);
}

/* ---- what a pointer is ---- */

OPEMU_EXPORT mcError_t mcPointerGetAttributes(struct mcPointerAttributes *attributes, const void *ptr)
{
    if (attributes == NULL)
        return mc_fail(mcErrorInvalidValue, "mcPointerGetAttributes: attributes is null");
    opemu_allocation a;
    pinned p;
    void *address = (void *)ptr;
    if (opemu_memory_find(ptr, &a) && a.kind == OPEMU_MEM_DEVICE) {
        int shared = is_managed(a.start);
        *attributes = (struct mcPointerAttributes){shared ? mcMemoryTypeManaged : mcMemoryTypeDevice, a.device,
                                                   address, shared ? address : NULL};
    } else if (pin_find(ptr, &p)) {
        *attributes = (struct mcPointerAttributes){mcMemoryTypeHost, mc_context()->device, address, address};
    } else { /* ordinary host memory, or no memory at all */
        *attributes = (struct mcPointerAttributes){mcMemoryTypeUnregistered, mcInvalidDeviceId, NULL, address};
    }
    return mcSuccess;
}

/* ---- pitched allocations and 2D transfers ---- */

OPEMU_EXPORT mcError_t mcMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (devPtr == NULL || pitch == NULL)
        return mc_fail(mcErrorInvalidValue, "mcMallocPitch: devPtr and pitch must not be null");
    size_t rounded = width <= SIZE_MAX - PITCH_ALIGNMENT ? ALIGN_UP(width, PITCH_ALIGNMENT) : 0, bytes;
    if (rounded < width || __builtin_mul_overflow(rounded, height, &bytes))
        return mc_fail(mcErrorMemoryAllocation, "mcMallocPitch: %zu rows of %zu bytes cannot be allocated (the size "
                       "wraps)", height, width);
    *pitch = rounded;
    if (bytes == 0) {
        *devPtr = NULL;
        return mcSuccess;
    }
    return mc_device_malloc(devPtr, bytes, mc_context()->device, "mcMallocPitch");
}

/* An asynchronous call names a live stream before anything else is looked at (either way the
 * current device's primary context exists afterwards). */
static mcError_t check_stream(mcStream_t stream, int async, const char *api)
{
    mcError_t rc = mcSuccess;
    if (async)
        mc_stream(stream, api, &rc);
    else
        mc_context();
    return rc;
}

/* The bytes `height` rows of `width` bytes span when rows start `pitch` apart; -1 when that wraps. */
static int span_of(size_t pitch, size_t width, size_t height, size_t *span)
{
    size_t rows;
    return __builtin_mul_overflow(pitch, height - 1, &rows) || __builtin_add_overflow(rows, width, span) ? -1 : 0;
}

static mcError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         mcMemcpyKind kind, mcStream_t stream, int async, const char *api)
{
    mcError_t rc = check_stream(stream, async, api);
    if (rc)
        return rc;
    if ((unsigned)kind > mcMemcpyDefault)
        return mc_fail(mcErrorInvalidMemcpyDirection, "%s: invalid memcpy kind %d", api, (int)kind);
    if (width == 0 || height == 0)
        return mcSuccess;
    if (width > dpitch || width > spitch)
        return mc_fail(mcErrorInvalidPitchValue, "%s: width %zu exceeds dpitch %zu or spitch %zu", api, width,
                       dpitch, spitch);
    size_t dspan, sspan;
    if (span_of(dpitch, width, height, &dspan) || span_of(spitch, width, height, &sspan))
        return mc_fail(mcErrorInvalidValue, "%s: %zu rows with pitches %zu and %zu span more than the address space",
                       api, height, dpitch, spitch);
    rc = mc_check_copy(dst, dspan, src, sspan, kind, api);
    if (rc)
        return rc;
    mc_transfer t = {dst, dpitch, src, spitch, width, height, 0, 0, 0};
    return async ? mc_transfer_on(&t, stream, api) : mc_transfer_now(&t, api);
}

OPEMU_EXPORT mcError_t mcMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                  size_t height, enum mcMemcpyKind kind)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, 0, "mcMemcpy2D");
}

OPEMU_EXPORT mcError_t mcMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, enum mcMemcpyKind kind, mcStream_t stream)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, 1, "mcMemcpy2DAsync");
}

static mcError_t set_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height, mcStream_t stream,
                        int async, const char *api)
{
    mcError_t rc = check_stream(stream, async, api);
    if (rc)
        return rc;
    if (width == 0 || height == 0)
        return mcSuccess;
    if (devPtr == NULL)
        return mc_fail(mcErrorInvalidValue, "%s: devPtr is null", api);
    size_t span;
    if (width > pitch || span_of(pitch, width, height, &span))
        return mc_fail(mcErrorInvalidValue, "%s: width %zu must not exceed pitch %zu, and %zu rows must fit the "
                       "address space", api, width, pitch, height);
    rc = mc_device_side(devPtr, span, -1, api, "devPtr");
    if (rc)
        return rc;
    mc_transfer t = {devPtr, pitch, NULL, 0, width, height, (int)(unsigned char)value, 1, 0};
    return async ? mc_transfer_on(&t, stream, api) : mc_transfer_now(&t, api);
}

OPEMU_EXPORT mcError_t mcMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return set_2d(devPtr, pitch, value, width, height, NULL, 0, "mcMemset2D");
}

OPEMU_EXPORT mcError_t mcMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                       mcStream_t stream)
{
    return set_2d(devPtr, pitch, value, width, height, stream, 1, "mcMemset2DAsync");
}

/* ---- copies between devices: each side must be memory of the device it is named with ---- */

static mcError_t copy_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                           mcStream_t stream, int async, const char *api)
{
    mcError_t rc = check_stream(stream, async, api);
    if (rc || count == 0)
        return rc;
    rc = mc_check_device(dstDevice, api);
    if (rc == mcSuccess)
        rc = mc_check_device(srcDevice, api);
    if (rc == mcSuccess && (dst == NULL || src == NULL))
        rc = mc_fail(mcErrorInvalidValue, "%s: dst and src must not be null", api);
    if (rc == mcSuccess)
        rc = mc_device_side(dst, count, dstDevice, api, "dst");
    if (rc == mcSuccess)
        rc = mc_device_side(src, count, srcDevice, api, "src");
    if (rc)
        return rc;
    mc_transfer t = {dst, count, src, count, count, 1, 0, 0, 0};
    if (async)
        return mc_transfer_on(&t, stream, api);
    /* a synchronous copy follows the queued work of both devices */
    int pending = opemu_device_drain(srcDevice);
    int later = opemu_device_drain(dstDevice);
    rc = mc_transfer_now(&t, api);
    return pending || later ? mc_from_runtime(pending ? pending : later, api) : rc;
}

OPEMU_EXPORT mcError_t mcMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    return copy_peer(dst, dstDevice, src, srcDevice, count, NULL, 0, "mcMemcpyPeer");
}

OPEMU_EXPORT mcError_t mcMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                         mcStream_t stream)
{
    return copy_peer(dst, dstDevice, src, srcDevice, count, stream, 1, "mcMemcpyPeerAsync");
}
