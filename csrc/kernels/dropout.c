/* Dropout backward (python/opemu/ops/mcdnn/dropout.py _scaled is the reference): dx = dy * scale where the
 * reserve space's bit says kept, +0 elsewhere, in one pass instead of unpacking the bits, copying, scaling
 * and masking. Bits are NumPy's packbits order: element i is bit 7 - i % 8 of byte i / 8. */
#include <string.h>

#include "kernels.h"

/* Branch-free (the bits are random): the product's bit pattern ANDed with all ones or all zeros. */
#define DEFINE_DROPOUT(name, type, bits_type)                                                   \
    static void name(const type *dy, const uint8_t *bits, type scale, type *dx, int64_t lo, int64_t hi) \
    {                                                                                           \
        for (int64_t i = lo; i < hi; i++) {                                                     \
            type product = dy[i] * scale;                                                       \
            bits_type pattern, keep = (bits_type)0 - (bits_type)((bits[i >> 3] >> (7 - (i & 7))) & 1); \
            memcpy(&pattern, &product, sizeof pattern);                                         \
            pattern &= keep;                                                                    \
            memcpy(&dx[i], &pattern, sizeof pattern);                                           \
        }                                                                                       \
    }

DEFINE_DROPOUT(dropout_float, float, uint32_t)
DEFINE_DROPOUT(dropout_double, double, uint64_t)

int opemu_kernel_dropout_backward(int size, const void *dy, const uint8_t *bits, double scale, void *dx, int64_t lo,
                                  int64_t hi)
{
    if (size == 4)
        dropout_float(dy, bits, (float)scale, dx, lo, hi);
    else if (size == 8)
        dropout_double(dy, bits, scale, dx, lo, hi);
    else
        return -1;
    return 0;
}
