/* MCCL, MetaX MACA's collective library (libmccl.so): NCCL's API with `mccl` names and MACA
 * streams. Names and values follow MetaX's mccl.h (MCCL 2.16, RCCL-derived), which agree with
 * NCCL's renamed; its profiling aliases (pmccl*) are not declared. */
#ifndef MCCL_H_
#define MCCL_H_

#include <stddef.h>
#include <stdint.h>
#include <mcr/mc_runtime.h>

#define MCCL_MAJOR 2
#define MCCL_MINOR 16
#define MCCL_PATCH 5
#define MCCL_SUFFIX ""
#define MCCL_VERSION_CODE 21605
#define MCCL_VERSION(X, Y, Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))

#define MCCL_BFLOAT16 1
#define MCCL_GATHER_SCATTER 1
#define MCCL_ALLTOALLV 1
#define MCCL_MULTIRANKPERGPU 1

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t mcclTag;
typedef struct mcclComm *mcclComm_t;

#define MCCL_UNIQUE_ID_BYTES 128
/* Opaque to the app: made by mcclGetUniqueId on one rank, handed to every rank's mcclCommInitRank. */
typedef struct {
    char internal[MCCL_UNIQUE_ID_BYTES];
} mcclUniqueId;

typedef enum {
    mcclSuccess = 0,
    mcclUnhandledMacaError = 1,
    mcclSystemError = 2,
    mcclInternalError = 3,
    mcclInvalidArgument = 4,
    mcclInvalidUsage = 5,
    mcclRemoteError = 6,
    mcclInProgress = 7,
    mcclNumResults = 8
} mcclResult_t;

/* Versioned by its size and magic; initialise it with MCCL_CONFIG_INITIALIZER. */
typedef struct mcclConfig_v21400 {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
} mcclConfig_t;

#define MCCL_CONFIG_INITIALIZER {sizeof(mcclConfig_t), 0xcafebeef, MCCL_VERSION(MCCL_MAJOR, MCCL_MINOR, MCCL_PATCH), 1}

mcclResult_t mcclGetVersion(int *version);
mcclResult_t mcclGetUniqueId(mcclUniqueId *uniqueId);
mcclResult_t mcclCommInitRankConfig(mcclComm_t *comm, int nranks, mcclUniqueId commId, int rank,
                                    mcclConfig_t *config);
/* rank is in [0, nranks); the calling thread's current device is the rank's. */
mcclResult_t mcclCommInitRank(mcclComm_t *comm, int nranks, mcclUniqueId commId, int rank);
/* Several ranks on one device, told apart by `virtualId`. */
mcclResult_t mcclCommInitRankMulti(mcclComm_t *comm, int nranks, mcclUniqueId commId, int rank, int virtualId);
/* One process: comm[i] is rank i on devlist[i] (devices 0..ndev-1 when devlist is NULL). */
mcclResult_t mcclCommInitAll(mcclComm_t *comm, int ndev, const int *devlist);
mcclResult_t mcclCommFinalize(mcclComm_t comm);
mcclResult_t mcclCommDestroy(mcclComm_t comm);
mcclResult_t mcclCommAbort(mcclComm_t comm);
const char *mcclGetErrorString(mcclResult_t result);
const char *mcclGetLastError(mcclComm_t comm);
mcclResult_t mcclCommGetAsyncError(mcclComm_t comm, mcclResult_t *asyncError);
mcclResult_t mcclCommCount(const mcclComm_t comm, int *count);
mcclResult_t mcclCommMcDevice(const mcclComm_t comm, int *device);
mcclResult_t mcclCommUserRank(const mcclComm_t comm, int *rank);

typedef enum { mcclNumOps_dummy = 5 } mcclRedOp_dummy_t;
typedef enum {
    mcclSum = 0,
    mcclProd = 1,
    mcclMax = 2,
    mcclMin = 3,
    mcclAvg = 4,
    mcclNumOps = 5, /* the first value of an operator made by mcclRedOpCreate* */
    mcclMaxRedOp = 0x7fffffff >> (32 - 8 * sizeof(mcclRedOp_dummy_t))
} mcclRedOp_t;

