/* What the RNN, CTC-loss, attention, backend-graph and vector-format object files share: mcDNN's failure report, the
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

/* NCHW_VECT_C (vector_formats.c): the channels of one element of dataType (1 for scalar types); BAD_PARAM for a
 * vector type without VECT_C, VECT_C without a vector type or channels not a whole number of vectors; the
 * packed strides of a VECT_C tensor (in vectors); the number of elements of dims[axis] (channels / v on
 * axis 1). */
int opemu_mcdnn_vector_length(int dataType);
mcdnnStatus_t opemu_mcdnn_vect_check(int dataType, int format, int nbDims, const int *dims, const char *api);
mcdnnStatus_t opemu_mcdnn_vect_channels(int dataType, int nbDims, const int *dims, const char *api);
mcdnnStatus_t opemu_mcdnn_vect_strides(int dataType, int nbDims, const int *dims, int *strides, const char *api);
long long opemu_mcdnn_vect_extent(int dataType, int axis, int dim);

#endif
