/* The reducing collectives and broadcast/scatter/allgather as steps every transport executes.
 *
 * A reduction is a reduce-scatter (rank j reduces, in rank order, every rank's j-th chunk) and, for
 * AllReduce and Reduce, a gather of the reduced chunks: each element is reduced in the same order
 * whatever the transport, the number of processes or the timing, so results are bitwise the same. */
#include <stdio.h>
#include <string.h>
#include "call.h"

/* Rank p's chunk of `count` elements split as evenly as the ranks allow. */
static void chunk(uint64_t count, uint32_t n, uint32_t p, uint64_t *offset, uint64_t *length)
{
    uint64_t base = count / n, extra = count % n;
    *offset = p * base + (p < extra ? p : extra);
    *length = base + (p < extra);
}

/* Step 1 of AllReduce and Reduce: this rank reduces its chunk into `mine` (its own output's chunk, or
 * scratch); step 2 sends it to `root` (or to every rank when root is UINT32_MAX) into `recv`. */
static HcclResult reduction(const hccl_call *call, hccl_op *op, char *send, char *recv, uint64_t count,
                            uint32_t root)
{
    uint32_t n = call->rank->size, me = call->rank->rank, es = call->es;
    uint64_t my_offset, my_length;
    chunk(count, n, me, &my_offset, &my_length);
    char *mine = recv && (root == UINT32_MAX || root == me) ? recv + my_offset * es
                                                            : hccl_op_alloc(op, my_length * es);
    hccl_step *reduce = hccl_add_step(op, HCCL_STEP_REDUCE_SCATTER);
    if (mine == NULL || reduce == NULL)
        return HCCL_E_MEMORY;
    for (uint32_t p = 0; p < n; p++) {
        uint64_t offset, length;
        chunk(count, n, p, &offset, &length);
        reduce->send[p] = (hccl_block){send + offset * es, length * es};
        reduce->counts[p] = length;
    }
    reduce->recv[0] = (hccl_block){mine, my_length * es};
    hccl_step *gather = hccl_add_step(op, HCCL_STEP_ALLTOALL);
    if (gather == NULL)
        return HCCL_E_MEMORY;
    for (uint32_t p = 0; p < n; p++) {
        if (p == me)
            continue;
        uint64_t offset, length;
        chunk(count, n, p, &offset, &length);
        if (root == UINT32_MAX || root == p)
            gather->send[p] = (hccl_block){mine, my_length * es};
        if (root == UINT32_MAX || root == me)
            gather->recv[p] = (hccl_block){recv + offset * es, length * es};
    }
    return HCCL_SUCCESS;
}

static HcclResult reducing_checks(hccl_call *call, uint64_t count, int32_t dtype, int32_t op)
{
    HcclResult rc = hccl_check_count(call->api, count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_dtype(call->api, dtype, 1);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_op(call->api, dtype, op);
    call->es = hccl_dtype_size(dtype);
    return rc;
}

static HcclResult submit_built(const hccl_call *call, hccl_op *op, HcclResult built)
{
    if (built != HCCL_SUCCESS) {
        hccl_op_free(op);
        return hccl_call_submit(call, NULL);
    }
    return hccl_call_submit(call, op);
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
    HcclResult rc = hccl_check_nulls(api, 4, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = reducing_checks(&call, count, dataType, op);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, count);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, count);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_ALLREDUCE, dataType, op, UINT32_MAX, count);
    return o ? submit_built(&call, o, reduction(&call, o, sendBuf, recvBuf, count, UINT32_MAX))
             : hccl_call_submit(&call, NULL);
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
    HcclResult rc = hccl_check_nulls(api, 4, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = reducing_checks(&call, count, dataType, op);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "root", root);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, count);
    if (rc == HCCL_SUCCESS && call.rank->rank == root)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, count);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_REDUCE, dataType, op, root, count);
    return o ? submit_built(&call, o, reduction(&call, o, sendBuf, call.rank->rank == root ? recvBuf : NULL, count,
                                                root))
             : hccl_call_submit(&call, NULL);
}

/* ReduceScatter and ReduceScatterV: block p of sendBuf (counts[p] elements at displs[p]) is reduced
 * into rank p's recvBuf. */
