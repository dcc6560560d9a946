// mcdnnPoolingForward / mcdnnPoolingBackward: 2x2 max pooling, stride 2, on a 1x1x4x4 float tensor.
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

int main()
{
    const int n = 1, c = 1, h = 4, w = 4;
    std::vector<float> x(n * c * h * w);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = (float)((i * 7) % 16);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnTensorDescriptor_t xDesc, yDesc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&xDesc));
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&yDesc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(xDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));
    mcdnnPoolingDescriptor_t pool;
    CHECK_MCDNN(mcdnnCreatePoolingDescriptor(&pool));
    CHECK_MCDNN(mcdnnSetPooling2dDescriptor(pool, MCDNN_POOLING_MAX, MCDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    int on, oc, oh, ow;
    CHECK_MCDNN(mcdnnGetPooling2dForwardOutputDim(pool, xDesc, &on, &oc, &oh, &ow));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(yDesc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, on, oc, oh, ow));
    printf("output dims: %d x %d x %d x %d\n", on, oc, oh, ow);

    std::vector<float> y(on * oc * oh * ow), dy(y.size(), 1.0f), dx(x.size());
    void *dX, *dY, *dDY, *dDX;
    CHECK_MC(mcMalloc(&dX, x.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDX, x.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dY, y.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDY, y.size() * sizeof(float)));
    CHECK_MC(mcMemcpy(dX, x.data(), x.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), dy.size() * sizeof(float), mcMemcpyHostToDevice));

    float alpha = 1.0f, beta = 0.0f;
    CHECK_MCDNN(mcdnnPoolingForward(handle, pool, &alpha, xDesc, dX, &beta, yDesc, dY));
    CHECK_MCDNN(mcdnnPoolingBackward(handle, pool, &alpha, yDesc, dY, yDesc, dDY, xDesc, dX, &beta, xDesc, dDX));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(y.data(), dY, y.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, dx.size() * sizeof(float), mcMemcpyDeviceToHost));

    printf("x:\n");
    for (int i = 0; i < h; i++)
        printf("  %5.1f %5.1f %5.1f %5.1f\n", x[i * w], x[i * w + 1], x[i * w + 2], x[i * w + 3]);
    printf("max pooled y:\n");
    for (int i = 0; i < oh; i++)
        printf("  %5.1f %5.1f\n", y[i * ow], y[i * ow + 1]);
    printf("dx (dy = 1 routed to each window's max):\n");
    for (int i = 0; i < h; i++)
        printf("  %3.0f %3.0f %3.0f %3.0f\n", dx[i * w], dx[i * w + 1], dx[i * w + 2], dx[i * w + 3]);

    mcFree(dX);
    mcFree(dY);
    mcFree(dDY);
    mcFree(dDX);
    mcdnnDestroyPoolingDescriptor(pool);
    mcdnnDestroyTensorDescriptor(xDesc);
    mcdnnDestroyTensorDescriptor(yDesc);
    mcdnnDestroy(handle);
    return 0;
}
