/* What the RNN, CTC-loss, attention and backend-graph object files share: mcDNN's failure report, the
 * liveness check and the create/destroy pair (../mcdnn_internal.h), and their own helpers. */
#ifndef OPEMU_MCDNN_MORE_H
#define OPEMU_MCDNN_MORE_H

#include "../mcdnn_internal.h"

#define MORE_BAD(...) opemu_mcdnn_fail(MCDNN_STATUS_BAD_PARAM, __VA_ARGS__)
#define MORE_NOT_SUPPORTED(...) opemu_mcdnn_fail(MCDNN_STATUS_NOT_SUPPORTED, __VA_ARGS__)

/* A host copy of n ints (NULL when out of memory or n is 0). */
int32_t *opemu_mcdnn_copy_ints(const int *values, size_t n);
/* The bytes of one element of `type` read from host `value` into `out` (8 bytes); 1 when copied. */
int opemu_mcdnn_copy_fill(uint8_t out[8], int type, const void *value);

#endif
