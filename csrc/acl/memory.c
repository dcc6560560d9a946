/* AscendCL's allocation APIs: device memory (aclrtMalloc and its policies and configurations), host
 * memory (aclrtMallocHost), their release and the memory report.
 *
 * Device memory is host memory laid out as the vendor's allocator lays it out (reference §7):
 * ALIGN_UP(size,32)+32 bytes (no pad for aclrtMallocAlign32 and the 1G policies), and whole 2 MiB
 * pages for HUGE_FIRST/HUGE_ONLY requests above 1 MiB. Starts are 512-byte aligned: the vendor
 * documents 64 as the minimum, but its device allocator hands out at least 512 and real clients
 * (llama.cpp's CANN backend asks for 128) rely on more than 64. The allocations enter core's
 * registry (core/memory.c), which bounds every device access by the mapped size. */
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/memory.h"
#include "sanitizer/sanitizer.h"

#define MiB (1ULL << 20)
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define DEVICE_ALIGNMENT 512
/* Larger requests cannot be rounded up without wrapping: they fail as out of memory. */
#define LARGEST_REQUEST (1ULL << 62)

static uint64_t mapped_size(size_t size, aclrtMemMallocPolicy policy, int pad)
{
    unsigned base = (unsigned)policy & 0xFF; /* the bandwidth/access flags are ORed above */
    int huge1g = base == ACL_MEM_MALLOC_HUGE1G_ONLY || base == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
    uint64_t bytes = ALIGN_UP((uint64_t)size, 32) + (pad && !huge1g ? 32 : 0);
    int huge = base == ACL_MEM_MALLOC_HUGE_FIRST || base == ACL_MEM_MALLOC_HUGE_ONLY ||
               base == ACL_MEM_MALLOC_HUGE_FIRST_P2P || base == ACL_MEM_MALLOC_HUGE_ONLY_P2P ||
               base > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P; /* unknown policies: the runtime default */
    if (huge1g)
        return ALIGN_UP(bytes, 1ULL << 30);
    if (huge && size > MiB)
        return ALIGN_UP(bytes, 2 * MiB);
    return bytes;
}

/* aclrtMallocConfig: optional; when given, its attributes must be ones the header names. The module
 * and VA-flag attributes have no observable effect here; a device id must name a device. */
static aclError check_malloc_config(const aclrtMallocConfig *cfg, const char *api)
{
    if (cfg == NULL)
        return ACL_SUCCESS;
    if (cfg->numAttrs > 0 && cfg->attrs == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg->attrs is null but cfg->numAttrs is %zu", api,
                          cfg->numAttrs);
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        if ((unsigned)a->attr > ACL_RT_MEM_ATTR_VA_FLAG)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg->attrs[%zu].attr %d is not an aclrtMallocAttrType",
                              api, i, (int)a->attr);
        if (a->attr == ACL_RT_MEM_ATTR_DEVICE_ID && a->value.deviceId >= (uint32_t)opemu_device_count())
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: cfg->attrs[%zu] names device %u; there are %d devices",
                              api, i, a->value.deviceId, opemu_device_count());
    }
    return ACL_SUCCESS;
}

static aclError device_malloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy, int pad, const char *api)
{
    if (devPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is null", api);
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: size must be positive", api);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    if ((uint64_t)size > LARGEST_REQUEST ||
        opemu_memory_alloc(devPtr, size, mapped_size(size, policy, pad), DEVICE_ALIGNMENT, ctx->device,
                           OPEMU_MEM_DEVICE) != 0)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "%s: out of device memory: %zu bytes requested, %llu of %llu bytes in use on device %d",
                          api, size, (unsigned long long)opemu_memory_used(ctx->device),
                          (unsigned long long)opemu_device_memory_bytes(), ctx->device);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, 1, "aclrtMalloc");
}

OPEMU_EXPORT aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, 1, "aclrtMallocCached");
}

OPEMU_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return device_malloc(devPtr, size, policy, 0, "aclrtMallocAlign32");
}

OPEMU_EXPORT aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg)
{
    int rc = check_malloc_config(cfg, "aclrtMallocWithCfg");
    return rc ? rc : device_malloc(devPtr, size, policy, 1, "aclrtMallocWithCfg");
}

static aclError host_malloc(void **hostPtr, uint64_t size, const char *api)
{
    if (hostPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: hostPtr is null", api);
    if (size == 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: size must be positive", api);
    if (size > LARGEST_REQUEST || opemu_memory_alloc(hostPtr, size, ALIGN_UP(size, 64), 64, -1, OPEMU_MEM_HOST) != 0)
        return opemu_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of host memory (%llu bytes)", api,
                          (unsigned long long)size);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size) { return host_malloc(hostPtr, size, "aclrtMallocHost"); }

OPEMU_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    int rc = check_malloc_config(cfg, "aclrtMallocHostWithCfg");
    return rc ? rc : host_malloc(ptr, size, "aclrtMallocHostWithCfg");
}

static aclError release(void *ptr, int kind, const char *api)
{
    if (ptr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: pointer is null", api);
    if (opemu_memory_free(ptr, kind) != 0) {
        opemu_sanitize_bad_free(ptr, api);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %p was not allocated by %s or was freed already", api, ptr,
                          kind == OPEMU_MEM_DEVICE ? "aclrtMalloc" : "aclrtMallocHost");
    }
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtFree(void *devPtr) { return release(devPtr, OPEMU_MEM_DEVICE, "aclrtFree"); }
OPEMU_EXPORT aclError aclrtFreeHost(void *hostPtr) { return release(hostPtr, OPEMU_MEM_HOST, "aclrtFreeHost"); }

OPEMU_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_bytes, size_t *total)
{
    if (free_bytes == NULL || total == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free and total must not be null");
    if ((unsigned)attr > ACL_MEM_P2P_HUGE1G)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: invalid attribute %d", (int)attr);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *total = opemu_device_memory_bytes();
    *free_bytes = *total - opemu_memory_used(ctx->device);
    return ACL_SUCCESS;
}
