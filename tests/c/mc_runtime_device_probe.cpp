// Probes of the MACA runtime's device and stream calls frameworks make: device attributes and properties,
// PCI bus ids, peer access and peer copies, stream flags, priorities, callbacks and host functions,
// events, versions, sticky errors and device kernels.
// One case per documented behaviour; built with the MACA line against the prefix.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>
#include <mc_runtime.h>
#include "probe.h"

static probe_cases cases = {
    {"host_function_launches_onto_and_synchronizes_its_own_stream", [] {
         static mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         static int value = 7, copied = 0;
         static mcError_t status = mcErrorUnknown;
         EXPECT_EQ(mcLaunchHostFunc(s, [](void *) {
             mcLaunchHostFunc(s, [](void *) { copied = value; }, nullptr);
             status = mcStreamSynchronize(s);  // everything before this host function has run
         }, nullptr), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         EXPECT_EQ(status, mcSuccess);
         EXPECT_EQ(copied, 7);
         EXPECT_EQ(mcStreamDestroy(s), mcSuccess);
         return 0;
     }},
    {"device_attributes_match_properties", [] {
         mcDeviceProp_t prop;
         EXPECT_EQ(mcGetDeviceProperties(&prop, 0), mcSuccess);
         int v = 0;
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeWarpSize, 0), mcSuccess);
         EXPECT_EQ(v, 64);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeMultiProcessorCount, 0), mcSuccess);
         EXPECT_EQ(v, prop.multiProcessorCount);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeMaxThreadsPerBlock, 0), mcSuccess);
         EXPECT_EQ(v, prop.maxThreadsPerBlock);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeMaxSharedMemoryPerBlock, 0), mcSuccess);
         EXPECT_EQ(v, prop.sharedMemPerBlock);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeComputeCapabilityMajor, 0), mcSuccess);
         EXPECT_EQ(v, prop.major);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeMemoryPoolsSupported, 0), mcSuccess);
         EXPECT_EQ(v, 1);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeManagedMemory, 0), mcSuccess);
         EXPECT_EQ(v, 1);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeMaxBlockDimZ, 0), mcSuccess);
         EXPECT_EQ(v, prop.maxThreadsDim[2]);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributePciBusId, 0), mcSuccess);
         EXPECT_EQ(v, prop.pciBusID);
         EXPECT_EQ(mcDeviceGetAttribute(&v, (mcDeviceAttribute_t)44, 0), mcErrorInvalidValue);  // a gap
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeMax, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcDeviceGetAttribute(&v, mcDeviceAttributeWarpSize, -1), mcErrorInvalidDevice);
         EXPECT_EQ(mcDeviceGetAttribute(nullptr, mcDeviceAttributeWarpSize, 0), mcErrorInvalidValue);
         mcGetLastError();
         return 0;
     }},
    {"device_properties", [] {
         mcDeviceProp_t prop;
         memset(&prop, 0xFF, sizeof prop);
         EXPECT_EQ(offsetof(mcDeviceProp_t, name), 0);
         EXPECT_EQ(mcGetDeviceProperties(&prop, 0), mcSuccess);
         EXPECT_TRUE(strcmp(prop.name, "MetaX C500 (opemu)") == 0);
         EXPECT_EQ(prop.warpSize, 64);
         EXPECT_EQ(prop.waveSize, 64);
         EXPECT_EQ(prop.arch.hasDoubles, 1);
         size_t free_bytes = 0, total = 0;
         EXPECT_EQ(mcMemGetInfo(&free_bytes, &total), mcSuccess);
         EXPECT_EQ(prop.totalGlobalMem, total);
         EXPECT_EQ(prop.managedMemory, 1);
         EXPECT_EQ(prop.unifiedAddressing, 1);
         EXPECT_EQ(prop.reserved[0], 0);
         mcDeviceProp_t other;
         EXPECT_EQ(mcGetDeviceProperties(&other, 1), mcSuccess);
         EXPECT_TRUE(memcmp(&prop.uuid, &other.uuid, sizeof prop.uuid) != 0);  // one identity per device
         return 0;
     }},
    {"pci_bus_ids", [] {
         char id[16];
         int device = -1;
         EXPECT_EQ(mcDeviceGetPCIBusId(id, sizeof id, 1), mcSuccess);
         EXPECT_TRUE(strcmp(id, "0000:02:00.0") == 0);
         EXPECT_EQ(mcDeviceGetByPCIBusId(&device, id), mcSuccess);
         EXPECT_EQ(device, 1);
         EXPECT_EQ(mcDeviceGetByPCIBusId(&device, "02:00.0"), mcSuccess);
         EXPECT_EQ(device, 1);
         EXPECT_EQ(mcDeviceGetPCIBusId(id, 5, 1), mcErrorInvalidValue);
         EXPECT_EQ(mcDeviceGetPCIBusId(id, sizeof id, -1), mcErrorInvalidDevice);
         EXPECT_EQ(mcDeviceGetByPCIBusId(&device, "not a bus id"), mcErrorInvalidValue);
         EXPECT_EQ(mcDeviceGetByPCIBusId(&device, "0000:7f:00.0"), mcErrorInvalidDevice);
         mcGetLastError();
         return 0;
     }},
    {"peer_access", [] {
         int can = -1, count = 0;
         EXPECT_EQ(mcGetDeviceCount(&count), mcSuccess);
         EXPECT_TRUE(count >= 2);
         EXPECT_EQ(mcDeviceCanAccessPeer(&can, 0, 1), mcSuccess);
         EXPECT_EQ(can, 1);
         EXPECT_EQ(mcDeviceCanAccessPeer(&can, 0, 0), mcSuccess);
         EXPECT_EQ(can, 0);
         EXPECT_EQ(mcDeviceCanAccessPeer(&can, 0, count), mcErrorInvalidDevice);
         EXPECT_EQ(mcDeviceCanAccessPeer(nullptr, 0, 1), mcErrorInvalidValue);
         EXPECT_EQ(mcSetDevice(0), mcSuccess);
         EXPECT_EQ(mcDeviceEnablePeerAccess(1, 0), mcSuccess);
         EXPECT_EQ(mcDeviceEnablePeerAccess(1, 0), mcErrorPeerAccessAlreadyEnabled);
         EXPECT_EQ(mcDeviceEnablePeerAccess(0, 0), mcErrorInvalidDevice);
         EXPECT_EQ(mcDeviceEnablePeerAccess(1, 1), mcErrorInvalidValue);
         EXPECT_EQ(mcDeviceEnablePeerAccess(count, 0), mcErrorInvalidDevice);
         EXPECT_EQ(mcDeviceDisablePeerAccess(1), mcSuccess);
         EXPECT_EQ(mcDeviceDisablePeerAccess(1), mcErrorPeerAccessNotEnabled);
         EXPECT_EQ(mcDeviceEnablePeerAccess(1, 0), mcSuccess);
         EXPECT_EQ(mcDeviceReset(), mcSuccess);  // the context's peer mappings go with it
         EXPECT_EQ(mcDeviceDisablePeerAccess(1), mcErrorPeerAccessNotEnabled);
         mcGetLastError();
         return 0;
     }},
    {"memcpy_peer", [] {
         void *d0 = nullptr, *d1 = nullptr;
         EXPECT_EQ(mcSetDevice(1), mcSuccess);
         EXPECT_EQ(mcMalloc(&d1, 64), mcSuccess);
         EXPECT_EQ(mcSetDevice(0), mcSuccess);
         EXPECT_EQ(mcMalloc(&d0, 64), mcSuccess);
         int host[16], back[16];
         for (int i = 0; i < 16; i++)
             host[i] = i * i;
         EXPECT_EQ(mcMemcpy(d0, host, sizeof host, mcMemcpyHostToDevice), mcSuccess);
         EXPECT_EQ(mcMemcpyPeer(d1, 1, d0, 0, sizeof host), mcSuccess);
         EXPECT_EQ(mcMemcpy(back, d1, sizeof back, mcMemcpyDeviceToHost), mcSuccess);
         EXPECT_TRUE(memcmp(host, back, sizeof host) == 0);
         EXPECT_EQ(mcMemset(d0, 0, 64), mcSuccess);
         EXPECT_EQ(mcMemcpyPeerAsync(d0, 0, d1, 1, sizeof host, nullptr), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(nullptr), mcSuccess);
         EXPECT_EQ(mcMemcpy(back, d0, sizeof back, mcMemcpyDeviceToHost), mcSuccess);
         EXPECT_TRUE(memcmp(host, back, sizeof host) == 0);
         EXPECT_EQ(mcMemcpyPeer(d1, 0, d0, 0, 64), mcErrorInvalidValue);  // d1 is device 1's memory
         EXPECT_EQ(mcMemcpyPeer(d1, 1, d0, 0, 4096), mcErrorInvalidValue);  // past the allocations
         EXPECT_EQ(mcMemcpyPeer(d1, 1, host, 0, 16), mcErrorInvalidValue);
         EXPECT_EQ(mcMemcpyPeer(d1, -1, d0, 0, 16), mcErrorInvalidDevice);
         EXPECT_EQ(mcMemcpyPeer(d1, 1, d0, 0, 0), mcSuccess);
         EXPECT_EQ(mcFree(d0), mcSuccess);
         EXPECT_EQ(mcSetDevice(1), mcSuccess);
         EXPECT_EQ(mcFree(d1), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"stream_flags_and_priorities", [] {
         int least = 99, greatest = 99, priority = 99;
         unsigned flags = 99;
         EXPECT_EQ(mcDeviceGetStreamPriorityRange(&least, &greatest), mcSuccess);
         EXPECT_TRUE(least == 0 && greatest == -1);
         EXPECT_EQ(mcDeviceGetStreamPriorityRange(nullptr, nullptr), mcSuccess);
         mcStream_t high = nullptr, plain = nullptr;
         EXPECT_EQ(mcStreamCreateWithPriority(&high, mcStreamNonBlocking, -7), mcSuccess);  // clamped
         EXPECT_EQ(mcStreamGetPriority(high, &priority), mcSuccess);
         EXPECT_EQ(priority, greatest);
         EXPECT_EQ(mcStreamGetFlags(high, &flags), mcSuccess);
         EXPECT_EQ(flags, mcStreamNonBlocking);
         EXPECT_EQ(mcStreamCreate(&plain), mcSuccess);
         EXPECT_EQ(mcStreamGetPriority(plain, &priority), mcSuccess);
         EXPECT_EQ(priority, 0);
         EXPECT_EQ(mcStreamGetFlags(plain, &flags), mcSuccess);
         EXPECT_EQ(flags, mcStreamDefault);
         EXPECT_EQ(mcStreamGetFlags(nullptr, &flags), mcSuccess);  // the default stream
         EXPECT_EQ(flags, 0);
         EXPECT_EQ(mcStreamGetPriority(mcStreamPerThread, &priority), mcSuccess);
         EXPECT_EQ(mcStreamCreateWithPriority(&plain, 4, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcStreamCreateWithPriority(nullptr, 0, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcStreamGetFlags(high, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcStreamGetPriority(high, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcStreamDestroy(high), mcSuccess);
         EXPECT_EQ(mcStreamGetFlags(high, &flags), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamGetPriority(high, &priority), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcStreamDestroy(plain), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"stream_callbacks_and_host_functions", [] {  // also run with OPEMU_STREAM=deferred
         static std::vector<int> order;
         static mcStream_t seen_stream;
         static mcError_t seen_status;
         order.clear();
         mcStream_t s = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         void *d = nullptr;
         int value = 5, back = 0;
         EXPECT_EQ(mcMalloc(&d, sizeof value), mcSuccess);
         EXPECT_EQ(mcMemcpyAsync(d, &value, sizeof value, mcMemcpyHostToDevice, s), mcSuccess);
         EXPECT_EQ(mcStreamAddCallback(s, [](mcStream_t stream, mcError_t status, void *data) {
                       seen_stream = stream;
                       seen_status = status;
                       order.push_back(*(int *)data);
                   }, &value, 0), mcSuccess);
         EXPECT_EQ(mcMemcpyAsync(&back, d, sizeof back, mcMemcpyDeviceToHost, s), mcSuccess);
         EXPECT_EQ(mcLaunchHostFunc(s, [](void *data) { order.push_back(*(int *)data * 10); }, &back), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         EXPECT_EQ(order.size(), 2);
         EXPECT_EQ(order[0], 5);
         EXPECT_EQ(order[1], 50);  // ran after the copy into `back`, in stream order
         EXPECT_TRUE(seen_stream == s && seen_status == mcSuccess);
         EXPECT_EQ(mcStreamAddCallback(s, nullptr, nullptr, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcStreamAddCallback(s, [](mcStream_t, mcError_t, void *) {}, nullptr, 1), mcErrorInvalidValue);
         EXPECT_EQ(mcLaunchHostFunc(s, nullptr, nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcStreamDestroy(s), mcSuccess);
         EXPECT_EQ(mcLaunchHostFunc(s, [](void *) {}, nullptr), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcFree(d), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"event_record_with_flags_and_timing", [] {
         mcEvent_t a = nullptr, b = nullptr;
         EXPECT_EQ(mcEventCreateWithFlags(&a, mcEventDefault), mcSuccess);
         EXPECT_EQ(mcEventCreateWithFlags(&b, mcEventBlockingSync), mcSuccess);
         EXPECT_EQ(mcEventRecordWithFlags(a, nullptr, mcEventRecordDefault), mcSuccess);
         EXPECT_EQ(mcEventRecordWithFlags(b, nullptr, mcEventRecordExternal), mcSuccess);
         EXPECT_EQ(mcEventSynchronize(b), mcSuccess);
         EXPECT_EQ(mcEventQuery(b), mcSuccess);
         float ms = -1;
         EXPECT_EQ(mcEventElapsedTime(&ms, a, b), mcSuccess);
         EXPECT_TRUE(ms >= 0 && ms < 60000);
         EXPECT_EQ(mcEventRecordWithFlags(a, nullptr, 2), mcErrorInvalidValue);
         EXPECT_EQ(mcEventDestroy(a), mcSuccess);
         EXPECT_EQ(mcEventRecordWithFlags(a, nullptr, 0), mcErrorInvalidResourceHandle);
         EXPECT_EQ(mcEventDestroy(b), mcSuccess);
         mcGetLastError();
         return 0;
     }},
    {"elapsed_time_not_ready_is_not_sticky", [] {  // run with OPEMU_STREAM=deferred
         mcStream_t s = nullptr;
         mcEvent_t a = nullptr, b = nullptr;
         EXPECT_EQ(mcStreamCreate(&s), mcSuccess);
         EXPECT_EQ(mcEventCreate(&a), mcSuccess);
         EXPECT_EQ(mcEventCreate(&b), mcSuccess);
         EXPECT_EQ(mcEventRecord(a, s), mcSuccess);
         EXPECT_EQ(mcEventRecord(b, s), mcSuccess);
         float ms = -1;
         EXPECT_EQ(mcEventElapsedTime(&ms, a, b), mcErrorNotReady);
         EXPECT_EQ(mcEventQuery(b), mcErrorNotReady);
         EXPECT_EQ(mcGetLastError(), mcSuccess);
         EXPECT_EQ(mcStreamSynchronize(s), mcSuccess);
         EXPECT_EQ(mcEventElapsedTime(&ms, a, b), mcSuccess);
         EXPECT_TRUE(ms >= 0);
         mcEventDestroy(a);
         mcEventDestroy(b);
         mcStreamDestroy(s);
         return 0;
     }},
    {"versions", [] {
         int runtime = 0, driver = 0;
         EXPECT_EQ(mcRuntimeGetVersion(&runtime), mcSuccess);
         EXPECT_EQ(runtime, MACART_VERSION);
         EXPECT_EQ(mcDriverGetVersion(&driver), mcSuccess);
         EXPECT_TRUE(driver >= runtime);
         EXPECT_EQ(mcRuntimeGetVersion(nullptr), mcErrorInvalidValue);
         EXPECT_EQ(mcDriverGetVersion(nullptr), mcErrorInvalidValue);
         mcGetLastError();
         return 0;
     }},
    {"sticky_errors_survive_successes", [] {
         void *p = nullptr;
         EXPECT_EQ(mcGetLastError(), mcSuccess);
         EXPECT_EQ(mcHostRegister(nullptr, 1, 0), mcErrorInvalidValue);
         EXPECT_EQ(mcMalloc(&p, 16), mcSuccess);  // a success does not clear it
         EXPECT_EQ(mcPeekAtLastError(), mcErrorInvalidValue);
         EXPECT_EQ(mcDeviceEnablePeerAccess(-3, 0), mcErrorInvalidDevice);  // the latest failure wins
         EXPECT_EQ(mcGetLastError(), mcErrorInvalidDevice);
         EXPECT_EQ(mcPeekAtLastError(), mcSuccess);
         EXPECT_EQ(mcFree(p), mcSuccess);
         return 0;
     }},
    {"device_kernels_are_not_supported", [] {
         mcFuncAttributes attr;
         int blocks = 0;
         mcLaunchConfig_t config = {};
         EXPECT_EQ(mcFuncGetAttributes(&attr, (const void *)&blocks), mcErrorNotSupported);
         EXPECT_EQ(mcLaunchKernelExC(&config, (const void *)&blocks, nullptr), mcErrorNotSupported);
         EXPECT_EQ(mcLaunchKernel((const void *)&blocks, dim3(1), dim3(64), nullptr, 0, nullptr), mcErrorNotSupported);
         EXPECT_EQ(mcOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)&blocks, 64, 0),
                   mcErrorNotSupported);
         EXPECT_EQ(mcMemcpyToSymbol((const void *)&blocks, &blocks, 4, 0, mcMemcpyHostToDevice),
                   mcErrorNotSupported);
         EXPECT_EQ(mcGetLastError(), mcErrorNotSupported);
         return 0;
     }},
};

int main(int argc, char **argv) { return run_probe(cases, argc, argv); }
