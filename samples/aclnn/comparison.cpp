/**
 * Comparison family sample: aclnnGtTensor (broadcast, into a BOOL out) and aclnnEqScalar (an INT64
 * aclScalar against FLOAT data, into a FLOAT out: 1.0 where equal).
 *
 * Build like an ops-math example:
 *   g++ comparison.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_math -lnnopbase -lascendcl -o comparison
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_gt_tensor.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {2, 3};
    std::vector<int64_t> otherShape = {1, 3};
    void* selfDeviceAddr = nullptr;
    void* otherDeviceAddr = nullptr;
    void* gtDeviceAddr = nullptr;
    void* eqDeviceAddr = nullptr;
    aclTensor* self = nullptr;
    aclTensor* other = nullptr;
    aclTensor* gtOut = nullptr;
    aclTensor* eqOut = nullptr;
    std::vector<float> selfHostData = {1, 2, 3, 4, 2, 0};
    std::vector<float> otherHostData = {2, 2, 2};
    std::vector<uint8_t> gtHostData(6, 0);
    std::vector<float> eqHostData(6, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(otherHostData, otherShape, &otherDeviceAddr, aclDataType::ACL_FLOAT, &other);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(gtHostData, selfShape, &gtDeviceAddr, aclDataType::ACL_BOOL, &gtOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(eqHostData, selfShape, &eqDeviceAddr, aclDataType::ACL_FLOAT, &eqOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    int64_t two = 2;
    aclScalar* twoScalar = aclCreateScalar(&two, aclDataType::ACL_INT64);
    CHECK_RET(twoScalar != nullptr, return -1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnGtTensorGetWorkspaceSize(self, other, gtOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGtTensorGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnGtTensor", aclnnGtTensor, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnEqScalarGetWorkspaceSize(self, twoScalar, eqOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnEqScalarGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnEqScalar", aclnnEqScalar, workspaceSize, executor, stream) == 0, return -1);

    CHECK_RET(PrintResult<uint8_t>("gt", gtDeviceAddr, 6) == 0, return -1);
    CHECK_RET(PrintResult<float>("eq", eqDeviceAddr, 6) == 0, return -1);

    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(gtOut);
    aclDestroyTensor(eqOut);
    aclDestroyScalar(twoScalar);
    aclrtFree(selfDeviceAddr);
    aclrtFree(otherDeviceAddr);
    aclrtFree(gtDeviceAddr);
    aclrtFree(eqDeviceAddr);
    Finalize(deviceId, stream);
    return 0;
}
