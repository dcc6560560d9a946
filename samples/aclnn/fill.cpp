/**
 * Fill family sample: aclnnArange (start/end/step aclScalars) into a tensor, then
 * aclnnInplaceFillScalar over a strided view of it (every other element), which leaves the
 * elements between untouched.
 *
 * Build like an ops-math example:
 *   g++ fill.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_math -lnnopbase -lascendcl -o fill
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_arange.h"
#include "aclnnop/aclnn_fill_scalar.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> outShape = {8};
    void* outDeviceAddr = nullptr;
    aclTensor* out = nullptr;
    std::vector<float> outHostData(8, 0);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // every other element of the same memory: shape [4], stride 2
    std::vector<int64_t> evenShape = {4};
    std::vector<int64_t> evenStrides = {2};
    aclTensor* evens = aclCreateTensor(evenShape.data(), 1, aclDataType::ACL_FLOAT, evenStrides.data(), 0,
                                       aclFormat::ACL_FORMAT_ND, outShape.data(), 1, outDeviceAddr);
    CHECK_RET(evens != nullptr, return -1);
    float startValue = 0.5f;
    float endValue = 4.5f;
    float stepValue = 0.5f;
    int32_t fillValue = -1;
    aclScalar* start = aclCreateScalar(&startValue, aclDataType::ACL_FLOAT);
    aclScalar* end = aclCreateScalar(&endValue, aclDataType::ACL_FLOAT);
    aclScalar* step = aclCreateScalar(&stepValue, aclDataType::ACL_FLOAT);
    aclScalar* value = aclCreateScalar(&fillValue, aclDataType::ACL_INT32);
    CHECK_RET(start != nullptr && end != nullptr && step != nullptr && value != nullptr, return -1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnArangeGetWorkspaceSize(start, end, step, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnArangeGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnArange", aclnnArange, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnInplaceFillScalarGetWorkspaceSize(evens, value, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceFillScalarGetWorkspaceSize failed. ERROR: %d\n", ret);
              return ret);
    CHECK_RET(Launch("aclnnInplaceFillScalar", aclnnInplaceFillScalar, workspaceSize, executor, stream) == 0,
              return -1);

    CHECK_RET(PrintResult<float>("out", outDeviceAddr, 8) == 0, return -1);

    aclDestroyTensor(out);
    aclDestroyTensor(evens);
    aclDestroyScalar(start);
    aclDestroyScalar(end);
    aclDestroyScalar(step);
    aclDestroyScalar(value);
    aclrtFree(outDeviceAddr);
    Finalize(deviceId, stream);
    return 0;
}
