/* The collective core shared by HCCL and MCCL: communicators, operations as stream tasks, the
 * rendezvous, and the transports (in-process, shared memory, Gloo) that move the bytes.
 *
 * The only door into the rest of opemu: every other file of this folder includes this header and
 * nothing else of csrc/. What they use below: devices and contexts, the device memory registry,
 * streams (tasks that finish later), errors and the log, the handle table and the embedded
 * interpreter (for the rank-order reductions and the rank-table reader). */
#ifndef OPEMU_HCCL_INTERNAL_H
#define OPEMU_HCCL_INTERNAL_H

#include <pthread.h>
#include "acl/diagnostics.h"
#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/memory.h"
#include "core/stream.h"
#include "hccl/hccl.h"
#include "hccl/python.h"
#include "mc/mc.h"
#include "sanitizer/sanitizer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The handle-table kind of an HcclComm (beside the kinds core/handles.h lists). */
enum { HCCL_KIND_COMM = 80 };

typedef enum { HCCL_INPROC = 1, HCCL_SHM = 2, HCCL_GLOO = 3 } hccl_transport_kind;
const char *hccl_transport_name(hccl_transport_kind kind);

/* ---- settings and status (status.c) ---- */
/* Seconds a rank waits for the others at creation: OPEMU_HCCL_CONNECT_TIMEOUT, else
 * HCCL_CONNECT_TIMEOUT (120..7200) plus the vendor's 20 s; -1 (message recorded) when invalid. */
double hccl_connect_timeout(void);
/* Seconds an operation waits for its peers (0: for ever): OPEMU_HCCL_EXEC_TIMEOUT, else the
 * configuration's hcclExecTimeOut (`configured`, negative when unset), else HCCL_EXEC_TIMEOUT
 * (default 1836); aclrtSetOpWaitTimeout bounds it. */
