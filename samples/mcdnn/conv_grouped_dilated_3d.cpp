// Three convolutions beyond the plain 2-D one, each forward and backward (data and filter):
//   grouped   x 2x8x9x9,    4 groups, filter 12x2x3x3, padding 1
//   dilated   x 2x3x11x11,  filter 4x3x3x3, dilation 2, stride 2, padding 2 (a true convolution: flipped)
//   3-D       x 1x2x6x7x5,  filter 3x2x3x3x3, padding 1x1x0, stride 1x2x1
// For each: the output dims from mcdnnGetConvolutionNdForwardOutputDim, the algorithms Find measures, and the
// sums of y, dx and dw (printed with 6 decimals) for comparison with another implementation.
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

struct Case {
    const char *name;
    int nbDims;  // tensor dims: 4 or 5
    int x[5], w[5], pad[3], stride[3], dilation[3], groups;
    mcdnnConvolutionMode_t mode;
};

static std::vector<float> pattern(size_t count, int a, int b, float scale)
{
    std::vector<float> v(count);
    for (size_t i = 0; i < count; i++)
        v[i] = (float)(((long)i * a) % b) * scale - 1.0f;
    return v;
}

static size_t product(const int *dims, int n)
{
    size_t p = 1;
    for (int i = 0; i < n; i++)
        p *= (size_t)dims[i];
    return p;
}

static float *upload(const std::vector<float> &host)
{
    float *p = nullptr;
    if (mcMalloc((void **)&p, host.size() * sizeof(float)) != mcSuccess)
        return nullptr;
    mcMemcpy(p, host.data(), host.size() * sizeof(float), mcMemcpyHostToDevice);
    return p;
}

static double device_sum(const float *p, size_t count)
{
    std::vector<float> host(count);
    mcMemcpy(host.data(), p, count * sizeof(float), mcMemcpyDeviceToHost);
    double s = 0.0;
    for (float v : host)
        s += v;
    return s;
}

