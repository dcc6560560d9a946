/* The checks every operation entry point shares, and the description of its op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "call.h"

HcclResult hccl_check_nulls(const char *api, int n, const char *const *names, const void *const *values)
{
    for (int i = 0; i < n; i++)
        if (values[i] == NULL)
            return hccl_bad_argument(HCCL_E_PTR, api, "nullptr", names[i], "non-null pointer");
    return HCCL_SUCCESS;
}

HcclResult hccl_call_begin(hccl_call *call, const char *api, const void *comm, aclrtStream stream)
{
    memset(call, 0, sizeof *call);
    call->api = api;
    call->rank = hccl_rank_of(comm);
    if (call->rank == NULL) {
        char value[32];
        snprintf(value, sizeof value, "%p", comm);
        return hccl_bad_argument(HCCL_E_PARA, api, value, "comm", "a live communicator (created and not destroyed)");
    }
    int rc;
    call->stream = opemu_stream_resolve(stream, &rc);
    if (call->stream == NULL) {
        char value[32];
        snprintf(value, sizeof value, "%p", stream);
        return hccl_bad_argument(HCCL_E_PARA, api, value, "stream", "a live stream");
    }
    int32_t device = opemu_stream_device(call->stream);
    if (device != call->rank->device)
        return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], the stream belongs to device %d but the communicator "
                         "(rank %u) to device %d: a rank's operations go on a stream of its own device", api,
                         (int)device, call->rank->rank, (int)call->rank->device);
    return HCCL_SUCCESS;
}

HcclResult hccl_call_enter(hccl_call *call, const char *api, int n, const char *const *names,
                           const void *const *values, const void *comm, aclrtStream stream)
{
    HcclResult rc = hccl_check_nulls(api, n, names, values);
    return rc ? rc : hccl_call_begin(call, api, comm, stream);
}

HcclResult hccl_check_rank(const hccl_call *call, const char *parameter, uint32_t value)
{
    if (value < call->rank->size)
        return HCCL_SUCCESS;
    return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], value [%u] for parameter [%s] is invalid. Expected value: [a "
                     "rank in 0 ~ %u].", call->api, value, parameter, call->rank->size - 1);
}

HcclResult hccl_check_buffer(const hccl_call *call, const char *parameter, const void *ptr, uint64_t count)
{
    uint64_t bytes = count * call->es; /* counts are checked (at most 2^35) before */
    if (bytes == 0)
        return HCCL_SUCCESS;
    opemu_allocation a;
    if (!opemu_memory_find(ptr, &a) || a.kind != OPEMU_MEM_DEVICE)
        return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], %s %p is not inside a live device allocation (aclrtMalloc)",
                         call->api, parameter, ptr);
    uint64_t offset = (uintptr_t)ptr - a.start;
    if (bytes > a.mapped - offset)
        return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], %s: %llu bytes at %p run past the end of its device "
                         "allocation (%llu bytes from %p)", call->api, parameter, (unsigned long long)bytes, ptr,
                         (unsigned long long)a.mapped, (void *)a.start);
    if (a.device != call->rank->device)
        return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], %s %p is memory of device %d, the communicator's rank %u is "
                         "on device %d", call->api, parameter, ptr, (int)a.device, call->rank->rank,
                         (int)call->rank->device);
    return HCCL_SUCCESS;
}

HcclResult hccl_check_buffers(const hccl_call *call, const void *send, uint64_t send_count, const void *recv,
                              uint64_t recv_count)
{
    int nccl = call->rank->is_mccl;
    HcclResult rc = hccl_check_buffer(call, nccl ? "sendbuff" : "sendBuf", send, send_count);
    return rc ? rc : hccl_check_buffer(call, nccl ? "recvbuff" : "recvBuf", recv, recv_count);
}

HcclResult hccl_check_counts(const hccl_call *call, const char *parameter, const void *array, uint64_t n)
{
    if (array == NULL)
        return hccl_bad_argument(HCCL_E_PTR, call->api, "nullptr", parameter, "non-null pointer");
    const uint64_t *values = array;
    for (uint64_t i = 0; i < n; i++) {
        HcclResult rc = hccl_check_count(call->api, values[i]);
        if (rc)
            return rc;
    }
    return HCCL_SUCCESS;
}

