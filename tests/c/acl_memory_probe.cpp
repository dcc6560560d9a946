// Probes of the AscendCL memory calls caching allocators and frameworks make, and of the size
// hardening (sizes near 2^64, spans that wrap): one named case per documented behaviour or error.
#include <cstdint>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "probe.h"

static const size_t MiB = 1ULL << 20;

static aclrtPhysicalMemProp device_prop()
{
    aclrtPhysicalMemProp prop = {};
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    return prop;
}

static const probe_cases cases = {
    {"allocation_sizes_near_2_pow_64_fail", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* p = nullptr;
         for (size_t size : {SIZE_MAX, SIZE_MAX - 31, SIZE_MAX - 63, SIZE_MAX / 2 + 1}) {
             EXPECT_EQ(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
             EXPECT_MESSAGE_MENTIONS("aclrtMalloc");
             EXPECT_EQ(aclrtMallocAlign32(&p, size, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION);
             EXPECT_EQ(aclrtMallocCached(&p, size, ACL_MEM_MALLOC_HUGE1G_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION);
             EXPECT_EQ(aclrtMallocWithCfg(&p, size, ACL_MEM_MALLOC_HUGE_FIRST, nullptr), ACL_ERROR_RT_MEMORY_ALLOCATION);
             EXPECT_EQ(aclrtMallocHost(&p, size), ACL_ERROR_RT_MEMORY_ALLOCATION);
             EXPECT_MESSAGE_MENTIONS("aclrtMallocHost");
             EXPECT_EQ(aclrtMallocHostWithCfg(&p, size, nullptr), ACL_ERROR_RT_MEMORY_ALLOCATION);
         }
         EXPECT_TRUE(p == nullptr);
         return 0;
     }},
    {"device_allocations_start_512_byte_aligned_with_documented_bounds", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         std::vector<void*> blocks;
         for (size_t size : {1, 33, 100, 511, 513, 4096}) {
             void* p = nullptr;
             EXPECT_EQ(aclrtMalloc(&p, size, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
             EXPECT_EQ((uintptr_t)p % 512, 0);
             blocks.push_back(p);
         }
         // the size rounding is unchanged: 100 bytes map ALIGN_UP(100, 32) + 32 = 160
         EXPECT_EQ(aclrtMemset(blocks[2], 160, 1, 160), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(blocks[2], 161, 1, 161), ACL_ERROR_RT_PARAM_INVALID);
         for (void* p : blocks)
             EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
         return 0;
     }},
    {"malloc_with_cfg_checks_the_config", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* p = nullptr;
         aclrtMallocAttribute attr = {};
         attr.attr = ACL_RT_MEM_ATTR_MODULE_ID;
         attr.value.moduleId = 7;
         aclrtMallocConfig cfg = {&attr, 1};
         EXPECT_EQ(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(p, 160, 0, 160), ACL_SUCCESS);
         EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
         EXPECT_EQ(aclrtMallocWithCfg(nullptr, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
         aclrtMallocConfig dangling = {nullptr, 1};
         EXPECT_EQ(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &dangling), ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("aclrtMallocWithCfg");
         attr.attr = (aclrtMallocAttrType)99;
         EXPECT_EQ(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
         attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
         attr.value.deviceId = 1000;
         EXPECT_EQ(aclrtMallocWithCfg(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocHostWithCfg(&p, 64, nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclrtFreeHost(p), ACL_SUCCESS);
         EXPECT_EQ(aclrtMallocHostWithCfg(nullptr, 64, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocHostWithCfg(&p, 0, nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"memcpy2d_span_that_wraps_is_rejected", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         char host[64] = {};
         // dpitch * (height - 1) + width wraps to a small number
         size_t pitch = (SIZE_MAX / 2) + 1;
         EXPECT_EQ(aclrtMemcpy2d(d, pitch, host, pitch, 16, 3, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("overflows");
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2dAsync(d, pitch, host, pitch, 16, 3, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy2d(d, SIZE_MAX, host, 16, 16, 2, ACL_MEMCPY_DEFAULT), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         return 0;
     }},
    {"memcpy2d_checks_both_sides_allocations", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void *a = nullptr, *b = nullptr, *h = nullptr;
         EXPECT_EQ(aclrtMalloc(&a, 1024, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);  // 1056 bytes mapped
         EXPECT_EQ(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);    // 96 bytes mapped
         EXPECT_EQ(aclrtMallocHost(&h, 64), ACL_SUCCESS);
         // device source of 4 rows of 64 at pitch 64 = 256 bytes: more than b holds
         EXPECT_EQ(aclrtMemcpy2d(a, 64, b, 64, 64, 4, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_MESSAGE_MENTIONS("src");
         // a pinned host destination is bounded by its allocation too
         EXPECT_EQ(aclrtMemcpy2d(h, 64, a, 64, 64, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_MESSAGE_MENTIONS("dst");
         EXPECT_EQ(aclrtMemcpy2d(a, 64, b, 32, 32, 3, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
         return 0;
     }},
    {"memcpy2d_default_kind_checks_the_device_range", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);  // 96 bytes mapped
         std::vector<char> host(1 << 16, 7);
         EXPECT_EQ(aclrtMemcpy2d(d, 4096, host.data(), 16, 16, 8, ACL_MEMCPY_DEFAULT), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMemcpy2d(host.data(), 16, d, 4096, 16, 8, ACL_MEMCPY_DEFAULT), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMemcpy2d(d, 32, host.data(), 16, 16, 3, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
         return 0;
     }},
    {"memcpy2d_argument_checks", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         char host[256] = {};
         // zero width or height: nothing to do, success before any other check
         EXPECT_EQ(aclrtMemcpy2d(nullptr, 0, nullptr, 0, 0, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2d(d, 16, host, 16, 16, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2d(nullptr, 16, host, 16, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy2d(d, 8, host, 16, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy2d(d, 16, host, 8, 16, 2, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy2d(host, 16, host + 64, 16, 16, 2, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy2d(d, 16, host, 16, 16, 2, (aclrtMemcpyKind)77), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy2d(host, 16, host, 16, 16, 2, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"empty_2d_copy_succeeds_before_its_kind_or_height_is_looked_at", [] {
         // the runtime's CheckMemcpy2dParam returns success for a zero width or height before its other checks,
         // and rtMemcpy2dAsync before it resolves the stream's task: the hardware's answer, kept
         EXPECT_EQ(aclrtSetDevice(0), 0);
         char host[16] = {};
         EXPECT_EQ(aclrtMemcpy2d(host, 16, host, 16, 0, 2, (aclrtMemcpyKind)7), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2d(host, 16, host, 16, 0, 1ULL << 32, (aclrtMemcpyKind)99), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2dAsync(host, 16, host, 16, 0, 1ULL << 32, (aclrtMemcpyKind)7, nullptr), ACL_SUCCESS);
         return 0;
     }},
    {"memcpy2d_async_copies_rows_in_stream_order", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         char src[4][8], back[4][4] = {};
         for (int r = 0; r < 4; r++)
             for (int c = 0; c < 8; c++)
                 src[r][c] = (char)(10 * r + c);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(d, 4096, 0xEE, 4096), ACL_SUCCESS);
         // 4 rows of 4 bytes: from pitch 8 on the host to pitch 16 on the device and back to pitch 4
         EXPECT_EQ(aclrtMemcpy2dAsync(d, 16, src, 8, 4, 4, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2dAsync(back, 4, d, 16, 4, 4, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         for (int r = 0; r < 4; r++)
             for (int c = 0; c < 4; c++)
                 EXPECT_EQ(back[r][c], 10 * r + c);
         unsigned char gap = 0;
         EXPECT_EQ(aclrtMemcpy(&gap, 1, (char*)d + 5, 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_EQ(gap, 0xEE);  // the bytes between rows stay as they were
         aclrtStream dead = s;
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         EXPECT_TRUE(aclrtMemcpy2dAsync(d, 16, src, 8, 4, 4, ACL_MEMCPY_HOST_TO_DEVICE, dead) != ACL_SUCCESS);
         return 0;
     }},
    {"memset_d32_fills_32_bit_values", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(d, 64, 0, 64), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemsetD32(d, 64, 0xA1B2C3D4u, 5), ACL_SUCCESS);
         uint32_t back[8] = {};
         EXPECT_EQ(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         for (int i = 0; i < 5; i++)
             EXPECT_EQ(back[i], 0xA1B2C3D4u);
         EXPECT_EQ(back[5], 0u);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemsetD32Async((char*)d + 20, 12, 7u, 3, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(back, sizeof back, d, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_EQ(back[5], 7u);
         EXPECT_EQ(back[7], 7u);
         void* h = nullptr;  // pinned host memory may be set too
         EXPECT_EQ(aclrtMallocHost(&h, 64), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemsetD32(h, 64, 3u, 16), ACL_SUCCESS);
         EXPECT_EQ(((uint32_t*)h)[15], 3u);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         return 0;
     }},
    {"memset_d32_errors", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemsetD32(nullptr, 64, 1u, 0), ACL_SUCCESS);  // N == 0 comes first
         EXPECT_EQ(aclrtMemsetD32(nullptr, 64, 1u, 1), ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("aclrtMemsetD32");
         EXPECT_EQ(aclrtMemsetD32((char*)d + 2, 32, 1u, 1), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemsetD32(d, 15, 1u, 4), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemsetD32(d, SIZE_MAX, 1u, SIZE_MAX / 2), ACL_ERROR_INVALID_PARAM);
         uint32_t stack[4];
         EXPECT_EQ(aclrtMemsetD32(stack, 16, 1u, 4), ACL_ERROR_INVALID_PARAM);
         // inside memSize but past the allocation's 96 mapped bytes
         EXPECT_EQ(aclrtMemsetD32(d, 4096, 1u, 1024), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMemsetD32Async(d, 15, 1u, 4, nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"granularity_query", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtPhysicalMemProp prop = device_prop();
         size_t g = 0;
         EXPECT_EQ(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g), ACL_SUCCESS);
         EXPECT_EQ(g, 2 * MiB);
         EXPECT_EQ(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g), ACL_SUCCESS);
         EXPECT_EQ(g % (2 * MiB), 0);
         EXPECT_EQ(aclrtMemGetAllocationGranularity(nullptr, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, nullptr),
                   ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g),
                   ACL_ERROR_INVALID_PARAM);
         prop.memAttr = ACL_DDR_MEM_HUGE;  // a host attribute on a device location
         EXPECT_EQ(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("memAttr");
         return 0;
     }},
    {"reserved_range_becomes_device_memory_once_mapped", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtPhysicalMemProp prop = device_prop();
         void* va = nullptr;
         EXPECT_EQ(aclrtReserveMemAddress(&va, 7 * MiB + 1, 0, nullptr, 1), ACL_SUCCESS);  // whole granules: 8 MiB
         EXPECT_EQ((uintptr_t)va % (2 * MiB), 0);
         aclrtDrvMemHandle h1 = nullptr, h2 = nullptr;
         EXPECT_EQ(aclrtMallocPhysical(&h1, 2 * MiB, &prop, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtMallocPhysical(&h2, 2 * MiB, &prop, 0), ACL_SUCCESS);
         char* base = (char*)va;
         // not mapped yet: not device memory
         char byte = 1;
         EXPECT_EQ(aclrtMemcpy(base, 1, &byte, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 0, h1, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtMapMem(base + 2 * MiB, 2 * MiB, 0, h2, 0), ACL_SUCCESS);
         // a copy straddling the two mappings is one device range
         std::vector<char> data(4096), back(4096);
         for (size_t i = 0; i < data.size(); i++)
             data[i] = (char)(i * 7);
         char* straddle = base + 2 * MiB - 2048;
         EXPECT_EQ(aclrtMemcpy(straddle, 4096, data.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(back.data(), 4096, straddle, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_TRUE(back == data);
         EXPECT_EQ(aclrtMemset(base, 4 * MiB, 0, 4 * MiB), ACL_SUCCESS);
         // the mapped end is where the device range ends
         EXPECT_EQ(aclrtMemset(base, 4 * MiB + 1, 0, 4 * MiB + 1), ACL_ERROR_RT_PARAM_INVALID);
         // mapped memory is not an aclrtMalloc block
         EXPECT_EQ(aclrtFree(base), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtUnmapMem(base + 2 * MiB), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(base + 2 * MiB, 1, &byte, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMemcpy(base, 1, &byte, 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         // one physical allocation may back a second range
         EXPECT_EQ(aclrtMapMem(base + 4 * MiB, 2 * MiB, 0, h1, 0), ACL_SUCCESS);
         char seen = 0;
         EXPECT_EQ(aclrtMemcpy(&seen, 1, base + 4 * MiB, 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_EQ(seen, 1);
         EXPECT_EQ(aclrtUnmapMem(base + 4 * MiB), ACL_SUCCESS);
         EXPECT_EQ(aclrtUnmapMem(base), ACL_SUCCESS);
         EXPECT_EQ(aclrtFreePhysical(h1), ACL_SUCCESS);
         EXPECT_EQ(aclrtFreePhysical(h2), ACL_SUCCESS);
         EXPECT_EQ(aclrtReleaseMemAddress(va), ACL_SUCCESS);
         return 0;
     }},
    {"operators_run_on_mapped_virtual_memory", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtPhysicalMemProp prop = device_prop();
         void* va = nullptr;
         aclrtDrvMemHandle h = nullptr;
         EXPECT_EQ(aclrtReserveMemAddress(&va, 2 * MiB, 0, nullptr, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtMapMem(va, 2 * MiB, 0, h, 0), ACL_SUCCESS);
         // a caching allocator carves weight, indices and output out of the mapped range
         char* base = (char*)va;
         float* weight = (float*)(base + 512);
         int64_t* indices = (int64_t*)(base + 1024);
         float* out = (float*)(base + 1536);
         float wh[8] = {0, 1, 10, 11, 20, 21, 30, 31};
         int64_t ih[3] = {3, 0, 1};
         EXPECT_EQ(aclrtMemcpy(weight, sizeof wh, wh, sizeof wh, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(indices, sizeof ih, ih, sizeof ih, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         int64_t wshape[2] = {4, 2}, ishape[1] = {3}, oshape[2] = {3, 2}, rowmajor[2] = {2, 1}, unit[1] = {1};
         aclTensor* w = aclCreateTensor(wshape, 2, ACL_FLOAT, rowmajor, 0, ACL_FORMAT_ND, wshape, 2, weight);
         aclTensor* i = aclCreateTensor(ishape, 1, ACL_INT64, unit, 0, ACL_FORMAT_ND, ishape, 1, indices);
         aclTensor* o = aclCreateTensor(oshape, 2, ACL_FLOAT, rowmajor, 0, ACL_FORMAT_ND, oshape, 2, out);
         uint64_t ws = 0;
         aclOpExecutor* e = nullptr;
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(w, i, o, &ws, &e), 0);
         EXPECT_EQ(aclnnEmbedding(nullptr, 0, e, nullptr), 0);
         EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
         float back[6] = {};
         EXPECT_EQ(aclrtMemcpy(back, sizeof back, out, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         const float expected[6] = {30, 31, 0, 1, 10, 11};
         for (int k = 0; k < 6; k++)
             EXPECT_TRUE(back[k] == expected[k]);
         return 0;
     }},
    {"physical_memory_counts_against_the_device", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtPhysicalMemProp prop = device_prop();
         size_t free0 = 0, free1 = 0, total = 0;
         EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total), ACL_SUCCESS);
         aclrtDrvMemHandle h = nullptr;
         EXPECT_EQ(aclrtMallocPhysical(&h, 4 * MiB, &prop, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total), ACL_SUCCESS);
         EXPECT_EQ(free0 - free1, 4 * MiB);
         EXPECT_EQ(aclrtMallocPhysical(&h, (total / (2 * MiB) + 1) * 2 * MiB, &prop, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
         EXPECT_EQ(aclrtMallocPhysical(&h, SIZE_MAX - (2 * MiB - 1), &prop, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
         return 0;
     }},
    {"virtual_memory_errors", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtPhysicalMemProp prop = device_prop();
         void* va = nullptr;
         EXPECT_EQ(aclrtReserveMemAddress(nullptr, 2 * MiB, 0, nullptr, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtReserveMemAddress(&va, 0, 0, nullptr, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtReserveMemAddress(&va, 2 * MiB, 0, nullptr, 2), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtReserveMemAddress(&va, 2 * MiB, 0, nullptr, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtReleaseMemAddress(va), ACL_SUCCESS);
         EXPECT_EQ(aclrtReserveMemAddress(&va, 2 * MiB, 3 * MiB, nullptr, 0), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtReserveMemAddress(&va, SIZE_MAX - (2 * MiB - 1), 0, nullptr, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
         EXPECT_EQ(aclrtReserveMemAddress(&va, 4 * MiB, 0, nullptr, 0), ACL_SUCCESS);
         aclrtDrvMemHandle h = nullptr;
         EXPECT_EQ(aclrtMallocPhysical(nullptr, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, nullptr, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocPhysical(&h, 0, &prop, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, &prop, 1), ACL_ERROR_INVALID_PARAM);
         aclrtPhysicalMemProp bad = prop;
         bad.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, &bad, 0), ACL_ERROR_INVALID_PARAM);
         bad = prop;
         bad.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, &bad, 0), ACL_ERROR_INVALID_PARAM);
         bad = prop;
         bad.location.id = 1000;
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, &bad, 0), ACL_ERROR_RT_INVALID_DEVICEID);
         EXPECT_EQ(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
         char* base = (char*)va;
         EXPECT_EQ(aclrtMapMem(nullptr, 2 * MiB, 0, h, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 0, nullptr, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMapMem(base, 0, 0, h, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 0, h, 1), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 0, (aclrtDrvMemHandle)base, 0), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 2 * MiB, h, 0), ACL_ERROR_RT_PARAM_INVALID);  // past the physical end
         EXPECT_EQ(aclrtMapMem(base, 4 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMapMem(base + 4 * MiB, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);  // outside the range
         EXPECT_EQ(aclrtMapMem(base + 4096, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);  // unaligned
         int stack = 0;
         EXPECT_EQ(aclrtMapMem(&stack, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 0, h, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtMapMem(base, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);  // already mapped
         EXPECT_EQ(aclrtFreePhysical(h), ACL_ERROR_RT_PARAM_INVALID);   // still mapped
         EXPECT_EQ(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);  // still holds a mapping
         EXPECT_EQ(aclrtUnmapMem(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtUnmapMem(base + 2 * MiB), ACL_ERROR_RT_PARAM_INVALID);  // nothing mapped there
         EXPECT_EQ(aclrtUnmapMem(base), ACL_SUCCESS);
         EXPECT_EQ(aclrtUnmapMem(base), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtFreePhysical(h), ACL_SUCCESS);
         EXPECT_EQ(aclrtFreePhysical(h), ACL_ERROR_RT_PARAM_INVALID);  // stale
         EXPECT_EQ(aclrtFreePhysical(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtReleaseMemAddress(base + 2 * MiB), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtReleaseMemAddress(va), ACL_SUCCESS);
         EXPECT_EQ(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtReleaseMemAddress(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("aclrtReleaseMemAddress");
         return 0;
     }},
};

int main(int argc, char** argv) { return run_probe(cases, argc, argv); }
