/* MCCL's operations: NCCL's argument rules and numbering, then the same queued steps as HCCL's. */
#include <stdio.h>
#include "mccl.h"
#include "call.h"

/* mcclDataType_t → HcclDataType (-1: none). */
static int32_t hccl_type(mcclDataType_t type)
{
    static const int32_t table[] = {HCCL_DATA_TYPE_INT8, HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_INT32,
                                    HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT64,
                                    HCCL_DATA_TYPE_FP16, HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_FP64,
                                    HCCL_DATA_TYPE_BFP16};
    return (unsigned)type < sizeof table / sizeof table[0] ? table[type] : -1;
}

static mcclResult_t result(HcclResult rc)
{
    return rc == HCCL_SUCCESS ? mcclSuccess : rc == HCCL_E_INTERNAL ? mcclInternalError
         : rc == HCCL_E_MEMORY ? mcclSystemError : mcclInvalidArgument;
}

/* The communicator, stream (NULL: the device's default stream), data type and element size. */
static HcclResult begin(hccl_call *call, const char *api, mcclComm_t comm, mcStream_t stream, mcclDataType_t type,
                        int32_t *dtype)
{
    *dtype = -1;
    hccl_rank *rank = hccl_rank_of(comm);
    if (rank == NULL || !rank->is_mccl)
        return hccl_fail(HCCL_E_PARA, "%s: %p is not a live MCCL communicator", api, (void *)comm);
    if (stream == NULL) {
        opemu_context *ctx = opemu_primary_context(rank->device);
        if (ctx == NULL)
            return hccl_fail(HCCL_E_PARA, "%s: device %d has no default stream", api, (int)rank->device);
        stream = (mcStream_t)ctx->default_stream;
    }
    HcclResult rc = hccl_call_begin(call, api, comm, stream);
    if (rc)
        return rc;
    *dtype = hccl_type(type);
    if (*dtype < 0)
        return hccl_fail(HCCL_E_PARA, "%s: %d is not an mcclDataType_t", api, (int)type);
    call->es = hccl_dtype_size(*dtype);
    return HCCL_SUCCESS;
}

static HcclResult buffers(const hccl_call *call, const void *send, uint64_t send_count, const void *recv,
                          uint64_t recv_count)
{
    if ((send == NULL && send_count) || (recv == NULL && recv_count))
        return hccl_fail(HCCL_E_PTR, "%s: %s is NULL", call->api, send == NULL && send_count ? "sendbuff" : "recvbuff");
    HcclResult rc = hccl_check_count(call->api, send_count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_count(call->api, recv_count);
    return rc ? rc : hccl_check_buffers(call, send, send_count, recv, recv_count);
}

static HcclResult reduction_op(const hccl_call *call, mcclRedOp_t op)
{
    if ((unsigned)op > mcclAvg)
        return hccl_fail(HCCL_E_PARA, "%s: reduction %d is not a built-in mcclRedOp_t (made operators: "
                         "mcclRedOpCreatePreMulSum is not supported)", call->api, (int)op);
    return HCCL_SUCCESS;
}

static HcclResult root_of(const hccl_call *call, int root)
{
    return root < 0 ? hccl_fail(HCCL_E_PARA, "%s: root %d is negative", call->api, root)
                    : hccl_check_rank(call, "root", (uint32_t)root);
}

/* begin, then the reduction. */
static HcclResult begin_reducing(hccl_call *call, const char *api, mcclComm_t comm, mcStream_t stream,
                                 mcclDataType_t type, mcclRedOp_t op, int32_t *dtype)
{
    HcclResult rc = begin(call, api, comm, stream, type, dtype);
    return rc ? rc : reduction_op(call, op);
}

OPEMU_EXPORT mcclResult_t mcclAllReduce(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                                        mcclRedOp_t op, mcclComm_t comm, mcStream_t stream)
{
    hccl_call call;
    int32_t dtype;
    HcclResult rc = begin_reducing(&call, "mcclAllReduce", comm, stream, datatype, op, &dtype);
    if (rc == HCCL_SUCCESS)
        rc = buffers(&call, sendbuff, count, recvbuff, count);
    if (rc == HCCL_SUCCESS && count)
        rc = hccl_queue_reduction(&call, HCCL_CMD_ALLREDUCE, (char *)sendbuff, recvbuff, count, dtype, op, UINT32_MAX);
    return result(rc);
}

OPEMU_EXPORT mcclResult_t mcclReduce(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                                     mcclRedOp_t op, int root, mcclComm_t comm, mcStream_t stream)
{
    hccl_call call;
    int32_t dtype;
    HcclResult rc = begin_reducing(&call, "mcclReduce", comm, stream, datatype, op, &dtype);
    if (rc == HCCL_SUCCESS)
        rc = root_of(&call, root);
    if (rc == HCCL_SUCCESS) /* recvbuff may be NULL except on the root */
        rc = buffers(&call, sendbuff, count, recvbuff, call.rank->rank == (uint32_t)root ? count : 0);
    if (rc == HCCL_SUCCESS && count)
        rc = hccl_queue_reduction(&call, HCCL_CMD_REDUCE, (char *)sendbuff, recvbuff, count, dtype, op, (uint32_t)root);
    return result(rc);
}

OPEMU_EXPORT mcclResult_t mcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                            mcclDataType_t datatype, mcclRedOp_t op, mcclComm_t comm,
                                            mcStream_t stream)
{
    hccl_call call;
    int32_t dtype;
    HcclResult rc = begin_reducing(&call, "mcclReduceScatter", comm, stream, datatype, op, &dtype);
    if (rc == HCCL_SUCCESS)
        rc = buffers(&call, sendbuff, recvcount * call.rank->size, recvbuff, recvcount);
    if (rc == HCCL_SUCCESS && recvcount)
        rc = hccl_queue_reduce_scatter(&call, HCCL_CMD_REDUCE_SCATTER, (char *)sendbuff, recvbuff, recvcount, NULL,
                                       NULL, dtype, op);
    return result(rc);
}

