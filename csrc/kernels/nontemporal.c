/* Copies whose stores bypass the caches (nontemporal.h). */
#include "nontemporal.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* The whole 64-byte lines of a copy to a line-aligned `to`; returns the bytes copied */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static size_t lines_avx512(char *to, const char *from, size_t bytes)
{
    size_t i = 0;
    for (; i + 64 <= bytes; i += 64)
        _mm512_stream_si512((__m512i *)(to + i), _mm512_loadu_si512(from + i));
    return i;
}
#endif

static size_t lines(char *to, const char *from, size_t bytes)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f"))
        return lines_avx512(to, from, bytes);
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
