/* The sanitizer behind `opemu check` (OPEMU_STRICT=1), in the spirit of compute-sanitizer.
 *
 * Without it opemu is as lenient as the hardware (bounds are the allocator's mapped size). With it,
 * each finding is reported with the API call being made (the shims' trace record):
 *   - device accesses past the *requested* size, even inside the allocator's rounding;
 *   - use after free, double free, freeing what no allocator returned;
 *   - reads of device memory never written (fresh allocations are also poisoned with 0xFF bytes);
 *   - host reads of memory a stream has yet to write (read before synchronisation);
 *   - leaks of memory at a device reset (aclrtResetDevice, mcDeviceReset), and of memory and handles
 *     (runtime and mcDNN objects) at aclFinalize and at exit.
 * Other modules add their own findings (executor reuse, memcpy kinds, short workspaces, …).
 * Findings go to OPEMU_CHECK_REPORT (a file, one line each) or stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define GRANULE 64 /* bytes tracked as one written/unwritten unit */
#define GRAVEYARD 4096

struct opemu_shadow {
    uint8_t *written; /* one flag per granule of the mapped range */
    int pending;      /* writes queued on streams, not yet executed */
};

typedef struct {
    uintptr_t start;
    uint64_t size;
} freed_range;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static freed_range graveyard[GRAVEYARD];
static size_t graveyard_next;
static unsigned long findings;
static int leaks_reported;

int opemu_strict(void)
{
    static int strict = -1;
    if (strict < 0) {
        const char *env = getenv("OPEMU_STRICT");
        strict = env && strcmp(env, "1") == 0;
        if (env && *env && !strict && strcmp(env, "0") != 0)
            opemu_setting_refused("OPEMU_STRICT", env, "0 or 1", "0");
    }
    return strict;
}

void opemu_finding(const char *kind, const char *fmt, ...)
{
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    const char *call = opemu_trace_current();
    pthread_mutex_lock(&lock);
    findings++;
    const char *path = getenv("OPEMU_CHECK_REPORT");
    FILE *out = path && *path ? fopen(path, "a") : NULL;
    fprintf(out ? out : stderr, "opemu check: [%s] %s%s%s%s\n", kind, message, call ? " | call: " : "",
            call ? call : "", call ? "}}" : ""); /* the record so far: its arguments, not yet closed */
    if (out)
        fclose(out);
    pthread_mutex_unlock(&lock);
}

void opemu_sanitize_alloc(opemu_allocation *a)
{
    if (!opemu_strict() || a->kind != OPEMU_MEM_DEVICE)
        return;
    memset((void *)a->start, 0xFF, a->mapped); /* NaN in every float type: unwritten data shows */
    a->shadow = calloc(1, sizeof *a->shadow);
    a->shadow->written = calloc(a->mapped / GRANULE + 1, 1);
}

void opemu_sanitize_free(const opemu_allocation *a)
{
    if (!opemu_strict())
        return;
    pthread_mutex_lock(&lock);
    graveyard[graveyard_next++ % GRAVEYARD] = (freed_range){a->start, a->mapped};
    pthread_mutex_unlock(&lock);
    if (a->shadow) {
        free(a->shadow->written);
        free(a->shadow);
    }
}