typedef enum {
    mcclInt8 = 0,
    mcclChar = 0,
    mcclUint8 = 1,
    mcclInt32 = 2,
    mcclInt = 2,
    mcclUint32 = 3,
    mcclInt64 = 4,
    mcclUint64 = 5,
    mcclFloat16 = 6,
    mcclHalf = 6,
    mcclFloat32 = 7,
    mcclFloat = 7,
    mcclFloat64 = 8,
    mcclDouble = 8,
    mcclBfloat16 = 9,
    mcclNumTypes = 10
} mcclDataType_t;

typedef enum {
    mcclScalarDevice = 0,        /* read while the collective runs */
    mcclScalarHostImmediate = 1  /* read before mcclRedOpCreatePreMulSum returns */
} mcclScalarResidence_t;

mcclResult_t mcclRedOpCreatePreMulSum(mcclRedOp_t *op, void *scalar, mcclDataType_t datatype,
                                      mcclScalarResidence_t residence, mcclComm_t comm);
mcclResult_t mcclRedOpDestroy(mcclRedOp_t op, mcclComm_t comm);

/* Every operation returns once it is queued on `stream`; sendbuff == recvbuff is in place. */
mcclResult_t mcclReduce(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype, mcclRedOp_t op,
                        int root, mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclBcast(void *buff, size_t count, mcclDataType_t datatype, int root, mcclComm_t comm,
                       mcStream_t stream);
mcclResult_t mcclBroadcast(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype, int root,
                           mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllReduce(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                           mcclRedOp_t op, mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllReduceExt(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                              mcclRedOp_t op, mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, mcclDataType_t datatype,
                               mcclRedOp_t op, mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclReduceScatterExt(const void *sendbuff, void *recvbuff, size_t recvcount, mcclDataType_t datatype,
                                  mcclRedOp_t op, struct mcclComm *comm, mcStream_t stream);
mcclResult_t mcclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, mcclDataType_t datatype,
                           mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllGatherExt(const void *sendbuff, void *recvbuff, size_t sendcount, mcclDataType_t datatype,
                              mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclSend(const void *sendbuff, size_t count, mcclDataType_t datatype, int peer, mcclComm_t comm,
                      mcStream_t stream);
mcclResult_t mcclSendExt(const void *sendbuff, size_t count, mcclDataType_t datatype, int peer, mcclComm_t comm,
                         mcStream_t stream);
mcclResult_t mcclRecv(void *recvbuff, size_t count, mcclDataType_t datatype, int peer, mcclComm_t comm,
                      mcStream_t stream);
mcclResult_t mcclRecvExt(void *recvbuff, size_t count, mcclDataType_t datatype, int peer, mcclComm_t comm,
                         mcStream_t stream);
mcclResult_t mcclGather(const void *sendbuff, void *recvbuff, size_t sendcount, mcclDataType_t datatype, int root,
                        mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclScatter(const void *sendbuff, void *recvbuff, size_t recvcount, mcclDataType_t datatype, int root,
                         mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllToAll(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                          mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllToAllExt(const void *sendbuff, void *recvbuff, size_t count, mcclDataType_t datatype,
                             mcclComm_t comm, mcStream_t stream);
/* Counts and displacements in elements. */
mcclResult_t mcclAllToAllv(const void *sendbuff, const size_t sendcounts[], const size_t sdispls[], void *recvbuff,
                           const size_t recvcounts[], const size_t rdispls[], mcclDataType_t datatype,
                           mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllToAllvExt(const void *sendbuff, const size_t sendcounts[], const size_t sdispls[],
                              void *recvbuff, const size_t recvcounts[], const size_t rdispls[],
                              mcclDataType_t datatype, mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllToAlld(const void *sendbuff[], const size_t sendcounts[], void *recvbuff[],
                           const size_t recvcounts[], mcclDataType_t datatype, mcclComm_t comm, mcStream_t stream);
mcclResult_t mcclAllToAlldExt(const void *sendbuff[], const size_t sendcounts[], void *recvbuff[],
                              const size_t recvcounts[], mcclDataType_t datatype, mcclComm_t comm,
                              mcStream_t stream);
/* Calls between mcclGroupStart and mcclGroupEnd are queued together at mcclGroupEnd. */
mcclResult_t mcclGroupStart(void);
mcclResult_t mcclGroupEnd(void);

#ifdef __cplusplus
}
#endif

#endif
