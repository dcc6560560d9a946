/* What the embedded Python sees of the C core.
 *
 * The build preprocesses this header (with the public headers it includes) and hands the result
 * to cffi, so every struct layout and function below is declared exactly once, here. Keep it
 * plain C that pycparser understands: no system headers beyond the fixed-width types. */
#ifndef OPEMU_BRIDGE_API_H
#define OPEMU_BRIDGE_API_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "acl/acl.h"
/* Every AscendCL header acl.h does not pull in: their types appear in entry points too. */
#include "acl/acl_dump.h"
#include "acl/acl_platform.h"
#include "acl/acl_prof.h"
#include "acl/acl_rt_memory_soma.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "acl/acl_op_compiler.h"
#include "aclnn/aclnn_base.h"
#include "mcdnn/mcdnn.h"
#include "mcblas/mcblas.h"
#include "kernels/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OPEMU_MAX_DIMS 32

/* An aclTensor: the view (dims, element strides, element offset) over storage at `data`. */
struct aclTensor {
    int32_t dtype;
    int32_t format;
    uint64_t ndim;
    uint64_t storage_ndim;
    int64_t offset;
    void *data;
    int64_t dims[OPEMU_MAX_DIMS];
    int64_t strides[OPEMU_MAX_DIMS];
    int64_t storage_dims[OPEMU_MAX_DIMS];
};

struct aclScalar {
    int32_t dtype;
    uint8_t value[16];
};

struct aclIntArray { uint64_t size; int64_t *data; };
struct aclFloatArray { uint64_t size; float *data; };
struct aclBoolArray { uint64_t size; bool *data; };
struct aclTensorList { uint64_t size; aclTensor **items; };
struct aclScalarList { uint64_t size; aclScalar **items; };

/* Executor states: phase 1 leaves it READY; phase 2 consumes it unless it was made repeatable. */
enum { OPEMU_EXEC_READY = 0, OPEMU_EXEC_LAUNCHED = 1 };

/* The executor keeps its own copies of the tensors phase 1 saw (as the vendor's does), so the
 * app may destroy its aclTensors before phase 2; only addresses may change afterwards. */
struct aclOpExecutor {
    char op[64];
    int32_t state;
    int32_t repeatable;
    uint64_t workspace_size;
    uint64_t n_inputs;
    uint64_t n_outputs;
    aclTensor *inputs;
    aclTensor *outputs;
    uint64_t plan_id;
};

/* Handle liveness: every object an app can hold is registered with its kind. */
enum opemu_kind {
    OPEMU_KIND_NONE = 0,
    OPEMU_KIND_TENSOR = 1,
    OPEMU_KIND_SCALAR = 2,
    OPEMU_KIND_INT_ARRAY = 3,
    OPEMU_KIND_FLOAT_ARRAY = 4,
    OPEMU_KIND_BOOL_ARRAY = 5,
    OPEMU_KIND_TENSOR_LIST = 6,
    OPEMU_KIND_SCALAR_LIST = 7,
    OPEMU_KIND_EXECUTOR = 8,
    OPEMU_KIND_CONTEXT = 9,
    OPEMU_KIND_STREAM = 10,
    OPEMU_KIND_EVENT = 11,
    OPEMU_KIND_DATA_BUFFER = 12,
    OPEMU_KIND_MCDNN_HANDLE = 13,
    OPEMU_KIND_MCDNN_TENSOR = 14,
    OPEMU_KIND_MCDNN_ACTIVATION = 15,
    OPEMU_KIND_MCDNN_POOLING = 16,
    OPEMU_KIND_MCDNN_LRN = 17,
    OPEMU_KIND_MCDNN_DROPOUT = 18,
    OPEMU_KIND_MCDNN_SPATIAL_TF = 19,
    OPEMU_KIND_MCDNN_FILTER = 20,
    OPEMU_KIND_MCDNN_CONVOLUTION = 21,
    OPEMU_KIND_MCDNN_OP_TENSOR = 22,
    OPEMU_KIND_MCDNN_REDUCE_TENSOR = 23,
    OPEMU_KIND_MCDNN_TENSOR_TRANSFORM = 24,
    OPEMU_KIND_MCDNN_ALGORITHM = 25,
    OPEMU_KIND_MCDNN_ALGORITHM_PERF = 26,
    OPEMU_KIND_STREAM_CONFIG = 60,
    OPEMU_KIND_EXCEPTION_INFO = 61,
    OPEMU_KIND_ALLOCATOR_DESC = 62,
    OPEMU_KIND_VIRTUAL_RANGE = 63,
    OPEMU_KIND_MCBLAS_HANDLE = 64, /* apart from the small numbers other families add */
    OPEMU_KIND_PHYSICAL_MEMORY = 65,
    OPEMU_KIND_MC_MEMPOOL = 66
};
int opemu_handle_is(const void *handle, int kind);

