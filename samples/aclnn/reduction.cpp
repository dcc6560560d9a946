/**
 * Reduction family sample: aclnnReduceSum over dims {1} (an aclIntArray) keeping the dim, and
 * aclnnArgMax along the last dim.
 *
 * Build like an ops-math example:
 *   g++ reduction.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_math -lnnopbase -lascendcl -o reduction
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_reduce_sum.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {2, 4};
    std::vector<int64_t> sumShape = {2, 1};
    std::vector<int64_t> argShape = {2};
    void* selfDeviceAddr = nullptr;
    void* sumDeviceAddr = nullptr;
    void* argDeviceAddr = nullptr;
    aclTensor* self = nullptr;
    aclTensor* sumOut = nullptr;
    aclTensor* argOut = nullptr;
    std::vector<float> selfHostData = {1, 5, 2, 0, -1, -2, 7, 3};
    std::vector<float> sumHostData(2, 0);
    std::vector<int64_t> argHostData(2, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(sumHostData, sumShape, &sumDeviceAddr, aclDataType::ACL_FLOAT, &sumOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(argHostData, argShape, &argDeviceAddr, aclDataType::ACL_INT64, &argOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> dimsData = {1};
    aclIntArray* dims = aclCreateIntArray(dimsData.data(), dimsData.size());
    CHECK_RET(dims != nullptr, return -1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnReduceSumGetWorkspaceSize(self, dims, true, aclDataType::ACL_FLOAT, sumOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnReduceSumGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnReduceSum", aclnnReduceSum, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnArgMaxGetWorkspaceSize(self, -1, false, argOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnArgMaxGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnArgMax", aclnnArgMax, workspaceSize, executor, stream) == 0, return -1);

    CHECK_RET(PrintResult<float>("sum", sumDeviceAddr, 2) == 0, return -1);
    CHECK_RET(PrintResult<int64_t>("argmax", argDeviceAddr, 2) == 0, return -1);

    aclDestroyTensor(self);
    aclDestroyTensor(sumOut);
    aclDestroyTensor(argOut);
    aclDestroyIntArray(dims);
    aclrtFree(selfDeviceAddr);
    aclrtFree(sumDeviceAddr);
    aclrtFree(argDeviceAddr);
    Finalize(deviceId, stream);
    return 0;
}
