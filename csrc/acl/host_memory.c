/* Host memory registration, pointer attributes and per-module usage.
 *
 * Registering host memory (aclrtHostRegister) makes it addressable by the device: on the emulated
 * device, whose memory is host memory, the device address is the host address itself, entered in
 * the memory registry as a borrowed device range so kernels and copies accept it. */
#include <string.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/memory.h"

#define HUGE_PAGE (2ULL << 20)
#define SMALL_PAGE 4096U

OPEMU_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    if (ptr == NULL || devPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtHostRegister: ptr and devPtr must not be null");
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtHostRegister: size must be positive");
    if (type != ACL_HOST_REGISTER_MAPPED && type != ACL_HOST_REGISTER_IOMEMORY && type != ACL_HOST_REGISTER_READONLY)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtHostRegister: invalid type %d", (int)type);
    if (size > UINTPTR_MAX - (uintptr_t)ptr)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtHostRegister: [%p, +%llu) wraps around the address space",
                          ptr, (unsigned long long)size);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    opemu_allocation a;
    if (opemu_memory_find(ptr, &a) || opemu_memory_find((const char *)ptr + size - 1, &a))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtHostRegister: [%p, +%llu) overlaps memory the runtime "
                          "already manages (from %p)", ptr, (unsigned long long)size, (void *)a.start);
    opemu_memory_register(ptr, size, ctx->device, OPEMU_BORROWED_HOST);
    *devPtr = ptr;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtHostUnregister(void *ptr)
{
    if (ptr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtHostUnregister: ptr is null");
    opemu_allocation a;
    if (!opemu_memory_find(ptr, &a) || a.start != (uintptr_t)ptr || a.borrowed != OPEMU_BORROWED_HOST)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtHostUnregister: %p is not the start of host memory "
                          "aclrtHostRegister registered", ptr);
    opemu_memory_unregister(ptr);
    return ACL_SUCCESS;
}

/* Device memory is on its device, with huge pages for 2 MiB-multiple mappings; pinned host memory
 * is host memory; anything else is unregistered memory (not an error). */
OPEMU_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    if (ptr == NULL || attributes == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtPointerGetAttributes: ptr and attributes must not be null");
    memset(attributes, 0, sizeof *attributes);
    opemu_allocation a;
    if (!opemu_memory_find(ptr, &a)) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        attributes->pageSize = SMALL_PAGE;
    } else if (a.kind == OPEMU_MEM_DEVICE && a.borrowed != OPEMU_BORROWED_HOST) {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)a.device;
        attributes->pageSize = a.mapped % HUGE_PAGE == 0 ? (uint32_t)HUGE_PAGE : SMALL_PAGE;
    } else {
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        attributes->pageSize = SMALL_PAGE;
    }
    return ACL_SUCCESS;
}

/* All of an app's device memory belongs to one module, the application ("APP"). */
OPEMU_EXPORT aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
                                           size_t *outputNum)
{
    if (memUsageInfo == NULL || outputNum == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemUsageInfo: memUsageInfo and outputNum must not be null");
    if (inputNum == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemUsageInfo: inputNum must be positive");
    if (deviceId < 0 || deviceId >= opemu_device_count())
        return opemu_fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetMemUsageInfo: device %d does not exist", deviceId);
    memset(&memUsageInfo[0], 0, sizeof memUsageInfo[0]);
    strcpy(memUsageInfo[0].name, "APP");
    memUsageInfo[0].curMemSize = opemu_memory_used(deviceId);
    memUsageInfo[0].memPeakSize = opemu_memory_peak(deviceId);
    *outputNum = 1;
    return ACL_SUCCESS;
}
