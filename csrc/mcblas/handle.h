/* The mcBLAS handle, a C object (mcblas.c) Python reads after opemu_handle_is, and the work queue the
 * Python routines submit to, with the functions Python implements for it. */
#ifndef OPEMU_MCBLAS_HANDLE_H
#define OPEMU_MCBLAS_HANDLE_H

#include <stdint.h>
#include "mcblas/mcblas.h"

struct mcblasContext {
    int32_t device;
    int32_t pointerMode;
    int32_t mathMode;
    int32_t atomicsMode;
    mcStream_t stream;    /* NULL: the device's default stream */
    void *workspace;      /* NULL: the default workspace pool */
    uint64_t workspaceSize;
    int32_t smCountTarget; /* 0: all multiprocessors (opemu runs on the host: kept, not used) */
};

/* Queues mcBLAS task `task_id`, run by opemu_py_mcblas_run(task_id), on the handle's stream (or, with
 * handle NULL, on `stream` of the calling thread's current device: the Set/Get Vector/Matrix copies).
 * `wait`: return only when the stream has run it, as for a result written to host memory. Returns
 * the task's status when it ran, 0 when it is queued, -1 (message recorded) when the stream is gone. */
int opemu_mcblas_submit(mcblasHandle_t handle, mcStream_t stream, uint64_t task_id, int wait);
/* Implemented in Python (cffi embedded functions the bridge generates from these declarations). */
int opemu_py_mcblas_run(uint64_t task_id);
void opemu_py_mcblas_drop(uint64_t task_id);

#endif
