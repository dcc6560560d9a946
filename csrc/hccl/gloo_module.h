/* The Gloo transport lives in a module of its own (libopemu_gloo.so, built when libgloo-dev is
 * found), loaded on first use. Gloo reports failures as C++ exceptions, and those do not unwind
 * through libopemu.so when programs load it as the filtee of a vendor library name; in a module
 * loaded with dlopen they are thrown and caught without leaving it. The module reaches the core
 * only through this table. */
#ifndef OPEMU_HCCL_GLOO_MODULE_H
#define OPEMU_HCCL_GLOO_MODULE_H

#include "hccl_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double (*now)(void);
    HcclResult (*fail)(HcclResult code, const char *fmt, ...);
    void (*local_address)(char *ip, size_t size);
    HcclResult (*store_set)(const hccl_root_address *root, uint64_t session, const char *key, const void *value,
                            uint32_t size);
    HcclResult (*store_get)(const hccl_root_address *root, uint64_t session, const char *key, void *value,
                            uint32_t capacity, uint32_t *size, double deadline);
    void (*op_finish)(hccl_op *op, HcclResult code, const char *message);
    HcclResult (*reduce)(int32_t dtype, int32_t op, uint32_t n, char *const *inputs, char *out, uint64_t count);
    int (*signatures_differ)(const hccl_signature *a, uint32_t rank_a, const hccl_signature *b, uint32_t rank_b,
                             char *message, size_t size);
    const char *(*cmd_name)(int32_t cmd);
    const char *(*dtype_name)(int32_t dtype);
    uint32_t (*dtype_size)(int32_t dtype);
    int (*overlap)(const char *a, uint64_t a_bytes, const char *b, uint64_t b_bytes);
    hccl_worker *(*worker_start)(hccl_rank *rank, hccl_work_fn run, void *state, void (*broke)(void *state));
    void (*worker_submit)(hccl_worker *worker, hccl_op *op);
    void (*worker_stop)(hccl_worker *worker);
} hccl_gloo_services;

typedef struct {
    HcclResult (*join)(hccl_rank *rank, double deadline);
    void (*submit)(hccl_rank *rank, hccl_op *op);
    void (*leave)(hccl_rank *rank);
} hccl_gloo_module;

/* The module's one export: its entry points, given the core's services. */
typedef const hccl_gloo_module *(*hccl_gloo_entry)(const hccl_gloo_services *services);
#define HCCL_GLOO_ENTRY "opemu_gloo_module"
/* The module's entry point, found once (gloo_loader.c); NULL when there is none, *reason saying why. */
hccl_gloo_entry hccl_gloo_entry_point(const char **reason);

#ifdef __cplusplus
}
#endif
#endif
