/* The device memory registry and the allocation, copy and set APIs.
 *
 * Device memory is host memory laid out as the vendor's allocator lays it out (reference §7):
 * ALIGN_UP(size,32)+32 bytes (no pad for aclrtMallocAlign32 and the 1G policies), and whole 2 MiB
 * pages for HUGE_FIRST/HUGE_ONLY requests above 1 MiB. Starts are 512-byte aligned: the vendor
 * documents 64 as the minimum, but its device allocator hands out at least 512 and real clients
 * (llama.cpp's CANN backend asks for 128) rely on more than 64. Every device access is bounded by
 * the mapped size, which is where hardware would fault. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"

#define MiB (1ULL << 20)
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define DEVICE_ALIGNMENT 512
/* Larger requests cannot be rounded up without wrapping: they fail as out of memory. */
#define LARGEST_REQUEST (1ULL << 62)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static opemu_allocation *table; /* sorted by start */
static size_t count, capacity;
static uint64_t *device_used;
static uint64_t *device_peak; /* the most device_used ever held (aclrtGetMemUsageInfo) */

static size_t lower_bound(uintptr_t address)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (table[mid].start < address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the allocation whose [start, start+mapped) holds address, or -1. Caller holds lock. */
static long locate(uintptr_t address)
{
    size_t i = lower_bound(address + 1);
    if (i == 0)
        return -1;
    const opemu_allocation *a = &table[i - 1];
    return address - a->start < a->mapped ? (long)(i - 1) : -1;
}

static uint64_t *used_of(int32_t device)
{
    if (device_used == NULL) {
        device_used = calloc((size_t)opemu_device_count(), sizeof *device_used);
        device_peak = calloc((size_t)opemu_device_count(), sizeof *device_peak);
    }
    return &device_used[device];
}

/* After device_used grew. Caller holds lock. */
static void note_peak(int32_t device)
{
    if (device_used[device] > device_peak[device])
        device_peak[device] = device_used[device];
}

uint64_t opemu_memory_peak(int32_t device)
{
    pthread_mutex_lock(&lock);
    used_of(device);
    uint64_t peak = device_peak[device];
    pthread_mutex_unlock(&lock);
    return peak;
}

static void table_insert(const opemu_allocation *a)
{
    if (count == capacity) {
        capacity = capacity ? capacity * 2 : 256;
        table = realloc(table, capacity * sizeof *table);
    }
    size_t i = lower_bound(a->start);
    memmove(&table[i + 1], &table[i], (count - i) * sizeof *table);
    table[i] = *a;
    count++;
}

static uint64_t removals; /* allocations gone from the table so far: see opemu_memory_epoch */

static void table_remove(size_t i)
{
    memmove(&table[i], &table[i + 1], (count - i - 1) * sizeof *table);
    count--;
    __atomic_add_fetch(&removals, 1, __ATOMIC_RELEASE);
}

uint64_t opemu_memory_epoch(void) { return __atomic_load_n(&removals, __ATOMIC_ACQUIRE); }

int opemu_memory_find(const void *address, opemu_allocation *out)
{
    pthread_mutex_lock(&lock);
    long i = locate((uintptr_t)address);
    if (i >= 0 && out)
        *out = table[i];
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

int opemu_device_range_check(const void *address, uint64_t nbytes)
{
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE) {
        opemu_sanitize_missing(address, "a kernel's device access");
        opemu_context *ctx = opemu_current_context();
        opemu_raise_exception(ACL_ERROR_RT_AICORE_EXCEPTION, ctx ? ctx->device : 0);
        return opemu_fail(ACL_ERROR_RT_AICORE_EXCEPTION,
                          "device access at %p: not inside any live device allocation", address);
    }
    uint64_t offset = (uintptr_t)address - a.start;
    if (nbytes > a.mapped - offset) {
        opemu_raise_exception(ACL_ERROR_RT_AICORE_EXCEPTION, a.device);
        return opemu_fail(ACL_ERROR_RT_AICORE_EXCEPTION,
                          "device access of %llu bytes at %p runs past the end of its allocation "
                          "(%llu bytes mapped from %p)",
                          (unsigned long long)nbytes, address, (unsigned long long)a.mapped, (void *)a.start);
    }
    return ACL_SUCCESS;
}

int opemu_device_mapping(const void *address, uint64_t *start, uint64_t *mapped)
{
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE)
        return 0;
    *start = a.start;
    *mapped = a.mapped;
    return 1;
}

