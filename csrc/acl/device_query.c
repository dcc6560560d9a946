/* Device identity, utilisation, capabilities and peer access.
 *
 * Every emulated device is the same host memory, so any device can reach any other's memory:
 * peer access can always be enabled, and is recorded per (device, peer) pair for the status query. */
#include <pthread.h>
#include <string.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"

#define MAX_DEVICES 64
/* The vendor reports utilisation it cannot measure as -1 (its DEVICE_UTILIZATION_NOT_SUPPORT). */
#define UTILIZATION_NOT_SUPPORTED (-1)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char peer_enabled[MAX_DEVICES][MAX_DEVICES];

static int valid_device(int64_t id, const char *api)
{
    if (id < 0 || id >= opemu_device_count() || id >= MAX_DEVICES)
        return opemu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: device %lld does not exist (%d devices)", api,
                          (long long)id, opemu_device_count());
    return ACL_SUCCESS;
}

/* A stable identity per device: "opemu-npu" and the device number, in the 16 UUID bytes. */
OPEMU_EXPORT aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    if (uuid == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceGetUuid: uuid is null");
    int rc = valid_device(deviceId, "aclrtDeviceGetUuid");
    if (rc)
        return rc;
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    memcpy(uuid->bytes, "opemu-npu", 9);
    uuid->bytes[15] = (char)deviceId;
    return ACL_SUCCESS;
}

/* A sample at the moment of the call: the AI Core and vector units are in use (100) while a kernel
 * of this process runs on the device, idle (0) otherwise; the AI CPU runs nothing of opemu's.
 * Memory utilisation is not reported, as on the vendor's runtime. */
OPEMU_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    if (utilizationInfo == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceUtilizationRate: utilizationInfo is null");
    if (utilizationInfo->utilizationExtend != NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceUtilizationRate: utilizationInfo->utilizationExtend "
                          "is reserved and must be null");
    int rc = valid_device(deviceId, "aclrtGetDeviceUtilizationRate");
    if (rc)
        return rc;
    int running = opemu_device_running(deviceId);
    utilizationInfo->cubeUtilization = running ? 100 : 0;
    utilizationInfo->vectorUtilization = running ? 100 : 0;
    utilizationInfo->aicpuUtilization = 0;
    utilizationInfo->memoryUtilization = UTILIZATION_NOT_SUPPORTED;
    return ACL_SUCCESS;
}

/* Neither feature the header names exists on an emulated device: no task update from the task
 * scheduler CPU, no memory-queue events across devices. */
OPEMU_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)
{
    if (value == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCapability: value is null");
    int rc = valid_device(deviceId, "aclrtGetDeviceCapability");
    if (rc)
        return rc;
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtGetDeviceCapability: invalid feature type %d",
                          (int)devFeatureType);
    *value = ACL_DEV_FEATURE_NOT_SUPPORT;
    return ACL_SUCCESS;
}

/* ---- peer access ---- */

static int peer_pair(int32_t device, int32_t peer, const char *api)
{
    if (device == peer)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: deviceId %d cannot be equal to peerDeviceId %d", api, device,
                          peer);
    int rc = valid_device(device, api);
    return rc ? rc : valid_device(peer, api);
}

OPEMU_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    int rc = peer_pair(deviceId, peerDeviceId, "aclrtDeviceCanAccessPeer");
    if (rc)
        return rc;
    if (canAccessPeer == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtDeviceCanAccessPeer: canAccessPeer is null");
    *canAccessPeer = 1;
    return ACL_SUCCESS;
}

static aclError set_peer_access(int32_t peerDeviceId, int enable, const char *api)
{
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = peer_pair(ctx->device, peerDeviceId, api);
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    int was = peer_enabled[ctx->device][peerDeviceId];
    if (enable || was)
        peer_enabled[ctx->device][peerDeviceId] = (unsigned char)enable;
    pthread_mutex_unlock(&lock);
    if (!enable && !was)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: access from device %d to device %d was not enabled", api,
                          ctx->device, peerDeviceId);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    if (flags != 0)
        return opemu_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtDeviceEnablePeerAccess: flags %u is reserved and must "
                          "be 0", flags);
    return set_peer_access(peerDeviceId, 1, "aclrtDeviceEnablePeerAccess");
}

OPEMU_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    return set_peer_access(peerDeviceId, 0, "aclrtDeviceDisablePeerAccess");
}

OPEMU_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtDevicePeerAccessStatus: status is null");
    int rc = peer_pair(deviceId, peerDeviceId, "aclrtDevicePeerAccessStatus");
    if (rc)
        return rc;
    pthread_mutex_lock(&lock);
    *status = peer_enabled[deviceId][peerDeviceId];
    pthread_mutex_unlock(&lock);
    return ACL_SUCCESS;
}

/* ---- floating-point overflow mode ----
 * The kernels compute IEEE results (inf and NaN out of an overflow), which is INF/NAN mode; the
 * saturation mode (overflows clamped to the largest finite value) is not emulated, so asking for it
 * is refused rather than silently ignored. */

OPEMU_EXPORT aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    if (mode == ACL_RT_OVERFLOW_MODE_SATURATION)
        return opemu_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "aclrtSetDeviceSatMode: opemu computes in "
                          "ACL_RT_OVERFLOW_MODE_INFNAN mode only; ACL_RT_OVERFLOW_MODE_SATURATION is not emulated");
    if (mode != ACL_RT_OVERFLOW_MODE_INFNAN)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetDeviceSatMode: invalid mode %d", (int)mode);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    if (mode == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceSatMode: mode is null");
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *mode = ACL_RT_OVERFLOW_MODE_INFNAN;
    return ACL_SUCCESS;
}
