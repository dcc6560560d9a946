/* The mcDNN objects Python reads, after opemu_handle_is, to check and compute: the descriptors are
 * C objects (mcdnn.c, activation.c, pooling.c, lrn.c, norm.c, conv.c, opdesc.c); `is_set` is 0 until
 * a Set call succeeded. And the work queue the Python routines submit to, with the functions Python
 * implements for it. */
#ifndef OPEMU_MCDNN_DESCRIPTORS_H
#define OPEMU_MCDNN_DESCRIPTORS_H

#include <stdint.h>
#include "mcdnn/mcdnn.h"

struct mcdnnTensorStruct {
    int32_t is_set;
    int32_t dataType;
    int32_t nbDims;
    int32_t dimA[MCDNN_DIM_MAX];
    int32_t strideA[MCDNN_DIM_MAX]; /* in elements */
};

struct mcdnnActivationStruct {
    int32_t is_set;
    int32_t mode;
    int32_t reluNanOpt;
    double coef;
    double swishBeta;
};

struct mcdnnPoolingStruct {
    int32_t is_set;
    int32_t mode;
    int32_t maxpoolingNanOpt;
    int32_t nbDims; /* spatial dimensions */
    int32_t windowDimA[MCDNN_DIM_MAX];
    int32_t paddingA[MCDNN_DIM_MAX];
    int32_t strideA[MCDNN_DIM_MAX];
};

struct mcdnnLRNStruct {
    uint32_t lrnN;
    double lrnAlpha;
    double lrnBeta;
    double lrnK;
};

/* Dropout descriptor (norm.c). `dropout` is the probability set by mcdnnSetDropoutDescriptor
 * (or restored); `states` the device buffer of the RNG states, recorded by a Set or Restore that was
 * given a non-NULL buffer (`has_states`); opemu's states are `seed` and a Philox counter. */
struct mcdnnDropoutStruct {
    int32_t is_set;
    int32_t has_states;
    float dropout;
    void *states;
    uint64_t stateSizeInBytes;
    uint64_t seed;
};

/* Spatial transformer descriptor: the transformed (output) tensor's dims. */
struct mcdnnSpatialTransformerStruct {
    int32_t is_set;
    int32_t samplerType;
    int32_t dataType;
    int32_t nbDims;
    int32_t dimA[MCDNN_DIM_MAX];
};

/* Filter descriptor (conv.c): dims are always K, C/groups, spatial… whatever the format;
 * `format` says how they are laid out (NCHW: KCRS, NHWC: KRSC), packed. */
struct mcdnnFilterStruct {
    int32_t is_set;
    int32_t dataType;
    int32_t format;
    int32_t nbDims;
    int32_t dimA[MCDNN_DIM_MAX];
};

/* Convolution descriptor: `arrayLength` spatial dimensions; a new one has math type DEFAULT, one group,
 * reorder type DEFAULT. */
struct mcdnnConvolutionStruct {
    int32_t is_set;
    int32_t mode;
    int32_t computeType;
    int32_t mathType;
    int32_t groupCount;
    int32_t reorderType;
    int32_t arrayLength;
    int32_t padA[MCDNN_DIM_MAX];
    int32_t strideA[MCDNN_DIM_MAX];
    int32_t dilationA[MCDNN_DIM_MAX];
};

/* Op-tensor, reduce-tensor and tensor-transform descriptors (opdesc.c). */
struct mcdnnOpTensorStruct {
    int32_t is_set;
    int32_t op;
    int32_t compType;
    int32_t nanOpt;
};

struct mcdnnReduceTensorStruct {
    int32_t is_set;
    int32_t op;
    int32_t compType;
    int32_t nanOpt;
    int32_t indices;
    int32_t indicesType;
};

struct mcdnnTensorTransformStruct {
    int32_t is_set;
    int32_t nbDims;
    int32_t destFormat;
    int32_t direction;
    int32_t padBeforeA[MCDNN_DIM_MAX];
    int32_t padAfterA[MCDNN_DIM_MAX];
    uint32_t foldA[MCDNN_DIM_MAX];
};

/* Bytes of dropout RNG states, and of the reserve space (the keep mask, one bit per element) for a
 * tensor of `elements` elements: what mcdnnDropoutGetStatesSize / GetReserveSpaceSize answer. */
uint64_t opemu_mcdnn_dropout_states_size(void);
uint64_t opemu_mcdnn_dropout_reserve_size(uint64_t elements);

/* Queues mcDNN task `task_id` on the handle's stream: opemu_py_mcdnn_run(task_id) runs it, now (eager;
 * its status is returned) or at the next synchronisation (deferred; 0 is returned), and
 * opemu_py_mcdnn_drop(task_id) forgets a task discarded unrun. -1 (message recorded) when the handle's
 * stream is no longer live. */
int opemu_mcdnn_submit(mcdnnHandle_t handle, uint64_t task_id);
/* Implemented in Python (cffi embedded functions the bridge generates from these declarations). */
int opemu_py_mcdnn_run(uint64_t task_id);
void opemu_py_mcdnn_drop(uint64_t task_id);

#endif