static uint64_t mapped_size(size_t size, aclrtMemMallocPolicy policy, int pad)
{
    unsigned base = (unsigned)policy & 0xFF; /* the bandwidth/access flags are ORed above */
    int huge1g = base == ACL_MEM_MALLOC_HUGE1G_ONLY || base == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
    uint64_t bytes = ALIGN_UP((uint64_t)size, 32) + (pad && !huge1g ? 32 : 0);
    int huge = base == ACL_MEM_MALLOC_HUGE_FIRST || base == ACL_MEM_MALLOC_HUGE_ONLY ||
               base == ACL_MEM_MALLOC_HUGE_FIRST_P2P || base == ACL_MEM_MALLOC_HUGE_ONLY_P2P ||
               base > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P; /* unknown policies: the runtime default */
    if (huge1g)
        return ALIGN_UP(bytes, 1ULL << 30);
    if (huge && size > MiB)
        return ALIGN_UP(bytes, 2 * MiB);
    return bytes;
}

/* aclrtMallocConfig: optional; when given, its attributes must be ones the header names. The module
 * and VA-flag attributes have no observable effect here; a device id must name a device. */
static aclError check_malloc_config(const aclrtMallocConfig *cfg, const char *api)
{
    if (cfg == NULL)
        return ACL_SUCCESS;
    if (cfg->numAttrs > 0 && cfg->attrs == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg->attrs is null but cfg->numAttrs is %zu", api,
                          cfg->numAttrs);
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        if ((unsigned)a->attr > ACL_RT_MEM_ATTR_VA_FLAG)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg->attrs[%zu].attr %d is not an aclrtMallocAttrType",
                              api, i, (int)a->attr);
        if (a->attr == ACL_RT_MEM_ATTR_DEVICE_ID && a->value.deviceId >= (uint32_t)opemu_device_count())
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg->attrs[%zu] names device %u; there are %d devices",
                              api, i, a->value.deviceId, opemu_device_count());
    }
    return ACL_SUCCESS;
}

static aclError device_malloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy, int pad, const char *api)
{
    if (devPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is null", api);
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: size must be positive", api);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    if ((uint64_t)size > LARGEST_REQUEST ||
        opemu_memory_alloc(devPtr, size, mapped_size(size, policy, pad), DEVICE_ALIGNMENT, ctx->device,
                           OPEMU_MEM_DEVICE) != 0)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "%s: out of device memory: %zu bytes requested, %llu of %llu bytes in use on device %d",
                          api, size, (unsigned long long)opemu_memory_used(ctx->device),
                          (unsigned long long)opemu_device_memory_bytes(), ctx->device);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, 1, "aclrtMalloc");
}

OPEMU_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, 1, "aclrtMallocCached");
}

OPEMU_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, 0, "aclrtMallocAlign32");
}

OPEMU_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg)
{
    int rc = check_malloc_config(cfg, "aclrtMallocWithCfg");
    return rc ? rc : device_malloc(devPtr, size, policy, 1, "aclrtMallocWithCfg");
}

static aclError host_malloc(void **hostPtr, uint64_t size, const char *api)
{
    if (hostPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: hostPtr is null", api);
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: size must be positive", api);
    if (size > LARGEST_REQUEST || opemu_memory_alloc(hostPtr, size, ALIGN_UP(size, 64), 64, -1, OPEMU_MEM_HOST) != 0)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory (%llu bytes)", api,
                          (unsigned long long)size);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size) { return host_malloc(hostPtr, size, "aclrtMallocHost"); }

OPEMU_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    int rc = check_malloc_config(cfg, "aclrtMallocHostWithCfg");
    return rc ? rc : host_malloc(ptr, size, "aclrtMallocHostWithCfg");
}