HcclResult hccl_layout_span(const hccl_call *call, const char *parameter, const void *counts, const void *displs,
                            uint64_t *out)
{
    const uint64_t *c = counts, *d = displs;
    *out = 0;
    for (uint32_t p = 0; p < call->rank->size; p++) {
        if (d[p] > 0x7FFFFFFFFULL)
            return hccl_fail(HCCL_E_PARA, "EI0003: In [%s], %s[%u] = %llu is bigger than the MAX count "
                             "[34359738367]", call->api, parameter, p, (unsigned long long)d[p]);
        if (c[p] && c[p] + d[p] > *out)
            *out = c[p] + d[p];
    }
    return HCCL_SUCCESS;
}

HcclResult hccl_check_v_layout(const hccl_call *call, const char *counts_name, const void *counts,
                               const char *displs_name, const void *displs, const char *own_name, uint64_t own,
                               uint64_t *span)
{
    HcclResult rc = hccl_check_counts(call, counts_name, counts, call->rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(call, displs_name, counts, displs, span);
    const uint64_t *c = counts;
    if (rc == HCCL_SUCCESS && own != c[call->rank->rank])
        rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], %s %llu is not %s[%u] = %llu", call->api, own_name,
                       (unsigned long long)own, counts_name, call->rank->rank, (unsigned long long)c[call->rank->rank]);
    return rc;
}

hccl_op *hccl_call_op(const hccl_call *call, int32_t cmd, int32_t dtype, int32_t op, uint32_t root, uint64_t count)
{
    hccl_op *o = hccl_op_new(call->rank, call->api, cmd);
    if (o == NULL)
        return NULL;
    o->stream = call->stream;
    o->sig.dtype = dtype;
    o->sig.op = op;
    o->sig.root = root;
    o->sig.count = count;
    return o;
}

hccl_step *hccl_add_step(hccl_op *op, hccl_step_kind kind)
{
    uint32_t n = op->rank->size;
    hccl_step *step = &op->steps[op->n_steps];
    memset(step, 0, sizeof *step);
    step->kind = kind;
    step->dtype = op->sig.dtype;
    step->op = op->sig.op;
    step->send = hccl_op_alloc(op, n * sizeof(hccl_block));
    step->recv = hccl_op_alloc(op, n * sizeof(hccl_block));
    if (kind == HCCL_STEP_REDUCE_SCATTER)
        step->counts = hccl_op_alloc(op, n * sizeof(uint64_t));
    if (step->send == NULL || step->recv == NULL || (kind == HCCL_STEP_REDUCE_SCATTER && step->counts == NULL))
        return NULL;
    op->n_steps++;
    return step;
}

uint64_t hccl_digest(uint64_t seed, const void *data, size_t bytes)
{
    uint64_t h = seed ? seed : 1469598103934665603ULL;
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

HcclResult hccl_call_submit(const hccl_call *call, hccl_op *op)
{
    if (op == NULL)
        return hccl_fail(HCCL_E_MEMORY, "%s: out of host memory", call->api);
    return hccl_op_enqueue(op);
}

/* ---- point to point ---- */

HcclResult hccl_queue_p2p(const hccl_call *call, int is_send, void *buf, uint64_t count, int32_t dtype, uint32_t peer)
{
    hccl_op *op = hccl_op_new(call->rank, call->api, is_send ? HCCL_CMD_SEND : HCCL_CMD_RECEIVE);
    hccl_p2p *item = op ? hccl_op_alloc(op, sizeof *item) : NULL;
    if (item == NULL) {
        hccl_op_free(op);
        return hccl_call_submit(call, NULL);
    }
    *item = (hccl_p2p){is_send, peer, buf, count * call->es, dtype, count, 0};
    op->stream = call->stream;
    op->p2p = item;
    op->n_p2p = 1;
    return hccl_call_submit(call, op);
}

HcclResult hccl_send_recv(const char *api, int is_send, void *buf, uint64_t count, int32_t dtype, uint32_t peer,
                          const void *comm, aclrtStream stream)
{
    const char *names[] = {"comm", is_send ? "sendBuf" : "recvBuf", "stream"};
    const void *values[] = {comm, buf, stream};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 3, names, values, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, is_send ? "destRank" : "srcRank", peer);
    if (rc == HCCL_SUCCESS && peer == call.rank->rank)
        rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], the peer rank %u is this rank: a rank does not send to itself",
                       api, peer);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_count(api, count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_dtype(api, dtype, 0);
    if (rc)
        return rc;
    call.es = hccl_dtype_size(dtype);
    rc = hccl_check_buffer(&call, is_send ? "sendBuf" : "recvBuf", buf, count);
    if (rc)
        return rc;
    return hccl_queue_p2p(&call, is_send, buf, count, dtype, peer);
}

