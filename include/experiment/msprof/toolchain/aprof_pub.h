/* The profiling hooks of libprofapi.so (MsprofReportApi and friends), which the runtime and
 * frameworks (torch_npu links six of them at load) call to report API spans, events and compact
 * records to a running profiler. Names, values, record layouts and prototypes as the vendor's
 * aprof_pub.h declares them; the 40 bytes of a compact record's data are left to the caller (the
 * vendor names per-kind views of them). */
#ifndef APROF_PUB_H
#define APROF_PUB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSVP_PROF_API __attribute__((visibility("default")))

typedef void *VOID_PTR;
#define MSPROF_REPORT_DATA_MAGIC_NUM 0x5A5AU
#define MSPROF_EVENT_FLAG 0xFFFFFFFFFFFFFFFFULL
#define MSPROF_COMPACT_INFO_DATA_LENGTH 40
#define MSPROF_ADDTIONAL_INFO_DATA_LENGTH (232)

#define MSPROF_REPORT_PYTORCH_LEVEL 30000U
#define MSPROF_REPORT_PTA_LEVEL 25000U
#define MSPROF_REPORT_TX_LEVEL 20500U
#define MSPROF_REPORT_ACL_LEVEL 20000U
#define MSPROF_REPORT_MODEL_LEVEL 15000U
#define MSPROF_REPORT_NODE_LEVEL 10000U
#define MSPROF_REPORT_AICPU_LEVEL 6000U
#define MSPROF_REPORT_HCCL_NODE_LEVEL 5500U
#define MSPROF_REPORT_RUNTIME_LEVEL 5000U

enum MsprofErrorCode {
    MSPROF_ERROR_NONE = 0,
    MSPROF_ERROR_MEM_NOT_ENOUGH,
    MSPROF_ERROR_GET_ENV,
    MSPROF_ERROR_CONFIG_INVALID,
    MSPROF_ERROR_ACL_JSON_OFF,
    MSPROF_ERROR,
    MSPROF_ERROR_UNINITIALIZE,
};

enum MsprofCtrlCallbackType {
    MSPROF_CTRL_INIT_ACL_ENV = 0,
    MSPROF_CTRL_INIT_ACL_JSON = 1,
    MSPROF_CTRL_INIT_GE_OPTIONS = 2,
    MSPROF_CTRL_FINALIZE = 3,
    MSPROF_CTRL_INIT_HELPER = 4,
    MSPROF_CTRL_INIT_PURE_CPU = 5,
    MSPROF_CTRL_INIT_AICPU = 6,
    MSPROF_CTRL_INIT_DYNA = 0xFF,
};

enum MsprofCommandHandleType {
    PROF_COMMANDHANDLE_TYPE_INIT = 0,
    PROF_COMMANDHANDLE_TYPE_START,
    PROF_COMMANDHANDLE_TYPE_STOP,
    PROF_COMMANDHANDLE_TYPE_FINALIZE,
    PROF_COMMANDHANDLE_TYPE_MODEL_SUBSCRIBE,
    PROF_COMMANDHANDLE_TYPE_MODEL_UNSUBSCRIBE,
    PROF_COMMANDHANDLE_TYPE_MAX
};

enum MsprofReportBatchType { MSPROF_BATCH_ADDITIONAL_INFO = 0 };

enum MsprofOpSwitchType { MSPROF_OPTYPE = 0 };

struct MsprofApi {
    uint16_t magicNumber;
    uint16_t level;
    uint32_t type;
    uint32_t threadId;
    uint32_t reserve;
    uint64_t beginTime;
    uint64_t endTime;
    uint64_t itemId;
};

struct MsprofEvent {
    uint16_t magicNumber;
    uint16_t level;
    uint32_t type;
    uint32_t threadId;
    uint32_t requestId; /* 0xFFFF: a single event */
    uint64_t timeStamp;
    uint64_t eventFlag;
    uint64_t itemId;
};

struct MsprofCompactInfo {
    uint16_t magicNumber;
    uint16_t level;
    uint32_t type;
    uint32_t threadId;
    uint32_t dataLen;
    uint64_t timeStamp;
    union {
        uint8_t info[MSPROF_COMPACT_INFO_DATA_LENGTH];
    } data;
};

struct MsprofAdditionalInfo {
    uint16_t magicNumber;
    uint16_t level;
    uint32_t type;
    uint32_t threadId;
    uint32_t dataLen;
    uint64_t timeStamp;
    uint8_t data[MSPROF_ADDTIONAL_INFO_DATA_LENGTH];
};

typedef int32_t (*ProfCommandHandle)(uint32_t type, void *data, uint32_t len);

typedef int32_t (*MsprofReporterCallback)(uint32_t moduleId, uint32_t type, void *data, uint32_t len);

MSVP_PROF_API int32_t MsprofInit(uint32_t dataType, void *data, uint32_t dataLen);
MSVP_PROF_API int32_t MsprofFinalize(void);
MSVP_PROF_API int32_t MsprofRegisterCallback(uint32_t moduleId, ProfCommandHandle handle);
MSVP_PROF_API int32_t MsprofReportApi(uint32_t nonPersistantFlag, const struct MsprofApi *api);
MSVP_PROF_API int32_t MsprofReportEvent(uint32_t nonPersistantFlag, const struct MsprofEvent *event);
MSVP_PROF_API int32_t MsprofReportCompactInfo(uint32_t nonPersistantFlag, const VOID_PTR data, uint32_t length);
MSVP_PROF_API int32_t MsprofReportAdditionalInfo(uint32_t nonPersistantFlag, const VOID_PTR data, uint32_t length);
MSVP_PROF_API int32_t MsprofReportBatchAdditionalInfo(uint32_t nonPersistantFlag, const VOID_PTR data,
    uint32_t length);
MSVP_PROF_API size_t MsprofGetBatchReportMaxSize(uint32_t type);
MSVP_PROF_API int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName);
MSVP_PROF_API int32_t MsprofRegDataFormat(uint16_t level, uint32_t typeId, const char *dataFormat);
MSVP_PROF_API uint64_t MsprofGetHashId(const char *hashInfo, size_t length);
MSVP_PROF_API uint64_t MsprofStr2Id(const char *hashInfo, size_t length);
MSVP_PROF_API char *MsprofId2Str(const uint64_t Id);
MSVP_PROF_API char *MsprofGetPath();
MSVP_PROF_API int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId);
MSVP_PROF_API int32_t MsprofUnsetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId);
MSVP_PROF_API uint64_t MsprofSysCycleTime(void);
MSVP_PROF_API bool MsprofCheckOpSwitch(uint32_t type, const char *op, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* APROF_PUB_H */
