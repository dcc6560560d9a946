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
 *   - host dereferences of device memory: device allocations get pages of their own, inaccessible
 *     while no API call is running, and the fault is reported before the process dies of it;
 * Other modules add their own findings (executor reuse, memcpy kinds, short workspaces, …).
 * Findings go to OPEMU_CHECK_REPORT (a file, one line each) or stderr.
 *
 * The sanitizer observes: core's hooks tell it of allocations, resets and findings, the trace of
 * every API call; nothing below it calls it by name. */
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <pthread.h>
#include "core/config.h"
#include "core/handles.h"
#include "core/hooks.h"
#include "core/memory.h"
#include "sanitizer/sanitizer.h"
#include "trace/trace.h"

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

/* Libraries whose frames are not the app's: opemu itself, the interpreter it embeds, the C and C++
 * runtimes and the loader. */
static int foreign_frame(const char *module)
{
    static const char *const skipped[] = {"libopemu", "libpython", "libffi", "_cffi_backend", "/libc.so",
                                          "/libc-", "libstdc++", "ld-linux", "libgcc_s"};
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
        if (strstr(module, skipped[i]))
            return 1;
    return 0;
}

/* " | at: module@0xaddress;…": the app's frames (up to 6, innermost first) that led to the finding,
 * each as addr2line wants it (an offset in a position-independent object, the address in an ET_EXEC
 * one; one byte back from the return address, inside the call). `opemu check` turns them into
 * function and source line. Empty when no frame is the app's (a finding on a stream's thread). */
static void app_frames(char *text, size_t size)
{
    void *frames[48];
    int n = backtrace(frames, 48), kept = 0;
    size_t used = 0;
    text[0] = 0;
    for (int i = 1; i < n && kept < 6; i++) {
        Dl_info info;
        if (!dladdr(frames[i], &info) || info.dli_fname == NULL || foreign_frame(info.dli_fname))
            continue;
        const ElfW(Ehdr) *header = info.dli_fbase;
        uintptr_t address = (uintptr_t)frames[i] - 1;
        if (header->e_type != ET_EXEC)
            address -= (uintptr_t)info.dli_fbase;
        int w = snprintf(text + used, size - used, "%s%s@0x%lx", kept ? ";" : " | at: ", info.dli_fname,
                         (unsigned long)address);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
        kept++;
    }
}

static void report(const char *kind, const char *message)
{
    const char *call = opemu_trace_current();
    char frames[2048];
    app_frames(frames, sizeof frames);
    pthread_mutex_lock(&lock);
    findings++;
    const char *path = getenv("OPEMU_CHECK_REPORT");
    FILE *out = path && *path ? fopen(path, "a") : NULL;
    fprintf(out ? out : stderr, "opemu check: [%s] %s%s%s%s%s\n", kind, message, frames, call ? " | call: " : "",
            call ? call : "", call ? "}}" : ""); /* the record so far: its arguments, not yet closed */
    if (out)
        fclose(out);
    pthread_mutex_unlock(&lock);
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

void opemu_sanitize_stray(const char *what)
{
    if (opemu_strict())
        opemu_finding("out-of-bounds", "%s", what);
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

/* Before a device reset releases what the device holds (aclrtResetDevice, mcDeviceReset): memory
 * the app never freed is a leak there, as compute-sanitizer reports it at cudaDeviceReset. */
static void device_reset(int32_t device, const char *when)
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

/* ---- host accesses to device memory ----
 * On the device a host dereference of a device pointer faults. Under the sanitizer device memory
 * is mmap'ed (whole pages, no heap neighbours) and kept PROT_NONE while no API call runs. Opening
 * every allocation around every call measured 4 us per allocation per call (15 ms a call with
 * 1000 allocations), so access is opened on demand instead: a fault in device memory while a call
 * runs opens that allocation (one mprotect), and the last call to finish closes what was opened.
 * A call that touches no device memory pays nothing. A fault while no call runs is the host
 * dereferencing device memory: it is reported, then the process dies of it as on hardware. */
typedef struct {
    uintptr_t start;
    uint64_t length;
} open_block;

static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int calls_running;
static open_block *opened;
static size_t opened_count, opened_capacity;
static struct sigaction previous_segv;

/* Under guard_lock. */
static void remember_open(uintptr_t start, uint64_t length)
{
    if (opened_count == opened_capacity) {
        size_t capacity = opened_capacity ? 2 * opened_capacity : 64;
        open_block *grown = realloc(opened, capacity * sizeof *grown);
        if (grown == NULL)
            return;
        opened = grown;
        opened_capacity = capacity;
    }
    opened[opened_count++] = (open_block){start, length};
}

static void on_segv(int signo, siginfo_t *info, void *context)
{
    opemu_allocation a;
    if (opemu_memory_find(info->si_addr, &a) && a.kind == OPEMU_MEM_DEVICE) {
        pthread_mutex_lock(&guard_lock);
        int inside_a_call = calls_running > 0;
        if (inside_a_call && mprotect((void *)a.start, opemu_memory_pages(a.mapped), PROT_READ | PROT_WRITE) == 0)
            remember_open(a.start, opemu_memory_pages(a.mapped));
        pthread_mutex_unlock(&guard_lock);
        if (inside_a_call)
            return; /* the access runs again, now allowed */
        opemu_finding("host-access", "the host dereferenced device memory at %p (allocation %p, %llu bytes) outside "
                      "any API call: on the device this faults, and so does this process", info->si_addr,
                      (void *)a.start, (unsigned long long)a.requested);
    }
    /* the fault repeats when the handler returns: under the previous handler, or the default one */
    sigaction(SIGSEGV, &previous_segv, NULL);
    (void)signo;
    (void)context;
}

static void install_segv_handler(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previous_segv);
}

/* A device allocation on pages of its own (core/memory.c): open while the allocating call runs,
 * closed when calls end. */
static void guard(uintptr_t start, uint64_t mapped)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_segv_handler);
    pthread_mutex_lock(&guard_lock);
    remember_open(start, opemu_memory_pages(mapped));
    pthread_mutex_unlock(&guard_lock);
}