static HcclResult reduce_scatter(hccl_call *call, hccl_op *o, char *send, char *recv, const uint64_t *counts,
                                 const uint64_t *displs, uint64_t uniform)
{
    hccl_step *step = hccl_add_step(o, HCCL_STEP_REDUCE_SCATTER);
    if (step == NULL)
        return HCCL_E_MEMORY;
    for (uint32_t p = 0; p < call->rank->size; p++) {
        uint64_t count = counts ? counts[p] : uniform, displ = displs ? displs[p] : p * uniform;
        step->send[p] = (hccl_block){send + displ * call->es, count * call->es};
        step->counts[p] = count;
    }
    uint64_t mine = counts ? counts[call->rank->rank] : uniform;
    step->recv[0] = (hccl_block){recv, mine * call->es};
    return HCCL_SUCCESS;
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
    HcclResult rc = hccl_check_nulls(api, 4, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = reducing_checks(&call, recvCount, dataType, op);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, recvCount * call.rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, recvCount);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_REDUCE_SCATTER, dataType, op, UINT32_MAX, recvCount);
    return o ? submit_built(&call, o, reduce_scatter(&call, o, sendBuf, recvBuf, NULL, NULL, recvCount))
             : hccl_call_submit(&call, NULL);
}

OPEMU_EXPORT HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                                           void *recvBuf, uint64_t recvCount, HcclDataType dataType, HcclReduceOp op,
                                           HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclReduceScatterV";
    const char *names[] = {"stream", "comm", "sendBuf", "sendCounts", "sendDispls", "recvBuf"};
    const void *values[] = {stream, comm, sendBuf, sendCounts, sendDispls, recvBuf};
    hccl_call call;
    HcclResult rc = hccl_check_nulls(api, 6, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = reducing_checks(&call, recvCount, dataType, op);
    uint64_t span = 0;
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_counts(&call, "sendCounts", sendCounts, call.rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(&call, "sendDispls", sendCounts, sendDispls, &span);
    const uint64_t *counts = sendCounts;
    if (rc == HCCL_SUCCESS && recvCount != counts[call.rank->rank])
        rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], recvCount %llu is not sendCounts[%u] = %llu", api,
                       (unsigned long long)recvCount, call.rank->rank, (unsigned long long)counts[call.rank->rank]);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, span);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, recvCount);
    if (rc)
        return rc;
    size_t bytes = call.rank->size * sizeof(uint64_t);
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_REDUCE_SCATTER_V, dataType, op, UINT32_MAX, 0);
    if (o == NULL)
        return hccl_call_submit(&call, NULL);
    o->sig.digest = hccl_digest(hccl_digest(0, sendCounts, bytes), sendDispls, bytes);
    return submit_built(&call, o, reduce_scatter(&call, o, sendBuf, recvBuf, sendCounts, sendDispls, 0));
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
    HcclResult rc = hccl_check_nulls(api, 3, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, count, dataType);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "root", root);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "buf", buf, count);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_BROADCAST, dataType, -1, root, count);
    hccl_step *step = o ? hccl_add_step(o, HCCL_STEP_ALLTOALL) : NULL;
    if (step == NULL)
        return submit_built(&call, o, HCCL_E_MEMORY);
    hccl_block block = {buf, count * call.es};
    for (uint32_t p = 0; p < call.rank->size; p++) {
        if (call.rank->rank == root && p != root)
            step->send[p] = block;
        else if (call.rank->rank != root && p == root)
            step->recv[p] = block;
    }
    return hccl_call_submit(&call, o);
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
    HcclResult rc = hccl_check_nulls(api, 3, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    int is_root = rc == HCCL_SUCCESS && call.rank->rank == root;
    if (is_root && sendBuf == NULL) /* only the root's send buffer is read */
        rc = hccl_bad_argument(HCCL_E_PTR, api, "nullptr", "sendBuf", "non-null pointer");
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_rank(&call, "root", root);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, recvCount, dataType);
    if (rc == HCCL_SUCCESS && is_root)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, recvCount * call.rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, recvCount);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_SCATTER, dataType, -1, root, recvCount);
    hccl_step *step = o ? hccl_add_step(o, HCCL_STEP_ALLTOALL) : NULL;
    if (step == NULL)
        return submit_built(&call, o, HCCL_E_MEMORY);
    uint64_t bytes = recvCount * call.es;
    if (is_root)
        for (uint32_t p = 0; p < call.rank->size; p++)
            step->send[p] = (hccl_block){(char *)sendBuf + p * bytes, bytes};
    step->recv[root] = (hccl_block){recvBuf, bytes};
    return hccl_call_submit(&call, o);
}

