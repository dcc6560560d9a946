/* The device memory registry: every allocation the runtimes made (aclrtMalloc*, mcMalloc*, pools) or
 * registered (mapped virtual ranges, registered host memory), sorted by address, with what each device
 * has in use. Layouts are the allocating runtime's (acl/memory.c, mc/runtime.c); the registry bounds
 * every device access by an allocation's mapped size, which is where hardware would fault.
 *
 * The hooks (core/hooks.h) hear of every allocation that enters or leaves the table: the sanitizer
 * keeps its bookkeeping there. Under OPEMU_STRICT=1 device memory gets pages of its own (mmap, no
 * heap neighbours), which the sanitizer keeps inaccessible while no API call runs. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "acl/acl.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/hooks.h"
#include "core/memory.h"

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
        OPEMU_NOTIFY(missing, address, "a kernel's device access");
        OPEMU_NOTIFY(device_fault, ACL_ERROR_RT_AICORE_EXCEPTION, -1); /* no allocation: the current device's */
        return opemu_fail(ACL_ERROR_RT_AICORE_EXCEPTION,
                          "device access at %p: not inside any live device allocation", address);
    }
    uint64_t offset = (uintptr_t)address - a.start;
    if (nbytes > a.mapped - offset) {
        OPEMU_NOTIFY(device_fault, ACL_ERROR_RT_AICORE_EXCEPTION, a.device);
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

uint64_t opemu_memory_pages(uint64_t bytes)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

static int paged(int kind) { return opemu_strict() && kind == OPEMU_MEM_DEVICE; }

/* The memory behind an allocation the registry owns. */
static int block_obtain(void **out, size_t alignment, uint64_t mapped, int kind)
{
    if (!paged(kind))
        return posix_memalign(out, alignment, mapped);
    void *p = mmap(NULL, opemu_memory_pages(mapped), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return -1;
    *out = p; /* page-aligned: every alignment the allocators ask for */
    return 0;
}

static void block_release(const opemu_allocation *a)
{
    if (paged(a->kind))
        munmap((void *)a->start, opemu_memory_pages(a->mapped));
    else
        free((void *)a->start);
}

int opemu_memory_alloc(void **out, size_t size, uint64_t mapped, size_t alignment, int32_t device, int kind)
{
    pthread_mutex_lock(&lock);
    void *p = NULL;
    uint64_t *used = kind == OPEMU_MEM_DEVICE ? used_of(device) : NULL;
    if ((used && mapped > opemu_device_memory_bytes() - *used) || block_obtain(&p, alignment, mapped, kind) != 0) {
        pthread_mutex_unlock(&lock);
        return -1;
    }
    opemu_allocation a = {.start = (uintptr_t)p, .requested = size, .mapped = mapped, .device = device, .kind = kind};
    OPEMU_NOTIFY(allocated, &a);
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
    OPEMU_NOTIFY(allocated, &a);
    table_insert(&a);
    pthread_mutex_unlock(&lock);
    return 0;
}

void opemu_memory_unregister(void *start)
{
    pthread_mutex_lock(&lock);
    long i = locate((uintptr_t)start);
    if (i >= 0 && table[i].start == (uintptr_t)start && table[i].borrowed) {
        OPEMU_NOTIFY(released, &table[i]);
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
    OPEMU_NOTIFY(released, &gone);
    table_remove((size_t)i);
    pthread_mutex_unlock(&lock);
    block_release(&gone);
    return 0;
}

uint64_t opemu_memory_used(int32_t device)
{
    pthread_mutex_lock(&lock);
    uint64_t used = *used_of(device);
    pthread_mutex_unlock(&lock);
    return used;
}

void opemu_memory_each(void (*fn)(const opemu_allocation *, void *), void *context)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count; i++)
        fn(&table[i], context);
    pthread_mutex_unlock(&lock);
}

/* A device reset gives back everything the device owned, as the driver does. */
void opemu_memory_release_device(int32_t device)
{
    pthread_mutex_lock(&lock);
    for (size_t i = count; i-- > 0;) {
        if (table[i].kind == OPEMU_MEM_DEVICE && table[i].device == device && !table[i].borrowed) {
            OPEMU_NOTIFY(released, &table[i]);
            block_release(&table[i]);
            table_remove(i);
        }
    }
    *used_of(device) = 0;
    pthread_mutex_unlock(&lock);
}