OPEMU_EXPORT HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                                 aclrtStream stream)
{
    return hccl_send_recv("HcclSend", 1, sendBuf, count, dataType, destRank, comm, stream);
}

OPEMU_EXPORT HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                                 aclrtStream stream)
{
    return hccl_send_recv("HcclRecv", 0, recvBuf, count, dataType, srcRank, comm, stream);
}

OPEMU_EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                          aclrtStream stream)
{
    const char *api = "HcclBatchSendRecv";
    const char *names[] = {"sendRecvInfo", "comm", "stream"};
    const void *values[] = {sendRecvInfo, comm, stream};
    hccl_call call;
    HcclResult rc = hccl_call_enter(&call, api, 3, names, values, comm, stream);
    if (rc)
        return rc;
    if (itemNum == 0)
        return hccl_bad_argument(HCCL_E_PARA, api, "0", "itemNum", "at least one item");
    hccl_op *op = hccl_op_new(call.rank, api, HCCL_CMD_BATCH_SEND_RECV);
    hccl_p2p *items = op ? hccl_op_alloc(op, (size_t)itemNum * sizeof *items) : NULL;
    if (items == NULL) {
        hccl_op_free(op);
        return hccl_call_submit(&call, NULL);
    }
    for (uint32_t i = 0; i < itemNum && rc == HCCL_SUCCESS; i++) {
        const HcclSendRecvItem *it = &sendRecvInfo[i];
        int is_send = it->sendRecvType == HCCL_SEND;
        if (!is_send && it->sendRecvType != HCCL_RECV) {
            char value[32];
            snprintf(value, sizeof value, "%d", (int)it->sendRecvType);
            rc = hccl_bad_argument(HCCL_E_PARA, api, value, "sendRecvType", "HCCL_SEND or HCCL_RECV");
            break;
        }
        rc = it->buf == NULL ? hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "buf", "non-null pointer") : HCCL_SUCCESS;
        if (rc == HCCL_SUCCESS)
            rc = hccl_check_rank(&call, "remoteRank", it->remoteRank);
        if (rc == HCCL_SUCCESS && it->remoteRank == call.rank->rank)
            rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], item %u names this rank (%u) as its peer", api, i,
                           it->remoteRank);
        if (rc == HCCL_SUCCESS)
            rc = hccl_check_count(api, it->count);
        if (rc == HCCL_SUCCESS)
            rc = hccl_check_dtype(api, it->dataType, 0);
        if (rc == HCCL_SUCCESS) {
            call.es = hccl_dtype_size(it->dataType);
            rc = hccl_check_buffer(&call, is_send ? "sendBuf" : "recvBuf", it->buf, it->count);
        }
        items[i] = (hccl_p2p){is_send, it->remoteRank, it->buf, it->count * call.es, it->dataType, it->count, 0};
    }
    if (rc) {
        hccl_op_free(op);
        return rc;
    }
    op->stream = call.stream;
    op->p2p = items;
    op->n_p2p = itemNum;
    return hccl_call_submit(&call, op);
}