static aclError release(void *ptr, int kind, const char *api)
{
    if (ptr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: pointer is null", api);
    if (opemu_memory_free(ptr, kind) != 0) {
        opemu_sanitize_bad_free(ptr, api);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %p was not allocated by %s or was freed already", api, ptr,
                          kind == OPEMU_MEM_DEVICE ? "aclrtMalloc" : "aclrtMallocHost");
    }
    return ACL_SUCCESS;
}

/* Large buffers on transparent huge pages where the host allows it on request (THP "madvise" mode),
 * as NumPy does for its own arrays: kernels streaming over device memory then meet the same TLB
 * cost as the NumPy arrays they are compared with (an elementwise op at 16M elements ran ~25%
 * slower on 4 KiB pages). Only whole 2 MiB pages inside the block are advised. */
static void advise_huge_pages(void *p, uint64_t bytes)
{
    const uintptr_t huge = 2u << 20;
    uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1), end = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (bytes >= 2 * huge && end > start)
        madvise((void *)start, end - start, MADV_HUGEPAGE);
}

int opemu_memory_alloc(void **out, size_t size, uint64_t mapped, size_t alignment, int32_t device, int kind)
{
    pthread_mutex_lock(&lock);
    void *p = NULL;
    uint64_t *used = kind == OPEMU_MEM_DEVICE ? used_of(device) : NULL;
    if ((used && mapped > opemu_device_memory_bytes() - *used) || opemu_block_obtain(&p, alignment, mapped, kind) != 0) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    opemu_allocation a = {.start = (uintptr_t)p, .requested = size, .mapped = mapped, .device = device, .kind = kind};
    opemu_sanitize_alloc(&a);
    table_insert(&a);
    if (used) {
        *used += mapped;
        note_peak(device);
    }
    pthread_mutex_unlock(&lock);
    advise_huge_pages(p, mapped);
    *out = p;
    return 0;
}

int opemu_memory_register(void *start, uint64_t size, int32_t device, int borrowed)
{
    pthread_mutex_lock(&lock);
    opemu_allocation a = {.start = (uintptr_t)start, .requested = size, .mapped = size, .device = device,
                          .kind = OPEMU_MEM_DEVICE, .borrowed = borrowed};
    opemu_sanitize_alloc(&a);
    table_insert(&a);
    pthread_mutex_unlock(&lock);
    return 0;
}

void opemu_memory_unregister(void *start)
{
    pthread_mutex_lock(&lock);
    long i = locate((uintptr_t)start);
    if (i >= 0 && table[i].start == (uintptr_t)start && table[i].borrowed) {
        opemu_sanitize_free(&table[i]);
        table_remove((size_t)i);
    }
    pthread_mutex_unlock(&lock);
}

int opemu_memory_charge(int32_t device, int64_t bytes)
{
    pthread_mutex_lock(&lock);
    uint64_t *used = used_of(device);
    int rc = 0;
    if (bytes > 0 && (uint64_t)bytes > opemu_device_memory_bytes() - *used)
        rc = -1;
    else if (bytes < 0 && (uint64_t)-bytes > *used)
        *used = 0; /* the device was reset in between: it gave everything back already */
    else {
        *used += (uint64_t)bytes;
        note_peak(device);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int opemu_memory_free(void *ptr, int kind)
{
    pthread_mutex_lock(&lock);
    long i = locate((uintptr_t)ptr);
    if (i < 0 || table[i].start != (uintptr_t)ptr || table[i].kind != kind || table[i].borrowed) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    if (kind == OPEMU_MEM_DEVICE)
        *used_of(table[i].device) -= table[i].mapped;
    opemu_allocation gone = table[i];
    opemu_sanitize_free(&gone);
    table_remove((size_t)i);
    pthread_mutex_unlock(&lock);
    opemu_block_release(&gone);
    return 0;
}

uint64_t opemu_memory_used(int32_t device)
{
    pthread_mutex_lock(&lock);
    uint64_t used = *used_of(device);
    pthread_mutex_unlock(&lock);
    return used;
}

OPEMU_EXPORT aclError aclrtFree(void *devPtr) { return release(devPtr, OPEMU_MEM_DEVICE, "aclrtFree"); }
OPEMU_EXPORT aclError aclrtFreeHost(void *hostPtr) { return release(hostPtr, OPEMU_MEM_HOST, "aclrtFreeHost"); }

/* aclrtResetDevice gives back everything the device held, as the driver does. */
void opemu_memory_each(void (*fn)(const opemu_allocation *, void *), void *context)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count; i++)
        fn(&table[i], context);
    pthread_mutex_unlock(&lock);
}

