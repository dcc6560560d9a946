/* HCCL's collectives other than the all-to-alls: the vendor's checks, in the vendor's order, then
 * the op queued (queue.c). */
#include <stdio.h>
#include <string.h>
#include "call.h"

/* The null pointers, communicator and stream (hccl_call_enter), then count, data type and reduction. */
static HcclResult enter_reducing(hccl_call *call, const char *api, int n, const char *const *names,
                                 const void *const *values, const void *comm, aclrtStream stream, uint64_t count,
                                 int32_t dtype, int32_t op)
{
    HcclResult rc = hccl_call_enter(call, api, n, names, values, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_count(api, count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_dtype(api, dtype, 1);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_op(api, dtype, op);
    call->es = hccl_dtype_size(dtype);
    return rc;
}

OPEMU_EXPORT HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                      HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclAllReduce";
    if (count == 0)
        return HCCL_SUCCESS; /* the vendor returns before any check */
    const char *names[] = {"stream", "comm", "sendBuf", "recvBuf"};
    const void *values[] = {stream, comm, sendBuf, recvBuf};
    hccl_call call;
    HcclResult rc = enter_reducing(&call, api, 4, names, values, comm, stream, count, dataType, op);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, count, recvBuf, count);
    return rc ? rc : hccl_queue_reduction(&call, HCCL_CMD_ALLREDUCE, sendBuf, recvBuf, count, dataType, op, UINT32_MAX);
}

OPEMU_EXPORT HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                   HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclReduce";
    if (count == 0)
        return HCCL_SUCCESS;
    const char *names[] = {"comm", "sendBuf", "recvBuf", "stream"};
    const void *values[] = {comm, sendBuf, recvBuf, stream};
    hccl_call call;
    HcclResult rc = enter_reducing(&call, api, 4, names, values, comm, stream, count, dataType, op);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "root", root);
    if (rc == HCCL_SUCCESS) /* only the root's receive buffer is written */
        rc = hccl_check_buffers(&call, sendBuf, count, recvBuf, call.rank->rank == root ? count : 0);
    return rc ? rc : hccl_queue_reduction(&call, HCCL_CMD_REDUCE, sendBuf, recvBuf, count, dataType, op, root);
}

OPEMU_EXPORT HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                          HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclReduceScatter";
    if (recvCount == 0)
        return HCCL_SUCCESS;
    const char *names[] = {"stream", "comm", "sendBuf", "recvBuf"};
    const void *values[] = {stream, comm, sendBuf, recvBuf};
    hccl_call call;
    HcclResult rc = enter_reducing(&call, api, 4, names, values, comm, stream, recvCount, dataType, op);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, recvCount * call.rank->size, recvBuf, recvCount);
    if (rc)
        return rc;
    return hccl_queue_reduce_scatter(&call, HCCL_CMD_REDUCE_SCATTER, sendBuf, recvBuf, recvCount, NULL, NULL, dataType,
                                     op);
}

OPEMU_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                           void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                                           HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclReduceScatterV";
    const char *names[] = {"stream", "comm", "sendBuf", "sendCounts", "sendDispls", "recvBuf"};
    const void *values[] = {stream, comm, sendBuf, sendCounts, sendDispls, recvBuf};
    hccl_call call;
    HcclResult rc = enter_reducing(&call, api, 6, names, values, comm, stream, recvCount, dataType, op);
    uint64_t span = 0;
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_v_layout(&call, "sendCounts", sendCounts, "sendDispls", sendDispls, "recvCount", recvCount,
                                 &span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, span, recvBuf, recvCount);
    if (rc)
        return rc;
    return hccl_queue_reduce_scatter(&call, HCCL_CMD_REDUCE_SCATTER_V, sendBuf, recvBuf, 0, sendCounts, sendDispls,
                                     dataType, op);
}

/* ---- moving collectives ---- */

static HcclResult moving_checks(hccl_call *call, uint64_t count, int32_t dtype)
{
    HcclResult rc = hccl_check_count(call->api, count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_dtype(call->api, dtype, 0);
    call->es = hccl_dtype_size(dtype);
    return rc;
}

OPEMU_EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                      aclrtStream stream)
{
    const char *api = "HcclBroadcast";
    if (count == 0)
        return HCCL_SUCCESS;
    const char *names[] = {"stream", "comm", "buf"};
    const void *values[] = {stream, comm, buf};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 3, names, values, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, count, dataType);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "root", root);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "buf", buf, count);
    if (rc)
        return rc;
    return hccl_queue_moving(&call, HCCL_CMD_BROADCAST, buf, buf, count, dataType, root, NULL, NULL);
}

OPEMU_EXPORT HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                    uint32_t root, HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclScatter";
    if (recvCount == 0)
        return HCCL_SUCCESS;
    const char *names[] = {"comm", "recvBuf", "stream"};
    const void *values[] = {comm, recvBuf, stream};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 3, names, values, comm, stream);
    int is_root = rc == HCCL_SUCCESS && call.rank->rank == root;
    if (is_root && sendBuf == NULL) /* only the root's send buffer is read */
        rc = hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "sendBuf", "non-null pointer");
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "root", root);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, recvCount, dataType);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, is_root ? recvCount * call.rank->size : 0, recvBuf, recvCount);
    if (rc)
        return rc;
    return hccl_queue_moving(&call, HCCL_CMD_SCATTER, sendBuf, recvBuf, recvCount, dataType, root, NULL, NULL);
}

OPEMU_EXPORT HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                      HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclAllGather";
    if (sendCount == 0)
        return HCCL_SUCCESS;
    const char *names[] = {"stream", "comm", "sendBuf", "recvBuf"};
    const void *values[] = {stream, comm, sendBuf, recvBuf};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 4, names, values, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, sendCount, dataType);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, sendCount, recvBuf, sendCount * call.rank->size);
    if (rc)
        return rc;
    return hccl_queue_moving(&call, HCCL_CMD_ALLGATHER, sendBuf, recvBuf, sendCount, dataType, UINT32_MAX, NULL,
                             NULL);
}

OPEMU_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                       const void *recvDispls, HcclDataType dataType, HcclComm comm,
                                       aclrtStream stream)
{
    const char *api = "HcclAllGatherV";
    const char *names[] = {"stream", "comm", "sendBuf", "recvBuf", "recvCounts", "recvDispls"};
    const void *values[] = {stream, comm, sendBuf, recvBuf, recvCounts, recvDispls};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 6, names, values, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, sendCount, dataType);
    uint64_t span = 0;
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_v_layout(&call, "recvCounts", recvCounts, "recvDispls", recvDispls, "sendCount", sendCount,
                                 &span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, sendCount, recvBuf, span);
    if (rc)
        return rc;
    return hccl_queue_moving(&call, HCCL_CMD_ALLGATHER_V, sendBuf, recvBuf, sendCount, dataType, UINT32_MAX,
                             recvCounts, recvDispls);
}

OPEMU_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclBarrier";
    const char *names[] = {"comm", "stream"};
    const void *values[] = {comm, stream};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 2, names, values, comm, stream);
    if (rc)
        return rc;
    return hccl_queue_all_to_all(&call, HCCL_CMD_BARRIER, -1, UINT32_MAX, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL);
}
