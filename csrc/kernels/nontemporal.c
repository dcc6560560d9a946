/* Copies whose stores bypass the caches (nontemporal.h). */
#include "isa.h"
#include "nontemporal.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if OPEMU_X86
#include <immintrin.h>
#endif

/* The whole 64-byte lines of a copy to a line-aligned `to` (at the level in use); returns the bytes copied */
#if OPEMU_X86
__attribute__((target("avx512f"))) static size_t lines_avx512(char *to, const char *from, size_t bytes)
{
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64)
        _mm512_stream_si512((__m512i *)(to + i), _mm512_loadu_si512(from + i));
    return i;
}

OPEMU_TARGET_BASELINE static size_t lines_baseline(char *to, const char *from, size_t bytes)
{
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64) {
        _mm256_stream_si256((__m256i *)(to + i), _mm256_loadu_si256((const __m256i *)(from + i)));
        _mm256_stream_si256((__m256i *)(to + i + 32), _mm256_loadu_si256((const __m256i *)(from + i + 32)));
    }
    return i;
}
#endif

static size_t lines(char *to, const char *from, size_t bytes)
{
#if OPEMU_X86
    if (opemu_isa() >= OPEMU_ISA_AVX512)
        return lines_avx512(to, from, bytes);
    if (opemu_isa() >= OPEMU_ISA_BASELINE)
        return lines_baseline(to, from, bytes);
#endif
    size_t i = 0;
#if defined(__SSE2__)
    for (; i < (bytes & ~(size_t)63); i += 16)
        _mm_stream_si128((__m128i *)(to + i), _mm_loadu_si128((const __m128i *)(from + i)));
#endif
    return i;
}

void opemu_nontemporal_copy(void *to, const void *from, size_t bytes)
{
    char *t = to;
    const char *f = from;
    size_t head = (64 - ((uintptr_t)t & 63)) & 63;
    if (head > bytes)
        head = bytes;
    memcpy(t, f, head);
    size_t done = head + lines(t + head, f + head, bytes - head);
    memcpy(t + done, f + done, bytes - done);
}

void opemu_nontemporal_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
