/* What the mcDNN files share: the failure report, the liveness check and the create/destroy pair every
 * descriptor kind uses (objects.c), the tensor descriptors' liveness check (mcdnn.c), and the helpers of the
 * RNN, CTC-loss, attention, backend-graph and vector-format objects. */
#ifndef OPEMU_MCDNN_INTERNAL_H
#define OPEMU_MCDNN_INTERNAL_H

#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/stream.h"
#include "mc/mc.h"
#include "mcdnn/adv_descriptors.h"
#include "mcdnn/descriptors.h"

/* Records `fmt` as the message of `status` and returns it. */
mcdnnStatus_t opemu_mcdnn_fail(mcdnnStatus_t status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `object` when it is a live object of `kind`, else NULL after recording BAD_PARAM naming `type`. */
void *opemu_mcdnn_live(const void *object, int kind, const char *type, const char *api);
/* A zeroed object of `size` bytes registered as `kind` in *out (BAD_PARAM when out is NULL). */
mcdnnStatus_t opemu_mcdnn_create(void **out, size_t size, int kind, const char *api);
/* Destroys a live object of `kind`; NULL is a no-op, as in cuDNN. */
mcdnnStatus_t opemu_mcdnn_destroy(void *object, int kind, const char *type, const char *api);
/* Bytes per element of `type`, 0 for a value that is not a storage type. */
int opemu_mcdnn_element_size(int type);
/* `desc` when it is a live tensor descriptor, else NULL after recording BAD_PARAM (mcdnn.c). */
struct mcdnnTensorStruct *opemu_mcdnn_live_tensor(const void *desc, const char *api);

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
