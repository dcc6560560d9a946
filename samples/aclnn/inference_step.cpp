/**
 * One decoder step of a tiny language model, the way an inference engine chains aclnn operators:
 *
 *   x      = Embedding(table, tokens)                      [S, H]
 *   h      = RmsNorm(x, gamma)                             [S, H]
 *   q,k,v  = Matmul(h, Wq|Wk|Wv)                           [S, H]
 *   scores = Matmul(q, Permute(k, {1, 0})) * 1/sqrt(H)      [S, S]   (aclnnInplaceMuls)
 *   attn   = Matmul(Softmax(scores, -1), v)                [S, H]   (rotary-free attention)
 *   y      = Add(x, attn)                                  [S, H]   (the residual)
 *   next   = ArgMax(Matmul(y, Wlm), -1)                    [S]      (greedy next tokens)
 *
 * Weights are a fixed formula (sin of the element index) so the printed tokens are reproducible.
 * cubeMathType is KEEP_DTYPE: fp32 on the cube, as a reference run would use.
 *
 * Build like an ops-nn example:
 *   g++ inference_step.cpp -I$ASCEND_HOME_PATH/include -I$ASCEND_HOME_PATH/include/aclnnop \
 *       -L$ASCEND_HOME_PATH/lib64 -lopapi_nn -lopapi_math -lnnopbase -lascendcl -o inference_step
 */
#include <cmath>
#include "aclnn_sample.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"

static const int64_t S = 4;   // tokens in the step
static const int64_t H = 8;   // hidden size
static const int64_t V = 16;  // vocabulary

struct DeviceTensor {
    void* addr = nullptr;
    aclTensor* tensor = nullptr;
};

// A float tensor of `shape` whose element i is sin(0.37 * i + seed) / 2 (seed < 0: all zeros).
static DeviceTensor Weights(const std::vector<int64_t>& shape, double seed)
{
    std::vector<float> host(GetShapeSize(shape), 0.0f);
    for (size_t i = 0; seed >= 0 && i < host.size(); i++) {
        host[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + seed) * 0.5);
    }
    DeviceTensor t;
    CreateAclTensor(host, shape, &t.addr, aclDataType::ACL_FLOAT, &t.tensor);
    return t;
}

static int MatmulInto(const DeviceTensor& a, const DeviceTensor& b, const DeviceTensor& out, aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnMatmulGetWorkspaceSize(a.tensor, b.tensor, out.tensor, 0, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMatmulGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    return Launch("aclnnMatmul", aclnnMatmul, workspaceSize, executor, stream);
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> tokenHostData = {3, 7, 1, 12};
    DeviceTensor tokens;
    CHECK_RET(CreateAclTensor(tokenHostData, {S}, &tokens.addr, aclDataType::ACL_INT64, &tokens.tensor) == 0,
              return -1);
    DeviceTensor table = Weights({V, H}, 0.0), gamma = Weights({H}, 1.0), wq = Weights({H, H}, 2.0);
    DeviceTensor wk = Weights({H, H}, 3.0), wv = Weights({H, H}, 4.0), wlm = Weights({H, V}, 5.0);
    DeviceTensor x = Weights({S, H}, -1), h = Weights({S, H}, -1), rstd = Weights({S, 1}, -1);
    DeviceTensor q = Weights({S, H}, -1), k = Weights({S, H}, -1), v = Weights({S, H}, -1);
    DeviceTensor kT = Weights({H, S}, -1), scores = Weights({S, S}, -1), probs = Weights({S, S}, -1);
    DeviceTensor attn = Weights({S, H}, -1), y = Weights({S, H}, -1), logits = Weights({S, V}, -1);
    DeviceTensor next;
    std::vector<int64_t> nextHostData(S, 0);
    CHECK_RET(CreateAclTensor(nextHostData, {S}, &next.addr, aclDataType::ACL_INT64, &next.tensor) == 0, return -1);
    std::vector<int64_t> transposeData = {1, 0};
    aclIntArray* transpose = aclCreateIntArray(transposeData.data(), transposeData.size());
    float scaleValue = 1.0f / std::sqrt(static_cast<float>(H));
    float oneValue = 1.0f;
    aclScalar* scale = aclCreateScalar(&scaleValue, aclDataType::ACL_FLOAT);
    aclScalar* one = aclCreateScalar(&oneValue, aclDataType::ACL_FLOAT);
    CHECK_RET(transpose != nullptr && scale != nullptr && one != nullptr, return -1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnEmbeddingGetWorkspaceSize(table.tensor, tokens.tensor, x.tensor, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnEmbeddingGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnEmbedding", aclnnEmbedding, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnRmsNormGetWorkspaceSize(x.tensor, gamma.tensor, 1e-6, h.tensor, rstd.tensor, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRmsNormGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnRmsNorm", aclnnRmsNorm, workspaceSize, executor, stream) == 0, return -1);
    CHECK_RET(MatmulInto(h, wq, q, stream) == 0 && MatmulInto(h, wk, k, stream) == 0 &&
              MatmulInto(h, wv, v, stream) == 0, return -1);
    ret = aclnnPermuteGetWorkspaceSize(k.tensor, transpose, kT.tensor, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnPermuteGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnPermute", aclnnPermute, workspaceSize, executor, stream) == 0, return -1);
    CHECK_RET(MatmulInto(q, kT, scores, stream) == 0, return -1);
    ret = aclnnInplaceMulsGetWorkspaceSize(scores.tensor, scale, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceMulsGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnInplaceMuls", aclnnInplaceMuls, workspaceSize, executor, stream) == 0, return -1);
    ret = aclnnSoftmaxGetWorkspaceSize(scores.tensor, -1, probs.tensor, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnSoftmaxGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnSoftmax", aclnnSoftmax, workspaceSize, executor, stream) == 0, return -1);
    CHECK_RET(MatmulInto(probs, v, attn, stream) == 0, return -1);
    ret = aclnnAddGetWorkspaceSize(x.tensor, attn.tensor, one, y.tensor, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnAddGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnAdd", aclnnAdd, workspaceSize, executor, stream) == 0, return -1);
    CHECK_RET(MatmulInto(y, wlm, logits, stream) == 0, return -1);
    ret = aclnnArgMaxGetWorkspaceSize(logits.tensor, -1, false, next.tensor, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnArgMaxGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    CHECK_RET(Launch("aclnnArgMax", aclnnArgMax, workspaceSize, executor, stream) == 0, return -1);

    ret = aclrtMemcpy(nextHostData.data(), S * sizeof(int64_t), next.addr, S * sizeof(int64_t),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < S; i++) {
        LOG_PRINT("token %ld -> next token %ld\n", static_cast<long>(tokenHostData[i]),
                  static_cast<long>(nextHostData[i]));
    }

    for (auto t : {tokens, table, gamma, wq, wk, wv, wlm, x, h, rstd, q, k, v, kT, scores, probs, attn, y, logits,
                   next}) {
        aclDestroyTensor(t.tensor);
        aclrtFree(t.addr);
    }
    aclDestroyIntArray(transpose);
    aclDestroyScalar(scale);
    aclDestroyScalar(one);
    Finalize(deviceId, stream);
    return 0;
}
