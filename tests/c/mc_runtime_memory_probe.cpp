// Probes of the MACA runtime's memory calls frameworks make: managed and page-locked memory, pointer
// attributes, 2D transfers and memset, the default pool and stream-ordered allocation, and the size
// hardening (sizes near 2^64, spans that wrap, device ranges under mcMemcpyDefault).
// One case per documented behaviour; built with the MACA line against the prefix.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>
#include <mc_runtime.h>
#include "probe.h"

static const size_t HUGE_SIZE = SIZE_MAX - 100;

static probe_cases cases = {
    {"allocation_sizes_near_2_64_fail", [] {
         void *p = nullptr;
         size_t pitch = 0;
         mcStream_t s = nullptr;
         EXPECT_EQ(mcMalloc(&p, HUGE_SIZE), mcErrorMemoryAllocation);
         EXPECT_EQ(mcMalloc(&p, SIZE_MAX), mcErrorMemoryAllocation);
         EXPECT_EQ(mcMallocHost(&p, HUGE_SIZE), mcErrorMemoryAllocation);
         EXPECT_EQ(mcHostAlloc(&p, SIZE_MAX, mcHostAllocDefault), mcErrorMemoryAllocation);
         EXPECT_EQ(mcMallocManaged(&p, HUGE_SIZE, mcMemAttachGlobal), mcErrorMemoryAllocation);
         EXPECT_EQ(mcMallocAsync(&p, HUGE_SIZE, s), mcErrorMemoryAllocation);
         EXPECT_EQ(mcMallocPitch(&p, &pitch, HUGE_SIZE, 1), mcErrorMemoryAllocation);
         EXPECT_EQ(mcMallocPitch(&p, &pitch, 1 << 20, SIZE_MAX / 4), mcErrorMemoryAllocation);
         EXPECT_EQ(mcGetLastError(), mcErrorMemoryAllocation);
         return 0;
     }},
    {"device_allocations_start_512_byte_aligned", [] {
         void *p[4];
         for (void *&q : p)
             EXPECT_EQ(mcMalloc(&q, 3), mcSuccess);
         for (void *q : p) {
             EXPECT_EQ((uintptr_t)q % 512, 0);
             EXPECT_EQ(mcFree(q), mcSuccess);
         }
         return 0;
     }},
    {"malloc_managed", [] {
         int *m = nullptr;
         EXPECT_EQ(mcMallocManaged((void **)&m, 64 * sizeof(int), mcMemAttachGlobal), mcSuccess);
         for (int i = 0; i < 64; i++)
             m[i] = i;  // the host touches managed memory directly
         int back[64];
         EXPECT_EQ(mcMemcpy(back, m, sizeof back, mcMemcpyDeviceToHost), mcSuccess);  // and it is device memory
         EXPECT_EQ(back[63], 63);
         mcPointerAttributes a;
         EXPECT_EQ(mcPointerGetAttributes(&a, m + 5), mcSuccess);
         EXPECT_EQ(a.type, mcMemoryTypeManaged);
         EXPECT_TRUE(a.devicePointer == m + 5 && a.hostPointer == m + 5);
         EXPECT_EQ(mcFree(m), mcSuccess);
         EXPECT_EQ(mcFree(m), mcErrorInvalidValue);
         void *p = nullptr;
         EXPECT_EQ(mcMallocManaged(&p, 16, mcMemAttachHost), mcSuccess);
         EXPECT_EQ(mcFree(p), mcSuccess);
         EXPECT_EQ(mcMallocManaged(&p, 16, mcMemAttachSingle), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocManaged(&p, 16, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocManaged(&p, 0, mcMemAttachGlobal), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocManaged(nullptr, 16, mcMemAttachGlobal), mcErrorInvalidValue);
         mcGetLastError();
         return 0;
     }},
    {"host_alloc_flags_and_device_pointer", [] {
         void *h = nullptr, *d = nullptr;
         unsigned flags = 0;
         EXPECT_EQ(mcHostAlloc(&h, 100, mcHostAllocMapped | mcHostAllocPortable), mcSuccess);
         EXPECT_EQ(mcHostGetFlags(&flags, h), mcSuccess);
         EXPECT_EQ(flags, mcHostAllocMapped | mcHostAllocPortable);
         EXPECT_EQ(mcHostGetDevicePointer(&d, (char *)h + 10, 0), mcSuccess);
         EXPECT_TRUE(d == (char *)h + 10);  // unified addressing: mapped at the same address
         EXPECT_EQ(mcHostGetDevicePointer(&d, h, 1), mcErrorInvalidValue);
         int plain = 0;
         EXPECT_EQ(mcHostGetDevicePointer(&d, &plain, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcHostGetFlags(&flags, &plain), mcErrorInvalidValue);
         EXPECT_EQ(mcHostAlloc(&h, 100, 0x80), mcErrorInvalidValue);
         EXPECT_EQ(mcHostAlloc(nullptr, 100, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcFreeHost(h), mcSuccess);
         EXPECT_EQ(mcFreeHost(h), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocHost(&h, 0), mcSuccess);
         EXPECT_TRUE(h == nullptr);
         mcGetLastError();
         return 0;
     }},
    {"host_register_and_unregister", [] {
         std::vector<char> buffer(4096);
         char *b = buffer.data();
         void *d = nullptr;
         EXPECT_EQ(mcHostRegister(b, 1024, mcHostRegisterDefault), mcSuccess);
         mcPointerAttributes a;
         EXPECT_EQ(mcPointerGetAttributes(&a, b + 100), mcSuccess);
         EXPECT_EQ(a.type, mcMemoryTypeHost);
         EXPECT_EQ(mcHostGetDevicePointer(&d, b + 100, 0), mcSuccess);
         EXPECT_TRUE(d == b + 100);
         EXPECT_EQ(mcHostRegister(b, 1024, 0), mcErrorHostMemoryAlreadyRegistered);
         EXPECT_EQ(mcHostRegister(b + 512, 1024, 0), mcErrorHostMemoryAlreadyRegistered);  // overlaps
         EXPECT_EQ(mcHostRegister(b + 2048, 1024, mcHostRegisterMapped | mcHostRegisterPortable), mcSuccess);
         EXPECT_EQ(mcHostUnregister(b + 2048), mcSuccess);
         EXPECT_EQ(mcHostUnregister(b + 1), mcErrorHostMemoryNotRegistered);
         EXPECT_EQ(mcHostUnregister(b), mcSuccess);
         EXPECT_EQ(mcHostUnregister(b), mcErrorHostMemoryNotRegistered);
         EXPECT_EQ(mcHostGetDevicePointer(&d, b, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcHostRegister(nullptr, 16, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcHostRegister(b, 0, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcHostRegister(b, 16, 0x100), mcErrorInvalidValue);
         EXPECT_EQ(mcHostRegister(b, 16, mcHostRegisterIoMemory), mcErrorNotSupported);
         EXPECT_EQ(mcHostRegister(b + 16, SIZE_MAX, 0), mcErrorInvalidValue);  // wraps the address space
         void *dev = nullptr;
         EXPECT_EQ(mcMalloc(&dev, 64), mcSuccess);
         EXPECT_EQ(mcHostRegister(dev, 64, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcFree(dev), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"pointer_attributes", [] {
         void *d = nullptr, *h = nullptr;
         mcPointerAttributes a;
         EXPECT_EQ(mcSetDevice(0), mcSuccess);
         EXPECT_EQ(mcMalloc(&d, 64), mcSuccess);
         EXPECT_EQ(mcPointerGetAttributes(&a, (char *)d + 8), mcSuccess);
         EXPECT_EQ(a.type, mcMemoryTypeDevice);
         EXPECT_EQ(a.device, 0);
         EXPECT_TRUE(a.devicePointer == (char *)d + 8 && a.hostPointer == nullptr);
         EXPECT_EQ(mcMallocHost(&h, 64), mcSuccess);
         EXPECT_EQ(mcPointerGetAttributes(&a, h), mcSuccess);
         EXPECT_EQ(a.type, mcMemoryTypeHost);
         EXPECT_TRUE(a.devicePointer == h && a.hostPointer == h);
         int plain = 0;
         EXPECT_EQ(mcPointerGetAttributes(&a, &plain), mcSuccess);
         EXPECT_EQ(a.type, mcMemoryTypeUnregistered);
         EXPECT_EQ(a.device, mcInvalidDeviceId);
         EXPECT_TRUE(a.devicePointer == nullptr);
         EXPECT_EQ(mcPointerGetAttributes(nullptr, d), mcErrorInvalidValue);
         EXPECT_EQ(mcFree(d), mcSuccess);
         EXPECT_EQ(mcFreeHost(h), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"empty_2d_copy_checks_its_kind_first", [] {
         // an invalid direction is refused whatever the copy's size; an empty copy in a valid one does nothing
         unsigned char host[16] = {};
         EXPECT_EQ(mcMemcpy2D(host, 16, host, 16, 0, 2, (mcMemcpyKind)7), mcErrorInvalidMemcpyDirection);
         EXPECT_EQ(mcMemcpy2D(host, 16, host, 16, 0, 1ULL << 32, (mcMemcpyKind)99), mcErrorInvalidMemcpyDirection);
         EXPECT_EQ(mcMemcpy2DAsync(host, 16, host, 16, 0, 2, (mcMemcpyKind)7, nullptr), mcErrorInvalidMemcpyDirection);
         EXPECT_EQ(mcMemcpy2D(host, 16, host, 16, 0, 1ULL << 32, mcMemcpyHostToHost), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"memcpy_2d", [] {
         // a 3x4 window of a 5x8 host matrix, through a pitched device buffer, into a 3x4 host block
         unsigned char host[5][8], back[3][4];
         for (int r = 0; r < 5; r++)
             for (int c = 0; c < 8; c++)
                 host[r][c] = (unsigned char)(r * 16 + c);
         void *d = nullptr, *e = nullptr;
         size_t pitch = 0;
         EXPECT_EQ(mcMallocPitch(&d, &pitch, 4, 3), mcSuccess);
         EXPECT_TRUE(pitch >= 4 && pitch % 512 == 0);
         EXPECT_EQ(mcMallocPitch(&e, &pitch, 4, 3), mcSuccess);
         EXPECT_EQ(mcMemcpy2D(d, pitch, &host[1][2], 8, 4, 3, mcMemcpyHostToDevice), mcSuccess);
         EXPECT_EQ(mcMemcpy2D(e, pitch, d, pitch, 4, 3, mcMemcpyDeviceToDevice), mcSuccess);
         EXPECT_EQ(mcMemcpy2D(back, 4, e, pitch, 4, 3, mcMemcpyDefault), mcSuccess);
         for (int r = 0; r < 3; r++)
             for (int c = 0; c < 4; c++)
                 EXPECT_EQ(back[r][c], host[r + 1][c + 2]);
         EXPECT_EQ(mcMemcpy2D(back, 4, e, pitch, 0, 3, mcMemcpyDeviceToHost), mcSuccess);  // nothing to copy
         EXPECT_EQ(mcMemcpy2D(back, 4, e, pitch, 4, 3, (mcMemcpyKind)9), mcErrorInvalidMemcpyDirection);
         EXPECT_EQ(mcMemcpy2D(back, 2, e, pitch, 4, 3, mcMemcpyDeviceToHost), mcErrorInvalidPitchValue);
         EXPECT_EQ(mcMemcpy2D(nullptr, 4, e, pitch, 4, 3, mcMemcpyDeviceToHost), mcErrorInvalidValue);
         EXPECT_EQ(mcFree(d), mcSuccess);
         EXPECT_EQ(mcFree(e), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"memcpy_2d_spans_are_checked", [] {
         void *d = nullptr;
         EXPECT_EQ(mcMalloc(&d, 1024), mcSuccess);
         std::vector<char> host(8192);
         // the destination span pitch*(height-1)+width runs past the 1024-byte allocation
         EXPECT_EQ(mcMemcpy2D(d, 512, host.data(), 512, 512, 3, mcMemcpyHostToDevice), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy2D(host.data(), 512, d, 512, 512, 3, mcMemcpyDeviceToHost), mcErrorInvalidValue);
         // ... also when the direction comes from the pointers
         EXPECT_EQ(mcMemcpy2D(d, 512, host.data(), 512, 512, 3, mcMemcpyDefault), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy2D(host.data(), 512, d, 512, 512, 3, mcMemcpyDefault), mcErrorInvalidValue);
         // spans that wrap 2^64 must not pass as small ones
         size_t wrap_pitch = SIZE_MAX / 2 + 1;
         EXPECT_EQ(mcMemcpy2D(d, wrap_pitch, host.data(), 16, 16, 3, mcMemcpyHostToDevice), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy2D(host.data(), 16, d, wrap_pitch, 16, 3, mcMemcpyDeviceToHost), mcErrorInvalidValue);
         EXPECT_EQ(mcMemset2D(d, wrap_pitch, 0, 16, 3), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy2D(d, 512, host.data(), 512, 512, 2, mcMemcpyHostToDevice), mcSuccess);  // fits
         EXPECT_EQ(mcFree(d), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"memcpy_default_checks_device_ranges", [] {
         void *d = nullptr;
         EXPECT_EQ(mcMalloc(&d, 256), mcSuccess);
         std::vector<char> host(4096);
         EXPECT_EQ(mcMemcpy(d, host.data(), 4096, mcMemcpyDefault), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy(host.data(), d, 4096, mcMemcpyDefault), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpyAsync(d, host.data(), 4096, mcMemcpyDefault, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpy(d, host.data(), 256, mcMemcpyDefault), mcSuccess);
         EXPECT_EQ(mcFree(d), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"memcpy_2d_async", [] {
         mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         int host[4][4], back[4][2];
         for (int i = 0; i < 16; i++)
             host[i / 4][i % 4] = i;
         void *d = nullptr;
         EXPECT_EQ(mcMalloc(&d, sizeof back), mcSuccess);
         EXPECT_EQ(mcMemcpy2DAsync(d, 2 * sizeof(int), &host[0][1], 4 * sizeof(int), 2 * sizeof(int), 4,
                                   mcMemcpyHostToDevice, s), mcSuccess);
         EXPECT_EQ(mcMemcpy2DAsync(back, 2 * sizeof(int), d, 2 * sizeof(int), 2 * sizeof(int), 4,
                                   mcMemcpyDeviceToHost, s), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         for (int r = 0; r < 4; r++)
             EXPECT_TRUE(back[r][0] == host[r][1] && back[r][1] == host[r][2]);
         EXPECT_EQ(mcStreamDestroy(s), mcSuccess);
         EXPECT_EQ(mcMemcpy2DAsync(back, 8, d, 8, 8, 4, mcMemcpyDeviceToHost, s), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcFree(d), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"memset_2d", [] {
         void *d = nullptr;
         size_t pitch = 0;
         EXPECT_EQ(mcMallocPitch(&d, &pitch, 8, 4), mcSuccess);
         EXPECT_EQ(mcMemset(d, 0, pitch * 4), mcSuccess);
         EXPECT_EQ(mcMemset2D(d, pitch, 0x1AB, 3, 4), mcSuccess);  // the low byte, 3 bytes of each row
         std::vector<unsigned char> back(pitch * 4);
         EXPECT_EQ(mcMemcpy(back.data(), d, back.size(), mcMemcpyDeviceToHost), mcSuccess);
         for (size_t r = 0; r < 4; r++)
             for (size_t c = 0; c < 8; c++)
                 EXPECT_EQ(back[r * pitch + c], c < 3 ? 0xAB : 0);
         mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         EXPECT_EQ(mcMemset2DAsync(d, pitch, 7, 8, 4, s), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         EXPECT_EQ(mcMemcpy(back.data(), d, back.size(), mcMemcpyDeviceToHost), mcSuccess);
         EXPECT_EQ(back[3 * pitch + 7], 7);
         EXPECT_EQ(mcMemset2D(d, pitch, 0, pitch + 1, 2), mcErrorInvalidValue);  // width past the pitch
         EXPECT_EQ(mcMemset2D(d, pitch, 0, 8, 5), mcErrorInvalidValue);          // rows past the allocation
         EXPECT_EQ(mcMemset2D(nullptr, pitch, 0, 8, 1), mcErrorInvalidValue);
         EXPECT_EQ(mcMemset2D(d, pitch, 0, 0, 9), mcSuccess);
         EXPECT_EQ(mcMemset2DAsync(d, pitch, 0, 8, 1, (mcStream_t)0x10), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamDestroy(s), mcSuccess);
         EXPECT_EQ(mcFree(d), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"malloc_async_and_the_default_pool", [] {
         mcMemPool_t pool = nullptr, current = nullptr;
         EXPECT_EQ(mcDeviceGetDefaultMemPool(&pool, 0), mcSuccess);
         EXPECT_EQ(mcDeviceGetMemPool(&current, 0), mcSuccess);
         EXPECT_TRUE(pool != nullptr && pool == current);
         EXPECT_EQ(mcDeviceSetMemPool(0, pool), mcSuccess);
         mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         void *a = nullptr, *b = nullptr;
         EXPECT_EQ(mcMallocAsync(&a, 1000, s), mcSuccess);
         int value = 41, back = 0;
         EXPECT_EQ(mcMemcpyAsync(a, &value, sizeof value, mcMemcpyHostToDevice, s), mcSuccess);
         EXPECT_EQ(mcMemcpyAsync(&back, a, sizeof back, mcMemcpyDeviceToHost, s), mcSuccess);
         uint64_t used = 0, reserved = 0;
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolAttrUsedMemCurrent, &used), mcSuccess);
         EXPECT_EQ(used, 1000);
         EXPECT_EQ(mcFreeAsync(a, s), mcSuccess);
         EXPECT_EQ(mcMallocAsync(&b, 800, s), mcSuccess);  // the freed block, reused in stream order
         EXPECT_TRUE(b == a);
         EXPECT_EQ(mcFreeAsync(b, s), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         EXPECT_EQ(back, 41);
         // release threshold 0: a synchronisation gives every unused byte back
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolAttrReservedMemCurrent, &reserved), mcSuccess);
         EXPECT_EQ(reserved, 0);
         uint64_t high = 0;
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolAttrUsedMemHigh, &high), mcSuccess);
         EXPECT_TRUE(high >= 1000);
         mcStreamDestroy(s);
         return 0;
     }},
    {"pool_release_threshold_and_trim", [] {
         mcMemPool_t pool = nullptr;
         EXPECT_EQ(mcDeviceGetDefaultMemPool(&pool, 0), mcSuccess);
         uint64_t keep = UINT64_MAX, reserved = 0, zero = 0;
         EXPECT_EQ(mcMemPoolSetAttribute(pool, mcMemPoolAttrReleaseThreshold, &keep), mcSuccess);
         void *a = nullptr;
         size_t free0 = 0, free1 = 0, total = 0;
         EXPECT_EQ(mcMemGetInfo(&free0, &total), mcSuccess);
         EXPECT_EQ(mcMallocAsync(&a, 1 << 20, nullptr), mcSuccess);
         EXPECT_EQ(mcFreeAsync(a, nullptr), mcSuccess);
         EXPECT_EQ(mcDeviceSynchronize(), mcSuccess);
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolAttrReservedMemCurrent, &reserved), mcSuccess);
         EXPECT_EQ(reserved, 1 << 20);  // kept for reuse
         EXPECT_EQ(mcMemGetInfo(&free1, &total), mcSuccess);
         EXPECT_TRUE(free0 - free1 >= (1 << 20));  // and still the device's
         EXPECT_EQ(mcMemPoolTrimTo(pool, 0), mcSuccess);
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolAttrReservedMemCurrent, &reserved), mcSuccess);
         EXPECT_EQ(reserved, 0);
         EXPECT_EQ(mcMemPoolSetAttribute(pool, mcMemPoolAttrReleaseThreshold, &zero), mcSuccess);
         int policy = 0;
         EXPECT_EQ(mcMemPoolSetAttribute(pool, mcMemPoolReuseAllowOpportunistic, &policy), mcSuccess);
         policy = 7;
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolReuseAllowOpportunistic, &policy), mcSuccess);
         EXPECT_EQ(policy, 0);
         EXPECT_EQ(mcMemPoolSetAttribute(pool, mcMemPoolAttrUsedMemHigh, &zero), mcSuccess);  // a reset
         EXPECT_EQ(mcMemPoolSetAttribute(pool, mcMemPoolAttrUsedMemHigh, &keep), mcErrorInvalidValue);
         EXPECT_EQ(mcMemPoolSetAttribute(pool, mcMemPoolAttrUsedMemCurrent, &zero), mcErrorInvalidValue);
         EXPECT_EQ(mcMemPoolSetAttribute(pool, (mcMemPoolAttr)99, &zero), mcErrorInvalidValue);
         EXPECT_EQ(mcMemPoolGetAttribute(pool, (mcMemPoolAttr)99, &zero), mcErrorInvalidValue);
         EXPECT_EQ(mcMemPoolGetAttribute(pool, mcMemPoolAttrUsedMemHigh, nullptr), mcErrorInvalidValue);
         mcGetLastError();
         return 0;
     }},
    {"malloc_async_allocates_on_the_streams_device", [] {
         mcStream_t on_one = nullptr;
         EXPECT_EQ(mcSetDevice(1), mcSuccess);
         EXPECT_EQ(mcStreamCreate(&on_one), mcSuccess);
         EXPECT_EQ(mcSetDevice(0), mcSuccess);
         void *p = nullptr;
         EXPECT_EQ(mcMallocAsync(&p, 64, on_one), mcSuccess);
         mcPointerAttributes a;
         EXPECT_EQ(mcPointerGetAttributes(&a, p), mcSuccess);
         EXPECT_EQ(a.device, 1);
         EXPECT_EQ(mcFreeAsync(p, on_one), mcSuccess);
         EXPECT_EQ(mcStreamDestroy(on_one), mcSuccess);
         return 0;
     }},
    {"pool_errors", [] {
         void *p = nullptr;
         mcMemPool_t pool = nullptr;
         int count = 0;
         EXPECT_EQ(mcGetDeviceCount(&count), mcSuccess);
         EXPECT_EQ(mcMallocAsync(&p, 0, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocAsync(nullptr, 16, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocAsync(&p, 16, (mcStream_t)0x10), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcFreeAsync(&count, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcMalloc(&p, 16), mcSuccess);
         EXPECT_EQ(mcFreeAsync(p, nullptr), mcErrorInvalidValue);  // not a pool allocation
         EXPECT_EQ(mcFree(p), mcSuccess);
         EXPECT_EQ(mcDeviceGetDefaultMemPool(&pool, count), mcErrorInvalidDevice);
         EXPECT_EQ(mcDeviceGetDefaultMemPool(nullptr, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcMallocFromPoolAsync(&p, 16, (mcMemPool_t)&count, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcMemPoolTrimTo((mcMemPool_t)&count, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcDeviceGetDefaultMemPool(&pool, 0), mcSuccess);
         EXPECT_EQ(mcMallocFromPoolAsync(&p, 16, pool, nullptr), mcSuccess);
         EXPECT_EQ(mcFree(p), mcSuccess);  // mcFree takes pool memory too
         EXPECT_EQ(mcFreeAsync(p, nullptr), mcErrorInvalidValue);
         if (count > 1)
             EXPECT_EQ(mcDeviceSetMemPool(1, pool), mcErrorInvalidDevice);
         mcGetLastError();
         return 0;
     }},
};

int main(int argc, char **argv) { return run_probe(cases, argc, argv); }
