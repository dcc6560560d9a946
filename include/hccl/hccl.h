/* HCCL collective and point-to-point operations (libhccl.so). Every operation takes the rank's
 * communicator and the stream it is queued on, and returns once it is queued: its results are
 * there when the stream reaches it (aclrtSynchronizeStream, or an event recorded after it).
 * Programs call AscendCL with only this header included: it includes <acl/acl.h>. */
#ifndef HCCL_H_
#define HCCL_H_

#include <hccl/hccl_types.h>
#include <hccl/hccl_comm.h>
#include <acl/acl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every rank passes the same count, data type and reduction; recvBuf may be sendBuf. */
extern HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                                HcclComm comm, aclrtStream stream);
/* `buf` is root's input and every other rank's output. */
extern HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                aclrtStream stream);
/* sendBuf holds rank-size blocks of recvCount elements; rank i receives the reduction of every rank's block i. */
extern HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                    HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* As HcclReduceScatter with blocks of sendCounts[i] elements at sendDispls[i] (uint64_t arrays, the
 * same on every rank); recvCount is this rank's sendCounts[rank]. */
extern HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                                     uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                     aclrtStream stream);
/* root's sendBuf holds rank-size blocks of recvCount elements; rank i receives block i. */
extern HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                              HcclComm comm, aclrtStream stream);
/* recvBuf receives every rank's sendCount elements, in rank order. */
extern HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                HcclComm comm, aclrtStream stream);
/* As HcclAllGather, rank i's elements (recvCounts[i]) landing at recvDispls[i] (uint64_t arrays). */
extern HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                 const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream);
extern HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                           aclrtStream stream);
extern HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                           aclrtStream stream);
/* sendCountMatrix is rank-size x rank-size uint64_t: entry [i][j] is what rank i sends rank j,
 * packed in rank order in both buffers. */
extern HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                                 const void *recvBuf, HcclDataType recvType, HcclComm comm, aclrtStream stream);
/* Counts and displacements are uint64_t arrays of rank-size entries, in elements. */
extern HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls, HcclDataType sendType,
                                const void *recvBuf, const void *recvCounts, const void *rdispls, HcclDataType recvType,
                                HcclComm comm, aclrtStream stream);
extern HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                               uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream);
/* The reduction lands in root's recvBuf. */
extern HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                             uint32_t root, HcclComm comm, aclrtStream stream);
/* Every item is posted before any is waited for, so rings of sends and receives cannot deadlock. */
extern HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
