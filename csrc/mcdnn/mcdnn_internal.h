/* What the mcDNN files share: the failure report, the liveness check and the create/destroy pair every
 * descriptor kind uses (objects.c), and the tensor descriptors' liveness check (mcdnn.c). */
#ifndef OPEMU_MCDNN_INTERNAL_H
#define OPEMU_MCDNN_INTERNAL_H

#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/stream.h"
#include "mc/mc.h"
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

#endif