/* Forgets an allocation about to be unmapped, or a later mapping at the same address would be closed. */
static void unguard(uintptr_t start)
{
    pthread_mutex_lock(&guard_lock);
    for (size_t i = 0; i < opened_count; i++)
        if (opened[i].start == start)
            opened[i--] = opened[--opened_count];
    pthread_mutex_unlock(&guard_lock);
}

void opemu_block_host_accessible(const void *start)
{
    if (opemu_strict())
        unguard((uintptr_t)start); /* out of the list the last call closes: never protected */
}

static void call_begins(void)
{
    if (opemu_strict())
        __atomic_add_fetch(&calls_running, 1, __ATOMIC_SEQ_CST);
}

static void call_ends(const opemu_trace *t, long long status)
{
    if (!opemu_strict())
        return;
    pthread_mutex_lock(&guard_lock);
    if (__atomic_sub_fetch(&calls_running, 1, __ATOMIC_SEQ_CST) == 0) {
        for (size_t i = 0; i < opened_count; i++)
            mprotect((void *)opened[i].start, opened[i].length, PROT_NONE);
        opened_count = 0;
    }
    pthread_mutex_unlock(&guard_lock);
}

void opemu_sanitize_work_begins(void) { call_begins(); }
void opemu_sanitize_work_ends(void) { call_ends(NULL, 0); }

/* ---- what core's hooks and the trace tell the sanitizer ---- */

static void allocated(opemu_allocation *a)
{
    if (!opemu_strict() || a->kind != OPEMU_MEM_DEVICE)
        return;
    memset((void *)a->start, 0xFF, a->mapped); /* NaN in every float type: unwritten data shows */
    a->shadow = calloc(1, sizeof *a->shadow);
    a->shadow->written = calloc(a->mapped / GRANULE + 1, 1);
    if (!a->borrowed)
        guard(a->start, a->mapped);
}

static void released(const opemu_allocation *a)
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
    if (a->kind == OPEMU_MEM_DEVICE && !a->borrowed)
        unguard(a->start);
}

__attribute__((constructor)) static void observe(void)
{
    static const opemu_hooks hooks = {.allocated = allocated, .released = released,
                                      .missing = opemu_sanitize_missing, .device_reset = device_reset,
                                      .finding = report};
    opemu_hooks_register(&hooks);
    static const opemu_call_listener calls = {.begin = call_begins, .end = call_ends};
    if (opemu_strict()) {
        opemu_trace_listen(&calls);
        void *warm[1];
        backtrace(warm, 1); /* loads the unwinder now: a finding reported from a fault handler must not */
    }
}

__attribute__((destructor)) static void at_exit(void)
{
    opemu_sanitize_leaks("exit");
    if (opemu_strict())
        fprintf(stderr, "opemu check: %lu finding(s)\n", findings);
}
