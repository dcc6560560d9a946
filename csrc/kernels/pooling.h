/* What pooling.c shares with its 3x3/2 walk on AVX-512 (pooling_avx512.c). */
#ifndef OPEMU_KERNELS_POOLING_H
#define OPEMU_KERNELS_POOLING_H

#include <stdint.h>
#include <string.h>

#include "isa.h"

typedef struct opemu_pool_geometry geometry;

#if OPEMU_X86
/* dx of one fp32 plane of 3x3/2 max pooling into `target` (rows `pitch` apart) */
void opemu_pool_walk_avx512(const geometry *g, const float *x, const float *y, const float *dy, float *target,
                            int64_t pitch);
#endif

#endif
