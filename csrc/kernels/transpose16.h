/* A 16 x 16 tile of 32-bit elements transposed in AVX-512 registers: 32-bit and 64-bit unpacks give each
 * 128-bit lane a column's four rows; two rounds of lane shuffles gather a column's four lanes. Shared by
 * the widening copy (transpose.c), the packing of a transposed operand (chain.c) and bf16 panels
 * (bf16_product.c). */
#ifndef OPEMU_KERNELS_TRANSPOSE16_H
#define OPEMU_KERNELS_TRANSPOSE16_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <stdint.h>

/* out[j] = column j of the 16 rows r[0..15]. */
__attribute__((target("avx512f"), always_inline)) static inline void opemu_transpose16(const __m512i r[16],
                                                                                      __m512i out[16])
{
    __m512i t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int g = 0; g < 4; g++) {   /* u[4k + g]: columns 4L + k (lane L) of rows 4g..4g+3 */
        __m512i a = t[4 * g], b = t[4 * g + 1], c = t[4 * g + 2], d = t[4 * g + 3];
        u[g] = _mm512_unpacklo_epi64(a, c);
        u[4 + g] = _mm512_unpackhi_epi64(a, c);
        u[8 + g] = _mm512_unpacklo_epi64(b, d);
        u[12 + g] = _mm512_unpackhi_epi64(b, d);
    }
    for (int k = 0; k < 4; k++) {
        __m512i p = _mm512_shuffle_i32x4(u[4 * k], u[4 * k + 1], 0x44);
        __m512i q = _mm512_shuffle_i32x4(u[4 * k], u[4 * k + 1], 0xEE);
        __m512i rr = _mm512_shuffle_i32x4(u[4 * k + 2], u[4 * k + 3], 0x44);
        __m512i ss = _mm512_shuffle_i32x4(u[4 * k + 2], u[4 * k + 3], 0xEE);
        out[0 + k] = _mm512_shuffle_i32x4(p, rr, 0x88);
        out[4 + k] = _mm512_shuffle_i32x4(p, rr, 0xDD);
        out[8 + k] = _mm512_shuffle_i32x4(q, ss, 0x88);
        out[12 + k] = _mm512_shuffle_i32x4(q, ss, 0xDD);
    }
}

/* Column j of the 16 rows r[0..15] goes to dst + j * dst_row (16 elements). */
__attribute__((target("avx512f"), always_inline)) static inline void opemu_transpose16_store(const __m512i r[16],
                                                                                            void *dst,
                                                                                            int64_t dst_row)
{
    __m512i out[16];
    uint32_t *to = dst;
    opemu_transpose16(r, out);
    for (int j = 0; j < 16; j++)
        _mm512_storeu_si512(to + j * dst_row, out[j]);
}
#endif

#endif
