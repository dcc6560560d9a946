// The C++ overloads of acl/acl_rt_api.h compile with the vendor's flags and reach the C entry points.
#include <cstdint>
#include "acl/acl_rt_api.h"
#include "probe.h"

static const probe_cases cases = {
    {"typed_and_timeout_overloads_forward", [] {
         EXPECT_EQ(aclrtSetDevice(0), 0);
         float* d = nullptr;
         float h[4] = {1, 2, 3, 4}, back[4] = {};
         EXPECT_EQ(aclrtMalloc(&d, sizeof h), ACL_SUCCESS);  // aclrtMallocWithCfg, HUGE_FIRST
         float* pinned = nullptr;
         EXPECT_EQ(aclrtMallocHost(&pinned, sizeof h), ACL_SUCCESS);
         aclrtStream s = nullptr;
         EXPECT_EQ(aclrtCreateStream(&s, 3, ACL_STREAM_FAST_LAUNCH), ACL_SUCCESS);
         uint32_t priority = 0;
         EXPECT_EQ(aclrtStreamGetPriority(s, &priority), ACL_SUCCESS);
         EXPECT_EQ(priority, 3u);
         EXPECT_EQ(aclrtMemcpyAsync(d, sizeof h, h, sizeof h, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s, 1000), ACL_SUCCESS);
         EXPECT_EQ(aclrtMemcpy2d(back, 8, d, 8, 8, 2, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
         EXPECT_TRUE(back[3] == 4.0f);
         aclrtEvent e = nullptr;
         EXPECT_EQ(aclrtCreateEvent(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
         EXPECT_EQ(aclrtRecordEvent(e, s), ACL_SUCCESS);
         EXPECT_EQ(aclrtStreamWaitEvent(nullptr, e, 100), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeEvent(e, 100), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeDevice(100), ACL_SUCCESS);
         EXPECT_EQ(aclrtSynchronizeStream(s, -2), ACL_ERROR_RT_PARAM_INVALID);
         aclrtPtrAttributes a;
         EXPECT_EQ(aclrtPointerGetAttributes(d, &a), ACL_SUCCESS);
         EXPECT_EQ(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
         uint64_t actual = 0;
         EXPECT_EQ(aclrtSetOpExecuteTimeOut(1500, &actual), ACL_SUCCESS);
         EXPECT_EQ(actual, 2000u);
         return 0;
     }},
};

int main(int argc, char** argv) { return run_probe(cases, argc, argv); }
