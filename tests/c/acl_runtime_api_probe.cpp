// Probes of the AscendCL runtime calls frameworks make: errors, versions, streams,
// events, devices, host memory and the allocator registry; one named case per documented behaviour.
// aclsysGetCANNVersion is deprecated in favour of aclsysGetVersionStr/Num; both are probed here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_embedding.h"
#include "probe.h"

static std::vector<uint32_t> seen_devices;
static void note_exception(aclrtExceptionInfo* info)
{
    seen_devices.push_back(aclrtGetDeviceIdFromExceptionInfo(info));
    seen_devices.push_back(aclrtGetErrorCodeFromExceptionInfo(info));
}
static int second_calls;
static void second_callback(aclrtExceptionInfo*) { second_calls++; }

static void add_one(void* arg) { ++*(int*)arg; }

static void* fake_alloc(aclrtAllocator, size_t) { return nullptr; }
static void fake_free(aclrtAllocator, aclrtAllocatorBlock) {}
static void* fake_advise(aclrtAllocator, size_t, aclrtAllocatorAddr) { return nullptr; }
static void* fake_addr(aclrtAllocatorBlock) { return nullptr; }

static const probe_cases cases = {
    {"last_error_is_kept_per_thread_and_cleared_by_get", [] {
         EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
         void* p = nullptr;
         EXPECT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
         EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
         EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);  // peek keeps it
         int other = -1;
         std::thread([&] { other = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL); }).join();
         EXPECT_EQ(other, ACL_SUCCESS);  // another thread has its own
         EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
         EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);  // get cleared it
         EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
         EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);  // a success leaves it alone
         EXPECT_EQ(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("aclrtGetLastError");
         EXPECT_EQ(aclrtPeekAtLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"error_verbose_reports_no_device_error", [] {
         aclrtErrorInfo info;
         memset(&info, 0xAB, sizeof info);
         EXPECT_EQ(aclrtGetErrorVerbose(0, &info), ACL_SUCCESS);
         EXPECT_EQ(info.errorType, ACL_RT_NO_ERROR);
         EXPECT_EQ(info.hasDetail, 0);
         EXPECT_EQ(info.tryRepair, 0);
         EXPECT_EQ(aclrtGetErrorVerbose(0, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetErrorVerbose(1000, &info), ACL_ERROR_RT_INVALID_DEVICEID);
         EXPECT_EQ(aclrtGetErrorVerbose(-1, &info), ACL_ERROR_RT_INVALID_DEVICEID);
         return 0;
     }},
    {"exception_callbacks_see_a_device_fault", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         EXPECT_EQ(aclrtExceptionInfoCallbackRegister(note_exception), ACL_SUCCESS);
         EXPECT_EQ(aclrtExceptionInfoCallbackRegister(note_exception), ACL_SUCCESS);  // once, however often
         EXPECT_EQ(aclrtExceptionInfoCallbackRegister(second_callback), ACL_SUCCESS);
         EXPECT_EQ(aclrtExceptionInfoCallbackRegister(nullptr), ACL_ERROR_RT_PARAM_INVALID);
         // an embedding index far past the weight's rows reads outside every device allocation: a fault
         void *weight = nullptr, *indices = nullptr, *out = nullptr;
         EXPECT_EQ(aclrtMalloc(&weight, 8 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMalloc(&indices, sizeof(int64_t), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMalloc(&out, 2 * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         int64_t far = 1LL << 40;
         EXPECT_EQ(aclrtMemcpy(indices, 8, &far, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
         int64_t wshape[2] = {4, 2}, ishape[1] = {1}, oshape[2] = {1, 2}, wstride[2] = {2, 1}, istride[1] = {1};
         aclTensor* w = aclCreateTensor(wshape, 2, ACL_FLOAT, wstride, 0, ACL_FORMAT_ND, wshape, 2, weight);
         aclTensor* i = aclCreateTensor(ishape, 1, ACL_INT64, istride, 0, ACL_FORMAT_ND, ishape, 1, indices);
         aclTensor* o = aclCreateTensor(oshape, 2, ACL_FLOAT, wstride, 0, ACL_FORMAT_ND, oshape, 2, out);
         uint64_t ws = 0;
         aclOpExecutor* e = nullptr;
         EXPECT_EQ(aclnnEmbeddingGetWorkspaceSize(w, i, o, &ws, &e), 0);
         EXPECT_EQ(aclnnEmbedding(nullptr, 0, e, nullptr), ACL_ERROR_RT_AICORE_EXCEPTION);
         EXPECT_EQ(seen_devices.size(), 2u);  // note_exception ran once
         EXPECT_EQ(seen_devices[0], 0u);
         EXPECT_EQ(seen_devices[1], (uint32_t)ACL_ERROR_RT_AICORE_EXCEPTION);
         EXPECT_EQ(second_calls, 1);
         EXPECT_EQ(aclrtExceptionInfoCallbackUnregister(second_callback), ACL_SUCCESS);
         EXPECT_EQ(aclrtExceptionInfoCallbackUnregister(nullptr), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"exception_info_getters_reject_null", [] {
         EXPECT_EQ(aclrtGetTaskIdFromExceptionInfo(nullptr), 0xFFFFFFFFu);
         EXPECT_EQ(aclrtGetStreamIdFromExceptionInfo(nullptr), 0xFFFFFFFFu);
         EXPECT_EQ(aclrtGetThreadIdFromExceptionInfo(nullptr), 0xFFFFFFFFu);
         EXPECT_EQ(aclrtGetDeviceIdFromExceptionInfo(nullptr), 0xFFFFFFFFu);
         EXPECT_EQ(aclrtGetErrorCodeFromExceptionInfo(nullptr), 0xFFFFFFFFu);
         EXPECT_MESSAGE_MENTIONS("aclrtGetErrorCodeFromExceptionInfo");
         void* args = nullptr;
         uint32_t len = 0;
         EXPECT_EQ(aclrtGetArgsFromExceptionInfo(nullptr, &args, &len), (aclError)0xFFFFFFFFu);
         aclrtFuncHandle f = nullptr;
         EXPECT_EQ(aclrtGetFuncHandleFromExceptionInfo(nullptr, &f), (aclError)0xFFFFFFFFu);
         return 0;
     }},
    {"op_timeouts_are_kept", [] {
         uint32_t ms = 1;
         EXPECT_EQ(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
         EXPECT_EQ(ms, 0u);  // the default
         EXPECT_EQ(aclrtSetOpExecuteTimeOut(3), ACL_SUCCESS);
         EXPECT_EQ(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
         EXPECT_EQ(ms, 3000u);
         EXPECT_EQ(aclrtSetOpExecuteTimeOutWithMs(250), ACL_SUCCESS);
         EXPECT_EQ(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
         EXPECT_EQ(ms, 250u);
         uint64_t interval = 0, actual = 0;
         EXPECT_EQ(aclrtGetOpTimeOutInterval(&interval), ACL_SUCCESS);
         EXPECT_TRUE(interval > 0);
         EXPECT_EQ(aclrtSetOpExecuteTimeOutV2(interval * 2 + 1, &actual), ACL_SUCCESS);
         EXPECT_EQ(actual, interval * 3);  // rounded up to the interval
         EXPECT_EQ(aclrtGetOpExecuteTimeout(&ms), ACL_SUCCESS);
         EXPECT_EQ((uint64_t)ms, actual / 1000);
         EXPECT_EQ(aclrtSetOpExecuteTimeOutV2(5, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtSetOpExecuteTimeOutV2(UINT64_MAX, &actual), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtGetOpExecuteTimeout(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetOpTimeOutInterval(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtSetOpWaitTimeout(10), ACL_SUCCESS);
         return 0;
     }},
    {"versions_of_the_runtime_package", [] {
         char text[ACL_PKG_VERSION_MAX_SIZE] = {};
         int32_t number = 0;
         char runtime[] = "runtime";
         EXPECT_EQ(aclsysGetVersionStr(runtime, text), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(text, "9.1.0") == 0);
         EXPECT_EQ(aclsysGetVersionNum(runtime, &number), ACL_SUCCESS);
         EXPECT_EQ(number, 90100000);
         aclCANNPackageVersion v;
         EXPECT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(v.version, "9.1.0") == 0 && strcmp(v.majorVersion, "9") == 0 &&
                     strcmp(v.minorVersion, "1") == 0 && strcmp(v.releaseVersion, "0") == 0 &&
                     strcmp(v.patchVersion, "0") == 0);
         char missing[] = "no-such-package";
         EXPECT_EQ(aclsysGetVersionStr(missing, text), ACL_ERROR_INVALID_FILE);
         EXPECT_MESSAGE_MENTIONS("no-such-package");
         EXPECT_EQ(aclsysGetVersionNum(missing, &number), ACL_ERROR_INVALID_FILE);
         EXPECT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v), ACL_ERROR_INVALID_FILE);
         EXPECT_EQ(aclsysGetVersionStr(nullptr, text), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclsysGetVersionStr(runtime, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclsysGetVersionNum(runtime, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclsysGetCANNVersion((aclCANNPackageName)99, &v), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"versions_come_from_version_info_files", [] {
         // ASCEND_HOME_PATH is set by the test to a directory holding share/info/hccl/version.info
         char text[ACL_PKG_VERSION_MAX_SIZE] = {};
         int32_t number = 0;
         char hccl[] = "hccl";
         EXPECT_EQ(aclsysGetVersionStr(hccl, text), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(text, "8.5.0.rc2") == 0);
         EXPECT_EQ(aclsysGetVersionNum(hccl, &number), ACL_SUCCESS);
         EXPECT_EQ(number, 80500000 - 100 + 2);
         char dashed[] = "oam_tools";  // '-' and '_' are interchangeable
         EXPECT_EQ(aclsysGetVersionStr(dashed, text), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(text, "7.0.1") == 0);
         aclCANNPackageVersion v;
         EXPECT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_TOOLKIT, &v), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(v.patchVersion, "0") == 0 && strcmp(v.releaseVersion, "1") == 0);
         char broken[] = "broken";
         EXPECT_EQ(aclsysGetVersionNum(broken, &number), ACL_ERROR_INTERNAL_ERROR);
         return 0;
     }},
    {"stream_priorities_flags_and_ids", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         int32_t least = -1, greatest = -1;
         EXPECT_EQ(aclrtDeviceGetStreamPriorityRange(&least, &greatest), ACL_SUCCESS);
         EXPECT_EQ(least, 7);
         EXPECT_EQ(greatest, 0);
         aclrtStream a = nullptr, b = nullptr;
         EXPECT_EQ(aclrtCreateStreamWithConfig(&a, 5, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE), ACL_SUCCESS);
         EXPECT_EQ(aclrtCreateStream(&b), ACL_SUCCESS);
         uint32_t priority = 99, flags = 99;
         EXPECT_EQ(aclrtStreamGetPriority(a, &priority), ACL_SUCCESS);
         EXPECT_EQ(priority, 5u);
         EXPECT_EQ(aclrtStreamGetFlags(a, &flags), ACL_SUCCESS);
         EXPECT_EQ(flags, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE);
         EXPECT_EQ(aclrtStreamGetPriority(b, &priority), ACL_SUCCESS);
         EXPECT_EQ(priority, 0u);
         int32_t ida = -1, idb = -1, id0 = -1;
         EXPECT_EQ(aclrtStreamGetId(a, &ida), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamGetId(b, &idb), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamGetId(nullptr, &id0), ACL_SUCCESS);  // the default stream
         EXPECT_TRUE(ida != idb && ida != id0 && idb != id0);
         EXPECT_EQ(aclrtCreateStreamWithConfig(&b, 8, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtCreateStreamWithConfig(&b, 0, 0x1000), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtCreateStreamWithConfig(nullptr, 0, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtStreamGetId(a, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtStreamGetFlags(a, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtStreamGetPriority(a, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDeviceGetStreamPriorityRange(nullptr, &greatest), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamGetId(a, &ida), ACL_ERROR_RT_PARAM_INVALID);  // stale
         EXPECT_EQ(aclrtStreamGetPriority(&least, &priority), ACL_ERROR_RT_PARAM_INVALID);  // foreign
         return 0;
     }},
    {"stream_config_handle_and_create_v2", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtStreamConfigHandle* h = aclrtCreateStreamConfigHandle();
         EXPECT_TRUE(h != nullptr);
         uint32_t priority = 3;
         size_t flag = ACL_STREAM_FAST_SYNC;
         EXPECT_EQ(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority), ACL_SUCCESS);
         EXPECT_EQ(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag), ACL_SUCCESS);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStreamV2(&s, h), ACL_SUCCESS);
         uint32_t got = 0;
         EXPECT_EQ(aclrtStreamGetPriority(s, &got), ACL_SUCCESS);
         EXPECT_EQ(got, 3u);
         EXPECT_EQ(aclrtStreamGetFlags(s, &got), ACL_SUCCESS);
         EXPECT_EQ(got, (uint32_t)ACL_STREAM_FAST_SYNC);
         aclrtStream plain = nullptr;
         EXPECT_EQ(aclrtCreateStreamV2(&plain, nullptr), ACL_SUCCESS);  // default configuration
         EXPECT_EQ(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &priority, 8), ACL_ERROR_INVALID_PARAM);
         priority = 8;
         EXPECT_EQ(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &priority, 4), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)9, &priority, 4), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, nullptr, 8), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtSetStreamConfigOpt(nullptr, ACL_RT_STREAM_FLAG, &flag, 8), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtCreateStreamV2(nullptr, h), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
         EXPECT_EQ(aclrtDestroyStreamConfigHandle(h), ACL_ERROR_INVALID_PARAM);  // stale
         EXPECT_EQ(aclrtCreateStreamV2(&s, h), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyStreamConfigHandle(nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"stream_attributes", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         aclrtStreamAttrValue v = {};
         EXPECT_EQ(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_SUCCESS);
         EXPECT_EQ(v.failureMode, (uint64_t)ACL_CONTINUE_ON_FAILURE);
         v.failureMode = ACL_STOP_ON_FAILURE;
         EXPECT_EQ(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_SUCCESS);
         v = {};
         v.userCustomTag = 1234;
         EXPECT_EQ(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), ACL_SUCCESS);
         v = {};
         v.streamPriority = 6;
         EXPECT_EQ(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_SUCCESS);
         v = {};
         EXPECT_EQ(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_SUCCESS);
         EXPECT_EQ(v.failureMode, (uint64_t)ACL_STOP_ON_FAILURE);
         EXPECT_EQ(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v), ACL_SUCCESS);
         EXPECT_EQ(v.userCustomTag, 1234u);
         uint32_t priority = 0;
         EXPECT_EQ(aclrtStreamGetPriority(s, &priority), ACL_SUCCESS);
         EXPECT_EQ(priority, 6u);
         v.failureMode = 5;
         EXPECT_EQ(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v), ACL_ERROR_RT_PARAM_INVALID);
         v.streamPriority = 8;
         EXPECT_EQ(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtSetStreamAttribute(s, (aclrtStreamAttr)0, &v), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtGetStreamAttribute(s, (aclrtStreamAttr)77, &v), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"current_default_stream", [] {
         aclrtStream s = (aclrtStream)1;
         EXPECT_EQ(aclrtCtxGetCurrentDefaultStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
         EXPECT_EQ(aclrtSetDevice(0), 0);
         EXPECT_EQ(aclrtCtxGetCurrentDefaultStream(&s), ACL_SUCCESS);
         EXPECT_TRUE(s != nullptr);
         int32_t a = -1, b = -2;
         EXPECT_EQ(aclrtStreamGetId(s, &a), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamGetId(nullptr, &b), ACL_SUCCESS);
         EXPECT_EQ(a, b);  // the same stream that nullptr names
         EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_RT_PARAM_INVALID);  // a default stream is not destroyed
         EXPECT_EQ(aclrtCtxGetCurrentDefaultStream(nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"host_func_runs_in_stream_order", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         int counter = 0;
         EXPECT_EQ(aclrtLaunchHostFunc(s, add_one, &counter), ACL_SUCCESS);
         EXPECT_EQ(aclrtLaunchHostFunc(nullptr, add_one, &counter), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
         EXPECT_EQ(counter, 2);
         EXPECT_EQ(aclrtLaunchHostFunc(s, nullptr, &counter), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtLaunchHostFunc(s, add_one, &counter), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(counter, 2);
         return 0;
     }},
    {"event_wait_status_timeout_and_timestamp", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         aclrtEvent e = nullptr;
         EXPECT_EQ(aclrtCreateEventExWithFlag(&e, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
         uint64_t stamp = 0;
         EXPECT_EQ(aclrtEventGetTimestamp(e, &stamp), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);  // never recorded
         EXPECT_EQ(aclrtRecordEvent(e, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamWaitEventWithTimeout(nullptr, e, 100), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
         aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_RESERVED;
         EXPECT_EQ(aclrtQueryEventWaitStatus(e, &status), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_EVENT_WAIT_STATUS_COMPLETE);
         EXPECT_EQ(aclrtEventGetTimestamp(e, &stamp), ACL_SUCCESS);
         uint64_t first = stamp;
         EXPECT_EQ(aclrtRecordEvent(e, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeEvent(e), ACL_SUCCESS);
         EXPECT_EQ(aclrtEventGetTimestamp(e, &stamp), ACL_SUCCESS);
         EXPECT_TRUE(stamp >= first);
         EXPECT_EQ(aclrtStreamWaitEventWithTimeout(s, e, -1), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtQueryEventWaitStatus(e, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtQueryEventWaitStatus(nullptr, &status), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtEventGetTimestamp(e, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
         EXPECT_EQ(aclrtQueryEventWaitStatus(e, &status), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtEventGetTimestamp(e, &stamp), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtStreamWaitEventWithTimeout(s, e, 10), ACL_ERROR_RT_PARAM_INVALID);
         return 0;
     }},
    {"deferred_event_wait_is_pending_until_synchronised", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtStream a = nullptr, b = nullptr;
         EXPECT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
         EXPECT_EQ(aclrtCreateStream(&b), ACL_SUCCESS);
         aclrtEvent e = nullptr;
         EXPECT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
         EXPECT_EQ(aclrtRecordEvent(e, a), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
         aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_RESERVED;
         EXPECT_EQ(aclrtQueryEventWaitStatus(e, &status), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_EVENT_WAIT_STATUS_NOT_READY);
         EXPECT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
         EXPECT_EQ(aclrtQueryEventWaitStatus(e, &status), ACL_SUCCESS);
         EXPECT_EQ(status, ACL_EVENT_WAIT_STATUS_COMPLETE);
         return 0;
     }},
    {"device_uuid_utilization_and_capability", [] {
         aclrtUuid u0, u1;
         EXPECT_EQ(aclrtDeviceGetUuid(0, &u0), ACL_SUCCESS);
         EXPECT_EQ(aclrtDeviceGetUuid(1, &u1), ACL_SUCCESS);
         EXPECT_TRUE(memcmp(u0.bytes, u1.bytes, sizeof u0.bytes) != 0);
         aclrtUuid again;
         EXPECT_EQ(aclrtDeviceGetUuid(0, &again), ACL_SUCCESS);
         EXPECT_TRUE(memcmp(u0.bytes, again.bytes, sizeof u0.bytes) == 0);
         EXPECT_EQ(aclrtDeviceGetUuid(0, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDeviceGetUuid(1000, &u0), ACL_ERROR_RT_INVALID_DEVICEID);
         aclrtUtilizationInfo info = {};
         EXPECT_EQ(aclrtGetDeviceUtilizationRate(0, &info), ACL_SUCCESS);
         EXPECT_EQ(info.cubeUtilization, 0);  // no kernel runs at the moment of the call
         EXPECT_EQ(info.memoryUtilization, -1);
         info.utilizationExtend = (aclrtUtilizationExtendInfo*)&info;
         EXPECT_EQ(aclrtGetDeviceUtilizationRate(0, &info), ACL_ERROR_INVALID_PARAM);
         info.utilizationExtend = nullptr;
         EXPECT_EQ(aclrtGetDeviceUtilizationRate(0, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetDeviceUtilizationRate(-1, &info), ACL_ERROR_RT_INVALID_DEVICEID);
         int32_t value = -1;
         EXPECT_EQ(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &value), ACL_SUCCESS);
         EXPECT_EQ(value, ACL_DEV_FEATURE_NOT_SUPPORT);
         EXPECT_EQ(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)5, &value), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetDeviceCapability(77, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &value),
                   ACL_ERROR_RT_INVALID_DEVICEID);
         return 0;
     }},
    {"peer_access", [] {
         int32_t can = -1, status = -1;
         EXPECT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
         EXPECT_EQ(can, 1);
         EXPECT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 99), ACL_ERROR_RT_INVALID_DEVICEID);
         EXPECT_EQ(aclrtDeviceCanAccessPeer(nullptr, 0, 1), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_CONTEXT_NULL);
         EXPECT_EQ(aclrtSetDevice(0), 0);
         EXPECT_EQ(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
         EXPECT_EQ(status, 0);
         EXPECT_EQ(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
         EXPECT_EQ(aclrtDevicePeerAccessStatus(0, 1, &status), ACL_SUCCESS);
         EXPECT_EQ(status, 1);
         EXPECT_EQ(aclrtDevicePeerAccessStatus(1, 0, &status), ACL_SUCCESS);
         EXPECT_EQ(status, 0);  // one direction only
         EXPECT_EQ(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
         EXPECT_EQ(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtDeviceEnablePeerAccess(99, 0), ACL_ERROR_RT_INVALID_DEVICEID);
         EXPECT_EQ(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
         EXPECT_EQ(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);  // not enabled
         EXPECT_EQ(aclrtDevicePeerAccessStatus(0, 1, nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"host_register_makes_host_memory_device_addressable", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         std::vector<float> host(256, 1.5f);
         void* dev = nullptr;
         EXPECT_EQ(aclrtHostRegister(host.data(), host.size() * 4, ACL_HOST_REGISTER_MAPPED, &dev), ACL_SUCCESS);
         EXPECT_TRUE(dev != nullptr);
         float back[4] = {};
         EXPECT_EQ(aclrtMemcpy(back, sizeof back, dev, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_TRUE(back[3] == 1.5f);
         EXPECT_EQ(aclrtMemcpy(back, sizeof back, (char*)dev + 1024, 4, ACL_MEMCPY_DEVICE_TO_HOST),
                   ACL_ERROR_RT_PARAM_INVALID);  // one past the registered range
         aclrtPtrAttributes attr;
         EXPECT_EQ(aclrtPointerGetAttributes(dev, &attr), ACL_SUCCESS);
         EXPECT_EQ(attr.location.type, ACL_MEM_LOCATION_TYPE_HOST);
         void* again = nullptr;
         EXPECT_EQ(aclrtHostRegister(host.data() + 8, 16, ACL_HOST_REGISTER_MAPPED, &again), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtHostRegister(nullptr, 16, ACL_HOST_REGISTER_MAPPED, &again), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtHostRegister(host.data(), 16, ACL_HOST_REGISTER_MAPPED, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtHostRegister(host.data(), 0, ACL_HOST_REGISTER_MAPPED, &again), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtHostRegister(host.data(), 16, (aclrtHostRegisterType)3, &again), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtHostRegister(host.data(), UINT64_MAX, ACL_HOST_REGISTER_MAPPED, &again), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtHostUnregister(host.data() + 1), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtHostUnregister(host.data()), ACL_SUCCESS);
         EXPECT_EQ(aclrtHostUnregister(host.data()), ACL_ERROR_RT_PARAM_INVALID);
         EXPECT_EQ(aclrtHostUnregister(nullptr), ACL_ERROR_INVALID_PARAM);
         void* d = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtHostUnregister(d), ACL_ERROR_RT_PARAM_INVALID);  // device memory is not registered host memory
         return 0;
     }},
    {"pointer_attributes", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void *d = nullptr, *big = nullptr, *h = nullptr;
         EXPECT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMalloc(&big, 3 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
         EXPECT_EQ(aclrtMallocHost(&h, 64), ACL_SUCCESS);
         aclrtPtrAttributes a;
         EXPECT_EQ(aclrtPointerGetAttributes((char*)d + 10, &a), ACL_SUCCESS);
         EXPECT_EQ(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
         EXPECT_EQ(a.location.id, 0u);
         EXPECT_EQ(a.pageSize, 4096u);
         EXPECT_EQ(aclrtPointerGetAttributes(big, &a), ACL_SUCCESS);
         EXPECT_EQ(a.pageSize, 2u << 20);
         EXPECT_EQ(aclrtPointerGetAttributes(h, &a), ACL_SUCCESS);
         EXPECT_EQ(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
         int local = 0;
         EXPECT_EQ(aclrtPointerGetAttributes(&local, &a), ACL_SUCCESS);
         EXPECT_EQ(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
         EXPECT_EQ(aclrtPointerGetAttributes(nullptr, &a), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtPointerGetAttributes(d, nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
    {"memory_usage_info_tracks_current_and_peak", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         void *a = nullptr, *b = nullptr;
         EXPECT_EQ(aclrtMalloc(&a, 1 << 20, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtMalloc(&b, 1 << 20, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
         EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
         aclrtMemUsageInfo info[4];
         size_t n = 0;
         EXPECT_EQ(aclrtGetMemUsageInfo(0, info, 4, &n), ACL_SUCCESS);
         EXPECT_EQ(n, 1u);
         EXPECT_TRUE(strcmp(info[0].name, "APP") == 0);
         EXPECT_EQ(info[0].curMemSize, (uint64_t)(1 << 20) + 32);
         EXPECT_EQ(info[0].memPeakSize, 2 * ((uint64_t)(1 << 20) + 32));
         EXPECT_EQ(aclrtGetMemUsageInfo(0, nullptr, 4, &n), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetMemUsageInfo(0, info, 4, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetMemUsageInfo(0, info, 0, &n), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtGetMemUsageInfo(99, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
         return 0;
     }},
    {"allocator_registration", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
         aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
         EXPECT_TRUE(desc != nullptr);
         int obj = 0;
         EXPECT_EQ(aclrtAllocatorSetObjToDesc(desc, &obj), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorSetAllocFuncToDesc(desc, fake_alloc), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorSetFreeFuncToDesc(desc, fake_free), ACL_SUCCESS);
         // the get-address function is required
         EXPECT_EQ(aclrtAllocatorRegister(s, desc), ACL_ERROR_INVALID_PARAM);
         EXPECT_MESSAGE_MENTIONS("getAddrFromBlockFunc");
         EXPECT_EQ(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, fake_addr), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorSetAllocAdviseFuncToDesc(desc, fake_advise), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorRegister(s, desc), ACL_SUCCESS);
         aclrtAllocatorDesc got = nullptr;
         aclrtAllocator gotObj = nullptr;
         aclrtAllocatorAllocFunc gotAlloc = nullptr;
         aclrtAllocatorFreeFunc gotFree = nullptr;
         aclrtAllocatorAllocAdviseFunc gotAdvise = nullptr;
         aclrtAllocatorGetAddrFromBlockFunc gotAddr = nullptr;
         EXPECT_EQ(aclrtAllocatorGetByStream(s, &got, &gotObj, &gotAlloc, &gotFree, &gotAdvise, &gotAddr), ACL_SUCCESS);
         EXPECT_TRUE(got == desc && gotObj == &obj && gotAlloc == fake_alloc && gotFree == fake_free &&
                     gotAdvise == fake_advise && gotAddr == fake_addr);
         EXPECT_EQ(aclrtAllocatorGetByStream(s, &got, nullptr, nullptr, nullptr, nullptr, nullptr), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorGetByStream(s, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                   ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorRegister(nullptr, desc), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorRegister(s, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorRegister(s, (aclrtAllocatorDesc)&obj), ACL_ERROR_INVALID_PARAM);  // foreign
         EXPECT_EQ(aclrtAllocatorSetAllocFuncToDesc(desc, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorSetObjToDesc(nullptr, &obj), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorUnregister(s), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorGetByStream(s, &got, nullptr, nullptr, nullptr, nullptr, nullptr),
                   ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorUnregister(nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclrtAllocatorDestroyDesc(desc), ACL_SUCCESS);
         EXPECT_EQ(aclrtAllocatorDestroyDesc(desc), ACL_ERROR_INVALID_PARAM);  // stale
         EXPECT_EQ(aclrtAllocatorDestroyDesc(nullptr), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
};

int main(int argc, char** argv) { return run_probe(cases, argc, argv); }
