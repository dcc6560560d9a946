// A convolution with the backend graph API, as cudnn-frontend builds it: tensor descriptors (NHWC strides,
// unique ids, virtual intermediates), a convolution descriptor, the operations conv -> add bias -> ReLU
// in one operation graph, the INSTANT heuristic's first engine configuration, an execution plan and a
// variant pack binding device pointers to the ids, then mcdnnBackendExecute.
// The sample checks its numbers against the same convolution computed here in double and exits 1 on a
// mismatch.
#include <cmath>
#include <cstdio>
#include <vector>
#include <mc_runtime.h>
#include <mcdnn/mcdnn.h>

#define CHECK_MC(call)                                                                            \
    do {                                                                                          \
        mcError_t err_ = (call);                                                                  \
        if (err_ != mcSuccess) {                                                                  \
            printf("%s failed: %s (%d)\n", #call, mcGetErrorString(err_), (int)err_);             \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)
#define CHECK_MCDNN(call)                                                                         \
    do {                                                                                          \
        mcdnnStatus_t status_ = (call);                                                           \
        if (status_ != MCDNN_STATUS_SUCCESS) {                                                    \
            printf("%s failed: %s\n", #call, mcdnnGetErrorString(status_));                       \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static const int N = 2, C = 3, H = 7, W = 6, K = 4, R = 3, S = 3;

// A finalized tensor descriptor: NCHW dims with NHWC (channels-last) strides, as frontends describe them.
static mcdnnStatus_t make_tensor(mcdnnBackendDescriptor_t *out, int64_t uid, const int64_t dims[4], bool isVirtual)
{
    const int64_t strides[4] = {dims[1] * dims[2] * dims[3], 1, dims[3] * dims[1], dims[1]};
    const int64_t alignment = 16;
    mcdnnDataType_t type = MCDNN_DATA_FLOAT;
    mcdnnStatus_t s = mcdnnBackendCreateDescriptor(MCDNN_BACKEND_TENSOR_DESCRIPTOR, out);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*out, MCDNN_ATTR_TENSOR_DATA_TYPE, MCDNN_TYPE_DATA_TYPE, 1, &type);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*out, MCDNN_ATTR_TENSOR_DIMENSIONS, MCDNN_TYPE_INT64, 4, dims);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*out, MCDNN_ATTR_TENSOR_STRIDES, MCDNN_TYPE_INT64, 4, strides);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*out, MCDNN_ATTR_TENSOR_UNIQUE_ID, MCDNN_TYPE_INT64, 1, &uid);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*out, MCDNN_ATTR_TENSOR_BYTE_ALIGNMENT, MCDNN_TYPE_INT64, 1, &alignment);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*out, MCDNN_ATTR_TENSOR_IS_VIRTUAL, MCDNN_TYPE_BOOLEAN, 1, &isVirtual);
    return s == MCDNN_STATUS_SUCCESS ? mcdnnBackendFinalize(*out) : s;
}

