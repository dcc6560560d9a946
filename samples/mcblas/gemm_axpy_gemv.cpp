// mcBLAS: C = alpha*A*B + beta*C with mcblasSgemm (column-major), then y = 2*x + y with mcblasSaxpy,
// z = A*x with mcblasSgemv and the Euclidean norm of z with mcblasSnrm2 (a result on the host).
#include <cstdio>
#include <vector>
#include <mc_runtime.h>
#include <mcblas/mcblas.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

#define CHECK_MC(call)                                                                            \
    do {                                                                                          \
        mcError_t err_ = (call);                                                                  \
        if (err_ != mcSuccess) {                                                                  \
            printf("%s failed: %s (%d)\n", #call, mcGetErrorString(err_), (int)err_);             \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)
#define CHECK_MCBLAS(call)                                                                        \
    do {                                                                                          \
        mcblasStatus_t status_ = (call);                                                          \
        if (status_ != MCBLAS_STATUS_SUCCESS) {                                                   \
            printf("%s failed: %s\n", #call, mcblasGetStatusName(status_));                       \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

static void print_matrix(const char *name, const std::vector<float> &m, int rows, int cols)
{
    printf("%s =\n", name);
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++)
            printf(" %8.3f", m[IDX2C(i, j, rows)]);
        printf("\n");
    }
}

int main()
{
    const int m = 3, n = 2, k = 4;
    std::vector<float> a(m * k), b(k * n), c(m * n, 1.0f);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++)
            a[IDX2C(i, j, m)] = (float)(i + 1) + 0.5f * (float)j;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < k; i++)
            b[IDX2C(i, j, k)] = (float)(i - j) * 0.25f;

    float *dA, *dB, *dC, *dx, *dy, *dz;
    CHECK_MC(mcMalloc((void **)&dA, a.size() * sizeof(float)));
    CHECK_MC(mcMalloc((void **)&dB, b.size() * sizeof(float)));
    CHECK_MC(mcMalloc((void **)&dC, c.size() * sizeof(float)));
    CHECK_MC(mcMalloc((void **)&dx, k * sizeof(float)));
    CHECK_MC(mcMalloc((void **)&dy, k * sizeof(float)));
    CHECK_MC(mcMalloc((void **)&dz, m * sizeof(float)));

    mcblasHandle_t handle;
    mcStream_t stream;
    CHECK_MC(mcStreamCreate(&stream));
    CHECK_MCBLAS(mcblasCreate(&handle));
    CHECK_MCBLAS(mcblasSetStream(handle, stream));
    CHECK_MCBLAS(mcblasSetMatrix(m, k, sizeof(float), a.data(), m, dA, m));
    CHECK_MCBLAS(mcblasSetMatrix(k, n, sizeof(float), b.data(), k, dB, k));
    CHECK_MCBLAS(mcblasSetMatrix(m, n, sizeof(float), c.data(), m, dC, m));

    const float alpha = 1.0f, beta = 0.5f;
    CHECK_MCBLAS(mcblasSgemm(handle, MCBLAS_OP_N, MCBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
    CHECK_MC(mcStreamSynchronize(stream));
    CHECK_MCBLAS(mcblasGetMatrix(m, n, sizeof(float), dC, m, c.data(), m));
    print_matrix("C", c, m, n);

    std::vector<float> x = {1.0f, -1.0f, 2.0f, 0.5f}, y = {0.5f, 0.5f, 0.5f, 0.5f}, z(m);
    CHECK_MCBLAS(mcblasSetVector(k, sizeof(float), x.data(), 1, dx, 1));
    CHECK_MCBLAS(mcblasSetVector(k, sizeof(float), y.data(), 1, dy, 1));
    const float two = 2.0f, one = 1.0f, zero = 0.0f;
    CHECK_MCBLAS(mcblasSaxpy(handle, k, &two, dx, 1, dy, 1));
    CHECK_MCBLAS(mcblasSgemv(handle, MCBLAS_OP_N, m, k, &one, dA, m, dx, 1, &zero, dz, 1));
    float norm = 0.0f;
    CHECK_MCBLAS(mcblasSnrm2(handle, m, dz, 1, &norm));
    CHECK_MC(mcStreamSynchronize(stream));
    CHECK_MCBLAS(mcblasGetVector(k, sizeof(float), dy, 1, y.data(), 1));
    CHECK_MCBLAS(mcblasGetVector(m, sizeof(float), dz, 1, z.data(), 1));
    printf("y =");
    for (float v : y)
        printf(" %8.3f", v);
    printf("\nz =");
    for (float v : z)
        printf(" %8.3f", v);
    printf("\n|z| = %8.3f\n", norm);

    CHECK_MCBLAS(mcblasDestroy(handle));
    CHECK_MC(mcStreamDestroy(stream));
    for (float *p : {dA, dB, dC, dx, dy, dz})
        CHECK_MC(mcFree(p));
    return 0;
}