static mcclResult_t moving(const char *api, int32_t cmd, const void *send, uint64_t send_count, void *recv,
                           uint64_t recv_count, uint64_t count, mcclDataType_t datatype, int root, mcclComm_t comm,
                           mcStream_t stream)
{
    hccl_call call;
    int32_t dtype;
    HcclResult rc = begin(&call, api, comm, stream, datatype, &dtype);
    if (rc == HCCL_SUCCESS && root >= 0)
        rc = root_of(&call, root);
    int is_root = rc == HCCL_SUCCESS && call.rank->rank == (uint32_t)root;
    if (rc == HCCL_SUCCESS && cmd == HCCL_CMD_ALLGATHER)
        recv_count *= call.rank->size;
    if (rc == HCCL_SUCCESS && (cmd == HCCL_CMD_SCATTER || cmd == HCCL_CMD_BROADCAST))
        send_count = is_root ? send_count * (cmd == HCCL_CMD_SCATTER ? call.rank->size : 1) : 0;
    if (rc == HCCL_SUCCESS && cmd == HCCL_CMD_GATHER)
        recv_count = is_root ? recv_count * call.rank->size : 0;
    if (rc == HCCL_SUCCESS)
        rc = buffers(&call, send, send_count, recv, recv_count);
    if (rc == HCCL_SUCCESS && count)
        rc = hccl_queue_moving(&call, cmd, (char *)send, recv, count, dtype, root < 0 ? UINT32_MAX : (uint32_t)root,
                               NULL, NULL);
    return result(rc);
}

OPEMU_EXPORT mcclResult_t mcclBroadcast(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                                        int root, mcclComm_t comm, mcStream_t stream)
{
    return moving("mcclBroadcast", HCCL_CMD_BROADCAST, sendbuff, count, recvbuff, count, count, datatype, root, comm,
                  stream);
}

OPEMU_EXPORT mcclResult_t mcclBcast(void *buff, size_t count, mcclDataType_t datatype, int root, mcclComm_t comm,
                                    mcStream_t stream)
{
    return moving("mcclBcast", HCCL_CMD_BROADCAST, buff, count, buff, count, count, datatype, root, comm, stream);
}

OPEMU_EXPORT mcclResult_t mcclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                        mcclDataType_t datatype, mcclComm_t comm, mcStream_t stream)
{
    return moving("mcclAllGather", HCCL_CMD_ALLGATHER, sendbuff, sendcount, recvbuff, sendcount, sendcount, datatype,
                  -1, comm, stream);
}

OPEMU_EXPORT mcclResult_t mcclGather(const void *sendbuff, void *recvbuff, size_t sendcount, mcclDataType_t datatype,
                                     int root, mcclComm_t comm, mcStream_t stream)
{
    return moving("mcclGather", HCCL_CMD_GATHER, sendbuff, sendcount, recvbuff, sendcount, sendcount, datatype, root,
                  comm, stream);
}

OPEMU_EXPORT mcclResult_t mcclScatter(const void *sendbuff, void *recvbuff, size_t recvcount, mcclDataType_t datatype,
                                      int root, mcclComm_t comm, mcStream_t stream)
{
    return moving("mcclScatter", HCCL_CMD_SCATTER, sendbuff, recvcount, recvbuff, recvcount, recvcount, datatype,
                  root, comm, stream);
}

