/* AlltoAll, AlltoAllV and AlltoAllVC: block p of this rank's sendBuf lands in rank p's recvBuf, at
 * this rank's place. The send and receive types must be the same; what one rank sends another must
 * be what that one expects (checked when the step runs, naming both ranks). */
#include <stdio.h>
#include <stdlib.h>
#include "call.h"

static HcclResult types(hccl_call *call, int32_t send_type, int32_t recv_type)
{
    HcclResult rc = hccl_check_dtype(call->api, send_type, 0);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_dtype(call->api, recv_type, 0);
    if (rc == HCCL_SUCCESS && send_type != recv_type)
        rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], recvType %s differs from sendType %s: they must be the same",
                       call->api, hccl_dtype_name(recv_type), hccl_dtype_name(send_type));
    call->es = hccl_dtype_size(send_type);
    return rc;
}

static HcclResult begin(hccl_call *call, const char *api, const void *send, const void *recv, const void *comm,
                        aclrtStream stream)
{
    const char *names[] = {"stream", "comm", "sendBuf", "recvBuf"};
    const void *values[] = {stream, comm, send, recv};
    return hccl_call_enter(call, api, 4, names, values, comm, stream);
}

OPEMU_EXPORT HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                     const void *recvBuf, uint64_t recvCount, HcclDataType recvType, HcclComm comm,
                                     aclrtStream stream)
{
    hccl_call call;
    HcclResult rc = begin(&call, "HcclAlltoAll", sendBuf, recvBuf, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_count(call.api, sendCount);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_count(call.api, recvCount);
    if (rc == HCCL_SUCCESS)
        rc = types(&call, sendType, recvType);
    if (rc == HCCL_SUCCESS && sendCount != recvCount)
        rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], recvCount %llu differs from sendCount %llu: every rank sends "
                       "each rank as many elements as it receives from it", call.api, (unsigned long long)recvCount,
                       (unsigned long long)sendCount);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, sendCount * call.rank->size, recvBuf, recvCount * call.rank->size);
    if (rc)
        return rc;
    uint32_t n = call.rank->size;
    uint64_t *layout = calloc(2 * n, sizeof *layout);
    if (layout == NULL)
        return hccl_call_submit(&call, NULL);
    for (uint32_t p = 0; p < n; p++) {
        layout[p] = sendCount;
        layout[n + p] = p * sendCount;
    }
    rc = hccl_queue_all_to_all(&call, HCCL_CMD_ALLTOALL, sendType, UINT32_MAX, sendCount, 0, (char *)sendBuf, layout,
                               layout + n, (char *)recvBuf, layout, layout + n);
    free(layout);
    return rc;
}

OPEMU_EXPORT HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                      HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                      const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    hccl_call call;
    const char *api = "HcclAlltoAllV";
    const char *names[] = {"sendCounts", "sdispls", "recvCounts", "rdispls"};
    const void *values[] = {sendCounts, sdispls, recvCounts, rdispls};
    HcclResult rc = hccl_check_nulls(api, 4, names, values);
    if (rc == HCCL_SUCCESS)
        rc = begin(&call, api, sendBuf, recvBuf, comm, stream);
    uint64_t send_span = 0, recv_span = 0;
    if (rc == HCCL_SUCCESS)
        rc = types(&call, sendType, recvType);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_counts(&call, "sendCounts", sendCounts, call.rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_counts(&call, "recvCounts", recvCounts, call.rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(&call, "sdispls", sendCounts, sdispls, &send_span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(&call, "rdispls", recvCounts, rdispls, &recv_span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffers(&call, sendBuf, send_span, recvBuf, recv_span);
    if (rc)
        return rc;
    return hccl_queue_all_to_all(&call, HCCL_CMD_ALLTOALLV, sendType, UINT32_MAX, 0, 0, (char *)sendBuf, sendCounts,
                                 sdispls, (char *)recvBuf, recvCounts, rdispls);
}

/* Row i of the matrix is what rank i sends each rank, packed in rank order in both buffers. */
OPEMU_EXPORT HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                       const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    hccl_call call;
    const char *api = "HcclAlltoAllVC";
    const char *names[] = {"sendCountMatrix"};
    const void *values[] = {sendCountMatrix};
    HcclResult rc = hccl_check_nulls(api, 1, names, values);
    if (rc == HCCL_SUCCESS)
        rc = begin(&call, api, sendBuf, recvBuf, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = types(&call, sendType, recvType);
    uint32_t n = rc == HCCL_SUCCESS ? call.rank->size : 0, me = n ? call.rank->rank : 0;
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_counts(&call, "sendCountMatrix", sendCountMatrix, (uint64_t)n * n);
    if (rc)
        return rc;
    const uint64_t *matrix = sendCountMatrix;
    uint64_t *arrays = calloc(4 * (size_t)n, sizeof *arrays);
    if (arrays == NULL)
        return hccl_call_submit(&call, NULL);
    uint64_t *send_counts = arrays, *send_displs = arrays + n, *recv_counts = arrays + 2 * n,
             *recv_displs = arrays + 3 * n, sent = 0, received = 0;
    for (uint32_t p = 0; p < n; p++) {
        send_counts[p] = matrix[(uint64_t)me * n + p];
        recv_counts[p] = matrix[(uint64_t)p * n + me];
        send_displs[p] = sent;
        recv_displs[p] = received;
        sent += send_counts[p];
        received += recv_counts[p];
    }
    rc = hccl_check_buffers(&call, sendBuf, sent, recvBuf, received);
    if (rc == HCCL_SUCCESS)
        rc = hccl_queue_all_to_all(&call, HCCL_CMD_ALLTOALLVC, sendType, UINT32_MAX, 0,
                                   hccl_digest(0, matrix, (size_t)n * n * sizeof *matrix), (char *)sendBuf,
                                   send_counts, send_displs, (char *)recvBuf, recv_counts, recv_displs);
    free(arrays);
    return rc;
}
