/* The device memory registry (memory.c): every allocation the runtimes made or registered, by
 * address, with what each device has in use. Every device access is bounded by an allocation's
 * mapped size, which is where hardware would fault. */
#ifndef OPEMU_CORE_MEMORY_H
#define OPEMU_CORE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Device memory: the bytes [address, address+nbytes) inside one live device allocation's mapped
 * range (where hardware would fault otherwise). Returns 0 when they are, else an aclError, after
 * telling the hooks of the fault. */
int opemu_device_range_check(const void *address, uint64_t nbytes);
/* The live device allocation containing `address`: 1 and its start and mapped size in the two
 * outputs when there is one, else 0. A query only: nothing is reported or recorded. */
int opemu_device_mapping(const void *address, uint64_t *start, uint64_t *mapped);
/* How many allocations have left the table of live memory (freed, unregistered, unmapped, a device reset):
 * while it is unchanged, every range that passed opemu_device_range_check still passes. */
uint64_t opemu_memory_epoch(void);

#ifndef OPEMU_GENERATOR /* C only: what Python does not see */
enum { OPEMU_MEM_DEVICE = 1, OPEMU_MEM_HOST = 2 };
typedef struct opemu_shadow opemu_shadow;
typedef struct opemu_allocation {
    uintptr_t start;
    uint64_t requested;
    uint64_t mapped;
    int32_t device;
    int32_t kind;
    opemu_shadow *shadow; /* the sanitizer's bookkeeping (OPEMU_STRICT=1), else NULL */
    int32_t borrowed;     /* memory the registry does not own: an OPEMU_BORROWED_* source, else 0 */
} opemu_allocation;

/* Copies the live allocation containing `address` into *out; returns 1 when found. */
int opemu_memory_find(const void *address, opemu_allocation *out);
/* Registers `mapped` bytes (start aligned to `alignment`) as an allocation of `kind` on `device`
 * (-1 for host memory); 0, or -1 when the device's memory is exhausted. */
int opemu_memory_alloc(void **out, size_t size, uint64_t mapped, size_t alignment, int32_t device, int kind);
/* Releases the allocation of `kind` starting at ptr; 0, or -1 when ptr is no such allocation's start. */
int opemu_memory_free(void *ptr, int kind);
uint64_t opemu_memory_used(int32_t device);
uint64_t opemu_memory_peak(int32_t device);
/* Registers memory someone else owns (a mapped virtual range) as device memory of `device`, so
 * kernels and copies accept it; unregistering forgets it without freeing. */
enum { OPEMU_BORROWED_MAPPING = 1 /* aclrtMapMem */, OPEMU_BORROWED_HOST = 2 /* aclrtHostRegister */ };
int opemu_memory_register(void *start, uint64_t size, int32_t device, int borrowed);
void opemu_memory_unregister(void *start);
/* Counts `bytes` (negative: gives back) against the device's memory; -1 when it does not fit. */
int opemu_memory_charge(int32_t device, int64_t bytes);
/* Calls `fn` on every live allocation (under the registry lock: `fn` must not call back in). */
void opemu_memory_each(void (*fn)(const opemu_allocation *, void *), void *context);
/* Forgets (and frees) what `device` owns: its device reset. */
void opemu_memory_release_device(int32_t device);
/* Bytes of whole pages covering `bytes`: the span of a device allocation under the sanitizer, which
 * gives each one pages of its own. */
uint64_t opemu_memory_pages(uint64_t bytes);
#endif

#endif