void opemu_memory_release_device(int32_t device)
{
    pthread_mutex_lock(&lock);
    for (size_t i = count; i-- > 0;) {
        if (table[i].kind == OPEMU_MEM_DEVICE && table[i].device == device && !table[i].borrowed) {
            opemu_sanitize_free(&table[i]);
            opemu_block_release(&table[i]);
            table_remove(i);
        }
    }
    *used_of(device) = 0;
    pthread_mutex_unlock(&lock);
}

OPEMU_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    if (free_bytes == NULL || total == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free and total must not be null");
    if ((unsigned)attr > ACL_MEM_P2P_HUGE1G)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: invalid attribute %d", (int)attr);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    pthread_mutex_lock(&lock);
    *total = opemu_device_memory_bytes();
    *free_bytes = *total - *used_of(ctx->device);
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* ---- copies and sets ---- */

/* A copy or set of `height` rows of `width` bytes (height 1: a plain one), run now or on a stream. */
typedef struct {
    void *dst;
    const void *src;    /* NULL for a set */
    size_t width;
    size_t height;
    size_t dpitch;
    size_t spitch;
    uint32_t value;     /* a set's value: its low byte (set_width 1) or all 32 bits (set_width 4) */
    int set_width;      /* 0 for a copy */
    int synchronous;    /* the host waits for it: reading data a stream has yet to write is a bug */
} transfer;

/* Where a side of a copy must be device memory, the whole range must lie in one allocation. */
static int device_side(const void *address, size_t count, const char *api, const char *side)
{
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE) {
        opemu_sanitize_missing(address, side);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p is not device memory", api, side, address);
    }
    if (count > a.mapped - ((uintptr_t)address - a.start))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%s: %zu bytes at %s %p run past the end of its device allocation (%llu bytes from %p)",
                          api, count, side, address, (unsigned long long)a.mapped, (void *)a.start);
    return ACL_SUCCESS;
}

/* A host side the runtime allocated (aclrtMallocHost) is bounded by its allocation too. */
/* No process maps memory at or above 2^56 (x86-64 five-level paging, AArch64's 52 bits are lower):
 * a host side there, or one whose end wraps, can only fault. */
#define USER_SPACE_END ((uintptr_t)1 << 56)

static int host_side(const void *address, size_t count, const char *api, const char *side)
{
    if ((uintptr_t)address >= USER_SPACE_END || count > USER_SPACE_END - (uintptr_t)address)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p (%zu bytes) is not a user-space address", api, side,
                          address, count);
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_HOST)
        return ACL_SUCCESS;
    if (count > a.mapped - ((uintptr_t)address - a.start))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%s: %zu bytes at %s %p run past the end of its host allocation (%llu bytes from %p)",
                          api, count, side, address, (unsigned long long)a.mapped, (void *)a.start);
    return ACL_SUCCESS;
}

static int is_device(const void *address)
{
    opemu_allocation a;
    return opemu_memory_find(address, &a) && a.kind == OPEMU_MEM_DEVICE;
}

static int run_transfer(void *payload)
{
    transfer *t = payload;
    for (size_t row = 0; row < t->height; row++) {
        char *dst = (char *)t->dst + row * t->dpitch;
        const char *src = t->src ? (const char *)t->src + row * t->spitch : NULL;
        opemu_sanitize_transfer(dst, src, t->width, src == NULL, t->synchronous);
        if (t->set_width == 1)
            memset(dst, (int)(uint8_t)t->value, t->width);
        else if (t->set_width == 4)
            for (size_t i = 0; i < t->width; i += 4)
                memcpy(dst + i, &t->value, 4);
        else if (dst != src)
            memmove(dst, src, t->width);
    }
    return ACL_SUCCESS;
}

