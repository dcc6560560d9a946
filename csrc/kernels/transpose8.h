/* An 8 x 8 tile of 32-bit elements transposed in AVX2 registers: 32-bit and 64-bit unpacks give each 128-bit
 * lane a column's four rows, and the lanes are swapped into place. Shared by the bf16 panels' packing
 * (bf16_avx2.c) and the widening copy (transpose.c) on the baseline level. */
#ifndef OPEMU_KERNELS_TRANSPOSE8_H
#define OPEMU_KERNELS_TRANSPOSE8_H

#include "isa.h"

#if OPEMU_X86
#include <immintrin.h>

/* r[j] becomes column j of the 8 rows r[0..7] */
OPEMU_TARGET_BASELINE __attribute__((always_inline)) static inline void opemu_transpose8(__m256i r[8])
{
    __m256i t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) { /* u[h + k]: columns k and k + 4 of rows h .. h + 3 */
        u[h] = _mm256_unpacklo_epi64(t[h], t[h + 2]);
        u[h + 1] = _mm256_unpackhi_epi64(t[h], t[h + 2]);
        u[h + 2] = _mm256_unpacklo_epi64(t[h + 1], t[h + 3]);
        u[h + 3] = _mm256_unpackhi_epi64(t[h + 1], t[h + 3]);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x20);
        r[k + 4] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x31);
    }
}
#endif

#endif
