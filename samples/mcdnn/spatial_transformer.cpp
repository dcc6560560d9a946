// Spatial transformer: a 90-degree rotation of a 1x1x3x3 image through the affine grid generator and the
// bilinear sampler, then the sampler's backward (dx and dgrid) and the grid generator's (dtheta).
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
    const int n = 1, c = 1, h = 3, w = 3;
    // x_s = -y_t, y_s = x_t: the output pixel (i, j) samples the input at (j, 2 - i)
    std::vector<float> theta = {0.0f, -1.0f, 0.0f, 1.0f, 0.0f, 0.0f};
    std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y(9), grid(h * w * 2), dy(9, 1.0f), dx(9), dgrid(h * w * 2);
    std::vector<float> dtheta(6);

    mcdnnHandle_t handle;
    CHECK_MCDNN(mcdnnCreate(&handle));
    mcdnnSpatialTransformerDescriptor_t st;
    CHECK_MCDNN(mcdnnCreateSpatialTransformerDescriptor(&st));
    int dims[4] = {n, c, h, w};
    CHECK_MCDNN(mcdnnSetSpatialTransformerNdDescriptor(st, MCDNN_SAMPLER_BILINEAR, MCDNN_DATA_FLOAT, 4, dims));
    mcdnnTensorDescriptor_t desc;
    CHECK_MCDNN(mcdnnCreateTensorDescriptor(&desc));
    CHECK_MCDNN(mcdnnSetTensor4dDescriptor(desc, MCDNN_TENSOR_NCHW, MCDNN_DATA_FLOAT, n, c, h, w));

    void *dTheta, *dGrid, *dX, *dY, *dDY, *dDX, *dDGrid, *dDTheta;
    CHECK_MC(mcMalloc(&dTheta, theta.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dGrid, grid.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dX, x.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dY, y.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDY, dy.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDX, dx.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDGrid, dgrid.size() * sizeof(float)));
    CHECK_MC(mcMalloc(&dDTheta, dtheta.size() * sizeof(float)));
    CHECK_MC(mcMemcpy(dTheta, theta.data(), theta.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dX, x.data(), x.size() * sizeof(float), mcMemcpyHostToDevice));
    CHECK_MC(mcMemcpy(dDY, dy.data(), dy.size() * sizeof(float), mcMemcpyHostToDevice));

    const float one = 1.0f, zero = 0.0f;
    CHECK_MCDNN(mcdnnSpatialTfGridGeneratorForward(handle, st, dTheta, dGrid));
    CHECK_MCDNN(mcdnnSpatialTfSamplerForward(handle, st, &one, desc, dX, dGrid, &zero, desc, dY));
    CHECK_MCDNN(mcdnnSpatialTfSamplerBackward(handle, st, &one, desc, dX, &zero, desc, dDX, &one, desc, dDY, dGrid,
                                              &zero, dDGrid));
    CHECK_MCDNN(mcdnnSpatialTfGridGeneratorBackward(handle, st, dDGrid, dDTheta));
    CHECK_MC(mcDeviceSynchronize());
    CHECK_MC(mcMemcpy(grid.data(), dGrid, grid.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(y.data(), dY, y.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dx.data(), dDX, dx.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dgrid.data(), dDGrid, dgrid.size() * sizeof(float), mcMemcpyDeviceToHost));
    CHECK_MC(mcMemcpy(dtheta.data(), dDTheta, dtheta.size() * sizeof(float), mcMemcpyDeviceToHost));

    printf("grid row 0: (%+.1f,%+.1f) (%+.1f,%+.1f) (%+.1f,%+.1f)\n", grid[0], grid[1], grid[2], grid[3], grid[4],
           grid[5]);
    printf("x rotated:\n");
    for (int i = 0; i < h; i++)
        printf("  %4.1f %4.1f %4.1f\n", y[i * w], y[i * w + 1], y[i * w + 2]);
    printf("dx (each input pixel sampled once): %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", dx[0], dx[1], dx[2],
           dx[3], dx[4], dx[5], dx[6], dx[7], dx[8]);
    printf("dgrid at the centre: (%+.2f, %+.2f)\n", dgrid[8], dgrid[9]);
    printf("dtheta: [%+.2f %+.2f %+.2f; %+.2f %+.2f %+.2f]\n", dtheta[0], dtheta[1], dtheta[2], dtheta[3],
           dtheta[4], dtheta[5]);

    for (void *p : {dTheta, dGrid, dX, dY, dDY, dDX, dDGrid, dDTheta})
        mcFree(p);
    mcdnnDestroyTensorDescriptor(desc);
    mcdnnDestroySpatialTransformerDescriptor(st);
    mcdnnDestroy(handle);
    return 0;
}