static void drop_transfer(void *payload)
{
    transfer *t = payload;
    opemu_sanitize_pending(t->dst, -1);
    free(t);
}

/* ACL_MEMCPY_DEFAULT: the direction follows the pointers. */
static aclrtMemcpyKind resolve_kind(aclrtMemcpyKind kind, void *dst, const void *src)
{
    if (kind != ACL_MEMCPY_DEFAULT)
        return kind;
    return is_device(src) ? (is_device(dst) ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST)
                          : (is_device(dst) ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_HOST_TO_HOST);
}

/* Both sides of a copy of the given spans: device sides inside one device allocation, host sides
 * the runtime allocated inside theirs. */
static int check_sides(void *dst, size_t dspan, const void *src, size_t sspan, aclrtMemcpyKind kind, const char *api)
{
    int dst_on_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                        kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
    int src_on_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    int rc = dst_on_device ? device_side(dst, dspan, api, "dst") : host_side(dst, dspan, api, "dst");
    if (rc == ACL_SUCCESS)
        rc = src_on_device ? device_side(src, sspan, api, "src") : host_side(src, sspan, api, "src");
    return rc;
}

static aclError check_copy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                           const char *api)
{
    if (dst == NULL || src == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: dst and src must not be null", api);
    if ((unsigned)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: invalid memcpy kind %d", api, (int)kind);
    if (count > destMax)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than destMax %zu", api, count, destMax);
    kind = resolve_kind(kind, dst, src);
    if (opemu_strict()) {
        /* a side the kind calls host memory that is in fact device memory (the reverse is an error) */
        int src_is_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
        int dst_is_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                            kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
        if ((!src_is_device && is_device(src)) || (!dst_is_device && is_device(dst)))
            opemu_finding("memcpy-kind", "%s: kind %d does not match the pointers: src %p is %s memory, dst %p is %s "
                          "memory", api, (int)kind, src, is_device(src) ? "device" : "host", dst,
                          is_device(dst) ? "device" : "host");
    }
    return check_sides(dst, count, src, count, kind, api);
}

OPEMU_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_copy(dst, destMax, src, count, kind, "aclrtMemcpy");
    if (rc)
        return rc;
    transfer t = {.dst = dst, .src = src, .width = count, .height = 1, .synchronous = 1};
    return run_transfer(&t);
}

static aclError submit_transfer(transfer *t, aclrtStream stream)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    transfer *copy = malloc(sizeof *copy);
    *copy = *t;
    opemu_sanitize_pending(copy->dst, +1);
    return opemu_stream_submit(s, run_transfer, drop_transfer, copy);
}

OPEMU_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                       aclrtMemcpyKind kind, aclrtStream stream)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_copy(dst, destMax, src, count, kind, "aclrtMemcpyAsync");
    if (rc)
        return rc;
    transfer t = {.dst = dst, .src = src, .width = count, .height = 1};
    return submit_transfer(&t, stream);
}

static aclError check_set(void *devPtr, size_t maxCount, size_t count, const char *api)
{
    if (devPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is null", api);
    if (count > maxCount)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than maxCount %zu", api, count, maxCount);
    return device_side(devPtr, count, api, "devPtr");
}

/* The driver call is drvMemsetD8: value is applied byte-wise, truncated to its low byte. */
OPEMU_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_set(devPtr, maxCount, count, "aclrtMemset");
    if (rc)
        return rc;
    transfer t = {.dst = devPtr, .width = count, .height = 1, .value = (uint32_t)value, .set_width = 1,
                  .synchronous = 1};
    return run_transfer(&t);
}