/* Errors: records `message` as the thread's recent error (aclGetRecentErrMsg) for status `code`,
 * in the vendor's format, and logs it. */
void opemu_error_message(int code, const char *message);

/* A live aclTensor as int64s: dtype, format, offset, ndim, storage_ndim, dims, strides,
 * storage dims. Returns how many were written, or -1 when `handle` is not a live aclTensor. */
enum { OPEMU_SUMMARY_MAX = 5 + 3 * OPEMU_MAX_DIMS };
int opemu_tensor_summary(const void *handle, int64_t *out);
int64_t opemu_tensor_summaries(const void *const *tensors, int64_t n, int64_t *out);
/* The data addresses of a launch's tensors, inputs then outputs, into `out`: what phase 2 keys its views on. */
void opemu_tensor_addresses(const aclTensor *inputs, uint64_t n_inputs, const aclTensor *outputs, uint64_t n_outputs,
                            uint64_t *out);

/* Executors, driven by the Python side of phase 1. */
aclOpExecutor *opemu_executor_create(const char *op, uint64_t n_inputs, uint64_t n_outputs);
void opemu_executor_set_input(aclOpExecutor *executor, uint64_t index, const aclTensor *tensor);
void opemu_executor_set_output(aclOpExecutor *executor, uint64_t index, const aclTensor *tensor);
void opemu_executor_set_ref(aclOpExecutor *executor, uint64_t input, uint64_t output);
void opemu_executor_fill(aclOpExecutor *executor, int64_t n, const int64_t *sources, const void *const *tensors,
                         int64_t n_twins, const int64_t *twins);
/* A slot holding element `item` of the tensor list at IR index `ir_index` (among the inputs or the
 * outputs); `ir_inputs` is the op's IR input count (for aclSetDynamicTensorAddr). */
void opemu_executor_set_list_item(aclOpExecutor *executor, int is_output, uint64_t slot, uint64_t ir_index,
                                  uint64_t item, uint64_t ir_inputs);
void opemu_executor_discard(aclOpExecutor *executor);
/* After a successful phase 1 in Python: the executor layout of its plan (`plan_id`, pinned by the bridge),
 * for the generated shim to reuse without Python when the same signature comes again (plan_cache.c).
 * sources: per slot, is_output, slot, argument position, list item or -1, IR index; twins: a Ref's input
 * and output slots. Returns 0 when remembered, 1 when the signature already was, -1 when it is not kept. */
int opemu_plan_remember(uint64_t plan_id, const char *op, uint64_t workspace, uint64_t n_inputs, uint64_t n_outputs,
                        uint64_t ir_inputs, int64_t n_sources, const int64_t *sources, int64_t n_twins,
                        const int64_t *twins);

/* Device memory: the bytes [address, address+nbytes) inside one live device allocation's mapped
 * range (where hardware would fault otherwise). Returns 0 when they are, else an aclError. */
int opemu_device_range_check(const void *address, uint64_t nbytes);
/* The live device allocation containing `address`: 1 and its start and mapped size in the two
 * outputs when there is one, else 0. A query only: nothing is reported or recorded. */
