/* The sanitizer behind `opemu check` (OPEMU_STRICT=1): what the layers above it, and the kernels in
 * Python, report to it. Each call is a no-op unless the sanitizer is on. */
#ifndef OPEMU_SANITIZER_H
#define OPEMU_SANITIZER_H

#include <stdint.h>

/* A device access inside a live allocation: requested-size overruns, reads of bytes never written
 * or with writes still queued on a stream (mode 2: a synchronous read, read before synchronisation);
 * writes (mode 1) mark bytes. */
void opemu_sanitize_access(const void *address, uint64_t nbytes, int write, const char *what);
/* Under OPEMU_STRICT: one more (+1) or one fewer (-1) queued write to the allocation holding `address`;
 * a synchronous host read of it meanwhile is an unsynchronized-read finding. */
void opemu_sanitize_pending(const void *address, int delta);
/* A kernel's gather or scatter at an index outside its tensor (what the hardware does not check):
 * an out-of-bounds finding, `what` saying which access. */
void opemu_sanitize_stray(const char *what);

#ifndef OPEMU_GENERATOR /* C only: what Python does not see */
/* A copy or set as it executes: its source is read (synchronous: the host waits for it), its
 * destination written. */
void opemu_sanitize_transfer(void *dst, const void *src, uint64_t count, int is_set, int synchronous);
/* A free of what no allocator of that kind returned: a double free when it was one. */
void opemu_sanitize_bad_free(const void *ptr, const char *api);
/* An access that found no live device allocation: reported as a use after free when it was one. */
void opemu_sanitize_missing(const void *address, const char *what);
/* Memory and handles never freed, once per process (aclFinalize, exit). */
void opemu_sanitize_leaks(const char *when);
/* Device memory the host may touch (managed memory): never made inaccessible. */
void opemu_block_host_accessible(const void *start);
/* Around work that touches device memory outside any API call (a collective's progress thread
 * moving bytes while no call runs): device memory stays accessible meanwhile, as during a call. */
void opemu_sanitize_work_begins(void);
void opemu_sanitize_work_ends(void);
#endif

#endif