OPEMU_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_set(devPtr, maxCount, count, "aclrtMemsetAsync");
    if (rc)
        return rc;
    transfer t = {.dst = devPtr, .width = count, .height = 1, .value = (uint32_t)value, .set_width = 1};
    return submit_transfer(&t, stream);
}

/* The vendor's checks (CheckMemcpy2dParam): nothing to do for a zero width or height; then null
 * pointers, width against both pitches, and a kind among H2D, D2H, D2D and DEFAULT. Each side spans
 * pitch*(height-1)+width bytes, which must not wrap and must fit that side's allocation. */
static aclError check_copy_2d(transfer *t, aclrtMemcpyKind kind, const char *api)
{
    if (t->dst == NULL || t->src == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: dst and src must not be null", api);
    if (t->width > t->dpitch || t->width > t->spitch)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu must not exceed dpitch %zu or spitch %zu", api,
                          t->width, t->dpitch, t->spitch);
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
        kind != ACL_MEMCPY_DEVICE_TO_DEVICE && kind != ACL_MEMCPY_DEFAULT)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: invalid memcpy kind %d", api, (int)kind);
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    size_t dspan, sspan;
    if (__builtin_mul_overflow(t->dpitch, t->height - 1, &dspan) || __builtin_add_overflow(dspan, t->width, &dspan) ||
        __builtin_mul_overflow(t->spitch, t->height - 1, &sspan) || __builtin_add_overflow(sspan, t->width, &sspan))
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: pitch * (height - 1) + width overflows (dpitch %zu, spitch "
                          "%zu, width %zu, height %zu)", api, t->dpitch, t->spitch, t->width, t->height);
    return check_sides(t->dst, dspan, t->src, sspan, resolve_kind(kind, t->dst, t->src), api);
}

OPEMU_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                    size_t height, aclrtMemcpyKind kind)
{
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = dst, .src = src, .width = width, .height = height, .dpitch = dpitch, .spitch = spitch,
                  .synchronous = 1};
    int rc = check_copy_2d(&t, kind, "aclrtMemcpy2d");
    return rc ? rc : run_transfer(&t);
}

OPEMU_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                         size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    int error = 0;
    if (opemu_stream_resolve(stream, &error) == NULL) /* a stale stream is an error even for an empty copy */
        return error;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = dst, .src = src, .width = width, .height = height, .dpitch = dpitch, .spitch = spitch};
    int rc = check_copy_2d(&t, kind, "aclrtMemcpy2dAsync");
    return rc ? rc : submit_transfer(&t, stream);
}

/* The vendor's order: N == 0 succeeds; ptr null, a ptr not 4-byte aligned and N*4 > memSize are
 * invalid parameters; only memory the runtime allocated (device or pinned host) may be set. */
static aclError check_set_d32(transfer *t, size_t memSize, size_t n, const char *api)
{
    if (t->dst == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr is null", api);
    if ((uintptr_t)t->dst % 4 != 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr %p is not 4-byte aligned", api, t->dst);
    if (n > memSize / 4)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: N x 4 (N = %zu) is greater than memSize (%zu)", api, n,
                          memSize);
    opemu_allocation a;
    if (!opemu_memory_find(t->dst, &a))
        return opemu_fail(ACL_ERROR_INVALID_PARAM,
                          "%s: %p is not memory allocated by aclrtMalloc or aclrtMallocHost", api, t->dst);
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    t->width = n * 4;
    return a.kind == OPEMU_MEM_DEVICE ? device_side(t->dst, t->width, api, "ptr")
                                      : host_side(t->dst, t->width, api, "ptr");
}

OPEMU_EXPORT aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    if (N == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = ptr, .height = 1, .value = value, .set_width = 4, .synchronous = 1};
    int rc = check_set_d32(&t, memSize, N, "aclrtMemsetD32");
    return rc ? rc : run_transfer(&t);
}

OPEMU_EXPORT aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N, aclrtStream stream)
{
    if (N == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = ptr, .height = 1, .value = value, .set_width = 4};
    int rc = check_set_d32(&t, memSize, N, "aclrtMemsetD32Async");
    return rc ? rc : submit_transfer(&t, stream);
}