int opemu_device_mapping(const void *address, uint64_t *start, uint64_t *mapped);
/* How many allocations have left the table of live memory (freed, unregistered, unmapped, a device reset):
 * while it is unchanged, every range that passed opemu_device_range_check still passes. */
uint64_t opemu_memory_epoch(void);

/* Configuration read once by the C core. */
const char *opemu_soc_name(void);
int opemu_deterministic(void);

/* The embedded interpreter: the directories it imports from (besides its own), and the report
 * of a failed start-up. */
const char *opemu_python_site_dirs(void);
const char *opemu_library_file(void);
void opemu_python_failed(const char *message);

/* Implemented in Python. The build turns every `opemu_py_*` declaration (and every public entry
 * point that C does not define) into a cffi embedded function. */
int opemu_py_execute(aclOpExecutor *executor, aclTensor *inputs, aclTensor *outputs, void *workspace);
void opemu_py_release_plan(uint64_t plan_id);

/* ---- mcDNN ----
 * Descriptors are C objects (csrc/mcdnn.c); Python reads them, after opemu_handle_is, to check and
 * compute. `is_set` is 0 until a Set call succeeded. */
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

/* Dropout descriptor (csrc/mcdnn_norm.c). `dropout` is the probability set by mcdnnSetDropoutDescriptor
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

/* Filter descriptor (csrc/mcdnn_conv.c): dims are always K, C/groups, spatial… whatever the format;
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

/* Op-tensor, reduce-tensor and tensor-transform descriptors (csrc/mcdnn_opdesc.c). */
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
int opemu_py_mcdnn_run(uint64_t task_id);
void opemu_py_mcdnn_drop(uint64_t task_id);

/* ---- mcBLAS ----
 * The handle is a C object (csrc/mcblas.c); Python reads its modes after opemu_handle_is. */
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
int opemu_py_mcblas_run(uint64_t task_id);
void opemu_py_mcblas_drop(uint64_t task_id);

/* ---- collectives (csrc/hccl, python/opemu/collectives) ----
 * The rank-order reduction of `n` inputs of `count` elements (an HcclDataType and HcclReduceOp):
 * out = in[0] op in[1] … op in[n-1], fp16 and bf16 rounded after each step; `out` may be one of the
 * inputs. 0, or -1 with the message recorded. */
int opemu_py_hccl_reduce(int32_t dtype, int32_t op, uint32_t n, void *const *inputs, void *out, uint64_t count);
/* Reads rank table `path` (JSON) for `rank`: the number of ranks, the rank's device, where rank 0
 * serves the rendezvous (host, port) and the nonce every rank derives from the table. An HcclResult
 * (message recorded). */
int opemu_py_hccl_rank_table(const char *path, uint32_t rank, uint32_t *n_ranks, int32_t *device, char *host,
                             uint32_t host_size, uint32_t *port, uint64_t *nonce);

/* ---- the sanitizer (sanitizer.c), for kernels too: OPEMU_STRICT=1, driven by `opemu check` ---- */
int opemu_strict(void);
/* A device access inside a live allocation: requested-size overruns, reads of bytes never written
 * or with writes still queued on a stream (mode 2: a synchronous read, read before synchronisation);
 * writes (mode 1) mark bytes. */
void opemu_sanitize_access(const void *address, uint64_t nbytes, int write, const char *what);
/* Under OPEMU_STRICT: one more (+1) or one fewer (-1) queued write to the allocation holding `address`;
 * a synchronous host read of it meanwhile is an unsynchronized-read finding. */
void opemu_sanitize_pending(const void *address, int delta);
/* A kernel's gather or scatter at an index outside its tensor (what the hardware does not check):
 * an out-of-bounds finding, `what` saying which access. */
void opemu_sanitize_stray(const char *what);

/* Test-only fault injection: 1 when OPEMU_FAULT (a comma-separated list) names `entry`. */
int opemu_fault_at(const char *entry);

#ifdef __cplusplus
}
#endif
#endif
