/* AscendCL's copies and sets (aclrtMemcpy*, aclrtMemset*): checked against core's memory registry,
 * run now (the synchronous calls) or queued on a stream. Every side the kind puts on the device lies
 * inside one device allocation; a host side the runtime allocated lies inside its allocation. */
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/hooks.h"
#include "core/memory.h"
#include "core/stream.h"
#include "sanitizer/sanitizer.h"

/* A copy or set of `height` rows of `width` bytes (height 1: a plain one), run now or on a stream. */
typedef struct {
    void *dst;
    const void *src;    /* NULL for a set */
    size_t width;
    size_t height;
    size_t dpitch;
    size_t spitch;
    uint32_t value;     /* a set's value: its low byte (set_width 1) or all 32 bits (set_width 4) */
    int set_width;      /* 0 for a copy */
    int synchronous;    /* the host waits for it: reading data a stream has yet to write is a bug */
} transfer;

/* Where a side of a copy must be device memory, the whole range must lie in one allocation. */
static int device_side(const void *address, size_t count, const char *api, const char *side)
{
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_DEVICE) {
        opemu_sanitize_missing(address, side);
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %s %p is not device memory", api, side, address);
    }
    if (count > a.mapped - ((uintptr_t)address - a.start))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%s: %zu bytes at %s %p run past the end of its device allocation (%llu bytes from %p)",
                          api, count, side, address, (unsigned long long)a.mapped, (void *)a.start);
    return ACL_SUCCESS;
}

/* A host side the runtime allocated (aclrtMallocHost) is bounded by its allocation too. */
/* No process maps memory at or above 2^56 (x86-64 five-level paging, AArch64's 52 bits are lower):
 * a host side there, or one whose end wraps, can only fault. */
#define USER_SPACE_END ((uintptr_t)1 << 56)

static int host_side(const void *address, size_t count, const char *api, const char *side)
{
    if ((uintptr_t)address >= USER_SPACE_END || count > USER_SPACE_END - (uintptr_t)address)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %s %p (%zu bytes) is not a user-space address", api, side,
                          address, count);
    opemu_allocation a;
    if (!opemu_memory_find(address, &a) || a.kind != OPEMU_MEM_HOST)
        return ACL_SUCCESS;
    if (count > a.mapped - ((uintptr_t)address - a.start))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%s: %zu bytes at %s %p run past the end of its host allocation (%llu bytes from %p)",
                          api, count, side, address, (unsigned long long)a.mapped, (void *)a.start);
    return ACL_SUCCESS;
}

static int is_device(const void *address)
{
    opemu_allocation a;
    return opemu_memory_find(address, &a) && a.kind == OPEMU_MEM_DEVICE;
}

static int run_transfer(void *payload)
{
    transfer *t = payload;
    for (size_t row = 0; row < t->height; row++) {
        char *dst = (char *)t->dst + row * t->dpitch;
        const char *src = t->src ? (const char *)t->src + row * t->spitch : NULL;
        opemu_sanitize_transfer(dst, src, t->width, src == NULL, t->synchronous);
        if (t->set_width == 1)
            memset(dst, (int)(uint8_t)t->value, t->width);
        else if (t->set_width == 4)
            for (size_t i = 0; i < t->width; i += 4)
                memcpy(dst + i, &t->value, 4);
        else if (dst != src)
            memmove(dst, src, t->width);
    }
    return ACL_SUCCESS;
}

static void drop_transfer(void *payload)
{
    transfer *t = payload;
    opemu_sanitize_pending(t->dst, -1);
    free(t);
}

/* ACL_MEMCPY_DEFAULT: the direction follows the pointers. */
static aclrtMemcpyKind resolve_kind(aclrtMemcpyKind kind, void *dst, const void *src)
{
    if (kind != ACL_MEMCPY_DEFAULT)
        return kind;
    return is_device(src) ? (is_device(dst) ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST)
                          : (is_device(dst) ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_HOST_TO_HOST);
}

/* Both sides of a copy of the given spans: device sides inside one device allocation, host sides
 * the runtime allocated inside theirs. */
static int check_sides(void *dst, size_t dspan, const void *src, size_t sspan, aclrtMemcpyKind kind, const char *api)
{
    int dst_on_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                        kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
    int src_on_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    int rc = dst_on_device ? device_side(dst, dspan, api, "dst") : host_side(dst, dspan, api, "dst");
    if (rc == ACL_SUCCESS)
        rc = src_on_device ? device_side(src, sspan, api, "src") : host_side(src, sspan, api, "src");
    return rc;
}

static aclError check_copy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                           const char *api)
{
    if (dst == NULL || src == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: dst and src must not be null", api);
    if ((unsigned)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: invalid memcpy kind %d", api, (int)kind);
    if (count > destMax)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than destMax %zu", api, count, destMax);
    kind = resolve_kind(kind, dst, src);
    if (opemu_strict()) {
        /* a side the kind calls host memory that is in fact device memory (the reverse is an error) */
        int src_is_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
        int dst_is_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
                            kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
        if ((!src_is_device && is_device(src)) || (!dst_is_device && is_device(dst)))
            opemu_finding("memcpy-kind", "%s: kind %d does not match the pointers: src %p is %s memory, dst %p is %s "
                          "memory", api, (int)kind, src, is_device(src) ? "device" : "host", dst,
                          is_device(dst) ? "device" : "host");
    }
    return check_sides(dst, count, src, count, kind, api);
}

OPEMU_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_copy(dst, destMax, src, count, kind, "aclrtMemcpy");
    if (rc)
        return rc;
    transfer t = {.dst = dst, .src = src, .width = count, .height = 1, .synchronous = 1};
    return run_transfer(&t);
}

static aclError submit_transfer(transfer *t, aclrtStream stream)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    transfer *copy = malloc(sizeof *copy);
    *copy = *t;
    opemu_sanitize_pending(copy->dst, +1);
    return opemu_stream_submit(s, run_transfer, drop_transfer, copy);
}