double hccl_exec_timeout(int32_t configured);
double hccl_now(void); /* seconds, monotonic */
/* Records the message the vendor's log would carry and returns `code`. */
HcclResult hccl_fail(HcclResult code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An argument check that failed the EI0003 way: "In api, value [value] for parameter [name] is invalid". */
HcclResult hccl_bad_argument(HcclResult code, const char *api, const char *value, const char *parameter,
                             const char *expected);
const char *hccl_dtype_name(int32_t dtype); /* the vendor's: "float32", …; NULL when not a data type */
const char *hccl_op_name(int32_t op);
const char *hccl_cmd_name(int32_t cmd);
/* Bytes per element, 0 for a value that is no HcclDataType. */
uint32_t hccl_dtype_size(int32_t dtype);
/* The vendor's checks: count, data type (reducing or moving), reduction for the type. */
HcclResult hccl_check_count(const char *api, uint64_t count);
HcclResult hccl_check_dtype(const char *api, int32_t dtype, int reduces);
HcclResult hccl_check_op(const char *api, int32_t dtype, int32_t op);
/* The runtime status a failed collective leaves on its stream, for an HcclResult. */
int hccl_stream_status(HcclResult code);

/* ---- operations ---- */
typedef struct {
    char *ptr;
    uint64_t bytes;
} hccl_block;

/* What every rank of a collective must agree on; `digest` covers the count arrays that must be
 * equal on every rank (the V forms). */
typedef struct {
    uint64_t seq;
    int32_t cmd; /* HcclCMDType */
    int32_t dtype;
    int32_t op;
    uint32_t root;
    uint64_t count;
    uint64_t digest;
} hccl_signature;

/* A step a transport executes on every rank at once. ALLTOALL: send[p] goes to peer p, landing at
 * p's recv[me] (the sizes must agree). REDUCE_SCATTER: every rank's send[p] (counts[p] elements)
 * is reduced in rank order into p's recv[0]. */
typedef enum { HCCL_STEP_ALLTOALL = 1, HCCL_STEP_REDUCE_SCATTER = 2 } hccl_step_kind;
typedef struct {
    hccl_step_kind kind;
    hccl_block *send;  /* [size] */
    hccl_block *recv;  /* [size], or [1] for a reduce-scatter */
    uint64_t *counts;  /* [size], reduce-scatter */
    int32_t dtype;
    int32_t op;
} hccl_step;

/* A point-to-point transfer of a send/receive batch. */
typedef struct {
    int is_send;
    uint32_t peer;
    char *ptr;
    uint64_t bytes;
    int32_t dtype;
    uint64_t count;
    int done;
} hccl_p2p;

typedef struct hccl_rank hccl_rank;

/* One rank's part of an operation, from its issue to its completion. */
typedef struct hccl_op {
    hccl_signature sig;
    const char *api;
    int n_steps;
    hccl_step steps[2];
    uint32_t n_p2p; /* > 0: a point-to-point batch (sig.cmd HCCL_CMD_BATCH_SEND_RECV, SEND or RECEIVE) */
    hccl_p2p *p2p;
    uint32_t p2p_left;
    hccl_rank *rank;
    opemu_stream *stream;
    double deadline; /* hccl_now() past which it fails (0: none), set when it starts */
    struct hccl_op *next;
    /* memory the op owns, freed with it */
    void *owned[8];
    int n_owned;
} hccl_op;

/* Allocations an op keeps until it is freed; NULL (and nothing kept) when out of memory. */
void *hccl_op_alloc(hccl_op *op, size_t bytes);
hccl_op *hccl_op_new(hccl_rank *rank, const char *api, int32_t cmd);
void hccl_op_free(hccl_op *op);
/* Ends the op: success, or `code` with its message, for the stream (the status it reports at its
 * next synchronisation) and the communicator (HcclGetCommAsyncError). Frees the op. */
void hccl_op_finish(hccl_op *op, HcclResult code, const char *message);
/* The same failure for every op of `ops` (n of them; NULL entries skipped). */
void hccl_ops_fail(hccl_op **ops, uint32_t n, HcclResult code, const char *message);
/* Queues the op on its stream (or the thread's open group); returns what the HCCL call returns. */
HcclResult hccl_op_enqueue(hccl_op *op);
/* The thread's group (HcclGroupStart/End, mcclGroupStart/End). */
HcclResult hccl_group_start(void);
HcclResult hccl_group_end(void);
int hccl_group_open(void);
/* "" when every rank's signature matches `ops[0]`'s, else a message naming both sides. */
int hccl_signatures_differ(const hccl_signature *a, uint32_t rank_a, const hccl_signature *b, uint32_t rank_b,
                           char *message, size_t size);
/* The rank-order reduction (fp16/bf16 rounded after each add): out = in[0] op in[1] … op in[n-1]. */
HcclResult hccl_reduce(int32_t dtype, int32_t op, uint32_t n, char *const *inputs, char *out, uint64_t count);
/* FNV-1a over the bytes (from `seed`, 0 for the standard start): digests of count arrays every rank
 * must pass equal, and of the ids of sub-communicators. */
uint64_t hccl_digest(uint64_t seed, const void *data, size_t bytes);
/* Whether two byte ranges overlap. */
int hccl_overlap(const char *a, uint64_t a_bytes, const char *b, uint64_t b_bytes);

/* ---- communicators (comm.c) ---- */
typedef struct hccl_transport {
    hccl_transport_kind kind;
    /* Takes the op (this rank's part) and finishes it later, from any thread, with hccl_op_finish. */
    void (*submit)(hccl_rank *rank, hccl_op *op);
    /* Helps a deferred stream's synchronisation along (may run peers' streams); NULL: nothing to do. */
    void (*help)(void *rank);
    /* Leaves the communicator: this rank's pending ops fail, its peers learn it left. */
    void (*leave)(hccl_rank *rank);
} hccl_transport;

/* What the rendezvous told every rank. */
typedef struct {
    int32_t pid;
    int32_t device;
    char host[128]; /* host identity: hostname, boot id, network namespace */
} hccl_member;

/* The root's rendezvous, as the root info and every communicator made through it record it. */
typedef struct {
    char ip[64];
    uint32_t port;
    uint64_t nonce;
    char identifier[128];
} hccl_root_address;

struct hccl_rank {
    uint32_t rank;
    uint32_t size;
    int32_t device;
    char name[COMM_NAME_MAX_LENGTH];
    uint64_t id; /* the communicator's, the same on every rank */
    hccl_root_address root;
    const hccl_transport *transport;
    void *link; /* the transport's state for this rank */
    hccl_member *members;
    uint64_t next_seq;
    int32_t exec_timeout_config;
    double exec_timeout;
    int async_error; /* HcclResult */
    int is_mccl;
    int destroyed;
    opemu_stream *last_stream; /* where this rank's last operation was queued (deferred help) */
    int refs;                  /* the handle's and every live op's */
    pthread_mutex_t lock;
};

/* A live communicator handle (HcclComm or mcclComm_t) or NULL. */
hccl_rank *hccl_rank_of(const void *comm);
/* A new rank view after the rendezvous: registered, with its transport joined; NULL (code in *rc). */
hccl_rank *hccl_rank_create(uint32_t rank, uint32_t size, int32_t device, uint64_t id, const hccl_root_address *root,
                            hccl_member *members, hccl_transport_kind kind, const char *name, int32_t exec_timeout,
                            int is_mccl, double deadline, HcclResult *rc);
/* Ends the handle; the view itself goes with its last op. */
void hccl_rank_destroy(hccl_rank *rank);
void hccl_rank_hold(hccl_rank *rank);
void hccl_rank_release(hccl_rank *rank);
/* The comm's first async error (HCCL_SUCCESS when none); records one. */
void hccl_rank_set_error(hccl_rank *rank, HcclResult code);

/* ---- the progress thread of a multi-process transport (worker.c) ---- */
typedef struct hccl_worker hccl_worker;
/* Runs one op of the rank: HCCL_SUCCESS, or the failure with its message written. */
typedef HcclResult (*hccl_work_fn)(void *state, hccl_rank *rank, hccl_op *op, char *message, size_t size);
/* `broke(state)`, when given, is called after an op failed and when the worker stops (wakes waits). */
hccl_worker *hccl_worker_start(hccl_rank *rank, hccl_work_fn run, void *state, void (*broke)(void *state));
void hccl_worker_submit(hccl_worker *worker, hccl_op *op);
int hccl_worker_stopping(const hccl_worker *worker);
/* Ops still queued fail; an op running ends at its next wait. Joins the thread. */
void hccl_worker_stop(hccl_worker *worker);

/* ---- transports ---- */
extern const hccl_transport hccl_inproc_transport;
extern const hccl_transport hccl_shm_transport;
extern const hccl_transport hccl_gloo_transport; /* joining fails when opemu was built without Gloo */
/* Joins this rank to its transport (rank->link); HCCL_SUCCESS or a recorded failure. */
HcclResult hccl_inproc_join(hccl_rank *rank);
HcclResult hccl_shm_join(hccl_rank *rank, double deadline);
HcclResult hccl_gloo_join(hccl_rank *rank, double deadline);
int hccl_gloo_available(void);

/* ---- the rendezvous (rendezvous.c, bootstrap.c) ---- */
enum { HCCL_ROOT_MAGIC_BYTES = 12 };
/* Starts (once) this process's rendezvous listener and opens a session for a new root info. */
HcclResult hccl_root_open(hccl_root_address *out);
/* Opens a session on a listener bound to ip:port (rank tables: rank 0 serves there). */
HcclResult hccl_root_listen(const char *ip, uint32_t port, uint64_t nonce, hccl_root_address *out);
/* Closes the root's session (its communicator went away). */
void hccl_root_close(uint64_t nonce);
void hccl_root_encode(const hccl_root_address *address, HcclRootInfo *info);
/* The same address in MCCL's 128-byte unique id. */
void hccl_unique_id_encode(const hccl_root_address *address, char id[128]);
HcclResult hccl_unique_id_decode(const char id[128], hccl_root_address *out);
HcclResult hccl_root_decode(const HcclRootInfo *info, hccl_root_address *out);
/* Joins session `nonce` (or a sub-session of it, `sub` != 0) as rank of size ranks; on success
 * `members` (size entries, malloc'd) and the transport every rank uses. */
HcclResult hccl_rendezvous_join(const hccl_root_address *root, uint64_t sub, uint32_t size, uint32_t rank,
                                int32_t device, double deadline, hccl_member **members,
                                hccl_transport_kind *transport);
/* The key-value store of session `nonce` (Gloo's rendezvous). */
HcclResult hccl_store_set(const hccl_root_address *root, uint64_t session, const char *key, const void *value,
                          uint32_t size);
HcclResult hccl_store_get(const hccl_root_address *root, uint64_t session, const char *key, void *value,
                          uint32_t capacity, uint32_t *size, double deadline);
/* The address this host's ranks are reached at (the vendor's interface rule), for Gloo's transport. */
void hccl_local_address(char *ip, size_t size);
/* This host's identity (hostname, boot id, network namespace). */
const char *hccl_host_identity(void);
uint64_t hccl_random64(void);

/* ---- creation (init.c) ---- */
/* The communicator creation every entry point shares: rendezvous, transport, rank view. */
/* `device` -1: the calling thread's (its current context's, or its MACA device for MCCL). */
HcclResult hccl_comm_init(const hccl_root_address *root, uint64_t sub, uint32_t size, uint32_t rank,
                          const HcclCommConfig *config, int is_mccl, int32_t device, hccl_rank **out);

/* One process, no sockets: comms[i] is rank i on devices[i] (device i when devices is NULL). */
HcclResult hccl_init_all(const char *api, uint32_t ndev, const int32_t *devices, int is_mccl, void **comms);

/* ---- the rank-order reductions and rank tables, in Python (python/opemu/collectives) ---- */
/* (declared in hccl/python.h: opemu_py_hccl_reduce, opemu_py_hccl_rank_table) */

#ifdef __cplusplus
}
#endif
#endif
