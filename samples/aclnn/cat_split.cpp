/**
 * Tensor-list sample: aclnnCat of two tensors (an INT32 and a FLOAT one: the result promotes to
 * FLOAT) along dim 0, then aclnnSplitWithSize of the result into an aclTensorList of outputs.
 *
 * Build like an ops-math example:
 *   g++ cat_split.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_math -lnnopbase -lascendcl -o cat_split
 */
#include "aclnn_sample.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_split_with_size.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> aShape = {1, 3};
    std::vector<int64_t> bShape = {2, 3};
    std::vector<int64_t> catShape = {3, 3};
    std::vector<int64_t> firstShape = {2, 3};
    std::vector<int64_t> secondShape = {1, 3};
    std::vector<int32_t> aHostData = {1, 2, 3};
    std::vector<float> bHostData = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    std::vector<float> zeros(9, 0);
    void* addrs[5] = {nullptr};
    aclTensor* a = nullptr;
    aclTensor* b = nullptr;
    aclTensor* catOut = nullptr;
    aclTensor* first = nullptr;
    aclTensor* second = nullptr;
    CHECK_RET(CreateAclTensor(aHostData, aShape, &addrs[0], aclDataType::ACL_INT32, &a) == 0, return -1);
    CHECK_RET(CreateAclTensor(bHostData, bShape, &addrs[1], aclDataType::ACL_FLOAT, &b) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, catShape, &addrs[2], aclDataType::ACL_FLOAT, &catOut) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, firstShape, &addrs[3], aclDataType::ACL_FLOAT, &first) == 0, return -1);
    CHECK_RET(CreateAclTensor(zeros, secondShape, &addrs[4], aclDataType::ACL_FLOAT, &second) == 0, return -1);
    std::vector<aclTensor*> inputs = {a, b};
    std::vector<aclTensor*> outputs = {first, second};
    aclTensorList* inputList = aclCreateTensorList(inputs.data(), inputs.size());
    aclTensorList* outputList = aclCreateTensorList(outputs.data(), outputs.size());
    std::vector<int64_t> sizesData = {2, 1};
    aclIntArray* splitSize = aclCreateIntArray(sizesData.data(), sizesData.size());
    CHECK_RET(inputList != nullptr && outputList != nullptr && splitSize != nullptr, return -1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnCatGetWorkspaceSize(inputList, 0, catOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCatGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnCat", aclnnCat, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnSplitWithSizeGetWorkspaceSize(catOut, splitSize, 0, outputList, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSplitWithSizeGetWorkspaceSize failed. ERROR: %d\n", ret);
              return ret);
    CHECK_RET(Launch("aclnnSplitWithSize", aclnnSplitWithSize, workspaceSize, executor, stream) == 0, return -1);

    CHECK_RET(PrintResult<float>("cat", addrs[2], 9) == 0, return -1);
    CHECK_RET(PrintResult<float>("first", addrs[3], 6) == 0, return -1);
    CHECK_RET(PrintResult<float>("second", addrs[4], 3) == 0, return -1);

    // the lists own their tensors: destroying a list destroys them
    aclDestroyTensorList(inputList);
    aclDestroyTensorList(outputList);
    aclDestroyTensor(catOut);
    aclDestroyIntArray(splitSize);
    for (auto addr : addrs) {
        aclrtFree(addr);
    }
    Finalize(deviceId, stream);
    return 0;
}
