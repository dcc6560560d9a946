/**
 * Matmul sample: aclnnMatmul on fp16 data (cube accumulates in fp32, rounds once into the fp16
 * out) and aclnnAddmm with beta/alpha aclScalars, both with cubeMathType 1
 * (ALLOW_FP32_DOWN_PRECISION, what most applications pass).
 *
 * Build like an ops-nn example:
 *   g++ matmul.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_nn -lnnopbase -lascendcl -o matmul
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_matmul.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {2, 3};
    std::vector<int64_t> mat2Shape = {3, 2};
    std::vector<int64_t> outShape = {2, 2};
    std::vector<int64_t> biasShape = {2};
    void* selfDeviceAddr = nullptr;
    void* mat2DeviceAddr = nullptr;
    void* halfSelfDeviceAddr = nullptr;
    void* halfMat2DeviceAddr = nullptr;
    void* halfOutDeviceAddr = nullptr;
    void* outDeviceAddr = nullptr;
    void* biasDeviceAddr = nullptr;
    void* addmmDeviceAddr = nullptr;
    aclTensor* self = nullptr;
    aclTensor* mat2 = nullptr;
    aclTensor* halfSelf = nullptr;
    aclTensor* halfMat2 = nullptr;
    aclTensor* halfOut = nullptr;
    aclTensor* out = nullptr;
    aclTensor* bias = nullptr;
    aclTensor* addmmOut = nullptr;
    std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6};
    std::vector<float> mat2HostData = {0.5, -1, 0.25, 2, 1, 0};
    std::vector<uint16_t> halfHostData(6, 0);
    std::vector<float> outHostData(4, 0);
    std::vector<float> biasHostData = {10, 20};
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(mat2HostData, mat2Shape, &mat2DeviceAddr, aclDataType::ACL_FLOAT, &mat2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(halfHostData, selfShape, &halfSelfDeviceAddr, aclDataType::ACL_FLOAT16, &halfSelf);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(halfHostData, mat2Shape, &halfMat2DeviceAddr, aclDataType::ACL_FLOAT16, &halfMat2);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(halfHostData, outShape, &halfOutDeviceAddr, aclDataType::ACL_FLOAT16, &halfOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(biasHostData, biasShape, &biasDeviceAddr, aclDataType::ACL_FLOAT, &bias);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &addmmDeviceAddr, aclDataType::ACL_FLOAT, &addmmOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    float betaValue = 1.0f;
    float alphaValue = 0.5f;
    aclScalar* beta = aclCreateScalar(&betaValue, aclDataType::ACL_FLOAT);
    aclScalar* alpha = aclCreateScalar(&alphaValue, aclDataType::ACL_FLOAT);
    CHECK_RET(beta != nullptr && alpha != nullptr, return -1);
    int8_t cubeMathType = 1;

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    // fp16 operands from the fp32 host data, on the device
    ret = aclnnCastGetWorkspaceSize(self, aclDataType::ACL_FLOAT16, halfSelf, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCastGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnCast", aclnnCast, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnCastGetWorkspaceSize(mat2, aclDataType::ACL_FLOAT16, halfMat2, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCastGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnCast", aclnnCast, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnMatmulGetWorkspaceSize(halfSelf, halfMat2, halfOut, cubeMathType, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMatmulGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnMatmul", aclnnMatmul, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnCastGetWorkspaceSize(halfOut, aclDataType::ACL_FLOAT, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCastGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnCast", aclnnCast, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnAddmmGetWorkspaceSize(bias, self, mat2, beta, alpha, addmmOut, cubeMathType, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAddmmGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnAddmm", aclnnAddmm, workspaceSize, executor, stream) == 0, return -1);

    CHECK_RET(PrintResult<float>("matmul", outDeviceAddr, 4) == 0, return -1);
    CHECK_RET(PrintResult<float>("addmm", addmmDeviceAddr, 4) == 0, return -1);

    for (auto tensor : {self, mat2, halfSelf, halfMat2, halfOut, out, bias, addmmOut}) {
        aclDestroyTensor(tensor);
    }
    aclDestroyScalar(beta);
    aclDestroyScalar(alpha);
    for (auto addr : {selfDeviceAddr, mat2DeviceAddr, halfSelfDeviceAddr, halfMat2DeviceAddr, halfOutDeviceAddr,
                      outDeviceAddr, biasDeviceAddr, addmmDeviceAddr}) {
        aclrtFree(addr);
    }
    Finalize(deviceId, stream);
    return 0;
}
