/* The profiling hooks (experiment/msprof/toolchain/aprof_pub.h, libprofapi.so).
 *
 * opemu runs no profiler, so these answer as the vendor's libprofapi does while profiling was never
 * started: reports are refused with MSPROF_ERROR_UNINITIALIZE (its report buffer is not initialised)
 * and bad records with PROFILING_FAILED (-1); command callbacks are registered and never called (no
 * profiling command ever comes); no operator switch is on. The hash ids the reports would carry are
 * real: a string's id is stable and MsprofId2Str gives the string back. MsprofSysCycleTime is the
 * vendor's counter without host frequency support: CLOCK_MONOTONIC_RAW in ns. MsprofInit, which would
 * start profiling, answers not supported. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "aclop.h"
#include "experiment/msprof/toolchain/aprof_pub.h"

#define PROFILING_FAILED (-1)
#define BATCH_REPORT_MAX (512 * sizeof(struct MsprofAdditionalInfo))
#define CALLBACKS_MAX 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct { uint32_t module; ProfCommandHandle handle; } callbacks[CALLBACKS_MAX];
static int n_callbacks;

typedef struct hashed {
    uint64_t id;
    char *text;
    struct hashed *next;
} hashed;
static hashed *strings;

OPEMU_EXPORT int32_t MsprofInit(uint32_t dataType, void *data, uint32_t dataLen)
{
    return opemu_not_supported(MSPROF_ERROR, "MSPROF_ERROR", "MsprofInit", "experiment/msprof/toolchain/aprof_pub.h");
}

OPEMU_EXPORT int32_t MsprofFinalize(void) { return MSPROF_ERROR_NONE; }

OPEMU_EXPORT int32_t MsprofRegisterCallback(uint32_t moduleId, ProfCommandHandle handle)
{
    if (handle == NULL) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "Register callback with invalid handle nullptr, module[%u]", moduleId);
        return PROFILING_FAILED;
    }
    pthread_mutex_lock(&lock);
    int known = 0;
    for (int i = 0; i < n_callbacks; i++)
        known |= callbacks[i].module == moduleId && callbacks[i].handle == handle;
    if (!known && n_callbacks < CALLBACKS_MAX) {
        callbacks[n_callbacks].module = moduleId;
        callbacks[n_callbacks].handle = handle;
        n_callbacks++;
    }
    pthread_mutex_unlock(&lock);
    return MSPROF_ERROR_NONE;
}

/* What a report meets while profiling was never started. */
static int32_t report(const void *record, const char *api)
{
    if (record == NULL) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "%s interface input invalid data.", api);
        return PROFILING_FAILED;
    }
    return MSPROF_ERROR_UNINITIALIZE;
}

OPEMU_EXPORT int32_t MsprofReportApi(uint32_t nonPersistantFlag, const struct MsprofApi *api)
{
    return report(api, "MsprofReportApi");
}

OPEMU_EXPORT int32_t MsprofReportEvent(uint32_t nonPersistantFlag, const struct MsprofEvent *event)
{
    return report(event, "MsprofReportEvent");
}

OPEMU_EXPORT int32_t MsprofReportCompactInfo(uint32_t nonPersistantFlag, const VOID_PTR data, uint32_t length)
{
    return report(data, "MsprofReportCompactInfo");
}

OPEMU_EXPORT int32_t MsprofReportAdditionalInfo(uint32_t nonPersistantFlag, const VOID_PTR data, uint32_t length)
{
    return report(data, "MsprofReportAdditionalInfo");
}

OPEMU_EXPORT int32_t MsprofReportBatchAdditionalInfo(uint32_t nonPersistantFlag, const VOID_PTR data,
                                                     uint32_t length)
{
    if (data != NULL && (length % sizeof(struct MsprofAdditionalInfo) != 0 || length > BATCH_REPORT_MAX)) {
        opemu_fail(ACL_ERROR_INVALID_PARAM, "MsprofReportBatchAdditionalInfo length [%u bytes] is invalid.", length);
        return PROFILING_FAILED;
    }
    return report(data, "MsprofReportBatchAdditionalInfo");
}

OPEMU_EXPORT size_t MsprofGetBatchReportMaxSize(uint32_t type)
{
    return type == MSPROF_BATCH_ADDITIONAL_INFO ? BATCH_REPORT_MAX : 0;
}

OPEMU_EXPORT int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName)
{
    return typeName == NULL ? PROFILING_FAILED : MSPROF_ERROR_NONE;
}

OPEMU_EXPORT int32_t MsprofRegDataFormat(uint16_t level, uint32_t typeId, const char *dataFormat)
{
    return dataFormat == NULL ? PROFILING_FAILED : MSPROF_ERROR_NONE;
}

/* FNV-1a over the bytes; a collision takes the next free id, so every distinct string has its own. */
OPEMU_EXPORT uint64_t MsprofGetHashId(const char *hashInfo, size_t length)
{
    if (hashInfo == NULL || length == 0)
        return UINT64_MAX;
    uint64_t id = 14695981039346656037ULL;
    for (size_t i = 0; i < length; i++)
        id = (id ^ (unsigned char)hashInfo[i]) * 1099511628211ULL;
    pthread_mutex_lock(&lock);
    for (hashed *h = strings; h; h = h->next)
        if (strlen(h->text) == length && memcmp(h->text, hashInfo, length) == 0) {
            id = h->id;
            pthread_mutex_unlock(&lock);
            return id;
        }
    for (int taken = 1; taken;) {
        taken = 0;
        for (hashed *h = strings; h && !taken; h = h->next)
            taken = h->id == id;
        id += (uint64_t)taken;
    }
    hashed *h = malloc(sizeof *h);
    char *text = malloc(length + 1);
    if (h && text) {
        memcpy(text, hashInfo, length);
        text[length] = 0;
        h->id = id;
        h->text = text;
        h->next = strings;
        strings = h;
    } else {
        free(h);
        free(text);
    }
    pthread_mutex_unlock(&lock);
    return id;
}

OPEMU_EXPORT uint64_t MsprofStr2Id(const char *hashInfo, size_t length) { return MsprofGetHashId(hashInfo, length); }

OPEMU_EXPORT char *MsprofId2Str(const uint64_t Id)
{
    static char none[1];
    char *text = none;
    pthread_mutex_lock(&lock);
    for (hashed *h = strings; h; h = h->next)
        if (h->id == Id)
            text = h->text;
    pthread_mutex_unlock(&lock);
    return text;
}

OPEMU_EXPORT char *MsprofGetPath(void)
{
    static char none[1]; /* no profiling output directory */
    return none;
}

OPEMU_EXPORT int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId)
{
    return MSPROF_ERROR_NONE;
}

OPEMU_EXPORT int32_t MsprofUnsetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId)
{
    return MSPROF_ERROR_NONE;
}

OPEMU_EXPORT uint64_t MsprofSysCycleTime(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_RAW, &now);
    return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

OPEMU_EXPORT bool MsprofCheckOpSwitch(uint32_t type, const char *op, size_t len) { return false; }