// A finalized pointwise operation y = mode(x[, b]).
static mcdnnStatus_t make_pointwise(mcdnnBackendDescriptor_t *op, mcdnnPointwiseMode_t mode,
                                    mcdnnBackendDescriptor_t x, mcdnnBackendDescriptor_t b, mcdnnBackendDescriptor_t y)
{
    mcdnnBackendDescriptor_t desc;
    mcdnnDataType_t precision = MCDNN_DATA_FLOAT;
    mcdnnStatus_t s = mcdnnBackendCreateDescriptor(MCDNN_BACKEND_POINTWISE_DESCRIPTOR, &desc);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(desc, MCDNN_ATTR_POINTWISE_MODE, MCDNN_TYPE_POINTWISE_MODE, 1, &mode);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(desc, MCDNN_ATTR_POINTWISE_MATH_PREC, MCDNN_TYPE_DATA_TYPE, 1, &precision);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendFinalize(desc);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendCreateDescriptor(MCDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*op, MCDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, MCDNN_TYPE_BACKEND_DESCRIPTOR,
                                     1, &desc);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*op, MCDNN_ATTR_OPERATION_POINTWISE_XDESC, MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    if (s == MCDNN_STATUS_SUCCESS && b != nullptr)
        s = mcdnnBackendSetAttribute(*op, MCDNN_ATTR_OPERATION_POINTWISE_BDESC, MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
    if (s == MCDNN_STATUS_SUCCESS)
        s = mcdnnBackendSetAttribute(*op, MCDNN_ATTR_OPERATION_POINTWISE_YDESC, MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    return s == MCDNN_STATUS_SUCCESS ? mcdnnBackendFinalize(*op) : s;
}

int main()
{
    // host data, logical NCHW, stored channels-last
    const int64_t xDims[4] = {N, C, H, W}, wDims[4] = {K, C, R, S}, yDims[4] = {N, K, H, W}, bDims[4] = {1, K, 1, 1};
    std::vector<float> x(N * H * W * C), w(K * R * S * C), bias(K), y(N * H * W * K, -1.0f);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = std::sin(0.3f * (float)i);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = 0.25f * std::cos(0.7f * (float)i);
    for (int k = 0; k < K; k++)
        bias[k] = 0.2f * (float)(k - 1);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnBackendDescriptor_t tx, tw, tb, ty, tconv, tbiased;
    CHECK_MCDNN(make_tensor(&tx, 'x', xDims, false));
    CHECK_MCDNN(make_tensor(&tw, 'w', wDims, false));
    CHECK_MCDNN(make_tensor(&tb, 'b', bDims, false));
    CHECK_MCDNN(make_tensor(&ty, 'y', yDims, false));
    CHECK_MCDNN(make_tensor(&tconv, 'c', yDims, true));
    CHECK_MCDNN(make_tensor(&tbiased, 'a', yDims, true));

    // convolution: pad 1, stride 1, dilation 1, cross-correlation, FLOAT compute
    mcdnnBackendDescriptor_t conv;
    const int64_t spatial = 2, pad[2] = {1, 1}, one[2] = {1, 1};
    mcdnnDataType_t compute = MCDNN_DATA_FLOAT;
    mcdnnConvolutionMode_t mode = MCDNN_CROSS_CORRELATION;
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, MCDNN_TYPE_INT64, 1, &spatial));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_COMP_TYPE, MCDNN_TYPE_DATA_TYPE, 1, &compute));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_CONV_MODE, MCDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_PRE_PADDINGS, MCDNN_TYPE_INT64, 2, pad));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_POST_PADDINGS, MCDNN_TYPE_INT64, 2, pad));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_DILATIONS, MCDNN_TYPE_INT64, 2, one));
    CHECK_MCDNN(mcdnnBackendSetAttribute(conv, MCDNN_ATTR_CONVOLUTION_FILTER_STRIDES, MCDNN_TYPE_INT64, 2, one));
    CHECK_MCDNN(mcdnnBackendFinalize(conv));

    mcdnnBackendDescriptor_t ops[3];
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &ops[0]));
    CHECK_MCDNN(mcdnnBackendSetAttribute(ops[0], MCDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                         MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tx));
    CHECK_MCDNN(mcdnnBackendSetAttribute(ops[0], MCDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                         MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tw));
    CHECK_MCDNN(mcdnnBackendSetAttribute(ops[0], MCDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                                         MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tconv));
    CHECK_MCDNN(mcdnnBackendSetAttribute(ops[0], MCDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                         MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv));
    CHECK_MCDNN(mcdnnBackendSetAttribute(ops[0], MCDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, MCDNN_TYPE_FLOAT, 1,
                                         &alpha));
    CHECK_MCDNN(mcdnnBackendSetAttribute(ops[0], MCDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, MCDNN_TYPE_FLOAT, 1,
                                         &beta));
    CHECK_MCDNN(mcdnnBackendFinalize(ops[0]));
    CHECK_MCDNN(make_pointwise(&ops[1], MCDNN_POINTWISE_ADD, tconv, tb, tbiased));
    CHECK_MCDNN(make_pointwise(&ops[2], MCDNN_POINTWISE_RELU_FWD, tbiased, nullptr, ty));

    mcdnnBackendDescriptor_t graph;
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    CHECK_MCDNN(mcdnnBackendSetAttribute(graph, MCDNN_ATTR_OPERATIONGRAPH_HANDLE, MCDNN_TYPE_HANDLE, 1, &handle));
    CHECK_MCDNN(mcdnnBackendSetAttribute(graph, MCDNN_ATTR_OPERATIONGRAPH_OPS, MCDNN_TYPE_BACKEND_DESCRIPTOR, 3, ops));
    CHECK_MCDNN(mcdnnBackendFinalize(graph));

    // heuristics -> the first engine configuration -> an execution plan
    mcdnnBackendDescriptor_t heur, config, plan;
    mcdnnBackendHeurMode_t heurMode = MCDNN_HEUR_MODE_INSTANT;
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CHECK_MCDNN(mcdnnBackendSetAttribute(heur, MCDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, MCDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                         &graph));
    CHECK_MCDNN(mcdnnBackendSetAttribute(heur, MCDNN_ATTR_ENGINEHEUR_MODE, MCDNN_TYPE_HEUR_MODE, 1, &heurMode));
    CHECK_MCDNN(mcdnnBackendFinalize(heur));
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_ENGINECFG_DESCRIPTOR, &config));
    int64_t configs = 0;
    CHECK_MCDNN(mcdnnBackendGetAttribute(heur, MCDNN_ATTR_ENGINEHEUR_RESULTS, MCDNN_TYPE_BACKEND_DESCRIPTOR, 1, &configs,
                                         &config));
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK_MCDNN(mcdnnBackendSetAttribute(plan, MCDNN_ATTR_EXECUTION_PLAN_HANDLE, MCDNN_TYPE_HANDLE, 1, &handle));
    CHECK_MCDNN(mcdnnBackendSetAttribute(plan, MCDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, MCDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                         &config));
    CHECK_MCDNN(mcdnnBackendFinalize(plan));
    int64_t workspaceSize = -1, count = 0;
    CHECK_MCDNN(mcdnnBackendGetAttribute(plan, MCDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, MCDNN_TYPE_INT64, 1, &count,
                                         &workspaceSize));

    float *dx, *dw, *db, *dy;
    void *workspace = nullptr;
    CHECK_MC(mcMalloc(&dx, x.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dw, w.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&db, bias.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dy, y.size() * sizeof(float)));
    if (workspaceSize > 0)
        CHECK_MC(mcMalloc(&workspace, (size_t)workspaceSize));
    CHECK_MC(mcMemcpy(dx, x.data(), x.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dw, w.data(), w.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(db, bias.data(), bias.size() * sizeof(float), mcMemcpyHostToDevice));

    // the variant pack: device pointers by tensor id
    mcdnnBackendDescriptor_t pack;
    const int64_t uids[4] = {'x', 'w', 'b', 'y'};
    void *pointers[4] = {dx, dw, db, dy};
    CHECK_MCDNN(mcdnnBackendCreateDescriptor(MCDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    CHECK_MCDNN(mcdnnBackendSetAttribute(pack, MCDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, MCDNN_TYPE_INT64, 4, uids));
    CHECK_MCDNN(mcdnnBackendSetAttribute(pack, MCDNN_ATTR_VARIANT_PACK_DATA_POINTERS, MCDNN_TYPE_VOID_PTR, 4, pointers));
    CHECK_MCDNN(mcdnnBackendSetAttribute(pack, MCDNN_ATTR_VARIANT_PACK_WORKSPACE, MCDNN_TYPE_VOID_PTR, 1, &workspace));
    CHECK_MCDNN(mcdnnBackendFinalize(pack));
    CHECK_MCDNN(mcdnnBackendExecute(handle, plan, pack));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y.data(), dy, y.size() * sizeof(float), mcMemcpyDeviceToHost));

    // the same convolution in double, channels-last indexing
    double worst = 0.0, total = 0.0;
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int i = 0; i < H; i++)
                for (int j = 0; j < W; j++) {
                    double s = bias[k];
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int q = 0; q < S; q++) {
                                int ii = i + r - 1, jj = j + q - 1;
                                if (ii >= 0 && ii < H && jj >= 0 && jj < W)
                                    s += (double)x[((n * H + ii) * W + jj) * C + c] * w[((k * R + r) * S + q) * C + c];
                            }
                    s = s > 0 ? s : 0;
                    double got = y[((n * H + i) * W + j) * K + k];
                    worst = std::fmax(worst, std::fabs(got - s));
                    total += got;
                }
    printf("engine configurations %lld, workspace %lld bytes\n", (long long)configs, (long long)workspaceSize);
    printf("sum of relu(conv(x, w) + bias) = %.5f\n", total);
    printf("max |y - double reference| = %.3g\n", worst);
    bool ok = configs == 1 && worst < 1e-5;
    printf("%s\n", ok ? "PASSED" : "FAILED");

    for (mcdnnBackendDescriptor_t d : {pack, plan, config, heur, graph, ops[0], ops[1], ops[2], conv, tx, tw, tb, ty,
                                       tconv, tbiased})
        CHECK_MCDNN(mcdnnBackendDestroyDescriptor(d));
    for (void *p : {(void *)dx, (void *)dw, (void *)db, (void *)dy})
        CHECK_MC(mcFree(p));
    if (workspace)
        CHECK_MC(mcFree(workspace));
    CHECK_MCDNN(mcdnnDestroy(handle));
    return ok ? 0 : 1;
}