static int was_freed(uintptr_t address, freed_range *hit)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < GRAVEYARD && i < graveyard_next; i++) {
        size_t k = (graveyard_next - 1 - i) % GRAVEYARD; /* newest first */
        if (address - graveyard[k].start < graveyard[k].size) {
            *hit = graveyard[k];
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void opemu_sanitize_bad_free(const void *ptr, const char *api)
{
    if (!opemu_strict())
        return;
    freed_range hit;
    if (was_freed((uintptr_t)ptr, &hit) && hit.start == (uintptr_t)ptr)
        opemu_finding("double-free", "%s: %p was freed already", api, ptr);
    else
        opemu_finding("invalid-free", "%s: %p was not returned by an allocator of this kind", api, ptr);
}

void opemu_sanitize_missing(const void *address, const char *what)
{
    freed_range hit;
    if (opemu_strict() && was_freed((uintptr_t)address, &hit))
        opemu_finding("use-after-free", "%s at %p lies in the freed allocation %p (%llu bytes)", what, address,
                      (void *)hit.start, (unsigned long long)hit.size);
}

void opemu_sanitize_access(const void *address, uint64_t nbytes, int mode, const char *what)
{
    opemu_allocation a;
    if (!opemu_strict() || nbytes == 0 || !opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE)
        return;
    uint64_t offset = (uintptr_t)address - a.start;
    if (offset + nbytes > a.requested)
        opemu_finding("out-of-bounds", "%s: %llu bytes at %p reach %llu bytes past the %llu requested from the "
                      "allocator (inside its rounding to %llu)", what, (unsigned long long)nbytes, address,
                      (unsigned long long)(offset + nbytes - a.requested), (unsigned long long)a.requested,
                      (unsigned long long)a.mapped);
    if (a.shadow == NULL)
        return;
    uint64_t first = offset / GRANULE, last = (offset + nbytes - 1) / GRANULE;
    if (mode == 1) {
        memset(a.shadow->written + first, 1, last - first + 1);
        return;
    }
    if (mode == 2 && a.shadow->pending > 0) { /* what it reads is stale, written or not */
        opemu_finding("unsynchronized-read", "%s at %p is read while %d write(s) to it wait on a stream: "
                      "synchronise first", what, address, a.shadow->pending);
        return;
    }
    for (uint64_t g = first; g <= last; g++) {
        if (!a.shadow->written[g]) {
            opemu_finding("uninitialized-read", "%s reads device memory at %p never written since its allocation",
                          what, (void *)(a.start + g * GRANULE));
            break;
        }
    }
}

void opemu_sanitize_transfer(void *dst, const void *src, uint64_t count, int is_set, int synchronous)
{
    if (!opemu_strict())
        return;
    opemu_allocation a;
    if (!is_set && dst != src && opemu_memory_find(src, &a) && a.kind == OPEMU_MEM_DEVICE)
        opemu_sanitize_access(src, count, synchronous ? 2 : 0, "the copy's source");
    opemu_sanitize_access(dst, count, 1, is_set ? "the memset's destination" : "the copy's destination");
}

void opemu_sanitize_pending(const void *address, int delta)
{
    opemu_allocation a;
    if (opemu_strict() && opemu_memory_find(address, &a) && a.shadow)
        __atomic_add_fetch(&a.shadow->pending, delta, __ATOMIC_RELAXED);
}

typedef struct {
    unsigned long count;
    uint64_t bytes;
    const char *when;
    int32_t device; /* -1: every allocation */
} leak_tally;

static void tally(const opemu_allocation *a, void *context)
{
    leak_tally *t = context;
    if (t->device >= 0 && (a->kind != OPEMU_MEM_DEVICE || a->device != t->device))
        return;
    t->count++;
    t->bytes += a->requested;
    if (t->count <= 16)
        opemu_finding("leak", "%s memory at %p (%llu bytes) was never freed, at %s",
                      a->kind == OPEMU_MEM_DEVICE ? "device" : "host", (void *)a->start,
                      (unsigned long long)a->requested, t->when);
}

static void report_memory(int32_t device, const char *when)
{
    leak_tally t = {0, 0, when, device};
    opemu_memory_each(tally, &t);
    if (t.count > 16)
        opemu_finding("leak", "%lu allocations (%llu bytes) were never freed, at %s", t.count,
                      (unsigned long long)t.bytes, when);
}

/* Called before a device reset releases what the device holds (aclrtResetDevice, mcDeviceReset):
 * memory the app never freed is a leak there, as compute-sanitizer reports it at cudaDeviceReset. */
void opemu_sanitize_reset(int32_t device, const char *when)
{
    if (opemu_strict())
        report_memory(device, when);
}

void opemu_sanitize_leaks(const char *when)
{
    if (!opemu_strict() || __atomic_exchange_n(&leaks_reported, 1, __ATOMIC_SEQ_CST))
        return;
    report_memory(-1, when);
    static const struct { int kind; const char *name; } kinds[] = {
        {OPEMU_KIND_TENSOR, "aclTensor"}, {OPEMU_KIND_SCALAR, "aclScalar"}, {OPEMU_KIND_INT_ARRAY, "aclIntArray"},
        {OPEMU_KIND_TENSOR_LIST, "aclTensorList"}, {OPEMU_KIND_EXECUTOR, "aclOpExecutor"},
        {OPEMU_KIND_EVENT, "aclrtEvent"}, {OPEMU_KIND_DATA_BUFFER, "aclDataBuffer"},
        {OPEMU_KIND_MCDNN_HANDLE, "mcdnnHandle_t"}, {OPEMU_KIND_MCDNN_TENSOR, "mcdnnTensorDescriptor_t"},
        {OPEMU_KIND_MCDNN_ACTIVATION, "mcdnnActivationDescriptor_t"},
        {OPEMU_KIND_MCDNN_POOLING, "mcdnnPoolingDescriptor_t"}, {OPEMU_KIND_MCDNN_LRN, "mcdnnLRNDescriptor_t"},
        {OPEMU_KIND_MCDNN_DROPOUT, "mcdnnDropoutDescriptor_t"},
        {OPEMU_KIND_MCDNN_SPATIAL_TF, "mcdnnSpatialTransformerDescriptor_t"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = opemu_handle_count(kinds[i].kind);
        if (n)
            opemu_finding("leak", "%zu %s object(s) were never destroyed, at %s", n, kinds[i].name, when);
    }
    /* every context owns one default stream; the rest were created by the app */
    size_t streams = opemu_handle_count(OPEMU_KIND_STREAM) - opemu_handle_count(OPEMU_KIND_CONTEXT);
    if (streams)
        opemu_finding("leak", "%zu stream(s) were never destroyed, at %s", streams, when);
}

__attribute__((destructor)) static void at_exit(void)
{
    opemu_sanitize_leaks("exit");
    if (opemu_strict())
        fprintf(stderr, "opemu check: %lu finding(s)\n", findings);
}
