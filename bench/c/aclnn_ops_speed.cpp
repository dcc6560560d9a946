// Host cost of the common aclnn operators from C, as an application calls them:
// `aclnn_ops_speed N` prints, per operator, the median microseconds of N full two-phase calls
// (phase 1 + phase 2 + stream sync) on tiny tensors as `name value` lines.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cat.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"

typedef aclnnStatus (*Phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream);
typedef std::function<aclnnStatus(uint64_t*, aclOpExecutor**)> Phase1;

static aclrtStream stream;

static double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static aclTensor* tensor(std::vector<int64_t> shape, aclDataType dtype = ACL_FLOAT, float value = 0.5f)
{
    int64_t n = 1;
    for (auto d : shape) {
        n *= d;
    }
    void* addr = nullptr;
    size_t item = dtype == ACL_FLOAT ? 4 : 8;
    aclrtMalloc(&addr, n * item, ACL_MEM_MALLOC_HUGE_FIRST);
    if (dtype == ACL_FLOAT) {
        std::vector<float> host(n);
        for (int64_t i = 0; i < n; i++) {
            host[i] = value + (float)(i % 97) / 97.0f;
        }
        aclrtMemcpy(addr, n * item, host.data(), n * item, ACL_MEMCPY_HOST_TO_DEVICE);
    }
    return aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, shape.data(), shape.size(),
                           addr);
}

// Median microseconds of `calls` two-phase calls (workspace allocated once, as an app's pool would).
static double median_us(const char* name, Phase1 phase1, Phase2 phase2, int calls)
{
    void* workspace = nullptr;
    uint64_t allocated = 0;
    std::vector<double> times;
    for (int k = 0; k < calls + 1; k++) {
        double t0 = now_us();
        uint64_t size = 0;
        aclOpExecutor* executor = nullptr;
        if (phase1(&size, &executor) != 0) {
            printf("%s phase 1 failed: %s\n", name, aclGetRecentErrMsg());
            exit(1);
        }
        if (size > allocated) {
            aclrtFree(workspace);
            aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST);
            allocated = size;
            t0 = now_us();  // allocation is the app's pool, not the call
        }
        if (phase2(workspace, size, executor, stream) != 0 || aclrtSynchronizeStream(stream) != 0) {
            printf("%s failed: %s\n", name, aclGetRecentErrMsg());
            exit(1);
        }
        if (k > 0) {
            times.push_back(now_us() - t0);  // the first call builds the plan
        }
    }
    aclrtFree(workspace);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

struct Case {
    const char* name;
    Phase1 phase1;
    Phase2 phase2;
};

static std::vector<Case> cases()
{
    int64_t n = 8, rows = 2, cols = 4, m = 4;
    aclTensor *x = tensor({n}), *y = tensor({n}), *out = tensor({n});
    aclTensor *grid = tensor({rows, cols}), *gridOut = tensor({rows, cols}), *gamma = tensor({cols});
    aclTensor *rowOut = tensor({rows, 1}), *rowStat = tensor({rows, 1});
    aclTensor *a = tensor({m, m}), *b = tensor({m, m}), *c = tensor({m, m});
    float one = 1.0f;
    static aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
    static int64_t lastDim[1] = {1};
    static aclIntArray* dims = aclCreateIntArray(lastDim, 1);
    static int64_t normShape[1];
    normShape[0] = cols;
    static aclIntArray* normalized = aclCreateIntArray(normShape, 1);
    aclTensor* parts[2] = {tensor({rows / 2, cols}), tensor({rows / 2, cols})};
    aclTensorList* list = aclCreateTensorList(parts, 2);
    std::vector<Case> all = {
        {"add", [=](uint64_t* s, aclOpExecutor** e) { return aclnnAddGetWorkspaceSize(x, y, alpha, out, s, e); },
         aclnnAdd},
        {"mul", [=](uint64_t* s, aclOpExecutor** e) { return aclnnMulGetWorkspaceSize(x, y, out, s, e); }, aclnnMul},
        {"muls", [=](uint64_t* s, aclOpExecutor** e) { return aclnnMulsGetWorkspaceSize(x, alpha, out, s, e); },
         aclnnMuls},
        {"exp", [=](uint64_t* s, aclOpExecutor** e) { return aclnnExpGetWorkspaceSize(x, out, s, e); }, aclnnExp},
        {"relu", [=](uint64_t* s, aclOpExecutor** e) { return aclnnReluGetWorkspaceSize(x, out, s, e); }, aclnnRelu},
        {"reduce_sum", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnReduceSumGetWorkspaceSize(grid, dims, true, ACL_FLOAT, rowOut, s, e); }, aclnnReduceSum},
        {"softmax", [=](uint64_t* s, aclOpExecutor** e) { return aclnnSoftmaxGetWorkspaceSize(grid, -1, gridOut, s, e); },
         aclnnSoftmax},
        {"rms_norm", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnRmsNormGetWorkspaceSize(grid, gamma, 1e-6, gridOut, rowStat, s, e); }, aclnnRmsNorm},
        {"layer_norm", [=](uint64_t* s, aclOpExecutor** e) {
             return aclnnLayerNormGetWorkspaceSize(grid, normalized, gamma, gamma, 1e-5, gridOut, nullptr, nullptr, s,
                                                   e); }, aclnnLayerNorm},
        {"matmul", [=](uint64_t* s, aclOpExecutor** e) { return aclnnMatmulGetWorkspaceSize(a, b, c, 0, s, e); },
         aclnnMatmul},
        {"cat", [=](uint64_t* s, aclOpExecutor** e) { return aclnnCatGetWorkspaceSize(list, 0, gridOut, s, e); },
         aclnnCat},
    };
    return all;
}

#include "aclnn_math_cases.h"

int main(int argc, char** argv)
{
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);
    int calls = argc > 1 ? atoi(argv[1]) : 2000;
    std::vector<Case> all = cases(), math = math_cases();
    all.insert(all.end(), math.begin(), math.end());
    for (auto& c : all) {
        printf("%s %.3f\n", c.name, median_us(c.name, c.phase1, c.phase2, calls));
    }
    return 0;
}