static mcclResult_t all_to_all(const char *api, const void *send, const size_t *send_counts,
                               const size_t *send_displs, void *recv, const size_t *recv_counts,
                               const size_t *recv_displs, size_t uniform, mcclDataType_t datatype, mcclComm_t comm,
                               mcStream_t stream)
{
    hccl_call call;
    int32_t dtype;
    HcclResult rc = begin(&call, api, comm, stream, datatype, &dtype);
    uint32_t n = rc == HCCL_SUCCESS ? call.rank->size : 0;
    uint64_t *layout = n ? calloc(4 * (size_t)n, sizeof *layout) : NULL;
    if (rc == HCCL_SUCCESS && layout == NULL)
        rc = HCCL_E_MEMORY;
    if (rc == HCCL_SUCCESS && send_counts && !(send_displs && recv_counts && recv_displs))
        rc = hccl_fail(HCCL_E_PTR, "%s: a count or displacement array is NULL", api);
    uint64_t send_span = 0, recv_span = 0;
    for (uint32_t p = 0; rc == HCCL_SUCCESS && p < n; p++) {
        layout[p] = send_counts ? send_counts[p] : uniform;
        layout[n + p] = send_counts ? send_displs[p] : p * uniform;
        layout[2 * n + p] = send_counts ? recv_counts[p] : uniform;
        layout[3 * n + p] = send_counts ? recv_displs[p] : p * uniform;
    }
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(&call, "sdispls", layout, layout + n, &send_span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(&call, "rdispls", layout + 2 * n, layout + 3 * n, &recv_span);
    if (rc == HCCL_SUCCESS)
        rc = buffers(&call, send, send_span, recv, recv_span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_queue_all_to_all(&call, send_counts ? HCCL_CMD_ALLTOALLV : HCCL_CMD_ALLTOALL, dtype, UINT32_MAX,
                                   uniform, 0, (char *)send, layout, layout + n, recv, layout + 2 * n, layout + 3 * n);
    free(layout);
    return result(rc);
}

OPEMU_EXPORT mcclResult_t mcclAllToAll(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                                       mcclComm_t comm, mcStream_t stream)
{
    return all_to_all("mcclAllToAll", sendbuff, NULL, NULL, recvbuff, NULL, NULL, count, datatype, comm, stream);
}

OPEMU_EXPORT mcclResult_t mcclAllToAllv(const void *sendbuff, const size_t sendcounts[], const size_t sdispls[],
                                        void *recvbuff, const size_t recvcounts[], const size_t rdispls[],
                                        mcclDataType_t datatype, mcclComm_t comm, mcStream_t stream)
{
    if (sendcounts == NULL)
        return result(hccl_fail(HCCL_E_PTR, "mcclAllToAllv: sendcounts is NULL"));
    return all_to_all("mcclAllToAllv", sendbuff, sendcounts, sdispls, recvbuff, recvcounts, rdispls, 0, datatype, comm,
                      stream);
}

static mcclResult_t point_to_point(const char *api, int is_send, void *buf, size_t count, mcclDataType_t datatype,
                                   int peer, mcclComm_t comm, mcStream_t stream)
{
    hccl_call call;
    int32_t dtype;
    HcclResult rc = begin(&call, api, comm, stream, datatype, &dtype);
    if (rc == HCCL_SUCCESS && (peer < 0 || (uint32_t)peer == call.rank->rank))
        rc = hccl_fail(HCCL_E_PARA, "%s: peer %d is not another rank", api, peer);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "peer", (uint32_t)peer);
    if (rc == HCCL_SUCCESS)
        rc = buffers(&call, is_send ? buf : NULL, is_send ? count : 0, is_send ? NULL : buf, is_send ? 0 : count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_queue_p2p(&call, is_send, buf, count, dtype, (uint32_t)peer);
    return result(rc);
}

OPEMU_EXPORT mcclResult_t mcclSend(const void *sendbuff, size_t count, mcclDataType_t datatype, int peer,
                                   mcclComm_t comm, mcStream_t stream)
{
    return point_to_point("mcclSend", 1, (void *)sendbuff, count, datatype, peer, comm, stream);
}

OPEMU_EXPORT mcclResult_t mcclRecv(void *recvbuff, size_t count, mcclDataType_t datatype, int peer, mcclComm_t comm,
                                   mcStream_t stream)
{
    return point_to_point("mcclRecv", 0, recvbuff, count, datatype, peer, comm, stream);
}
