/* What every HCCL (and MCCL) operation entry point shares: the vendor's argument checks and the
 * op being described. Private to collectives*.c and mccl.c. */
#ifndef OPEMU_HCCL_CALL_H
#define OPEMU_HCCL_CALL_H

#include "hccl_internal.h"

typedef struct {
    const char *api;
    hccl_rank *rank;
    opemu_stream *stream;
    uint32_t es; /* element size */
} hccl_call;

/* Null pointers, in the order the vendor checks them (names[i] for values[i]): HCCL_E_PTR. */
HcclResult hccl_check_nulls(const char *api, int n, const char *const *names, const void *const *values);
/* The communicator (live, not destroyed) and the stream (live, on the communicator's device). */
HcclResult hccl_call_begin(hccl_call *call, const char *api, const void *comm, aclrtStream stream);
/* Both of the above: the null pointers first. */
HcclResult hccl_call_enter(hccl_call *call, const char *api, int n, const char *const *names,
                           const void *const *values, const void *comm, aclrtStream stream);
/* A rank argument below the communicator's size. */
HcclResult hccl_check_rank(const hccl_call *call, const char *parameter, uint32_t value);
/* `count` elements at `ptr` inside one live device allocation of the communicator's device. */
HcclResult hccl_check_buffer(const hccl_call *call, const char *parameter, const void *ptr, uint64_t count);
/* The send buffer, then the receive buffer (hccl_check_buffer; "sendBuf"/"recvBuf", or MCCL's
 * "sendbuff"/"recvbuff"); a count of 0 checks nothing. */
HcclResult hccl_check_buffers(const hccl_call *call, const void *send, uint64_t send_count, const void *recv,
                              uint64_t recv_count);
/* A uint64_t array argument of the communicator's size (NULL: HCCL_E_PTR), each entry a valid count. */
HcclResult hccl_check_counts(const hccl_call *call, const char *parameter, const void *array, uint64_t n);
/* The elements a V-form layout reaches (largest displacement + count), each displacement checked
 * (counts are checked before). */
HcclResult hccl_layout_span(const hccl_call *call, const char *parameter, const void *counts, const void *displs,
                            uint64_t *out);
/* A V form's arrays: counts valid, displacements within range (the span they reach in *span), and
 * this rank's own count (`own`) equal to its entry. */
HcclResult hccl_check_v_layout(const hccl_call *call, const char *counts_name, const void *counts,
                               const char *displs_name, const void *displs, const char *own_name, uint64_t own,
                               uint64_t *span);
/* An op for the call (its sequence number is taken when it is queued). */
hccl_op *hccl_call_op(const hccl_call *call, int32_t cmd, int32_t dtype, int32_t op, uint32_t root, uint64_t count);
/* A step of the op with its per-rank blocks allocated (zeroed); NULL when out of memory. */
hccl_step *hccl_add_step(hccl_op *op, hccl_step_kind kind);
/* Queues the op, or reports that it could not be built (out of memory). */
HcclResult hccl_call_submit(const hccl_call *call, hccl_op *op);
/* The collectives, queued (queue.c): AllReduce (root UINT32_MAX) and Reduce; ReduceScatter (uniform
 * count) and its V form (counts, displs); any all-to-all of blocks; and Broadcast, Scatter, Gather,
 * AllGather(V) (counts/displs for the V form) as one. */
HcclResult hccl_queue_reduction(const hccl_call *call, int32_t cmd, char *send, char *recv, uint64_t count,
                                int32_t dtype, int32_t op, uint32_t root);
HcclResult hccl_queue_reduce_scatter(const hccl_call *call, int32_t cmd, char *send, char *recv, uint64_t uniform,
                                     const uint64_t *counts, const uint64_t *displs, int32_t dtype, int32_t op);
HcclResult hccl_queue_all_to_all(const hccl_call *call, int32_t cmd, int32_t dtype, uint32_t root, uint64_t count,
                                 uint64_t digest, char *send, const uint64_t *send_counts,
                                 const uint64_t *send_displs, char *recv, const uint64_t *recv_counts,
                                 const uint64_t *recv_displs);
HcclResult hccl_queue_moving(const hccl_call *call, int32_t cmd, char *send, char *recv, uint64_t count,
                             int32_t dtype, uint32_t root, const uint64_t *counts, const uint64_t *displs);
/* Point-to-point ops: one send or receive queued; the HCCL entry points' checks and queueing. */
HcclResult hccl_queue_p2p(const hccl_call *call, int is_send, void *buf, uint64_t count, int32_t dtype, uint32_t peer);
HcclResult hccl_send_recv(const char *api, int is_send, void *buf, uint64_t count, int32_t dtype, uint32_t peer,
                          const void *comm, aclrtStream stream);

#endif
