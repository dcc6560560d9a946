/* HCCL communicator management (libhcomm.so; libhccl.so exports it too, as CANN 8.x did): creation
 * from a root info, a rank table or a device list, sub-communicators, queries, configuration,
 * group calls and memory ranges. */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stddef.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <hccl/hccl_types.h>
#include <acl/acl.h>

/* The vendor marks these declarations weak: a program that names them without linking libhcomm
 * still links, and finds them null at run time. */
#ifndef HCOMM_WEAK_SYMBOL
#define HCOMM_WEAK_SYMBOL __attribute__((weak))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* `clusterInfo` is the path of a rank table (JSON); `rank` this process's rank in it. */
extern HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                                HcclComm *comm) HCOMM_WEAK_SYMBOL;
/* A communicator of `rankNum` ranks of `comm` (their ranks in `rankIds`), this rank being
 * `subCommRankId` in it; `subCommId` names it among the parent's sub-communicators. */
extern HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds, uint64_t subCommId,
                                          uint32_t subCommRankId, HcclCommConfig *config,
                                          HcclComm *subComm) HCOMM_WEAK_SYMBOL;
/* The root's rendezvous address, for every rank's HcclCommInitRootInfo. */
extern HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                       HcclComm *comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                             const HcclCommConfig *config, HcclComm *comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue) HCOMM_WEAK_SYMBOL;
/* `commName` receives at most COMM_NAME_MAX_LENGTH bytes. */
extern HcclResult HcclGetCommName(HcclComm comm, char *commName) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm);
extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommDestroy(HcclComm comm) HCOMM_WEAK_SYMBOL;
/* One process, one communicator per device: comms[i] is rank i on devices[i]. Single host only. */
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError) HCOMM_WEAK_SYMBOL;
extern const char *HcclGetErrorString(HcclResult code) HCOMM_WEAK_SYMBOL;
/* Configuration fields below this HcclCommConfigCapability value are understood. */
extern uint32_t HcclGetCommConfigCapability(void) HCOMM_WEAK_SYMBOL;

/* Writes the version header and the "not set" value of every field. */
static inline void HcclCommConfigInit(HcclCommConfig *config)
{
    typedef struct {
        size_t size;
        uint32_t magicWord;
        uint32_t version;
        uint64_t reserved;
    } HcclCommConfigHeader;
    if (config == NULL)
        return;
    HcclCommConfigHeader *header = (HcclCommConfigHeader *)(void *)config->reserved;
    header->size = sizeof(HcclCommConfig);
    header->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
    header->version = HCCL_COMM_CONFIG_VERSION;
    header->reserved = 0;
    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
    config->hcclCommName[0] = '\0';
    config->hcclUdi[0] = '\0';
    config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
    config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
    config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
    config->aclGraphZeroCopyEnable = 0;
    config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
    config->hcclAlgo[0] = '\0';
    config->hcclRetryEnable[0] = '\0';
    config->hcclRetryParams[0] = '\0';
    config->hcclBufferName[0] = '\0';
    config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
    config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
}

extern HcclResult HcclCommSuspend(HcclComm comm) HCOMM_WEAK_SYMBOL;
typedef HcclResult (*HcclCommStateCallback)(HcclComm comm, HcclCommStatePhase state, void *args);
extern HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb, void *args);
extern HcclResult HcclCommResume(HcclComm comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status);
/* Virtual ranges whose physical memory the communicator may use (zero-copy). */
extern HcclResult HcclCommSetMemoryRange(HcclComm comm, void *baseVirPtr, size_t size, size_t alignment,
                                         uint64_t flags) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void *baseVirPtr) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommActivateCommMemory(HcclComm comm, void *virPtr, size_t size, size_t offset,
                                             aclrtDrvMemHandle handle, uint64_t flags) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void *virPtr) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommWorkingDevNicSet(HcclComm comm, uint32_t *ranks, bool *useBackup,
                                           uint32_t nRanks) HCOMM_WEAK_SYMBOL;
/* Operations between HcclGroupStart and HcclGroupEnd are issued together (experimental in the vendor's API). */
extern HcclResult HcclGroupStart(void);
extern HcclResult HcclGroupEnd(void);
extern HcclResult HcclGroupStatusGet(bool *isGroupEnabled);
extern HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size, HcclCommSymWindow *winHandle,
                                         uint32_t flag);
extern HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
extern HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
                                    size_t *offset);

typedef enum {
    HCCL_OP_EXPANSION_MODE_INVALID = -1,
    HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
    HCCL_OP_EXPANSION_MODE_AIV = 1,
    HCCL_OP_EXPANSION_MODE_HOST = 2,
    HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
    HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
    HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
    HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;

typedef enum {
    HCCL_CONFIG_TYPE_INVALID = -1,
    HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0
} HcclConfigType;

typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

extern HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void *info);

/* Declared by CANN 8.x's single hccl.h (the copy torch_npu builds against): per-communicator
 * configuration and window memory. */
extern HcclResult HcclSetCommConfig(HcclComm comm, HcclConfig config, HcclConfigValue configValue);
extern HcclResult HcclGetCommConfig(HcclComm comm, HcclConfig config, HcclConfigValue *configValue);
extern HcclResult HcclCommRegister(HcclComm comm, void *addr, uint64_t size, void **handle, uint32_t flag);
extern HcclResult HcclCommDeregister(HcclComm comm, void *handle);
extern HcclResult HcclCommExchangeMem(HcclComm comm, void *windowHandle, uint32_t *peerRanks, uint32_t peerRankNum);

#ifdef __cplusplus
}
#endif

#endif