OPEMU_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                       aclrtMemcpyKind kind, aclrtStream stream)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_copy(dst, destMax, src, count, kind, "aclrtMemcpyAsync");
    if (rc)
        return rc;
    transfer t = {.dst = dst, .src = src, .width = count, .height = 1};
    return submit_transfer(&t, stream);
}

static aclError check_set(void *devPtr, size_t maxCount, size_t count, const char *api)
{
    if (devPtr == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is null", api);
    if (count > maxCount)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: count %zu is larger than maxCount %zu", api, count, maxCount);
    return device_side(devPtr, count, api, "devPtr");
}

/* The driver call is drvMemsetD8: value is applied byte-wise, truncated to its low byte. */
OPEMU_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_set(devPtr, maxCount, count, "aclrtMemset");
    if (rc)
        return rc;
    transfer t = {.dst = devPtr, .width = count, .height = 1, .value = (uint32_t)value, .set_width = 1,
                  .synchronous = 1};
    return run_transfer(&t);
}

OPEMU_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    if (count == 0)
        return ACL_SUCCESS;
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int rc = check_set(devPtr, maxCount, count, "aclrtMemsetAsync");
    if (rc)
        return rc;
    transfer t = {.dst = devPtr, .width = count, .height = 1, .value = (uint32_t)value, .set_width = 1};
    return submit_transfer(&t, stream);
}

/* The vendor's checks (CheckMemcpy2dParam): nothing to do for a zero width or height; then null
 * pointers, width against both pitches, and a kind among H2D, D2H, D2D and DEFAULT. Each side spans
 * pitch*(height-1)+width bytes, which must not wrap and must fit that side's allocation. */
static aclError check_copy_2d(transfer *t, aclrtMemcpyKind kind, const char *api)
{
    if (t->dst == NULL || t->src == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: dst and src must not be null", api);
    if (t->width > t->dpitch || t->width > t->spitch)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu must not exceed dpitch %zu or spitch %zu", api,
                          t->width, t->dpitch, t->spitch);
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
        kind != ACL_MEMCPY_DEVICE_TO_DEVICE && kind != ACL_MEMCPY_DEFAULT)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: invalid memcpy kind %d", api, (int)kind);
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    size_t dspan, sspan;
    if (__builtin_mul_overflow(t->dpitch, t->height - 1, &dspan) || __builtin_add_overflow(dspan, t->width, &dspan) ||
        __builtin_mul_overflow(t->spitch, t->height - 1, &sspan) || __builtin_add_overflow(sspan, t->width, &sspan))
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: pitch * (height - 1) + width overflows (dpitch %zu, spitch "
                          "%zu, width %zu, height %zu)", api, t->dpitch, t->spitch, t->width, t->height);
    return check_sides(t->dst, dspan, t->src, sspan, resolve_kind(kind, t->dst, t->src), api);
}

OPEMU_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                    size_t height, aclrtMemcpyKind kind)
{
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = dst, .src = src, .width = width, .height = height, .dpitch = dpitch, .spitch = spitch,
                  .synchronous = 1};
    int rc = check_copy_2d(&t, kind, "aclrtMemcpy2d");
    return rc ? rc : run_transfer(&t);
}

OPEMU_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                         size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    int error = 0;
    if (opemu_stream_resolve(stream, &error) == NULL) /* a stale stream is an error even for an empty copy */
        return error;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = dst, .src = src, .width = width, .height = height, .dpitch = dpitch, .spitch = spitch};
    int rc = check_copy_2d(&t, kind, "aclrtMemcpy2dAsync");
    return rc ? rc : submit_transfer(&t, stream);
}

/* The vendor's order: N == 0 succeeds; ptr null, a ptr not 4-byte aligned and N*4 > memSize are
 * invalid parameters; only memory the runtime allocated (device or pinned host) may be set. */
static aclError check_set_d32(transfer *t, size_t memSize, size_t n, const char *api)
{
    if (t->dst == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr is null", api);
    if ((uintptr_t)t->dst % 4 != 0)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: ptr %p is not 4-byte aligned", api, t->dst);
    if (n > memSize / 4)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: N x 4 (N = %zu) is greater than memSize (%zu)", api, n,
                          memSize);
    opemu_allocation a;
    if (!opemu_memory_find(t->dst, &a))
        return opemu_fail(ACL_ERROR_INVALID_PARAM,
                          "%s: %p is not memory allocated by aclrtMalloc or aclrtMallocHost", api, t->dst);
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    t->width = n * 4;
    return a.kind == OPEMU_MEM_DEVICE ? device_side(t->dst, t->width, api, "ptr")
                                      : host_side(t->dst, t->width, api, "ptr");
}

OPEMU_EXPORT aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    if (N == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = ptr, .height = 1, .value = value, .set_width = 4, .synchronous = 1};
    int rc = check_set_d32(&t, memSize, N, "aclrtMemsetD32");
    return rc ? rc : run_transfer(&t);
}

OPEMU_EXPORT aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N, aclrtStream stream)
{
    if (N == 0)
        return ACL_SUCCESS;
    transfer t = {.dst = ptr, .height = 1, .value = value, .set_width = 4};
    int rc = check_set_d32(&t, memSize, N, "aclrtMemsetD32Async");
    return rc ? rc : submit_transfer(&t, stream);
}
