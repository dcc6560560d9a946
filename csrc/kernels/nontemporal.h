/* Copies into outputs far larger than the caches, by stores that bypass them: the output then costs its
 * write, not also the read of each line that a cached store fetches first (csrc/kernels/nontemporal.c). */
#ifndef OPEMU_KERNELS_NONTEMPORAL_H
#define OPEMU_KERNELS_NONTEMPORAL_H

#include <stddef.h>

/* to[0..bytes) = from[0..bytes): plain stores up to to's next cache line and after its last whole one,
 * non-temporal ones between (a line at a time with AVX-512, half a line with AVX2, else 16 bytes: the 16-byte
 * stores cost softmax backward a tenth of its time on an EPYC with AVX-512) */
void opemu_nontemporal_copy(void *to, const void *from, size_t bytes);
/* orders the non-temporal stores before what follows (another thread may read the output next) */
void opemu_nontemporal_fence(void);

#endif
