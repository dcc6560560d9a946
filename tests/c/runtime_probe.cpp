// Probes of the AscendCL runtime and aclnn object model, one named case per documented behaviour.
// Built once per test session with the vendor's g++ line; `runtime_probe CASE` prints "PASS" or
// the first failed expectation. The expectations are the reference's (§2.8, §3.5, §7), not opemu's.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <map>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <vector>
#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_embedding.h"
#include "probe.h"

static const uint64_t MiB = 1ULL << 20;

static int set_device() { return aclrtSetDevice(0); }

static aclTensor* make_tensor(std::vector<int64_t> shape, aclDataType dtype, void* data)
{
    return aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, shape.data(), shape.size(), data);
}

// An embedding of 4 float rows of 2 gathered by 3 int64 indices; returns the phase-1 status.
struct EmbeddingCase {
    void *weight = nullptr, *indices = nullptr, *out = nullptr;
    aclTensor *w = nullptr, *i = nullptr, *o = nullptr;
    EmbeddingCase()
    {
        float wh[8] = {0, 1, 10, 11, 20, 21, 30, 31};
        int64_t ih[3] = {3, 0, 1};
        aclrtMalloc(&weight, sizeof wh, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMalloc(&indices, sizeof ih, ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMalloc(&out, 6 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemcpy(weight, sizeof wh, wh, sizeof wh, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(indices, sizeof ih, ih, sizeof ih, ACL_MEMCPY_HOST_TO_DEVICE);
        w = make_tensor({4, 2}, ACL_FLOAT, weight);
        i = make_tensor({3}, ACL_INT64, indices);
        o = make_tensor({3, 2}, ACL_FLOAT, out);
    }
    std::vector<float> result()
    {
        std::vector<float> r(6);
        aclrtMemcpy(r.data(), 6 * sizeof(float), out, 6 * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
        return r;
    }
};

static std::map<std::string, std::function<int()>> cases = {
    {"init_repeat_and_finalize_codes", [] {
         EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
         EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
         EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
         EXPECT_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
         return 0;
     }},
    {"finalize_reference_counts_down", [] {
         uint64_t left = 99;
         EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
         EXPECT_EQ(aclFinalizeReference(&left), ACL_SUCCESS);
         EXPECT_EQ(left, 1);
         EXPECT_EQ(aclFinalizeReference(&left), ACL_SUCCESS);
         EXPECT_EQ(left, 0);
         EXPECT_EQ(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE);
         return 0;
     }},
    {"malloc_null_pointer_or_zero_size_is_invalid_param", [] {
         void* p = nullptr;
         EXPECT_EQ(set_device(), 0);
         EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
         EXPECT_TRUE(aclGetRecentErrMsg() != nullptr);
         return 0;
     }},
    {"malloc_without_device_is_context_null", [] {
         void* p = nullptr;
         EXPECT_EQ(aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
         aclrtStream s;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
         int32_t device = -1;
         EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
         return 0;
     }},
    {"malloc_rounds_up_32_plus_32_with_64_byte_start", [] {
         EXPECT_EQ(set_device(), 0);
         void* p = nullptr;
         EXPECT_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ((uintptr_t)p % 64, 0);
         // ALIGN_UP(100, 32) + 32 = 160 bytes are mapped: a device write may reach byte 159, not 160
         EXPECT_EQ(aclrtMemset(p, 160, 1, 160), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(p, 161, 1, 161), ACL_ERROR_RT_PARAM_INVALID);
         void* q = nullptr;
         EXPECT_EQ(aclrtMallocAlign32(&q, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(q, 128, 1, 128), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(q, 129, 1, 129), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"malloc_huge_first_above_1mib_maps_whole_2mib_pages", [] {
         EXPECT_EQ(set_device(), 0);
         void *big = nullptr, *small = nullptr, *normal = nullptr;
         EXPECT_EQ(aclrtMalloc(&big, 3 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(big, 4 * MiB, 0, 4 * MiB), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(big, 4 * MiB + 1, 0, 4 * MiB + 1), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMalloc(&small, MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(small, MiB + 32, 0, MiB + 32), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(small, MiB + 33, 0, MiB + 33), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMalloc(&normal, 3 * MiB, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(normal, 3 * MiB + 33, 0, 3 * MiB + 33), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"get_mem_info_counts_mapped_bytes", [] {
         EXPECT_EQ(set_device(), 0);
         size_t free0 = 0, total = 0, free1 = 0;
         EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total), ACL_SUCCESS);
         void* p = nullptr;
         EXPECT_EQ(aclrtMalloc(&p, 3 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total), ACL_SUCCESS);
         EXPECT_EQ(free0 - free1, 4 * MiB);
         EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &total), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"free_errors", [] {
         EXPECT_EQ(set_device(), 0);
         void* p = nullptr;
         int on_stack = 0;
         EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
         EXPECT_EQ(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtFree(&on_stack), ACL_ERROR_RT_PARAM_INVALID);
         void* h = nullptr;
         EXPECT_EQ(aclrtMallocHost(&h, 64), ACL_SUCCESS);
         EXPECT_EQ(aclrtFree(h), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtFreeHost(h), ACL_SUCCESS);
         EXPECT_EQ(aclrtFreeHost(h), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"memcpy_checks", [] {
         EXPECT_EQ(set_device(), 0);
         void* d = nullptr;
         char host[64] = {0};
         EXPECT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(nullptr, 0, nullptr, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);  // count 0
         EXPECT_EQ(aclrtMemcpy(nullptr, 64, host, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy(d, 64, host, 8, (aclrtMemcpyKind)42), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtMemcpy(d, 4, host, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMemcpy(d, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);  // dst == src
         EXPECT_EQ(aclrtMemcpy(host, 64, host + 8, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"memcpy_round_trip_and_default_kind", [] {
         EXPECT_EQ(set_device(), 0);
         void *a = nullptr, *b = nullptr;
         int in[4] = {1, 2, 3, 4}, out[4] = {0};
         EXPECT_EQ(aclrtMalloc(&a, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMalloc(&b, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(a, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(b, sizeof in, a, sizeof in, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(out, sizeof out, b, sizeof in, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
         EXPECT_EQ(memcmp(in, out, sizeof in), 0);
         return 0;
     }},
    {"memset_is_bytewise", [] {
         EXPECT_EQ(set_device(), 0);
         void* d = nullptr;
         unsigned char out[8];
         EXPECT_EQ(aclrtMalloc(&d, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(d, 8, 0x1234, 8), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(out, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         for (int k = 0; k < 8; k++)
             EXPECT_EQ(out[k], 0x34);
         EXPECT_EQ(aclrtMemset(d, 4, 0, 8), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtMemset(d, 8, 0, 0), ACL_SUCCESS);
         return 0;
     }},
    {"recent_error_message_is_cleared_when_read", [] {
         EXPECT_TRUE(aclGetRecentErrMsg() == nullptr);
         EXPECT_EQ(aclrtSetDevice(100000), ACL_ERROR_RT_INVALID_DEVICEID);
         const char* first = aclGetRecentErrMsg();
         EXPECT_TRUE(first != nullptr && strstr(first, "100000") != nullptr);
         EXPECT_TRUE(aclGetRecentErrMsg() == nullptr);
         return 0;
     }},
    {"default_stream_is_nullptr", [] {
         EXPECT_EQ(set_device(), 0);
         void* d = nullptr;
         int in = 7, out = 0;
         EXPECT_EQ(aclrtMalloc(&d, 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpyAsync(d, 4, &in, 4, ACL_MEMCPY_HOST_TO_DEVICE, nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(&out, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_EQ(out, 7);
         EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"destroyed_stream_is_rejected", [] {
         EXPECT_EQ(set_device(), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtSynchronizeStream((aclrtStream)0x1234), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"deferred_stream_runs_at_synchronisation", [] {
         EXPECT_EQ(set_device(), 0);
         aclrtStream s = nullptr;
         void* d = nullptr;
         int in = 42, out = 0;
         aclrtStreamStatus status;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMalloc(&d, 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemset(d, 4, 0, 4), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpyAsync(d, 4, &in, 4, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamQuery(s, &status), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
         EXPECT_EQ(aclrtMemcpy(&out, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_EQ(out, 0);  // stale: not synchronised yet
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(&out, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_EQ(out, 42);
         EXPECT_EQ(aclrtStreamQuery(s, &status), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
         return 0;
     }},
    {"events_measure_elapsed_time", [] {
         EXPECT_EQ(set_device(), 0);
         aclrtEvent start, end, never;
         float ms = -1;
         aclrtEventRecordedStatus status;
         EXPECT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
         EXPECT_EQ(aclrtCreateEvent(&end), ACL_SUCCESS);
         EXPECT_EQ(aclrtCreateEvent(&never), ACL_SUCCESS);
         EXPECT_EQ(aclrtRecordEvent(start, nullptr), ACL_SUCCESS);
         usleep(2000);
         EXPECT_EQ(aclrtRecordEvent(end, nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
         EXPECT_EQ(aclrtQueryEventStatus(end, &status), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
         EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
         EXPECT_TRUE(ms >= 1.5f);
         EXPECT_EQ(aclrtEventElapsedTime(&ms, start, never), ACL_ERROR_RT_INTERNAL_ERROR);
         EXPECT_EQ(aclrtDestroyEvent(never), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyEvent(never), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtStreamWaitEvent(nullptr, start), ACL_SUCCESS);
         return 0;
     }},
    {"callback_needs_a_subscribed_thread", [] {
         EXPECT_EQ(set_device(), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         static int calls = 0;
         aclrtCallback fn = [](void* data) { calls += *(int*)data; };
         static int one = 1;
         EXPECT_EQ(aclrtLaunchCallback(fn, &one, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG);
         static volatile bool stop = false;
         pthread_t worker;
         pthread_create(&worker, nullptr, [](void*) -> void* {
             while (!stop)
                 aclrtProcessReport(50);
             return nullptr;
         }, nullptr);
         EXPECT_EQ(aclrtSubscribeReport((uint64_t)worker, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtLaunchCallback(fn, &one, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(calls, 1);
         EXPECT_EQ(aclrtUnSubscribeReport((uint64_t)worker, s), ACL_SUCCESS);
         stop = true;
         pthread_join(worker, nullptr);
         EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_THREAD_NOT_SUBSCRIBE);
         return 0;
     }},
    {"blocking_callback_runs_in_the_launching_threads_process_report", [] {
         // the launch returns at once; the work behind the callback waits for it; the same thread runs it
         EXPECT_EQ(set_device(), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         static int ran = 0, seen_by_next = -1;
         EXPECT_EQ(aclrtSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
         EXPECT_EQ(aclrtLaunchCallback([](void*) { ran++; }, nullptr, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtLaunchHostFunc(s, [](void*) { seen_by_next = ran; }, nullptr), ACL_SUCCESS);
         EXPECT_EQ(ran, 0);
         EXPECT_EQ(aclrtProcessReport(5000), ACL_SUCCESS);
         EXPECT_EQ(ran, 1);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(seen_by_next, 1);
         EXPECT_EQ(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         return 0;
     }},
    {"synchronizing_behind_this_threads_blocking_callback_fails_instead_of_waiting_for_ever", [] {
         EXPECT_EQ(set_device(), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         static int ran = 0;
         EXPECT_EQ(aclrtSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
         EXPECT_EQ(aclrtLaunchCallback([](void*) { ran++; }, nullptr, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtProcessReport(5000), ACL_SUCCESS);  // (deferred: the stream runs up to the callback)
         EXPECT_EQ(aclrtLaunchCallback([](void*) { ran++; }, nullptr, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
         if (getenv("OPEMU_STREAM") == nullptr) {  // eager: the callback holds the stream already
             EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
             EXPECT_TRUE(strstr(aclGetRecentErrMsg(), "aclrtProcessReport") != nullptr);
         }
         EXPECT_EQ(aclrtProcessReport(5000), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(ran, 2);
         EXPECT_EQ(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         return 0;
     }},
    {"host_function_launches_onto_and_synchronizes_its_own_stream", [] {
         EXPECT_EQ(set_device(), 0);
         static aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         static int value = 7, copied = 0, status = -1;
         EXPECT_EQ(aclrtLaunchHostFunc(s, [](void*) {
             aclrtLaunchHostFunc(s, [](void*) { copied = value; }, nullptr);
             status = aclrtSynchronizeStream(s);  // everything before this host function has run
         }, nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_SUCCESS);
         EXPECT_EQ(copied, 7);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         return 0;
     }},
    {"devices_and_contexts", [] {
         uint32_t count = 0;
         EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
         EXPECT_EQ(count, 8);
         EXPECT_EQ(aclrtSetDevice(8), ACL_ERROR_RT_INVALID_DEVICEID);
         EXPECT_EQ(aclrtSetDevice(3), ACL_SUCCESS);
         int32_t device = -1;
         EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
         EXPECT_EQ(device, 3);
         aclrtContext made = nullptr, current = nullptr;
         EXPECT_EQ(aclrtCreateContext(&made, 5), ACL_SUCCESS);
         EXPECT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
         EXPECT_TRUE(current == made);
         EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
         EXPECT_EQ(device, 5);
         EXPECT_EQ(aclrtDestroyContext(made), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyContext(made), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtResetDevice(3), ACL_SUCCESS);
         aclrtRunMode mode;
         EXPECT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
         EXPECT_EQ(mode, ACL_HOST);
         return 0;
     }},
    {"reset_device_releases_its_memory", [] {
         EXPECT_EQ(set_device(), 0);
         void* p = nullptr;
         EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
         EXPECT_EQ(set_device(), 0);
         EXPECT_EQ(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"soc_name_and_device_info", [] {
         EXPECT_TRUE(strcmp(aclrtGetSocName(), getenv("EXPECTED_SOC") ? getenv("EXPECTED_SOC") : "Ascend910B1") == 0);
         int64_t value = 0;
         EXPECT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &value), ACL_SUCCESS);
         EXPECT_TRUE(value > 0);
         EXPECT_EQ(aclrtGetDeviceInfo(0, (aclrtDevAttr)9999, &value), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetDeviceInfo(99, ACL_DEV_ATTR_AICORE_CORE_NUM, &value), ACL_ERROR_RT_INVALID_DEVICEID);
         return 0;
     }},
    {"data_type_size_and_fp16", [] {
         EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4);
         EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2);
         EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16);
         EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0);
         EXPECT_EQ(aclDataTypeSize(ACL_INT4), 1);
         EXPECT_EQ(aclDataTypeSize(ACL_FLOAT4_E2M1), 8);  // RT's default branch
         EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
         EXPECT_EQ(aclFloatToFloat16(-2.5f), 0xC100);
         EXPECT_EQ(aclFloatToFloat16(1e9f), 0x7BFF);      // saturates
         EXPECT_EQ(aclFloatToFloat16(1.0f / 0.0f), 0x7BFF);
         EXPECT_EQ(aclFloatToFloat16(5.9604645e-08f), 0x0001);
         EXPECT_TRUE(aclFloat16ToFloat(0x3C00) == 1.0f);
         EXPECT_TRUE(aclFloat16ToFloat(0x7C00) == 65536.0f);
         EXPECT_TRUE(aclFloat16ToFloat(0x0001) == 5.9604645e-08f);
         return 0;
     }},
    {"data_buffer", [] {
         int x = 0;
         aclDataBuffer* b = aclCreateDataBuffer(&x, sizeof x);
         EXPECT_TRUE(aclGetDataBufferAddr(b) == &x);
         EXPECT_EQ(aclGetDataBufferSizeV2(b), sizeof x);
         EXPECT_EQ(aclDestroyDataBuffer(b), ACL_SUCCESS);
         EXPECT_EQ(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_TRUE(aclGetDataBufferAddr(nullptr) == nullptr);
         EXPECT_EQ(aclGetDataBufferSizeV2(nullptr), 0);
         return 0;
     }},
    {"tensor_create_get_destroy", [] {
         int64_t dims[2] = {2, 3};
         EXPECT_TRUE(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, nullptr) == nullptr);
         aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 5, ACL_FORMAT_NCHW, dims, 2, nullptr);
         EXPECT_TRUE(t != nullptr);
         int64_t* strides = nullptr;
         uint64_t n = 0;
         EXPECT_EQ(aclGetViewStrides(t, &strides, &n), ACLNN_SUCCESS);
         EXPECT_EQ(n, 2);
         EXPECT_EQ(strides[0], 3);
         EXPECT_EQ(strides[1], 1);
         delete[] strides;
         int64_t* shape = nullptr;
         EXPECT_EQ(aclGetViewShape(t, &shape, &n), ACLNN_SUCCESS);
         EXPECT_EQ(shape[1], 3);
         delete[] shape;
         int64_t offset = 0;
         EXPECT_EQ(aclGetViewOffset(t, &offset), ACLNN_SUCCESS);
         EXPECT_EQ(offset, 5);
         aclFormat format;
         EXPECT_EQ(aclGetFormat(t, &format), ACLNN_SUCCESS);
         EXPECT_EQ(format, ACL_FORMAT_NCHW);
         EXPECT_EQ(aclGetViewShape(t, nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
         EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
         EXPECT_EQ(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
         EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS);
         EXPECT_EQ(aclGetViewShape((aclTensor*)0x1000, &shape, &n), ACLNN_ERR_PARAM_INVALID);
         return 0;
     }},
    {"scalars_arrays_and_lists", [] {
         float f = 2.5f;
         aclScalar* s = aclCreateScalar(&f, ACL_FLOAT);
         EXPECT_TRUE(s != nullptr);
         EXPECT_TRUE(aclCreateScalar(nullptr, ACL_FLOAT) == nullptr);
         int64_t values[3] = {1, 2, 3};
         aclIntArray* a = aclCreateIntArray(values, 3);
         uint64_t size = 0;
         EXPECT_EQ(aclGetIntArraySize(a, &size), ACLNN_SUCCESS);
         EXPECT_EQ(size, 3);
         int64_t dims[1] = {4};
         aclTensor* t0 = make_tensor({4}, ACL_FLOAT, nullptr);
         aclTensor* t1 = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
         const aclTensor* members[2] = {t0, t1};
         aclTensorList* list = aclCreateTensorList(members, 2);
         EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
         EXPECT_EQ(size, 2);
         EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
         EXPECT_EQ(aclDestroyTensor(t0), ACLNN_ERR_PARAM_INVALID);  // the list destroyed its members
         const aclScalar* scalars[1] = {s};
         aclScalarList* slist = aclCreateScalarList(scalars, 1);
         EXPECT_EQ(aclDestroyScalarList(slist), ACLNN_SUCCESS);
         EXPECT_EQ(aclDestroyScalar(s), ACLNN_ERR_PARAM_INVALID);
         EXPECT_EQ(aclDestroyIntArray(a), ACLNN_SUCCESS);
         EXPECT_EQ(aclDestroyIntArray(a), ACLNN_ERR_PARAM_INVALID);
         EXPECT_EQ(aclDestroyFloatArray(nullptr), ACLNN_SUCCESS);
         return 0;
     }},
    {"phase_two_releases_the_executor", [] {
         EXPECT_EQ(set_device(), 0);
         EmbeddingCase c;
         uint64_t ws = 0;
         aclOpExecutor* e = nullptr;
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(c.w, c.i, c.o, &ws, &e), ACLNN_SUCCESS);
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, e, nullptr), ACLNN_SUCCESS);
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, e, nullptr), ACLNN_ERR_PARAM_INVALID);  // already released
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, (aclOpExecutor*)&ws, nullptr), ACLNN_ERR_PARAM_INVALID);
         EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR);
         EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
         std::vector<float> r = c.result();
         EXPECT_TRUE(r[0] == 30 && r[1] == 31 && r[2] == 0 && r[5] == 11);
         return 0;
     }},
    {"repeatable_executor_runs_again_with_new_addresses", [] {
         EXPECT_EQ(set_device(), 0);
         EmbeddingCase c;
         uint64_t ws = 0;
         aclOpExecutor* e = nullptr;
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(c.w, c.i, c.o, &ws, &e), ACLNN_SUCCESS);
         EXPECT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, e, nullptr), ACLNN_SUCCESS);
         EXPECT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_ERR_PARAM_INVALID);  // only right after phase 1
         void* other = nullptr;
         int64_t ih[3] = {2, 2, 2};
         EXPECT_EQ(aclrtMalloc(&other, sizeof ih, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy(other, sizeof ih, ih, sizeof ih, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         EXPECT_EQ(aclSetInputTensorAddr(e, 1, c.i, other), ACLNN_SUCCESS);
         EXPECT_EQ(aclSetInputTensorAddr(e, 7, c.i, other), ACLNN_ERR_PARAM_INVALID);
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, e, nullptr), ACLNN_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
         std::vector<float> r = c.result();
         EXPECT_TRUE(r[0] == 20 && r[3] == 21 && r[5] == 21);
         EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
         EXPECT_EQ(aclnnEmbedding(nullptr, ws, e, nullptr), ACLNN_ERR_PARAM_INVALID);
         return 0;
     }},
    {"phase_one_rejects_dead_and_foreign_tensors", [] {
         EXPECT_EQ(set_device(), 0);
         EmbeddingCase c;
         uint64_t ws = 0;
         aclOpExecutor* e = nullptr;
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(nullptr, c.i, c.o, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
         EXPECT_TRUE(strstr(aclGetRecentErrMsg(), "Expected a proper Tensor but got null for argument weight.") != nullptr);
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize((aclTensor*)&ws, c.i, c.o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
         aclDestroyTensor(c.o);
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(c.w, c.i, c.o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(c.w, c.i, nullptr, nullptr, &e), ACLNN_ERR_PARAM_NULLPTR);
         return 0;
     }},
    {"app_log", [] {
         ACL_APP_LOG(ACL_INFO, "info from the app %d", 1);
         ACL_APP_LOG(ACL_ERROR, "error from the app %d", 2);
         EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"no_operator_never_starts_python", [] {
         EXPECT_EQ(set_device(), 0);
         void* p = nullptr;
         EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         int64_t dims[1] = {16};
         aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, p);
         aclDestroyTensor(t);
         auto initialized = (int (*)())dlsym(RTLD_DEFAULT, "Py_IsInitialized");
         EXPECT_TRUE(initialized != nullptr);
         EXPECT_EQ(initialized(), 0);
         return 0;
     }},
};

int main(int argc, char** argv)
{
    if (argc < 2 || cases.find(argv[1]) == cases.end()) {
        for (auto& c : cases)
            printf("%s\n", c.first.c_str());
        return argc < 2 ? 0 : 2;
    }
    int failed = cases[argv[1]]();
    if (!failed)
        printf("PASS\n");
    return failed;
}