/* AllGather and AllGatherV: every rank's sendCount elements land in every rank's recvBuf, rank p's
 * at displs[p] (p * sendCount without displacements). */
static HcclResult all_gather(hccl_call *call, hccl_op *o, char *send, uint64_t send_count, char *recv,
                             const uint64_t *counts, const uint64_t *displs)
{
    hccl_step *step = hccl_add_step(o, HCCL_STEP_ALLTOALL);
    if (step == NULL)
        return HCCL_E_MEMORY;
    for (uint32_t p = 0; p < call->rank->size; p++) {
        uint64_t count = counts ? counts[p] : send_count, displ = displs ? displs[p] : p * send_count;
        step->send[p] = (hccl_block){send, send_count * call->es};
        step->recv[p] = (hccl_block){recv + displ * call->es, count * call->es};
    }
    return HCCL_SUCCESS;
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
    HcclResult rc = hccl_check_nulls(api, 4, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, sendCount, dataType);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, sendCount);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, sendCount * call.rank->size);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_ALLGATHER, dataType, -1, UINT32_MAX, sendCount);
    return o ? submit_built(&call, o, all_gather(&call, o, sendBuf, sendCount, recvBuf, NULL, NULL))
             : hccl_call_submit(&call, NULL);
}

OPEMU_EXPORT HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                       const void *recvDispls, HcclDataType dataType, HcclComm comm,
                                       aclrtStream stream)
{
    const char *api = "HcclAllGatherV";
    const char *names[] = {"stream", "comm", "sendBuf", "recvBuf", "recvCounts", "recvDispls"};
    const void *values[] = {stream, comm, sendBuf, recvBuf, recvCounts, recvDispls};
    hccl_call call;
    HcclResult rc = hccl_check_nulls(api, 6, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc == HCCL_SUCCESS)
        rc = moving_checks(&call, sendCount, dataType);
    uint64_t span = 0;
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_counts(&call, "recvCounts", recvCounts, call.rank->size);
    if (rc == HCCL_SUCCESS)
        rc = hccl_layout_span(&call, "recvDispls", recvCounts, recvDispls, &span);
    const uint64_t *counts = recvCounts;
    if (rc == HCCL_SUCCESS && sendCount != counts[call.rank->rank])
        rc = hccl_fail(HCCL_E_PARA, "EI0003: In [%s], sendCount %llu is not recvCounts[%u] = %llu", api,
                       (unsigned long long)sendCount, call.rank->rank, (unsigned long long)counts[call.rank->rank]);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "sendBuf", sendBuf, sendCount);
    if (rc == HCCL_SUCCESS)
        rc = hccl_check_buffer(&call, "recvBuf", recvBuf, span);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_ALLGATHER_V, dataType, -1, UINT32_MAX, 0);
    if (o == NULL)
        return hccl_call_submit(&call, NULL);
    o->sig.digest = hccl_digest(0, recvCounts, call.rank->size * sizeof(uint64_t));
    return submit_built(&call, o, all_gather(&call, o, sendBuf, sendCount, recvBuf, recvCounts, recvDispls));
}

OPEMU_EXPORT HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    const char *api = "HcclBarrier";
    const char *names[] = {"comm", "stream"};
    const void *values[] = {comm, stream};
    hccl_call call;
    HcclResult rc = hccl_check_nulls(api, 2, names, values);
    if (rc == HCCL_SUCCESS)
        rc = hccl_call_begin(&call, api, comm, stream);
    if (rc)
        return rc;
    hccl_op *o = hccl_call_op(&call, HCCL_CMD_BARRIER, -1, -1, UINT32_MAX, 0);
    return submit_built(&call, o, o && hccl_add_step(o, HCCL_STEP_ALLTOALL) ? HCCL_SUCCESS : HCCL_E_MEMORY);
}
