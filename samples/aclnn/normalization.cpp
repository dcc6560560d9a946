/**
 * Softmax and norms sample: aclnnSoftmax along the last dim, aclnnRmsNorm (gamma over the last
 * dim, rstd per row) and aclnnLayerNorm (normalizedShape an aclIntArray, no bias, mean and rstd
 * requested) on the same 2 x 4 input.
 *
 * Build like an ops-nn example:
 *   g++ normalization.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_nn -lnnopbase -lascendcl -o normalization
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> xShape = {2, 4};
    std::vector<int64_t> rowShape = {2, 1};
    std::vector<int64_t> gammaShape = {4};
    std::vector<float> xHostData = {1, 2, 3, 4, -1, 0, 1, 6};
    std::vector<float> gammaHostData = {1, 0.5, 2, 1};
    std::vector<float> zeros(8, 0);
    const int count = 8;
    void* addrs[count] = {nullptr};
    aclTensor* x = nullptr;
    aclTensor* gamma = nullptr;
    aclTensor* softmaxOut = nullptr;
    aclTensor* rmsOut = nullptr;
    aclTensor* rstdOut = nullptr;
    aclTensor* layerOut = nullptr;
    aclTensor* meanOut = nullptr;
    aclTensor* layerRstd = nullptr;
    CHECK_RET(CreateAclTensor(xHostData, xShape, &addrs[0], aclDataType::ACL_FLOAT, &x) == 0, return -1);
    CHECK_RET(CreateAclTensor(gammaHostData, gammaShape, &addrs[1], aclDataType::ACL_FLOAT, &gamma) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, xShape, &addrs[2], aclDataType::ACL_FLOAT, &softmaxOut) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, xShape, &addrs[3], aclDataType::ACL_FLOAT, &rmsOut) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, rowShape, &addrs[4], aclDataType::ACL_FLOAT, &rstdOut) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, xShape, &addrs[5], aclDataType::ACL_FLOAT, &layerOut) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, rowShape, &addrs[6], aclDataType::ACL_FLOAT, &meanOut) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, rowShape, &addrs[7], aclDataType::ACL_FLOAT, &layerRstd) == 0, return -1);
    std::vector<int64_t> normalizedShapeData = {4};
    aclIntArray* normalizedShape = aclCreateIntArray(normalizedShapeData.data(), normalizedShapeData.size());
    CHECK_RET(normalizedShape != nullptr, return -1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnSoftmaxGetWorkspaceSize(x, -1, softmaxOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSoftmaxGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnSoftmax", aclnnSoftmax, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnRmsNormGetWorkspaceSize(x, gamma, 1e-6, rmsOut, rstdOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRmsNormGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnRmsNorm", aclnnRmsNorm, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnLayerNormGetWorkspaceSize(x, normalizedShape, gamma, nullptr, 1e-5, layerOut, meanOut, layerRstd,
                                         &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnLayerNormGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnLayerNorm", aclnnLayerNorm, workspaceSize, executor, stream) == 0, return -1);

    CHECK_RET(PrintResult<float>("softmax", addrs[2], 8) == 0, return -1);
    CHECK_RET(PrintResult<float>("rmsnorm", addrs[3], 8) == 0, return -1);
    CHECK_RET(PrintResult<float>("rstd", addrs[4], 2) == 0, return -1);
    CHECK_RET(PrintResult<float>("layernorm", addrs[5], 8) == 0, return -1);
    CHECK_RET(PrintResult<float>("mean", addrs[6], 2) == 0, return -1);

    for (auto tensor : {x, gamma, softmaxOut, rmsOut, rstdOut, layerOut, meanOut, layerRstd}) {
        aclDestroyTensor(tensor);
    }
    aclDestroyIntArray(normalizedShape);
    for (auto addr : addrs) {
        aclrtFree(addr);
    }
    Finalize(deviceId, stream);
    return 0;
}