static void packed_strides(const int *dims, int n, int *strides)
{
    int s = 1;
    for (int i = n - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

static int run(mcdnnHandle_t handle, const Case &c)
{
    const int n = c.nbDims, spatial = n - 2;
    int xs[5], ys[5], y[5];
    mcdnnTensorDescriptor_t xDesc, yDesc;
    mcdnnFilterDescriptor_t wDesc;
    mcdnnConvolutionDescriptor_t convDesc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&xDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&yDesc));
    CHECK_MCDNN(mcdnnCreateFilterDescriptor(&wDesc));
    CHECK_MCDNN(mcdnnCreateConvolutionDescriptor(&convDesc));
    packed_strides(c.x, n, xs);
    CHECK_MCDNN(mcdnnSetTensorNdDescriptor(xDesc, MCDNN_DATA_FLOAT, n, c.x, xs));
    CHECK_MCDNN(mcdnnSetFilterNdDescriptor(wDesc, MCDNN_DATA_FLOAT, MCDNN_TENSOR_NCHW, n, c.w));
    CHECK_MCDNN(mcdnnSetConvolutionNdDescriptor(convDesc, spatial, c.pad, c.stride, c.dilation, c.mode,
                                                MCDNN_DATA_FLOAT));
    CHECK_MCDNN(mcdnnSetConvolutionGroupCount(convDesc, c.groups));
    CHECK_MCDNN(mcdnnGetConvolutionNdForwardOutputDim(convDesc, xDesc, wDesc, n, y));
    packed_strides(y, n, ys);
    CHECK_MCDNN(mcdnnSetTensorNdDescriptor(yDesc, MCDNN_DATA_FLOAT, n, y, ys));
    printf("%s: y dims", c.name);
    for (int i = 0; i < n; i++)
        printf(" %d", y[i]);
    printf("\n");

    const size_t xCount = product(c.x, n), wCount = product(c.w, n), yCount = product(y, n);
    float *dX = upload(pattern(xCount, 7, 13, 0.15f)), *dW = upload(pattern(wCount, 5, 11, 0.2f));
    float *dDY = upload(pattern(yCount, 3, 7, 0.3f));
    float *dY = upload(std::vector<float>(yCount)), *dDX = upload(std::vector<float>(xCount));
    float *dDW = upload(std::vector<float>(wCount));

    // Find times every forward algorithm; run the fastest with the workspace it asks for.
    mcdnnConvolutionFwdAlgoPerf_t perf[MCDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    CHECK_MCDNN(mcdnnFindConvolutionForwardAlgorithm(handle, xDesc, wDesc, convDesc, yDesc,
                                                     MCDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
    printf("%s: forward algorithms that run:", c.name);
    for (int i = 0; i < returned; i++)
        if (perf[i].status == MCDNN_STATUS_SUCCESS)
            printf(" %d (%zu bytes)", (int)perf[i].algo, perf[i].memory);
    printf("\n");
    size_t wsBytes = perf[0].memory, size = 0;
    CHECK_MCDNN(mcdnnGetConvolutionBackwardDataWorkspaceSize(handle, wDesc, yDesc, convDesc, xDesc,
                                                             MCDNN_CONVOLUTION_BWD_DATA_ALGO_1, &size));
    wsBytes = size > wsBytes ? size : wsBytes;
    CHECK_MCDNN(mcdnnGetConvolutionBackwardFilterWorkspaceSize(handle, xDesc, yDesc, convDesc, wDesc,
                                                               MCDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &size));
    wsBytes = size > wsBytes ? size : wsBytes;
    void *workspace = nullptr;
    if (wsBytes)
        CHECK_MC(mcMalloc(&workspace, wsBytes));

    const float one = 1.0f, zero = 0.0f;
    CHECK_MCDNN(mcdnnConvolutionForward(handle, &one, xDesc, dX, wDesc, dW, convDesc, perf[0].algo, workspace, wsBytes,
                                        &zero, yDesc, dY));
    CHECK_MCDNN(mcdnnConvolutionBackwardData(handle, &one, wDesc, dW, yDesc, dDY, convDesc,
                                             MCDNN_CONVOLUTION_BWD_DATA_ALGO_1, workspace, wsBytes, &zero, xDesc,
                                             dDX));
    CHECK_MCDNN(mcdnnConvolutionBackwardFilter(handle, &one, xDesc, dX, yDesc, dDY, convDesc,
                                               MCDNN_CONVOLUTION_BWD_FILTER_ALGO_1, workspace, wsBytes, &zero, wDesc,
                                               dDW));
    CHECK_MC(mcDeviceSynchronize());
    printf("%s: sum y %.6f  sum dx %.6f  sum dw %.6f\n", c.name, device_sum(dY, yCount), device_sum(dDX, xCount),
           device_sum(dDW, wCount));

    float *buffers[6] = {dX, dW, dDY, dY, dDX, dDW};
    for (float *p : buffers)
        mcFree(p);
    if (workspace)
        mcFree(workspace);
    mcdnnDestroyTensorDescriptor(xDesc);
    mcdnnDestroyTensorDescriptor(yDesc);
    mcdnnDestroyFilterDescriptor(wDesc);
    mcdnnDestroyConvolutionDescriptor(convDesc);
    return 0;
}

int main()
{
    const Case cases[3] = {
        {"grouped", 4, {2, 8, 9, 9}, {12, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 4, MCDNN_CROSS_CORRELATION},
        {"dilated", 4, {2, 3, 11, 11}, {4, 3, 3, 3}, {2, 2}, {2, 2}, {2, 2}, 1, MCDNN_CONVOLUTION},
        {"3-D", 5, {1, 2, 6, 7, 5}, {3, 2, 3, 3, 3}, {1, 1, 0}, {1, 2, 1}, {1, 1, 1}, 1, MCDNN_CROSS_CORRELATION},
    };
    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    for (const Case &c : cases)
        if (run(handle, c) != 0)
            return 1;
    CHECK_MCDNN(mcdnnDestroy(handle));
    return 0;
}
