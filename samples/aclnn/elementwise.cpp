/**
 * Elementwise family sample: aclnnAdd, aclnnMuls, aclnnInplaceSqrt.
 *
 *   out  = self + alpha * other      (other broadcasts along the rows; alpha an aclScalar)
 *   out2 = out * 0.5                 (an aclScalar of its own dtype, DOUBLE)
 *   out2 = sqrt(out2)                (in place)
 *
 * Build like an ops-math example:
 *   g++ elementwise.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_math -lnnopbase -lascendcl -o elementwise
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sqrt.h"

int main()
{
    // 1. device/stream初始化
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 2. 构造输入与输出
    std::vector<int64_t> selfShape = {2, 3};
    std::vector<int64_t> otherShape = {3};
    void* selfDeviceAddr = nullptr;
    void* otherDeviceAddr = nullptr;
    void* outDeviceAddr = nullptr;
    void* out2DeviceAddr = nullptr;
    aclTensor* self = nullptr;
    aclTensor* other = nullptr;
    aclTensor* out = nullptr;
    aclTensor* out2 = nullptr;
    std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6};
    std::vector<float> otherHostData = {1, 0.5, 0.25};
    std::vector<float> outHostData(6, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(otherHostData, otherShape, &otherDeviceAddr, aclDataType::ACL_FLOAT, &other);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, selfShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, selfShape, &out2DeviceAddr, aclDataType::ACL_FLOAT, &out2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    float alphaValue = 2.0f;
    double halfValue = 0.5;
    aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
    aclScalar* half = aclCreateScalar(&halfValue, aclDataType::ACL_DOUBLE);
    CHECK_RET(alpha != nullptr && half != nullptr, return -1);

    // 3. 调用CANN算子库API: each GetWorkspaceSize, then its launch
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnAddGetWorkspaceSize(self, other, alpha, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAddGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnAdd", aclnnAdd, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnMulsGetWorkspaceSize(out, half, out2, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMulsGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnMuls", aclnnMuls, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnInplaceSqrtGetWorkspaceSize(out2, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceSqrtGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnInplaceSqrt", aclnnInplaceSqrt, workspaceSize, executor, stream) == 0, return -1);

    // 4. 将device侧结果拷贝至host侧并打印
    CHECK_RET(PrintResult<float>("add", outDeviceAddr, 6) == 0, return -1);
    CHECK_RET(PrintResult<float>("sqrt", out2DeviceAddr, 6) == 0, return -1);

    // 5. 释放资源
    aclDestroyTensor(self);
    aclDestroyTensor(other);
    aclDestroyTensor(out);
    aclDestroyTensor(out2);
    aclDestroyScalar(alpha);
    aclDestroyScalar(half);
    aclrtFree(selfDeviceAddr);
    aclrtFree(otherDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(out2DeviceAddr);
    Finalize(deviceId, stream);
    return 0;
}
